package scaling

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// PlacementMode selects how [Place] spreads a replica deficit over burst
// targets. The values are the ones a BurstPolicy's placement field accepts.
type PlacementMode string

const (
	// PlacementPriority fills targets in order of Priority, highest first (as
	// Kubernetes PriorityClass values and the cluster-autoscaler priority
	// expander: a bigger number is preferred).
	PlacementPriority PlacementMode = "priority"
	// PlacementCheapest fills targets in order of their price per pod-hour
	// for the pod's requests, cheapest first.
	PlacementCheapest PlacementMode = "cheapest"
	// PlacementWeighted splits the deficit in proportion to Weight (largest
	// remainder method); what a full target cannot take spills over to the
	// others, again in proportion to their weights.
	PlacementWeighted PlacementMode = "weighted"
	// PlacementCapacity fills targets in order of free capacity, most pods
	// that fit first.
	PlacementCapacity PlacementMode = "capacity"
)

// PodRequests is one replica's resource request. A zero field means the pod
// requests none of that resource, so that resource never limits placement.
type PodRequests struct {
	// CPUMilli is the CPU request in millicores.
	CPUMilli int64
	// MemoryBytes is the memory request in bytes.
	MemoryBytes int64
}

// gibibyte is 2^30 bytes, the unit of PricePerGiBHour.
const gibibyte = 1 << 30

// HourlyPrice is what one replica with these requests costs per hour on t,
// from t's per-vCPU-hour and per-GiB-hour prices.
func (p PodRequests) HourlyPrice(t BurstTarget) float64 {
	return float64(p.CPUMilli)/1000*t.PricePerVCPUHour + float64(p.MemoryBytes)/gibibyte*t.PricePerGiBHour
}

// BurstTarget is one cluster that can take replicas the primary cluster
// cannot run, as the placement decision sees it.
type BurstTarget struct {
	// Name identifies the cluster (a HybridCluster name). Names must be
	// unique and non-empty; ties in every mode are broken by Name.
	Name string
	// Priority orders targets in PlacementPriority mode: higher first.
	Priority int
	// Weight is the target's share in PlacementWeighted mode. 0 means "no
	// share" (the target is skipped) unless every usable target has weight
	// 0, in which case all count equally.
	Weight int32
	// MaxReplicas caps the target's replicas of this workload; 0 means no
	// cap.
	MaxReplicas int32
	// Current is the number of replicas of this workload already there.
	Current int32
	// Reachable reports whether the last probe reached the cluster.
	Reachable bool
	// NotReady, when not empty, says why a reachable cluster cannot take
	// replicas yet (the workload's namespace there is being deleted): it
	// is skipped by Place; its current replicas are left to ScaleBack.
	NotReady string
	// FreeCPUMilli and FreeMemoryBytes are the cluster's free (allocatable
	// minus requested) capacity. Negative values count as 0.
	FreeCPUMilli, FreeMemoryBytes int64
	// GrowCPUMilli and GrowMemoryBytes are the part of the free capacity
	// that is not on running nodes: nodes the cluster's node groups must
	// buy (or that still boot) before a pod placed there starts. Placement
	// fills room on running nodes first (see [Place]); 0 (the default):
	// all the free capacity is on running nodes.
	GrowCPUMilli, GrowMemoryBytes int64
	// PricePerVCPUHour and PricePerGiBHour are the cluster's prices.
	PricePerVCPUHour, PricePerGiBHour float64
}

// SkipReason says why a target received (or gave back) nothing.
type SkipReason string

const (
	// SkipUnreachable: the cluster did not answer its last probe.
	SkipUnreachable SkipReason = "unreachable"
	// SkipNotReady: the cluster answers but cannot take replicas yet
	// (BurstTarget.NotReady).
	SkipNotReady SkipReason = "not-ready"
	// SkipAtMax: the target already runs MaxReplicas replicas.
	SkipAtMax SkipReason = "at-max"
	// SkipNoCapacity: not one pod fits in the free CPU and memory.
	SkipNoCapacity SkipReason = "no-capacity"
	// SkipZeroWeight: weighted mode and the target's weight is 0 while
	// other usable targets have a weight.
	SkipZeroWeight SkipReason = "zero-weight"
)

// PlacementSkip records a target that took no replicas and why.
type PlacementSkip struct {
	Target string
	Reason SkipReason
}

// PlacementAssignment is a number of replicas to add to one target.
type PlacementAssignment struct {
	Target   string
	Replicas int32
}

// Placement is the answer of [Place].
type Placement struct {
	// Assignments lists the targets that receive replicas (Replicas > 0),
	// in the mode's preference order.
	Assignments []PlacementAssignment
	// Unplaced is the part of the deficit no target could take.
	Unplaced int32
	// Spare is the part of the deficit that is headroom, placed cheapest
	// first ([PlaceWithHeadroom]; 0 from [Place]).
	Spare int32
	// Skipped lists, in input order, the targets that could take nothing
	// and why. Targets that could take replicas but were not needed are not
	// listed.
	Skipped []PlacementSkip
}

// Replicas returns the replicas assigned to target (0 if none).
func (p Placement) Replicas(target string) int32 {
	for _, a := range p.Assignments {
		if a.Target == target {
			return a.Replicas
		}
	}
	return 0
}

// Placed returns the total of the assignments.
func (p Placement) Placed() int32 {
	var n int32
	for _, a := range p.Assignments {
		n += a.Replicas
	}
	return n
}

// placeCandidate is a usable target during placement.
type placeCandidate struct {
	idx    int   // index in the input slice
	room   int64 // replicas it can still take (headroom and free capacity)
	ready  int64 // of room, those that fit on running nodes
	fit    int64 // pods that fit in free capacity, ignoring MaxReplicas
	price  float64
	weight int64
	given  int64
}

// Place spreads deficit replicas (pods the primary cluster cannot run) over
// targets according to mode. It honours reachability, each target's
// MaxReplicas and its free capacity (a pod needs both its CPU and its memory
// to fit), and is deterministic: equal keys are ordered by Name.
//
// In the priority, cheapest and capacity modes the room on running nodes
// is filled first, in the mode's order, and only then the room node groups
// must buy (BurstTarget.GrowCPUMilli): a replica waits a pod start-up
// where a node runs with room, a node boot (75 s in the lab, a minute or
// more on EKS) where one must be bought, and a burst exists because the
// load already outran the primary. Within one cluster the scheduler and
// Cluster Autoscaler do the same: a new node only for pods that fit on none.
// Weighted mode keeps its split.
//
// Errors wrap [ErrInvalidInput] and name the offending field.
func Place(deficit int32, pod PodRequests, targets []BurstTarget, mode PlacementMode) (Placement, error) {
	if err := validatePlacement(deficit, pod, targets, mode); err != nil {
		return Placement{}, err
	}
	var out Placement
	cands := make([]placeCandidate, 0, len(targets))
	for i, t := range targets {
		c, reason := candidateFor(i, t, pod)
		if reason != "" {
			out.Skipped = append(out.Skipped, PlacementSkip{Target: t.Name, Reason: reason})
			continue
		}
		cands = append(cands, c)
	}
	if deficit == 0 {
		return out, nil
	}

	remaining := int64(deficit)
	switch mode {
	case PlacementWeighted:
		cands = weightedCandidates(cands, targets, &out)
		remaining = fillWeighted(cands, remaining, targets)
	default:
		sortForMode(cands, targets, mode)
		for i := range cands { // running nodes first
			g := min(cands[i].ready, remaining)
			cands[i].given = g
			remaining -= g
		}
		for i := range cands { // then nodes to buy
			g := min(cands[i].room-cands[i].given, remaining)
			cands[i].given += g
			remaining -= g
		}
	}
	for _, c := range cands {
		if c.given > 0 {
			out.Assignments = append(out.Assignments, PlacementAssignment{Target: targets[c.idx].Name, Replicas: int32(c.given)})
		}
	}
	out.Unplaced = int32(remaining)
	return out, nil
}

// candidateFor works out how many replicas t can take, or why it can take
// none.
func candidateFor(i int, t BurstTarget, pod PodRequests) (placeCandidate, SkipReason) {
	if !t.Reachable {
		return placeCandidate{}, SkipUnreachable
	}
	if t.NotReady != "" {
		return placeCandidate{}, SkipNotReady
	}
	headroom := int64(math.MaxInt32)
	if t.MaxReplicas > 0 {
		headroom = int64(t.MaxReplicas) - int64(t.Current)
		if headroom <= 0 {
			return placeCandidate{}, SkipAtMax
		}
	}
	fit := podsThatFit(pod, t)
	if fit == 0 {
		return placeCandidate{}, SkipNoCapacity
	}
	running := t
	running.FreeCPUMilli -= max(t.GrowCPUMilli, 0)
	running.FreeMemoryBytes -= max(t.GrowMemoryBytes, 0)
	return placeCandidate{
		idx:    i,
		room:   min(headroom, fit),
		ready:  min(headroom, fit, podsThatFit(pod, running)),
		fit:    fit,
		price:  pod.HourlyPrice(t),
		weight: int64(t.Weight),
	}, ""
}

// podsThatFit is how many pods fit in t's free CPU and memory, capped at
// MaxInt32 (unlimited when the pod requests nothing).
func podsThatFit(pod PodRequests, t BurstTarget) int64 {
	n := int64(math.MaxInt32)
	if pod.CPUMilli > 0 {
		n = min(n, max(t.FreeCPUMilli, 0)/pod.CPUMilli)
	}
	if pod.MemoryBytes > 0 {
		n = min(n, max(t.FreeMemoryBytes, 0)/pod.MemoryBytes)
	}
	return n
}

// sortForMode orders candidates by the mode's preference, Name last.
func sortForMode(cands []placeCandidate, targets []BurstTarget, mode PlacementMode) {
	byName := func(a, b placeCandidate) int { return cmp.Compare(targets[a.idx].Name, targets[b.idx].Name) }
	switch mode {
	case PlacementPriority:
		slices.SortFunc(cands, func(a, b placeCandidate) int {
			if c := cmp.Compare(targets[b.idx].Priority, targets[a.idx].Priority); c != 0 {
				return c
			}
			return byName(a, b)
		})
	case PlacementCheapest:
		slices.SortFunc(cands, func(a, b placeCandidate) int {
			if c := cmp.Compare(a.price, b.price); c != 0 {
				return c
			}
			if c := cmp.Compare(targets[b.idx].Priority, targets[a.idx].Priority); c != 0 {
				return c
			}
			return byName(a, b)
		})
	case PlacementCapacity:
		slices.SortFunc(cands, func(a, b placeCandidate) int {
			if c := cmp.Compare(b.fit, a.fit); c != 0 {
				return c
			}
			if c := cmp.Compare(max(targets[b.idx].FreeCPUMilli, 0), max(targets[a.idx].FreeCPUMilli, 0)); c != 0 {
				return c
			}
			if c := cmp.Compare(max(targets[b.idx].FreeMemoryBytes, 0), max(targets[a.idx].FreeMemoryBytes, 0)); c != 0 {
				return c
			}
			return byName(a, b)
		})
	}
}

// weightedCandidates drops zero-weight candidates (recording why) unless all
// have weight 0, in which case every candidate gets weight 1. The result is
// sorted by weight (largest first), then Name.
func weightedCandidates(cands []placeCandidate, targets []BurstTarget, out *Placement) []placeCandidate {
	var total int64
	for _, c := range cands {
		total += c.weight
	}
	if total == 0 {
		for i := range cands {
			cands[i].weight = 1
		}
	} else {
		kept := cands[:0]
		for _, c := range cands {
			if c.weight == 0 {
				out.Skipped = append(out.Skipped, PlacementSkip{Target: targets[c.idx].Name, Reason: SkipZeroWeight})
				continue
			}
			kept = append(kept, c)
		}
		cands = kept
		// Keep Skipped in input order.
		slices.SortStableFunc(out.Skipped, func(a, b PlacementSkip) int {
			return cmp.Compare(indexOfTarget(targets, a.Target), indexOfTarget(targets, b.Target))
		})
	}
	slices.SortFunc(cands, func(a, b placeCandidate) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(targets[a.idx].Name, targets[b.idx].Name)
	})
	return cands
}

func indexOfTarget(targets []BurstTarget, name string) int {
	for i, t := range targets {
		if t.Name == name {
			return i
		}
	}
	return len(targets)
}

// fillWeighted splits remaining over cands by weight with the largest
// remainder method, capping each at its room and re-splitting what the
// capped ones could not take among the others. It returns what is left.
// Each round either places everything or fills at least one candidate, so it
// runs at most len(cands) rounds.
func fillWeighted(cands []placeCandidate, remaining int64, targets []BurstTarget) int64 {
	share := make([]int64, len(cands))
	rem := make([]int64, len(cands))
	order := make([]int, 0, len(cands))
	for remaining > 0 {
		var w int64
		order = order[:0]
		for i, c := range cands {
			if c.room-c.given > 0 {
				w += c.weight
				order = append(order, i)
			}
		}
		if len(order) == 0 {
			break
		}
		var assigned int64
		for _, i := range order {
			share[i] = remaining * cands[i].weight / w
			rem[i] = remaining * cands[i].weight % w
			assigned += share[i]
		}
		// Seats left by the floors go to the largest remainders; ties to the
		// larger weight, then by Name.
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(rem[b], rem[a]); c != 0 {
				return c
			}
			if c := cmp.Compare(cands[b].weight, cands[a].weight); c != 0 {
				return c
			}
			return cmp.Compare(targets[cands[a].idx].Name, targets[cands[b].idx].Name)
		})
		for k := int64(0); k < remaining-assigned; k++ {
			share[order[k]]++
		}
		for _, i := range order {
			g := min(share[i], cands[i].room-cands[i].given)
			cands[i].given += g
			remaining -= g
		}
	}
	return remaining
}

func validatePlacement(deficit int32, pod PodRequests, targets []BurstTarget, mode PlacementMode) error {
	switch mode {
	case PlacementPriority, PlacementCheapest, PlacementWeighted, PlacementCapacity:
	default:
		return fmt.Errorf("%w: placement mode %q is unknown: use priority, cheapest, weighted or capacity", ErrInvalidInput, mode)
	}
	if deficit < 0 {
		return fmt.Errorf("%w: deficit is %d: pass the number of replicas that do not fit, 0 or more", ErrInvalidInput, deficit)
	}
	if err := validatePod(pod); err != nil {
		return err
	}
	return validateTargets(targets)
}

func validatePod(pod PodRequests) error {
	if pod.CPUMilli < 0 {
		return fmt.Errorf("%w: pod CPUMilli is %d: pass the CPU request in millicores, 0 or more", ErrInvalidInput, pod.CPUMilli)
	}
	if pod.MemoryBytes < 0 {
		return fmt.Errorf("%w: pod MemoryBytes is %d: pass the memory request in bytes, 0 or more", ErrInvalidInput, pod.MemoryBytes)
	}
	return nil
}

func validateTargets(targets []BurstTarget) error {
	for i, t := range targets {
		switch {
		case t.Name == "":
			return fmt.Errorf("%w: targets[%d].Name is empty: name the cluster", ErrInvalidInput, i)
		case t.Weight < 0:
			return fmt.Errorf("%w: target %q Weight is %d: use 0 or more", ErrInvalidInput, t.Name, t.Weight)
		case t.MaxReplicas < 0:
			return fmt.Errorf("%w: target %q MaxReplicas is %d: use 0 (no cap) or more", ErrInvalidInput, t.Name, t.MaxReplicas)
		case t.Current < 0:
			return fmt.Errorf("%w: target %q Current is %d: pass the replicas running there, 0 or more", ErrInvalidInput, t.Name, t.Current)
		case badPrice(t.PricePerVCPUHour):
			return fmt.Errorf("%w: target %q PricePerVCPUHour is %v: use a finite price, 0 or more", ErrInvalidInput, t.Name, t.PricePerVCPUHour)
		case badPrice(t.PricePerGiBHour):
			return fmt.Errorf("%w: target %q PricePerGiBHour is %v: use a finite price, 0 or more", ErrInvalidInput, t.Name, t.PricePerGiBHour)
		}
		for _, u := range targets[:i] {
			if u.Name == t.Name {
				return fmt.Errorf("%w: target %q is listed twice: list each cluster once", ErrInvalidInput, t.Name)
			}
		}
	}
	return nil
}

func badPrice(p float64) bool { return math.IsNaN(p) || math.IsInf(p, 0) || p < 0 }

// ScaleBackStep is a number of replicas to remove from one cluster.
type ScaleBackStep struct {
	Cluster  string
	Replicas int32
	// Primary marks the private (primary) cluster's step, always last.
	Primary bool
}

// ScaleBackPlan is the answer of [ScaleBack].
type ScaleBackPlan struct {
	// Reductions lists, in removal order, what to remove where (only
	// clusters with Replicas > 0).
	Reductions []ScaleBackStep
	// Blocked is the part of the excess held back because it sits on
	// unreachable clusters: it is not shifted to cheaper clusters or to the
	// primary, so an unreachable burst cluster never empties a reachable
	// one. Retry once the cluster answers again.
	Blocked int32
	// Remaining is the part of the excess larger than all replicas
	// (nothing left to remove).
	Remaining int32
	// Skipped lists unreachable burst clusters that hold replicas.
	Skipped []PlacementSkip
}

// Removed returns the total of the reductions.
func (p ScaleBackPlan) Removed() int32 {
	var n int32
	for _, r := range p.Reductions {
		n += r.Replicas
	}
	return n
}

// ScaleBack decides where to remove excess replicas: burst clusters first,
// the most expensive per pod-hour (for pod's requests) first, ties by Name;
// the primary cluster (named primary, running primaryCurrent replicas) last.
// No cluster goes below 0. Only Current, Reachable, Name and the prices of
// targets are read.
//
// Errors wrap [ErrInvalidInput] and name the offending field.
func ScaleBack(excess int32, pod PodRequests, primary string, primaryCurrent int32, targets []BurstTarget) (ScaleBackPlan, error) {
	switch {
	case excess < 0:
		return ScaleBackPlan{}, fmt.Errorf("%w: excess is %d: pass the number of replicas to remove, 0 or more", ErrInvalidInput, excess)
	case primary == "":
		return ScaleBackPlan{}, fmt.Errorf("%w: primary cluster name is empty: name the primary cluster", ErrInvalidInput)
	case primaryCurrent < 0:
		return ScaleBackPlan{}, fmt.Errorf("%w: primaryCurrent is %d: pass the primary's replicas, 0 or more", ErrInvalidInput, primaryCurrent)
	}
	if err := validatePod(pod); err != nil {
		return ScaleBackPlan{}, err
	}
	if err := validateTargets(targets); err != nil {
		return ScaleBackPlan{}, err
	}
	for _, t := range targets {
		if t.Name == primary {
			return ScaleBackPlan{}, fmt.Errorf("%w: target %q is also the primary: list only burst clusters in targets", ErrInvalidInput, t.Name)
		}
	}

	order := make([]int, 0, len(targets))
	for i := range targets {
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(pod.HourlyPrice(targets[b]), pod.HourlyPrice(targets[a])); c != 0 {
			return c
		}
		return cmp.Compare(targets[a].Name, targets[b].Name)
	})

	var plan ScaleBackPlan
	left := excess
	for _, i := range order {
		t := targets[i]
		if t.Current == 0 {
			continue
		}
		if !t.Reachable {
			plan.Skipped = append(plan.Skipped, PlacementSkip{Target: t.Name, Reason: SkipUnreachable})
			b := min(t.Current, left)
			plan.Blocked += b
			left -= b
			continue
		}
		if left == 0 {
			continue
		}
		r := min(t.Current, left)
		plan.Reductions = append(plan.Reductions, ScaleBackStep{Cluster: t.Name, Replicas: r})
		left -= r
	}
	if r := min(primaryCurrent, left); r > 0 {
		plan.Reductions = append(plan.Reductions, ScaleBackStep{Cluster: primary, Replicas: r, Primary: true})
		left -= r
	}
	plan.Remaining = left
	return plan, nil
}
