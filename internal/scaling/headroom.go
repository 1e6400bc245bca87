package scaling

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// PlaceWithHeadroom is [Place] for a deficit when headroom replicas of the
// count are spare (Decision.Headroom): spare replicas are kept where they
// are cheapest. The spare replicas are the last of the count: the primary
// runs the first (a private primary is filled first: only what it cannot
// run is a deficit), so the headroom is among the burst replicas. Those
// already running on targets as cheap as the cheapest usable one (per
// pod-hour for pod's requests) count as headroom first (they are where
// spare replicas would go); the rest of the headroom, up to the deficit, is
// the deficit's spare part. The load's part of the deficit is placed by
// mode as [Place] does; the spare part then goes to the room left, cheapest
// first ([PlacementCheapest], running nodes or not: spare replicas keep no
// one waiting), so that a priority or weighted placement that prefers a
// dearer target never puts headroom there while a cheaper target has room.
// Running replicas are never moved.
//
// Assignments lists the load's targets first (in mode's order), then the
// targets that took only spare replicas; a target taking both appears once;
// Spare is the deficit's spare part.
// Errors wrap [ErrInvalidInput] and name the offending field.
func PlaceWithHeadroom(deficit, headroom int32, pod PodRequests, targets []BurstTarget, mode PlacementMode) (Placement, error) {
	if headroom < 0 {
		return Placement{}, fmt.Errorf("%w: headroom is %d: pass the spare replicas of the count, 0 or more", ErrInvalidInput, headroom)
	}
	if err := validatePlacement(deficit, pod, targets, mode); err != nil {
		return Placement{}, err
	}
	cheapest, usable := math.Inf(1), false
	for i, t := range targets {
		if c, reason := candidateFor(i, t, pod); reason == "" {
			cheapest, usable = min(cheapest, c.price), true
		}
	}
	var there int64
	for _, t := range targets {
		if !usable || pod.HourlyPrice(t) <= cheapest {
			there += int64(t.Current)
		}
	}
	spare := int32(min(int64(deficit), max(0, int64(headroom)-there)))
	load, err := Place(deficit-spare, pod, targets, mode)
	if err != nil || spare == 0 {
		return load, err
	}
	after := slices.Clone(targets)
	for i := range after {
		// Spare replicas wait for no one: cheapest first, on running
		// nodes or not.
		after[i].GrowCPUMilli, after[i].GrowMemoryBytes = 0, 0
		n := load.Replicas(after[i].Name)
		if n == 0 {
			continue
		}
		after[i].Current += n
		after[i].FreeCPUMilli -= int64(n) * pod.CPUMilli
		after[i].FreeMemoryBytes -= int64(n) * pod.MemoryBytes
	}
	extra, err := Place(spare, pod, after, PlacementCheapest)
	if err != nil {
		return Placement{}, err
	}
	out := Placement{Assignments: load.Assignments, Unplaced: load.Unplaced + extra.Unplaced, Skipped: load.Skipped, Spare: spare}
	if deficit == spare {
		out.Skipped = extra.Skipped
	}
	for _, a := range extra.Assignments {
		if i := slices.IndexFunc(out.Assignments, func(b PlacementAssignment) bool { return b.Target == a.Target }); i >= 0 {
			out.Assignments[i].Replicas += a.Replicas
			continue
		}
		out.Assignments = append(out.Assignments, a)
	}
	return out, nil
}

// HeadroomShare is the part of the headroom one cluster holds and what it
// costs there.
type HeadroomShare struct {
	Cluster     string
	Replicas    int32
	CostPerHour float64
	// Primary marks the primary cluster's share.
	Primary bool
}

// HeadroomSpread is the answer of [HeadroomCost].
type HeadroomSpread struct {
	// Shares lists the clusters holding spare replicas: burst clusters
	// cheapest first, the primary last.
	Shares []HeadroomShare
	// Replicas is the spare replicas counted (at most the replicas
	// running), CostPerHour what they cost per hour.
	Replicas    int32
	CostPerHour float64
}

// HeadroomCost prices spare replicas (Decision.Headroom) where
// [PlaceWithHeadroom] keeps them: the headroom is the last spare replicas
// of the count, so it is counted in the burst clusters first, cheapest per
// pod-hour for pod's requests first (ties by Name), up to the replicas each
// runs (BurstTarget.Current), and the rest in the primary (primary, holding
// primaryCurrent replicas, priced by primaryPrices' PricePerVCPUHour and
// PricePerGiBHour; zero prices: the private cluster's replicas cost
// nothing more). Each share costs its replicas x pod.HourlyPrice of its
// cluster. Only Name, Current and the prices of burst are read.
//
// Errors wrap [ErrInvalidInput] and name the offending field.
func HeadroomCost(spare int32, pod PodRequests, primary string, primaryCurrent int32, primaryPrices BurstTarget, burst []BurstTarget) (HeadroomSpread, error) {
	switch {
	case spare < 0:
		return HeadroomSpread{}, fmt.Errorf("%w: spare is %d: pass the headroom's replicas, 0 or more", ErrInvalidInput, spare)
	case primary == "":
		return HeadroomSpread{}, fmt.Errorf("%w: primary cluster name is empty: name the primary cluster", ErrInvalidInput)
	case primaryCurrent < 0:
		return HeadroomSpread{}, fmt.Errorf("%w: primaryCurrent is %d: pass the primary's replicas, 0 or more", ErrInvalidInput, primaryCurrent)
	case badPrice(primaryPrices.PricePerVCPUHour) || badPrice(primaryPrices.PricePerGiBHour):
		return HeadroomSpread{}, fmt.Errorf("%w: primary prices are %v per vCPU-hour and %v per GiB-hour: use finite prices, 0 or more", ErrInvalidInput, primaryPrices.PricePerVCPUHour, primaryPrices.PricePerGiBHour)
	}
	if err := validatePod(pod); err != nil {
		return HeadroomSpread{}, err
	}
	if err := validateTargets(burst); err != nil {
		return HeadroomSpread{}, err
	}
	order := slices.Clone(burst)
	slices.SortFunc(order, func(a, b BurstTarget) int {
		if c := cmp.Compare(pod.HourlyPrice(a), pod.HourlyPrice(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	var out HeadroomSpread
	left := spare
	add := func(s HeadroomShare, price float64) {
		s.CostPerHour = float64(s.Replicas) * price
		out.Shares = append(out.Shares, s)
		out.Replicas += s.Replicas
		out.CostPerHour += s.CostPerHour
		left -= s.Replicas
	}
	for _, t := range order {
		if n := min(left, t.Current); n > 0 {
			add(HeadroomShare{Cluster: t.Name, Replicas: n}, pod.HourlyPrice(t))
		}
	}
	if n := min(left, primaryCurrent); n > 0 {
		add(HeadroomShare{Cluster: primary, Replicas: n, Primary: true}, pod.HourlyPrice(primaryPrices))
	}
	return out, nil
}
