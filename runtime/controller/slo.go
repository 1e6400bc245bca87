package controller

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// SLOReconciler is the SLO control loop (Polaris' SLO controller): a watch
// loop over ServiceLevelObjectives feeding an evaluation loop (see slo_eval.go)
// that reads every due SLO's metrics in one batch at its evaluationInterval.
// Each result is written here: status (currentValue, compliancePercent,
// lastEvaluationTime, conditions) and the strategy object named after the SLO
// (HorizontalElasticityStrategy, VerticalElasticityStrategy or
// BurstElasticityStrategy carrying the compliance; or a
// MultiObjectiveElasticityStrategy aiming at the latency threshold, which
// measures for itself and whose model ConfigMap must exist). It knows
// nothing of how strategies act; switching spec.elasticityStrategy.kind
// deletes the old object and writes the new one.
//
// Missing data (no sample, NaN, errors, an unreachable source) never reaches a
// strategy: the strategy object keeps its last output, and the SLO's
// MetricsAvailable=False and Degraded=True conditions say why.
//
// +kubebuilder:rbac:groups=hca.dev,resources=servicelevelobjectives,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=servicelevelobjectives/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=hca.dev,resources=horizontalelasticitystrategies;verticalelasticitystrategies;burstelasticitystrategies;multiobjectiveelasticitystrategies,verbs=get;list;watch;create;patch;update;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=burstpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=hybridclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets,verbs=get;list;watch
type SLOReconciler struct {
	Client client.Client
	// Reader reads targets and prices for cost efficiency (default Client,
	// the manager's cache: no API read per evaluation).
	Reader client.Reader
	// Source reads the metrics (nil: every SLO is Degraded with NoMetricSource).
	Source metrics.Source
	// Clock schedules evaluations (default the real clock).
	Clock clock.Clock
	// Queries selects the workloads' series (zero: the lab exporter's names, 1m window).
	Queries   SLOQueries
	Recorder  events.EventRecorder
	Telemetry *telemetry.Metrics
	// MaxConcurrentReconciles bounds parallel status/strategy writes
	// (default DefaultSLOConcurrency).
	MaxConcurrentReconciles int
	// Class selects the SLOs this controller handles: those whose ClassLabel
	// equals it (the default "" handles the SLOs without the label). Several
	// runtimes can share a cluster this way, e.g. a test's beside a deployed one.
	Class string
	// StatusHeartbeat bounds how long an evaluation may leave the status
	// unwritten when only currentValue and lastEvaluationTime would change
	// (default DefaultSLOStatusHeartbeat); a change of compliance, strategy
	// or conditions is written at once. 1ns writes every evaluation.
	StatusHeartbeat time.Duration

	eval *sloEvaluator
}

// DefaultSLOConcurrency is how many SLOs are reconciled at once. A new SLO's
// first reconcile waits on two writes (its strategy object and its status):
// with 8 at a time, make bench-load's 10,000 SLOs took 15 to 20 minutes to
// all be Ready on a busy lab, about 10 a second (the burst controller's 32,
// DefaultBurstConcurrency, for the same reason).
const DefaultSLOConcurrency = 32

// DefaultSLOStatusHeartbeat is the default StatusHeartbeat: the kubelet's
// nodeStatusReportFrequency, which reports an unchanged node status every
// 5 minutes and a changed one at once. At 10,000 SLOs of 20 s it turns 500
// status writes per second into at most 33 while nothing changes.
const DefaultSLOStatusHeartbeat = 5 * time.Minute

// SetupWithManager registers the watch loop and the evaluation loop.
func (r *SLOReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Reader == nil {
		r.Reader = r.Client
	}
	if r.MaxConcurrentReconciles <= 0 {
		r.MaxConcurrentReconciles = DefaultSLOConcurrency
	}
	if r.StatusHeartbeat <= 0 {
		r.StatusHeartbeat = DefaultSLOStatusHeartbeat
	}
	r.eval = newSLOEvaluator(r.Source, r.Reader, r.Clock, r.Queries, r.Telemetry)
	r.eval.heartbeat = r.StatusHeartbeat
	if err := mgr.Add(r.eval); err != nil {
		return fmt.Errorf("add SLO evaluation loop: %w", err)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&hcav1.ServiceLevelObjective{}, builder.WithPredicates(predicate.GenerationChangedPredicate{}, classPredicate(r.Class))).
		WatchesRawSource(source.Channel(r.eval.events, sloEvaluatedHandler()))
	// A strategy object deleted or edited by someone else gets the SLO's
	// latest result written again at once: the evaluator wakes the
	// reconciler only for results that change what it writes
	// (sloResultDue), so the next evaluation would not.
	for _, obj := range strategyKinds() {
		b = b.Watches(obj, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &hcav1.ServiceLevelObjective{}, handler.OnlyControllerOwner()),
			builder.WithPredicates(sloStrategyPredicate()))
	}
	return b.WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Named("servicelevelobjective").
		Complete(r)
}

// sloStrategyPredicate lets through the deletion of a strategy object and a
// change of its spec or labels (the reconciler's own writes included: it
// then finds nothing to write), not its creation (the reconciler's) nor its
// status (the strategy's controller).
func sloStrategyPredicate() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() || !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels())
		},
	}
}

// sloEvaluatedHandler enqueues an SLO whose evaluation result is ready at
// the priority the initial list of SLOs gets (handler.LowPriority), not
// above it. An SLO is evaluated only once a reconcile registered it; with
// results at the default priority, the SLOs already registered (each back
// every 20 s) starve those the initial list queued whenever the API server
// writes fewer statuses a second than they come back (make bench-load
// stopped at 4,817 of 10,000 SLOs Ready, 5,240 never reconciled). At one
// priority the queue is first in, first out, so every SLO gets its turn.
// Created and changed SLOs (the For watch) still come first. Without a
// priority queue, a plain Add.
func sloEvaluatedHandler() handler.EventHandler {
	return handler.Funcs{GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e.Object)}
		if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
			pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, req)
			return
		}
		q.Add(req)
	}}
}

// Reconcile registers the SLO with the evaluation loop, removes the objects of
// strategies it no longer uses, and writes its latest evaluation, if any.
func (r *SLOReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s hcav1.ServiceLevelObjective
	if err := r.Client.Get(ctx, req.NamespacedName, &s); err != nil {
		if apierrors.IsNotFound(err) {
			r.eval.remove(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !s.DeletionTimestamp.IsZero() || s.Labels[ClassLabel] != r.Class {
		r.eval.remove(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	r.eval.upsert(sloEvalCopy(&s))
	before := s.Status.DeepCopy() // the status written before: the rest is the cache's

	want := strategyRef(&s)
	// The objects of other strategy kinds are removed before the status
	// names the wanted one (apply), so once it does there are none to look
	// for: three cache reads fewer per reconcile (make bench-load).
	if s.Status.Strategy == nil || *s.Status.Strategy != want {
		if err := removeStrategies(ctx, r.Client, &s); err != nil {
			r.countError("strategy-cleanup")
			return ctrl.Result{}, err
		}
	}
	if s.Status.Strategy != nil && *s.Status.Strategy != want {
		r.event(&s, corev1.EventTypeNormal, "StrategySwitched", "Switch", "strategy %s %s replaced by %s %s", s.Status.Strategy.Kind, s.Status.Strategy.Name, want.Kind, want.Name)
		s.Status.Strategy = nil
	}

	res := r.eval.result(req.NamespacedName)
	if res != nil && res.generation == s.Generation {
		if err := r.apply(ctx, &s, res); err != nil {
			return ctrl.Result{}, err
		}
	}
	written := before.LastEvaluationTime
	if sloStatusDue(before, &s.Status, r.Clock.Now(), r.StatusHeartbeat, heartbeatPhase(s.UID, r.StatusHeartbeat)) {
		if err := writeStatus(ctx, r.Client, &s, statusMergeFrom(*before, s.Status)); err != nil {
			r.countError("status")
			return ctrl.Result{}, fmt.Errorf("patch status of SLO %s: %w", req.NamespacedName, err)
		}
		// Once per transition: the status written says it from now on.
		logSLOMetricsTransition(ctx, req.NamespacedName, before.Conditions, s.Status.Conditions)
		written = s.Status.LastEvaluationTime
	}
	r.eval.written(req.NamespacedName, s.UID, written)
	return ctrl.Result{}, nil
}

// logSLOMetricsTransition logs the SLO's metrics lost (warn) or back
// (info) when its MetricsAvailable condition changed so from before to after.
func logSLOMetricsTransition(ctx context.Context, slo client.ObjectKey, before, after []metav1.Condition) {
	a := meta.FindStatusCondition(after, hcav1.ConditionMetricsAvailable)
	if lost, back := conditionChange(meta.FindStatusCondition(before, hcav1.ConditionMetricsAvailable), a); lost || back {
		logTransition(ctx, a, lost, "slo", slo.String())
	}
}

// sloStatusDue says whether after must be written over before at now: when
// anything but currentValue and lastEvaluationTime differs, at once; when only
// those do, once the SLO's heartbeat instant after lastEvaluationTime as
// written has come (heartbeatDue; or it was never written). It is pure.
func sloStatusDue(before, after *hcav1.ServiceLevelObjectiveStatus, now time.Time, heartbeat, phase time.Duration) bool {
	if equality.Semantic.DeepEqual(before, after) {
		return false
	}
	b, a := *before, *after // shallow: only top-level fields are cleared
	b.CurrentValue, a.CurrentValue = "", ""
	b.LastEvaluationTime, a.LastEvaluationTime = nil, nil
	if !equality.Semantic.DeepEqual(b, a) {
		return true
	}
	return before.LastEvaluationTime == nil || heartbeatDue(before.LastEvaluationTime.Time, now, heartbeat, phase)
}

// heartbeatDue says whether a status written at last is due for its
// heartbeat at now: once now has reached the first instant after last that
// lies on the object's own heartbeat grid (phase + k × heartbeat). So no
// status goes unwritten for longer than heartbeat, and objects whose first
// statuses were written together (10,000 SLOs created in one apply) spread
// their heartbeats over the whole period instead of falling due together
// every heartbeat: make bench-load measured 53.5 SLO status writes a second
// on such a wave against a steady 33. It is pure.
func heartbeatDue(last, now time.Time, heartbeat, phase time.Duration) bool {
	if heartbeat <= 0 {
		return true
	}
	off := time.Duration((last.UnixNano() - int64(phase)) % int64(heartbeat))
	if off < 0 {
		off += heartbeat
	}
	return !now.Before(last.Add(heartbeat - off))
}

// heartbeatPhase is the object's offset on its heartbeat grid, in
// [0, heartbeat): a hash of its UID, so it stays put across restarts and
// spreads evenly over many objects.
func heartbeatPhase(uid types.UID, heartbeat time.Duration) time.Duration {
	if heartbeat <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(uid))
	return time.Duration(h.Sum64() % uint64(heartbeat))
}

// apply puts one evaluation result into s.Status and, when it has data, into
// the strategy object.
func (r *SLOReconciler) apply(ctx context.Context, s *hcav1.ServiceLevelObjective, res *sloResult) error {
	at := metav1.NewTime(res.at)
	s.Status.LastEvaluationTime = &at
	s.Status.ObservedGeneration = s.Generation
	set := func(typ string, status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: s.Generation})
	}
	if res.err != nil {
		reason := failureReason(res.err)
		msg := truncate(res.err.Error(), 1024)
		metricsStatus := metav1.ConditionFalse
		if reason == ReasonInvalidObjective || reason == ReasonEvaluationPanicked {
			metricsStatus = metav1.ConditionUnknown
		}
		changed := meta.FindStatusCondition(s.Status.Conditions, hcav1.ConditionDegraded)
		set(hcav1.ConditionMetricsAvailable, metricsStatus, reason, msg)
		set(hcav1.ConditionDegraded, metav1.ConditionTrue, reason, "holding the last strategy output: "+msg)
		set(hcav1.ConditionReady, metav1.ConditionFalse, reason, "the SLO could not be evaluated; see Degraded")
		if changed == nil || changed.Status != metav1.ConditionTrue || changed.Reason != reason {
			r.event(s, corev1.EventTypeWarning, reason, "Evaluate", "%s", msg)
		}
		return nil
	}
	if err := writeStrategy(ctx, r.Client, s, res.compliance); err != nil {
		r.countError("strategy-write")
		if failureReason(err) == ReasonInvalidObjective {
			set(hcav1.ConditionReady, metav1.ConditionFalse, "StrategyInvalid", truncate(err.Error(), 1024))
			s.Status.CurrentValue, s.Status.CompliancePercent = res.value, ptrTo(res.compliance)
			return nil
		}
		return err
	}
	ref := strategyRef(s)
	s.Status.Strategy = &ref
	s.Status.CurrentValue = truncate(res.value, 64)
	s.Status.CompliancePercent = ptrTo(res.compliance)
	set(hcav1.ConditionMetricsAvailable, metav1.ConditionTrue, ReasonEvaluated, "the SLO's metrics returned a value")
	set(hcav1.ConditionDegraded, metav1.ConditionFalse, ReasonEvaluated, "")
	msg := fmt.Sprintf("compliance %d%% written to %s %s", res.compliance, ref.Kind, ref.Name)
	if ref.Kind == KindMultiObjective {
		msg = fmt.Sprintf("compliance %d%%; %s %s aims at the threshold", res.compliance, ref.Kind, ref.Name)
	}
	set(hcav1.ConditionReady, metav1.ConditionTrue, ReasonEvaluated, msg)
	return nil
}

func (r *SLOReconciler) countError(kind string) {
	if r.Telemetry != nil {
		r.Telemetry.Errors.WithLabelValues("slo", kind).Inc()
	}
}

func (r *SLOReconciler) event(obj *hcav1.ServiceLevelObjective, typ, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, typ, reason, action, note, args...)
	}
}

func ptrTo[T any](v T) *T { return &v }

// ClassLabel assigns an SLO, and the strategy objects it writes, to the
// runtime whose controllers have that Class (see SLOReconciler.Class).
const ClassLabel = "hca.dev/class"

func classPredicate(class string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[ClassLabel] == class })
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// sloEvalCopy is what the evaluation loop keeps of an SLO between
// evaluations: its identity and spec, not its status, annotations or
// managedFields (the informer holds the whole object already; make
// bench-load's 10,000 whole copies were 14.5 MB of a 184 MB heap).
func sloEvalCopy(s *hcav1.ServiceLevelObjective) *hcav1.ServiceLevelObjective {
	return &hcav1.ServiceLevelObjective{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, UID: s.UID, Generation: s.Generation},
		Spec:       *s.Spec.DeepCopy(),
	}
}
