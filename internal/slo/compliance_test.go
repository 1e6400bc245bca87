package slo

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func approx(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

var (
	cpu70    = Objective{Kind: KindCPUUtilization, TargetUtilizationPercent: 70}
	p99      = Objective{Kind: KindLatency, Percentile: 99, ThresholdSeconds: 0.2}
	avail999 = Objective{Kind: KindAvailability, TargetAvailabilityPercent: 99.9}
	costEff  = Objective{Kind: KindCostEfficiency, TargetCostEfficiency: 1000}
	lower10  = Objective{Kind: KindCustom, Target: 10, Direction: LowerIsBetter}
	higher   = Objective{Kind: KindCustom, Target: 100, Direction: HigherIsBetter}
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name       string
		o          Objective
		m          Measurement
		compliance float64
		value      float64
		fastPct    float64
	}{
		// cpu-utilization: current / target x 100.
		{"cpu above target is violated", cpu70, Measurement{Observed: true, Value: 84}, 120, 84, 0},
		{"cpu below target is outperformed", cpu70, Measurement{Observed: true, Value: 35}, 50, 35, 0},
		{"cpu at target is met", cpu70, Measurement{Observed: true, Value: 70}, 100, 70, 0},
		{"idle cpu", cpu70, Measurement{Observed: true, Value: 0}, 0, 0, 0},

		// latency: percentile / threshold x 100.
		{"p99 above threshold", p99, Measurement{Observed: true, Value: 0.3}, 150, 0.3, 0},
		{"p99 below threshold", p99, Measurement{Observed: true, Value: 0.05}, 25, 0.05, 0},

		// availability: error ratio / allowed ratio x 100.
		{"twice the error budget", avail999, Measurement{Observed: true, RequestsPerSecond: 1000, ErrorsPerSecond: 2}, 200, 99.8, 0},
		{"half the error budget", avail999, Measurement{Observed: true, RequestsPerSecond: 1000, ErrorsPerSecond: 0.5}, 50, 99.95, 0},
		{"no errors", avail999, Measurement{Observed: true, RequestsPerSecond: 50}, 0, 100, 0},
		{"errors above requests (query skew) count as all failed", avail999, Measurement{Observed: true, RequestsPerSecond: 10, ErrorsPerSecond: 11}, 100000, 0, 0},

		// custom, both directions.
		{"lower is better, below target", lower10, Measurement{Observed: true, Value: 5}, 50, 5, 0},
		{"lower is better, above target", lower10, Measurement{Observed: true, Value: 25}, 250, 25, 0},
		{"higher is better, below target", higher, Measurement{Observed: true, Value: 50}, 200, 50, 0},
		{"higher is better, above target", higher, Measurement{Observed: true, Value: 400}, 25, 400, 0},
		{"higher is better, zero value", higher, Measurement{Observed: true, Value: 0}, InfiniteViolation, 0, 0},

		// cost-efficiency. Target 1000 fast req/s per cost/h, minimum 90 % fast.
		{
			"fast enough and efficient enough is met (Polaris: 100)", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 95, CostPerHour: 0.05},
			100, 1900, 95,
		},
		{
			"fast enough but wasteful is outperformed: release resources", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 95, CostPerHour: 0.19},
			50, 500, 95,
		},
		{
			"too few fast requests is violated even when efficient", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 80, CostPerHour: 0.01},
			112.5, 8000, 80, // max(90/80, 1000/8000) x 100
		},
		{
			"too few fast requests and inefficient: Polaris' target / efficiency", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 50, CostPerHour: 0.5},
			1000, 100, 50, // max(90/50, 1000/100) x 100
		},
		{
			"no fast request at all", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 0, CostPerHour: 0.5},
			InfiniteViolation, 0, 0,
		},
		{
			"free cluster and fast enough", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 100, CostPerHour: 0},
			100, math.MaxFloat64, 100,
		},
		{
			"free cluster but slow: only the fast-share term", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 45, CostPerHour: 0},
			200, math.MaxFloat64, 45,
		},
		{
			"fast above all requests (query skew) counts as all fast", costEff,
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 104, CostPerHour: 0.1},
			100, 1000, 100,
		},
		{
			"a stricter minimum", Objective{Kind: KindCostEfficiency, TargetCostEfficiency: 1000, MinFastPercent: 99},
			Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 95, CostPerHour: 0.05},
			99.0 / 95 * 100, 1900, 95,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Evaluate(tc.o, tc.m)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if !approx(got.Compliance, tc.compliance) {
				t.Errorf("compliance = %v, want %v", got.Compliance, tc.compliance)
			}
			if !approx(got.Value, tc.value) {
				t.Errorf("value = %v, want %v", got.Value, tc.value)
			}
			if !approx(got.FastPercent, tc.fastPct) {
				t.Errorf("fast percent = %v, want %v", got.FastPercent, tc.fastPct)
			}
		})
	}
}

func TestEvaluateHoldsOnMissingData(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name    string
		o       Objective
		m       Measurement
		traffic bool // ErrNoTraffic expected
		want    string
	}{
		{"nothing observed", cpu70, Measurement{}, false, "the cpu-utilization query returned no sample"},
		{"NaN utilisation", cpu70, Measurement{Observed: true, Value: nan}, false, "CPU utilisation is NaN"},
		{"NaN latency (histogram without requests)", p99, Measurement{Observed: true, Value: nan}, false, "latency is NaN"},
		{"infinite latency", p99, Measurement{Observed: true, Value: inf}, false, "latency is +Inf"},
		{"negative custom value", lower10, Measurement{Observed: true, Value: -1}, false, "custom value is -1, below 0"},
		{"availability without requests", avail999, Measurement{Observed: true}, true, "no requests in the window"},
		{"availability NaN errors", avail999, Measurement{Observed: true, RequestsPerSecond: 3, ErrorsPerSecond: nan}, false, "error rate is NaN"},
		{"cost efficiency without requests", costEff, Measurement{Observed: true, CostPerHour: 1}, true, "no requests in the window"},
		{"cost efficiency NaN cost", costEff, Measurement{Observed: true, RequestsPerSecond: 3, CostPerHour: nan}, false, "cost per hour is NaN"},
		{"cost efficiency negative fast rate", costEff, Measurement{Observed: true, RequestsPerSecond: 3, FastRequestsPerSecond: -2}, false, "fast request rate is -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Evaluate(tc.o, tc.m)
			if err == nil {
				t.Fatalf("Evaluate = %+v, want an error", got)
			}
			if !errors.Is(err, ErrNoData) {
				t.Errorf("error %v does not wrap ErrNoData", err)
			}
			if errors.Is(err, ErrNoTraffic) != tc.traffic {
				t.Errorf("errors.Is(err, ErrNoTraffic) = %v, want %v", !tc.traffic, tc.traffic)
			}
			if errors.Is(err, ErrInvalidObjective) {
				t.Errorf("missing data reported as an invalid objective: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestEvaluateRejectsBadObjectives(t *testing.T) {
	m := Measurement{Observed: true, Value: 1, RequestsPerSecond: 1}
	tests := []struct {
		name string
		o    Objective
		want string
	}{
		{"no kind", Objective{}, `kind "" is unknown`},
		{"unknown kind", Objective{Kind: "throughput"}, `kind "throughput" is unknown`},
		{"cpu target 0", Objective{Kind: KindCPUUtilization}, "targetUtilizationPercent is 0"},
		{"cpu target NaN", Objective{Kind: KindCPUUtilization, TargetUtilizationPercent: math.NaN()}, "targetUtilizationPercent is NaN"},
		{"latency percentile 0", Objective{Kind: KindLatency, ThresholdSeconds: 1}, "latency percentile is 0"},
		{"latency percentile above 100", Objective{Kind: KindLatency, Percentile: 101, ThresholdSeconds: 1}, "latency percentile is 101"},
		{"latency threshold 0", Objective{Kind: KindLatency, Percentile: 95}, "latency thresholdSeconds is 0"},
		{"cost target negative", Objective{Kind: KindCostEfficiency, TargetCostEfficiency: -5}, "targetCostEfficiency is -5"},
		{"cost min above 100", Objective{Kind: KindCostEfficiency, TargetCostEfficiency: 5, MinFastPercent: 120}, "minFastPercent is 120"},
		{"availability 100", Objective{Kind: KindAvailability, TargetAvailabilityPercent: 100}, "targetAvailabilityPercent is 100"},
		{"availability 0", Objective{Kind: KindAvailability}, "targetAvailabilityPercent is 0"},
		{"custom target 0", Objective{Kind: KindCustom, Direction: LowerIsBetter}, "custom target is 0"},
		{"custom no direction", Objective{Kind: KindCustom, Target: 3}, `custom direction is ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Evaluate(tc.o, m)
			if err == nil || !errors.Is(err, ErrInvalidObjective) || errors.Is(err, ErrNoData) {
				t.Fatalf("err = %v, want only ErrInvalidObjective", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// FuzzEvaluate checks that every measurement gives either a finite,
// non-negative compliance or an error, and never panics.
func FuzzEvaluate(f *testing.F) {
	f.Add(uint8(0), 70.0, 84.0, 0.0, 0.0, 0.0, 0.0, true)
	f.Add(uint8(2), 1000.0, 0.0, 100.0, 80.0, 0.01, 0.0, true)
	f.Add(uint8(3), 99.9, 0.0, 1000.0, 0.0, 0.0, 2.0, true)
	f.Add(uint8(4), 100.0, 0.0, 0.0, 0.0, 0.0, 0.0, true)
	f.Add(uint8(1), 0.2, math.NaN(), 0.0, 0.0, 0.0, 0.0, true)
	f.Add(uint8(5), 1e-300, 1e300, 1e300, 1e-300, 1e-300, 1e300, true)
	kinds := []Kind{KindCPUUtilization, KindLatency, KindCostEfficiency, KindAvailability, KindCustom, KindCustom}
	f.Fuzz(func(t *testing.T, k uint8, target, value, reqs, fast, cost, errs float64, observed bool) {
		o := Objective{
			Kind:                      kinds[int(k)%len(kinds)],
			TargetUtilizationPercent:  target,
			Percentile:                99,
			ThresholdSeconds:          target,
			TargetCostEfficiency:      target,
			TargetAvailabilityPercent: math.Mod(math.Abs(target), 100),
			Target:                    target,
			Direction:                 LowerIsBetter,
		}
		if int(k)%len(kinds) == 5 {
			o.Direction = HigherIsBetter
		}
		m := Measurement{Observed: observed, Value: value, RequestsPerSecond: reqs, FastRequestsPerSecond: fast, CostPerHour: cost, ErrorsPerSecond: errs}
		r, err := Evaluate(o, m)
		if err != nil {
			if !errors.Is(err, ErrNoData) && !errors.Is(err, ErrInvalidObjective) {
				t.Fatalf("error %v wraps neither ErrNoData nor ErrInvalidObjective", err)
			}
			return
		}
		if math.IsNaN(r.Compliance) || math.IsInf(r.Compliance, 0) || r.Compliance < 0 {
			t.Fatalf("Evaluate(%+v, %+v) compliance %v", o, m, r.Compliance)
		}
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Fatalf("Evaluate(%+v, %+v) value %v", o, m, r.Value)
		}
	})
}

// benchObjectives builds n SLOs of every kind with realistic measurements.
func benchObjectives(n int) ([]Objective, []Measurement) {
	os := make([]Objective, n)
	ms := make([]Measurement, n)
	for i := range os {
		f := float64(i%97) / 97
		switch i % 5 {
		case 0:
			os[i], ms[i] = cpu70, Measurement{Observed: true, Value: 20 + 80*f}
		case 1:
			os[i], ms[i] = p99, Measurement{Observed: true, Value: 0.05 + 0.3*f}
		case 2:
			os[i], ms[i] = costEff, Measurement{Observed: true, RequestsPerSecond: 100, FastRequestsPerSecond: 70 + 30*f, CostPerHour: 0.05 + f}
		case 3:
			os[i], ms[i] = avail999, Measurement{Observed: true, RequestsPerSecond: 500, ErrorsPerSecond: f}
		default:
			os[i], ms[i] = higher, Measurement{Observed: true, Value: 50 + 100*f}
		}
	}
	return os, ms
}

func TestEvaluateDoesNotAllocate(t *testing.T) {
	os, ms := benchObjectives(100)
	allocs := testing.AllocsPerRun(10, func() {
		for i := range os {
			if _, err := Evaluate(os[i], ms[i]); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Evaluate allocated %v times per 100 SLOs, want 0", allocs)
	}
}

// BenchmarkEvaluate evaluates 1,000 and 10,000 SLO compliances per op.
func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		os, ms := benchObjectives(n)
		b.Run(fmt.Sprintf("slos=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var sum float64
			for b.Loop() {
				for i := range os {
					r, err := Evaluate(os[i], ms[i])
					if err != nil {
						b.Fatal(err)
					}
					sum += r.Compliance
				}
			}
			if sum == 0 {
				b.Fatal("no compliance computed")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/slo")
		})
	}
}
