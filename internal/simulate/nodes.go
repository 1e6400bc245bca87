package simulate

// Node groups of burst clusters: the replicas placed there wait Pending for
// a node, nodes are bought and released by the runtime's own pure planner
// (capacity.Plan, capacity.Release) at the capacity controller's interval,
// boot for their group's delay, and spot nodes may be interrupted (a seeded
// rate, the cloud's notice, replacements surged by interruption.Decide as
// the burst controller does).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/interruption"
)

// NodeGroupSpec is one node group of a burst cluster in the cluster model,
// in the terms of a HybridCluster's spec.nodeGroups.
type NodeGroupSpec struct {
	Name string
	// Allocatable is what one node offers pods.
	Allocatable capacity.Resources
	// PricePerHour is one node's price in dollars per hour: a cluster with
	// node groups costs its nodes' hours, from the order to the release.
	PricePerHour float64
	// Spot: the group's nodes are spot capacity (used only by a policy with
	// spec.capacity.allowSpot, first when cheaper per replica).
	Spot bool
	// Min and Max bound the group's node count; the run starts with Min
	// nodes Ready.
	Min, Max int32
	// BootDelay is the time from the order to a Ready node (default
	// capacity.DefaultNodeBootDelay, the lab's).
	BootDelay time.Duration
	// InterruptionsPerHour is, for a spot group, the rate of interruption
	// notices per node-hour (an exponential lifetime drawn per node from the
	// model's Seed; 0: none). The node goes away ClusterModel.SpotNotice
	// after its notice.
	InterruptionsPerHour float64
}

// nodeGroupFile is the YAML form of a node group (names as a HybridCluster's
// spec.nodeGroups).
type nodeGroupFile struct {
	Name         string `json:"name"`
	InstanceType string `json:"instanceType,omitempty"`
	CapacityType string `json:"capacityType,omitempty"`
	Allocatable  *struct {
		CPU    *resource.Quantity `json:"cpu,omitempty"`
		Memory *resource.Quantity `json:"memory,omitempty"`
		Pods   *int64             `json:"pods,omitempty"`
	} `json:"allocatable,omitempty"`
	PricePerHour         *float64         `json:"pricePerHour,omitempty"`
	MinNodes             *int32           `json:"minNodes,omitempty"`
	MaxNodes             *int32           `json:"maxNodes,omitempty"`
	BootDelay            *metav1.Duration `json:"bootDelay,omitempty"`
	InterruptionsPerHour *float64         `json:"interruptionsPerHour,omitempty"`
}

// parseNodeGroups checks and converts a cluster's nodeGroups (field is
// "clusters[i].nodeGroups").
func parseNodeGroups(in []nodeGroupFile, field string, pod PodModel) ([]NodeGroupSpec, error) {
	var out []NodeGroupSpec
	seen := map[string]bool{}
	req := podResources(pod)
	for i, f := range in {
		at := func(s string) string { return field + "[" + itoa(i) + "]." + s }
		if f.Name == "" {
			return nil, inputErr("cluster model: %s is missing: name the node group", at("name"))
		}
		if seen[f.Name] {
			return nil, inputErr("cluster model: %s %q is listed twice: list each node group once", at("name"), f.Name)
		}
		seen[f.Name] = true
		g := NodeGroupSpec{Name: f.Name, BootDelay: capacity.DefaultNodeBootDelay}
		switch hcav1.CapacityType(f.CapacityType) {
		case "", hcav1.CapacityOnDemand:
		case hcav1.CapacitySpot:
			g.Spot = true
		default:
			return nil, inputErr("cluster model: %s %q is unknown: use %s or %s", at("capacityType"), f.CapacityType, hcav1.CapacityOnDemand, hcav1.CapacitySpot)
		}
		a := f.Allocatable
		if a == nil || a.CPU == nil || a.Memory == nil {
			return nil, inputErr("cluster model: %s is missing: give allocatable.cpu and allocatable.memory of one node (e.g. cpu: \"3920m\", memory: 15Gi)", at("allocatable"))
		}
		g.Allocatable = capacity.Resources{CPUMilli: a.CPU.MilliValue(), MemoryBytes: a.Memory.Value(), Pods: 110}
		if a.Pods != nil {
			g.Allocatable.Pods = *a.Pods
		}
		if g.Allocatable.CPUMilli <= 0 || g.Allocatable.MemoryBytes <= 0 || g.Allocatable.Pods <= 0 {
			return nil, inputErr("cluster model: %s is %dm CPU, %d bytes, %d pods: set each above 0", at("allocatable"), g.Allocatable.CPUMilli, g.Allocatable.MemoryBytes, g.Allocatable.Pods)
		}
		if capacity.PerNode(capacity.Group{Allocatable: g.Allocatable}, req) == 0 {
			return nil, inputErr("cluster model: %s (%dm CPU, %d bytes) cannot hold one pod (%dm CPU, %d bytes): raise it", at("allocatable"), g.Allocatable.CPUMilli, g.Allocatable.MemoryBytes, req.CPUMilli, req.MemoryBytes)
		}
		if f.PricePerHour == nil || *f.PricePerHour < 0 || math.IsNaN(*f.PricePerHour) || math.IsInf(*f.PricePerHour, 0) {
			return nil, inputErr("cluster model: %s is missing or invalid: give one node's price in $ per hour, 0 or more", at("pricePerHour"))
		}
		g.PricePerHour = *f.PricePerHour
		if f.MaxNodes == nil || *f.MaxNodes < 1 {
			return nil, inputErr("cluster model: %s is missing or below 1: give the group's maximum node count", at("maxNodes"))
		}
		g.Max = *f.MaxNodes
		if f.MinNodes != nil {
			g.Min = *f.MinNodes
		}
		if g.Min < 0 || g.Min > g.Max {
			return nil, inputErr("cluster model: %s is %d: use 0 to maxNodes (%d)", at("minNodes"), g.Min, g.Max)
		}
		if f.BootDelay != nil {
			if f.BootDelay.Duration < 0 || f.BootDelay.Duration%time.Second != 0 {
				return nil, inputErr("cluster model: %s is %v: use whole seconds, 0s or more", at("bootDelay"), f.BootDelay.Duration)
			}
			g.BootDelay = f.BootDelay.Duration
		}
		if r := f.InterruptionsPerHour; r != nil {
			if *r < 0 || math.IsNaN(*r) || math.IsInf(*r, 0) {
				return nil, inputErr("cluster model: %s is %v: use a rate per node-hour, 0 or more", at("interruptionsPerHour"), *r)
			}
			if *r > 0 && !g.Spot {
				return nil, inputErr("cluster model: %s is set on an %s group: only spot nodes are interrupted; set capacityType: %s or remove it", at("interruptionsPerHour"), hcav1.CapacityOnDemand, hcav1.CapacitySpot)
			}
			g.InterruptionsPerHour = *r
		}
		out = append(out, g)
	}
	return out, nil
}

// podResources is one pod's requests as the capacity planner counts them.
func podResources(p PodModel) capacity.Resources {
	return capacity.Resources{CPUMilli: int64(math.Round(p.CPURequest * 1000)), MemoryBytes: int64(math.Round(p.MemoryGiB * (1 << 30))), Pods: 1}
}

// groupsCapacity is how many pods the groups hold at their maximum.
func groupsCapacity(groups []NodeGroupSpec, p PodModel) int32 {
	req := podResources(p)
	var n int64
	for _, g := range groups {
		n += int64(g.Max) * capacity.PerNode(capacity.Group{Allocatable: g.Allocatable}, req)
	}
	return int32(min(n, math.MaxInt32))
}

// never is the second of an event that does not happen.
const never = math.MaxInt32

// simNode is one node of a burst cluster's node group.
type simNode struct {
	id, group int
	orderedAt int
	readyAt   int
	// noticeAt is when a spot interruption notice comes (never: none);
	// noticed once it has.
	noticeAt int
	noticed  bool
	// emptySince is when the capacity round first saw the node without a
	// pod (-1: it has pods), as the runtime's EmptySinceAnnotation.
	emptySince int
	free       capacity.Resources
	pods       int
}

func (n *simNode) ready(t int) bool { return n.readyAt <= t }

// nodeRun is what the node model needs of a run.
type nodeRun struct {
	req       capacity.Resources
	startS    int
	capS      int
	noticeS   int
	allowSpot bool
	delay     time.Duration
	rng       *rand.Rand
	nextNode  int
	metrics   *Metrics
	podID     func() int
}

// newNodeRun prepares the node model of a run of p on m.
func newNodeRun(p Policy, m ClusterModel, req capacity.Resources, startS int, metrics *Metrics, podID func() int) *nodeRun {
	capS := int(m.CapacityInterval / time.Second)
	if capS < 1 {
		capS = int(DefaultCapacityInterval / time.Second)
	}
	notice := m.SpotNotice
	if notice <= 0 {
		notice = capacity.DefaultSpotNotice
	}
	return &nodeRun{req: req, startS: startS, capS: capS, noticeS: int(notice / time.Second), allowSpot: p.AllowSpot,
		delay: p.ScaleDownDelay, rng: rand.New(rand.NewPCG(m.Seed, 0x5eed)), metrics: metrics, podID: podID}
}

// order adds a node of group gi to c, ordered at t (Ready after the group's
// boot delay; a spot node draws when its notice comes).
func (r *nodeRun) order(c *clusterState, gi, t int) {
	g := c.spec.NodeGroups[gi]
	n := &simNode{id: r.nextNode, group: gi, orderedAt: t, readyAt: t + int(g.BootDelay/time.Second), noticeAt: never, emptySince: -1, free: g.Allocatable}
	r.nextNode++
	if g.Spot && g.InterruptionsPerHour > 0 {
		life := r.rng.ExpFloat64() / g.InterruptionsPerHour * 3600
		if at := float64(n.readyAt) + math.Ceil(life); at < never {
			n.noticeAt = int(at)
		}
	}
	c.nodes = append(c.nodes, n)
}

// start gives c its groups' minimum of nodes, Ready at second 0.
func (r *nodeRun) start(c *clusterState) {
	for gi, g := range c.spec.NodeGroups {
		for range g.Min {
			r.order(c, gi, -int(g.BootDelay/time.Second))
		}
	}
}

// step advances c's nodes to second t: spot notices and reclaims, the
// burst controller's replacements (interruption.Decide), the scheduler
// binding Pending pods to Ready nodes with room, and, every capacity
// interval, the capacity controller's round (capacity.Plan, then
// capacity.Release when nothing waits for a node).
func (r *nodeRun) step(c *clusterState, t int) error {
	// Spot notices, and nodes whose notice ran out: their pods are gone and
	// the ReplicaSet recreates them, Pending.
	leaving := false
	for _, n := range c.nodes {
		if !n.noticed && n.ready(t) && t >= n.noticeAt {
			n.noticed = true
			r.metrics.Interruptions++
		}
	}
	kept := c.nodes[:0]
	for _, n := range c.nodes {
		if n.noticed && t >= n.noticeAt+r.noticeS {
			for i := range c.pods {
				if c.pods[i].node == n.id {
					c.pods[i] = pod{id: c.pods[i].id, created: t, runningAt: never, readyAt: never, node: -1}
				}
			}
			continue
		}
		leaving = leaving || n.noticed && n.pods > 0
		kept = append(kept, n)
	}
	c.nodes = kept
	if leaving || c.surge > 0 {
		if err := r.replace(c, t); err != nil {
			return err
		}
	}
	r.schedule(c, t)
	if t%r.capS == 0 {
		if err := r.round(c, t); err != nil {
			return err
		}
		// Nodes without a boot delay are Ready at once.
		r.schedule(c, t)
	}
	return nil
}

// replace runs the burst controller's spot handling for c
// (interruption.Decide): replacements surge for the replicas on noticed
// nodes, which are removed once the replacements are Ready.
func (r *nodeRun) replace(c *clusterState, t int) error {
	noticed := map[int]bool{}
	coming := false
	for _, n := range c.nodes {
		noticed[n.id] = n.noticed
		coming = coming || !n.ready(t)
	}
	for _, g := range r.groups(c, t) {
		coming = coming || g.Unavailable == "" && (!g.Spot || r.allowSpot) && g.Ready+g.Requested < g.Max
	}
	c.surge = min(c.surge, int32(len(c.pods)))
	in := interruption.Input{Need: int32(len(c.pods)) - c.surge, Surge: c.surge, NodesComing: coming}
	for _, q := range c.pods {
		in.Pods = append(in.Pods, interruption.Pod{Name: itoa(q.id), Noticed: q.node >= 0 && noticed[q.node], Ready: q.readyAt <= t, Unschedulable: q.node < 0, Marked: q.node >= 0 && noticed[q.node]})
	}
	d, err := interruption.Decide(in)
	if err != nil {
		return fmt.Errorf("spot replacements in %s: %w", c.spec.Name, err)
	}
	c.surge = d.Surge
	for n := int32(len(c.pods)); n < d.Replicas; n++ {
		c.pods = append(c.pods, pod{id: r.podID(), created: t, runningAt: never, readyAt: never, node: -1})
	}
	if excess := int32(len(c.pods)) - d.Replicas; excess > 0 {
		c.remove(excess, t)
	}
	return nil
}

// schedule binds c's Pending pods, oldest first, each to the first Ready
// node without a notice that has room (in order of purchase).
func (r *nodeRun) schedule(c *clusterState, t int) {
	var waiting []int
	for i, q := range c.pods {
		if q.node < 0 {
			waiting = append(waiting, i)
		}
	}
	if len(waiting) == 0 {
		return
	}
	sort.SliceStable(waiting, func(a, b int) bool { return c.pods[waiting[a]].created < c.pods[waiting[b]].created })
	for _, i := range waiting {
		for _, n := range c.nodes {
			if n.ready(t) && !n.noticed && fitsIn(n.free, r.req) {
				n.free = capacity.Resources{CPUMilli: n.free.CPUMilli - r.req.CPUMilli, MemoryBytes: n.free.MemoryBytes - r.req.MemoryBytes, Pods: n.free.Pods - 1}
				n.pods++
				c.pods[i].node, c.pods[i].runningAt, c.pods[i].readyAt = n.id, t, t+r.startS
				break
			}
		}
	}
}

func fitsIn(free, r capacity.Resources) bool {
	return free.CPUMilli >= r.CPUMilli && free.MemoryBytes >= r.MemoryBytes && free.Pods >= 1
}

// groups is c's node groups as the capacity controller's readGroups sees
// them at t.
func (r *nodeRun) groups(c *clusterState, t int) []capacity.Group {
	out := make([]capacity.Group, len(c.spec.NodeGroups))
	for gi, g := range c.spec.NodeGroups {
		out[gi] = capacity.Group{Cluster: c.spec.Name, Name: g.Name, Allocatable: g.Allocatable, PricePerHour: g.PricePerHour, Spot: g.Spot, Min: g.Min, Max: g.Max}
	}
	for _, n := range c.nodes {
		g := &out[n.group]
		switch {
		case !n.ready(t):
			g.Requested++
		case n.noticed:
			g.Ready++
			g.Interrupted++
		default:
			g.Ready++
			g.Room = append(g.Room, n.free)
		}
	}
	return out
}

// round is one capacity controller round for c at t: nodes for the Pending
// pods (capacity.Plan), then the empty marks, then, when no pod waits for a
// node, the release of nodes empty for the policy's scale-down delay
// (capacity.Release).
func (r *nodeRun) round(c *clusterState, t int) error {
	groups := r.groups(c, t)
	var waiting int32
	for _, q := range c.pods {
		if q.node < 0 {
			waiting++
		}
	}
	var sets []capacity.PodSet
	if waiting > 0 {
		sets = []capacity.PodSet{{Name: c.spec.Name, Replicas: waiting, Requests: r.req, AllowSpot: r.allowSpot}}
	}
	plan, err := capacity.Plan(sets, groups)
	if err != nil {
		return fmt.Errorf("plan nodes of %s: %w", c.spec.Name, err)
	}
	for _, gr := range plan.Grow {
		for gi, g := range c.spec.NodeGroups {
			if g.Name == gr.Group {
				for range gr.Nodes {
					r.order(c, gi, t)
				}
			}
		}
	}
	now := Epoch.Add(time.Duration(t) * time.Second)
	var obs []capacity.Node
	for _, n := range c.nodes {
		switch {
		case n.pods > 0:
			n.emptySince = -1
		case n.emptySince < 0:
			n.emptySince = t
		}
		o := capacity.Node{Cluster: c.spec.Name, Group: c.spec.NodeGroups[n.group].Name, Name: itoa(n.id), Ready: n.ready(t) && !n.noticed, Empty: n.pods == 0}
		if o.Empty {
			o.EmptySince = Epoch.Add(time.Duration(n.emptySince) * time.Second)
		}
		obs = append(obs, o)
	}
	if len(sets) > 0 {
		return nil
	}
	delays := map[string]time.Duration{}
	for _, g := range c.spec.NodeGroups {
		delays[c.spec.Name+"/"+g.Name] = r.delay
	}
	removals, _ := capacity.Release(now, groups, obs, delays, plan.Grow)
	gone := map[string]bool{}
	for _, rm := range removals {
		gone[rm.Node] = true
	}
	kept := c.nodes[:0]
	for _, n := range c.nodes {
		if !gone[itoa(n.id)] {
			kept = append(kept, n)
		}
	}
	c.nodes = kept
	return nil
}

// free is what the burst placement counts free in c (the runtime's
// burstPlacementTarget with burstGrowable): room on its Ready nodes plus
// what its groups the policy may use can still add, less the Pending pods'
// requests; grow is the part of it not on Ready nodes (nodes to buy or
// still booting; the Pending pods take the Ready room first).
func (r *nodeRun) free(c *clusterState, t int) (cpuMilli, memBytes, growCPU, growMem int64) {
	var roomCPU, roomMem int64
	for _, g := range r.groups(c, t) {
		for _, room := range g.Room {
			roomCPU += room.CPUMilli
			roomMem += room.MemoryBytes
		}
		if g.Spot && !r.allowSpot {
			continue
		}
		n := int64(max(g.Max-g.Ready, 0))
		growCPU += n * g.Allocatable.CPUMilli
		growMem += n * g.Allocatable.MemoryBytes
	}
	for _, q := range c.pods {
		if q.node < 0 {
			roomCPU -= r.req.CPUMilli
			roomMem -= r.req.MemoryBytes
		}
	}
	cpuMilli, memBytes = max(roomCPU+growCPU, 0), max(roomMem+growMem, 0)
	return cpuMilli, memBytes, cpuMilli - max(roomCPU, 0), memBytes - max(roomMem, 0)
}

// second is c's nodes at t: how many there are (booting or Ready), how
// many are Ready, and what that second of them costs.
func (r *nodeRun) second(c *clusterState, t int) (nodes, ready int32, dollars float64) {
	for _, n := range c.nodes {
		nodes++
		if n.ready(t) {
			ready++
		}
		dollars += c.spec.NodeGroups[n.group].PricePerHour / 3600
	}
	return nodes, ready, dollars
}
