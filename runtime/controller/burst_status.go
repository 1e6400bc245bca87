package controller

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// Condition reasons of BurstPolicies.
const (
	BurstReasonReconciled        = "Reconciled"
	BurstReasonNoTarget          = "TargetNotFound"
	BurstReasonError             = "ReconcileError"
	BurstReasonUnplaced          = "DeficitUnplaced"
	BurstReasonUnreachable       = "BurstClusterUnreachable"
	BurstReasonAllReachable      = "AllReachable"
	BurstReasonMetricsMissing    = "MetricsUnavailable"
	BurstReasonMetricsOK         = "MetricsAvailable"
	BurstReasonNoMetricSource    = "NoMetricSource"
	BurstReasonNoConsulClient    = "NoConsulClient"
	BurstReasonConsulUnavailable = "ConsulUnavailable"
	BurstReasonPublished         = "Published"
	BurstReasonInputsAvailable   = "InputsAvailable"
	BurstReasonFailedOver        = "FailedOver"
	BurstReasonConflictingTotals = "ConflictingTotals"
	// BurstReasonNamespaceTerminating: a burst cluster answers but the
	// policy's namespace there is being deleted; nothing is placed there
	// until it is gone.
	BurstReasonNamespaceTerminating = "NamespaceTerminating"
	burstMaxDecisionReasonLength    = 1024
)

// burstPhase sums up a round: Degraded while holding for missing metrics,
// ScalingBack while burst replicas are being removed, Bursting while any run
// in burst clusters, else Watching.
func burstPhase(holding bool, burstBefore, burstAfter int32) hcav1.BurstPhase {
	switch {
	case holding:
		return hcav1.PhaseDegraded
	case burstAfter > 0 && burstAfter < burstBefore:
		return hcav1.PhaseScalingBack
	case burstAfter > 0:
		return hcav1.PhaseBursting
	default:
		return hcav1.PhaseWatching
	}
}

// patchStatus records the round in the policy's status with a merge patch of
// the status subresource (skipped when nothing changed).
func (r *BurstReconciler) patchStatus(ctx context.Context, p *hcav1.BurstPolicy, deps []*appsv1.Deployment, views []*burstView, results []*burstTargetResult, consulErr error, now time.Time) error {
	before := p.DeepCopy()
	st := &p.Status
	gen := p.Generation
	st.ObservedGeneration = gen

	var burstBefore int32
	for _, c := range st.Replicas {
		if c.Cluster != p.Spec.PrimaryCluster {
			burstBefore += c.Desired
		}
	}
	prim := hcav1.ClusterReplicas{Cluster: p.Spec.PrimaryCluster}
	var total int32
	var reasons []string
	holding, changed := false, false
	var errs []string
	var unplaced int32
	for _, t := range results {
		prim.Desired += t.primary
		prim.Ready += t.dep.Status.ReadyReplicas
		prim.Pending += t.pending
		total += t.primary
		if t.err != nil {
			errs = append(errs, t.err.Error())
		}
		unplaced += t.unplaced
		if t.metrics != nil && t.metrics.noScaleDown && !t.metrics.available {
			holding = true
		}
		if len(t.plan.Actions) > 0 {
			changed = true
			reasons = append(reasons, t.dep.Name+": "+t.plan.Reason)
		}
	}
	reps := []hcav1.ClusterReplicas{prim}
	var burstAfter int32
	var unreachable, failedOver, notReady []string
	skipped := burstSkippedNotReady(results)
	for _, v := range views {
		if why := v.notReady(p.Namespace); v.reachable() && why != "" && skipped[v.name] {
			notReady = append(notReady, v.name+": "+why)
		}
		cr := hcav1.ClusterReplicas{Cluster: hcav1.ClusterName(v.name)}
		for _, t := range results {
			cr.Desired += t.achieved[v.name]
		}
		total += cr.Desired
		if !v.reachable() {
			if v.target != nil || !v.gone {
				unreachable = append(unreachable, fmt.Sprintf("%s (%v)", v.name, v.err))
			}
			writtenOff := v.failover.Mode == scaling.FailoverWrittenOff
			for _, old := range before.Status.Replicas {
				if string(old.Cluster) == v.name && !writtenOff {
					cr.Ready, cr.Pending, cr.Interrupted = old.Ready, old.Pending, old.Interrupted
					if cr.Desired == 0 {
						cr.Desired = old.Desired
					}
				}
			}
			if writtenOff {
				failedOver = append(failedOver, fmt.Sprintf("%s (unreachable since %s)", v.name, v.failover.State.UnreachableSince.UTC().Format(time.RFC3339)))
			}
		} else {
			for i := range v.pods {
				pod := &v.pods[i]
				if !burstPodActive(pod) || !burstPodOfCopies(pod, v) {
					continue
				}
				if burstPodReady(pod) {
					cr.Ready++
				}
				if _, u, _ := burstPodScheduling(pod); u {
					cr.Pending++
				}
				if _, noticed := v.noticed[pod.Spec.NodeName]; noticed && pod.Spec.NodeName != "" {
					cr.Interrupted++
				}
			}
		}
		if v.hc != nil {
			for _, g := range v.hc.Status.NodeGroups {
				cr.NodesReady += g.ReadyNodes
				cr.NodesRequested += g.RequestedNodes
			}
		}
		fs := v.failover.State
		if v.failover.Mode == scaling.FailoverStale && v.failed {
			fs = scaling.FailoverState{FailedOverAt: v.failoverPrior.FailedOverAt} // stale again next round
		}
		if !v.gone {
			if !fs.UnreachableSince.IsZero() {
				cr.UnreachableSince = &metav1.Time{Time: fs.UnreachableSince}
			}
			if !fs.FailedOverAt.IsZero() {
				cr.FailedOverAt = &metav1.Time{Time: fs.FailedOverAt}
			}
		}
		burstAfter += cr.Desired
		if cr.Desired > 0 || v.failed || (!v.reachable() && !v.gone && burstStatusHas(before, v.name)) {
			reps = append(reps, cr)
		}
	}
	sort.SliceStable(reps[1:], func(i, j int) bool { return reps[1+i].Cluster < reps[1+j].Cluster })
	st.Replicas = reps
	st.Phase = burstPhase(holding, burstBefore, burstAfter)
	st.Headroom = nil
	for _, t := range results {
		if t.plan.Headroom <= 0 {
			continue
		}
		prices, err := r.primaryPrices(ctx, p)
		if err == nil {
			st.Headroom, err = burstHeadroomStatus(string(p.Spec.PrimaryCluster), prices, views, results)
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
		break
	}
	if changed || st.LastDecision == nil {
		reason := strings.Join(reasons, "; ")
		if reason == "" {
			reason = fmt.Sprintf("observed %d replicas", total)
		}
		if len(reason) > burstMaxDecisionReasonLength {
			reason = reason[:burstMaxDecisionReasonLength-3] + "..."
		}
		var desired int32
		for _, t := range results {
			desired += t.total
		}
		st.LastDecision = &hcav1.Decision{Time: metav1.NewTime(now), Desired: desired, Reason: reason}
	}

	set := func(typ string, ok bool, reason, msg string) {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: typ, Status: s, Reason: reason, Message: burstTrim(msg), ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(now)})
	}

	// Reachable: every burst target answered.
	if len(unreachable) > 0 {
		set(hcav1.ConditionReachable, false, BurstReasonUnreachable, "placement skips unreachable burst clusters: "+strings.Join(unreachable, "; "))
	} else {
		set(hcav1.ConditionReachable, true, BurstReasonAllReachable, fmt.Sprintf("%d burst clusters reachable", len(views)))
	}

	// Published: the replicas are in Consul's catalog.
	switch {
	case p.Spec.Consul == nil || r.publisher == nil:
		meta.RemoveStatusCondition(&st.Conditions, hcav1.ConditionPublished)
	case consulErr != nil:
		set(hcav1.ConditionPublished, false, BurstReasonConsulUnavailable, "the catalog cannot be written, nginx keeps the last list it rendered: "+consulErr.Error())
	default:
		set(hcav1.ConditionPublished, true, BurstReasonPublished, fmt.Sprintf("replicas published to Consul as service %s", p.Spec.Consul.ServiceName))
	}

	// MetricsAvailable.
	measured := false
	for _, t := range results {
		measured = measured || t.metrics != nil
	}
	switch {
	case !measured:
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: hcav1.ConditionMetricsAvailable, Status: metav1.ConditionUnknown,
			Reason: BurstReasonNoMetricSource, Message: "the runtime has no metric source: the total replica count follows the target Deployment's replicas",
			ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(now)})
	default:
		ok, msgs := true, []string{}
		for _, t := range results {
			if t.metrics != nil && t.metrics.message != "" {
				msgs = append(msgs, t.dep.Name+": "+t.metrics.message)
			}
			if t.metrics != nil && !t.metrics.available {
				ok = false
			}
		}
		if ok {
			set(hcav1.ConditionMetricsAvailable, true, BurstReasonMetricsOK, strings.Join(msgs, "; "))
		} else {
			set(hcav1.ConditionMetricsAvailable, false, BurstReasonMetricsMissing, strings.Join(msgs, "; ")+": holding, never scaling down on missing data")
		}
	}

	// Degraded: an input is missing.
	var degraded []string
	degradedReason := BurstReasonInputsAvailable
	if holding {
		degradedReason = BurstReasonMetricsMissing
		degraded = append(degraded, "metrics are missing: the total is held")
	}
	for _, t := range results {
		if t.conflict != "" {
			if degradedReason == BurstReasonInputsAvailable {
				degradedReason = BurstReasonConflictingTotals
			}
			degraded = append(degraded, t.conflict)
		}
	}
	if len(failedOver) > 0 {
		if degradedReason == BurstReasonInputsAvailable {
			degradedReason = BurstReasonFailedOver
		}
		degraded = append(degraded, fmt.Sprintf("failed over: the replicas of %s were written off after failoverAfter (%v) and placed elsewhere; the stale replicas left there are removed when it answers", strings.Join(failedOver, ", "), burstFailoverAfter(p)))
	}
	if len(unreachable) > 0 {
		if degradedReason == BurstReasonInputsAvailable {
			degradedReason = BurstReasonUnreachable
		}
		degraded = append(degraded, "burst clusters unreachable, skipped by placement: "+strings.Join(unreachable, "; "))
	}
	if len(notReady) > 0 {
		if degradedReason == BurstReasonInputsAvailable {
			degradedReason = BurstReasonNamespaceTerminating
		}
		degraded = append(degraded, "burst clusters not ready, skipped by placement until their namespace is gone: "+strings.Join(notReady, "; "))
	}
	if unplaced > 0 {
		if degradedReason == BurstReasonInputsAvailable {
			degradedReason = BurstReasonUnplaced
		}
		degraded = append(degraded, fmt.Sprintf("%d replicas could not be placed in any burst cluster", unplaced))
	}
	if len(degraded) > 0 {
		set(hcav1.ConditionDegraded, true, degradedReason, strings.Join(degraded, "; "))
	} else {
		set(hcav1.ConditionDegraded, false, degradedReason, "all inputs available")
	}

	// Ready.
	if consulErr != nil {
		errs = append(errs, consulErr.Error())
	}
	switch {
	case len(deps) == 0:
		set(hcav1.ConditionReady, false, BurstReasonNoTarget, "no Deployment matches spec.target in namespace "+p.Namespace)
	case len(errs) > 0:
		set(hcav1.ConditionReady, false, BurstReasonError, strings.Join(errs, "; "))
	case unplaced > 0:
		set(hcav1.ConditionReady, false, BurstReasonUnplaced, fmt.Sprintf("%d replicas could not be placed in any burst cluster", unplaced))
	case p.Spec.Consul != nil && r.publisher == nil:
		set(hcav1.ConditionReady, false, BurstReasonNoConsulClient, "spec.consul is set but the runtime has no Consul address: replicas are not registered")
	default:
		set(hcav1.ConditionReady, true, BurstReasonReconciled, fmt.Sprintf("%d replicas: %s", total, burstStatusDistribution(reps)))
	}

	r.mu.Lock()
	writtenAt := r.statusAt[p.UID]
	r.mu.Unlock()
	measuredOnly := true
	for _, t := range results {
		measuredOnly = measuredOnly && (t.metrics == nil || t.metrics.measured)
	}
	if !burstStatusDue(&before.Status, &p.Status, measuredOnly, writtenAt, now, r.opts.StatusHeartbeat, heartbeatPhase(p.UID, r.opts.StatusHeartbeat)) {
		return nil
	}
	// The policy may come from the cache: the status is written only over
	// the version the round read (BurstReconciler.fresh).
	if err := writeStatus(ctx, r.client, p, statusMergeFromLocked(before.Status, p.Status, before.ResourceVersion)); err != nil {
		return fmt.Errorf("patch status of burst policy %s/%s: %w", p.Namespace, p.Name, err)
	}
	r.fresh.note(p)
	r.mu.Lock()
	r.statusAt[p.UID] = now
	r.mu.Unlock()
	var conflicts []string
	for _, t := range results {
		if t.conflict != "" {
			conflicts = append(conflicts, t.conflict)
		}
	}
	events := append(burstConditionEvents(before.Status.Conditions, p.Status.Conditions), burstConflictEvents(before.Status.Conditions, conflicts)...)
	for _, e := range events {
		r.event(p, nil, e.kind, e.reason, "Observe", "%s", e.note)
		e.log(ctx, client.ObjectKeyFromObject(p))
	}
	return nil
}

// log writes the log line of a condition's transition (logTransition) for
// policy; a conflict of totals is an Event only.
func (e burstConditionEvent) log(ctx context.Context, policy client.ObjectKey) {
	if e.condition != nil {
		logTransition(ctx, e.condition, e.kind == corev1.EventTypeWarning, "policy", policy.String())
	}
}

// burstConditionEvent is an Event for a condition that changed (condition:
// the condition now, logged too) or for a conflict of totals (condition nil).
type burstConditionEvent struct {
	kind, reason, note string
	condition          *metav1.Condition
}

// burstConditionEvents tells the operator, once per transition, what the
// conditions tell a reader of the status: metrics lost or back, burst
// clusters unreachable or reachable again, Consul unavailable or written
// again.
func burstConditionEvents(before, after []metav1.Condition) []burstConditionEvent {
	var out []burstConditionEvent
	for _, typ := range []string{hcav1.ConditionMetricsAvailable, hcav1.ConditionReachable, hcav1.ConditionPublished} {
		a := meta.FindStatusCondition(after, typ)
		switch lost, back := conditionChange(meta.FindStatusCondition(before, typ), a); {
		case lost:
			out = append(out, burstConditionEvent{corev1.EventTypeWarning, a.Reason, a.Message, a})
		case back:
			out = append(out, burstConditionEvent{corev1.EventTypeNormal, a.Reason, a.Message, a})
		}
	}
	return out
}

// burstConflictEvents is a Warning Event per conflict of totals
// (burstTotalConflict) that the Degraded condition before did not already
// name: once when it starts, not every round.
func burstConflictEvents(before []metav1.Condition, conflicts []string) []burstConditionEvent {
	var out []burstConditionEvent
	b := meta.FindStatusCondition(before, hcav1.ConditionDegraded)
	for _, c := range conflicts {
		if b == nil || b.Status != metav1.ConditionTrue || !strings.Contains(b.Message, c) {
			out = append(out, burstConditionEvent{kind: corev1.EventTypeWarning, reason: BurstReasonConflictingTotals, note: c})
		}
	}
	return out
}

func burstStatusDistribution(reps []hcav1.ClusterReplicas) string {
	parts := make([]string, 0, len(reps))
	for _, c := range reps {
		parts = append(parts, fmt.Sprintf("%s=%d", c.Cluster, c.Desired))
	}
	return strings.Join(parts, ", ")
}

func burstTrim(s string) string {
	const maxLen = 32768
	if len(s) > maxLen {
		return s[:maxLen-3] + "..."
	}
	return s
}

// burstStatusDue says whether after must be written over before. When the
// messages' figures are measurements read again every round (measured: the
// totals come from metrics, not from an SLO's output), a status differing
// only in the figures of condition messages (a utilisation read again, "cpu
// 43% of 60%" becoming "cpu 45% of 60%") is written once the policy's
// heartbeat instant after writtenAt has come (heartbeatDue with phase; zero
// writtenAt: never written by this process, at once); anything else is
// written at once. A message whose words change ("metrics back after an
// outage ...") is written at once; a changed replica count in a message comes
// with a change of status.replicas or lastDecision. It is pure.
func burstStatusDue(before, after *hcav1.BurstPolicyStatus, measured bool, writtenAt, now time.Time, heartbeat, phase time.Duration) bool {
	if equality.Semantic.DeepEqual(before, after) {
		return false
	}
	if !measured {
		return true
	}
	b, a := *before, *after // shallow, with conditions of their own: only their messages change
	for _, st := range []*hcav1.BurstPolicyStatus{&b, &a} {
		st.Conditions = slices.Clone(st.Conditions)
		for i := range st.Conditions {
			st.Conditions[i].Message = burstMessageWords(st.Conditions[i].Message)
		}
	}
	if !equality.Semantic.DeepEqual(b, a) {
		return true
	}
	return writtenAt.IsZero() || heartbeatDue(writtenAt, now, heartbeat, phase)
}

// burstMessageWords is msg with every run of digits (and the decimal points
// between them) replaced by "#": what a message says without its figures.
func burstMessageWords(msg string) string {
	var b strings.Builder
	b.Grow(len(msg))
	inNum := false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		digit := c >= '0' && c <= '9'
		if c == '.' && inNum && i+1 < len(msg) && msg[i+1] >= '0' && msg[i+1] <= '9' {
			continue
		}
		if digit {
			if !inNum {
				b.WriteByte('#')
			}
			inNum = true
			continue
		}
		inNum = false
		b.WriteByte(c)
	}
	return b.String()
}
