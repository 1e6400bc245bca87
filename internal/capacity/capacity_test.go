package capacity

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

const gi = int64(1) << 30

// The worked examples' groups. m5.xlarge-like nodes: 4 CPU, 16 GiB, 58 pods;
// on demand $0.192/h, spot $0.0672/h; an ACK node $0.25/h.
func eksOD() Group {
	return Group{Cluster: "eks", Name: "od", Allocatable: Resources{4000, 16 * gi, 58}, PricePerHour: 0.192, Max: 10,
		Labels: map[string]string{"eks.amazonaws.com/capacityType": "ON_DEMAND"}}
}

func eksSpot() Group {
	return Group{Cluster: "eks", Name: "spot", Allocatable: Resources{4000, 16 * gi, 58}, PricePerHour: 0.0672, Spot: true, Max: 10,
		Labels: map[string]string{"eks.amazonaws.com/capacityType": "SPOT"}}
}

func ackOD() Group {
	return Group{Cluster: "ack", Name: "pool", Allocatable: Resources{4000, 16 * gi, 64}, PricePerHour: 0.25, Max: 10,
		Labels: map[string]string{"disktype": "ssd"}}
}

func web(n int32) PodSet {
	return PodSet{Name: "shop/web", Replicas: n, Requests: Resources{CPUMilli: 500, MemoryBytes: gi}}
}

// with3 is s with 3 replicas.
func with3(s PodSet) PodSet {
	s.Replicas = 3
	return s
}

func TestPlan(t *testing.T) {
	with := func(g Group, f func(*Group)) Group { f(&g); return g }
	spotOK := web(10)
	spotOK.AllowSpot = true
	ssd := web(10)
	ssd.NodeSelector = map[string]string{"disktype": "ssd"}
	tolerant := web(10)
	tolerant.AllowSpot = true
	tolerant.Tolerations = []Toleration{{Key: "spot", Operator: "Exists", Effect: "NoSchedule"}}
	tainted := with(eksSpot(), func(g *Group) { g.Taints = []Taint{{Key: "spot", Value: "true", Effect: "NoSchedule"}} })
	big := web(10)
	big.Requests.CPUMilli = 5000

	tests := []struct {
		name   string
		sets   []PodSet
		groups []Group
		want   Decision
	}{
		{
			// 500m/1Gi: a node holds min(4000/500, 16/1, 58) = 8 replicas.
			// Per replica: EKS 0.192/8 = $0.024, ACK 0.25/8 = $0.03125,
			// so EKS; 10 replicas need ceil(10/8) = 2 nodes = $0.384/h.
			name: "cheapest cost per replica first, enough nodes for all",
			sets: []PodSet{web(10)}, groups: []Group{ackOD(), eksOD()},
			want: Decision{Grow: []Growth{{"eks", "od", 2}}, Assignments: []Assignment{{"shop/web", "eks", "od", 10}}, HourlyCost: 0.384},
		},
		{
			// Spot per replica 0.0672/8 = $0.0084 < $0.024: 2 spot nodes, $0.1344/h.
			name: "spot first when the policy allows it",
			sets: []PodSet{spotOK}, groups: []Group{eksOD(), eksSpot()},
			want: Decision{Grow: []Growth{{"eks", "spot", 2}}, Assignments: []Assignment{{"shop/web", "eks", "spot", 10}}, HourlyCost: 0.1344},
		},
		{
			// A spot node is under an interruption notice: its group comes
			// after the on-demand one although cheaper; the replacements
			// need ceil(3/8) = 1 on-demand node, $0.192/h.
			name: "a group under a spot notice comes last",
			sets: []PodSet{with3(spotOK)}, groups: []Group{with(eksSpot(), func(g *Group) { g.Ready, g.Interrupted = 1, 1 }), eksOD()},
			want: Decision{Grow: []Growth{{"eks", "od", 1}}, Assignments: []Assignment{{"shop/web", "eks", "od", 3}}, HourlyCost: 0.192},
		},
		{
			// The on-demand group is at its maximum: the spot group still
			// takes them (a later notice may come; no replica waits).
			name: "a group under a spot notice is used when nothing else can grow",
			sets: []PodSet{with3(spotOK)}, groups: []Group{with(eksSpot(), func(g *Group) { g.Ready, g.Interrupted = 1, 1 }), with(eksOD(), func(g *Group) { g.Max = 0 })},
			want: Decision{Grow: []Growth{{"eks", "spot", 1}}, Assignments: []Assignment{{"shop/web", "eks", "spot", 3}}, HourlyCost: 0.0672,
				Skipped: []Skip{{"shop/web", "eks", "od", "at its maximum of 0 nodes (0 ready, 0 requested, 0 more in this plan)"}}},
		},
		{
			name: "spot skipped when the policy does not allow it",
			sets: []PodSet{web(10)}, groups: []Group{eksSpot(), eksOD()},
			want: Decision{Grow: []Growth{{"eks", "od", 2}}, Assignments: []Assignment{{"shop/web", "eks", "od", 10}}, HourlyCost: 0.384,
				Skipped: []Skip{{"shop/web", "eks", "spot", "spot capacity, not allowed by the policy"}}},
		},
		{
			// One node in flight holds 8 of the 10; only 1 more node is ordered.
			name: "nodes in flight are used before ordering more (no double order)",
			sets: []PodSet{web(10)}, groups: []Group{with(eksOD(), func(g *Group) { g.Requested = 1 })},
			want: Decision{Grow: []Growth{{"eks", "od", 1}}, Assignments: []Assignment{{"shop/web", "eks", "od", 10}}, HourlyCost: 0.192},
		},
		{
			// A Ready node with 2 CPU / 8 GiB free takes 4 of the 500m/1Gi
			// replicas the scheduler has not bound yet; 6 need new nodes:
			// ceil(6/8) = 1.
			name: "room on Ready nodes is used first (pods waiting for the scheduler, not for a node)",
			sets: []PodSet{web(10)}, groups: []Group{with(eksOD(), func(g *Group) { g.Ready, g.Room = 1, []Resources{{2000, 8 * gi, 50}} })},
			want: Decision{Grow: []Growth{{"eks", "od", 1}}, Assignments: []Assignment{{"shop/web", "eks", "od", 10}}, HourlyCost: 0.192},
		},
		{
			name: "in flight covers everything: nothing ordered",
			sets: []PodSet{web(8)}, groups: []Group{with(eksOD(), func(g *Group) { g.Requested = 1 })},
			want: Decision{Assignments: []Assignment{{"shop/web", "eks", "od", 8}}},
		},
		{
			// EKS: 2 ready of max 3, room for 1 node = 8 replicas; the other
			// 2 go to one ACK node.
			name: "a group's maximum is honoured, the rest spills to the next cheapest",
			sets: []PodSet{web(10)}, groups: []Group{with(eksOD(), func(g *Group) { g.Ready, g.Max = 2, 3 }), ackOD()},
			want: Decision{Grow: []Growth{{"ack", "pool", 1}, {"eks", "od", 1}}, HourlyCost: 0.192 + 0.25,
				Assignments: []Assignment{{"shop/web", "ack", "pool", 2}, {"shop/web", "eks", "od", 8}},
				Skipped:     []Skip{{"shop/web", "eks", "od", "at its maximum of 3 nodes (2 ready, 0 requested, 1 more in this plan)"}}},
		},
		{
			name: "a group whose nodes cannot come (quota) is skipped with the reason",
			sets: []PodSet{web(10)}, groups: []Group{with(eksOD(), func(g *Group) { g.Unavailable = "vCPU quota exceeded" }), ackOD()},
			want: Decision{Grow: []Growth{{"ack", "pool", 2}}, Assignments: []Assignment{{"shop/web", "ack", "pool", 10}}, HourlyCost: 0.5,
				Skipped: []Skip{{"shop/web", "eks", "od", "its nodes cannot come: vCPU quota exceeded"}}},
		},
		{
			name: "node selector: only matching groups",
			sets: []PodSet{ssd}, groups: []Group{eksOD(), ackOD()},
			want: Decision{Grow: []Growth{{"ack", "pool", 2}}, Assignments: []Assignment{{"shop/web", "ack", "pool", 10}}, HourlyCost: 0.5,
				Skipped: []Skip{{"shop/web", "eks", "od", "node selector disktype=ssd does not match the group's labels"}}},
		},
		{
			name: "a NoSchedule taint without toleration is skipped",
			sets: []PodSet{spotOK}, groups: []Group{tainted, eksOD()},
			want: Decision{Grow: []Growth{{"eks", "od", 2}}, Assignments: []Assignment{{"shop/web", "eks", "od", 10}}, HourlyCost: 0.384,
				Skipped: []Skip{{"shop/web", "eks", "spot", "taint spot=true:NoSchedule is not tolerated"}}},
		},
		{
			name: "a tolerated taint is used",
			sets: []PodSet{tolerant}, groups: []Group{tainted, eksOD()},
			want: Decision{Grow: []Growth{{"eks", "spot", 2}}, Assignments: []Assignment{{"shop/web", "eks", "spot", 10}}, HourlyCost: 0.1344},
		},
		{
			name: "a replica larger than any node is unplaced",
			sets: []PodSet{big}, groups: []Group{eksOD()},
			want: Decision{Unplaced: map[string]int32{"shop/web": 10},
				Skipped: []Skip{{"shop/web", "eks", "od", "one node (4000m CPU, 17179869184 bytes, 58 pods) cannot hold one replica (5000m CPU, 1073741824 bytes)"}}},
		},
		{
			// First-fit decreasing on $1/h 4-CPU nodes: the two 3-CPU replicas
			// open n1 and n2 (1 CPU left on each); the 1-CPU replicas fill n1
			// and n2, then open n3 for the last two: 3 nodes, where packing
			// each set on its own nodes would also take 3 but ordering the
			// small ones first would take 4.
			name: "sets are packed largest first",
			sets: []PodSet{
				{Name: "b", Replicas: 4, Requests: Resources{CPUMilli: 1000}},
				{Name: "a", Replicas: 2, Requests: Resources{CPUMilli: 3000}},
			},
			groups: []Group{{Cluster: "c", Name: "g", Allocatable: Resources{4000, 16 * gi, 110}, PricePerHour: 1, Max: 10}},
			want:   Decision{Grow: []Growth{{"c", "g", 3}}, Assignments: []Assignment{{"a", "c", "g", 2}, {"b", "c", "g", 4}}, HourlyCost: 3},
		},
		{
			name:   "a set limited to its policy's clusters",
			sets:   []PodSet{{Name: "shop/web", Replicas: 1, Requests: Resources{CPUMilli: 500}, Clusters: []string{"ack"}}},
			groups: []Group{eksOD(), ackOD()},
			want: Decision{Grow: []Growth{{"ack", "pool", 1}}, Assignments: []Assignment{{"shop/web", "ack", "pool", 1}}, HourlyCost: 0.25,
				Skipped: []Skip{{"shop/web", "eks", "od", "not a burst target of the policy"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Plan(tt.sets, tt.groups)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.Unplaced == nil {
				tt.want.Unplaced = map[string]int32{}
			}
			if math.Abs(got.HourlyCost-tt.want.HourlyCost) > 1e-9 {
				t.Errorf("hourly cost %v, want %v", got.HourlyCost, tt.want.HourlyCost)
			}
			got.HourlyCost = tt.want.HourlyCost
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decision\n got  %+v\n want %+v", got, tt.want)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name   string
		sets   []PodSet
		groups []Group
		want   string
	}{
		{"min above max", nil, []Group{{Cluster: "c", Name: "g", Min: 3, Max: 2}}, "groups[0] c/g: min 3 and max 2: use 0 <= min <= max"},
		{"group twice", nil, []Group{{Cluster: "c", Name: "g", Max: 1}, {Cluster: "c", Name: "g", Max: 1}}, "groups[1]: c/g is listed twice"},
		{"no name", nil, []Group{{Cluster: "c", Max: 1}}, "groups[0]: cluster and name are required"},
		{"NaN price", nil, []Group{{Cluster: "c", Name: "g", Max: 1, PricePerHour: math.NaN()}}, "price per hour NaN: use a finite price >= 0"},
		{"negative replicas", []PodSet{{Name: "s", Replicas: -1}}, nil, "sets[0] s: replicas and requests must be >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Plan(tt.sets, tt.groups)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRelease(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	ago := func(m int) time.Time { return now.Add(-time.Duration(m) * time.Minute) }
	g := func(min, ready int32) Group {
		return Group{Cluster: "eks", Name: "od", Min: min, Max: 10, Ready: ready}
	}
	n := func(name string, empty bool, since time.Time) Node {
		return Node{Cluster: "eks", Group: "od", Name: name, Ready: true, Empty: empty, EmptySince: since}
	}
	tests := []struct {
		name     string
		group    Group
		nodes    []Node
		delay    map[string]time.Duration
		growing  []Growth
		want     []string
		wantNext time.Duration
	}{
		{"empty for 3 min with the 2 min default: released", g(0, 1), []Node{n("a", true, ago(3))}, nil, nil, []string{"a"}, 0},
		{"empty for 1 min: kept, releasable in 1 min", g(0, 1), []Node{n("a", true, ago(1))}, nil, nil, nil, time.Minute},
		{"the policy's delay (10 min) keeps a node empty for 5 min, releasable in 5 min", g(0, 1), []Node{n("a", true, ago(5))}, map[string]time.Duration{"eks/od": 10 * time.Minute}, nil, nil, 5 * time.Minute},
		{"a busy node is never released", g(0, 1), []Node{n("a", false, time.Time{})}, nil, nil, nil, 0},
		{"the policy's delay (2 min)", g(0, 1), []Node{n("a", true, ago(3))}, map[string]time.Duration{"eks/od": 2 * time.Minute}, nil, []string{"a"}, 0},
		{"never below min", g(1, 1), []Node{n("a", true, ago(60))}, nil, nil, nil, 0},
		// 3 ready (one busy), min 2: one of the two empty nodes goes, the
		// one empty the longest.
		{"down to min, longest-empty first", g(2, 3), []Node{n("a", true, ago(20)), n("b", true, ago(40)), n("c", false, time.Time{})}, nil, nil, []string{"b"}, 0},
		{"a group being grown keeps its empty nodes", g(0, 2), []Node{n("a", true, ago(60))}, nil, []Growth{{"eks", "od", 1}}, nil, 0},
		{"a node of an unknown group is left alone", g(0, 1), []Node{{Cluster: "eks", Group: "other", Name: "x", Ready: true, Empty: true, EmptySince: ago(60)}}, nil, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next := Release(now, []Group{tt.group}, tt.nodes, tt.delay, tt.growing)
			var names []string
			for _, r := range got {
				names = append(names, r.Node)
			}
			if !reflect.DeepEqual(names, tt.want) || next != tt.wantNext {
				t.Errorf("released %v (next %v), want %v (next %v)", names, next, tt.want, tt.wantNext)
			}
		})
	}
}

func FuzzPlan(f *testing.F) {
	f.Add(int32(10), int64(500), int64(1<<30), int64(4000), int64(16<<30), int32(10), int32(0), int32(1), false, true)
	f.Add(int32(3), int64(5000), int64(0), int64(4000), int64(0), int32(2), int32(2), int32(0), true, false)
	f.Fuzz(func(t *testing.T, replicas int32, cpu, mem, nodeCPU, nodeMem int64, maxN, ready, requested int32, spot, allowSpot bool) {
		replicas = replicas % 500
		g := Group{Cluster: "c", Name: "g", Allocatable: Resources{nodeCPU, nodeMem, 110}, PricePerHour: 1, Spot: spot, Max: maxN, Ready: ready, Requested: requested}
		s := PodSet{Name: "s", Replicas: replicas, Requests: Resources{cpu, mem, 0}, AllowSpot: allowSpot}
		d, err := Plan([]PodSet{s}, []Group{g})
		if err != nil {
			return
		}
		var placed int32
		for _, a := range d.Assignments {
			placed += a.Replicas
		}
		if placed+d.Unplaced["s"] != replicas {
			t.Fatalf("placed %d + unplaced %d != %d", placed, d.Unplaced["s"], replicas)
		}
		for _, gr := range d.Grow {
			if gr.Nodes <= 0 || ready+requested+gr.Nodes > maxN {
				t.Fatalf("grows %d nodes: ready %d + requested %d over max %d", gr.Nodes, ready, requested, maxN)
			}
		}
	})
}

func BenchmarkPlan(b *testing.B) {
	groups := []Group{eksOD(), eksSpot(), ackOD()}
	sets := []PodSet{web(200)}
	sets[0].AllowSpot = true
	for b.Loop() {
		if _, err := Plan(sets, groups); err != nil {
			b.Fatal(err)
		}
	}
}
