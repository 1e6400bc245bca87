package scaling

import (
	"fmt"
	"time"
)

// This file implements the min/max partition of the Federated Pod Autoscaler
// design, alternative 1 (kubernetes/community,
// contributors/design-proposals/multicluster/federated-hpa.md): the federation
// creates a local HorizontalPodAutoscaler in each member cluster and splits the
// federated minReplicas/maxReplicas between them, so scaling continues in each
// cluster when the federation control plane is down. It then moves maxReplicas
// from clusters that do not need or cannot use it to clusters whose HPA is
// saturated. As in the design ("first implemented only for MaxReplicas"),
// minReplicas is not moved by the rebalance.

// DefaultScaleForbiddenWindow is the federation HPA controller's window
// (scaleForbiddenWindow in kubernetes/federation): a cluster that scaled less
// than this long ago keeps its min/max.
const DefaultScaleForbiddenWindow = 5 * time.Minute

// FederatedShare is one member cluster's part of the federated min/max.
type FederatedShare struct {
	Cluster string
	// Min and Max are the local HPA's minReplicas and maxReplicas. A cluster
	// with Max == 0 gets no local HPA (see [FederatedShare.Placed]).
	Min, Max int32
}

// Placed reports whether the cluster gets a local HPA.
func (s FederatedShare) Placed() bool { return s.Max > 0 }

// Partition splits totalMin/totalMax over clusters, in the given order (sort
// the names first for name order):
//
//   - min: every placed cluster gets at least 1, so when totalMin is smaller
//     than the number of clusters only the first totalMin clusters are placed
//     (get 1 each) and the others get no HPA. Otherwise min is spread evenly,
//     the remainder going one by one to the first clusters.
//   - max: spread evenly over the placed clusters only, remainder to the
//     first ones.
//   - totalMin == 0 places the first min(totalMax, len(clusters)) clusters
//     with min 0 (local HPAs then need minReplicas 0, i.e. HPAScaleToZero).
//
// Since both spreads use the same order and totalMin <= totalMax, every
// cluster has Min <= Max; the sums are exactly totalMin and totalMax.
//
// Errors wrap [ErrInvalidInput] and name the offending field.
func Partition(totalMin, totalMax int32, clusters []string) ([]FederatedShare, error) {
	if err := validateTotals(totalMin, totalMax); err != nil {
		return nil, err
	}
	if len(clusters) == 0 {
		return nil, fmt.Errorf("%w: clusters is empty: list at least one member cluster", ErrInvalidInput)
	}
	for i, c := range clusters {
		if c == "" {
			return nil, fmt.Errorf("%w: clusters[%d] is empty: name every member cluster", ErrInvalidInput, i)
		}
		for _, d := range clusters[:i] {
			if d == c {
				return nil, fmt.Errorf("%w: cluster %q is listed twice: list each member once", ErrInvalidInput, c)
			}
		}
	}
	out := make([]FederatedShare, len(clusters))
	partitionInto(out, totalMin, totalMax, clusters)
	return out, nil
}

// partitionInto writes the partition of totalMin/totalMax over names into
// out (len(out) == len(names); inputs already validated).
func partitionInto(out []FederatedShare, totalMin, totalMax int32, names []string) {
	n := int32(len(names))
	placed := min(totalMin, n)
	if totalMin == 0 {
		placed = min(totalMax, n)
	}
	for i := range out {
		out[i] = FederatedShare{Cluster: names[i]}
	}
	for i := int32(0); i < placed; i++ {
		out[i].Min = totalMin / placed
		if i < totalMin%placed {
			out[i].Min++
		}
		out[i].Max = totalMax / placed
		if i < totalMax%placed {
			out[i].Max++
		}
	}
}

func validateTotals(totalMin, totalMax int32) error {
	switch {
	case totalMin < 0:
		return fmt.Errorf("%w: totalMin is %d: use 0 or more", ErrInvalidInput, totalMin)
	case totalMax < 1:
		return fmt.Errorf("%w: totalMax is %d: use 1 or more", ErrInvalidInput, totalMax)
	case totalMin > totalMax:
		return fmt.Errorf("%w: totalMin (%d) is greater than totalMax (%d): lower totalMin or raise totalMax", ErrInvalidInput, totalMin, totalMax)
	}
	return nil
}

// FederatedMember is one member cluster's local HPA as the federation sees
// it: its current partition and the status the local HPA reports.
type FederatedMember struct {
	Name string
	// Min and Max are the local HPA's current minReplicas/maxReplicas.
	Min, Max int32
	// Current and Desired are the local HPA's status.currentReplicas and
	// status.desiredReplicas.
	Current, Desired int32
	// Observed reports that the local HPA has a status to go by (it exists
	// and its controller has computed desired replicas at least once). An
	// unobserved member is never changed by a rebalance: a fresh HPA reports
	// desired 0 and would otherwise look like it needs nothing.
	Observed bool
	// LastScaleTime is the local HPA's status.lastScaleTime (zero if it never
	// scaled).
	LastScaleTime time.Time
}

// FederatedMove records max replicas moved from one cluster to another.
type FederatedMove struct {
	From, To string
	Replicas int32
}

// RebalanceOptions tunes [Rebalance].
type RebalanceOptions struct {
	// ScaleForbiddenWindow: a member whose LastScaleTime is less than this
	// long before now is neither a donor nor a receiver. 0 disables the
	// window; [DefaultScaleForbiddenWindow] is the federation's value.
	ScaleForbiddenWindow time.Duration
	// Step is the most max replicas a saturated member receives per call.
	// 0 means 1, the federation controller's pace (one per reconcile), so
	// the local HPAs and the window get to react between moves.
	Step int32
}

// RebalanceResult is the answer of [Rebalance].
type RebalanceResult struct {
	// Members is the new partition, in the input order, with only Min and
	// Max changed.
	Members []FederatedMember
	// Moves lists what moved (aggregated per donor/receiver pair), in the
	// order the moves were made.
	Moves []FederatedMove
	// Repartitioned reports that the members' min/max did not add up to
	// the totals (the spec changed) and a fresh [Partition] in member order
	// replaced them. The scale-forbidden window does not apply then: the
	// totals are the user's hard limits.
	Repartitioned bool
}

// Rebalance moves maxReplicas between member clusters as the design's
// dynamic rebalance describes:
//
//  1. A receiver is a member whose HPA is saturated: Current == Desired ==
//     Max (and Max > 0).
//  2. A donor is a member that does not need all of its max (Desired < Max)
//     or cannot use it (Current < Desired, e.g. pods pending for lack of
//     capacity). It can give Max - max(Min, min(Current, Desired), 1) at
//     most, so it keeps its local HPA.
//  3. No member's Max goes below its Min; sums of Min and Max stay equal to
//     totalMin and totalMax.
//  4. Members inside the scale-forbidden window, and unobserved members, are
//     not changed.
//
// Each receiver, in member order, takes up to opts.Step replicas one at a
// time, always from the donor with the most to give (ties to the earlier
// member). now is the decision time; Rebalance reads no clock.
//
// Errors wrap [ErrInvalidInput] and name the offending field.
func Rebalance(now time.Time, totalMin, totalMax int32, members []FederatedMember, opts RebalanceOptions) (RebalanceResult, error) {
	if err := validateTotals(totalMin, totalMax); err != nil {
		return RebalanceResult{}, err
	}
	if len(members) == 0 {
		return RebalanceResult{}, fmt.Errorf("%w: members is empty: list at least one member cluster", ErrInvalidInput)
	}
	if opts.ScaleForbiddenWindow < 0 {
		return RebalanceResult{}, fmt.Errorf("%w: ScaleForbiddenWindow is %v: use 0 or more", ErrInvalidInput, opts.ScaleForbiddenWindow)
	}
	if opts.Step < 0 {
		return RebalanceResult{}, fmt.Errorf("%w: Step is %d: use 0 (one per call) or more", ErrInvalidInput, opts.Step)
	}
	var sumMin, sumMax int64
	for i, m := range members {
		switch {
		case m.Name == "":
			return RebalanceResult{}, fmt.Errorf("%w: members[%d].Name is empty: name every member cluster", ErrInvalidInput, i)
		case m.Min < 0 || m.Max < 0 || m.Current < 0 || m.Desired < 0:
			return RebalanceResult{}, fmt.Errorf("%w: member %q has a negative Min, Max, Current or Desired (%d, %d, %d, %d): pass the local HPA's values",
				ErrInvalidInput, m.Name, m.Min, m.Max, m.Current, m.Desired)
		}
		for _, o := range members[:i] {
			if o.Name == m.Name {
				return RebalanceResult{}, fmt.Errorf("%w: member %q is listed twice: list each member once", ErrInvalidInput, m.Name)
			}
		}
		sumMin += int64(m.Min)
		sumMax += int64(m.Max)
	}

	res := RebalanceResult{Members: make([]FederatedMember, len(members))}
	copy(res.Members, members)

	consistent := sumMin == int64(totalMin) && sumMax == int64(totalMax)
	for _, m := range members {
		if m.Min > m.Max || (m.Max > 0 && m.Min == 0 && totalMin > 0) {
			consistent = false
		}
	}
	if !consistent {
		names := make([]string, len(members))
		for i, m := range members {
			names[i] = m.Name
		}
		shares := make([]FederatedShare, len(members))
		partitionInto(shares, totalMin, totalMax, names)
		for i, s := range shares {
			res.Members[i].Min, res.Members[i].Max = s.Min, s.Max
		}
		res.Repartitioned = true
		return res, nil
	}

	step := opts.Step
	if step == 0 {
		step = 1
	}
	movable := func(m FederatedMember) bool {
		if !m.Observed || m.Max == 0 {
			return false
		}
		return m.LastScaleTime.IsZero() || opts.ScaleForbiddenWindow == 0 || now.Sub(m.LastScaleTime) >= opts.ScaleForbiddenWindow
	}
	spare := make([]int32, len(members))
	var receivers []int
	for i, m := range members {
		if !movable(m) {
			continue
		}
		if m.Current == m.Desired && m.Desired == m.Max {
			receivers = append(receivers, i)
			continue
		}
		if m.Desired < m.Max || m.Current < m.Desired {
			// Keep at least 1 so a placed member stays placed.
			spare[i] = max(0, m.Max-max(m.Min, min(m.Current, m.Desired), 1))
		}
	}
	if len(receivers) == 0 {
		return res, nil
	}
	for s := int32(0); s < step; s++ {
		movedThisRound := false
		for _, r := range receivers {
			d := -1
			for i, sp := range spare {
				if sp > 0 && (d < 0 || sp > spare[d]) {
					d = i
				}
			}
			if d < 0 {
				break
			}
			spare[d]--
			res.Members[d].Max--
			res.Members[r].Max++
			res.Moves = addMove(res.Moves, members[d].Name, members[r].Name)
			movedThisRound = true
		}
		if !movedThisRound {
			break
		}
	}
	return res, nil
}

func addMove(moves []FederatedMove, from, to string) []FederatedMove {
	for i := range moves {
		if moves[i].From == from && moves[i].To == to {
			moves[i].Replicas++
			return moves
		}
	}
	return append(moves, FederatedMove{From: from, To: to, Replicas: 1})
}
