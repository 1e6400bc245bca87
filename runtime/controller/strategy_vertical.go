package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// VerticalStrategyReconciler acts on VerticalElasticityStrategies: it moves the
// CPU and memory requests of the target's pod template one step per SLO output
// (slo.Vertical), within the static bounds, waiting out the stabilisation
// window of the direction since status.lastScaleTime. With staticConfig.container
// set only that container changes; otherwise the pod's total request is
// stepped and spread over the containers in proportion to their requests.
// Limits, where set, keep their ratio to the request. With
// staticConfig.resizePolicy InPlaceOrRecreate and a Deployment target the
// size goes into its hca.dev/inplace-resources annotation instead of the pod
// template, and InPlaceResizeReconciler resizes the running pods in place.
//
// Like the horizontal strategy it acts once per output (generation vs
// status.observedGeneration); a held decision is retried when its window ends.
//
// +kubebuilder:rbac:groups=hca.dev,resources=verticalelasticitystrategies,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=verticalelasticitystrategies/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets,verbs=get;list;watch;patch;update
type VerticalStrategyReconciler struct {
	Client    client.Client
	Clock     clock.PassiveClock
	Recorder  events.EventRecorder
	Telemetry *telemetry.Metrics
	// Class selects the strategy objects handled: those whose ClassLabel equals
	// it ("" : those without the label).
	Class string
	// MaxConcurrentReconciles (default DefaultStrategyConcurrency).
	MaxConcurrentReconciles int

	mu   sync.Mutex
	held map[types.NamespacedName]int64 // generation whose decision a window held
}

// SetupWithManager registers the controller.
func (r *VerticalStrategyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).For(&hcav1.VerticalElasticityStrategy{}, builder.WithPredicates(classPredicate(r.Class))).
		WithOptions(strategyOptions(r.MaxConcurrentReconciles)).Named("verticalelasticitystrategy").Complete(r)
}

// verticalConfig converts the static configuration for slo.Vertical.
func verticalConfig(vs *hcav1.VerticalElasticityStrategy) slo.VerticalConfig {
	sc := vs.Spec.StaticConfig
	up, down := windows(vs.Spec.Stabilization)
	cfg := slo.VerticalConfig{
		Min:            slo.Resources{CPUMilli: sc.MinCPU.MilliValue(), MemoryBytes: sc.MinMemory.Value()},
		Max:            slo.Resources{CPUMilli: sc.MaxCPU.MilliValue(), MemoryBytes: sc.MaxMemory.Value()},
		ScaleUpPercent: slo.DefaultStepPercent, ScaleDownPercent: slo.DefaultStepPercent,
		CPUStepMilli: 100, MemoryStepBytes: 64 << 20,
		Tolerance:     tolerance(vs.Spec.SLOOutput),
		ScaleUpWindow: up, ScaleDownWindow: down,
	}
	if sc.CPUStep != nil {
		cfg.CPUStepMilli = sc.CPUStep.MilliValue()
	}
	if sc.MemoryStep != nil {
		cfg.MemoryStepBytes = sc.MemoryStep.Value()
	}
	return cfg
}

// podRequests sums the requests of the configured container (or all).
func podRequests(spec *corev1.PodSpec, container string) (slo.Resources, error) {
	var r slo.Resources
	found := container == ""
	for _, c := range spec.Containers {
		if container != "" && c.Name != container {
			continue
		}
		found = true
		r.CPUMilli += c.Resources.Requests.Cpu().MilliValue()
		r.MemoryBytes += c.Resources.Requests.Memory().Value()
	}
	if !found {
		return r, fmt.Errorf("%w: staticConfig.container %q is not a container of the target's pod template: fix the name or unset it", slo.ErrInvalidObjective, container)
	}
	return r, nil
}

// setRequests writes want into the pod spec: into the named container, or
// spread over all containers in proportion to their current requests (the
// first container takes what rounding leaves). Limits keep their ratio.
func setRequests(spec *corev1.PodSpec, container string, cur, want slo.Resources) {
	type res struct {
		name      corev1.ResourceName
		cur, want int64
		milli     bool
	}
	for _, rr := range []res{{corev1.ResourceCPU, cur.CPUMilli, want.CPUMilli, true}, {corev1.ResourceMemory, cur.MemoryBytes, want.MemoryBytes, false}} {
		if rr.cur == rr.want {
			continue
		}
		var idx []int
		for i, c := range spec.Containers {
			if container == "" || c.Name == container {
				idx = append(idx, i)
			}
		}
		assigned := int64(0)
		values := make([]int64, len(idx))
		for j, i := range idx {
			if j == 0 {
				continue
			}
			q := spec.Containers[i].Resources.Requests[rr.name]
			v := q.Value()
			if rr.milli {
				v = q.MilliValue()
			}
			if rr.cur > 0 {
				values[j] = v * rr.want / rr.cur
			}
			assigned += values[j]
		}
		if len(values) > 0 {
			values[0] = rr.want - assigned
		}
		for j, i := range idx {
			c := &spec.Containers[i]
			old := c.Resources.Requests[rr.name]
			var q resource.Quantity
			if rr.milli {
				q = *resource.NewMilliQuantity(values[j], resource.DecimalSI)
			} else {
				q = *resource.NewQuantity(values[j], resource.BinarySI)
			}
			if c.Resources.Requests == nil {
				c.Resources.Requests = corev1.ResourceList{}
			}
			c.Resources.Requests[rr.name] = q
			if lim, ok := c.Resources.Limits[rr.name]; ok {
				oldV, limV := old.Value(), lim.Value()
				if rr.milli {
					oldV, limV = old.MilliValue(), lim.MilliValue()
				}
				newLim := values[j]
				if oldV > 0 {
					newLim = max(limV*values[j]/oldV, values[j])
				}
				if rr.milli {
					c.Resources.Limits[rr.name] = *resource.NewMilliQuantity(newLim, resource.DecimalSI)
				} else {
					c.Resources.Limits[rr.name] = *resource.NewQuantity(newLim, resource.BinarySI)
				}
			}
		}
	}
}

// Reconcile decides and patches the pod template once per SLO output.
func (r *VerticalStrategyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var vs hcav1.VerticalElasticityStrategy
	if err := r.Client.Get(ctx, req.NamespacedName, &vs); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(r.held, req.NamespacedName)
			r.mu.Unlock()
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	r.mu.Lock()
	heldGen, held := r.held[req.NamespacedName]
	if vs.Labels[ClassLabel] != r.Class {
		r.mu.Unlock()
		return ctrl.Result{}, nil
	}
	r.mu.Unlock()
	retry := held && heldGen == vs.Generation
	if vs.Status.ObservedGeneration == vs.Generation && !retry {
		return ctrl.Result{}, nil
	}
	before := vs.DeepCopy()
	now := r.Clock.Now()

	obj := workload(vs.Namespace, vs.Spec.Target)
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		r.count("target")
		if apierrors.IsNotFound(err) {
			r.degrade(ctx, &vs, before, "TargetNotFound", fmt.Sprintf("%s %s/%s not found: create it or fix spec.target", vs.Spec.Target.Kind, vs.Namespace, vs.Spec.Target.Name))
			return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
		}
		return ctrl.Result{}, err
	}
	objBefore := obj.DeepCopyObject().(client.Object)
	var podSpec *corev1.PodSpec
	var deploy *appsv1.Deployment
	switch w := obj.(type) {
	case *appsv1.Deployment:
		// The size in force: the template's, or the one applied in place.
		deploy, podSpec = w, w.Spec.Template.Spec.DeepCopy()
		if v, ok := w.Annotations[InPlaceResourcesAnnotation]; ok {
			if want, err := ParseInPlaceResources(v); err == nil {
				applyInPlace(podSpec, want)
			}
		}
	case *appsv1.StatefulSet:
		podSpec = &w.Spec.Template.Spec
	}
	container := vs.Spec.StaticConfig.Container
	cur, err := podRequests(podSpec, container)
	var d slo.VerticalDecision
	if err == nil {
		var last time.Time
		if vs.Status.LastScaleTime != nil {
			last = vs.Status.LastScaleTime.Time
		}
		d, err = slo.Vertical(now, cur, float64(vs.Spec.SLOOutput.CompliancePercent), last, verticalConfig(&vs))
	}
	if err != nil {
		r.count("invalid")
		vs.Status.ObservedGeneration = vs.Generation
		r.setHeld(req.NamespacedName, 0, false)
		r.degrade(ctx, &vs, before, ReasonInvalidObjective, err.Error())
		return ctrl.Result{}, nil
	}
	direction := "hold"
	if d.Resources != cur {
		direction = "up"
		if d.Resources.CPUMilli < cur.CPUMilli || (d.Resources.CPUMilli == cur.CPUMilli && d.Resources.MemoryBytes < cur.MemoryBytes) {
			direction = "down"
		}
		setRequests(podSpec, container, cur, d.Resources)
		if deploy != nil {
			writeSize(deploy, podSpec, vs.Spec.StaticConfig.ResizePolicy)
		}
		if err := r.Client.Patch(ctx, obj, client.MergeFromWithOptions(objBefore, client.MergeFromWithOptimisticLock{})); err != nil {
			r.count("patch")
			return ctrl.Result{}, fmt.Errorf("patch requests of %s %s/%s: %w", vs.Spec.Target.Kind, vs.Namespace, vs.Spec.Target.Name, err)
		}
		t := metav1.NewTime(now)
		vs.Status.LastScaleTime = &t
	}
	r.setHeld(req.NamespacedName, vs.Generation, d.Stabilised)
	if r.Telemetry != nil {
		r.Telemetry.Decisions.WithLabelValues(req.String(), "slo-vertical", direction, "slo-compliance").Inc()
	}
	cpu := resource.NewMilliQuantity(d.Resources.CPUMilli, resource.DecimalSI)
	mem := resource.NewQuantity(d.Resources.MemoryBytes, resource.BinarySI)
	vs.Status.ObservedGeneration = vs.Generation
	vs.Status.CurrentCPU, vs.Status.CurrentMemory = cpu, mem
	msg := fmt.Sprintf("compliance %d%%: %s; cpu %dm -> %s, memory %d -> %s", vs.Spec.SLOOutput.CompliancePercent, d.Reason, cur.CPUMilli, cpu.String(), cur.MemoryBytes, mem.String())
	meta.SetStatusCondition(&vs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Decided", Message: msg, ObservedGeneration: vs.Generation})
	meta.SetStatusCondition(&vs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: "Decided", ObservedGeneration: vs.Generation})
	// Every resize is an Event; a hold only when a window held a proposed
	// step back, and once per output, not at each retry (holdEvent).
	if reason, _ := holdEvent(direction != "hold", d.Stabilised, nil); r.Recorder != nil && reason != "" && !(reason == "Held" && retry) {
		if reason == "Scaled" {
			reason = "Resized"
		}
		r.Recorder.Eventf(&vs, nil, corev1.EventTypeNormal, reason, "Resize", "%s", msg)
	}
	if err := writeStatus(ctx, r.Client, &vs, statusMergeFrom(before.Status, vs.Status)); err != nil {
		r.count("status")
		return ctrl.Result{}, fmt.Errorf("patch status of vertical strategy %s: %w", req, err)
	}
	if d.Stabilised {
		cfg := verticalConfig(&vs)
		w := cfg.ScaleDownWindow
		if d.Direction == slo.ScaleUp {
			w = cfg.ScaleUpWindow
		}
		if vs.Status.LastScaleTime != nil {
			return ctrl.Result{RequeueAfter: max(vs.Status.LastScaleTime.Add(w).Sub(now), time.Second)}, nil
		}
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	return ctrl.Result{}, nil
}

// writeSize applies a new pod size to a Deployment: with resizePolicy
// InPlaceOrRecreate into the hca.dev/inplace-resources annotation (the pods
// are resized in place by InPlaceResizeReconciler, the template is left as
// it is), otherwise into the pod template (a rolling update), dropping an
// annotation left by an earlier in-place size.
func writeSize(d *appsv1.Deployment, spec *corev1.PodSpec, policy string) {
	if policy == string(scaling.ResizeInPlaceOrRecreate) {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[InPlaceResourcesAnnotation] = FormatInPlaceResources(spec)
		return
	}
	d.Spec.Template.Spec = *spec
	delete(d.Annotations, InPlaceResourcesAnnotation)
}

func (r *VerticalStrategyReconciler) setHeld(key types.NamespacedName, gen int64, held bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held == nil {
		r.held = map[types.NamespacedName]int64{}
	}
	if held {
		r.held[key] = gen
	} else {
		delete(r.held, key)
	}
}

func (r *VerticalStrategyReconciler) count(kind string) {
	if r.Telemetry != nil {
		r.Telemetry.Errors.WithLabelValues("vertical-strategy", kind).Inc()
	}
}

func (r *VerticalStrategyReconciler) degrade(ctx context.Context, vs, before *hcav1.VerticalElasticityStrategy, reason, msg string) {
	meta.SetStatusCondition(&vs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: vs.Generation})
	meta.SetStatusCondition(&vs.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: vs.Generation})
	if r.Recorder != nil {
		r.Recorder.Eventf(vs, nil, corev1.EventTypeWarning, reason, "Resize", "%s", msg)
	}
	_ = writeStatus(ctx, r.Client, vs, statusMergeFrom(before.Status, vs.Status))
}
