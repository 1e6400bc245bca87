package controller

import (
	"context"
	"math"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// burstReadiness is what the adaptive algorithm of a target needs beside
// its metrics: its horizons (policy.DeriveHorizons, from the figures the
// controller gathers) and the room, the replicas that start without a new
// node (scaling.Input.Room; nil: not gathered, because no replica waits
// for a node or the algorithm is not adaptive).
type burstReadiness struct {
	horizons policy.Horizons
	room     *int32
}

// burstAdaptive reports whether a policy runs the adaptive algorithm (no
// name is adaptive: policy.NewAlgorithm).
func burstAdaptive(p *hcav1.BurstPolicy) bool {
	return p.Spec.Algorithm.Name == "" || p.Spec.Algorithm.Name == hcav1.AlgorithmAdaptive
}

// burstPodStartup is the time pod took from its creation to Ready (false:
// not Ready, or no transition time).
func burstPodStartup(pod *corev1.Pod) (time.Duration, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			d := c.LastTransitionTime.Sub(pod.CreationTimestamp.Time)
			return d, d >= 0
		}
	}
	return 0, false
}

// burstNodeGroups is the names of the node groups of v's HybridCluster a
// policy may use (spot ones only with allowSpot).
func burstNodeGroups(v *burstView, allowSpot bool) []string {
	if v.hc == nil {
		return nil
	}
	var out []string
	for _, g := range v.hc.Spec.NodeGroups {
		if g.CapacityType == hcav1.CapacitySpot && !allowSpot {
			continue
		}
		out = append(out, g.Name)
	}
	return out
}

// burstNodeBoots are the boots the capacity controller timed for groups of
// hc and keeps in its status (status.nodeGroups[].recentBoots), so that a
// restarted runtime derives its horizons from them too.
func burstNodeBoots(hc *hcav1.HybridCluster, groups []string) []time.Duration {
	if hc == nil {
		return nil
	}
	var out []time.Duration
	for _, s := range hc.Status.NodeGroups {
		if slices.Contains(groups, s.Name) {
			for _, d := range s.RecentBoots {
				out = append(out, d.Duration)
			}
		}
	}
	return out
}

// burstTargetRoom is v's room for policy.Room: the prober's free capacity
// (Ready nodes) less the unprobed replicas (burstUnprobed), without what
// node groups could still add; t is v as placement sees it.
func burstTargetRoom(v *burstView, t scaling.BurstTarget, unprobed int32, pod scaling.PodRequests, allowSpot bool) policy.TargetRoom {
	r := policy.TargetRoom{
		Usable: t.Reachable && t.NotReady == "" && v.failover.Mode == scaling.FailoverHealthy && v.target != nil && (v.target.MaxReplicas == nil || *v.target.MaxReplicas > 0),
		Spare:  -1, NodeGroups: len(burstNodeGroups(v, allowSpot)) > 0,
	}
	if t.MaxReplicas > 0 {
		r.Spare = max(t.MaxReplicas-t.Current, 0)
	}
	if v.hc != nil && v.hc.Status.Free != nil {
		r.Probed = true
		r.FreeCPUMilli, r.FreeMemoryBytes = math.MaxInt64/4, math.MaxInt64/4
		if q, ok := v.hc.Status.Free[corev1.ResourceCPU]; ok {
			r.FreeCPUMilli = q.MilliValue() - int64(unprobed)*pod.CPUMilli
		}
		if q, ok := v.hc.Status.Free[corev1.ResourceMemory]; ok {
			r.FreeMemoryBytes = q.Value() - int64(unprobed)*pod.MemoryBytes
		}
	}
	return r
}

// readiness gathers the figures of d's adaptive algorithm (nothing for the
// other algorithms): the start-ups of its pods in every cluster, the node
// boots of the usable node groups of its burst targets (NodeBoots) and,
// when some replica may wait for a node, the room (fitted: the primary's
// free room when already computed, else primaryFit; rooms in the burst targets). unassigned: primary pods wait for
// a place, so the primary has no room.
func (r *BurstReconciler) readiness(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, pods []corev1.Pod, views []*burstView, rooms []policy.TargetRoom, fitted *int32, unassigned bool, req scaling.PodRequests) (burstReadiness, error) {
	if !burstAdaptive(p) {
		return burstReadiness{}, nil
	}
	allowSpot := p.Spec.Capacity != nil && p.Spec.Capacity.AllowSpot
	f := policy.ReadyFigures{CapacityRound: r.opts.CapacityInterval}
	for i := range pods {
		if s, ok := burstPodStartup(&pods[i]); ok {
			f.PodStartups = append(f.PodStartups, s)
		}
	}
	for _, v := range views {
		if v.target == nil || (v.target.MaxReplicas != nil && *v.target.MaxReplicas == 0) {
			continue
		}
		if groups := burstNodeGroups(v, allowSpot); len(groups) > 0 {
			f.NodeGroups = true
			f.NodeBoots = append(f.NodeBoots, burstNodeBoots(v.hc, groups)...)
		}
	}
	rd := burstReadiness{horizons: policy.DeriveHorizons(p.Spec.Algorithm.Adaptive, f)}
	if rd.horizons.Nodes <= rd.horizons.Pods || rd.horizons.Pods == 0 {
		return rd, nil
	}
	var fit int32
	switch {
	case unassigned:
	case fitted != nil:
		fit = *fitted
	default:
		n, err := primaryFit(ctx, r.client, &d.Spec.Template.Spec, req)
		if err != nil {
			return rd, err
		}
		fit = n
	}
	room := policy.Room(fit, rooms, req)
	rd.room = &room
	return rd, nil
}
