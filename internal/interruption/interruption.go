package interruption

import (
	"errors"
	"fmt"
)

// DeletionCostAnnotation is the annotation the ReplicaSet controller reads to
// choose which pods go first on a scale-down (lower cost first, among pods
// equally ready; Kubernetes "Pod deletion cost").
const DeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// LeavingCost is the deletion cost given to replicas on a node under notice,
// so that the scale-down after the surge removes exactly those.
const LeavingCost = "-1000"

// ErrInvalid is wrapped by every input error.
var ErrInvalid = errors.New("invalid interruption input")

// Pod is one active (not terminating) replica of a workload in one cluster.
type Pod struct {
	Name string
	// Noticed: the pod's node is under an interruption notice (it is leaving).
	Noticed bool
	// Ready: the pod's Ready condition is True.
	Ready bool
	// Unschedulable: the scheduler found no node for it.
	Unschedulable bool
	// Marked: the pod already carries DeletionCostAnnotation = LeavingCost.
	Marked bool
}

// Input is what Decide needs of one workload in one cluster.
type Input struct {
	// Need is the replica count the cluster must keep Ready (the burst
	// placement's decision for it).
	Need int32
	// Surge is the extra replica count an earlier round set for leaving
	// replicas (recorded on the workload, 0 when none).
	Surge int32
	// Pods are the workload's active pods there.
	Pods []Pod
	// NodesComing: nodes for the cluster are booting or can still be
	// ordered, so Unschedulable replacements are waiting for a node, not
	// stuck.
	NodesComing bool
}

// Decision is what to write.
type Decision struct {
	// Replicas is the workload's replica count to set there: Need + Surge.
	Replicas int32
	// Surge is the extra replica count to record (0 clears it).
	Surge int32
	// Leaving counts the replicas on noticed nodes.
	Leaving int32
	// ReadyElsewhere counts the Ready replicas on nodes without a notice.
	ReadyElsewhere int32
	// Mark lists the leaving pods to give DeletionCostAnnotation = LeavingCost
	// before any scale-down, so that the ReplicaSet deletes those.
	Mark []string
	// Started: a surge begins or grows this round (Event SpotInterruption).
	Started bool
	// Replaced: a surge ends because the replacements are Ready; the
	// scale-down to Need removes the leaving replicas (Event
	// ReplacementsReady).
	Replaced bool
	// Lost: a surge ends because the leaving replicas are gone (their node was
	// reclaimed) before the replacements were Ready.
	Lost bool
	// Stuck counts replacements the scheduler cannot place while no node is
	// coming (no room anywhere): the leaving replicas are kept as long as
	// their node lives.
	Stuck int32
}

// Active reports whether leaving replicas are being replaced (the controller
// looks again soon).
func (d Decision) Active() bool { return d.Leaving > 0 || d.Surge > 0 }

// Decide applies the rules, in order:
//
//  1. Replicas on noticed nodes are leaving (L); the Ready replicas on other
//     nodes are ReadyElsewhere (R).
//  2. Need 0: nothing to keep, Replicas 0, no surge.
//  3. No leaving replica: Replicas = Need, no surge (a surge left from an
//     earlier round ends: Replaced if R >= Need, else Lost).
//  4. R >= Need and every leaving pod is marked: the replacements are Ready;
//     Replicas = Need, and the ReplicaSet removes the marked (leaving) pods
//     first. Replaced when a surge ends.
//  5. Otherwise Surge = L and Replicas = Need + L: the ReplicaSet creates L
//     replacements at once, which the scheduler places on nodes without the
//     notice (its NoSchedule taint keeps them off), or the capacity
//     controller orders nodes for them. Started when the surge grows.
//
// Leaving pods not yet marked are always in Mark, so a scale-down in a later
// round, for any reason, removes them first.
func Decide(in Input) (Decision, error) {
	if in.Need < 0 || in.Surge < 0 {
		return Decision{}, fmt.Errorf("%w: need %d and surge %d must be >= 0", ErrInvalid, in.Need, in.Surge)
	}
	var d Decision
	allMarked := true
	for _, p := range in.Pods {
		switch {
		case p.Noticed:
			d.Leaving++
			if !p.Marked {
				d.Mark = append(d.Mark, p.Name)
				allMarked = false
			}
		case p.Ready:
			d.ReadyElsewhere++
		case p.Unschedulable:
			d.Stuck++
		}
	}
	ended := func() {
		if in.Surge > 0 {
			d.Replaced = d.ReadyElsewhere >= in.Need
			d.Lost = !d.Replaced
		}
	}
	switch {
	case in.Need == 0:
		d.Replicas, d.Stuck = 0, 0
	case d.Leaving == 0:
		d.Replicas = in.Need
		ended()
	case d.ReadyElsewhere >= in.Need && allMarked:
		d.Replicas = in.Need
		if in.Surge > 0 {
			d.Replaced = true
		}
	default:
		d.Surge = d.Leaving
		d.Replicas = in.Need + d.Surge
		d.Started = d.Surge > in.Surge
	}
	if d.Leaving == 0 || in.NodesComing {
		// Pending replicas without a notice are the placement's business;
		// with nodes coming, they wait for them.
		d.Stuck = 0
	}
	return d, nil
}
