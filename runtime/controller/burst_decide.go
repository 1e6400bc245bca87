package controller

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// This file is the burst controller's decision: pure functions of what the
// reconciler observed (no client, no clock of their own). The replica maths
// itself is internal/scaling's (Place, ScaleBack and the algorithms); here it is
// combined into one plan per target Deployment.

const (
	// burstMoveBackWait bounds how long burst replicas moving back wait for
	// the primary's pods to be Ready before they go anyway.
	burstMoveBackWait = 5 * time.Minute
	// burstMoveBackRecheck is how often a round runs while replicas move
	// back (pod watches wake it sooner).
	burstMoveBackRecheck = 5 * time.Second
)

// burstTotalSource says where the total replica count (all clusters) of a target
// comes from.
type burstTotalSource int

const (
	// burstTotalFromDeployment: whoever scales the primary Deployment (a user, an
	// HPA) sets the total; the controller only redistributes it.
	burstTotalFromDeployment burstTotalSource = iota
	// burstTotalFromAlgorithm: the policy's algorithm decided the total from
	// metrics (burstInput.AlgorithmTotal).
	burstTotalFromAlgorithm
	// burstTotalKeep: metrics drive the total but no evaluation is due; keep
	// the stored total.
	burstTotalKeep
)

// burstInput is everything one decision for one target Deployment needs.
type burstInput struct {
	Now time.Time
	// Threshold is how long a pod must be Unschedulable before it bursts.
	Threshold time.Duration
	Min, Max  int32
	Mode      scaling.PlacementMode
	Pod       scaling.PodRequests
	// Primary is the primary cluster's name.
	Primary string

	// PrimarySpec is the primary Deployment's spec.replicas.
	PrimarySpec int32
	// PrimaryWritten is the replica count the controller last wrote to the
	// primary (BurstPrimaryAnnotation), nil if it never did.
	PrimaryWritten *int32
	// StoredTotal is the total last decided (BurstTotalAnnotation), nil if none.
	StoredTotal *int32
	// RequestedTotal is a total asked for on the Deployment
	// (BurstRequestedTotalAnnotation, written by a MultiObjective strategy
	// instead of spec.replicas, which is the primary's share), nil if none. It
	// is the total when the Deployment is the source, before a change of
	// spec.replicas.
	RequestedTotal *int32

	TotalSource     burstTotalSource
	AlgorithmTotal  int32
	AlgorithmReason string
	// NoScaleDown: a metric is missing, so the total may rise but never fall.
	NoScaleDown bool
	// Headroom is how many replicas of the algorithm's total are spare
	// (scaling.Decision.Headroom): the last of the count, placed where they
	// are cheapest (scaling.PlaceWithHeadroom).
	Headroom int32

	// Scheduled counts the primary pods bound to a node, Unassigned those not
	// (yet) bound (both without terminating pods).
	Scheduled, Unassigned int32
	// Unschedulable holds, for each primary pod whose PodScheduled condition is
	// False with reason Unschedulable, since when.
	Unschedulable []time.Time
	// PrimaryFit is how many more pods would fit in the primary's free capacity.
	PrimaryFit int32
	// RollingUpdate: the primary's active pods come from more than one pod
	// template (a rollout is under way), so pods beyond spec.replicas are
	// its surge pods; otherwise they are pods the ReplicaSet has yet to
	// remove after a lower spec.replicas (the controller's own last write).
	RollingUpdate bool

	// Targets are the policy's burst targets, Current being the replicas of the
	// target's copy there.
	Targets []scaling.BurstTarget
	// Drain are clusters that still hold copies but are no longer burst
	// targets: their replicas go back to the primary.
	Drain []scaling.BurstTarget

	// MovingBack is how many replicas of the primary's spec.replicas are
	// moving back from burst clusters (BurstMovingBackAnnotation), since
	// MovingBackSince: their burst replicas still run until the primary's
	// pods are Ready. Ready counts the primary's Ready pods.
	MovingBack      int32
	MovingBackSince time.Time
	Ready           int32

	// Stuck is, per burst cluster, how many of the copy's pods there have
	// been Unschedulable for Threshold although the cluster cannot make room
	// for them (no node group that can still grow or whose nodes are
	// booting): placement counted on room that was not there (a free
	// capacity probed before other pods took it, nodes lost). They are
	// placed again on the other targets (burstReplaceStuck).
	Stuck map[string]int32

	// Failover is, per burst cluster, how its replicas count
	// (scaling.Failover; absent: healthy). A written-off cluster's Current
	// (the replicas last known there) and a stale cluster's Current (the
	// copy found there) count as 0: the first are placed again like any
	// deficit; of the second, as many are kept as primary replicas have no
	// node (those go from the primary), the rest are scaled away. Placement
	// adds to neither.
	Failover map[string]scaling.FailoverMode
}

// burstPlan is the decision for one target Deployment.
type burstPlan struct {
	// Total is the replica count over all clusters after the plan.
	Total int32
	// Primary is the primary Deployment's replica count after the plan.
	Primary int32
	// Burst is the replica count per burst (and drain) cluster after the plan.
	Burst map[string]int32
	// Actions name what changed, in order: "scale-up", "scale-down", "burst",
	// "move-back", "drain", "replace-pending", ... Empty: nothing to do.
	Actions []string
	// Reason explains the decision for status and events.
	Reason string
	// Headroom is how many of Total are the algorithm's spare replicas
	// (burstInput.Headroom, at most Total).
	Headroom int32
	// TotalCause is what set the total when it changed (one of the
	// burstCause values, "" when the total did not change): the reason of a
	// scale-up or scale-down in hca_decisions_total.
	TotalCause string
	// RequeueAfter is when the next Unschedulable pod reaches the threshold
	// (0: none waiting).
	RequeueAfter time.Duration
	// Skipped are the targets placement skipped, with why.
	Skipped []scaling.PlacementSkip
	// Unplaced is the part of a deficit no target could take (those pods stay
	// Pending in the primary).
	Unplaced int32
	// MovingBack is how many of Primary are moving back from burst clusters
	// whose replicas stay until the primary's pods are Ready, since
	// MovingBackSince (0: none).
	MovingBack      int32
	MovingBackSince time.Time
	// Blocked is the part of a reduction held back because it sits on an
	// unreachable cluster.
	Blocked int32
}

// BurstTotal is the sum of the burst replicas.
func (p burstPlan) BurstTotal() int32 {
	var n int32
	for _, v := range p.Burst {
		n += v
	}
	return n
}

func burstClamp(v, lo, hi int32) int32 { return max(lo, min(v, hi)) }

// burstWithCurrent returns targets with Current taken from cur.
func burstWithCurrent(targets []scaling.BurstTarget, cur map[string]int32) []scaling.BurstTarget {
	out := make([]scaling.BurstTarget, len(targets))
	for i, t := range targets {
		t.Current = cur[t.Name]
		out[i] = t
	}
	return out
}

// burstDecide plans one target Deployment: the total (from the Deployment, the
// algorithm or the stored value, within [Min, Max]; never lower while metrics
// are missing), then
//
//   - a higher total is added to the primary (pods that do not fit there will
//     burst once they have been Unschedulable for Threshold);
//   - a lower total first removes Unschedulable primary pods (they serve
//     nothing), then scaling.ScaleBack's order: burst clusters, most expensive
//     first, the primary last;
//   - pods Unschedulable for Threshold, up to the primary's unscheduled
//     replicas, are placed over the targets with scaling.Place and removed
//     from the primary (the total is unchanged);
//   - with nothing pending or in flight in the primary and room there
//     (PrimaryFit), burst replicas move back, most expensive first, make
//     before break: the primary grows first (MovingBack), and the burst
//     replicas go once the primary's pods are all Ready (or after
//     burstMoveBackWait); Unschedulable primary pods cancel the move, and a
//     scale-up takes the moving replicas as its own;
//   - copies in clusters that are no longer targets move back to the primary.
//
// Writes are ordered by the reconciler so that a crash between two of them
// leaves clusters this function repairs: see BurstReconciler.apply.
func burstDecide(in burstInput) (burstPlan, error) {
	cur := map[string]int32{}
	var burstNow int32
	var failoverNotes, failoverActions []string
	var stale []scaling.PlacementAssignment // replicas per stale cluster
	writeOff := func(ts []scaling.BurstTarget) []scaling.BurstTarget {
		out := make([]scaling.BurstTarget, len(ts))
		for i, t := range ts {
			switch in.Failover[t.Name] {
			case scaling.FailoverWrittenOff:
				if t.Current > 0 {
					failoverActions = append(failoverActions, "failover")
					failoverNotes = append(failoverNotes, fmt.Sprintf("failover: %d replicas on %s written off (unreachable past failoverAfter), placed again", t.Current, t.Name))
				}
				t.Current, t.Reachable = 0, false
			case scaling.FailoverStale:
				if t.Current > 0 {
					stale = append(stale, scaling.PlacementAssignment{Target: t.Name, Replicas: t.Current})
				}
				t.Current, t.Reachable = 0, false
			}
			out[i] = t
		}
		return out
	}
	in.Targets, in.Drain = writeOff(in.Targets), writeOff(in.Drain)
	for _, t := range append(append([]scaling.BurstTarget{}, in.Targets...), in.Drain...) {
		if _, dup := cur[t.Name]; dup {
			return burstPlan{}, fmt.Errorf("cluster %s is listed twice: list each burst target once", t.Name)
		}
		if t.Name == in.Primary {
			return burstPlan{}, fmt.Errorf("cluster %s is both the primary and a burst target: remove it from burstTargets", t.Name)
		}
		cur[t.Name] = t.Current
		burstNow += t.Current
	}
	userChanged := in.PrimaryWritten != nil && in.PrimarySpec != *in.PrimaryWritten
	base := in.PrimarySpec
	if userChanged && in.TotalSource == burstTotalFromDeployment {
		// The new spec.replicas is the total the user wants; the distribution
		// it changes is the one the controller wrote.
		base = *in.PrimaryWritten
	}
	// Replicas moving back are in the primary's spec.replicas and still in
	// the burst clusters: counted once.
	surge := min(max(in.MovingBack, 0), base, burstNow)
	current := base + burstNow - surge
	notes := failoverNotes
	var total int32
	cause := burstCauseStored
	switch in.TotalSource {
	case burstTotalFromAlgorithm:
		total, cause = in.AlgorithmTotal, burstCauseMetrics
		if total != current && in.AlgorithmReason != "" {
			notes = append(notes, in.AlgorithmReason)
		}
	case burstTotalKeep:
		total = current
		if in.StoredTotal != nil {
			total = *in.StoredTotal
		}
	default:
		switch {
		case in.RequestedTotal != nil:
			total, cause = *in.RequestedTotal, burstCauseRequested
			if total != current {
				notes = append(notes, fmt.Sprintf("total of %d replicas requested on the Deployment (%s)", total, BurstRequestedTotalAnnotation))
			}
		case userChanged:
			total, cause = in.PrimarySpec, burstCauseDeployment
			notes = append(notes, fmt.Sprintf("Deployment scaled to %d replicas", in.PrimarySpec))
		case in.StoredTotal != nil:
			total = *in.StoredTotal
		default:
			total = current
		}
	}
	if in.NoScaleDown && total < current {
		notes = append(notes, fmt.Sprintf("holding %d replicas: metrics are missing, never scale down on missing data", current))
		total = current
	}
	if c := burstClamp(total, in.Min, in.Max); c != total {
		notes = append(notes, fmt.Sprintf("total %d clamped to [%d, %d]", total, in.Min, in.Max))
		total, cause = c, burstCauseBounds
	}

	plan := burstPlan{Total: total, Burst: maps.Clone(cur), Actions: failoverActions, Headroom: min(max(in.Headroom, 0), total)}
	if total != current {
		plan.TotalCause = cause
	}
	primary := base
	all := append(append([]scaling.BurstTarget{}, in.Targets...), in.Drain...)

	// A move back in flight (make before break, as a rolling update's surge):
	// the burst replicas go once the primary's pods are Ready.
	if surge > 0 {
		switch {
		case len(in.Unschedulable) > 0:
			// No room after all: the extra primary replicas go (a ReplicaSet
			// removes its unscheduled pods first, so as many of them are no
			// longer counted), the burst replicas stay.
			primary -= surge
			plan.Actions = append(plan.Actions, "move-back-cancelled")
			notes = append(notes, fmt.Sprintf("move back of %d cancelled: %d pods Unschedulable in %s", surge, len(in.Unschedulable), in.Primary))
			in.Unschedulable = in.Unschedulable[min(int(surge), len(in.Unschedulable)):]
		case total < current:
			// A scale-down first cancels the move (its primary pods are the
			// newest), then goes its usual way.
			primary -= surge
			plan.Actions = append(plan.Actions, "move-back-cancelled")
			notes = append(notes, fmt.Sprintf("move back of %d cancelled by the scale-down", surge))
		case total > current:
			// A scale-up takes the replicas moving back as its own.
			current += surge
			notes = append(notes, fmt.Sprintf("the %d replicas moving back to %s count towards the scale-up", surge, in.Primary))
		case in.Ready >= in.PrimarySpec || in.Now.Sub(in.MovingBackSince) >= burstMoveBackWait:
			sb, err := scaling.ScaleBack(surge, in.Pod, in.Primary, 0, burstWithCurrent(all, plan.Burst))
			if err != nil {
				return burstPlan{}, fmt.Errorf("move back: %w", err)
			}
			var parts []string
			for _, r := range sb.Reductions {
				plan.Burst[r.Cluster] -= r.Replicas
				parts = append(parts, fmt.Sprintf("%d from %s", r.Replicas, r.Cluster))
			}
			primary -= sb.Blocked // those stay where they are
			why := fmt.Sprintf("its %d pods are Ready", in.Ready)
			if in.Ready < in.PrimarySpec {
				why = fmt.Sprintf("%d of its %d pods Ready after %v", in.Ready, in.PrimarySpec, burstMoveBackWait)
			}
			if len(parts) > 0 {
				plan.Actions = append(plan.Actions, "move-back")
				notes = append(notes, fmt.Sprintf("moved back %s to %s (%s)", strings.Join(parts, ", "), in.Primary, why))
			}
		default:
			plan.Primary, plan.MovingBack, plan.MovingBackSince = primary, surge, in.MovingBackSince
			plan.RequeueAfter = burstMoveBackRecheck
			plan.Reason = strings.Join(append(notes, fmt.Sprintf("moving %d replicas back to %s: the burst replicas stay until its pods are Ready (%d of %d)", surge, in.Primary, in.Ready, in.PrimarySpec)), "; ")
			return plan, nil
		}
	}

	for _, d := range in.Drain {
		if d.Current == 0 {
			continue
		}
		if !d.Reachable {
			plan.Blocked += d.Current
			notes = append(notes, fmt.Sprintf("cannot drain %s (no longer a burst target): unreachable", d.Name))
			continue
		}
		primary += d.Current
		plan.Burst[d.Name] = 0
		plan.Actions = append(plan.Actions, "drain")
		notes = append(notes, fmt.Sprintf("%d replicas back from %s (no longer a burst target)", d.Current, d.Name))
	}

	var removedPending int32
	switch {
	case total > current:
		primary += total - current
		plan.Actions = append(plan.Actions, "scale-up")
		notes = append(notes, fmt.Sprintf("scale up from %d to %d replicas in %s", current, total, in.Primary))
	case total < current:
		excess := current - total
		removedPending = min(excess, int32(len(in.Unschedulable)), primary)
		primary -= removedPending
		excess -= removedPending
		var parts []string
		if removedPending > 0 {
			parts = append(parts, fmt.Sprintf("%d Unschedulable from %s", removedPending, in.Primary))
		}
		if excess > 0 {
			sb, err := scaling.ScaleBack(excess, in.Pod, in.Primary, primary, burstWithCurrent(all, plan.Burst))
			if err != nil {
				return burstPlan{}, fmt.Errorf("scale back: %w", err)
			}
			for _, r := range sb.Reductions {
				if r.Primary {
					primary -= r.Replicas
				} else {
					plan.Burst[r.Cluster] -= r.Replicas
				}
				parts = append(parts, fmt.Sprintf("%d from %s", r.Replicas, r.Cluster))
			}
			plan.Blocked += sb.Blocked
			if sb.Blocked > 0 {
				parts = append(parts, fmt.Sprintf("%d held on unreachable clusters", sb.Blocked))
			}
		}
		plan.Actions = append(plan.Actions, "scale-down")
		notes = append(notes, fmt.Sprintf("scale down from %d to %d replicas: %s", current, total, strings.Join(parts, ", ")))
	}

	// A stale cluster's replicas run already: those that stand in for
	// primary replicas still without a node are kept (as many primary
	// replicas go: a ReplicaSet removes its unscheduled pods first), the
	// others are removed.
	for _, st := range stale {
		keep := min(st.Replicas, max(0, primary-in.Scheduled))
		if keep > 0 {
			plan.Burst[st.Target] = keep
			primary -= keep
			plan.Actions = append(plan.Actions, "adopt-stale")
			notes = append(notes, fmt.Sprintf("%s seen again after failover: kept %d of its stale replicas for %d replicas without a node in %s", st.Target, keep, keep, in.Primary))
		}
		if gone := st.Replicas - keep; gone > 0 {
			plan.Actions = append(plan.Actions, "remove-stale")
			notes = append(notes, fmt.Sprintf("%d stale replicas removed from %s (written off at failover, seen again)", gone, st.Target))
		}
	}

	var ripe int32
	for _, since := range in.Unschedulable {
		wait := since.Add(in.Threshold).Sub(in.Now)
		if wait <= 0 {
			ripe++
		} else if plan.RequeueAfter == 0 || wait < plan.RequeueAfter {
			plan.RequeueAfter = wait
		}
	}
	// The replicas the primary cannot run: those beyond its bound pods, or,
	// when every replica is bound, the surge pods of a rolling update that
	// cannot start while the old pods hold the capacity (with few replicas
	// maxUnavailable rounds down to 0: the rollout would wait forever; with
	// one replica fewer in the primary it proceeds, and the copy runs the new
	// template). Without a rollout, pods beyond spec.replicas are the ones
	// the ReplicaSet has not removed yet after the last lower spec.replicas:
	// bursting them again would place the same replicas twice.
	need := primary - in.Scheduled
	if need <= 0 && in.RollingUpdate {
		need = in.Scheduled + in.Unassigned - in.PrimarySpec
	}
	deficit := max(0, min(ripe-removedPending, need))
	if deficit > 0 {
		// The headroom's spare replicas are the last of the count: those
		// in the deficit go where they are cheapest.
		pl, err := scaling.PlaceWithHeadroom(deficit, plan.Headroom, in.Pod, burstWithCurrent(in.Targets, plan.Burst), in.Mode)
		if err != nil {
			return burstPlan{}, fmt.Errorf("place deficit: %w", err)
		}
		plan.Skipped, plan.Unplaced = pl.Skipped, pl.Unplaced
		var parts []string
		for _, a := range pl.Assignments {
			plan.Burst[a.Target] += a.Replicas
			parts = append(parts, fmt.Sprintf("%d to %s", a.Replicas, a.Target))
		}
		primary -= pl.Placed()
		note := fmt.Sprintf("%d replicas Unschedulable in %s for %v", deficit, in.Primary, in.Threshold)
		if len(parts) > 0 {
			plan.Actions = append(plan.Actions, "burst")
			note += ": burst " + strings.Join(parts, ", ") + " (placement " + string(in.Mode)
			if pl.Spare > 0 {
				note += fmt.Sprintf("; %d spare replicas of the headroom where cheapest", pl.Spare)
			}
			note += ")"
		}
		if pl.Unplaced > 0 {
			note += fmt.Sprintf("; %d could not be placed", pl.Unplaced)
		}
		for _, s := range pl.Skipped {
			note += fmt.Sprintf("; skipped %s: %s", s.Target, s.Reason)
		}
		notes = append(notes, note)
	}

	burstReplaceStuck(&in, &plan, &notes)

	burstAfter := plan.BurstTotal()
	if deficit == 0 && total == current && !userChanged && len(in.Unschedulable) == 0 &&
		in.Unassigned == 0 && in.Scheduled >= in.PrimarySpec && in.PrimaryFit > 0 && burstAfter > 0 {
		// Make before break: the primary grows now; the burst replicas go
		// once its new pods are Ready (the block above, next rounds).
		k := min(in.PrimaryFit, burstAfter)
		sb, err := scaling.ScaleBack(k, in.Pod, in.Primary, 0, burstWithCurrent(all, plan.Burst))
		if err != nil {
			return burstPlan{}, fmt.Errorf("move back: %w", err)
		}
		var parts []string
		var moving int32
		for _, r := range sb.Reductions {
			moving += r.Replicas
			parts = append(parts, fmt.Sprintf("%d from %s", r.Replicas, r.Cluster))
		}
		if moving > 0 {
			primary += moving
			plan.MovingBack, plan.MovingBackSince = moving, in.Now
			plan.RequeueAfter = burstMoveBackRecheck
			plan.Actions = append(plan.Actions, "move-back-start")
			notes = append(notes, fmt.Sprintf("%s has room for %d more: moving back %s, which stay until the new pods are Ready", in.Primary, in.PrimaryFit, strings.Join(parts, ", ")))
		}
	}
	plan.Primary = primary
	plan.Reason = strings.Join(notes, "; ")
	return plan, nil
}

// What set a changed total (burstPlan.TotalCause): the policy's metrics
// through its algorithm or an SLO, a total requested on the Deployment (a
// MultiObjective strategy), the Deployment scaled by someone else, the
// policy's min/max bounds (a schedule window raising the minimum among
// them), or the total the controller stored.
const (
	burstCauseMetrics    = "metrics"
	burstCauseRequested  = "requested-total"
	burstCauseDeployment = "deployment-scaled"
	burstCauseBounds     = "min-max"
	burstCauseStored     = "stored"
)

// burstActionReason is the reason label of hca_decisions_total for one
// action of a plan: a bounded set of values (never the free-text Reason), so
// that an operator can count decisions by what caused them.
func burstActionReason(action string, plan burstPlan) string {
	switch action {
	case "scale-up", "scale-down":
		if plan.TotalCause != "" {
			return plan.TotalCause
		}
		return burstCauseStored
	case "burst":
		return "unschedulable"
	case "failover":
		return "unreachable"
	case "drain":
		return "not-a-target"
	case "move-back-start", "move-back":
		return "primary-has-room"
	case "move-back-cancelled":
		return "primary-full"
	case "adopt-stale", "remove-stale":
		return "cluster-back"
	case "replace-pending":
		return "unschedulable-there"
	default:
		return "other"
	}
}

// burstReplaceStuck places the replicas stuck Unschedulable in a burst
// cluster (in.Stuck) on the other targets, as many as they take: the stuck
// cluster's copy shrinks by as many (a ReplicaSet removes its unscheduled
// pods first) and the others grow. Replicas no other target takes stay where
// they are, Pending, until room appears there or elsewhere.
func burstReplaceStuck(in *burstInput, plan *burstPlan, notes *[]string) {
	for _, name := range slices.Sorted(maps.Keys(in.Stuck)) {
		n := min(in.Stuck[name], plan.Burst[name])
		if n <= 0 || !slices.ContainsFunc(in.Targets, func(t scaling.BurstTarget) bool { return t.Name == name }) {
			continue
		}
		others := slices.DeleteFunc(slices.Clone(in.Targets), func(t scaling.BurstTarget) bool { return t.Name == name })
		pl, err := scaling.Place(n, in.Pod, burstWithCurrent(others, plan.Burst), in.Mode)
		if err != nil || pl.Placed() == 0 {
			*notes = append(*notes, fmt.Sprintf("%d replicas Unschedulable in %s for %v, which cannot make room: no other target takes them", n, name, in.Threshold))
			continue
		}
		var parts []string
		for _, a := range pl.Assignments {
			plan.Burst[a.Target] += a.Replicas
			parts = append(parts, fmt.Sprintf("%d to %s", a.Replicas, a.Target))
		}
		plan.Burst[name] -= pl.Placed()
		plan.Actions = append(plan.Actions, "replace-pending")
		*notes = append(*notes, fmt.Sprintf("%d replicas Unschedulable in %s for %v, which cannot make room: placed again, %s", pl.Placed(), name, in.Threshold, strings.Join(parts, ", ")))
	}
}
