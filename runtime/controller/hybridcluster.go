package controller

import (
	"context"
	"fmt"
	"time"

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
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// HybridClusterReconciler probes every HybridCluster: reachability, Kubernetes
// version, allocatable and free capacity. Placement reads what it writes.
type HybridClusterReconciler struct {
	Client   client.Client
	Members  *Members
	Clock    clock.PassiveClock
	Recorder events.EventRecorder
	// Interval between probes of one cluster (default 30 s).
	Interval time.Duration
	// Telemetry, when set, exports hca_cluster_reachable.
	Telemetry *telemetry.Metrics
	// Class selects the HybridClusters probed: those whose ClassLabel equals
	// it (the default "": those without the label). See ClassLabel.
	Class string
}

// SetupWithManager registers the prober.
func (r *HybridClusterReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&hcav1.HybridCluster{}, builder.WithPredicates(classPredicate(r.Class))).Named("hybridcluster").Complete(r)
}

// Reconcile probes one cluster and patches its status.
func (r *HybridClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	interval := r.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	var hc hcav1.HybridCluster
	if err := r.Client.Get(ctx, req.NamespacedName, &hc); err != nil {
		if apierrors.IsNotFound(err) {
			r.Members.Forget(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if hc.Labels[ClassLabel] != r.Class {
		return ctrl.Result{}, nil
	}
	before := hc.DeepCopy()
	now := metav1.NewTime(r.Clock.Now())
	probeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := r.probe(probeCtx, &hc)
	hc.Status.LastProbeTime = &now
	hc.Status.ObservedGeneration = hc.Generation
	cond := metav1.Condition{Type: hcav1.ConditionReachable, ObservedGeneration: hc.Generation}
	if err != nil {
		hc.Status.Reachable = false
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "ProbeFailed", err.Error()
	} else {
		hc.Status.Reachable = true
		hc.Status.KubernetesVersion = p.version
		hc.Status.Allocatable, hc.Status.Free = p.allocatable, p.free
		cond.Status, cond.Reason = metav1.ConditionTrue, "Probed"
		cond.Message = fmt.Sprintf("Kubernetes %s, %d nodes", p.version, p.nodes)
	}
	if r.Telemetry != nil {
		v := 0.0
		if hc.Status.Reachable {
			v = 1
		}
		r.Telemetry.ClusterReachable.WithLabelValues(hc.Name).Set(v)
	}
	changed := meta.SetStatusCondition(&hc.Status.Conditions, cond)
	if changed && r.Recorder != nil {
		kind, reason := corev1.EventTypeNormal, "Reachable"
		if !hc.Status.Reachable {
			kind, reason = corev1.EventTypeWarning, "Unreachable"
		}
		r.Recorder.Eventf(&hc, nil, kind, reason, "Probe", "%s", cond.Message)
	}
	if err := writeStatus(ctx, r.Client, &hc, statusMergeFrom(before.Status, hc.Status)); err != nil {
		return ctrl.Result{}, fmt.Errorf("patch status of hybrid cluster %s: %w", hc.Name, err)
	}
	return ctrl.Result{RequeueAfter: interval}, nil
}

type probeResult struct {
	version           string
	nodes             int
	allocatable, free corev1.ResourceList
}

func (r *HybridClusterReconciler) probe(ctx context.Context, hc *hcav1.HybridCluster) (*probeResult, error) {
	m, err := r.Members.Get(ctx, hc.Name)
	if err != nil {
		return nil, err
	}
	v, err := m.Kube.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("read server version: %w", err)
	}
	nodes, err := m.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	pods, err := m.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "status.phase!=Succeeded,status.phase!=Failed"})
	if err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	alloc, free := Capacity(nodes.Items, pods.Items, hc.Spec.Limits)
	return &probeResult{version: v.GitVersion, nodes: len(nodes.Items), allocatable: alloc, free: free}, nil
}

// Capacity sums the allocatable CPU, memory and pods of schedulable nodes and
// subtracts what scheduled pods request, never going below zero. Limits cap what
// the hybrid cloud may use there: free CPU and pods never exceed the limits minus
// what is already requested.
func Capacity(nodes []corev1.Node, pods []corev1.Pod, limits *hcav1.ClusterLimits) (allocatable, free corev1.ResourceList) {
	names := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods}
	alloc := corev1.ResourceList{}
	for _, n := range names {
		alloc[n] = *resource.NewQuantity(0, resource.DecimalSI)
	}
	schedulable := map[string]bool{}
	for _, node := range nodes {
		if node.Spec.Unschedulable {
			continue
		}
		schedulable[node.Name] = true
		for _, n := range names {
			q := alloc[n]
			q.Add(node.Status.Allocatable[n])
			alloc[n] = q
		}
	}
	used := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0"), corev1.ResourceMemory: resource.MustParse("0")}
	var podCount int64
	for _, p := range pods {
		if p.Spec.NodeName == "" || !schedulable[p.Spec.NodeName] || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		podCount++
		for _, c := range p.Spec.Containers {
			for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if q, ok := c.Resources.Requests[n]; ok {
					u := used[n]
					u.Add(q)
					used[n] = u
				}
			}
		}
	}
	used[corev1.ResourcePods] = *resource.NewQuantity(podCount, resource.DecimalSI)
	free = corev1.ResourceList{}
	for _, n := range names {
		f := alloc[n].DeepCopy()
		f.Sub(used[n])
		if f.Sign() < 0 {
			f = *resource.NewQuantity(0, f.Format)
		}
		free[n] = f
	}
	if limits != nil {
		if limits.MaxCPU != nil {
			capCPU := limits.MaxCPU.DeepCopy()
			capCPU.Sub(used[corev1.ResourceCPU])
			if capCPU.Sign() < 0 {
				capCPU = resource.MustParse("0")
			}
			if capCPU.Cmp(free[corev1.ResourceCPU]) < 0 {
				free[corev1.ResourceCPU] = capCPU
			}
		}
		if limits.MaxPods != nil {
			left := int64(*limits.MaxPods) - podCount
			if left < 0 {
				left = 0
			}
			if fp := free[corev1.ResourcePods]; left < fp.Value() {
				free[corev1.ResourcePods] = *resource.NewQuantity(left, resource.DecimalSI)
			}
		}
	}
	return alloc, free
}
