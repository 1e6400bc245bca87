package scaling

import "time"

// DefaultFailoverAfter is how long a burst cluster may stay unreachable
// before its replicas are written off and placed elsewhere, when a policy
// does not say. Karmada's cluster failover waits 5m
// (--failover-eviction-timeout) and the node lifecycle controller evicts
// pods from an unreachable node after 5m (its default toleration): both move
// long-lived workloads and pay for a false alarm with a full reschedule. A
// burst exists because load outran the primary; 5 minutes without that
// capacity is 5 minutes of missed SLO, while a false alarm here only costs a
// few replicas run twice for a while (the stale ones are removed when the
// cluster answers). 90 s is three failed probes at the runtime's default
// --cluster-probe-interval of 30 s, and longer than an apiserver restart.
const DefaultFailoverAfter = 90 * time.Second

// FailoverMode says how a burst cluster's replicas count in a decision.
type FailoverMode int

const (
	// FailoverHealthy: the cluster answers; its replicas count as they are.
	FailoverHealthy FailoverMode = iota
	// FailoverHolding: the cluster does not answer, for less than the grace
	// period (or failover is off); its replicas count as last known and
	// stay where they are.
	FailoverHolding
	// FailoverWrittenOff: the cluster has not answered for the grace period;
	// its replicas count as 0, so the decision places them again elsewhere,
	// and placement adds nothing there.
	FailoverWrittenOff
	// FailoverStale: the first round the cluster answers again after its
	// replicas were written off; the copies there are stale: they count as
	// 0 and are removed (or kept in place of replicas still waiting for a
	// node elsewhere), and placement adds nothing there in that round.
	FailoverStale
)

func (m FailoverMode) String() string {
	switch m {
	case FailoverHolding:
		return "holding"
	case FailoverWrittenOff:
		return "written-off"
	case FailoverStale:
		return "stale"
	default:
		return "healthy"
	}
}

// FailoverState is what a controller records of one burst cluster between
// rounds (in the policy's status, never only in memory).
type FailoverState struct {
	// UnreachableSince is when the cluster was first found unreachable
	// (zero: it answered at the last round).
	UnreachableSince time.Time
	// FailedOverAt is when its replicas were written off (zero: they were
	// not, or the stale copies have been removed since).
	FailedOverAt time.Time
}

// FailoverInput is one burst cluster at one round.
type FailoverInput struct {
	Now time.Time
	// After is the grace period; 0 never fails over.
	After time.Duration
	// Reachable reports whether the cluster answered this round.
	Reachable bool
	// Known is the replica count last recorded there (what a Holding
	// cluster counts and what a failover moves).
	Known int32
	// Present is the replica count of the copies found there (meaningful
	// only when Reachable).
	Present int32
	// State is what the previous round recorded.
	State FailoverState
}

// FailoverDecision is the answer of [Failover].
type FailoverDecision struct {
	Mode FailoverMode
	// State is what to record for the next round.
	State FailoverState
	// Moved is the number of replicas written off in this round (> 0 only
	// at the round the grace period ran out): tell the operator once.
	Moved int32
	// RequeueAfter is when the grace period runs out (0: nothing to wait
	// for).
	RequeueAfter time.Duration
}

// Failover decides how one burst cluster's replicas count: as they are while
// it answers, as last known while it has not answered for less than After,
// as 0 once it has not answered for After (they are placed again elsewhere),
// and as 0 again in the first round it answers while copies written off are
// still there (they are stale: removed, or kept in place of replicas still
// waiting for a node). The state is then cleared: a caller whose writes in
// the stale round fail keeps the previous state, so the next round is stale
// again. A cluster that comes and goes starts a new grace period with each
// outage, so replicas are never moved back and forth within one; a cluster
// whose replicas were written off stays written off while unreachable,
// whatever After becomes.
func Failover(in FailoverInput) FailoverDecision {
	st := in.State
	if in.Reachable {
		if !st.FailedOverAt.IsZero() && in.Present > 0 {
			return FailoverDecision{Mode: FailoverStale}
		}
		return FailoverDecision{Mode: FailoverHealthy}
	}
	if st.UnreachableSince.IsZero() || st.UnreachableSince.After(in.Now) {
		st.UnreachableSince = in.Now
	}
	if !st.FailedOverAt.IsZero() {
		return FailoverDecision{Mode: FailoverWrittenOff, State: st}
	}
	if in.After <= 0 {
		return FailoverDecision{Mode: FailoverHolding, State: st}
	}
	if wait := st.UnreachableSince.Add(in.After).Sub(in.Now); wait > 0 {
		return FailoverDecision{Mode: FailoverHolding, State: st, RequeueAfter: wait}
	}
	st.FailedOverAt = in.Now
	return FailoverDecision{Mode: FailoverWrittenOff, State: st, Moved: max(in.Known, 0)}
}
