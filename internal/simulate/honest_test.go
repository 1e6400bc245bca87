package simulate

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

func TestRises(t *testing.T) {
	tests := []struct {
		name   string
		demand []int32
		want   []Rise
	}{
		// A step 2 -> 20 at second 3: the trough's last second is 2.
		{"step", []int32{2, 2, 2, 20, 20, 20}, []Rise{{Start: 2, PeakAt: 3, Trough: 2, Peak: 20}}},
		// A ramp is one rise, from its foot to its top.
		{"ramp", []int32{1, 1, 2, 3, 5, 8, 12, 12}, []Rise{{Start: 1, PeakAt: 6, Trough: 1, Peak: 12}}},
		// Noise of one pod around 10 is no rise (10 -> 11 is under 50 %).
		{"noise", []int32{10, 11, 10, 9, 10, 11, 10}, nil},
		// Two peaks: 2 -> 15, down to 5 (at most 2/3 of 15 and 2 below
		// it: the first rise ends), 5 -> 15 again.
		{"two peaks", []int32{2, 15, 15, 5, 5, 15, 15}, []Rise{{Start: 0, PeakAt: 1, Trough: 2, Peak: 15}, {Start: 4, PeakAt: 5, Trough: 5, Peak: 15}}},
		// A dip from 15 to 11 (above 2/3 of 15 = 10) does not end the
		// rise; the later 18 is its peak.
		{"shallow dip", []int32{4, 15, 11, 18, 18}, []Rise{{Start: 0, PeakAt: 3, Trough: 4, Peak: 18}}},
		// From 0, two pods are a rise (0 + 2, and >= 1.5 x 0).
		{"from zero", []int32{0, 0, 2, 2}, []Rise{{Start: 1, PeakAt: 2, Trough: 0, Peak: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Rises(tc.demand); !slices.Equal(got, tc.want) {
				t.Fatalf("Rises(%v) = %+v, want %+v", tc.demand, got, tc.want)
			}
		})
	}
}

// synthetic builds a result from per-second demand, decided and ready
// counts (one cluster), with Max 100, and computes its metrics.
func synthetic(demand, desired, ready []int32) Metrics {
	r := &Result{Policy: Policy{Max: 100}}
	r.Series.Load = make([]float64, len(demand))
	r.Series.Demand, r.Series.Desired, r.Series.Ready = demand, desired, [][]int32{ready}
	r.Metrics.compute(r)
	return r.Metrics
}

// TestTimeToRequired: the required count of a rise to 20 is ceil(0.9 x
// 20) = 18, counted from the first second demand reaches 18.
func TestTimeToRequired(t *testing.T) {
	step := []int32{2, 2, 20, 20, 20, 20, 20}
	tests := []struct {
		name             string
		demand, decided  []int32
		ready            []int32
		wantDec, wantRdy float64
	}{
		// 19 of 20 at second 3 is within 10 %: 1 s; 18 ready at second 5: 3 s.
		{"held within tolerance", step, []int32{2, 2, 2, 19, 19, 19, 19}, []int32{2, 2, 2, 2, 2, 18, 19}, 1, 3},
		// 17 of 20 is not: never reached.
		{"below tolerance", step, []int32{2, 2, 17, 17, 17, 17, 17}, []int32{2, 2, 2, 17, 17, 17, 17}, math.Inf(1), math.Inf(1)},
		// A ramp 2, 6, 10, 14, 18, 20: demand reaches 18 at second 4; the
		// decided count 18 at 5 (1 s), ready 18 at 6 (2 s).
		{"ramp", []int32{2, 6, 10, 14, 18, 20, 20}, []int32{2, 4, 8, 12, 16, 18, 20}, []int32{2, 2, 4, 8, 12, 16, 18}, 1, 2},
		// Already provisioned: 0 s.
		{"ahead of demand", step, []int32{20, 20, 20, 20, 20, 20, 20}, []int32{20, 20, 20, 20, 20, 20, 20}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := synthetic(tc.demand, tc.decided, tc.ready)
			if m.Rises != 1 || m.TimeToDecide != tc.wantDec || m.TimeToReady != tc.wantRdy {
				t.Fatalf("rises %d, decided %v s, ready %v s; want 1, %v s, %v s", m.Rises, m.TimeToDecide, m.TimeToReady, tc.wantDec, tc.wantRdy)
			}
		})
	}
}

// TestJitterPerPod: the SPEC RG jitter counts adaptations per resource
// unit. Demand 2 -> 6 one pod a second (E_D = 4) and supply 2 -> 6 in one
// second (E_S = 4): jitter 0 (counting seconds with a change it would read
// 1 - 4 = -3 per 8 s). Supply that goes 2 -> 6 -> 2 -> 6 against a flat
// demand: E_S = 12, E_D = 0, over T = 4 s: 12/4 x 3600 = 10800 per hour.
func TestJitterPerPod(t *testing.T) {
	m := synthetic([]int32{2, 3, 4, 5, 6, 6, 6, 6}, make([]int32, 8), []int32{2, 2, 2, 2, 6, 6, 6, 6})
	if m.JitterPerHour != 0 {
		t.Fatalf("jitter %v, want 0", m.JitterPerHour)
	}
	m = synthetic([]int32{4, 4, 4, 4}, make([]int32, 4), []int32{2, 6, 2, 6})
	if m.JitterPerHour != 10800 {
		t.Fatalf("jitter %v, want 10800", m.JitterPerHour)
	}
}

// TestBacklog: one pod with a 1-core limit at 0.01 CPU-s per request
// serves 100 requests/s.
func TestBacklog(t *testing.T) {
	res := workload.PodResources{Request: 0.5, Limit: 1}
	var b backlog
	// Second 0: 150 arrive, 100 are served in their second, 50 wait.
	s0 := b.serve(0, 150, 1, 0.01, res, 0.2, 0.95)
	if s0.served != 100 || s0.late != 0 || b.total() != 50 {
		t.Fatalf("second 0: served %v, late %v, backlog %v; want 100, 0, 50", s0.served, s0.late, b.total())
	}
	// Second 1: 80 arrive; the 50 waiting go first (late: SLA violations
	// that waited 1 s, counted in the buckets from le=1 on), then 50 of the
	// 80; 30 wait.
	s1 := b.serve(1, 80, 1, 0.01, res, 0.2, 0.95)
	if s1.served != 100 || s1.late != 50 || b.total() != 30 || s1.slow < 50 {
		t.Fatalf("second 1: served %v, late %v, slow %v, backlog %v; want 100, 50, >= 50, 30", s1.served, s1.late, s1.slow, b.total())
	}
	if s1.buckets[7] >= 100 || s1.buckets[8]-s1.buckets[7] < 50-1e-9 { // le 0.5 and le 1
		t.Fatalf("second 1 buckets: le 0.5 %v, le 1 %v: the 50 late requests belong from le=1 on", s1.buckets[7], s1.buckets[8])
	}
	// No ready pod for seconds 2..4 with a 2 s timeout: the 30 of second
	// 1 time out at the end of second 3, the 10 of second 2 at second 4.
	b.serve(2, 10, 0, 0.01, res, 0.2, 0.95)
	if n := b.expire(2, 2); n != 0 {
		t.Fatalf("second 2: %v timed out, want 0", n)
	}
	b.serve(3, 0, 0, 0.01, res, 0.2, 0.95)
	if n := b.expire(3, 2); n != 30 {
		t.Fatalf("second 3: %v timed out, want 30", n)
	}
	if n := b.expire(4, 2); n != 10 || b.total() != 0 {
		t.Fatalf("second 4: %v timed out, backlog %v; want 10, 0", n, b.total())
	}
}

// TestBacklogCostsUnderProvisioning: with a backlog the flash crowd keeps
// violating after the last pod is ready, while the queue drains, and
// requests waiting past the timeout count as errors.
func TestBacklogCostsUnderProvisioning(t *testing.T) {
	m := refModel(t)
	m.RequestTimeout = 5 * time.Second
	r := run(t, refPolicy(t, "kubernetes", 20), m, refTrace(t, "flash-crowd"))
	s := r.Series
	var maxBacklog float64
	for _, v := range s.Backlog {
		maxBacklog = max(maxBacklog, v)
	}
	if maxBacklog <= 0 || r.Metrics.ErrorRate <= 0 {
		t.Fatalf("max backlog %v, timed-out share %v: want both above 0 when 2 pods (200 req/s) meet 800 req/s", maxBacklog, r.Metrics.ErrorRate)
	}
	if r.Metrics.SLAViolationRate < r.Metrics.ErrorRate {
		t.Fatalf("SLA violations %v below timeouts %v: a timeout is a violation", r.Metrics.SLAViolationRate, r.Metrics.ErrorRate)
	}
}

// TestReactiveFloor: on the flash crowd (step to 800 requests/s = 20 pods
// at second 300) the floor with a 2 s interval sees the 300 s scrape from
// second 301 (one second old) and decides 20 at its next tick, 302: 2 s.
// The 18th pod (ceil(0.9 x 20)) is ready 20 s of start-up later: 22 s.
func TestReactiveFloor(t *testing.T) {
	p := refPolicy(t, "kubernetes", 20)
	f, err := ReactiveFloor(p, refModel(t), refTrace(t, "flash-crowd"), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if f.Metrics.TimeToDecide != 2 || f.Metrics.TimeToReady != 22 {
		t.Fatalf("floor: decided %v s, ready %v s; want 2 s and 22 s", f.Metrics.TimeToDecide, f.Metrics.TimeToReady)
	}
	k := run(t, p, refModel(t), refTrace(t, "flash-crowd"))
	if f.Metrics.SLAViolationRate > k.Metrics.SLAViolationRate {
		t.Fatalf("floor violations %v above the HPA's %v", f.Metrics.SLAViolationRate, k.Metrics.SLAViolationRate)
	}
	// WriteTable adds the floor as the last column of burst-policy runs.
	var b strings.Builder
	if err := WriteTable(&b, []*Result{k}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(b.String(), "\n", 2)[0], FloorName) {
		t.Fatalf("table header %q: want a %q column", strings.SplitN(b.String(), "\n", 2)[0], FloorName)
	}
}
