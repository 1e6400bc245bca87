package controller

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// Labels and annotations of burst clusters' nodes the capacity controller
// reads or writes.
const (
	// EKSNodegroupLabel is the label EKS puts on a managed node group's nodes.
	EKSNodegroupLabel = "eks.amazonaws.com/nodegroup"
	// ACKNodePoolLabel is the label ACK puts on a node pool's nodes (its ID).
	ACKNodePoolLabel = member.ACKNodePoolLabel
	// EmptySinceAnnotation, on a node-group node, is since when (RFC 3339) no
	// workload pod runs there: kept on the node so that a restarted runtime
	// releases it on time, not 10 minutes late.
	EmptySinceAnnotation = "hca.dev/empty-since"
	// DefaultCapacityInterval is how often node groups are looked at.
	DefaultCapacityInterval = 10 * time.Second
)

// NodeGroupCloud is what the capacity controller needs of a node group's
// cloud, in the same terms for EKS managed node groups and ACK node pools
// (member.Clouds implements it with the unmodified EKS, Auto Scaling and CS
// SDKs). Errors wrap member.ErrNodegroupNotFound, member.ErrThrottled and
// member.ErrNoCloudAccess where they apply.
type NodeGroupCloud interface {
	// DescribeGroup reads the group's desired size, bounds, status, issues.
	DescribeGroup(ctx context.Context, g hcav1.NodeGroup) (member.GroupState, error)
	// SetDesired sets its desired size.
	SetDesired(ctx context.Context, g hcav1.NodeGroup, desired int32) error
	// RemoveNodes releases exactly these nodes, lowering the desired size
	// by as many.
	RemoveNodes(ctx context.Context, g hcav1.NodeGroup, nodes []member.GroupNode) error
}

// CapacityReconciler grows and releases the node groups of burst clusters,
// so that burst capacity is bought when a burst needs it and given back
// after (scale from zero).
//
// Inputs: a HybridCluster with spec.nodeGroups (EKS managed node groups and
// ACK node pools), each group's state in the cloud (desired size, min/max,
// status, health issues: always read back, never
// remembered, so a restarted runtime neither orders twice nor forgets an
// order), the member cluster's nodes (by the node-group label) and its burst
// pods that are Unschedulable, and the BurstPolicies those pods belong to
// (capacity.allowSpot, capacity.scaleDownDelay). Decides with capacity.Plan
// and capacity.Release. Outputs: the groups' desired sizes (EKS
// UpdateNodegroupConfig, ACK ModifyClusterNodePool; never above the group's
// maximum), released nodes, EmptySinceAnnotation on nodes, status.nodeGroups
// and Events on the HybridCluster. A node under a spot interruption notice
// (SpotInterruptionTaint) is no room, and its group is the last choice for new
// nodes while the notice lasts (capacity.Group.Interrupted).
//
// Releasing cordons the empty nodes it picked, then removes exactly those
// (EKS TerminateInstanceInAutoScalingGroup decrementing the desired
// capacity, ACK DeleteClusterNodes releasing the instances), never taking a
// group below its minimum: the cloud does not choose another node.
//
// +kubebuilder:rbac:groups=hca.dev,resources=hybridclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=hybridclusters/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=hca.dev,resources=burstpolicies,verbs=get;list;watch
type CapacityReconciler struct {
	Client   client.Client
	Members  *Members
	Cloud    NodeGroupCloud
	Clock    clock.PassiveClock
	Recorder events.EventRecorder
	// Interval between looks at a cluster with node groups (default 10s).
	Interval time.Duration
	// Class selects the HybridClusters handled: those whose ClassLabel equals
	// it ("": those without the label), as the other controllers.
	Class string
	// Telemetry, when set, counts node requests and releases and times
	// ordered nodes to Ready.
	Telemetry NodeRecorder

	readyTimer readyTimer
}

// SetupWithManager registers the controller (HybridClusters; the rest is
// read each round, every Interval).
func (r *CapacityReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Interval <= 0 {
		r.Interval = DefaultCapacityInterval
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder("hca-capacity")
	}
	// Spec changes start a round at once; otherwise every Interval (the
	// prober's status writes would wake it every few seconds).
	return ctrl.NewControllerManagedBy(mgr).For(&hcav1.HybridCluster{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).Named("capacity").Complete(r)
}

// capacityGroup is one node group as this round sees it.
type capacityGroup struct {
	spec   hcav1.NodeGroup
	cloud  member.GroupState
	status hcav1.NodeGroupStatus
	plan   capacity.Group
}

// Reconcile is one round for one HybridCluster.
func (r *CapacityReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var hc hcav1.HybridCluster
	if err := r.Client.Get(ctx, req.NamespacedName, &hc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if len(hc.Spec.NodeGroups) == 0 || !hc.DeletionTimestamp.IsZero() || hc.Labels[ClassLabel] != r.Class {
		return ctrl.Result{}, nil
	}
	before := hc.DeepCopy()
	now := r.Clock.Now()
	res, err := r.round(ctx, &hc, now)
	if !equality.Semantic.DeepEqual(before.Status, hc.Status) {
		if perr := writeStatus(ctx, r.Client, &hc, statusMergeFrom(before.Status, hc.Status)); perr != nil && !apierrors.IsNotFound(perr) {
			err = errors.Join(err, fmt.Errorf("patch status of hybrid cluster %s: %w", hc.Name, perr))
		}
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return res, nil
}

func (r *CapacityReconciler) round(ctx context.Context, hc *hcav1.HybridCluster, now time.Time) (ctrl.Result, error) {
	if r.Cloud == nil {
		r.setAll(hc, "NoCloudAccess", "the runtime has no cloud access (set hca_runtime's aws or alicloud block): node groups are not scaled")
		return ctrl.Result{}, nil
	}
	m, err := r.Members.Get(ctx, hc.Name)
	if err != nil {
		r.setAll(hc, "ClusterUnreachable", err.Error())
		return ctrl.Result{RequeueAfter: r.Interval}, nil
	}
	var nodes corev1.NodeList
	if err := m.Client.List(ctx, &nodes); err != nil {
		r.setAll(hc, "ClusterUnreachable", err.Error())
		return ctrl.Result{RequeueAfter: r.Interval}, nil
	}
	var pods corev1.PodList
	if err := m.Client.List(ctx, &pods); err != nil {
		r.setAll(hc, "ClusterUnreachable", err.Error())
		return ctrl.Result{RequeueAfter: r.Interval}, nil
	}
	use := nodeUsage(pods.Items)
	groups := r.readGroups(ctx, hc, nodes.Items, use)
	for _, g := range groups {
		r.recordReady(hc.Name, g, nodes.Items)
	}
	sets, delays, err := r.demand(ctx, hc, groups, pods.Items)
	if err != nil {
		return ctrl.Result{}, err
	}
	planGroups := make([]capacity.Group, len(groups))
	for i, g := range groups {
		planGroups[i] = g.plan
	}
	plan, err := capacity.Plan(sets, planGroups)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("plan capacity of %s: %w", hc.Name, err)
	}
	var errs []error
	for _, gr := range plan.Grow {
		g := findGroup(groups, gr.Group)
		want := g.cloud.Desired + gr.Nodes
		if err := r.Cloud.SetDesired(ctx, g.spec, want); err != nil {
			r.recordRequest(hc.Name, g.spec.Name, gr.Nodes, err)
			g.status.Reason, g.status.Message = cloudReason(err), err.Error()
			r.event(hc, corev1.EventTypeWarning, "NodeRequestFailed", "could not grow node group %s to %d nodes: %v", g.spec.Name, want, err)
			errs = append(errs, err)
			continue
		}
		g.status.DesiredNodes, g.status.RequestedNodes = want, g.status.RequestedNodes+gr.Nodes
		r.recordRequest(hc.Name, g.spec.Name, gr.Nodes, nil)
		r.readyTimer.ordered(hc.Name+"/"+g.spec.Name, gr.Nodes, now)
		t := metav1.NewTime(now)
		g.status.LastScaleTime = &t
		r.event(hc, corev1.EventTypeNormal, "NodesRequested", "node group %s: %d -> %d nodes (%s, $%s per node-hour) for Pending burst replicas",
			g.spec.Name, g.cloud.Desired, want, g.spec.InstanceType, g.spec.PricePerHour)
	}
	if len(plan.Unplaced) > 0 {
		var reasons []string
		for _, s := range plan.Skipped {
			reasons = append(reasons, fmt.Sprintf("%s: %s", s.Group, s.Reason))
		}
		r.event(hc, corev1.EventTypeWarning, "CapacityUnavailable", "%d Pending burst replicas fit no node group that can grow: %s",
			sumUnplaced(plan.Unplaced), strings.Join(reasons, "; "))
	}

	obs, err := r.markEmpty(ctx, m, groups, nodes.Items, use, now)
	if err != nil {
		errs = append(errs, err)
	}
	// Nothing is released while burst pods wait for a node: an empty node
	// is about to be used (Cluster Autoscaler scales down only without
	// pending pods, likewise).
	var next time.Duration
	if len(sets) == 0 {
		var removals []capacity.Removal
		removals, next = capacity.Release(now, planGroups, obs, delays, plan.Grow)
		errs = append(errs, r.release(ctx, m, hc, groups, nodes.Items, removals, now))
	}

	r.reasonEvents(hc, groups)
	hc.Status.NodeGroups = nil
	for _, g := range groups {
		hc.Status.NodeGroups = append(hc.Status.NodeGroups, g.status)
	}
	res := ctrl.Result{RequeueAfter: r.Interval}
	if next > 0 && next < res.RequeueAfter {
		res.RequeueAfter = next
	}
	return res, errors.Join(errs...)
}

// readGroups reads each group's state from the cloud and its nodes from the
// cluster.
func (r *CapacityReconciler) readGroups(ctx context.Context, hc *hcav1.HybridCluster, nodes []corev1.Node, use map[string]nodeUse) []*capacityGroup {
	prev := map[string]hcav1.NodeGroupStatus{}
	for _, s := range hc.Status.NodeGroups {
		prev[s.Name] = s
	}
	var out []*capacityGroup
	for _, spec := range hc.Spec.NodeGroups {
		g := &capacityGroup{spec: spec, status: hcav1.NodeGroupStatus{Name: spec.Name, LastScaleTime: prev[spec.Name].LastScaleTime, RecentBoots: prev[spec.Name].RecentBoots}}
		price, _ := spec.PricePerHour.Float64()
		g.plan = capacity.Group{Cluster: hc.Name, Name: spec.Name, PricePerHour: price, Spot: spec.CapacityType == hcav1.CapacitySpot,
			Min: spec.MinNodes, Max: spec.MaxNodes, Labels: spec.Labels,
			Allocatable: capacity.Resources{CPUMilli: spec.Allocatable.CPU.MilliValue(), MemoryBytes: spec.Allocatable.Memory.Value(), Pods: int64(max(spec.Allocatable.Pods, 1))}}
		if spec.Allocatable.Pods == 0 {
			g.plan.Allocatable.Pods = 110
		}
		for _, t := range spec.Taints {
			g.plan.Taints = append(g.plan.Taints, capacity.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
		for i := range nodes {
			n := &nodes[i]
			if inGroup(spec, n) && burstNodeReady(n) && n.DeletionTimestamp == nil {
				g.status.ReadyNodes++
				if burstNodeNoticed(n) {
					// Going away: no room, and new nodes go to other
					// groups first (burst_spot.go moves its replicas).
					g.plan.Interrupted++
					continue
				}
				if !n.Spec.Unschedulable {
					a, u := n.Status.Allocatable, use[n.Name]
					g.plan.Room = append(g.plan.Room, capacity.Resources{
						CPUMilli:    a.Cpu().MilliValue() - u.CPUMilli,
						MemoryBytes: a.Memory().Value() - u.MemoryBytes,
						Pods:        a.Pods().Value() - u.Pods})
				}
			}
		}
		st, err := r.Cloud.DescribeGroup(ctx, spec)
		switch {
		case errors.Is(err, member.ErrNodegroupNotFound):
			g.status.Reason, g.status.Message = "NotFound", err.Error()+": create it (hca_eks_cluster or hca_ack_cluster node_groups) or fix spec.nodeGroups"
		case err != nil:
			g.status.Reason, g.status.Message = cloudReason(err), err.Error()
		default:
			g.cloud = st
			g.status.DesiredNodes = st.Desired
			g.status.RequestedNodes = max(0, st.Desired-g.status.ReadyNodes)
			if st.Max > 0 { // 0: the cloud sets no bound (ACK without auto scaling)
				g.plan.Max = min(spec.MaxNodes, st.Max)
			}
			g.plan.Min = max(spec.MinNodes, st.Min)
			if g.plan.Min > g.plan.Max {
				g.plan.Min = g.plan.Max
			}
			switch {
			case len(st.Issues) > 0:
				g.status.Reason, g.status.Message = "LaunchFailures", strings.Join(st.Issues, "; ")
			case st.Status != "ACTIVE":
				g.status.Reason, g.status.Message = "NotActive", "node group is "+st.Status+": no change until it is ACTIVE"
			case st.Desired >= g.plan.Max:
				g.status.Reason, g.status.Message = "MaxReached", fmt.Sprintf("at its maximum of %d nodes", g.plan.Max)
			}
		}
		g.plan.Ready, g.plan.Requested = g.status.ReadyNodes, g.status.RequestedNodes
		if g.status.Reason != "" && g.status.Reason != "MaxReached" {
			g.plan.Unavailable = g.status.Message
		}
		if g.plan.Max < g.plan.Ready+g.plan.Requested {
			g.plan.Max = g.plan.Ready + g.plan.Requested
		}
		out = append(out, g)
	}
	return out
}

// demand gathers the burst pods that need a node (Unschedulable, of a
// policy's copy) as pod sets, and each group's scale-down delay (the longest
// of the policies that burst into the cluster; none when no policy does).
func (r *CapacityReconciler) demand(ctx context.Context, hc *hcav1.HybridCluster, groups []*capacityGroup, pods []corev1.Pod) ([]capacity.PodSet, map[string]time.Duration, error) {
	var policies hcav1.BurstPolicyList
	if err := r.Client.List(ctx, &policies); err != nil {
		return nil, nil, fmt.Errorf("list burst policies: %w", err)
	}
	spot := map[string]bool{} // "namespace/label value" -> allow spot
	delay := capacity.DefaultScaleDownDelay
	found := false
	for i := range policies.Items {
		p := &policies.Items[i]
		targets := false
		for _, t := range p.Spec.BurstTargets {
			targets = targets || string(t.Cluster) == hc.Name
		}
		if !targets {
			continue
		}
		c := p.Spec.Capacity
		spot[p.Namespace+"/"+burstLabelValue(p.Name)] = c != nil && c.AllowSpot
		d := capacity.DefaultScaleDownDelay
		if c != nil && c.ScaleDownDelay != nil {
			d = c.ScaleDownDelay.Duration
		}
		if !found || d > delay {
			delay, found = d, true
		}
	}
	if !found {
		// No policy bursts into the cluster (the last one was deleted):
		// nothing will use its groups' empty nodes, which are released at
		// once rather than after a default delay, so that no group stays
		// grown behind a deleted policy.
		delay = 0
	}
	delays := map[string]time.Duration{}
	for _, g := range groups {
		delays[hc.Name+"/"+g.spec.Name] = delay
	}
	bySet := map[string]*capacity.PodSet{}
	for i := range pods {
		pod := &pods[i]
		label := pod.Labels[BurstPolicyLabel]
		if label == "" || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
			continue
		}
		if _, unsched, _ := burstPodScheduling(pod); !unsched {
			continue
		}
		key := pod.Namespace + "/" + pod.Labels[BurstOfLabel]
		s := bySet[key]
		if s == nil {
			req := burstPodRequests(&pod.Spec)
			s = &capacity.PodSet{Name: key, Requests: capacity.Resources{CPUMilli: req.CPUMilli, MemoryBytes: req.MemoryBytes},
				NodeSelector: pod.Spec.NodeSelector, AllowSpot: spot[pod.Namespace+"/"+label]}
			for _, t := range pod.Spec.Tolerations {
				s.Tolerations = append(s.Tolerations, capacity.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect)})
			}
			bySet[key] = s
		}
		s.Replicas++
	}
	keys := make([]string, 0, len(bySet))
	for k := range bySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sets := make([]capacity.PodSet, 0, len(keys))
	for _, k := range keys {
		sets = append(sets, *bySet[k])
	}
	return sets, delays, nil
}

// reasonEvents records a Warning Event, named after the reason, when a
// group's status reason becomes one (MaxReached, LaunchFailures, Throttled,
// NotFound, NotActive, CloudError, NoCloudAccess): once per change, not
// every round, so a lasting fault makes no event storm.
func (r *CapacityReconciler) reasonEvents(hc *hcav1.HybridCluster, groups []*capacityGroup) {
	prev := map[string]string{}
	for _, s := range hc.Status.NodeGroups {
		prev[s.Name] = s.Reason
	}
	for _, g := range groups {
		if g.status.Reason != "" && g.status.Reason != prev[g.spec.Name] {
			r.event(hc, corev1.EventTypeWarning, g.status.Reason, "node group %s: %s", g.spec.Name, g.status.Message)
		}
	}
}

// inGroup reports whether a node belongs to the node group, by the label
// its cloud puts on the group's nodes.
func inGroup(g hcav1.NodeGroup, n *corev1.Node) bool {
	switch {
	case g.EKS != nil:
		return n.Labels[EKSNodegroupLabel] == g.EKS.NodegroupName
	case g.ACK != nil:
		return n.Labels[ACKNodePoolLabel] == g.ACK.NodePoolID
	}
	return false
}

// groupOf names the node group a node belongs to.
func groupOf(groups []*capacityGroup, n *corev1.Node) (string, bool) {
	for _, g := range groups {
		if inGroup(g.spec, n) {
			return g.spec.Name, true
		}
	}
	return "", false
}

// cloudReason is the status reason for a failed cloud call.
func cloudReason(err error) string {
	switch {
	case errors.Is(err, member.ErrThrottled):
		return "Throttled"
	case errors.Is(err, member.ErrCloudUnavailable):
		return "CloudUnavailable"
	case errors.Is(err, member.ErrNoCloudAccess):
		return "NoCloudAccess"
	case errors.Is(err, member.ErrNodegroupNotFound):
		return "NotFound"
	}
	return "CloudError"
}

func (r *CapacityReconciler) setAll(hc *hcav1.HybridCluster, reason, msg string) {
	prev := map[string]hcav1.NodeGroupStatus{}
	for _, s := range hc.Status.NodeGroups {
		prev[s.Name] = s
	}
	hc.Status.NodeGroups = nil
	for _, g := range hc.Spec.NodeGroups {
		s := prev[g.Name]
		s.Name, s.Reason, s.Message = g.Name, reason, msg
		hc.Status.NodeGroups = append(hc.Status.NodeGroups, s)
	}
}

func (r *CapacityReconciler) event(hc *hcav1.HybridCluster, kind, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(hc, nil, kind, reason, "Scale", format, args...)
	}
}

func findGroup(groups []*capacityGroup, name string) *capacityGroup {
	for _, g := range groups {
		if g.spec.Name == name {
			return g
		}
	}
	return nil
}

func sumUnplaced(m map[string]int32) int32 {
	var n int32
	for _, v := range m {
		n += v
	}
	return n
}
