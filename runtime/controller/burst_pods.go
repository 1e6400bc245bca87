package controller

// What the burst decision reads of the primary's pods and nodes: a pod's
// requests, scheduling state, readiness and activity, and the room left for
// more pods of a spec (burstPrimaryFit). Pure functions of API objects.

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// burstPodRequests is what one pod of spec requests: the sum over containers,
// at least the largest init container, plus the pod overhead (as the
// scheduler counts it, without sidecar subtleties).
func burstPodRequests(spec *corev1.PodSpec) scaling.PodRequests {
	var cpu, mem int64
	for _, c := range spec.Containers {
		cpu += c.Resources.Requests.Cpu().MilliValue()
		mem += c.Resources.Requests.Memory().Value()
	}
	for _, c := range spec.InitContainers {
		cpu = max(cpu, c.Resources.Requests.Cpu().MilliValue())
		mem = max(mem, c.Resources.Requests.Memory().Value())
	}
	cpu += spec.Overhead.Cpu().MilliValue()
	mem += spec.Overhead.Memory().Value()
	return scaling.PodRequests{CPUMilli: cpu, MemoryBytes: mem}
}

// burstPodScheduling classifies a pod: bound to a node, or Unschedulable since
// a time (PodScheduled False with reason Unschedulable).
func burstPodScheduling(p *corev1.Pod) (scheduled bool, unschedulable bool, since time.Time) {
	if p.Spec.NodeName != "" {
		return true, false, time.Time{}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			since := c.LastTransitionTime.Time
			if since.IsZero() {
				since = p.CreationTimestamp.Time
			}
			return false, true, since
		}
	}
	return false, false, time.Time{}
}

// burstPodReady reports the pod's Ready condition.
func burstPodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// burstPodActive is false for terminating and finished pods.
func burstPodActive(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// burstPrimaryFit estimates how many more pods of spec (requesting req) the
// cluster can schedule: over Ready, schedulable nodes that match the pod's
// nodeSelector and whose NoSchedule/NoExecute taints the pod tolerates, the sum
// of the pods that fit in each node's allocatable CPU, memory and pod count
// minus what its active pods request. Node affinity and topology spread are not
// modelled (an overestimate shows as Pending pods, which burst again).
func burstPrimaryFit(spec *corev1.PodSpec, req scaling.PodRequests, nodes []corev1.Node, pods []corev1.Pod) int32 {
	type usage struct{ cpu, mem, pods int64 }
	used := map[string]*usage{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		u := used[p.Spec.NodeName]
		if u == nil {
			u = &usage{}
			used[p.Spec.NodeName] = u
		}
		r := burstPodRequests(&p.Spec)
		u.cpu += r.CPUMilli
		u.mem += r.MemoryBytes
		u.pods++
	}
	names := make([]string, 0, len(nodes))
	byName := map[string]*corev1.Node{}
	for i := range nodes {
		names = append(names, nodes[i].Name)
		byName[nodes[i].Name] = &nodes[i]
	}
	sort.Strings(names)
	var total int64
	for _, name := range names {
		n := byName[name]
		if !burstNodeEligible(spec, n) {
			continue
		}
		u := used[name]
		if u == nil {
			u = &usage{}
		}
		fit := n.Status.Allocatable.Pods().Value() - u.pods
		if req.CPUMilli > 0 {
			fit = min(fit, (n.Status.Allocatable.Cpu().MilliValue()-u.cpu)/req.CPUMilli)
		}
		if req.MemoryBytes > 0 {
			fit = min(fit, (n.Status.Allocatable.Memory().Value()-u.mem)/req.MemoryBytes)
		}
		if fit > 0 {
			total += fit
		}
	}
	return int32(min(total, 1<<30))
}

func burstNodeEligible(spec *corev1.PodSpec, n *corev1.Node) bool {
	if n.Spec.Unschedulable || n.DeletionTimestamp != nil {
		return false
	}
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			ready = true
		}
	}
	if !ready {
		return false
	}
	// The scheduler's own matcher: spec.nodeSelector and the required node
	// affinity (terms ORed, expressions and fields ANDed).
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: *spec}).Match(n); err != nil || !ok {
		return false
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for j := range spec.Tolerations {
			if spec.Tolerations[j].ToleratesTaint(klog.Background(), t, false) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return false
		}
	}
	return true
}
