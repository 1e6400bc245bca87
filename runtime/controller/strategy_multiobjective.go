package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// The MultiObjective strategy's permissions (besides rbac.go's Deployments,
// ConfigMaps and Events).

// +kubebuilder:rbac:groups=hca.dev,resources=multiobjectiveelasticitystrategies,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=multiobjectiveelasticitystrategies/status,verbs=get;patch;update

// instantQuerier is what the MultiObjective strategy needs of a metric source.
type instantQuerier interface {
	Instant(ctx context.Context, q metrics.Expr, at time.Time) (metrics.Vector, error)
}

// MultiObjectiveStrategyReconciler acts on MultiObjectiveElasticityStrategies
// (MOHA). Every spec.interval it gets the strategy, its target Deployment and
// the model ConfigMap; measures request rate, response time and CPU and
// memory usage (four PromQL queries); decides with moha.Step (the
// thresholds, eq. 1's 12 variations and the load-sized replicas predicted by
// the model, ranked by TOPSIS, the best within the response-time limit
// chosen; increases at once unless, within the cooldown, the model puts the
// configuration just applied within the thresholds (Settling), a cooldown
// and a hysteresis for decreases), the model's response time replaced by a
// remembered measurement where the status has one for that pod size at a
// similar load per pod (status.remembered: each round whose configuration
// had settled for two intervals or the cooldown adds its measurement,
// moha.Memory, moha.Loop.SettleTime); and,
// when the winner differs from the current configuration,
// patches the Deployment's replicas and the container's CPU and memory
// (requests = limits) in one optimistic-locked patch, which rolls the pods;
// with spec.resizePolicy InPlaceOrRecreate (and no BurstPolicy) the size goes
// into the hca.dev/inplace-resources annotation instead of the template, in
// the same patch, and InPlaceResizeReconciler resizes the pods in place.
//
// With a BurstPolicy on the Deployment (its hca.dev/burst-total annotation),
// the replicas are the total across clusters: read from that annotation and
// written as the hca.dev/burst-requested-total annotation, which the burst
// controller takes as the total and distributes (spec.replicas is then the
// primary's share, the burst controller's to write).
//
// In: the strategy, the Deployment, the ConfigMap, metrics. Out: the
// Deployment's spec.replicas (or requested total) and container resources, the strategy's status
// (measured inputs, the chosen variation and every candidate's scores,
// Ready/Degraded), Events.
type MultiObjectiveStrategyReconciler struct {
	Client   client.Client
	Source   instantQuerier // nil: no metrics, the strategy is Degraded
	Clock    clock.PassiveClock
	Recorder events.EventRecorder
	// Telemetry counts decisions (algorithm "moha", direction "change" or
	// "hold") and errors (nil: none).
	Telemetry *telemetry.Metrics
	// Class selects the strategy objects handled (see ClassLabel).
	Class string
	// MaxConcurrentReconciles (default DefaultStrategyConcurrency).
	MaxConcurrentReconciles int

	mu     sync.Mutex
	models map[string]cachedModel // by namespace/name/key of the ConfigMap
}

type cachedModel struct {
	resourceVersion string
	model           *moha.Model
}

// SetupWithManager registers the controller.
func (r *MultiObjectiveStrategyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&hcav1.MultiObjectiveElasticityStrategy{}, builder.WithPredicates(classPredicate(r.Class))).
		WithOptions(strategyOptions(r.MaxConcurrentReconciles)).Named("multiobjectiveelasticitystrategy").Complete(r)
}

// Reasons of the strategy's conditions besides moha.StepReason.
const (
	reasonTargetNotFound     = "TargetNotFound"
	reasonModelInvalid       = "ModelInvalid"
	reasonMetricsUnavailable = "MetricsUnavailable"
	reasonInvalidState       = "InvalidState"
)

// Reconcile runs one round: get -> decide -> patch.
func (r *MultiObjectiveStrategyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s hcav1.MultiObjectiveElasticityStrategy
	if err := r.Client.Get(ctx, req.NamespacedName, &s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if s.Labels[ClassLabel] != r.Class || !s.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	interval := policy.MultiObjectiveInterval(&s.Spec)
	now := r.Clock.Now()
	// A round triggered by our own status patch comes early: wait out the
	// interval since the last decision.
	if last := s.Status.LastDecisionTime; last != nil && s.Status.ObservedGeneration == s.Generation {
		if wait := last.Add(interval).Sub(now); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	before := s.DeepCopy()
	again := ctrl.Result{RequeueAfter: interval}

	var dep appsv1.Deployment
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: string(s.Spec.Target.Name)}, &dep); err != nil {
		if apierrors.IsNotFound(err) {
			return r.degrade(ctx, again, &s, before, now, reasonTargetNotFound, fmt.Sprintf("Deployment %s/%s not found: create it or fix spec.target.name", s.Namespace, s.Spec.Target.Name))
		}
		return ctrl.Result{}, fmt.Errorf("get target of multi-objective strategy %s: %w", req, err)
	}
	// The size in force: the template's, or the one applied in place.
	original := dep.DeepCopy()
	if v, ok := dep.Annotations[InPlaceResourcesAnnotation]; ok {
		if want, err := ParseInPlaceResources(v); err == nil {
			applyInPlace(&dep.Spec.Template.Spec, want)
		}
	}
	model, err := r.model(ctx, &s)
	if err != nil {
		return r.degrade(ctx, again, &s, before, now, reasonModelInvalid, err.Error())
	}
	idx, err := containerIndex(&dep.Spec.Template.Spec, s.Spec.Container)
	if err != nil {
		return r.degrade(ctx, again, &s, before, now, reasonInvalidState, err.Error())
	}
	state, bursting, err := currentConfig(&dep, idx)
	if err != nil {
		return r.degrade(ctx, again, &s, before, now, reasonInvalidState, err.Error())
	}
	measured, err := r.measure(ctx, &s, now)
	if err != nil {
		return r.degrade(ctx, again, &s, before, now, reasonMetricsUnavailable, err.Error())
	}
	state.RequestsPerSecond, state.ResponseTimeMs = measured[0], measured[1]
	state.CPUUsagePercent, state.MemoryUsagePercent = measured[2], measured[3]
	s.Status.Measured = map[string]string{
		"requestsPerSecond": decimal(measured[0]), "responseTimeMillis": decimal(measured[1]),
		"cpuUsagePercent": decimal(measured[2]), "memoryUsagePercent": decimal(measured[3]),
	}

	round, err := moha.Round(moha.NewPerPod(model), state, policy.MultiObjectiveLoop(&s.Spec), historyFromStatus(&s.Status), interval, now)
	if round.Remembered {
		s.Status.Remembered = memoryToStatus(round.History.Memory)
	}
	if err != nil {
		return r.degrade(ctx, again, &s, before, now, reasonInvalidState, err.Error())
	}
	step := round.StepResult

	if step.Changed() {
		patchBase := original
		setConfig(&dep, idx, step, bursting, state.Replicas)
		// The size goes into the template (Recreate, or a BurstPolicy whose
		// copies follow the template) or the in-place annotation.
		sized := dep.Spec.Template.Spec.DeepCopy()
		dep.Spec.Template.Spec = *original.Spec.Template.Spec.DeepCopy()
		policy := s.Spec.ResizePolicy
		if bursting {
			policy = string(scaling.ResizeRecreate)
		}
		writeSize(&dep, sized, policy)
		if err := r.Client.Patch(ctx, &dep, client.MergeFromWithOptions(patchBase, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, fmt.Errorf("patch Deployment %s/%s of multi-objective strategy: %w", s.Namespace, dep.Name, err)
		}
		t := metav1.NewTime(now)
		s.Status.LastScaleTime = &t
	}
	if len(step.Decision.Ranked) > 0 {
		s.Status.Candidates = make([]hcav1.MultiObjectiveChoice, len(step.Decision.Ranked))
		for i, v := range step.Decision.Ranked {
			s.Status.Candidates[i] = choice(v)
		}
		s.Status.Chosen = &s.Status.Candidates[0]
	}
	s.Status.Replicas = int32(step.Replicas)
	s.Status.CPU = resource.NewMilliQuantity(int64(step.CPULimitMilli), resource.DecimalSI)
	s.Status.Memory = resource.NewQuantity(int64(step.MemoryLimitMiB)<<20, resource.BinarySI)
	msg := fmt.Sprintf("%s: %.4g req/s at %.4g ms, CPU %.3g %%, memory %.3g %%; %s", step.Reason,
		state.RequestsPerSecond, state.ResponseTimeMs, state.CPUUsagePercent, state.MemoryUsagePercent, describeChange(state, step))
	t := metav1.NewTime(now)
	s.Status.LastDecisionTime = &t
	s.Status.ObservedGeneration = s.Generation
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: string(step.Reason), Message: msg, ObservedGeneration: s.Generation})
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: string(step.Reason), ObservedGeneration: s.Generation})
	if r.Telemetry != nil {
		direction := "hold"
		if step.Changed() {
			direction = "change"
		}
		r.Telemetry.Decisions.WithLabelValues(req.String(), "moha", direction, string(step.Reason)).Inc()
	}
	if r.Recorder != nil && step.Changed() {
		r.Recorder.Eventf(&s, &dep, corev1.EventTypeNormal, "Scaled", "Scale", "%s", msg)
	}
	if err := writeStatus(ctx, r.Client, &s, statusMergeFrom(before.Status, s.Status)); err != nil {
		return ctrl.Result{}, fmt.Errorf("patch status of multi-objective strategy %s: %w", req, err)
	}
	return again, nil
}

// model loads the strategy's model from its ConfigMap, parsed once per
// ConfigMap resourceVersion.
func (r *MultiObjectiveStrategyReconciler) model(ctx context.Context, s *hcav1.MultiObjectiveElasticityStrategy) (*moha.Model, error) {
	ref := s.Spec.Model
	key := ref.Key
	if key == "" {
		key = "model.json"
	}
	var cm corev1.ConfigMap
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: string(ref.ConfigMapName)}, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("ConfigMap %s/%s of spec.model not found: create it with the file of `hca-runtime moha train` under key %q", s.Namespace, ref.ConfigMapName, key)
		}
		return nil, fmt.Errorf("get ConfigMap %s/%s of spec.model: %w", s.Namespace, ref.ConfigMapName, err)
	}
	cacheKey := s.Namespace + "/" + string(ref.ConfigMapName) + "/" + key
	r.mu.Lock()
	c, ok := r.models[cacheKey]
	r.mu.Unlock()
	if ok && c.resourceVersion == cm.ResourceVersion {
		return c.model, nil
	}
	data, ok := cm.Data[key]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s/%s has no key %q (spec.model.key): put the model file there", s.Namespace, ref.ConfigMapName, key)
	}
	m, err := moha.Load(bytes.NewReader([]byte(data)))
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s key %q (spec.model): %w", s.Namespace, ref.ConfigMapName, key, err)
	}
	r.mu.Lock()
	if r.models == nil {
		r.models = map[string]cachedModel{}
	}
	r.models[cacheKey] = cachedModel{resourceVersion: cm.ResourceVersion, model: m}
	r.mu.Unlock()
	return m, nil
}

// DefaultMultiObjectiveQueries are the queries of the four measured inputs
// when spec.metrics does not set them: the lab's (and loadsim's) metric names,
// by the pods' namespace and app labels. "$namespace" and "$name" are
// replaced by the target's.
var DefaultMultiObjectiveQueries = [4]string{
	`sum(rate(http_requests_total{namespace="$namespace",app="$name"}[1m]))`,
	`1000 * sum(rate(http_request_duration_seconds_sum{namespace="$namespace",app="$name"}[1m])) / sum(rate(http_request_duration_seconds_count{namespace="$namespace",app="$name"}[1m]))`,
	`100 * sum(rate(container_cpu_usage_seconds_total{namespace="$namespace",app="$name"}[1m])) / sum(loadsim_cpu_limit_cores{namespace="$namespace",app="$name"})`,
	`100 * sum(container_memory_working_set_bytes{namespace="$namespace",app="$name"}) / sum(loadsim_memory_limit_bytes{namespace="$namespace",app="$name"})`,
}

var multiObjectiveInputs = [4]string{"requestsPerSecond", "responseTimeMillis", "cpuUsagePercent", "memoryUsagePercent"}

// measure evaluates the four queries; each must give one finite sample.
func (r *MultiObjectiveStrategyReconciler) measure(ctx context.Context, s *hcav1.MultiObjectiveElasticityStrategy, now time.Time) ([4]float64, error) {
	var out [4]float64
	if r.Source == nil {
		return out, errors.New("no metric source: start hca-runtime with --prometheus-url")
	}
	qs := DefaultMultiObjectiveQueries
	if m := s.Spec.Metrics; m != nil {
		for i, v := range []string{m.RequestsPerSecond, m.ResponseTimeMillis, m.CPUUsagePercent, m.MemoryUsagePercent} {
			if v != "" {
				qs[i] = v
			}
		}
	}
	repl := strings.NewReplacer("$namespace", s.Namespace, "$name", string(s.Spec.Target.Name))
	var errs []error
	for i, q := range qs {
		vec, err := r.Source.Instant(ctx, metrics.Raw(repl.Replace(q)), now)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("spec.metrics.%s: %w", multiObjectiveInputs[i], err))
		case len(vec) != 1:
			errs = append(errs, fmt.Errorf("spec.metrics.%s: %d series, want 1: aggregate the query (sum, avg)", multiObjectiveInputs[i], len(vec)))
		default:
			out[i] = vec[0].Value
		}
	}
	return out, errors.Join(errs...)
}

func mib(q resource.Quantity) float64 { return policy.MiB(q) }

// containerIndex is the named container's index, or 0 when name is empty.
func containerIndex(spec *corev1.PodSpec, name string) (int, error) {
	if len(spec.Containers) == 0 {
		return 0, errors.New("the target's pod template has no container")
	}
	if name == "" {
		return 0, nil
	}
	for i, c := range spec.Containers {
		if c.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("spec.container %q is not a container of the target's pod template: fix the name or unset it", name)
}

// currentConfig reads the total replica count and the container's CPU and
// memory limits (its requests where no limit is set); bursting reports that a
// BurstPolicy distributes the Deployment's replicas (moha.CurrentReplicas).
func currentConfig(dep *appsv1.Deployment, idx int) (state moha.State, bursting bool, err error) {
	c := dep.Spec.Template.Spec.Containers[idx]
	get := func(name corev1.ResourceName) resource.Quantity {
		if q, ok := c.Resources.Limits[name]; ok {
			return q
		}
		return c.Resources.Requests[name]
	}
	cpu, mem := get(corev1.ResourceCPU), get(corev1.ResourceMemory)
	if cpu.IsZero() || mem.IsZero() {
		return moha.State{}, false, fmt.Errorf("container %q of Deployment %s/%s declares no CPU or memory limit (or request): set resources.limits.cpu and resources.limits.memory, the strategy's starting point", c.Name, dep.Namespace, dep.Name)
	}
	spec := int32(1)
	if dep.Spec.Replicas != nil {
		spec = *dep.Spec.Replicas
	}
	// With a BurstPolicy on the Deployment, the total is the policy's, not
	// the primary's share in spec.replicas.
	reps := moha.CurrentReplicas(spec, burstInt32Annotation(dep, BurstTotalAnnotation), burstInt32Annotation(dep, BurstRequestedTotalAnnotation))
	if reps.Current < 1 {
		return moha.State{}, false, fmt.Errorf("Deployment %s/%s is scaled to 0: the strategy measures running pods, scale it to at least 1", dep.Namespace, dep.Name)
	}
	return moha.State{CPULimitMilli: float64(cpu.MilliValue()), MemoryLimitMiB: mib(mem), Replicas: reps.Current}, reps.Bursting, nil
}

// setConfig writes the step's configuration: replicas, and the container's
// CPU and memory requests and limits (equal, the Guaranteed class). When a
// BurstPolicy distributes the Deployment (bursting), spec.replicas is the
// primary's share: a new total goes to BurstRequestedTotalAnnotation, which
// the burst controller takes as the total and distributes (the pod template
// change reaches the burst copies through it too).
func setConfig(dep *appsv1.Deployment, idx int, step moha.StepResult, bursting bool, current int) {
	replicas := int32(step.Replicas)
	switch {
	case !bursting:
		dep.Spec.Replicas = &replicas
	case step.Replicas != current:
		if dep.Annotations == nil {
			dep.Annotations = map[string]string{}
		}
		dep.Annotations[BurstRequestedTotalAnnotation] = strconv.Itoa(step.Replicas)
	}
	c := &dep.Spec.Template.Spec.Containers[idx]
	cpu := *resource.NewMilliQuantity(int64(step.CPULimitMilli), resource.DecimalSI)
	mem := *resource.NewQuantity(int64(step.MemoryLimitMiB)<<20, resource.BinarySI)
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	c.Resources.Limits[corev1.ResourceCPU], c.Resources.Requests[corev1.ResourceCPU] = cpu, cpu
	c.Resources.Limits[corev1.ResourceMemory], c.Resources.Requests[corev1.ResourceMemory] = mem, mem
}

func choice(v moha.Variation) hcav1.MultiObjectiveChoice {
	return hcav1.MultiObjectiveChoice{
		CPU:                         *resource.NewMilliQuantity(int64(v.CPULimitMilli), resource.DecimalSI),
		Memory:                      *resource.NewQuantity(int64(v.MemoryLimitMiB)<<20, resource.BinarySI),
		Replicas:                    int32(v.Replicas),
		From:                        string(v.From[0]) + "/" + string(v.From[1]) + "/" + string(v.From[2]),
		Closeness:                   strconv.FormatFloat(v.Closeness, 'f', 4, 64),
		PredictedResponseTimeMillis: decimal(v.Predicted[0]),
		PredictedCPUUsagePercent:    decimal(v.Predicted[1]),
		PredictedMemoryUsagePercent: decimal(v.Predicted[2]),
	}
}

// historyFromStatus is what the strategy's status keeps of earlier rounds,
// for moha.Round: the last decision's time and configuration, the last
// change's time and the remembered measurements.
func historyFromStatus(st *hcav1.MultiObjectiveElasticityStrategyStatus) moha.History {
	h := moha.History{Memory: memoryFromStatus(st.Remembered)}
	if st.LastScaleTime != nil {
		h.LastScale = st.LastScaleTime.Time
	}
	if st.LastDecisionTime != nil && st.CPU != nil && st.Memory != nil {
		h.DecidedAt = st.LastDecisionTime.Time
		h.Decided = moha.Configuration{CPULimitMilli: float64(st.CPU.MilliValue()), MemoryLimitMiB: mib(*st.Memory), Replicas: int(st.Replicas)}
	}
	return h
}

// memoryFromStatus is the status's remembered measurements as a moha.Memory
// of moha.DefaultMemoryCapacity; entries whose numbers do not parse are
// dropped.
func memoryFromStatus(ms []hcav1.MultiObjectiveMeasurement) moha.Memory {
	m := moha.Memory{Capacity: moha.DefaultMemoryCapacity}
	for _, e := range ms {
		rate, err1 := strconv.ParseFloat(e.RequestsPerSecondPerPod, 64)
		rt, err2 := strconv.ParseFloat(e.ResponseTimeMillis, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		m = m.Remember(moha.Measured{CPULimitMilli: float64(e.CPU.MilliValue()), MemoryLimitMiB: mib(e.Memory), RequestsPerSecondPerPod: rate, ResponseTimeMs: rt})
	}
	return m
}

// memoryToStatus is m for the status, the numbers as fixed-point decimals.
func memoryToStatus(m moha.Memory) []hcav1.MultiObjectiveMeasurement {
	out := make([]hcav1.MultiObjectiveMeasurement, len(m.Entries))
	for i, e := range m.Entries {
		out[i] = hcav1.MultiObjectiveMeasurement{
			CPU:                     *resource.NewMilliQuantity(int64(e.CPULimitMilli), resource.DecimalSI),
			Memory:                  *resource.NewQuantity(int64(e.MemoryLimitMiB)<<20, resource.BinarySI),
			RequestsPerSecondPerPod: strconv.FormatFloat(e.RequestsPerSecondPerPod, 'f', 2, 64),
			ResponseTimeMillis:      strconv.FormatFloat(e.ResponseTimeMs, 'f', 2, 64),
		}
	}
	return out
}

// decimal renders a measured or predicted value with 4 significant digits.
func decimal(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func describeChange(s moha.State, step moha.StepResult) string {
	if !step.Changed() {
		return fmt.Sprintf("kept %d x %gm/%gMi", s.Replicas, s.CPULimitMilli, s.MemoryLimitMiB)
	}
	return fmt.Sprintf("%d x %gm/%gMi -> %d x %gm/%gMi", s.Replicas, s.CPULimitMilli, s.MemoryLimitMiB, step.Replicas, step.CPULimitMilli, step.MemoryLimitMiB)
}

// degrade records a round that could not decide: Degraded with the reason,
// nothing applied.
func (r *MultiObjectiveStrategyReconciler) degrade(ctx context.Context, again ctrl.Result, s, before *hcav1.MultiObjectiveElasticityStrategy, now time.Time, reason, msg string) (ctrl.Result, error) {
	if r.Telemetry != nil {
		r.Telemetry.Errors.WithLabelValues("multi-objective-strategy", reason).Inc()
	}
	t := metav1.NewTime(now)
	s.Status.LastDecisionTime = &t
	s.Status.ObservedGeneration = s.Generation
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: s.Generation})
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: s.Generation})
	if r.Recorder != nil {
		r.Recorder.Eventf(s, nil, corev1.EventTypeWarning, reason, "Scale", "%s", msg)
	}
	if err := writeStatus(ctx, r.Client, s, statusMergeFrom(before.Status, s.Status)); err != nil {
		return ctrl.Result{}, fmt.Errorf("patch status of multi-objective strategy %s/%s: %w", s.Namespace, s.Name, err)
	}
	return again, nil
}
