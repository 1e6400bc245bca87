package simulate

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// nodeEvent changes a node cluster's replica count at a second, as the burst
// placement (add) or a scale-back (remove) would.
type nodeEvent struct {
	at          int
	add, remove int32
}

// nodeTrace is what a scripted run of the node model saw.
type nodeTrace struct {
	ready, nodes, nodesReady, pending, pods []int32
	cost                                    float64
	interruptions                           int
}

// runNodes steps cluster c from second 0 to end-1 with the events applied
// before each second's step, as Run does (placement, then the node model).
func runNodes(t *testing.T, c *clusterState, r *nodeRun, end int, events []nodeEvent, before func(t int)) nodeTrace {
	t.Helper()
	var out nodeTrace
	r.start(c)
	for s := 0; s < end; s++ {
		if before != nil {
			before(s)
		}
		for _, e := range events {
			if e.at != s {
				continue
			}
			for range e.add {
				c.pods = append(c.pods, pod{id: r.podID(), created: s, runningAt: never, readyAt: never, node: -1})
			}
			c.remove(e.remove, s)
		}
		if err := r.step(c, s); err != nil {
			t.Fatalf("second %d: %v", s, err)
		}
		n, nr, dollars := r.second(c, s)
		out.ready = append(out.ready, c.ready(s))
		out.nodes = append(out.nodes, n)
		out.nodesReady = append(out.nodesReady, nr)
		out.pending = append(out.pending, int32(len(c.pods))-c.bound())
		out.pods = append(out.pods, int32(len(c.pods)))
		out.cost += dollars
	}
	out.interruptions = r.metrics.Interruptions
	return out
}

// testNodeCluster is a burst cluster "eks" whose pods request 500m and 1Gi,
// with the given groups.
func testNodeCluster(groups ...NodeGroupSpec) (*clusterState, *nodeRun) {
	req := capacity.Resources{CPUMilli: 500, MemoryBytes: 1 << 30, Pods: 1}
	c := &clusterState{spec: ClusterSpec{Name: "eks", NodeGroups: groups}, req: req}
	id := 0
	r := &nodeRun{req: req, startS: 20, capS: 10, noticeS: 120, delay: 10 * time.Minute, metrics: &Metrics{},
		podID: func() int { id++; return id - 1 }}
	return c, r
}

// onDemand is a group of nodes of 2 CPU (4 of the test pods) at $0.40/h.
func onDemand(min, max int32) NodeGroupSpec {
	return NodeGroupSpec{Name: "od", Allocatable: capacity.Resources{CPUMilli: 2000, MemoryBytes: 8 << 30, Pods: 110}, PricePerHour: 0.40, Min: min, Max: max, BootDelay: 75 * time.Second}
}

func spot(min, max int32) NodeGroupSpec {
	g := onDemand(min, max)
	g.Name, g.Spot, g.PricePerHour = "spot", true, 0.12
	return g
}

// firstAt is the first second at which v[s] == want (-1: never).
func firstAt(v []int32, want int32) int {
	for s, x := range v {
		if x == want {
			return s
		}
	}
	return -1
}

func TestNodeModel(t *testing.T) {
	t.Run("a step that needs 2 nodes", func(t *testing.T) {
		// 6 pods placed at second 3; a node holds 4 (2000m / 500m): the
		// capacity round at second 10 (every 10 s) orders ceil(6/4) = 2
		// nodes, Ready at 10 + 75 = 85; the scheduler binds the pods at 85,
		// Ready 20 s later at 105. Removed at 200, the nodes are empty from
		// the round at 200 and released at the round at 200 + 10 min = 800.
		// Cost: 2 nodes x (800 - 10) s x $0.40/h.
		c, r := testNodeCluster(onDemand(0, 10))
		got := runNodes(t, c, r, 900, []nodeEvent{{at: 3, add: 6}, {at: 200, remove: 6}}, nil)
		if s := firstAt(got.nodes, 2); s != 10 {
			t.Errorf("2 nodes ordered at second %d, want 10", s)
		}
		if s := firstAt(got.nodesReady, 2); s != 85 {
			t.Errorf("2 nodes Ready at second %d, want 85", s)
		}
		if s := firstAt(got.pending, 0); s != 0 {
			t.Fatalf("pending before the step: %d", got.pending[0])
		}
		if got.pending[84] != 6 || got.pending[85] != 0 {
			t.Errorf("pending at 84 and 85 = %d and %d, want 6 and 0", got.pending[84], got.pending[85])
		}
		if s := firstAt(got.ready, 6); s != 105 {
			t.Errorf("6 pods Ready at second %d, want 105", s)
		}
		if got.nodes[799] != 2 || got.nodes[800] != 0 {
			t.Errorf("nodes at 799 and 800 = %d and %d, want 2 and 0 (released after the 10 min delay)", got.nodes[799], got.nodes[800])
		}
		if want := 2 * 790 * 0.40 / 3600; abs(got.cost-want) > 1e-9 {
			t.Errorf("cost $%.6f, want $%.6f (node-hours at the group price)", got.cost, want)
		}
	})
	t.Run("room on a Ready node: no order", func(t *testing.T) {
		// One node from the group's minimum, Ready from the start: 3 pods
		// at second 3 are bound at once, Ready at 23; nothing is ordered
		// and the minimum is never released.
		c, r := testNodeCluster(onDemand(1, 10))
		got := runNodes(t, c, r, 900, []nodeEvent{{at: 3, add: 3}, {at: 100, remove: 3}}, nil)
		if s := firstAt(got.ready, 3); s != 23 {
			t.Errorf("3 pods Ready at second %d, want 23", s)
		}
		for s, n := range got.nodes {
			if n != 1 {
				t.Fatalf("second %d: %d nodes, want the minimum of 1 throughout", s, n)
			}
		}
	})
	t.Run("the group's maximum caps the order", func(t *testing.T) {
		// Max 1 node: 4 of the 6 pods run, 2 stay Pending.
		c, r := testNodeCluster(onDemand(0, 1))
		got := runNodes(t, c, r, 300, []nodeEvent{{at: 3, add: 6}}, nil)
		if got.nodes[299] != 1 || got.ready[299] != 4 || got.pending[299] != 2 {
			t.Errorf("at the end: %d nodes, %d Ready, %d Pending; want 1, 4, 2", got.nodes[299], got.ready[299], got.pending[299])
		}
	})
	t.Run("spot first when the policy allows it", func(t *testing.T) {
		for _, allow := range []bool{false, true} {
			c, r := testNodeCluster(onDemand(0, 10), spot(0, 10))
			r.allowSpot = allow
			runNodes(t, c, r, 20, []nodeEvent{{at: 3, add: 2}}, nil)
			want := "od"
			if allow {
				want = "spot" // $0.03 per replica-hour against $0.10
			}
			if len(c.nodes) != 1 || c.spec.NodeGroups[c.nodes[0].group].Name != want {
				t.Errorf("allowSpot %v: nodes %v, want one of group %s", allow, c.nodes, want)
			}
		}
	})
	t.Run("a spot interruption: replacements before the reclaim", func(t *testing.T) {
		// A spot node (the group's minimum, boot 0) runs 2 Ready pods; its
		// notice comes at 100. The burst controller surges 2 replacements at
		// once; the round at 100 orders an on-demand node (the interrupted
		// group comes last), Ready at 175; the replacements are bound at
		// 175 and Ready at 195, when the 2 leaving pods are removed; the spot
		// node would have gone at 100 + 120 = 220. Ready pods never drop
		// below 2.
		sp := spot(1, 1)
		sp.BootDelay = 0
		c, r := testNodeCluster(onDemand(0, 10), sp)
		r.allowSpot = true
		got := runNodes(t, c, r, 400, []nodeEvent{{at: 3, add: 2}}, func(s int) {
			if s == 0 {
				c.nodes[0].noticeAt = 100
			}
		})
		if got.interruptions != 1 {
			t.Errorf("%d interruptions, want 1", got.interruptions)
		}
		if got.ready[194] != 2 || got.ready[195] != 2 || int32(len(c.pods)) != 2 {
			t.Errorf("ready at 194 and 195 = %d and %d, pods at the end %d; want 2, 2, 2", got.ready[194], got.ready[195], len(c.pods))
		}
		if got.pods[194] != 4 || got.pods[195] != 2 {
			t.Errorf("pods at 194 and 195 = %d and %d, want 4 (2 leaving, 2 replacements) and 2", got.pods[194], got.pods[195])
		}
		if got.pending[100] != 2 || got.pending[175] != 0 {
			t.Errorf("pending at 100 and 175 = %d and %d, want 2 (the surge) and 0", got.pending[100], got.pending[175])
		}
		for s := 23; s < 400; s++ {
			if got.ready[s] < 2 {
				t.Fatalf("second %d: %d Ready pods, want at least 2", s, got.ready[s])
			}
		}
		if c.surge != 0 {
			t.Errorf("surge %d at the end, want 0", c.surge)
		}
		for _, n := range c.nodes {
			if c.spec.NodeGroups[n.group].Spot {
				t.Errorf("spot node %d still there after its reclaim at 220", n.id)
			}
		}
	})
	t.Run("a spot reclaim before the replacements: pods lost, recreated", func(t *testing.T) {
		// Only the spot group, at its maximum of 1: no replacement node can
		// come. At the reclaim (100 + 120 = 220) the 2 pods are gone and
		// recreated Pending; the group then orders a new node at the round
		// at 220, Ready at 295, pods Ready at 315.
		sp := spot(1, 1)
		sp.BootDelay = 75 * time.Second
		c, r := testNodeCluster(sp)
		r.allowSpot = true
		got := runNodes(t, c, r, 400, []nodeEvent{{at: 3, add: 2}}, func(s int) {
			if s == 0 {
				c.nodes[0].noticeAt = 100
			}
		})
		if got.ready[219] != 2 || got.ready[220] != 0 {
			t.Errorf("ready at 219 and 220 = %d and %d, want 2 and 0", got.ready[219], got.ready[220])
		}
		if s := firstAt(got.ready[220:], 2); s+220 != 315 {
			t.Errorf("pods Ready again at %d, want 315", s+220)
		}
	})
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestParseNodeGroups(t *testing.T) {
	base := `apiVersion: simulate.hca.dev/v1alpha1
kind: ClusterModel
clusters:
  - name: private
    role: primary
    capacityPods: 4
  - name: eks
    role: burst
`
	for _, tc := range []struct {
		name, yaml, err string
	}{
		{"ok", `    nodeGroups:
      - name: od
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 5`, ""},
		{"no price", `    nodeGroups:
      - name: od
        allocatable: {cpu: "2", memory: 8Gi}
        maxNodes: 5`, "clusters[1].nodeGroups[0].pricePerHour is missing"},
		{"too small", `    nodeGroups:
      - name: od
        allocatable: {cpu: 100m, memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 5`, "cannot hold one pod"},
		{"interruptions on demand", `    nodeGroups:
      - name: od
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 5
        interruptionsPerHour: 0.1`, "only spot nodes are interrupted"},
		{"with provisioningDelay", `    provisioningDelay: 60s
    nodeGroups:
      - name: od
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 5`, "remove those"},
		{"capacity type", `    nodeGroups:
      - name: od
        capacityType: spot
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 5`, `capacityType "spot" is unknown: use OnDemand or Spot`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseClusterModel([]byte(base + tc.yaml + "\n"))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				c, _ := m.Cluster("eks")
				g := c.NodeGroups[0]
				// Default boot delay is the lab's; 5 nodes x 4 pods.
				if g.BootDelay != capacity.DefaultNodeBootDelay || c.CapacityPods != 20 || g.Allocatable.Pods != 110 {
					t.Errorf("group %+v, capacity %d: want the lab's boot delay, 20 pods, 110 pods per node", g, c.CapacityPods)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

// TestRunWithNodeGroups runs the engine (the reactive floor, which decides
// the demand of the load it sees) on a constant load of 6 pods' worth with a
// private cluster of 2 pods and a burst cluster whose node group starts
// empty.
func TestRunWithNodeGroups(t *testing.T) {
	m, err := ParseClusterModel([]byte(`apiVersion: simulate.hca.dev/v1alpha1
kind: ClusterModel
clusters:
  - name: private
    role: primary
    capacityPods: 2
  - name: eks
    role: burst
    nodeGroups:
      - name: od
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 10
`))
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultPolicy(m)
	// 40 requests/s per pod at 80 % of 0.5 CPU and 10 m CPU per request:
	// 230 requests/s need 6 pods.
	tr := workload.Trace{{Seconds: 0, RPS: 230}, {Seconds: 299, RPS: 230}}
	r, err := ReactiveFloor(p, m, tr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Series
	// The run starts warm with 2 pods in the private cluster and 4 Pending
	// past the threshold: placed in eks at second 0, where the capacity
	// round at second 0 orders 1 node (4 pods fit), Ready at the lab's 75 s;
	// the pods are bound at 75 and Ready after the lab's start-up (the
	// default pod's, 10 s) at 85.
	if s.Nodes[1][0] != 1 || s.NodesReady[1][74] != 0 || s.NodesReady[1][75] != 1 {
		t.Errorf("nodes at 0: %d; Ready at 74, 75: %d, %d; want 1; 0, 1", s.Nodes[1][0], s.NodesReady[1][74], s.NodesReady[1][75])
	}
	if s.Ready[1][84] != 0 || s.Ready[1][85] != 4 {
		t.Errorf("eks Ready pods at 84, 85: %d, %d; want 0, 4", s.Ready[1][84], s.Ready[1][85])
	}
	if s.Scheduled[1][74] != 0 || s.Scheduled[1][75] != 4 {
		t.Errorf("eks scheduled pods at 74, 75: %d, %d; want 0 (Pending for a node), 4", s.Scheduled[1][74], s.Scheduled[1][75])
	}
	// Cost: 300 s of 2 private pods at the model's prices, and of one node at
	// $0.40/h (not the 4 pods' requests).
	T := 300.0
	want := 2*m.HourlyPrice(m.Primary())*T/3600 + 0.4*T/3600
	if abs(r.Metrics.Cost-want) > 1e-9 || abs(r.Metrics.NodeHours-T/3600) > 1e-9 {
		t.Errorf("cost $%.6f, node-hours %.4f; want $%.6f, %.4f", r.Metrics.Cost, r.Metrics.NodeHours, want, T/3600)
	}
}

// The chart of a run with node groups has the nodes panel, and that of the
// adaptive algorithm its forecast beside the load.
func TestSVGShowsNodesAndForecast(t *testing.T) {
	for _, tc := range []struct {
		alg      string
		forecast bool
	}{{"adaptive", true}, {"kubernetes", false}} {
		r := run(t, refPolicy(t, tc.alg, 0), refModel(t), refTrace(t, "private-overflow"))
		var b bytes.Buffer
		if err := WriteSVG(&b, r, "private-overflow"); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		if !strings.Contains(svg, "burst nodes: ordered") || !strings.Contains(svg, "nodes in eks") {
			t.Errorf("%s: no node panel", tc.alg)
		}
		if got := strings.Contains(svg, "forecast (for then)"); got != tc.forecast {
			t.Errorf("%s: forecast shown %v, want %v", tc.alg, got, tc.forecast)
		}
	}
}

// Both reference cluster models parse: with node groups (cluster.yaml) and
// the one before them (cluster-pods.yaml, provisioning delays).
func TestReferenceModels(t *testing.T) {
	for file, nodes := range map[string]bool{"cluster.yaml": true, "cluster-pods.yaml": false} {
		data, err := os.ReadFile("../../examples/traces/" + file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseClusterModel(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if m.hasNodeGroups() != nodes {
			t.Errorf("%s: node groups %v, want %v", file, m.hasNodeGroups(), nodes)
		}
	}
}

// BenchmarkSimulatedBurst simulates the private-overflow trace (20 minutes,
// 11 replicas burst) with adaptive on the reference model with node groups
// and on the one before them: the cost of modelling nodes.
func BenchmarkSimulatedBurst(b *testing.B) {
	tr := refTrace(b, "private-overflow")
	for _, file := range []string{"cluster.yaml", "cluster-pods.yaml"} {
		data, err := os.ReadFile("../../examples/traces/" + file)
		if err != nil {
			b.Fatal(err)
		}
		m, err := ParseClusterModel(data)
		if err != nil {
			b.Fatal(err)
		}
		p := refPolicy(b, "adaptive", 0)
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(p, m, tr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A run whose burst replicas start on a spot node (cheaper per replica)
// with a mean life of 10 minutes: its notice comes (seeded: the same seed,
// the same run) and is survived by replacements on an on-demand node bought
// on the notice (the interrupted group comes last), without the Ready burst
// replicas ever falling below 4: the replacements (10 s round + 75 s boot +
// 10 s start-up = at most 95 s) are Ready before the 120 s notice runs out.
func TestRunSpotInterruptions(t *testing.T) {
	model := func(seed int) ClusterModel {
		m, err := ParseClusterModel([]byte(`apiVersion: simulate.hca.dev/v1alpha1
kind: ClusterModel
seed: ` + itoa(seed) + `
clusters:
  - name: private
    role: primary
    capacityPods: 2
  - name: eks
    role: burst
    nodeGroups:
      - name: od
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.4
        maxNodes: 10
      - name: spot
        capacityType: Spot
        allocatable: {cpu: "2", memory: 8Gi}
        pricePerHour: 0.1
        maxNodes: 10
        interruptionsPerHour: 6
`))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	tr := workload.Trace{{Seconds: 0, RPS: 230}, {Seconds: 3599, RPS: 230}}
	run := func(seed int) *Result {
		m := model(seed)
		p := DefaultPolicy(m)
		p.AllowSpot = true
		r, err := ReactiveFloor(p, m, tr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run(1)
	if r.Metrics.Interruptions == 0 {
		t.Fatal("no spot notice in an hour at 6 per node-hour")
	}
	// 4 burst replicas, Ready from 85 s (as in TestRunWithNodeGroups).
	for s := 85; s < len(r.Series.Load); s++ {
		if got := r.Series.Ready[1][s]; got < 4 {
			t.Fatalf("second %d: %d burst replicas Ready, want 4 throughout (%d notices)", s, got, r.Metrics.Interruptions)
		}
	}
	if again := run(1); again.Metrics.Interruptions != r.Metrics.Interruptions || again.Metrics.Cost != r.Metrics.Cost {
		t.Errorf("seed 1 twice: %d and %d notices, $%v and $%v", r.Metrics.Interruptions, again.Metrics.Interruptions, r.Metrics.Cost, again.Metrics.Cost)
	}
}

// maxOf scales the panels: seconds without a forecast (NaN) and infinite
// latencies must not decide the scale.
func TestMaxOf(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{1400, nan, 200}, 1400},
		{[]float64{nan, nan}, 0},
		{[]float64{inf, 3, nan}, 3},
	} {
		if got := maxOf(tc.in); got != tc.want {
			t.Errorf("maxOf(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestNodeTimeline: pods placed in a burst cluster whose on-demand group (2
// CPU per node: 4 pods of 500m) starts empty. The capacity round runs every
// 10 s: nodes are ordered at the first round at or after the placement,
// Ready boot later, the pods are bound then and Ready start-up later (20 s);
// once the pods are removed, the round that first sees a node empty marks
// it, and the first round at least the scale-down delay after releases it.
func TestNodeTimeline(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		pods                  int32
		placeAt, removeAt     int
		boot, delay           time.Duration
		nodes                 int32
		orderAt, nodesReadyAt int
		podsReadyAt, gone     int
	}{
		// ceil(6/4) = 2 nodes at 10; 10+75 = 85; 85+20 = 105; 200+600 = 800.
		{"2 nodes, the lab's boot", 6, 3, 200, 75 * time.Second, 10 * time.Minute, 2, 10, 85, 105, 800},
		// Placed on a round: ordered the same second.
		{"placed on a round", 6, 10, 200, 75 * time.Second, 10 * time.Minute, 2, 10, 85, 105, 800},
		// ceil(9/4) = 3 nodes; 10+120 = 130; 150; removed at 295, empty
		// from the round at 300, released at 900.
		{"3 nodes, 2 min boot", 9, 3, 295, 2 * time.Minute, 10 * time.Minute, 3, 10, 130, 150, 900},
		// No boot delay (the lab's 0): Ready at the order.
		{"no boot delay", 4, 3, 200, 0, 10 * time.Minute, 1, 10, 10, 30, 800},
		// A scale-down delay of 0 releases at the round that sees them empty.
		{"no scale-down delay", 6, 3, 200, 75 * time.Second, 0, 2, 10, 85, 105, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := onDemand(0, 10)
			g.BootDelay = tc.boot
			c, r := testNodeCluster(g)
			r.delay = tc.delay
			got := runNodes(t, c, r, 1000, []nodeEvent{{at: tc.placeAt, add: tc.pods}, {at: tc.removeAt, remove: tc.pods}}, nil)
			if s := firstAt(got.nodes, tc.nodes); s != tc.orderAt || got.nodes[s-1] != 0 {
				t.Errorf("%d nodes ordered at %d, want at %d (from 0)", tc.nodes, s, tc.orderAt)
			}
			if s := firstAt(got.nodesReady, tc.nodes); s != tc.nodesReadyAt {
				t.Errorf("%d nodes Ready at %d, want %d", tc.nodes, s, tc.nodesReadyAt)
			}
			if s := firstAt(got.ready, tc.pods); s != tc.podsReadyAt {
				t.Errorf("%d pods Ready at %d, want %d", tc.pods, s, tc.podsReadyAt)
			}
			if s := firstAt(got.nodes[tc.removeAt:], 0) + tc.removeAt; s != tc.gone {
				t.Errorf("nodes released at %d, want %d", s, tc.gone)
			}
		})
	}
}

// The policy's spec.capacity reaches the node model: allowSpot, and the
// scale-down delay with the CRD's default of 10 minutes.
func TestPolicyCapacity(t *testing.T) {
	const head = "apiVersion: hca.dev/v1alpha1\nkind: BurstPolicy\nmetadata: {name: p}\nspec:\n  primaryCluster: private\n  burstTargets: [{cluster: eks}]\n  maxReplicas: 10\n"
	for _, tc := range []struct {
		name, spec string
		spot       bool
		delay      time.Duration
	}{
		{"no capacity block", "", false, 2 * time.Minute},
		{"spot, delay 5m", "  capacity: {allowSpot: true, scaleDownDelay: 5m}\n", true, 5 * time.Minute},
		{"spot only", "  capacity: {allowSpot: true}\n", true, 2 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePolicy([]byte(head + tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			if p.AllowSpot != tc.spot || p.ScaleDownDelay != tc.delay {
				t.Errorf("allowSpot %v, scaleDownDelay %v; want %v, %v", p.AllowSpot, p.ScaleDownDelay, tc.spot, tc.delay)
			}
		})
	}
}

// TestRoom: the replicas that start without waiting for a node
// (scaling.Input.Room): the primary's free room, free slots on Ready burst
// nodes without a spot notice, burst clusters of pods without a
// provisioning delay; less the pods waiting for a place.
func TestRoom(t *testing.T) {
	req := capacity.Resources{CPUMilli: 500, MemoryBytes: 1 << 30, Pods: 1}
	groups := []NodeGroupSpec{{Name: "burst"}}
	// node is a burst node with room for pods pods of req, Ready at 10.
	node := func(pods int64, noticed bool) *simNode {
		return &simNode{readyAt: 10, noticed: noticed, free: capacity.Resources{CPUMilli: pods * 500, MemoryBytes: pods << 30, Pods: 58}}
	}
	pods := func(n int, bound bool) []pod {
		out := make([]pod, n)
		for i := range out {
			out[i].node = -1
			if bound {
				out[i].node = 0
			}
		}
		return out
	}
	primary := func(capacity int32, n int) *clusterState {
		return &clusterState{spec: ClusterSpec{Name: "private", CapacityPods: capacity}, pods: pods(n, false)}
	}
	cases := []struct {
		name     string
		clusters []*clusterState
		pending  int
		t        int
		want     int32
	}{
		{"primary with room", []*clusterState{primary(24, 20)}, 0, 20, 4},
		{"full primary, pending pods beyond it", []*clusterState{primary(24, 24)}, 3, 20, 0},
		{"primary without a capacity: unlimited", []*clusterState{primary(0, 5)}, 0, 20, math.MaxInt32},
		{"Ready burst nodes' free slots", []*clusterState{primary(24, 24), {spec: ClusterSpec{Name: "eks", NodeGroups: groups}, nodes: []*simNode{node(3, false), node(2, false)}}}, 0, 20, 5},
		{"a booting node is no room", []*clusterState{primary(24, 24), {spec: ClusterSpec{Name: "eks", NodeGroups: groups}, nodes: []*simNode{node(3, false)}}}, 0, 5, 0},
		{"a noticed spot node is no room", []*clusterState{primary(24, 24), {spec: ClusterSpec{Name: "eks", NodeGroups: groups}, nodes: []*simNode{node(3, true)}}}, 0, 20, 0},
		{"unbound burst pods take the room first", []*clusterState{primary(24, 22), {spec: ClusterSpec{Name: "eks", NodeGroups: groups}, pods: pods(3, false), nodes: []*simNode{node(2, false)}}}, 0, 20, 1},
		{"a burst cluster with a provisioning delay is no room", []*clusterState{primary(24, 24), {spec: ClusterSpec{Name: "cloud", ProvisioningDelay: time.Minute}}}, 0, 20, 0},
		{"a burst cluster of pods at once", []*clusterState{primary(24, 24), {spec: ClusterSpec{Name: "cloud", CapacityPods: 10}, pods: pods(4, false)}}, 2, 20, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := room(c.clusters, make([]int, c.pending), &nodeRun{req: req}, c.t); got != c.want {
				t.Errorf("room = %d, want %d", got, c.want)
			}
		})
	}
}
