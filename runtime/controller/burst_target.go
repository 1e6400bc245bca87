package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// This file is one round for one target Deployment: gather burstDecide's input
// from the views, decide, and write the plan (burst clusters that grow, the
// primary, burst clusters that shrink).

// burstTargetResult is the outcome of one target Deployment.
type burstTargetResult struct {
	dep      *appsv1.Deployment
	plan     burstPlan
	achieved map[string]int32 // replicas per burst cluster after the writes
	primary  int32
	pending  int32
	pods     []corev1.Pod // active primary pods
	metrics  *burstMetricOutcome
	// sloApplied is the SLO output this round applied ("" none).
	sloApplied string
	total      int32
	changed    bool
	err        error
	unplaced   int32
	threshold  time.Duration
	// conflict says why a total requested on the Deployment
	// (BurstRequestedTotalAnnotation) was ignored ("" none).
	conflict string
}

// burstTotalConflict says why a total requested on Deployment dep (by a
// MultiObjective strategy, through BurstRequestedTotalAnnotation) is ignored:
// the policy computes its own total, from an SLO's Burst strategy (fromSLO)
// or from spec.metrics, and two controllers would otherwise each decide the
// total. "" when there is no such conflict.
func burstTotalConflict(dep string, source burstTotalSource, requested *int32, fromSLO bool) string {
	if requested == nil || source == burstTotalFromDeployment {
		return ""
	}
	by := "spec.metrics"
	if fromSLO {
		by = "an SLO's Burst strategy"
	}
	return fmt.Sprintf("Deployment %s requests a total of %d replicas (%s, written by a MultiObjective strategy) but this policy computes its own total from %s: the request is ignored; remove %s from the policy or the MultiObjective strategy from the SLO",
		dep, *requested, BurstRequestedTotalAnnotation, by, by)
}

// burstMovingBack reads d's BurstMovingBackAnnotation: how many replicas
// move back since when; 0 when absent or malformed.
func burstMovingBack(d *appsv1.Deployment) (int32, time.Time) {
	v, ok := d.Annotations[BurstMovingBackAnnotation]
	if !ok {
		return 0, time.Time{}
	}
	n, at, ok := strings.Cut(v, "@")
	k, err := strconv.ParseInt(n, 10, 32)
	since, terr := time.Parse(time.RFC3339, at)
	if !ok || err != nil || terr != nil || k < 0 {
		return 0, time.Time{}
	}
	return int32(k), since
}

// burstMovingBackValue is BurstMovingBackAnnotation's value.
func burstMovingBackValue(k int32, since time.Time) string {
	return fmt.Sprintf("%d@%s", k, since.UTC().Format(time.RFC3339))
}

func burstInt32Annotation(d *appsv1.Deployment, key string) *int32 {
	s, ok := d.Annotations[key]
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return nil
	}
	v := int32(n)
	return &v
}

// burstScheduledPods are the pods of d that metrics are read for: the
// primary's bound to a node and the active ones of its copies.
func burstScheduledPods(d *appsv1.Deployment, primary []corev1.Pod, views []*burstView) []corev1.Pod {
	var pods []corev1.Pod
	for _, pod := range primary {
		if pod.Spec.NodeName != "" {
			pods = append(pods, pod)
		}
	}
	for _, v := range views {
		for _, pod := range v.pods {
			if pod.Labels[BurstOfLabel] == burstOf(d.Namespace, d.Name) && burstPodActive(&pod) {
				pods = append(pods, pod)
			}
		}
	}
	return pods
}

// reconcileTarget gathers burstDecide's input for one target Deployment,
// decides and applies the plan. strategy is the SLO's Burst strategy driving
// the policy (nil: none).
func (r *BurstReconciler) reconcileTarget(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, views []*burstView, strategy *hcav1.BurstElasticityStrategy, now time.Time) *burstTargetResult {
	res := &burstTargetResult{dep: d}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		res.err = fmt.Errorf("deployment %s/%s has an invalid selector: %w", d.Namespace, d.Name, err)
		return res
	}
	// The pods are only read (here, in burstScheduledPods and by the Consul
	// publisher): they are the cache's own, not copies (make bench-load: the
	// copies were a sixth of the policy rounds' allocations).
	var pods corev1.PodList
	if err := r.client.List(ctx, &pods, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: sel}, client.UnsafeDisableDeepCopy); err != nil {
		res.err = fmt.Errorf("list pods of %s/%s: %w", d.Namespace, d.Name, err)
		return res
	}
	threshold := DefaultBurstPendingThreshold
	if p.Spec.PendingThreshold != nil {
		threshold = p.Spec.PendingThreshold.Duration
	}
	res.threshold = threshold
	mode := scaling.PlacementMode(p.Spec.Placement)
	if mode == "" {
		mode = scaling.PlacementPriority
	}
	minR, maxR := max(p.Spec.MinReplicas, 1), p.Spec.MaxReplicas
	if maxR < minR {
		maxR = minR
	}
	req := burstPodRequests(&d.Spec.Template.Spec)
	in := burstInput{
		Now: now, Threshold: threshold, Min: minR, Max: maxR, Mode: mode, Pod: req,
		Primary:        string(p.Spec.PrimaryCluster),
		PrimarySpec:    burstPtrOr(d.Spec.Replicas, 1),
		PrimaryWritten: burstInt32Annotation(d, BurstPrimaryAnnotation),
		StoredTotal:    burstInt32Annotation(d, BurstTotalAnnotation),
		RequestedTotal: burstInt32Annotation(d, BurstRequestedTotalAnnotation),
	}
	in.MovingBack, in.MovingBackSince = burstMovingBack(d)
	templates := map[string]bool{} // pod-template-hash of the active pods
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !burstPodActive(pod) {
			continue
		}
		templates[pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey]] = true
		res.pods = append(res.pods, *pod)
		if burstPodReady(pod) {
			in.Ready++
		}
		scheduled, unsched, since := burstPodScheduling(pod)
		switch {
		case scheduled:
			in.Scheduled++
		case unsched:
			in.Unassigned++
			in.Unschedulable = append(in.Unschedulable, since)
		default:
			in.Unassigned++
		}
	}
	res.pending = int32(len(in.Unschedulable))
	in.RollingUpdate = len(templates) > 1

	var burstNow int32
	var rooms []policy.TargetRoom // for the adaptive algorithm's Input.Room
	for _, v := range views {
		var cur int32
		if c := v.copies[d.Name]; c != nil {
			cur = burstCopyNeed(v, d.Name) // without a spot surge
		} else if !v.reachable() {
			cur = burstStatusReplicas(p, v.name) // best knowledge while unreachable
		}
		if m := v.failover.Mode; m == scaling.FailoverWrittenOff || m == scaling.FailoverStale {
			if in.Failover == nil {
				in.Failover = map[string]scaling.FailoverMode{}
			}
			in.Failover[v.name] = m
		} else {
			burstNow += cur // the written-off and stale replicas count as 0
		}
		allowSpot := p.Spec.Capacity != nil && p.Spec.Capacity.AllowSpot
		unprobed := burstUnprobed(v, d, cur)
		t := burstPlacementTarget(v, p.Namespace, cur, unprobed, req, allowSpot)
		rooms = append(rooms, burstTargetRoom(v, t, unprobed, req, allowSpot))
		if v.target == nil || (v.target.MaxReplicas != nil && *v.target.MaxReplicas == 0) {
			in.Drain = append(in.Drain, t)
		} else {
			in.Targets = append(in.Targets, t)
			if n := burstStuck(v, d, now, threshold); n > 0 {
				if in.Stuck == nil {
					in.Stuck = map[string]int32{}
				}
				in.Stuck[v.name] = n
			}
		}
	}

	var fitted *int32 // in.PrimaryFit when computed
	if len(in.Unschedulable) == 0 && in.Unassigned == 0 && burstNow > 0 {
		fit, err := primaryFit(ctx, r.client, &d.Spec.Template.Spec, req)
		if err != nil {
			res.err = err
			return res
		}
		in.PrimaryFit, fitted = fit, &fit
	}

	key := p.Namespace + "/" + p.Name + "/" + d.Name // the prefix forget drops
	switch {
	case strategy != nil:
		// An SLO's Burst strategy drives the total (it wins over spec.metrics).
		mo, applied := r.totals.fromSLO(key, strategy, d, in.PrimarySpec+burstNow-min(in.MovingBack, in.PrimarySpec), minR, maxR, now)
		res.metrics, res.sloApplied = mo, applied
		in.TotalSource, in.AlgorithmTotal, in.AlgorithmReason = mo.source, mo.total, mo.reason
	case r.totals.source != nil && len(p.Spec.Metrics) > 0:
		scheduled := burstScheduledPods(d, res.pods, views)
		// Gathered only when an evaluation is due (the room may list the
		// primary's nodes and pods).
		ready := func() (burstReadiness, error) {
			return r.readiness(ctx, p, d, scheduled, views, rooms, fitted, len(in.Unschedulable) > 0 || in.Unassigned > 0, req)
		}
		mo := r.totals.fromMetrics(ctx, key, p, d, scheduled, in.PrimarySpec+burstNow-min(in.MovingBack, in.PrimarySpec), ready, now)
		res.metrics = mo
		in.TotalSource, in.AlgorithmTotal, in.AlgorithmReason, in.NoScaleDown = mo.source, mo.total, mo.reason, mo.noScaleDown
		in.Headroom = mo.headroom
	}
	res.conflict = burstTotalConflict(d.Name, in.TotalSource, in.RequestedTotal, strategy != nil)

	plan, err := burstDecide(in)
	if err != nil {
		res.err = fmt.Errorf("decide for %s/%s: %w", d.Namespace, d.Name, err)
		return res
	}
	res.plan = plan
	res.unplaced = plan.Unplaced
	r.apply(ctx, p, d, views, plan, res)
	return res
}

// apply writes a plan: first the burst clusters that grow (new capacity before
// the primary shrinks), then the primary Deployment (replicas and the two
// annotations, with optimistic locking), then the burst clusters that shrink.
// A crash between two writes leaves an excess or a deficit that the next
// decision repairs (burstDecide removes Unschedulable primary replicas first
// and burst replicas, most expensive first, next), never a duplicate. A burst
// cluster that fails to grow keeps its replicas in the primary.
func (r *BurstReconciler) apply(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, views []*burstView, plan burstPlan, res *burstTargetResult) {
	res.achieved = map[string]int32{}
	primary := plan.Primary
	var errs []error
	spots, err := r.spotSteps(ctx, p, d, views, plan)
	if err != nil {
		errs = append(errs, err)
	}
	if len(spots) > 0 && (res.plan.RequeueAfter == 0 || res.plan.RequeueAfter > burstSpotRecheck) {
		res.plan.RequeueAfter = burstSpotRecheck
	}
	// spotWrite writes a copy whose spot surge changes (replicas and the
	// annotation in one patch); false: the usual path writes it.
	spotWrite := func(v *burstView) (bool, error) {
		s, ok := spots[v.name]
		if !ok || !s.write {
			return false, nil
		}
		return true, r.writeSpot(ctx, v, v.copies[d.Name], s.decision)
	}
	for _, v := range views {
		want, ok := plan.Burst[v.name]
		if !ok {
			continue
		}
		cur := v.copyReplicas(d.Name)
		res.achieved[v.name] = burstCopyNeed(v, d.Name)
		if !v.reachable() {
			res.achieved[v.name] = want // unknown; placement never adds to unreachable clusters
			continue
		}
		need := want
		if s, ok := spots[v.name]; ok {
			want = s.decision.Replicas // need + surge
		}
		if want == 0 || want < cur {
			continue
		}
		if done, err := spotWrite(v); done {
			if err != nil {
				errs = append(errs, err)
				v.failed = true
				continue
			}
			res.achieved[v.name] = need
			res.changed = true
			continue
		}
		desired := burstDeploymentCopy(d, p.Name, string(p.Spec.PrimaryCluster), want)
		burstSetSurge(desired, spots[v.name].decision.Surge)
		if c := v.copies[d.Name]; c != nil && !burstDeploymentNeedsUpdate(desired, c) {
			continue
		}
		if err := r.objects.ensureCopy(ctx, p, v, desired); err != nil {
			errs = append(errs, err)
			v.failed = true
			primary += max(0, need-burstCopyNeed(v, d.Name)) // those replicas stay in the primary
			r.event(p, d, corev1.EventTypeWarning, "BurstFailed", "Burst", "could not place %d replicas of %s in %s: %v", want-cur, d.Name, v.name, err)
			continue
		}
		res.achieved[v.name] = need
		res.changed = res.changed || want != cur
	}

	total := primary
	for _, n := range res.achieved {
		total += n
	}
	res.total = plan.Total
	moving := ""
	if plan.MovingBack > 0 {
		moving = burstMovingBackValue(plan.MovingBack, plan.MovingBackSince)
	}
	if err := r.patchPrimary(ctx, d, primary, plan.Total, moving, res.sloApplied, res.conflict == ""); err != nil {
		errs = append(errs, err)
		res.err = errors.Join(errs...)
		res.primary = burstPtrOr(d.Spec.Replicas, 1)
		return
	}
	res.primary = primary

	for _, v := range views {
		want, ok := plan.Burst[v.name]
		if !ok || !v.reachable() {
			continue
		}
		cur := v.copyReplicas(d.Name)
		need := want
		if s, ok := spots[v.name]; ok {
			want = s.decision.Replicas
		}
		if want >= cur {
			continue
		}
		c := v.copies[d.Name]
		if want == 0 {
			// the copy goes (below)
		} else if done, err := spotWrite(v); done {
			if err != nil {
				errs = append(errs, err)
				v.failed = true
				continue
			}
			res.achieved[v.name] = need
			res.changed = true
			continue
		}
		if want == 0 {
			if err := r.objects.deleteCopy(ctx, v, c); err != nil {
				errs = append(errs, err)
				v.failed = true
				continue
			}
		} else {
			desired := burstDeploymentCopy(d, p.Name, string(p.Spec.PrimaryCluster), want)
			burstSetSurge(desired, spots[v.name].decision.Surge)
			if err := r.objects.ensureCopy(ctx, p, v, desired); err != nil {
				errs = append(errs, err)
				v.failed = true
				continue
			}
		}
		res.achieved[v.name] = need
		res.changed = true
	}
	if tm := r.opts.Telemetry; tm != nil {
		alg := "deployment"
		switch {
		case res.sloApplied != "":
			alg = "slo-burst"
		case res.metrics != nil:
			alg = string(p.Spec.Algorithm.Name)
			if alg == "" { // no name is adaptive (policy.NewAlgorithm)
				alg = string(hcav1.AlgorithmAdaptive)
			}
		}
		for _, a := range plan.Actions {
			tm.Decisions.WithLabelValues(p.Namespace+"/"+p.Name, alg, a, burstActionReason(a, plan)).Inc()
		}
	}
	if len(plan.Actions) > 0 {
		res.changed = true
		kind := corev1.EventTypeNormal
		if plan.Unplaced > 0 {
			kind = corev1.EventTypeWarning
		}
		// A write that failed (its BurstFailed Event says why) makes the
		// decision's outcome differ from the plan: not a Normal event.
		var failed []string
		for _, v := range views {
			if v.failed {
				failed = append(failed, v.name)
			}
		}
		note := ""
		if len(failed) > 0 {
			kind = corev1.EventTypeWarning
			note = "; not carried out in " + strings.Join(failed, ", ")
		}
		r.event(p, d, kind, burstEventReason(plan.Actions), strings.Join(plan.Actions, ","), "%s/%s: %s (total %d: %s%s)", d.Namespace, d.Name, plan.Reason, plan.Total, burstDistribution(string(p.Spec.PrimaryCluster), primary, res.achieved), note)
		log.FromContext(ctx).Info("burst decision", "policy", p.Namespace+"/"+p.Name, "deployment", d.Name, "actions", plan.Actions, "total", plan.Total, "replicas", burstDistribution(string(p.Spec.PrimaryCluster), primary, res.achieved), "reason", plan.Reason)
	}
	res.err = errors.Join(errs...)
}

func burstEventReason(actions []string) string {
	switch {
	case slices.Contains(actions, "failover"):
		return "FailoverReplace"
	case slices.Contains(actions, "burst"):
		return "Burst"
	case slices.Contains(actions, "scale-down"):
		return "ScaleDown"
	case slices.Contains(actions, "move-back"):
		return "MoveBack"
	case slices.Contains(actions, "move-back-start"):
		return "MoveBackStarted"
	case slices.Contains(actions, "move-back-cancelled"):
		return "MoveBackCancelled"
	case slices.Contains(actions, "drain"):
		return "Drain"
	case slices.Contains(actions, "remove-stale"):
		return "StaleRemoved"
	case slices.Contains(actions, "adopt-stale"):
		return "StaleAdopted"
	case slices.Contains(actions, "replace-pending"):
		return "PendingReplaced"
	default:
		return "ScaleUp"
	}
}

// burstDistribution renders "private=6, b1=4".
func burstDistribution(primaryName string, primary int32, burst map[string]int32) string {
	parts := []string{fmt.Sprintf("%s=%d", primaryName, primary)}
	names := slices.Sorted(maps.Keys(burst))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s=%d", n, burst[n]))
	}
	return strings.Join(parts, ", ")
}

// patchPrimary sets the primary Deployment's replicas and the controller's
// annotations when they differ, and takes (removes) a requested total when
// take is set: a request the policy ignores (a conflict of totals) stays, so
// the policy stays Degraded while it stands. The JSON patch tests that spec.replicas is
// still what the decision read, so a concurrent scale by someone else fails the
// patch and the round is retried (a resourceVersion precondition would also
// fail on every status update of the Deployment controller).
func (r *BurstReconciler) patchPrimary(ctx context.Context, d *appsv1.Deployment, replicas, total int32, moving, sloApplied string, take bool) error {
	wantP, wantT := strconv.Itoa(int(replicas)), strconv.Itoa(int(total))
	_, annotated := d.Annotations[BurstTotalAnnotation]
	_, hasRequest := d.Annotations[BurstRequestedTotalAnnotation]
	if sloApplied == "" && !(hasRequest && take) && d.Annotations[BurstMovingBackAnnotation] == moving && burstPtrOr(d.Spec.Replicas, 1) == replicas && (!annotated && replicas == total ||
		d.Annotations[BurstPrimaryAnnotation] == wantP && d.Annotations[BurstTotalAnnotation] == wantT) {
		return nil
	}
	ops := burstPrimaryPatch(d, replicas, total, moving, take)
	if sloApplied != "" {
		if d.Annotations == nil {
			ops[len(ops)-1].Value.(map[string]string)[BurstSLOAppliedAnnotation] = sloApplied
		} else {
			ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/metadata/annotations/" + strings.ReplaceAll(BurstSLOAppliedAnnotation, "/", "~1"), Value: sloApplied})
		}
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encode patch of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	if err := r.client.Patch(ctx, d, client.RawPatch(types.JSONPatchType, raw)); err != nil {
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsConflict(err) {
			return fmt.Errorf("scale deployment %s/%s to %d: its replicas changed since they were read (retrying with the new value): %w", d.Namespace, d.Name, replicas, err)
		}
		return fmt.Errorf("scale deployment %s/%s to %d: %w", d.Namespace, d.Name, replicas, err)
	}
	r.fresh.note(d)
	return nil
}

// burstJSONPatchOp is one RFC 6902 operation.
type burstJSONPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// burstPrimaryPatch is the JSON patch that scales d from its current
// spec.replicas (tested, with the controller's annotations as read) to replicas and records the controller's annotations
// (the move back in flight, moving, when not ""), removing a requested total
// (BurstRequestedTotalAnnotation, tested) when it took it (take).
func burstPrimaryPatch(d *appsv1.Deployment, replicas, total int32, moving string, take bool) []burstJSONPatchOp {
	esc := func(k string) string { return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") }
	ops := []burstJSONPatchOp{}
	if d.Spec.Replicas != nil {
		ops = append(ops, burstJSONPatchOp{Op: "test", Path: "/spec/replicas", Value: *d.Spec.Replicas})
	}
	// d may come from the cache: the controller's own annotations, which
	// the decision read, must still be what it read (a cache a moment
	// behind the controller's last write fails here and the round is
	// retried).
	for _, k := range []string{BurstPrimaryAnnotation, BurstTotalAnnotation, BurstMovingBackAnnotation} {
		if v, ok := d.Annotations[k]; ok {
			ops = append(ops, burstJSONPatchOp{Op: "test", Path: "/metadata/annotations/" + esc(k), Value: v})
		}
	}
	ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/spec/replicas", Value: replicas})
	ann := map[string]string{BurstPrimaryAnnotation: strconv.Itoa(int(replicas)), BurstTotalAnnotation: strconv.Itoa(int(total))}
	if moving != "" {
		ann[BurstMovingBackAnnotation] = moving
	}
	if d.Annotations == nil {
		return append(ops, burstJSONPatchOp{Op: "add", Path: "/metadata/annotations", Value: ann})
	}
	for _, k := range []string{BurstPrimaryAnnotation, BurstTotalAnnotation, BurstMovingBackAnnotation} {
		switch _, had := d.Annotations[k]; {
		case ann[k] != "":
			ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/metadata/annotations/" + esc(k), Value: ann[k]})
		case had:
			ops = append(ops, burstJSONPatchOp{Op: "remove", Path: "/metadata/annotations/" + esc(k)})
		}
	}
	if requested, ok := d.Annotations[BurstRequestedTotalAnnotation]; ok && take {
		// The requested total is taken: remove it, unless it changed since it
		// was read (then the patch fails and the next round takes the new one).
		path := "/metadata/annotations/" + esc(BurstRequestedTotalAnnotation)
		ops = append(ops, burstJSONPatchOp{Op: "test", Path: path, Value: requested}, burstJSONPatchOp{Op: "remove", Path: path})
	}
	return ops
}
