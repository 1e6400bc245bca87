package main

import (
	"math"
	"testing"

	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

func TestOracle(t *testing.T) {
	// Two seconds at 10 req/s each. First: $1/h at 100 ms or $3/h at 10 ms;
	// second: $1/h at 100 ms or $2/h at 20 ms.
	levels := []oracleLevel{
		{rps: 10, seconds: 1, front: []oraclePoint{{1, 100}, {3, 10}}},
		{rps: 10, seconds: 1, front: []oraclePoint{{1, 100}, {2, 20}}},
	}
	tests := []struct {
		name    string
		boundMs float64
		ok      bool
		cost    float64 // per day
		rtMs    float64
		method  string
	}{
		// Schedules: slow/fast (60 ms, $1.5/h = $36/day), fast/slow (55 ms,
		// $48), fast/fast (15 ms, $60), slow/slow (100 ms). Within 60 ms the
		// cheapest is slow/fast. The threshold search cannot find it (θ = 20
		// takes both fast, θ = 100 both slow); the Lagrangian does: the
		// second second goes fast for λ > 1/800, the first only for
		// λ > 2/900.
		{"Lagrangian finds the mix", 60, true, 36, 60, "Lagrangian"},
		// Within 50 ms only fast/fast: both searches find it, the first
		// (threshold) kept.
		{"only the fastest fits", 50, true, 60, 15, "threshold"},
		{"even the fastest is over", 5, false, 0, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := oracle(levels, tc.boundMs)
			if got.ok != tc.ok || math.Abs(got.costPerDay-tc.cost) > 1e-9 || math.Abs(got.rtMs-tc.rtMs) > 1e-9 || got.method != tc.method {
				t.Errorf("oracle(%v) = %+v; want ok %v, $%v/day, %v ms, %s", tc.boundMs, got, tc.ok, tc.cost, tc.rtMs, tc.method)
			}
		})
	}
}

func TestOracleLevelsFrontier(t *testing.T) {
	// 100 req/s from 0 s to the end (10 s) and through runTrace's 60 s tail:
	// one level of 70 s.
	app := moha.DefaultApp
	levels := oracleLevels(app, workload.Trace{{Seconds: 0, RPS: 100}, {Seconds: 10, RPS: 100}})
	if len(levels) != 1 || levels[0].rps != 100 || levels[0].seconds != 70 {
		t.Fatalf("levels %+v, want one of 100 req/s for 70 s", levels)
	}
	f := levels[0].front
	// The cheapest configuration is one 300m/400Mi pod, on the frontier
	// whatever its response time.
	small := moha.Configuration{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 1}
	if f[0].hourly != moha.PaperPrices.Hourly(small) || f[0].rtMs != app.Measure(300, 400, 1, 100).ResponseTimeMs {
		t.Errorf("first frontier point %+v, want one 300m/400Mi pod", f[0])
	}
	for i := 1; i < len(f); i++ {
		if !(f[i].hourly >= f[i-1].hourly && f[i].rtMs < f[i-1].rtMs) {
			t.Errorf("frontier points %d and %d: %+v then %+v, want dearer and faster", i-1, i, f[i-1], f[i])
		}
	}
	// No configuration is faster than the frontier's last point; 20 of the
	// largest pods are one of them.
	if last := f[len(f)-1].rtMs; last > app.Measure(500, 600, cmpMaxReplicas, 100).ResponseTimeMs {
		t.Errorf("fastest frontier point %v ms, slower than 20 × 500m/600Mi", last)
	}
}
