package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// InPlaceResourcesAnnotation, on a Deployment, is the pod size a strategy
// applies in place (resizePolicy InPlaceOrRecreate): a JSON object of
// container name to resources (requests and limits). The pod template keeps
// its own resources; InPlaceResizeReconciler brings the running pods to
// these.
const InPlaceResourcesAnnotation = "hca.dev/inplace-resources"

// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/resize,verbs=patch;update

// resourceDiscovery is what the in-place controller needs of discovery.
type resourceDiscovery interface {
	ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
}

// InPlaceResizeReconciler resizes the running pods of a Deployment in place.
// In: the Deployment's hca.dev/inplace-resources annotation (the size a
// strategy applies), its running pods (spec resources, the kubelet's reported
// resources and PodResizePending/PodResizeInProgress conditions) and whether
// the cluster serves pods/resize (discovered once). It decides with
// scaling.DecideInPlace. Out: pods/resize patches of the pods not yet at the
// size (new pods too: HCA has no admission webhook, so a pod created from the
// template starts at the template's size and is resized once it runs), or,
// on fallback, one optimistic-locked patch of the Deployment that writes the
// size into the pod template and drops the annotation (a rolling update);
// Events.
type InPlaceResizeReconciler struct {
	Client    client.Client
	Discovery resourceDiscovery // nil: built from the manager's config
	Clock     clock.PassiveClock
	Recorder  events.EventRecorder
	// DeferredBound and InProgressBound: see scaling.InPlaceInput (0: the
	// defaults).
	DeferredBound, InProgressBound time.Duration

	once      sync.Once
	supported bool
	mu        sync.Mutex
	refused   map[types.UID]string // the apiserver's refusal of a pod's resize
}

// SetupWithManager registers the controller: Deployments with the annotation,
// and their pods.
func (r *InPlaceResizeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Discovery == nil {
		d, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
		if err != nil {
			return fmt.Errorf("discovery client: %w", err)
		}
		r.Discovery = d
	}
	annotated := predicate.NewPredicateFuncs(func(o client.Object) bool {
		_, ok := o.GetAnnotations()[InPlaceResourcesAnnotation]
		return ok
	})
	return ctrl.NewControllerManagedBy(mgr).Named("inplaceresize").
		For(&appsv1.Deployment{}, builder.WithPredicates(annotated)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podDeployment)).
		Complete(r)
}

// podDeployment maps a pod to its Deployment: its ReplicaSet owner's name
// without the pod-template-hash suffix.
func podDeployment(_ context.Context, o client.Object) []reconcile.Request {
	hash := o.GetLabels()[appsv1.DefaultDeploymentUniqueLabelKey]
	for _, ref := range o.GetOwnerReferences() {
		if ref.Kind == "ReplicaSet" && hash != "" && strings.HasSuffix(ref.Name, "-"+hash) {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: strings.TrimSuffix(ref.Name, "-"+hash)}}}
		}
	}
	return nil
}

// ParseInPlaceResources reads the annotation's value.
func ParseInPlaceResources(v string) (map[string]corev1.ResourceRequirements, error) {
	var m map[string]corev1.ResourceRequirements
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return nil, fmt.Errorf("parse annotation %s: %w", InPlaceResourcesAnnotation, err)
	}
	return m, nil
}

// FormatInPlaceResources writes the annotation's value for the containers of spec.
func FormatInPlaceResources(spec *corev1.PodSpec) string {
	m := map[string]corev1.ResourceRequirements{}
	for _, c := range spec.Containers {
		m[c.Name] = corev1.ResourceRequirements{Requests: c.Resources.Requests, Limits: c.Resources.Limits}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// applyInPlace overlays the annotated resources on a pod spec.
func applyInPlace(spec *corev1.PodSpec, want map[string]corev1.ResourceRequirements) {
	for i := range spec.Containers {
		if w, ok := want[spec.Containers[i].Name]; ok {
			spec.Containers[i].Resources.Requests = w.Requests.DeepCopy()
			spec.Containers[i].Resources.Limits = w.Limits.DeepCopy()
		}
	}
}

func atSize(got corev1.ResourceRequirements, want corev1.ResourceRequirements) bool {
	return apiequality.Semantic.DeepEqual(got.Requests, want.Requests) && apiequality.Semantic.DeepEqual(got.Limits, want.Limits)
}

// podResize is what DecideInPlace reads of a running pod.
func podResize(p *corev1.Pod, want map[string]corev1.ResourceRequirements, refused string) scaling.PodResize {
	pr := scaling.PodResize{Name: p.Name, SpecAtTarget: true, StatusAtTarget: true, Refused: refused}
	for _, c := range p.Spec.Containers {
		if w, ok := want[c.Name]; ok && !atSize(c.Resources, w) {
			pr.SpecAtTarget = false
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w, ok := want[cs.Name]; ok && (cs.Resources == nil || !atSize(*cs.Resources, w)) {
			pr.StatusAtTarget = false
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch {
		case c.Type == corev1.PodResizePending && c.Reason == corev1.PodReasonInfeasible:
			pr.State, pr.Since = scaling.ResizeStateInfeasible, c.LastTransitionTime.Time
		case c.Type == corev1.PodResizePending:
			pr.State, pr.Since = scaling.ResizeStateDeferred, c.LastTransitionTime.Time
		case c.Type == corev1.PodResizeInProgress && pr.State == "":
			pr.State, pr.Since = scaling.ResizeStateInProgress, c.LastTransitionTime.Time
		}
	}
	return pr
}

// running says whether a pod runs its containers (a resize before that is
// refused by the apiserver or races the kubelet's start).
func running(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Spec.NodeName == "" || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running == nil || cs.Resources == nil {
			return false
		}
	}
	return len(p.Status.ContainerStatuses) > 0
}

// isSupported discovers pods/resize once.
func (r *InPlaceResizeReconciler) isSupported() bool {
	r.once.Do(func() {
		l, err := r.Discovery.ServerResourcesForGroupVersion("v1")
		if err != nil {
			return // unknown: in place is not attempted (retried at restart)
		}
		for _, res := range l.APIResources {
			if res.Name == "pods/resize" {
				r.supported = true
			}
		}
	})
	return r.supported
}

// Reconcile: get the Deployment and its pods, decide, resize or fall back.
func (r *InPlaceResizeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var d appsv1.Deployment
	if err := r.Client.Get(ctx, req.NamespacedName, &d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	v, ok := d.Annotations[InPlaceResourcesAnnotation]
	if !ok {
		return ctrl.Result{}, nil
	}
	want, err := ParseInPlaceResources(v)
	if err != nil {
		return r.fallback(ctx, &d, nil, err.Error())
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("selector of deployment %s: %w", req, err)
	}
	var pods corev1.PodList
	if err := r.Client.List(ctx, &pods, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return ctrl.Result{}, fmt.Errorf("list pods of deployment %s: %w", req, err)
	}
	byName := map[string]*corev1.Pod{}
	var in []scaling.PodResize
	waiting := false
	r.mu.Lock()
	for i := range pods.Items {
		p := &pods.Items[i]
		if !running(p) {
			waiting = waiting || p.DeletionTimestamp == nil
			continue
		}
		byName[p.Name] = p
		in = append(in, podResize(p, want, r.refused[p.UID]))
	}
	r.mu.Unlock()
	sort.Slice(in, func(i, j int) bool { return in[i].Name < in[j].Name })
	dec := scaling.DecideInPlace(scaling.InPlaceInput{Mode: scaling.ResizeInPlaceOrRecreate, Supported: r.isSupported(), Pods: in, Now: r.Clock.Now(),
		DeferredBound: r.DeferredBound, InProgressBound: r.InProgressBound})
	if dec.Fallback {
		return r.fallback(ctx, &d, want, dec.Reason)
	}
	for _, name := range dec.Resize {
		p := byName[name]
		q := p.DeepCopy()
		applyInPlace(&q.Spec, want)
		// A strategic merge patch carries only the containers' resources
		// (merged by name), whatever the cache keeps of the pod's spec.
		err := r.Client.SubResource("resize").Patch(ctx, q, client.StrategicMergeFrom(p))
		switch {
		case err == nil:
			r.event(&d, corev1.EventTypeNormal, "ResizedInPlace", "pod %s resized in place", name)
		case apierrors.IsForbidden(err) || apierrors.IsInvalid(err):
			// Refused for good (no room on the node, no support on it): the
			// next pass falls back.
			r.mu.Lock()
			if r.refused == nil {
				r.refused = map[types.UID]string{}
			}
			r.refused[p.UID] = errorMessage(err)
			r.mu.Unlock()
			return ctrl.Result{Requeue: true}, nil
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			return ctrl.Result{RequeueAfter: time.Second}, nil
		default:
			return ctrl.Result{}, fmt.Errorf("resize pod %s/%s: %w", p.Namespace, name, err)
		}
	}
	if !dec.Done || waiting {
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	return ctrl.Result{}, nil
}

func errorMessage(err error) string {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return s.Status().Message
	}
	return err.Error()
}

// fallback writes the size into the pod template and drops the annotation
// (one optimistic-locked patch: a rolling update).
func (r *InPlaceResizeReconciler) fallback(ctx context.Context, d *appsv1.Deployment, want map[string]corev1.ResourceRequirements, why string) (ctrl.Result, error) {
	before := d.DeepCopy()
	if want != nil {
		applyInPlace(&d.Spec.Template.Spec, want)
	}
	delete(d.Annotations, InPlaceResourcesAnnotation)
	if err := r.Client.Patch(ctx, d, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, fmt.Errorf("patch pod template of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	r.mu.Lock()
	r.refused = nil
	r.mu.Unlock()
	r.event(d, corev1.EventTypeWarning, "InPlaceResizeFallback", "rolling update instead of in-place resize: %s", why)
	return ctrl.Result{}, nil
}

func (r *InPlaceResizeReconciler) event(d *appsv1.Deployment, typ, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(d, nil, typ, reason, "Resize", format, args...)
	}
}
