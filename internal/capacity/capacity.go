package capacity

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultScaleDownDelay is how long a node must be empty before it is
// released when a policy sets no delay: 2 minutes, the time a replacement
// would take to serve (the lab's 75 s boot, a 10 s capacity round and a
// pod's start-up, rounded up). Holding an empty node longer than a re-buy
// takes is the ski-rental break-even: it never costs more than twice the
// best choice in hindsight. Burst nodes are billed per second (EC2: 60 s
// minimum), so a release saves money at once; Karpenter's consolidateAfter
// defaults to 0s, Cluster Autoscaler's --scale-down-unneeded-time (10m)
// dates from hourly billing. docs/guides/benchmarks.md measures the choice.
const DefaultScaleDownDelay = 2 * time.Minute

// DefaultNodeBootDelay is how long a node of a burst cluster's node group
// takes from the cloud API call to a Ready node: the lab's emulators and the
// simulator both use it, so that a figure means the same in both (see
// emulator.DefaultNodeBootDelay for the published figures it comes from).
const DefaultNodeBootDelay = 75 * time.Second

// DefaultSpotNotice is the warning EC2 gives before it reclaims a Spot
// Instance (the "two-minute Spot Instance interruption notice", Amazon EC2
// User Guide), shared by the lab's EKS emulator and the simulator.
const DefaultSpotNotice = 2 * time.Minute

// ErrInvalid is wrapped by every input error.
var ErrInvalid = errors.New("invalid capacity input")

// Resources are amounts of CPU (millicores), memory (bytes) and pods.
type Resources struct {
	CPUMilli    int64
	MemoryBytes int64
	Pods        int64
}

// Taint is a node taint (as corev1.Taint, without the time).
type Taint struct {
	Key, Value string
	// Effect is NoSchedule, PreferNoSchedule or NoExecute.
	Effect string
}

// Toleration is a pod toleration (as corev1.Toleration).
type Toleration struct {
	Key string
	// Operator is Equal (the default) or Exists.
	Operator string
	Value    string
	// Effect: empty tolerates every effect.
	Effect string
}

// Group is one node group of a burst cluster: an EKS managed node group or
// an ACK node pool.
type Group struct {
	Cluster, Name string
	// Allocatable is what one node offers pods.
	Allocatable Resources
	// PricePerHour is one node's price in dollars per hour.
	PricePerHour float64
	// Spot: the group's nodes are spot (interruptible) capacity.
	Spot bool
	// Min and Max bound the group's node count.
	Min, Max int32
	// Labels and Taints are those of the group's nodes.
	Labels map[string]string
	Taints []Taint
	// Ready counts the group's Ready nodes; Requested the nodes asked for and
	// not Ready yet (the cloud's desired size minus Ready).
	Ready, Requested int32
	// Room is the free capacity on each Ready, schedulable node (allocatable
	// minus the requests of its pods): Pending pods that fit there are
	// waiting for the scheduler, not for a node (Cluster Autoscaler filters
	// them out the same way), and are packed there first.
	Room []Resources
	// Interrupted counts the group's nodes under a spot interruption notice
	// (not in Room). New nodes go to other groups first while it is above 0:
	// the cloud is reclaiming this capacity (Karpenter marks such an offering
	// unavailable for a while, likewise).
	Interrupted int32
	// Unavailable says why the group's nodes cannot come ("quota exceeded",
	// "insufficient capacity"); empty when they can.
	Unavailable string
}

// PodSet is a number of identical replicas that need a node.
type PodSet struct {
	// Name identifies the set in the plan ("shop/web").
	Name     string
	Replicas int32
	Requests Resources
	// NodeSelector must match a group's labels.
	NodeSelector map[string]string
	Tolerations  []Toleration
	// Clusters restricts the set to these burst clusters (empty: any).
	Clusters []string
	// AllowSpot lets the set run on spot groups.
	AllowSpot bool
}

// Growth is one group growing.
type Growth struct {
	Cluster, Group string
	// Nodes to add to the group's desired size.
	Nodes int32
}

// Assignment is where replicas of a set go: onto a group's nodes in flight
// or new.
type Assignment struct {
	Set            string
	Cluster, Group string
	Replicas       int32
}

// Skip is a group a set could not use, and why.
type Skip struct {
	Set, Cluster, Group, Reason string
}

// Decision is Plan's result.
type Decision struct {
	// Grow lists the groups to grow, sorted by cluster and group.
	Grow []Growth
	// Assignments say where each set's replicas will run.
	Assignments []Assignment
	// Unplaced counts, per set, the replicas no group can take.
	Unplaced map[string]int32
	// Skipped lists the groups each set could not use.
	Skipped []Skip
	// HourlyCost is the price per hour of the new nodes.
	HourlyCost float64
}

// node is a node in flight or to be ordered, with the room left on it.
type node struct {
	g    int // index into groups
	free Resources
}

// Plan decides which groups grow by how many nodes for sets. Sets are packed
// largest request first (first-fit decreasing), each replica onto the first
// node with room among the Ready nodes' room, the nodes in flight and those
// already opened by this plan (cheapest group first), else onto a new node of
// the cheapest eligible group that is below its maximum; groups with nodes
// under a spot interruption notice come after all others.
func Plan(sets []PodSet, groups []Group) (Decision, error) {
	if err := validate(sets, groups); err != nil {
		return Decision{}, err
	}
	d := Decision{Unplaced: map[string]int32{}}
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return larger(sets[order[a]].Requests, sets[order[b]].Requests) })

	var nodes []node
	for gi, g := range groups {
		for _, free := range g.Room {
			nodes = append(nodes, node{g: gi, free: free})
		}
		for range g.Requested {
			nodes = append(nodes, node{g: gi, free: g.Allocatable})
		}
	}
	added := make([]int32, len(groups))
	placed := map[[2]int]int32{} // (set, group) -> replicas

	for _, si := range order {
		s := sets[si]
		eligible := map[int]bool{}
		var candidates []int // groups that may get new nodes, cheapest per replica first
		for gi, g := range groups {
			if reason := unusable(s, g); reason != "" {
				d.Skipped = append(d.Skipped, Skip{Set: s.Name, Cluster: g.Cluster, Group: g.Name, Reason: reason})
				continue
			}
			eligible[gi] = true
			candidates = append(candidates, gi)
		}
		sort.SliceStable(candidates, func(a, b int) bool {
			if ia, ib := groups[candidates[a]].Interrupted > 0, groups[candidates[b]].Interrupted > 0; ia != ib {
				return ib
			}
			ca, cb := perReplica(groups[candidates[a]], s.Requests), perReplica(groups[candidates[b]], s.Requests)
			if ca != cb {
				return ca < cb
			}
			ga, gb := groups[candidates[a]], groups[candidates[b]]
			return ga.Cluster+"/"+ga.Name < gb.Cluster+"/"+gb.Name
		})
		rank := map[int]int{}
		for r, gi := range candidates {
			rank[gi] = r
		}
		full := map[int]bool{}
		for range s.Replicas {
			// Room on a node in flight or opened by this plan, cheapest group first.
			best := -1
			for ni := range nodes {
				n := &nodes[ni]
				if eligible[n.g] && fits(n.free, s.Requests) && (best < 0 || rank[n.g] < rank[nodes[best].g]) {
					best = ni
				}
			}
			if best < 0 {
				for _, gi := range candidates {
					g := groups[gi]
					if g.Ready+g.Requested+added[gi] >= g.Max {
						if !full[gi] {
							full[gi] = true
							d.Skipped = append(d.Skipped, Skip{Set: s.Name, Cluster: g.Cluster, Group: g.Name,
								Reason: fmt.Sprintf("at its maximum of %d nodes (%d ready, %d requested, %d more in this plan)", g.Max, g.Ready, g.Requested, added[gi])})
						}
						continue
					}
					added[gi]++
					nodes = append(nodes, node{g: gi, free: g.Allocatable})
					best = len(nodes) - 1
					break
				}
			}
			if best < 0 {
				d.Unplaced[s.Name]++
				continue
			}
			nodes[best].free = minus(nodes[best].free, s.Requests)
			placed[[2]int{si, nodes[best].g}]++
		}
	}
	for gi, n := range added {
		if n > 0 {
			d.Grow = append(d.Grow, Growth{Cluster: groups[gi].Cluster, Group: groups[gi].Name, Nodes: n})
			d.HourlyCost += float64(n) * groups[gi].PricePerHour
		}
	}
	for k, n := range placed {
		g := groups[k[1]]
		d.Assignments = append(d.Assignments, Assignment{Set: sets[k[0]].Name, Cluster: g.Cluster, Group: g.Name, Replicas: n})
	}
	sort.Slice(d.Grow, func(a, b int) bool {
		return d.Grow[a].Cluster+"/"+d.Grow[a].Group < d.Grow[b].Cluster+"/"+d.Grow[b].Group
	})
	sort.Slice(d.Assignments, func(a, b int) bool {
		x, y := d.Assignments[a], d.Assignments[b]
		return x.Set+"/"+x.Cluster+"/"+x.Group < y.Set+"/"+y.Cluster+"/"+y.Group
	})
	for k, v := range d.Unplaced {
		if v == 0 {
			delete(d.Unplaced, k)
		}
	}
	return d, nil
}

// PerNode is how many replicas with requests r one node of g holds.
func PerNode(g Group, r Resources) int64 {
	n := g.Allocatable.Pods
	if r.CPUMilli > 0 {
		n = min(n, g.Allocatable.CPUMilli/r.CPUMilli)
	}
	if r.MemoryBytes > 0 {
		n = min(n, g.Allocatable.MemoryBytes/r.MemoryBytes)
	}
	return max(n, 0)
}

// perReplica is the price per hour of one replica on a full node of g.
func perReplica(g Group, r Resources) float64 {
	n := PerNode(g, r)
	if n == 0 {
		return math.Inf(1)
	}
	return g.PricePerHour / float64(n)
}

// unusable says why set s cannot use group g ("" when it can).
func unusable(s PodSet, g Group) string {
	if len(s.Clusters) > 0 && !slices.Contains(s.Clusters, g.Cluster) {
		return "not a burst target of the policy"
	}
	if g.Spot && !s.AllowSpot {
		return "spot capacity, not allowed by the policy"
	}
	for k, v := range s.NodeSelector {
		if got, ok := g.Labels[k]; !ok || got != v {
			return fmt.Sprintf("node selector %s=%s does not match the group's labels", k, v)
		}
	}
	for _, t := range g.Taints {
		if t.Effect == "PreferNoSchedule" {
			continue
		}
		if !tolerated(t, s.Tolerations) {
			return fmt.Sprintf("taint %s=%s:%s is not tolerated", t.Key, t.Value, t.Effect)
		}
	}
	if PerNode(g, s.Requests) == 0 {
		return fmt.Sprintf("one node (%dm CPU, %d bytes, %d pods) cannot hold one replica (%dm CPU, %d bytes)",
			g.Allocatable.CPUMilli, g.Allocatable.MemoryBytes, g.Allocatable.Pods, s.Requests.CPUMilli, s.Requests.MemoryBytes)
	}
	if g.Unavailable != "" {
		return "its nodes cannot come: " + g.Unavailable
	}
	return ""
}

// tolerated reports whether a toleration of ts tolerates t (as
// corev1.Toleration.ToleratesTaint).
func tolerated(t Taint, ts []Toleration) bool {
	for _, tol := range ts {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		switch tol.Operator {
		case "Exists":
			if tol.Key == "" || tol.Key == t.Key {
				return true
			}
		case "", "Equal":
			if tol.Key == t.Key && tol.Value == t.Value {
				return true
			}
		}
	}
	return false
}

func fits(free, r Resources) bool {
	return free.CPUMilli >= r.CPUMilli && free.MemoryBytes >= r.MemoryBytes && free.Pods >= 1
}

func minus(free, r Resources) Resources {
	return Resources{CPUMilli: free.CPUMilli - r.CPUMilli, MemoryBytes: free.MemoryBytes - r.MemoryBytes, Pods: free.Pods - 1}
}

// larger orders requests for first-fit decreasing: CPU, then memory.
func larger(a, b Resources) bool {
	if a.CPUMilli != b.CPUMilli {
		return a.CPUMilli > b.CPUMilli
	}
	return a.MemoryBytes > b.MemoryBytes
}

func validate(sets []PodSet, groups []Group) error {
	var errs []string
	seen := map[string]bool{}
	for i, g := range groups {
		key := g.Cluster + "/" + g.Name
		switch {
		case g.Cluster == "" || g.Name == "":
			errs = append(errs, fmt.Sprintf("groups[%d]: cluster and name are required", i))
		case seen[key]:
			errs = append(errs, fmt.Sprintf("groups[%d]: %s is listed twice", i, key))
		case g.Min < 0 || g.Max < g.Min:
			errs = append(errs, fmt.Sprintf("groups[%d] %s: min %d and max %d: use 0 <= min <= max", i, key, g.Min, g.Max))
		case g.Ready < 0 || g.Requested < 0:
			errs = append(errs, fmt.Sprintf("groups[%d] %s: ready %d and requested %d must be >= 0", i, key, g.Ready, g.Requested))
		case g.Allocatable.CPUMilli < 0 || g.Allocatable.MemoryBytes < 0 || g.Allocatable.Pods < 0:
			errs = append(errs, fmt.Sprintf("groups[%d] %s: allocatable must be >= 0", i, key))
		case g.PricePerHour < 0 || math.IsNaN(g.PricePerHour) || math.IsInf(g.PricePerHour, 0):
			errs = append(errs, fmt.Sprintf("groups[%d] %s: price per hour %v: use a finite price >= 0", i, key, g.PricePerHour))
		}
		seen[key] = true
	}
	for i, s := range sets {
		if s.Replicas < 0 || s.Requests.CPUMilli < 0 || s.Requests.MemoryBytes < 0 {
			errs = append(errs, fmt.Sprintf("sets[%d] %s: replicas and requests must be >= 0", i, s.Name))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}
