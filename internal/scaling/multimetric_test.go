package scaling

import (
	"strings"
	"testing"
	"time"
)

// newAllAlgorithms returns a fresh instance of each algorithm with its
// defaults (adaptive without forecast, so that one decision shows the
// count the load needs).
func newAllAlgorithms(t *testing.T) []Algorithm {
	t.Helper()
	c := DefaultAdaptiveConfig()
	c.Horizon = 0
	a, err := NewAdaptive(c)
	if err != nil {
		t.Fatal(err)
	}
	return append([]Algorithm{a}, allAlgorithms(t)...)
}

// TestDecideMetrics: every algorithm decides over several metrics as the
// HPA's computeReplicasForMetrics: the highest metric's proposal wins
// whatever the order of the metrics (and is what that metric alone gets), a
// metric without data is skipped unless the others would scale down
// (partial data holds), and inputs of different syncs are invalid. Target
// 10 per pod, External totals: metric a needs 4, metric b 8.
func TestDecideMetrics(t *testing.T) {
	in := func(cur int32, total *float64) Input {
		return Input{Now: algT0, Current: cur, Min: 1, Max: 100, Target: 10, External: total}
	}
	noData := func(cur int32) Input { return in(cur, nil) }
	tests := []struct {
		name     string
		ins      []Input
		want     int32
		contains string
	}{
		{"highest wins", []Input{in(4, ext(40)), in(4, ext(80))}, 8, "metric 1: "},
		{"highest wins, other order", []Input{in(4, ext(80)), in(4, ext(40))}, 8, "metric 0: "},
		{"partial data scales up", []Input{noData(4), in(4, ext(80))}, 8, "metric 0: no"},
		{"partial data holds a scale-down", []Input{noData(8), in(8, ext(20))}, 8, "holding 8"},
		{"no data holds", []Input{noData(8), noData(8)}, 8, "holding 8"},
		{"other Current is invalid", []Input{in(4, ext(40)), in(5, ext(80))}, 4, "invalid input: "},
		{"no input is invalid", nil, 0, "invalid input: "},
	}
	for _, tc := range tests {
		for i, alg := range newAllAlgorithms(t) {
			t.Run(tc.name+"/"+alg.Name(), func(t *testing.T) {
				d := alg.DecideMetrics(tc.ins)
				if d.Desired != tc.want || !strings.Contains(d.Reason, tc.contains) {
					t.Fatalf("got %d (%s), want %d and a reason with %q", d.Desired, d.Reason, tc.want, tc.contains)
				}
				if tc.contains != "metric 1: " && tc.contains != "metric 0: " {
					return
				}
				// The winning metric alone gets the same count.
				alone := newAllAlgorithms(t)[i].Decide(in(4, ext(80)))
				if alone.Desired != d.Desired {
					t.Fatalf("metric b alone: %d (%s), both: %d", alone.Desired, alone.Reason, d.Desired)
				}
			})
		}
	}
}

// TestAdaptiveDecideMetricsHistories: the adaptive algorithm keeps a load
// history per metric, so one metric's ramp is forecast from its own past
// and not from the other's: a rises by 20 a step from 100 while b stays at
// 50; with a 30 s horizon (two 15 s steps) a's trend forecasts 40 above
// its last value (a history mixing both metrics would alternate 200 and 50
// and fit no line).
func TestAdaptiveDecideMetricsHistories(t *testing.T) {
	a, err := NewAdaptive(DefaultAdaptiveConfig())
	if err != nil {
		t.Fatal(err)
	}
	var d Decision
	cur := int32(10)
	for i := range 6 {
		at := algAt(time.Duration(i) * 15 * time.Second)
		load := 100 + 20*float64(i)
		d = a.DecideMetrics([]Input{
			{Now: at, Current: cur, Min: 1, Max: 100, Target: 10, External: ext(load)},
			{Now: at, Current: cur, Min: 1, Max: 100, Target: 10, External: ext(50)},
		})
		cur = d.Desired
	}
	// Last load 200: the trend forecasts 240 at the horizon, within the
	// tolerance of the 22 pods the ramp brought.
	if f := a.LastForecast(); f.Model != "trend" || f.Observed != 200 || f.Load < 239 || f.Load > 241 || d.Desired != 22 {
		t.Fatalf("got %d with forecast %+v (%s), want 22 and a trend forecast of 240 over the observed 200", d.Desired, f, d.Reason)
	}
	if len(a.series) != 2 || len(a.series[1].hist) != 6 || a.series[1].hist[5] != 50 {
		t.Fatalf("series %+v, want two histories, b's six points at 50", a.series)
	}
}

// TestAdaptiveWarmMetric: each metric's history is warmed on its own (the
// runtime reads each metric's past): metric 1 warmed with the seasonal
// pattern of TestAdaptiveWarm forecasts from it at the first decision,
// while metric 0, not warmed, has only its first observation. A metric
// index out of range is an error.
func TestAdaptiveWarmMetric(t *testing.T) {
	a, pattern := seasonalAdaptive(t)
	var ts []time.Time
	var vs []float64
	for i := range 9 {
		ts = append(ts, algAt(time.Duration(i)*15*time.Second))
		vs = append(vs, pattern[i%4])
	}
	now := algAt(135 * time.Second)
	if err := a.WarmMetric(1, 2, ts, vs, now.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	d := a.DecideMetrics([]Input{
		{Now: now, Current: 2, Min: 1, Max: 60, Target: 100, External: ext(50)},
		{Now: now, Current: 2, Min: 1, Max: 60, Target: 100, External: ext(200)},
	})
	if f := a.LastForecast(); f.Model != "seasonal" || f.Load != 300 || d.Desired != 3 {
		t.Fatalf("forecast %+v, decision %d (%s); want metric 1's seasonal 300 and 3", f, d.Desired, d.Reason)
	}
	if len(a.series[0].hist) != 1 || len(a.series[1].hist) != 10 {
		t.Fatalf("histories of %d and %d points, want 1 (metric 0, cold) and 10 (metric 1, warmed)", len(a.series[0].hist), len(a.series[1].hist))
	}
	if err := a.WarmMetric(2, 2, ts, vs, now); err == nil {
		t.Fatal("WarmMetric of metric 2 of 2: no error")
	}
}
