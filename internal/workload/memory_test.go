package workload

import (
	"math"
	"testing"
)

// computeBeforeMemory is Compute as it was before the memory dimension, kept
// to prove that results without a memory model are bit-identical.
func computeBeforeMemory(offered, cpuPerRequest float64, pods []PodResources, out []PodLoad) float64 {
	if len(pods) == 0 {
		return offered
	}
	share := offered / float64(len(pods))
	for i, res := range pods {
		limit := res.EffectiveLimit()
		mu := limit / cpuPerRequest
		served := math.Min(share, mu)
		p := &out[i]
		p.Share = share
		p.Capacity = mu
		p.Served = served
		p.Errors = share - served
		p.CPU = served * cpuPerRequest
		p.Utilisation = 0
		if res.Request > 0 {
			p.Utilisation = p.CPU / res.Request
		}
		theta := mu - math.Min(served, MaxLatencyUtilisation*mu)
		p.MeanLatency = 1 / theta
		for b, le := range Buckets {
			p.Buckets[b] = served * -math.Expm1(-theta*le)
		}
	}
	return 0
}

func TestComputeWithoutMemoryIsBitIdentical(t *testing.T) {
	podSets := [][]PodResources{
		{{Request: 0.5, Limit: 1}, {Request: 0.5, Limit: 1}},
		{{Request: 0.1}},
		{{}},
		{{Request: 0.25, Limit: 0.25}, {Request: 1, Limit: 1}, {Limit: 0.3}},
	}
	mem := Memory{BaseMiB: 200, PerRequestMiB: 1, GCCost: 0.1}
	for _, pods := range podSets {
		for _, cost := range []float64{0.002, 0.01, 0.0137} {
			for offered := 0.0; offered <= 400; offered += 3.7 {
				want := make([]PodLoad, len(pods))
				wantUn := computeBeforeMemory(offered, cost, pods, want)
				for _, tc := range []struct {
					name string
					run  func(out []PodLoad) float64
				}{
					{"Compute", func(out []PodLoad) float64 { return Compute(offered, cost, pods, out) }},
					{"ComputeMemory with the zero Memory", func(out []PodLoad) float64 {
						return ComputeMemory(offered, cost, Memory{}, pods, out)
					}},
					{"ComputeMemory, pods without a memory limit", func(out []PodLoad) float64 {
						return ComputeMemory(offered, cost, mem, pods, out)
					}},
				} {
					got := make([]PodLoad, len(pods))
					if un := tc.run(got); un != wantUn {
						t.Fatalf("%s(%v, %v, %v): unassigned %v, want %v", tc.name, offered, cost, pods, un, wantUn)
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("%s(%v, %v, %v): pod %d = %+v, want bit-identical %+v", tc.name, offered, cost, pods, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestComputeMemory(t *testing.T) {
	mem := Memory{BaseMiB: 200, PerRequestMiB: 1, GCCost: 0.1}
	tests := []struct {
		name    string
		offered float64
		res     PodResources
		// expected, worked by hand
		memory, memUtil, overhead, capacity, served, cpu, latency float64
	}{
		{
			// W = 200+1×50 = 250 MiB, x = 250/400 = 0.625, g = 0.1×0.625/0.375 = 1/6,
			// cost = 0.01×7/6, μ = 1/cost = 600/7, latency = 1/(600/7-50) = 7/250 s.
			name: "working set below the limit", offered: 50, res: PodResources{Request: 1, Limit: 1, MemoryLimit: 400},
			memory: 250, memUtil: 0.625, overhead: 1.0 / 6, capacity: 600.0 / 7, served: 50, cpu: 50 * 0.07 / 6, latency: 7.0 / 250,
		},
		{
			// W = 250 > L = 200: x capped at 0.95, g = 0.1×19 = 1.9, cost = 0.029,
			// μ = 1/0.029; the pod saturates (served = μ, CPU = the limit) and
			// latency = 1/(μ-0.99μ) = 100×0.029.
			name: "working set beyond the limit", offered: 50, res: PodResources{Request: 1, Limit: 1, MemoryLimit: 200},
			memory: 200, memUtil: 1, overhead: 1.9, capacity: 1 / 0.029, served: 1 / 0.029, cpu: 1, latency: 2.9,
		},
		{
			// Idle: W = 200, x = 0.2, g = 0.1×0.25 = 0.025, μ = 0.5/0.01025,
			// latency is the bare (slowed) service time 1/μ.
			name: "idle pod still pays for its base working set", offered: 0, res: PodResources{Request: 0.5, Limit: 0.5, MemoryLimit: 1000},
			memory: 200, memUtil: 0.2, overhead: 0.025, capacity: 0.5 / 0.01025, served: 0, cpu: 0, latency: 0.01025 / 0.5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]PodLoad, 1)
			ComputeMemory(tc.offered, 0.01, mem, []PodResources{tc.res}, out)
			p := out[0]
			for _, f := range []struct {
				n         string
				got, want float64
			}{
				{"Memory", p.Memory, tc.memory}, {"MemoryUtilisation", p.MemoryUtilisation, tc.memUtil},
				{"GCOverhead", p.GCOverhead, tc.overhead}, {"Capacity", p.Capacity, tc.capacity},
				{"Served", p.Served, tc.served}, {"CPU", p.CPU, tc.cpu}, {"MeanLatency", p.MeanLatency, tc.latency},
			} {
				if !near(f.got, f.want, 1e-9) {
					t.Errorf("%s = %v, want %v", f.n, f.got, f.want)
				}
			}
		})
	}
}

// TestMemoryLimitTradeOff: at a fixed load, more memory never slows a pod
// down, and less memory never lowers its memory utilisation.
func TestMemoryLimitTradeOff(t *testing.T) {
	mem := Memory{BaseMiB: 250, PerRequestMiB: 1, GCCost: 0.05}
	out := make([]PodLoad, 1)
	prevLat, prevUtil := math.Inf(1), math.Inf(1)
	for limit := 100.0; limit <= 2000; limit += 10 {
		ComputeMemory(60, 0.005, mem, []PodResources{{Request: 0.4, Limit: 0.4, MemoryLimit: limit}}, out)
		if out[0].MeanLatency > prevLat {
			t.Fatalf("memory limit %v: latency %v grew from %v", limit, out[0].MeanLatency, prevLat)
		}
		if out[0].MemoryUtilisation > prevUtil {
			t.Fatalf("memory limit %v: memory utilisation %v grew from %v", limit, out[0].MemoryUtilisation, prevUtil)
		}
		prevLat, prevUtil = out[0].MeanLatency, out[0].MemoryUtilisation
	}
}
