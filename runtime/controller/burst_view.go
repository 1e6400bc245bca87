package controller

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// This file is the burst controller's "get": what a round reads of the
// primary and of the member clusters, before anything is decided.

// memberGetter reaches member clusters (Members is the implementation).
type memberGetter interface {
	Get(ctx context.Context, name string) (*Member, error)
}

// burstView is what the controller found in one burst cluster for a policy.
type burstView struct {
	name   string
	target *hcav1.BurstTargetCluster // nil: not (or no longer) a burst target
	// index is the position in spec.burstTargets (extra clusters come after).
	index  int
	hc     *hcav1.HybridCluster
	member *Member
	// err says why the cluster is unusable (unreachable, credentials).
	err error
	// gone: the HybridCluster no longer exists (nothing can be cleaned there).
	gone bool
	// copies are the policy's Deployment copies there, by name.
	copies map[string]*appsv1.Deployment
	// pods are the pods of those copies.
	pods []corev1.Pod
	// noticed are the nodes under a spot interruption notice (their name:
	// since when), read only when the copies have pods (burst_spot.go).
	noticed map[string]time.Time
	// failed records clusters where a write failed in this round.
	failed bool
	// failover is how its replicas count this round (burstFailovers), and
	// failoverPrior the state the status held before it.
	failover      scaling.FailoverDecision
	failoverPrior scaling.FailoverState
	// nsDeleting is when the policy's namespace there began to be deleted
	// (zero: it is not being deleted). Such a cluster answers but cannot
	// take replicas until the namespace is gone (burstPlacementTarget).
	nsDeleting time.Time
}

// notReady says why v, reachable, cannot take replicas yet ("": it can).
func (v *burstView) notReady(namespace string) string {
	if v.nsDeleting.IsZero() {
		return ""
	}
	return fmt.Sprintf("namespace %s is being deleted there (since %s)", namespace, v.nsDeleting.UTC().Format(time.RFC3339))
}

func (v *burstView) reachable() bool { return v.err == nil }

// copyReplicas is the replica count of the copy of deployment there (0: none).
func (v *burstView) copyReplicas(deployment string) int32 {
	if c := v.copies[deployment]; c != nil {
		return burstPtrOr(c.Spec.Replicas, 1)
	}
	return 0
}

// burstViewLoader reads, per policy, each burst target's (and each extra
// cluster's) copies and pods, in parallel, each cluster within timeout.
type burstViewLoader struct {
	members memberGetter
	// control reads HybridClusters (to tell a deleted one from an
	// unreachable one).
	control client.Reader
	timeout time.Duration
	// watches, once synced for a cluster, hold what loadOne would read
	// from it (nil: always read from the cluster).
	watches *memberWatches
}

func (l burstViewLoader) load(ctx context.Context, p *hcav1.BurstPolicy, extra []string) []*burstView {
	var views []*burstView
	seen := map[string]bool{}
	for i := range p.Spec.BurstTargets {
		t := &p.Spec.BurstTargets[i]
		if seen[string(t.Cluster)] || t.Cluster == p.Spec.PrimaryCluster {
			continue
		}
		seen[string(t.Cluster)] = true
		views = append(views, &burstView{name: string(t.Cluster), target: t, index: min(i, 63)})
	}
	for _, name := range extra {
		if !seen[name] && name != string(p.Spec.PrimaryCluster) {
			seen[name] = true
			views = append(views, &burstView{name: name, index: 63})
		}
	}
	var wg sync.WaitGroup
	for _, v := range views {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.loadOne(ctx, p, v)
		}()
	}
	wg.Wait()
	return views
}

func (l burstViewLoader) loadOne(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) {
	m, err := l.members.Get(ctx, v.name)
	if err != nil {
		v.err = err
		var hc hcav1.HybridCluster
		if gerr := l.control.Get(ctx, types.NamespacedName{Name: v.name}, &hc); apierrors.IsNotFound(gerr) {
			v.gone = true
		}
		return
	}
	v.member, v.hc = m, m.Cluster
	// The informers serve the view once synced and showing the
	// controller's own last writes of copies there.
	if mw := l.watches.cached(v.name, m.Config); mw != nil && l.watches.shows(mw, v.name, p.Namespace) {
		// The stores outlive the cluster: an unreachable one must fail the
		// view as a live read would.
		if err := mw.answers(ctx, l.timeout); err != nil {
			v.err = fmt.Errorf("reach cluster %s: %w", v.name, err)
			return
		}
		mw.load(p, v)
		return
	}
	cctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	sel := client.MatchingLabels{BurstPolicyLabel: burstLabelValue(p.Name)}
	var deps appsv1.DeploymentList
	if err := m.Client.List(cctx, &deps, client.InNamespace(p.Namespace), sel); err != nil {
		v.err = fmt.Errorf("list deployments in cluster %s: %w", v.name, err)
		return
	}
	v.copies = map[string]*appsv1.Deployment{}
	for i := range deps.Items {
		d := &deps.Items[i]
		if burstOwned(d, p.Name) && d.DeletionTimestamp == nil {
			v.copies[d.Name] = d
		}
	}
	// A namespace being deleted (a policy deleted and created again before
	// its cleanup finished) refuses new objects until it is gone. An error
	// here leaves the cluster as it was: the writes report it.
	var ns corev1.Namespace
	if err := m.Client.Get(cctx, client.ObjectKey{Name: p.Namespace}, &ns); err == nil && ns.DeletionTimestamp != nil {
		v.nsDeleting = ns.DeletionTimestamp.Time
	}
	var pods corev1.PodList
	if err := m.Client.List(cctx, &pods, client.InNamespace(p.Namespace), sel); err != nil {
		v.err = fmt.Errorf("list pods in cluster %s: %w", v.name, err)
		return
	}
	v.pods = pods.Items
	if len(v.pods) > 0 {
		noticed, err := burstNoticedNodes(cctx, m.Client)
		if err != nil {
			v.err = fmt.Errorf("list nodes in cluster %s: %w", v.name, err)
			return
		}
		v.noticed = noticed
	}
}

// burstNotReadyRecheck is how soon a round looks again at a cluster whose
// namespace has been being deleted for since: half that, between 1 s and
// 30 s (a namespace usually goes within seconds; one held by a finalizer
// is not polled every second for ever).
func burstNotReadyRecheck(since time.Duration) time.Duration {
	return min(max(since/2, time.Second), 30*time.Second)
}

// burstTargets returns the primary Deployments the policy targets, sorted by
// name, read through r (burstFreshReader: the cache when it is fresh, else the
// API server). Read from the cache they are its objects, not copies (every
// round of every policy reads them: make bench-load, 34 MB of copies a
// minute and a half): they are only read, and burstDeploymentCopy copies
// what it sends to a burst cluster.
func burstTargets(ctx context.Context, r client.Reader, p *hcav1.BurstPolicy) ([]*appsv1.Deployment, error) {
	if name := p.Spec.Target.DeploymentName; name != "" {
		var d appsv1.Deployment
		err := r.Get(ctx, types.NamespacedName{Namespace: p.Namespace, Name: string(name)}, &d, client.UnsafeDisableDeepCopy)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("get target deployment %s/%s: %w", p.Namespace, name, err)
		}
		if d.DeletionTimestamp != nil {
			return nil, nil
		}
		return []*appsv1.Deployment{&d}, nil
	}
	if len(p.Spec.Target.MatchLabels) == 0 {
		return nil, nil
	}
	var list appsv1.DeploymentList
	if err := r.List(ctx, &list, client.InNamespace(p.Namespace), client.MatchingLabels(p.Spec.Target.MatchLabels), client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("list target deployments in %s: %w", p.Namespace, err)
	}
	var out []*appsv1.Deployment
	for i := range list.Items {
		d := &list.Items[i]
		if d.DeletionTimestamp != nil || d.Labels[BurstManagedByLabel] == BurstManagedBy {
			continue
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// burstStatusClusters are the burst clusters the status lists (they may hold
// something even if no longer targets).
func burstStatusClusters(p *hcav1.BurstPolicy) []string {
	var out []string
	for _, c := range p.Status.Replicas {
		if c.Cluster != p.Spec.PrimaryCluster {
			out = append(out, string(c.Cluster))
		}
	}
	return out
}

func burstStatusHas(p *hcav1.BurstPolicy, cluster string) bool {
	for _, c := range p.Status.Replicas {
		if string(c.Cluster) == cluster {
			return true
		}
	}
	return false
}

// burstStatusReplicas is what the status last recorded for a cluster when
// the policy has a single target (with several, per-target counts are
// unknown).
func burstStatusReplicas(p *hcav1.BurstPolicy, cluster string) int32 {
	if p.Spec.Target.DeploymentName == "" {
		return 0
	}
	for _, c := range p.Status.Replicas {
		if string(c.Cluster) == cluster {
			return c.Desired
		}
	}
	return 0
}

// primaryFit lists the primary's nodes and pods (from the cache) and
// estimates the room for more pods of spec.
func primaryFit(ctx context.Context, c client.Reader, spec *corev1.PodSpec, req scaling.PodRequests) (int32, error) {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return 0, fmt.Errorf("list nodes of the primary cluster: %w", err)
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil {
		return 0, fmt.Errorf("list pods of the primary cluster: %w", err)
	}
	return burstPrimaryFit(spec, req, nodes.Items, pods.Items), nil
}

// burstUnprobed is how many of the replicas of the copy of d in v (current)
// the prober's last free-capacity figure does not count: those without a pod
// bound to a node when it probed (placed since, or whose pods do not exist
// yet). Placement subtracts them from the free capacity, so that several
// rounds between two probes do not place into the same room twice. Other
// policies' replicas placed since the probe are not known here.
func burstUnprobed(v *burstView, d *appsv1.Deployment, current int32) int32 {
	if v.hc == nil || v.hc.Status.LastProbeTime == nil {
		return 0
	}
	probe := v.hc.Status.LastProbeTime.Time
	of := burstOf(d.Namespace, d.Name)
	var probed int32
	for i := range v.pods {
		pod := &v.pods[i]
		if pod.Labels[BurstOfLabel] == of && burstPodActive(pod) && pod.Spec.NodeName != "" && pod.CreationTimestamp.Time.Before(probe) {
			probed++
		}
	}
	return max(0, current-probed)
}

// burstGrowable is the capacity a cluster's node groups can still add for a
// policy (allowSpot: it may use spot groups): the nodes booting (not in the
// prober's figure yet) and those each group may still grow by, unless the
// group's nodes cannot come (its status gives a reason other than its
// maximum). Placement and capacity agree this way: replicas go where nodes
// exist or can come.
func burstGrowable(hc *hcav1.HybridCluster, allowSpot bool) (cpuMilli, memBytes int64) {
	status := map[string]hcav1.NodeGroupStatus{}
	for _, s := range hc.Status.NodeGroups {
		status[s.Name] = s
	}
	for _, g := range hc.Spec.NodeGroups {
		if g.CapacityType == hcav1.CapacitySpot && !allowSpot {
			continue
		}
		st, seen := status[g.Name]
		if seen && st.Reason != "" && st.Reason != "MaxReached" {
			continue
		}
		nodes := int64(g.MaxNodes - st.DesiredNodes + st.RequestedNodes)
		if !seen {
			nodes = int64(g.MaxNodes)
		}
		nodes = max(nodes, 0)
		cpuMilli += nodes * g.Allocatable.CPU.MilliValue()
		memBytes += nodes * g.Allocatable.Memory.Value()
	}
	return cpuMilli, memBytes
}

// burstStuck counts the active pods of the copy of d in v that have been
// Unschedulable for threshold in a cluster that cannot make room for them:
// one without node groups. In a cluster with node groups the capacity
// controller owns the room (it buys nodes, or reports MaxReached or
// LaunchFailures), and a pod waiting for a node that just became Ready
// still carries the Unschedulable condition of its whole wait, so it would
// look stuck the moment its node comes (TestCapacityPlacementSkipsLab saw
// all 4 replicas of a node that had just booted moved away). None either
// when the cluster is unreachable or has failed over (failover handles
// those), nor while a spot interruption's replacements start there.
func burstStuck(v *burstView, d *appsv1.Deployment, now time.Time, threshold time.Duration) int32 {
	c := v.copies[d.Name]
	if !v.reachable() || v.failover.Mode != scaling.FailoverHealthy || c == nil || burstSpotSurge(c) > 0 {
		// A spot surge's replacements wait for room there (burst_spot.go).
		return 0
	}
	if v.hc != nil && len(v.hc.Spec.NodeGroups) > 0 {
		return 0
	}
	of := burstOf(d.Namespace, d.Name)
	var n int32
	for i := range v.pods {
		pod := &v.pods[i]
		if pod.Labels[BurstOfLabel] != of || !burstPodActive(pod) {
			continue
		}
		if _, unsched, since := burstPodScheduling(pod); unsched && now.Sub(since) >= threshold {
			n++
		}
	}
	return n
}

// burstPlacementTarget converts a view into placement's view of a cluster;
// unprobed replicas (burstUnprobed) are taken off the prober's free capacity,
// what the cluster's node groups can still add (burstGrowable) is added, as
// room to buy (GrowCPUMilli: placement fills running nodes first).
func burstPlacementTarget(v *burstView, namespace string, current, unprobed int32, pod scaling.PodRequests, allowSpot bool) scaling.BurstTarget {
	t := scaling.BurstTarget{Name: v.name, Current: current, Reachable: v.reachable(), NotReady: v.notReady(namespace), Weight: 1,
		FreeCPUMilli: math.MaxInt64 / 4, FreeMemoryBytes: math.MaxInt64 / 4}
	if v.target != nil {
		if v.target.Weight != nil {
			t.Weight = *v.target.Weight
		}
		if v.target.MaxReplicas != nil {
			t.MaxReplicas = *v.target.MaxReplicas
		}
	}
	if hc := v.hc; hc != nil {
		// Equal priorities keep the order of spec.burstTargets (at most 32).
		t.Priority = int(hc.Spec.Priority)*64 + 63 - v.index
		if pr := hc.Spec.Prices; pr != nil {
			t.PricePerVCPUHour, _ = pr.PerVCPUHour.Float64()
			t.PricePerGiBHour, _ = pr.PerGiBHour.Float64()
		}
		if hc.Status.Free != nil {
			// The prober's view; it counts the replicas already there as used.
			if q, ok := hc.Status.Free[corev1.ResourceCPU]; ok {
				t.FreeCPUMilli = max(0, q.MilliValue()-int64(unprobed)*pod.CPUMilli)
			}
			if q, ok := hc.Status.Free[corev1.ResourceMemory]; ok {
				t.FreeMemoryBytes = max(0, q.Value()-int64(unprobed)*pod.MemoryBytes)
			}
			// What the groups can add must be bought (or still boots):
			// placement fills the running nodes' room first.
			cpu, mem := burstGrowable(hc, allowSpot)
			t.FreeCPUMilli += cpu
			t.FreeMemoryBytes += mem
			t.GrowCPUMilli, t.GrowMemoryBytes = cpu, mem
		} else {
			if len(hc.Spec.NodeGroups) > 0 {
				// Not probed yet: what its node groups can hold is all
				// that is known (unlimited would send a whole burst to
				// a target whose groups then reach their maximum), and
				// none of it is known to run.
				cpu, mem := burstGrowable(hc, allowSpot)
				t.FreeCPUMilli = max(0, cpu-int64(current)*pod.CPUMilli)
				t.FreeMemoryBytes = max(0, mem-int64(current)*pod.MemoryBytes)
				t.GrowCPUMilli, t.GrowMemoryBytes = t.FreeCPUMilli, t.FreeMemoryBytes
			}
			if l := hc.Spec.Limits; l != nil && l.MaxCPU != nil {
				t.FreeCPUMilli = min(t.FreeCPUMilli, max(0, l.MaxCPU.MilliValue()-int64(current)*pod.CPUMilli))
			}
		}
		if l := hc.Spec.Limits; l != nil && l.MaxPods != nil && (t.MaxReplicas == 0 || *l.MaxPods < t.MaxReplicas) {
			t.MaxReplicas = *l.MaxPods
		}
	}
	return t
}

func burstPtrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// burstFailoverAfter is the policy's grace period before failover.
func burstFailoverAfter(p *hcav1.BurstPolicy) time.Duration {
	if p.Spec.FailoverAfter == nil {
		return scaling.DefaultFailoverAfter
	}
	return p.Spec.FailoverAfter.Duration
}

// burstFailovers decides, for each view, how its replicas count this round
// (scaling.Failover), from the state the status recorded and what the view
// found; it sets v.failover.
func burstFailovers(p *hcav1.BurstPolicy, views []*burstView, now time.Time) {
	after := burstFailoverAfter(p)
	for _, v := range views {
		in := scaling.FailoverInput{Now: now, After: after, Reachable: v.reachable()}
		for _, c := range p.Status.Replicas {
			if string(c.Cluster) != v.name {
				continue
			}
			in.Known = c.Desired
			if c.UnreachableSince != nil {
				in.State.UnreachableSince = c.UnreachableSince.Time
			}
			if c.FailedOverAt != nil {
				in.State.FailedOverAt = c.FailedOverAt.Time
			}
		}
		for name := range v.copies {
			in.Present += v.copyReplicas(name)
		}
		v.failover, v.failoverPrior = scaling.Failover(in), in.State
	}
}
