package moha

import (
	"slices"
	"strings"
	"testing"
)

// echoPredictor returns the inputs it was asked about: replicas as the
// response time, the request rate as the CPU usage.
type echoPredictor struct{}

func (echoPredictor) Predict(in [NumInputs]float64) [NumTargets]float64 {
	return [NumTargets]float64{in[2], in[3], 0}
}

func TestPerPod(t *testing.T) {
	tests := []struct {
		name                   string
		maxReplicas, maxRPS    float64
		replicas, rps          float64
		wantReplicas, wantRate float64
	}{
		{"within the training range: as is", 5, 1000, 3, 300, 3, 300},
		// 10 pods at 1,000 req/s are 100 req/s each: 5 pods at 500.
		{"more replicas: folded", 5, 1000, 10, 1000, 5, 500},
		// 10 pods at 4,000: 5 pods would get 2,000 > 1,000, so 1,000 req/s
		// on 10×1000/4000 = 2.5 pods (400 each, as 10 at 4,000).
		{"more load too: fractional replicas", 5, 1000, 10, 4000, 2.5, 1000},
		{"more load, few replicas", 5, 1000, 2, 3000, 2.0 / 3, 1000},
		{"no bounds: as is", 0, 0, 10, 4000, 10, 4000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PerPod{Predictor: echoPredictor{}, MaxReplicas: tc.maxReplicas, MaxRequestsPerSecond: tc.maxRPS}
			got := p.Predict([NumInputs]float64{300, 400, tc.replicas, tc.rps})
			if !near(got[0], tc.wantReplicas, 1e-12) || !near(got[1], tc.wantRate, 1e-12) {
				t.Errorf("predicted at %v pods, %v req/s; want %v, %v", got[0], got[1], tc.wantReplicas, tc.wantRate)
			}
		})
	}
}

func TestFewestReplicas(t *testing.T) {
	// The stub predicts 1000/(cpu×n/1000) ms: 300m pods need n >= 1000/(0.3×limit).
	tests := []struct {
		name    string
		limitMs float64
		r       Range
		want    int
		ok      bool
	}{
		{"1 s: n >= 3.33", 1000, Range{1, 10}, 4, true},
		{"exactly at the limit: 1 pod of 300m is 3,333 ms", 1000.0 / 0.3, Range{1, 10}, 1, true},
		{"min above the answer: the min", 1000, Range{6, 10}, 6, true},
		{"out of reach: 10 pods are 333 ms", 300, Range{1, 10}, 0, false},
		{"max is the answer", 1000.0 / 3, Range{1, 10}, 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, ok, err := fewestReplicas(stubPredictor{}, 300, 400, 100, tc.r, tc.limitMs)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want || ok != tc.ok {
				t.Errorf("got %d %v, want %d %v", n, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestSafeDecideInvalid(t *testing.T) {
	for _, limit := range []float64{0, -1} {
		_, err := SafeDecide(stubPredictor{}, exampleState, Config{Desired: exampleDesired, Ranges: wideRanges, Weights: Balanced}, limit)
		if err == nil || !strings.Contains(err.Error(), "response-time limit") {
			t.Errorf("limit %v: error %v, want one naming the response-time limit", limit, err)
		}
	}
}

func TestRangeGrid(t *testing.T) {
	tests := []struct {
		name string
		r    Ranges
		want [][2]float64
	}{
		{"the bench's ranges: corners and midpoints", Ranges{CPULimitMilli: Range{300, 500}, MemoryLimitMiB: Range{400, 600}},
			[][2]float64{{300, 400}, {300, 500}, {300, 600}, {400, 400}, {400, 500}, {400, 600}, {500, 400}, {500, 500}, {500, 600}}},
		// 301/2 = 150.5 rounds to 151.
		{"odd midpoint: rounded", Ranges{CPULimitMilli: Range{1, 300}, MemoryLimitMiB: Range{400, 400}},
			[][2]float64{{1, 400}, {151, 400}, {300, 400}}},
		{"a single value: once", Ranges{CPULimitMilli: Range{300, 300}, MemoryLimitMiB: Range{400, 400}}, [][2]float64{{300, 400}}},
		// min 1, max 2: the midpoint 1.5 rounds to 2, the max: kept once.
		{"adjacent bounds: no repeat", Ranges{CPULimitMilli: Range{1, 2}, MemoryLimitMiB: Range{400, 400}}, [][2]float64{{1, 400}, {2, 400}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RangeGrid(tc.r); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSafeDecideRangeGrid: on the workload model (appPredictor), 3 pods of
// 300m/400Mi at 240 req/s measure 24 ms, 66 % CPU and 82.5 % memory. Eq. 1
// keeps the pod small: CPU ceil(300×24/100) and ceil(300×66/85) = 233, both
// lifted to 300m; memory 400Mi or ceil(400×82.5/80) = 413Mi. The range grid
// adds, among others, 300m/600Mi with the fewest pods within 80 ms: 2 (120
// req/s each: working set 370 MiB, pressure 0.62, GC overhead 0.05×0.62/0.38
// = 8 %, capacity 0.3/(0.002×1.08) = 139 req/s, 1/(139-120) s = 53 ms; 1 pod
// is saturated), at 2 × (0.3×$0.0573 + 600/953×$0.0063421) = $0.0424 an
// hour, 29 % less than the 3 small pods' $0.0596. (2 of 300m/500Mi would be
// cheaper still but are 88 ms.) With all weight on the cost the ranking takes
// it: the cheapest configuration within the limit, one eq. 1 never proposes.
func TestSafeDecideRangeGrid(t *testing.T) {
	m := DefaultApp.Measure(300, 400, 3, 240)
	s := State{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 3, RequestsPerSecond: 240, ResponseTimeMs: m.ResponseTimeMs, CPUUsagePercent: m.CPUUsagePercent, MemoryUsagePercent: m.MemoryUsagePercent}
	c := Config{Desired: Desired{ResponseTimeMs: 100, CPUUsagePercent: 85, MemoryUsagePercent: 80},
		Ranges: Ranges{CPULimitMilli: Range{300, 500}, MemoryLimitMiB: Range{400, 600}, Replicas: Range{1, 20}}, Weights: Weights{CPULimit: 0.5, MemoryLimit: 0.5}}
	d, err := SafeDecide(appPredictor{DefaultApp}, s, c, 80)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(v Variation) float64 {
		return PaperPrices.Hourly(Configuration{CPULimitMilli: v.CPULimitMilli, MemoryLimitMiB: v.MemoryLimitMiB, Replicas: v.Replicas})
	}
	for _, v := range d.Ranked {
		if v.Predicted[0] <= 80 && cost(v) < cost(d.Best()) {
			t.Errorf("%v within the limit costs $%.4f, less than the best %v ($%.4f)", configs([]Variation{v}), cost(v), configs([]Variation{d.Best()}), cost(d.Best()))
		}
	}
	if !near(s.ResponseTimeMs, 24.16, 0.01) {
		t.Fatalf("measured %.2f ms, want 24.16", s.ResponseTimeMs)
	}
	b := d.Best()
	// Measured over the limit (a rise under way), the grid is left out:
	// the cheapest then is eq. 1's or the load variations'.
	over := s
	over.ResponseTimeMs = 81
	dOver, err := SafeDecide(appPredictor{DefaultApp}, over, c, 80)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range dOver.Ranked {
		if v.From[0] == FromRange {
			t.Errorf("measured 81 ms over the 80 ms limit, yet the grid's %v is a candidate", configs([]Variation{v}))
		}
	}
	if got := (config{b.CPULimitMilli, b.MemoryLimitMiB, b.Replicas}); got != (config{300, 600, 2}) || b.From != [3]Target{FromRange, FromRange, FromLoad} || !near(b.Predicted[0], 53.1, 0.05) {
		t.Errorf("best %v from %v at %.1f ms, want 300m/600Mi × 2 from the range grid at 53.1 ms (ranked %v)", got, b.From, b.Predicted[0], configs(d.Ranked))
	}
	if !near(cost(b), 2*(0.3*0.0573+600.0/953*0.0063421), 1e-12) {
		t.Errorf("cost %v", cost(b))
	}
}
