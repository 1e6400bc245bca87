package moha

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestOptimum(t *testing.T) {
	tests := []struct {
		name                      string
		current, measured, desire float64
		want                      float64
	}{
		{"HPA: 2 pods at 90 % for 80 %", 2, 90, 80, 3},                    // ceil(2.25)
		{"CPU limit from response time", 300, 1500, 1000, 450},            // exactly 450
		{"CPU limit from CPU usage rounds up", 300, 90, 80, 338},          // ceil(337.5)
		{"at the target: unchanged", 4, 80, 80, 4},                        // not 5
		{"floating noise is no reason to round up", 3, 70, 35, 6},         // 3×70/35 = 6
		{"memory limit from memory usage shrinks", 400, 60, 80, 300},      // 400×0.75
		{"one pod at 10 % of 80 %", 1, 10, 80, 1},                         // ceil(0.125)
		{"no load: zero (clamped later)", 5, 0, 80, 0},                    // ceil(0)
		{"response time twice the target doubles pods", 3, 2000, 1000, 6}, // 3×2
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Optimum(tc.current, tc.measured, tc.desire); got != tc.want {
				t.Errorf("Optimum(%v, %v, %v) = %v, want %v", tc.current, tc.measured, tc.desire, got, tc.want)
			}
		})
	}
}

// exampleState: 2 pods of 300m/400Mi at 1.5 s, 90 % CPU and 60 % memory,
// aiming at 1 s, 80 % and 80 %. By eq. 1:
//
//	CPU limit: from response time 300×1.5 = 450, from CPU usage ceil(337.5) = 338
//	memory limit: from response time 400×1.5 = 600, from memory usage 400×0.75 = 300
//	replicas: from response time 2×1.5 = 3, from CPU usage ceil(2.25) = 3, from memory usage ceil(1.5) = 2
var (
	exampleState   = State{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 2, RequestsPerSecond: 100, ResponseTimeMs: 1500, CPUUsagePercent: 90, MemoryUsagePercent: 60}
	exampleDesired = Desired{ResponseTimeMs: 1000, CPUUsagePercent: 80, MemoryUsagePercent: 80}
	wideRanges     = Ranges{CPULimitMilli: Range{100, 1000}, MemoryLimitMiB: Range{100, 2000}, Replicas: Range{1, 10}}
)

type config struct {
	cpu, mem float64
	replicas int
}

func configs(vs []Variation) []config {
	var out []config
	for _, v := range vs {
		out = append(out, config{v.CPULimitMilli, v.MemoryLimitMiB, v.Replicas})
	}
	return out
}

func TestVariations(t *testing.T) {
	tests := []struct {
		name   string
		ranges Ranges
		want   []config
	}{
		{
			// 2×2×3 = 12, less the replicas from CPU usage (3), equal to those
			// from response time, in each of the 4 (CPU, memory) pairs: 8.
			name: "12 variations, duplicates kept once", ranges: wideRanges,
			want: []config{
				{450, 600, 3}, {450, 600, 2}, {450, 300, 3}, {450, 300, 2},
				{338, 600, 3}, {338, 600, 2}, {338, 300, 3}, {338, 300, 2},
			},
		},
		{
			// CPU in [300, 400] clamps 450 to 400; memory in [350, 500] clamps
			// 600 to 500 and 300 to 350; replicas at most 2 collapses 3 to 2.
			name: "clamped to the ranges", ranges: Ranges{CPULimitMilli: Range{300, 400}, MemoryLimitMiB: Range{350, 500}, Replicas: Range{1, 2}},
			want: []config{{400, 500, 2}, {400, 350, 2}, {338, 500, 2}, {338, 350, 2}},
		},
		{
			// Horizontal only (the paper's phase three): limits pinned.
			name: "fixed limits leave the replicas", ranges: Ranges{CPULimitMilli: Range{300, 300}, MemoryLimitMiB: Range{400, 400}, Replicas: Range{1, 10}},
			want: []config{{300, 400, 3}, {300, 400, 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := configs(Variations(exampleState, exampleDesired, tc.ranges))
			if !slices.Equal(got, tc.want) {
				t.Errorf("variations %v, want %v", got, tc.want)
			}
		})
	}
	// Without duplicates there are exactly 12: 4 pods at 1.5 s, 100 % CPU and
	// 40 % memory give CPU limits 450 and 375, memory limits 600 and 200, and
	// replicas 6, 5 and 2.
	s := exampleState
	s.Replicas, s.CPUUsagePercent, s.MemoryUsagePercent = 4, 100, 40
	vs := Variations(s, exampleDesired, wideRanges)
	if len(vs) != 12 {
		t.Errorf("%d variations (%v), want 12", len(vs), configs(vs))
	}
	for _, v := range vs {
		if v.From[0] == FromMemoryUsage || v.From[1] == FromCPUUsage {
			t.Errorf("variation %v comes from a dropped pair", v)
		}
	}
}

func TestTOPSISByHand(t *testing.T) {
	// Three alternatives on three criteria: response time (minimise), CPU
	// usage (maximise), pods (minimise); weights 0.5, 0.25, 0.25.
	//
	//	     rt  cpu  pods      column norms: √(4+1+4) = 3, √(9+16+0) = 5, √(1+4+4) = 3
	//	A1   2   3    1         normalised:  A1 (2/3, 0.6, 1/3)  A2 (1/3, 0.8, 2/3)  A3 (2/3, 0, 2/3)
	//	A2   1   4    2         weighted:    A1 (1/3, 0.15, 1/12) A2 (1/6, 0.2, 1/6) A3 (1/3, 0, 1/6)
	//	A3   2   0    2         ideal (1/6, 0.2, 1/12), anti-ideal (1/3, 0, 1/6)
	//
	//	A1: D⁺ = √((1/6)² + 0.05²),           D⁻ = √(0.15² + (1/12)²)  -> C ≈ 0.4965
	//	A2: D⁺ = √((1/12)²) = 1/12,           D⁻ = √((1/6)² + 0.2²)    -> C ≈ 0.7575
	//	A3: D⁺ = √((1/6)² + 0.2² + (1/12)²),  D⁻ = 0                   -> C = 0
	//
	// Ranking: A2, A1, A3.
	matrix := [][]float64{{2, 3, 1}, {1, 4, 2}, {2, 0, 2}}
	got := TOPSIS(matrix, []float64{0.5, 0.25, 0.25}, []bool{false, true, false})
	closeness := func(dp, dm float64) float64 { return dm / (dp + dm) }
	want := []float64{
		closeness(math.Sqrt(1.0/36+0.0025), math.Sqrt(0.0225+1.0/144)),
		closeness(1.0/12, math.Sqrt(1.0/36+0.04)),
		0,
	}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Errorf("closeness[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if !near(want[0], 0.4965, 1e-3) || !near(want[1], 0.7575, 1e-3) {
		t.Errorf("hand values drifted: %v", want)
	}
	if r := Rank(got); !slices.Equal(r, []int{1, 0, 2}) {
		t.Errorf("rank %v, want [1 0 2]", r)
	}
}

func TestTOPSISEdgeCases(t *testing.T) {
	// All alternatives equal: every one is the ideal; ties keep their order.
	got := TOPSIS([][]float64{{1, 2}, {1, 2}}, []float64{0.5, 0.5}, []bool{true, false})
	if !slices.Equal(got, []float64{1, 1}) || !slices.Equal(Rank(got), []int{0, 1}) {
		t.Errorf("equal alternatives: closeness %v", got)
	}
	// A zero column does not divide by zero.
	got = TOPSIS([][]float64{{0, 1}, {0, 2}}, []float64{0.5, 0.5}, []bool{true, true})
	if !slices.Equal(got, []float64{0, 1}) {
		t.Errorf("zero column: closeness %v, want [0 1]", got)
	}
}

// stubPredictor: response time inversely proportional to total CPU
// (1000 ms at 1 core), usages from the load over the capacity.
type stubPredictor struct{}

func (stubPredictor) Predict(in [NumInputs]float64) [NumTargets]float64 {
	total := in[0] * in[2] / 1000
	return [NumTargets]float64{1000 / total, 50 / total, 40000 / (in[1] * in[2])}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		weights Weights
		want    config
	}{
		// Everything on the response time: the most CPU in total, 450m × 3.
		{"response time only", Weights{ResponseTime: 1}, config{450, 600, 3}},
		// Everything on pods: the first variation with 2 pods.
		{"pods only", Weights{Replicas: 1}, config{450, 600, 2}},
		// Everything on the CPU or the memory limit: both weigh the cost per
		// hour at the paper's prices, replicas × (CPU × $0.0573 + memory/953
		// × $0.0063421): 2 × (0.338×0.0573 + 300/953×0.0063421) = $0.0427,
		// the cheapest (3 of 338m/300Mi: $0.0641; 2 of 450m/300Mi: $0.0556;
		// 2 of 338m/600Mi: $0.0467).
		{"memory limit only: the cost", Weights{MemoryLimit: 1}, config{338, 300, 2}},
		{"CPU limit only: the cost", Weights{CPULimit: 1}, config{338, 300, 2}},
		{"CPU and memory limit: the cost", Weights{CPULimit: 0.5, MemoryLimit: 0.5}, config{338, 300, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decide(stubPredictor{}, exampleState, Config{Desired: exampleDesired, Ranges: wideRanges, Weights: tc.weights})
			if err != nil {
				t.Fatal(err)
			}
			b := d.Best()
			if got := (config{b.CPULimitMilli, b.MemoryLimitMiB, b.Replicas}); got != tc.want {
				t.Errorf("best %v, want %v (ranked %v)", got, tc.want, configs(d.Ranked))
			}
			if b.Closeness != 1 {
				t.Errorf("best closeness %v, want 1 (it is the ideal on the only weighted criterion)", b.Closeness)
			}
		})
	}
}

func TestDecideValidation(t *testing.T) {
	valid := Config{Desired: exampleDesired, Ranges: wideRanges, Weights: Balanced}
	tests := []struct {
		name   string
		change func(c *Config, s *State)
		want   []string
	}{
		{"weights do not sum to 1", func(c *Config, _ *State) { c.Weights.ResponseTime = 0.4 },
			[]string{"weights: sum to 0.9, must sum to 1 (response_time 0.4 + cpu_usage 0.1 + "}},
		{"negative weight", func(c *Config, _ *State) { c.Weights.CPUUsage, c.Weights.MemoryUsage = -0.1, 0.3 },
			[]string{"weights.cpu_usage: -0.1 must be finite and >= 0"}},
		{"CPU range min > max", func(c *Config, _ *State) { c.Ranges.CPULimitMilli = Range{500, 300} },
			[]string{"ranges.cpu_limit_millicores: min 500 > max 300"}},
		{"two errors at once", func(c *Config, _ *State) {
			c.Ranges.MemoryLimitMiB = Range{600, 400}
			c.Ranges.Replicas = Range{0, 5}
		}, []string{"ranges.memory_limit_mib: min 600 > max 400", "ranges.replicas: min 0 must be > 0"}},
		{"fractional replicas", func(c *Config, _ *State) { c.Ranges.Replicas = Range{1, 2.5} },
			[]string{"ranges.replicas: min 1 and max 2.5 must be whole numbers"}},
		{"desired", func(c *Config, _ *State) { c.Desired.CPUUsagePercent = 0 },
			[]string{"desired.cpu_usage_percent: 0 must be finite and > 0"}},
		{"current", func(_ *Config, s *State) { s.Replicas = 0; s.ResponseTimeMs = math.NaN() },
			[]string{"current.replicas: 0 must be finite and > 0", "current.response_time_ms: NaN must be finite and >= 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := valid, exampleState
			tc.change(&c, &s)
			d, err := Decide(stubPredictor{}, s, c)
			if err == nil {
				t.Fatalf("no error, decided %v", d.Best())
			}
			if len(d.Ranked) != 0 {
				t.Errorf("an invalid input still decided %v", configs(d.Ranked))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	for _, w := range []Weights{Balanced, ResponseTimeFirst, ResourcesFirst} {
		c := valid
		c.Weights = w
		if err := c.Validate(); err != nil {
			t.Errorf("preset %+v: %v", w, err)
		}
	}
}

// appPredictor predicts with the workload model itself.
type appPredictor struct{ App }

func (a appPredictor) Predict(in [NumInputs]float64) [NumTargets]float64 {
	return a.Measure(in[0], in[1], int(in[2]), in[3]).Target()
}

func FuzzDecide(f *testing.F) {
	s := exampleState
	f.Add(s.CPULimitMilli, s.MemoryLimitMiB, s.Replicas, s.RequestsPerSecond, s.ResponseTimeMs, s.CPUUsagePercent, s.MemoryUsagePercent, 0.5, 300.0, 400.0, 1.0, 10.0)
	f.Add(300.0, 400.0, 1, 1000.0, 1300.0, 100.0, 100.0, 0.9, 300.0, 600.0, 1.0, 10.0)
	f.Add(500.0, 600.0, 5, 1.0, 5.0, 1.0, 40.0, 0.1, 100.0, 1000.0, 1.0, 3.0)
	f.Add(300.0, 400.0, 2, 0.0, 0.0, 0.0, 0.0, 1.0, 300.0, 300.0, 2.0, 2.0)
	f.Fuzz(func(t *testing.T, cpu, mem float64, replicas int, rps, rt, cpuU, memU, wRT, cpuMin, memMin, repMin, repMax float64) {
		s := State{CPULimitMilli: cpu, MemoryLimitMiB: mem, Replicas: replicas, RequestsPerSecond: rps, ResponseTimeMs: rt, CPUUsagePercent: cpuU, MemoryUsagePercent: memU}
		r := Ranges{CPULimitMilli: Range{cpuMin, cpuMin * 2}, MemoryLimitMiB: Range{memMin, memMin * 1.5}, Replicas: Range{repMin, repMax}}
		c := Config{Desired: exampleDesired, Ranges: r, Weights: ResponseTimeWeights(wRT)}
		d, err := Decide(appPredictor{DefaultApp}, s, c)
		if err != nil {
			if len(d.Ranked) != 0 {
				t.Fatalf("error %v with a decision", err)
			}
			return
		}
		if n := len(d.Ranked); n < 1 || n > 12 {
			t.Fatalf("%d variations", n)
		}
		for _, v := range d.Ranked {
			if v.CPULimitMilli < r.CPULimitMilli.Min || v.CPULimitMilli > r.CPULimitMilli.Max ||
				v.MemoryLimitMiB < r.MemoryLimitMiB.Min || v.MemoryLimitMiB > r.MemoryLimitMiB.Max ||
				float64(v.Replicas) < r.Replicas.Min || float64(v.Replicas) > r.Replicas.Max {
				t.Fatalf("variation %+v outside ranges %+v", v, r)
			}
			if !(v.Closeness >= 0 && v.Closeness <= 1) {
				t.Fatalf("closeness %v outside [0, 1]", v.Closeness)
			}
		}
	})
}

func TestThresholdsSatisfied(t *testing.T) {
	paper := Thresholds{ResponseTimeMs: 1000, CPUUsagePercent: Range{70, 90}, MemoryUsagePercent: Range{70, 90}}
	for _, tc := range []struct {
		name         string
		rt, cpu, mem float64
		want         bool
	}{
		{"all within", 900, 80, 75, true},
		{"on the bounds", 1000, 70, 90, true},
		{"too slow", 1001, 80, 80, false},
		{"CPU underused", 500, 69, 80, false},
		{"memory overused", 500, 80, 91, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := State{ResponseTimeMs: tc.rt, CPUUsagePercent: tc.cpu, MemoryUsagePercent: tc.mem}
			if got := paper.Satisfied(s); got != tc.want {
				t.Errorf("Satisfied = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzTOPSIS: for any non-negative 3×3 matrix and weights, closeness is in
// [0, 1] and Rank is a permutation. Seeded with TestTOPSISByHand's matrix.
func FuzzTOPSIS(f *testing.F) {
	f.Add(2.0, 3.0, 1.0, 1.0, 4.0, 2.0, 2.0, 0.0, 2.0, 0.5, 0.25, 0.25)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h, i, j, w1, w2, w3 float64) {
		vals := []float64{a, b, c, d, e, g, h, i, j, w1, w2, w3}
		for _, v := range vals {
			if !(v >= 0) || v > 1e150 {
				return // criteria values and weights are finite and >= 0
			}
		}
		got := TOPSIS([][]float64{{a, b, c}, {d, e, g}, {h, i, j}}, []float64{w1, w2, w3}, []bool{false, true, false})
		for k, v := range got {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("closeness[%d] = %v", k, v)
			}
		}
		r := Rank(got)
		slices.Sort(r)
		if !slices.Equal(r, []int{0, 1, 2}) {
			t.Fatalf("rank is not a permutation: %v", Rank(got))
		}
	})
}
