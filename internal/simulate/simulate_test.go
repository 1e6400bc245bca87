package simulate

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// refModel and refPolicy are examples/traces/cluster.yaml and policy.yaml.
func refModel(t testing.TB) ClusterModel {
	t.Helper()
	data, err := os.ReadFile("../../examples/traces/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseClusterModel(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func refPolicy(t testing.TB, alg string, max int32) Policy {
	t.Helper()
	data, err := os.ReadFile("../../examples/traces/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.WithAlgorithm(alg); err != nil {
		t.Fatal(err)
	}
	if max > 0 {
		p.Max = max
	}
	return p
}

func refTrace(t testing.TB, name string) workload.Trace {
	t.Helper()
	f, err := os.Open("../../examples/traces/" + name + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ParseTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func run(t testing.TB, p Policy, m ClusterModel, tr workload.Trace) *Result {
	t.Helper()
	r, err := Run(p, m, tr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// upTicks are the decisions that raised the replica count.
func upTicks(r *Result) []Tick {
	var out []Tick
	for _, tk := range r.Ticks {
		if tk.Desired > tk.Current {
			out = append(out, tk)
		}
	}
	return out
}

// The reference policy sets no scaleUp/scaleDown, so the HPA has no
// behavior block and follows the legacy cap max(2 x current, 4) per 15 s
// sync (horizontal.go calculateScaleUpLimit): from 2 pods on the x10 flash
// crowd it needs four steps to 20.
func TestKubernetesFlashCrowdRate(t *testing.T) {
	r := run(t, refPolicy(t, "kubernetes", 20), refModel(t), refTrace(t, "flash-crowd"))
	if r.ControlInterval != 15*time.Second {
		t.Fatalf("control interval %v, want the HPA's 15s", r.ControlInterval)
	}
	prev := 0
	for _, tk := range r.Ticks {
		if prev > 0 && tk.Second-prev != 15 {
			t.Fatalf("decisions at %d s and %d s: want one per 15 s", prev, tk.Second)
		}
		prev = tk.Second
	}
	ups := upTicks(r)
	var got []int32
	for _, tk := range ups {
		if limit := max(4, 2*tk.Current); tk.Desired > limit {
			t.Errorf("at %d s: %d -> %d, above max(2 x current, 4) = %d", tk.Second, tk.Current, tk.Desired, limit)
		}
		got = append(got, tk.Desired)
	}
	want := []int32{4, 8, 16, 20} // max(2x2, 4), 4x2, 8x2, min(16x2, demand 20)
	if !slices.Equal(got, want) {
		t.Fatalf("scale-ups %v, want %v", got, want)
	}
	if ups[0].Second != 315 {
		t.Fatalf("first scale-up at %d s, want 315 s (first sync after the 300 s scrape)", ups[0].Second)
	}
	// Required: ceil(0.9 x 20) = 18, first decided at the fourth sync.
	if r.Metrics.TimeToDecide != 60 {
		t.Fatalf("time to required replicas %v s, want 60 s (four syncs)", r.Metrics.TimeToDecide)
	}
}

// FRSS reaches the required (and max) replicas in one decision.
func TestFRSSReachesMaxInOneStep(t *testing.T) {
	r := run(t, refPolicy(t, "frss", 20), refModel(t), refTrace(t, "flash-crowd"))
	ups := upTicks(r)
	if len(ups) == 0 {
		t.Fatal("no scale-up")
	}
	if ups[0].Desired != 20 || ups[0].Second != 315 {
		t.Fatalf("first scale-up %d -> %d at %d s, want 2 -> 20 (max) at 315 s", ups[0].Current, ups[0].Desired, ups[0].Second)
	}
	if r.Metrics.TimeToDecide != 15 {
		t.Fatalf("time to required replicas %v s, want 15 s (one control interval)", r.Metrics.TimeToDecide)
	}
	// Slow shrinkage: at most one pod per 9 minutes after the peak.
	var lastDown int
	for _, tk := range r.Ticks {
		if tk.Desired < tk.Current {
			if tk.Current-tk.Desired != 1 {
				t.Fatalf("at %d s: %d -> %d, want one pod per shrink", tk.Second, tk.Current, tk.Desired)
			}
			if lastDown > 0 && tk.Second-lastDown < 540 {
				t.Fatalf("shrinks at %d s and %d s: want 9 min apart", lastDown, tk.Second)
			}
			lastDown = tk.Second
		}
	}
}

// The panic algorithm enters panic when the short window's load needs at
// least twice the ready pods, only grows while panicking, and leaves panic
// a stable window (60 s) after the last tick above the threshold.
func TestPanicEntersAndLeavesAsKPA(t *testing.T) {
	r := run(t, refPolicy(t, "panic", 30), refModel(t), refTrace(t, "flash-crowd"))
	if r.ControlInterval != 2*time.Second {
		t.Fatalf("control interval %v, want the KPA's 2s tick", r.ControlInterval)
	}
	var start, end int
	var maxInPanic int32
	for i, tk := range r.Ticks {
		// As the KPA after a restart, the first tick with more than one
		// ready pod panics; that ends after one stable window.
		if tk.Panicking && tk.Second > 62 && tk.Second <= 300 {
			t.Fatalf("panicking at %d s, before the step", tk.Second)
		}
		if tk.Second <= 300 {
			continue
		}
		if tk.Panicking {
			if start == 0 && tk.Second > 300 {
				start = tk.Second
			}
			if tk.Desired < maxInPanic {
				t.Fatalf("at %d s in panic: %d below the ratchet %d", tk.Second, tk.Desired, maxInPanic)
			}
			maxInPanic = max(maxInPanic, tk.Desired)
		} else if start > 0 && end == 0 {
			end = tk.Second
			if i > 0 && !r.Ticks[i-1].Panicking {
				t.Fatal("panic ended twice")
			}
		}
	}
	// The 300 s scrape is first visible at the 302 s tick.
	if start != 302 {
		t.Fatalf("panic started at %d s, want 302 s", start)
	}
	if maxInPanic != 20 {
		t.Fatalf("panic reached %d pods, want the demand of 20", maxInPanic)
	}
	// The last tick over the threshold: the panic-window load needs at least
	// twice the current pods. Panic ends at the first tick more than 60 s
	// later.
	lastOver := 0
	for _, tk := range r.Ticks {
		if tk.Second >= start && tk.Second < end && strings.Contains(tk.Reason, "panic") && (strings.Contains(tk.Reason, "panic starts") || strings.Contains(tk.Reason, "panic extended")) {
			lastOver = tk.Second
		}
	}
	if end <= lastOver+60 || end > lastOver+62 {
		t.Fatalf("panic ended at %d s, last tick over the threshold at %d s: want the first tick after %d s", end, lastOver, lastOver+60)
	}
	// Once out of panic at steady load, nothing changes until the load falls.
	for _, tk := range r.Ticks {
		if tk.Second >= end && tk.Second < 900 && tk.Desired != 20 {
			t.Fatalf("at %d s after panic: %d pods, want 20 held", tk.Second, tk.Desired)
		}
		// Scale-down is bounded by max scale-down rate 2.
		if tk.Desired < tk.Current && tk.Desired < tk.Current/2 {
			t.Fatalf("at %d s: %d -> %d, below half", tk.Second, tk.Current, tk.Desired)
		}
	}
}

// Replicas beyond the primary's capacity burst by priority (eks, then
// ack) after the pending threshold, and come back burst-first, most
// expensive first, when the load falls.
func TestBurstAndScaleBack(t *testing.T) {
	r := run(t, refPolicy(t, "frss", 0), refModel(t), refTrace(t, "private-overflow"))
	s := r.Series
	at := func(sec int) (private, eks, ack, pending int32) {
		return s.Scheduled[0][sec], s.Scheduled[1][sec], s.Scheduled[2][sec], s.Pending[sec]
	}
	// FRSS decides 35 at 315 s: 24 in private, 11 pending, placed 5 s later.
	if p, e, a, pend := at(316); p != 24 || e != 0 || pend != 11 {
		t.Fatalf("at 316 s: private %d, eks %d, ack %d, pending %d; want 24, 0, 0, 11", p, e, a, pend)
	}
	if p, e, a, pend := at(320); p != 24 || s.Waiting[1][320] != 11 || e != 0 || a != 0 || pend != 0 {
		t.Fatalf("at 320 s: private %d, eks %d waiting for a node and %d scheduled, ack %d, pending %d; want 24, 11 in eks (priority 10) waiting", p, s.Waiting[1][320], e, a, pend)
	}
	// eks's node group (m5.xlarge: 8 pods of 0.5 CPU each) starts empty: the
	// capacity round at 320 s orders ceil(11 / 8) = 2 nodes, Ready after the
	// lab's boot delay (75 s) at 395 s, when the pods are bound; they are
	// Ready after their start-up (20 s), at 415 s.
	if s.Nodes[1][319] != 0 || s.Nodes[1][320] != 2 || s.NodesReady[1][394] != 0 || s.NodesReady[1][395] != 2 {
		t.Fatalf("eks nodes at 319, 320: %d, %d; Ready at 394, 395: %d, %d; want 0, 2; 0, 2", s.Nodes[1][319], s.Nodes[1][320], s.NodesReady[1][394], s.NodesReady[1][395])
	}
	if s.Scheduled[1][394] != 0 || s.Scheduled[1][395] != 11 {
		t.Fatalf("eks scheduled at 394, 395: %d, %d; want 0, 11", s.Scheduled[1][394], s.Scheduled[1][395])
	}
	if got := s.Ready[1][414]; got != 0 {
		t.Fatalf("eks ready at 414 s: %d, want 0", got)
	}
	if got := s.Ready[1][415]; got != 11 {
		t.Fatalf("eks ready at 415 s: %d, want 11", got)
	}
	if r.Metrics.BurstShare <= 0 {
		t.Fatal("no pod-hours in burst clusters")
	}
	// Scale-back empties eks before the private cluster loses a pod.
	for sec := 1200; sec < len(s.Load); sec++ {
		if s.Scheduled[0][sec] < 24 && s.Scheduled[1][sec] > 0 {
			t.Fatalf("at %d s: private %d while eks still has %d", sec, s.Scheduled[0][sec], s.Scheduled[1][sec])
		}
	}
}

// With the CPU metric the algorithm reads loadsim's utilisation: at a
// constant 400 requests/s, 80 % of a 0.5-CPU request is 40 requests/s per
// pod, so the HPA settles at 10 pods (ratio within tolerance).
func TestCPUMetricSettlesAtDemand(t *testing.T) {
	m := refModel(t)
	p := DefaultPolicy(m)
	tr := workload.Trace{{Seconds: 0, RPS: 400}, {Seconds: 1200, RPS: 400}}
	r := run(t, p, m, tr)
	last := r.Ticks[len(r.Ticks)-1]
	if last.Desired != 10 {
		t.Fatalf("settled at %d pods (%s), want 10", last.Desired, last.Reason)
	}
	if r.Series.Demand[600] != 10 {
		t.Fatalf("demand %d, want 10", r.Series.Demand[600])
	}
}

func TestDeterministic(t *testing.T) {
	render := func() []byte {
		var b bytes.Buffer
		var rs []*Result
		for _, alg := range Algorithms {
			r := run(t, refPolicy(t, alg, 0), refModel(t), refTrace(t, "secondary-peak"))
			rs = append(rs, r)
			if err := WriteSVG(&b, r, "secondary-peak"); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteTable(&b, rs); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := render(), render()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs rendered different bytes")
	}
}

func TestParseErrors(t *testing.T) {
	const head = "apiVersion: hca.dev/v1alpha1\nkind: BurstPolicy\nmetadata: {name: p}\n"
	const spec = "spec:\n  primaryCluster: private\n  burstTargets: [{cluster: eks}]\n"
	tests := []struct {
		name, what, input, want string
	}{
		{"empty policy", "policy", "", "the file is empty"},
		{"wrong kind", "policy", "apiVersion: hca.dev/v1alpha1\nkind: Foo\n", `kind "Foo"`},
		{"unknown field", "policy", head + spec + "  maxReplicas: 5\n  maxReplica: 5\n", `unknown field "maxReplica"`},
		{"missing max", "policy", head + spec, "spec.maxReplicas is missing"},
		{"missing primary", "policy", head + "spec:\n  burstTargets: [{cluster: eks}]\n  maxReplicas: 5\n", "spec.primaryCluster is missing"},
		{"missing burst targets", "policy", head + "spec:\n  primaryCluster: private\n  maxReplicas: 5\n", "spec.burstTargets is missing"},
		{"unknown algorithm", "policy", head + spec + "  maxReplicas: 5\n  algorithm: {name: magic}\n", `spec.algorithm.name "magic" is unknown: use adaptive, kubernetes, frss, panic`},
		{"params of another algorithm", "policy", head + spec + "  maxReplicas: 5\n  algorithm: {name: frss, panic: {stableWindow: 60s}}\n", "spec.algorithm.panic is set but spec.algorithm.name is frss"},
		{"min above max", "policy", head + spec + "  minReplicas: 6\n  maxReplicas: 5\n", "less than spec.minReplicas"},
		{"bad tolerance", "policy", head + spec + "  maxReplicas: 5\n  algorithm: {name: frss, frss: {tolerance: \"1.5\"}}\n", "spec.algorithm.frss.tolerance is 1500m"},
		{"memory metric", "policy", head + spec + "  maxReplicas: 5\n  metrics: [{type: Resource, resource: {name: memory, targetAverageUtilization: 80}}]\n", "resource.name \"memory\" is not simulated"},
		{"model missing clusters", "model", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\n", "clusters is missing"},
		{"model missing capacity", "model", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nclusters: [{name: private, role: primary}]\n", "clusters[0].capacityPods is missing"},
		{"model bad role", "model", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nclusters: [{name: private, role: main, capacityPods: 1}]\n", `clusters[0].role "main" is unknown`},
		{"model negative price", "model", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nclusters: [{name: private, role: primary, capacityPods: 1, pricePerVCPUHour: -1}]\n", "clusters[0].pricePerVCPUHour is -1"},
		{"model unknown field", "model", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nscrape: 15s\nclusters: [{name: private, role: primary, capacityPods: 1}]\n", `unknown field "scrape"`},
		{"model no primary", "model", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nclusters: [{name: eks, role: burst, capacityPods: 1}]\n", "0 clusters have role primary"},
		{"trace malformed line", "trace", "seconds,requests_per_second\n0,10\n5;20\n", "trace line 3: want 2 comma-separated fields"},
		{"trace negative load", "trace", "0,10\n5,-3\n", "trace line 2: requests_per_second \"-3\" is negative"},
		{"trace non-numeric load", "trace", "0,10\n5,lots\n", "trace line 2: requests_per_second \"lots\" is not a number"},
		{"trace empty", "trace", "# nothing\n", "no data lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			switch tt.what {
			case "policy":
				_, err = ParsePolicy([]byte(tt.input))
			case "model":
				_, err = ParseClusterModel([]byte(tt.input))
			case "trace":
				_, err = ParseTrace(strings.NewReader(tt.input))
			}
			if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want ErrInput containing %q", err, tt.want)
			}
		})
	}
}

func TestPolicyModelMismatch(t *testing.T) {
	m := refModel(t)
	p := refPolicy(t, "kubernetes", 0)
	p.BurstTargets = append(p.BurstTargets, PolicyBurstTarget{Cluster: "gke", Weight: 1})
	_, err := Run(p, m, workload.Trace{{Seconds: 0, RPS: 1}})
	if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `spec.burstTargets[2].cluster "gke" is not in the cluster model`) {
		t.Fatalf("error = %v", err)
	}
}

// BenchmarkSimulatedHour simulates one hour (the secondary-peak trace) per
// algorithm.
func BenchmarkSimulatedHour(b *testing.B) {
	m, tr := refModel(b), refTrace(b, "secondary-peak")
	for _, alg := range Algorithms {
		p := refPolicy(b, alg, 0)
		b.Run(alg, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(p, m, tr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestForecastMAPE: an adaptive run records its forecasts (one per
// decision, for the decision second + the horizon derived from the
// reference model: 35 s, or 2 min when the count it needs goes beyond the
// private cluster) and reports their MAPE; other algorithms have none.
func TestForecastMAPE(t *testing.T) {
	m, tr := refModel(t), refTrace(t, "moha-ramp")
	for _, alg := range Algorithms {
		r, err := Run(refPolicy(t, alg, 0), m, tr)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Metrics
		if alg != "adaptive" {
			if got.Forecasts != 0 || !math.IsNaN(got.ForecastMAPE) {
				t.Errorf("%s: %d forecasts, MAPE %v: want none", alg, got.Forecasts, got.ForecastMAPE)
			}
			continue
		}
		// Decisions every 2 s from 2 s to 1200 s; those forecasting past
		// the trace's end (1201 s) are left out: (1166 − 2) / 2 + 1 = 583
		// at 35 s, (1080 − 2) / 2 + 1 = 540 at 2 min.
		if _, h := r.Policy.ReadyHorizon(m); h != 2*time.Minute {
			t.Fatalf("adaptive: horizon %v, want 2m0s (15s scrape + 20s start-up + 75s boot + 10s capacity round)", h)
		}
		if got.Forecasts < 540 || got.Forecasts > 583 || math.IsNaN(got.ForecastMAPE) || math.IsNaN(got.NaiveMAPE) {
			t.Fatalf("adaptive: %d forecasts, MAPE %v, naive %v: want 540 to 583 and finite figures", got.Forecasts, got.ForecastMAPE, got.NaiveMAPE)
		}
		// On the ramp the trend forecast is closer than "no change".
		if got.ForecastMAPE >= got.NaiveMAPE {
			t.Errorf("adaptive on the ramp: forecast MAPE %v, not below the naive %v", got.ForecastMAPE, got.NaiveMAPE)
		}
	}
}

// TestHeadroomPlacedCheapest: the reference policy places by priority, EKS
// ($0.0624 per vCPU-hour, priority 10) before ACK ($0.0590, priority 5).
// With 2 spare replicas (headroomReplicas), a load of 10 replicas steps
// to 28: the primary runs 24; of the 6 it cannot run, the load's 4 go to
// EKS and the 2 spare to the cheaper ACK, as the burst controller places
// them (scaling.PlaceWithHeadroom). Without headroom all 4 go to EKS.
func TestHeadroomPlacedCheapest(t *testing.T) {
	m := refModel(t)
	tr := workload.Trace{{Seconds: 0, RPS: 400}, {Seconds: 299, RPS: 400}, {Seconds: 300, RPS: 1120}, {Seconds: 900, RPS: 1120}}
	for _, tc := range []struct {
		name           string
		headroom       int32
		eks, ack, prim int32
	}{
		{"headroom 2: the spare replicas on ACK", 2, 4, 2, 24},
		{"no headroom: all on EKS by priority", 0, 4, 0, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := refPolicy(t, "adaptive", 0).WithHeadroom(tc.headroom, 0)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(p, m, tr)
			if err != nil {
				t.Fatal(err)
			}
			last := len(r.Series.Scheduled[0]) - 1
			got := []int32{r.Series.Scheduled[0][last], r.Series.Scheduled[1][last], r.Series.Scheduled[2][last]}
			if want := []int32{tc.prim, tc.eks, tc.ack}; !slices.Equal(got, want) {
				t.Errorf("scheduled at the end (private, eks, ack) = %v, want %v", got, want)
			}
			// The headroom's cost: 2 replicas all along, in the primary
			// until the step and on ACK after it, each second at its
			// cluster's per-pod price; none without headroom.
			hc := r.Metrics.HeadroomCost
			if tc.headroom == 0 {
				if hc != 0 {
					t.Errorf("headroom cost $%v without headroom, want 0", hc)
				}
				return
			}
			var lo, hi float64 = math.Inf(1), 0
			for _, c := range []ClusterSpec{m.Primary(), m.Clusters[2]} {
				h := m.HourlyPrice(c) * float64(tc.headroom) * float64(len(r.Series.Load)) / 3600
				lo, hi = min(lo, h), max(hi, h)
			}
			if hc < lo*0.999 || hc > hi*1.001 {
				t.Errorf("headroom cost $%.5f, want between $%.5f and $%.5f (%d replicas at the primary's or ACK's price all along)", hc, lo, hi, tc.headroom)
			}
			if want := hc * 86400 / float64(len(r.Series.Load)); math.Abs(r.Metrics.HeadroomCostPerDay-want) > 1e-9 {
				t.Errorf("headroom cost per day $%v, want $%v", r.Metrics.HeadroomCostPerDay, want)
			}
		})
	}
}
