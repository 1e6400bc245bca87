package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// Defaults of the strategies' stabilisation windows when the SLO sets none (the
// API's documented defaults: scale up at once, scale down after 5 minutes).
const (
	defaultStrategyUpWindow   = 0
	defaultStrategyDownWindow = 5 * time.Minute
)

// HorizontalStrategyReconciler acts on HorizontalElasticityStrategies: it scales
// the target (in the cluster it runs in, the primary) to slo.Horizontal's
// ceil(current x compliance / 100), within tolerance, stabilisation windows and
// min/max, through the scale subresource. It knows nothing of the SLO that wrote
// the strategy.
//
// It acts once per SLO output: when the strategy's generation (which changes
// with spec.sloOutput) differs from status.observedGeneration. Acting again on
// the same output would compound (3 -> 5 -> 8 on one violation measured at 3).
// A decision held back by a window is retried for the same output, from the
// replica count it was measured at, until the window lets it through.
//
// The recommendation history of the windows is kept in memory per object. It is
// derivable and short-lived: after a restart the windows start empty, so the
// first decision is not held back by proposals made before the restart (at
// worst one scale-down comes earlier than the window wanted); nothing is
// duplicated, because observedGeneration is in the status.
//
// +kubebuilder:rbac:groups=hca.dev,resources=horizontalelasticitystrategies,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=horizontalelasticitystrategies/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=apps,resources=deployments/scale;statefulsets/scale,verbs=get;update;patch
type HorizontalStrategyReconciler struct {
	Client    client.Client
	Clock     clock.PassiveClock
	Recorder  events.EventRecorder
	Telemetry *telemetry.Metrics
	// Class selects the strategy objects handled: those whose ClassLabel equals
	// it ("" : those without the label).
	Class string
	// MaxConcurrentReconciles (default DefaultStrategyConcurrency).
	MaxConcurrentReconciles int

	mu    sync.Mutex
	state map[types.NamespacedName]*horizontalState
}

type horizontalState struct {
	history    []slo.Recommendation
	generation int64 // the output the last decision was for
	base       int32 // replicas when that output was first acted on
	held       bool  // a window held that decision back
	// event keys the last hold Event (the replicas a window held back):
	// the same hold is not an Event again ("" after a decision with no
	// hold). A hold with nothing proposed is no Event at all: an SLO whose
	// compliance moves between outperformed and within tolerance at
	// minReplicas decides "1 -> 1" each time (18 Events a second in
	// make bench-load -churn 0.1; the HPA records no holds either).
	event string
}

// SetupWithManager registers the controller.
func (r *HorizontalStrategyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).For(&hcav1.HorizontalElasticityStrategy{}, builder.WithPredicates(classPredicate(r.Class))).
		WithOptions(strategyOptions(r.MaxConcurrentReconciles)).Named("horizontalelasticitystrategy").Complete(r)
}

func (r *HorizontalStrategyReconciler) stateOf(key types.NamespacedName) *horizontalState {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		r.state = map[types.NamespacedName]*horizontalState{}
	}
	st, ok := r.state[key]
	if !ok {
		st = &horizontalState{}
		r.state[key] = st
	}
	return st
}

func windows(w *hcav1.StabilizationWindows) (up, down time.Duration) {
	up, down = defaultStrategyUpWindow, defaultStrategyDownWindow
	if w != nil {
		if w.ScaleUp != nil {
			up = w.ScaleUp.Duration
		}
		if w.ScaleDown != nil {
			down = w.ScaleDown.Duration
		}
	}
	return up, down
}

func tolerance(o hcav1.SLOOutput) float64 {
	if o.Tolerance == nil {
		return slo.DefaultTolerance
	}
	return o.Tolerance.AsApproximateFloat64()
}

// workload returns an empty object of the target's kind, for the scale subresource.
func workload(ns string, t hcav1.TargetRef) client.Object {
	meta := metav1.ObjectMeta{Namespace: ns, Name: string(t.Name)}
	if t.Kind == hcav1.WorkloadStatefulSet {
		return &appsv1.StatefulSet{ObjectMeta: meta}
	}
	return &appsv1.Deployment{ObjectMeta: meta}
}

// Reconcile decides and scales once per SLO output.
func (r *HorizontalStrategyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var hs hcav1.HorizontalElasticityStrategy
	if err := r.Client.Get(ctx, req.NamespacedName, &hs); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(r.state, req.NamespacedName)
			r.mu.Unlock()
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if hs.Labels[ClassLabel] != r.Class {
		return ctrl.Result{}, nil
	}
	st := r.stateOf(req.NamespacedName)
	retry := st.held && st.generation == hs.Generation
	if hs.Status.ObservedGeneration == hs.Generation && !retry {
		return ctrl.Result{}, nil
	}
	before := hs.DeepCopy()
	now := r.Clock.Now()
	policy := req.String()

	target := workload(hs.Namespace, hs.Spec.Target)
	scale := &autoscalingv1.Scale{}
	if err := r.Client.SubResource("scale").Get(ctx, target, scale); err != nil {
		r.count("target")
		if apierrors.IsNotFound(err) {
			r.degrade(ctx, &hs, before, "TargetNotFound", fmt.Sprintf("%s %s/%s not found: create it or fix spec.target", hs.Spec.Target.Kind, hs.Namespace, hs.Spec.Target.Name))
			return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get scale of %s %s/%s: %w", hs.Spec.Target.Kind, hs.Namespace, hs.Spec.Target.Name, err)
	}
	current := scale.Spec.Replicas
	base := current
	if retry {
		base = st.base
	}
	up, down := windows(hs.Spec.Stabilization)
	cfg := slo.HorizontalConfig{
		MinReplicas: max(hs.Spec.StaticConfig.MinReplicas, 1), MaxReplicas: hs.Spec.StaticConfig.MaxReplicas,
		Tolerance: tolerance(hs.Spec.SLOOutput), ScaleUpWindow: up, ScaleDownWindow: down,
	}
	d, err := slo.Horizontal(now, base, float64(hs.Spec.SLOOutput.CompliancePercent), cfg, st.history)
	if err != nil {
		r.count("invalid")
		hs.Status.ObservedGeneration = hs.Generation
		st.held = false
		r.degrade(ctx, &hs, before, ReasonInvalidObjective, err.Error())
		return ctrl.Result{}, nil
	}
	st.history, st.generation, st.base, st.held = d.History, hs.Generation, base, d.Stabilised

	direction := "hold"
	if d.Desired != current {
		direction = "up"
		if d.Desired < current {
			direction = "down"
		}
		scale.Spec.Replicas = d.Desired
		if err := r.Client.SubResource("scale").Update(ctx, target, client.WithSubResourceBody(scale)); err != nil {
			r.count("scale")
			return ctrl.Result{}, fmt.Errorf("scale %s %s/%s to %d: %w", hs.Spec.Target.Kind, hs.Namespace, hs.Spec.Target.Name, d.Desired, err)
		}
		t := metav1.NewTime(now)
		hs.Status.LastScaleTime = &t
	}
	if r.Telemetry != nil {
		r.Telemetry.Decisions.WithLabelValues(policy, "slo-horizontal", direction, "slo-compliance").Inc()
	}
	hs.Status.ObservedGeneration = hs.Generation
	hs.Status.CurrentReplicas = current
	hs.Status.DesiredReplicas = d.Desired
	msg := fmt.Sprintf("compliance %d%%: %s; %d -> %d replicas (proposed %d)", hs.Spec.SLOOutput.CompliancePercent, d.Reason, current, d.Desired, d.Proposed)
	meta.SetStatusCondition(&hs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Decided", Message: msg, ObservedGeneration: hs.Generation})
	meta.SetStatusCondition(&hs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: "Decided", ObservedGeneration: hs.Generation})
	reason, key := holdEvent(direction != "hold", d.Stabilised, d.Proposed)
	if r.Recorder != nil && reason != "" && (reason == "Scaled" || st.event != key) {
		r.Recorder.Eventf(&hs, nil, corev1.EventTypeNormal, reason, "Scale", "%s", msg)
	}
	st.event = key
	if err := writeStatus(ctx, r.Client, &hs, statusMergeFrom(before.Status, hs.Status)); err != nil {
		r.count("status")
		return ctrl.Result{}, fmt.Errorf("patch status of horizontal strategy %s: %w", req, err)
	}
	if d.Stabilised {
		return ctrl.Result{RequeueAfter: retryAfter(up, down)}, nil
	}
	return ctrl.Result{}, nil
}

// DefaultStrategyConcurrency is how many objects of one strategy kind are
// reconciled at once. A reconcile waits on the API server (the target's
// scale, then the status): one at a time, make bench-load -churn 0.3 saw
// 138 ms per reconcile on a busy lab, 7 a second against 40 new SLO outputs
// a second, and 9,907 strategies waiting 5 minutes on average in the queue.
// Each key is still reconciled by one worker at a time.
const DefaultStrategyConcurrency = 16

// strategyOptions are a strategy controller's options: n workers, or
// DefaultStrategyConcurrency when n is not positive.
func strategyOptions(n int) controller.Options {
	if n <= 0 {
		n = DefaultStrategyConcurrency
	}
	return controller.Options{MaxConcurrentReconciles: n}
}

// holdEvent says which Event a strategy's decision is: "Scaled" when it
// changed the target; "Held" when a stabilisation window held a proposed
// change back, with the key that tells one such hold from the next (the
// proposal held); none ("") when nothing was proposed. It is pure.
func holdEvent(changed, stabilised bool, proposed any) (reason, key string) {
	switch {
	case changed:
		return "Scaled", ""
	case stabilised:
		return "Held", fmt.Sprint("held ", proposed)
	}
	return "", ""
}

// retryAfter is how soon a held decision is tried again.
func retryAfter(up, down time.Duration) time.Duration {
	w := max(up, down) / 10
	return min(max(w, time.Second), 30*time.Second)
}

func (r *HorizontalStrategyReconciler) count(kind string) {
	if r.Telemetry != nil {
		r.Telemetry.Errors.WithLabelValues("horizontal-strategy", kind).Inc()
	}
}

func (r *HorizontalStrategyReconciler) degrade(ctx context.Context, hs, before *hcav1.HorizontalElasticityStrategy, reason, msg string) {
	meta.SetStatusCondition(&hs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: hs.Generation})
	meta.SetStatusCondition(&hs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: hs.Generation})
	if r.Recorder != nil {
		r.Recorder.Eventf(hs, nil, corev1.EventTypeWarning, reason, "Scale", "%s", msg)
	}
	_ = writeStatus(ctx, r.Client, hs, statusMergeFrom(before.Status, hs.Status))
}
