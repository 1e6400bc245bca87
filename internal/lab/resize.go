package lab

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The lab's nodes are kwok's: no kubelet runs, so nobody reports the
// resources a container runs with (status.containerStatuses[].resources) and
// the apiserver refuses every pods/resize ("Pod running on node without
// support for resize"), and nobody would actuate an accepted resize. The
// Resizer plays that part of the kubelet (KEP-1287, GA in 1.35) truthfully:
//
//   - a running container's status reports the resources it was started with
//     (the spec's), so the node supports in-place resize;
//   - a resize (spec resources differing from the reported ones) that cannot
//     fit the node's allocatable at all is PodResizePending/Infeasible; one
//     that fits the node but not beside the other pods on it is
//     PodResizePending/Deferred (both as the kubelet words them);
//   - otherwise it is PodResizeInProgress for the resize delay, then the
//     status reports the new resources and the conditions are cleared.
//
// Not modelled: resizePolicy RestartContainer (a restart of the container),
// the kubelet's retry order of deferred resizes (all are retried every pass).

// DefaultPodResizeDelay is how long an accepted resize stays
// PodResizeInProgress. A kubelet acts on a pod's spec change at its next pod
// sync, which the update itself triggers; writing the cgroup takes
// milliseconds. No figure is published for it; 1 s covers the kubelet's
// status update of the pod (one more round trip) and keeps lab tests fast.
const DefaultPodResizeDelay = time.Second

// PodResizeDelayAnnotation, on a pod, sets its resize delay (a Go duration),
// for tests.
const PodResizeDelayAnnotation = "hca.dev/lab-pod-resize-delay"

// Resizer is the lab's kubelet for in-place pod resize on kwok nodes.
type Resizer struct {
	Clusters *Clusters
	// Delay is the resize delay of pods without PodResizeDelayAnnotation
	// (0: none; the lab daemon passes DefaultPodResizeDelay unless
	// $HCA_LAB_POD_RESIZE_DELAY says otherwise).
	Delay time.Duration
	// Interval between passes over the clusters' pods (0: 1 s).
	Interval time.Duration
	Logf     func(format string, args ...any)
}

// Run passes over every cluster's pods until ctx ends.
func (r *Resizer) Run(ctx context.Context) error {
	iv := r.Interval
	if iv <= 0 {
		iv = time.Second
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		states, err := r.Clusters.List()
		if err != nil {
			continue
		}
		for _, st := range states {
			if len(st.Dead()) > 0 {
				continue
			}
			cs, err := st.clientset()
			if err != nil {
				continue
			}
			if err := r.pass(ctx, cs, time.Now()); err != nil && r.Logf != nil && ctx.Err() == nil {
				r.Logf("resize: cluster %s: %v", st.Name, err)
			}
		}
	}
}

// pass applies one kubelet step to every running pod of one cluster.
func (r *Resizer) pass(ctx context.Context, cs kubernetes.Interface, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{ResourceVersion: "0", FieldSelector: "status.phase=Running"})
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	var nodes map[string]corev1.ResourceList
	used := map[string]corev1.ResourceList{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName == "" {
			continue
		}
		addTo(used, p.Spec.NodeName, podRequests(p, true))
	}
	delay := max(r.Delay, 0)
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName == "" || p.DeletionTimestamp != nil || !needsKubelet(p) {
			continue
		}
		if nodes == nil {
			nodes = map[string]corev1.ResourceList{}
			nl, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				return fmt.Errorf("list nodes: %w", err)
			}
			for _, n := range nl.Items {
				nodes[n.Name] = n.Status.Allocatable
			}
		}
		d := delay
		if v, ok := p.Annotations[PodResizeDelayAnnotation]; ok {
			if pd, err := time.ParseDuration(v); err == nil && pd >= 0 {
				d = pd
			}
		}
		others := subtract(used[p.Spec.NodeName], podRequests(p, true))
		st, changed := KubeletResizeStep(p, nodes[p.Spec.NodeName], others, now, d)
		if !changed {
			continue
		}
		q := p.DeepCopy()
		q.Status = *st
		if _, err := cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil && r.Logf != nil {
			r.Logf("resize: update status of pod %s/%s: %v", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// needsKubelet says whether a pod's status may need a kubelet step: a running
// container without reported resources, reported resources differing from
// the spec, or resize conditions.
func needsKubelet(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodResizePending || c.Type == corev1.PodResizeInProgress {
			return true
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running == nil {
			continue
		}
		if cs.Resources == nil {
			return true
		}
		if c := container(p, cs.Name); c != nil && !sameResources(c.Resources, *cs.Resources) {
			return true
		}
	}
	return false
}

// KubeletResizeStep is one step of the kubelet's in-place resize for a pod on
// a node of the given allocatable, beside other pods requesting others: the
// new status and whether it changed. Pure (now is the clock).
func KubeletResizeStep(p *corev1.Pod, allocatable, others corev1.ResourceList, now time.Time, delay time.Duration) (*corev1.PodStatus, bool) {
	st := p.Status.DeepCopy()
	changed := false
	resizing := false
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		c := container(p, cs.Name)
		if cs.State.Running == nil || c == nil {
			continue
		}
		if cs.Resources == nil { // started: report what it runs with
			cs.Resources = c.Resources.DeepCopy()
			cs.AllocatedResources = c.Resources.Requests.DeepCopy()
			changed = true
			continue
		}
		if !sameResources(c.Resources, *cs.Resources) {
			resizing = true
		}
	}
	if !resizing {
		for _, t := range []corev1.PodConditionType{corev1.PodResizePending, corev1.PodResizeInProgress} {
			if removeCondition(st, t) {
				changed = true
			}
		}
		return st, changed
	}
	want := podRequests(p, false)
	if short := shortOf(want, allocatable); short != "" {
		return st, setCondition(st, corev1.PodResizePending, corev1.PodReasonInfeasible, "Node didn't have enough capacity: "+short, now) || changed
	}
	free := subtract(allocatable, others)
	if short := shortOf(want, free); short != "" {
		return st, setCondition(st, corev1.PodResizePending, corev1.PodReasonDeferred, "Node didn't have enough resource: "+short, now) || changed
	}
	if removeCondition(st, corev1.PodResizePending) {
		changed = true
	}
	var since time.Time
	for _, c := range st.Conditions {
		if c.Type == corev1.PodResizeInProgress {
			since = c.LastTransitionTime.Time
		}
	}
	if since.IsZero() {
		setCondition(st, corev1.PodResizeInProgress, "", "", now)
		return st, true
	}
	if now.Sub(since) < delay {
		return st, changed
	}
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		if c := container(p, cs.Name); c != nil && cs.State.Running != nil {
			cs.Resources = c.Resources.DeepCopy()
			cs.AllocatedResources = c.Resources.Requests.DeepCopy()
		}
	}
	removeCondition(st, corev1.PodResizeInProgress)
	st.ObservedGeneration = p.Generation
	return st, true
}

func container(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

func sameResources(spec corev1.ResourceRequirements, got corev1.ResourceRequirements) bool {
	return apiequality.Semantic.DeepEqual(spec.Requests, got.Requests) && apiequality.Semantic.DeepEqual(spec.Limits, got.Limits)
}

// podRequests sums the CPU and memory requests of a pod's containers: those
// of its spec (desired), or, with allocated, those the kubelet reports where
// it does (what the node holds for the pod during a resize).
func podRequests(p *corev1.Pod, allocated bool) corev1.ResourceList {
	sum := corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		req := c.Resources.Requests
		if allocated {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.Name == c.Name && cs.AllocatedResources != nil {
					req = cs.AllocatedResources
				}
			}
		}
		for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := req[n]; ok {
				s := sum[n]
				s.Add(q)
				sum[n] = s
			}
		}
	}
	return sum
}

func addTo(m map[string]corev1.ResourceList, node string, add corev1.ResourceList) {
	if m[node] == nil {
		m[node] = corev1.ResourceList{}
	}
	for n, q := range add {
		s := m[node][n]
		s.Add(q)
		m[node][n] = s
	}
}

func subtract(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for n, q := range a {
		v := q.DeepCopy()
		if s, ok := b[n]; ok {
			v.Sub(s)
		}
		out[n] = v
	}
	return out
}

// shortOf names the first resource of want beyond have ("" : it fits).
func shortOf(want, have corev1.ResourceList) string {
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		w, ok := want[n]
		if !ok {
			continue
		}
		h := have[n]
		if w.Cmp(h) > 0 {
			return fmt.Sprintf("%s, requested: %s, capacity: %s", n, fmtQ(w), fmtQ(h))
		}
	}
	return ""
}

func fmtQ(q resource.Quantity) string { return q.String() }

func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, reason, msg string, now time.Time) bool {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Reason == reason && c.Message == msg && c.Status == corev1.ConditionTrue {
			return false
		}
		c.Reason, c.Message, c.Status = reason, msg, corev1.ConditionTrue
		c.LastTransitionTime = metav1.NewTime(now)
		return true
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(now), LastProbeTime: metav1.NewTime(now)})
	return true
}

func removeCondition(st *corev1.PodStatus, t corev1.PodConditionType) bool {
	for i, c := range st.Conditions {
		if c.Type == t {
			st.Conditions = append(st.Conditions[:i], st.Conditions[i+1:]...)
			return true
		}
	}
	return false
}
