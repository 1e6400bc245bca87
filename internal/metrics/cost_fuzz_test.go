package metrics

import (
	"math"
	"testing"
)

// FuzzCost: no panic; an accepted cost is finite and non-negative, linear in
// the replicas (Cost of 2n = 2 x Cost of n), and TotalCost of one placement
// equals its Cost. CostEfficiency accepts only sane rates and gives a fast
// share in [0, 1].
func FuzzCost(f *testing.F) {
	// Seeds from TestCost and TestCostEfficiency.
	f.Add(0.0464, 0.0058, 0.5, 1.0, 10, 80.0, 100.0, 1.0)
	f.Add(0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0)
	f.Add(-1.0, 0.1, 1.0, 1.0, 3, 120.0, 100.0, 0.5)
	f.Add(math.Inf(1), 0.1, 1.0, math.NaN(), -1, math.NaN(), 1.0, 0.0)
	f.Fuzz(func(t *testing.T, vcpu, gib, cores, mem float64, replicas int, fast, total, costPerHour float64) {
		replicas %= 100000
		prices, req := Prices{PerVCPUHour: vcpu, PerGiBHour: gib}, Requests{CPUCores: cores, MemoryGiB: mem}
		c, err := Cost(prices, req, replicas)
		if err == nil {
			if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
				t.Fatalf("Cost(%+v, %+v, %d) = %v", prices, req, replicas, c)
			}
			if c2, err := Cost(prices, req, 2*replicas); err == nil && math.Abs(c2-2*c) > 1e-9*math.Max(1, c2) {
				t.Fatalf("Cost of %d = %v, of %d = %v: not linear", replicas, c, 2*replicas, c2)
			}
			tc, err := TotalCost([]Placement{{Cluster: "c", Prices: prices, PerPod: req, Replicas: replicas}})
			if err != nil || math.Abs(tc-c) > 1e-9*math.Max(1, c) {
				t.Fatalf("TotalCost = %v, %v; Cost = %v", tc, err, c)
			}
		}
		e, err := CostEfficiency(fast, total, costPerHour)
		if err != nil {
			return
		}
		if math.IsNaN(e.FastShare) || e.FastShare < 0 || e.FastShare > 1 {
			t.Fatalf("CostEfficiency(%v, %v, %v) fast share %v outside [0, 1]", fast, total, costPerHour, e.FastShare)
		}
	})
}
