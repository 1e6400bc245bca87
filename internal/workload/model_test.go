package workload

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestComputeShares(t *testing.T) {
	const eps = 1e-12
	tests := []struct {
		name          string
		offered, cost float64
		pods          []PodResources
		wantUnassign  float64
		want          []PodLoad // only the scalar fields are compared
	}{
		{
			name: "two pods below capacity", offered: 50, cost: 0.01,
			pods: []PodResources{{Request: 0.5, Limit: 1}, {Request: 0.5, Limit: 1}},
			want: []PodLoad{
				{Share: 25, Capacity: 100, Served: 25, Errors: 0, CPU: 0.25, Utilisation: 0.5, MeanLatency: 1.0 / 75},
				{Share: 25, Capacity: 100, Served: 25, Errors: 0, CPU: 0.25, Utilisation: 0.5, MeanLatency: 1.0 / 75},
			},
		},
		{
			name: "four pods halve each share", offered: 50, cost: 0.01,
			pods: []PodResources{{Request: 0.5, Limit: 1}, {Request: 0.5, Limit: 1}, {Request: 0.5, Limit: 1}, {Request: 0.5, Limit: 1}},
			want: []PodLoad{
				{Share: 12.5, Capacity: 100, Served: 12.5, CPU: 0.125, Utilisation: 0.25, MeanLatency: 1.0 / 87.5},
				{Share: 12.5, Capacity: 100, Served: 12.5, CPU: 0.125, Utilisation: 0.25, MeanLatency: 1.0 / 87.5},
				{Share: 12.5, Capacity: 100, Served: 12.5, CPU: 0.125, Utilisation: 0.25, MeanLatency: 1.0 / 87.5},
				{Share: 12.5, Capacity: 100, Served: 12.5, CPU: 0.125, Utilisation: 0.25, MeanLatency: 1.0 / 87.5},
			},
		},
		{
			// share 150 > μ 100: 50 req/s fail, CPU is capped at the limit and ρ
			// is clamped at 0.99 so the latency is 1/(100-99) = 1 s.
			name: "over capacity caps served and counts errors", offered: 300, cost: 0.01,
			pods: []PodResources{{Request: 0.5, Limit: 1}, {Request: 0.5, Limit: 1}},
			want: []PodLoad{
				{Share: 150, Capacity: 100, Served: 100, Errors: 50, CPU: 1, Utilisation: 2, MeanLatency: 1},
				{Share: 150, Capacity: 100, Served: 100, Errors: 50, CPU: 1, Utilisation: 2, MeanLatency: 1},
			},
		},
		{
			name: "no limit means limit = request", offered: 80, cost: 0.002,
			pods: []PodResources{{Request: 0.1}},
			want: []PodLoad{{Share: 80, Capacity: 50, Served: 50, Errors: 30, CPU: 0.1, Utilisation: 1, MeanLatency: 1 / (50 - 49.5)}},
		},
		{
			name: "no request and no limit uses DefaultPodCPU and utilisation 0", offered: 10, cost: 0.01,
			pods: []PodResources{{}},
			want: []PodLoad{{Share: 10, Capacity: DefaultPodCPU / 0.01, Served: 10, CPU: 0.1, Utilisation: 0, MeanLatency: 1 / (DefaultPodCPU/0.01 - 10)}},
		},
		{
			name: "unequal pods get equal shares but different capacity", offered: 60, cost: 0.01,
			pods: []PodResources{{Request: 0.25, Limit: 0.25}, {Request: 1, Limit: 1}},
			want: []PodLoad{
				{Share: 30, Capacity: 25, Served: 25, Errors: 5, CPU: 0.25, Utilisation: 1, MeanLatency: 1 / (25 - 0.99*25)},
				{Share: 30, Capacity: 100, Served: 30, CPU: 0.3, Utilisation: 0.3, MeanLatency: 1.0 / 70},
			},
		},
		{
			name: "zero load: no CPU, latency is the bare service time", offered: 0, cost: 0.01,
			pods: []PodResources{{Request: 0.5, Limit: 0.5}},
			want: []PodLoad{{Share: 0, Capacity: 50, Served: 0, CPU: 0, Utilisation: 0, MeanLatency: 1.0 / 50}},
		},
		{
			name: "zero ready pods: all load unassigned", offered: 42, cost: 0.01,
			pods: nil, wantUnassign: 42,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]PodLoad, len(tc.pods))
			un := Compute(tc.offered, tc.cost, tc.pods, out)
			if !near(un, tc.wantUnassign, eps) {
				t.Errorf("unassigned = %v, want %v", un, tc.wantUnassign)
			}
			var total float64
			for i, w := range tc.want {
				g := out[i]
				total += g.Served + g.Errors
				for _, f := range []struct {
					n         string
					got, want float64
				}{
					{"Share", g.Share, w.Share}, {"Capacity", g.Capacity, w.Capacity}, {"Served", g.Served, w.Served},
					{"Errors", g.Errors, w.Errors}, {"CPU", g.CPU, w.CPU}, {"Utilisation", g.Utilisation, w.Utilisation},
					{"MeanLatency", g.MeanLatency, w.MeanLatency},
				} {
					if !near(f.got, f.want, 1e-9) {
						t.Errorf("pod %d: %s = %v, want %v", i, f.n, f.got, f.want)
					}
				}
				if lim := tc.pods[i].EffectiveLimit(); g.CPU > lim+eps {
					t.Errorf("pod %d: CPU %v exceeds limit %v", i, g.CPU, lim)
				}
			}
			// Conservation: every offered request is served, failed or unassigned.
			if !near(total+un, tc.offered, 1e-9) {
				t.Errorf("served+errors+unassigned = %v, want offered %v", total+un, tc.offered)
			}
		})
	}
}

func TestComputeHistogram(t *testing.T) {
	tests := []struct {
		name  string
		share float64
		res   PodResources
		cost  float64
		theta float64 // expected rate of the response-time distribution
	}{
		{"light load", 25, PodResources{Request: 0.5, Limit: 1}, 0.01, 75},
		{"heavy load", 40, PodResources{Request: 0.1, Limit: 0.1}, 0.002, 10},
		{"saturated: rho clamped at 0.99", 500, PodResources{Request: 1, Limit: 1}, 0.01, 1},
		{"idle", 0, PodResources{Request: 1, Limit: 1}, 0.01, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]PodLoad, 1)
			Compute(tc.share, tc.cost, []PodResources{tc.res}, out)
			p := out[0]
			prev := 0.0
			for i, le := range Buckets {
				want := p.Served * (1 - math.Exp(-tc.theta*le))
				if !near(p.Buckets[i], want, 1e-9) {
					t.Errorf("bucket le=%v = %v, want served×(1-exp(-%v×le)) = %v", le, p.Buckets[i], tc.theta, want)
				}
				if p.Buckets[i] < prev || p.Buckets[i] > p.Served {
					t.Errorf("bucket le=%v = %v is not within [previous %v, served %v]", le, p.Buckets[i], prev, p.Served)
				}
				prev = p.Buckets[i]
			}
			if !near(p.MeanLatency, 1/tc.theta, 1e-9) {
				t.Errorf("MeanLatency = %v, want %v", p.MeanLatency, 1/tc.theta)
			}
		})
	}
}

func TestLatencyMonotoneInLoad(t *testing.T) {
	pods := []PodResources{{Request: 0.5, Limit: 0.5}, {Request: 0.5, Limit: 0.5}} // μ = 50 req/s each
	for _, tc := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}} {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]PodLoad, len(pods))
			prevMean, prevQ := 0.0, 0.0
			for load := 1.0; load <= 200; load++ {
				Compute(load, 0.01, pods, out)
				mean := out[0].MeanLatency
				qv := HistogramQuantile(tc.q, Buckets[:], out[0].Buckets[:], out[0].Served)
				below := load/2 < 0.99*50 // strictly increasing until ρ reaches its cap
				if below && mean <= prevMean || !below && mean < prevMean {
					t.Fatalf("load %v: mean latency %v did not grow from %v", load, mean, prevMean)
				}
				if qv < prevQ-1e-12 {
					t.Fatalf("load %v: %s %v fell from %v", load, tc.name, qv, prevQ)
				}
				prevMean, prevQ = mean, qv
			}
			if !near(prevMean, 2, 1e-12) { // 1/(50-0.99×50)
				t.Errorf("saturated mean latency = %v, want 2", prevMean)
			}
		})
	}
}

func TestEffectiveLimit(t *testing.T) {
	for _, tc := range []struct {
		res  PodResources
		want float64
	}{
		{PodResources{Request: 0.5, Limit: 2}, 2},
		{PodResources{Request: 0.5}, 0.5},
		{PodResources{Limit: 0.25}, 0.25},
		{PodResources{}, DefaultPodCPU},
	} {
		if got := tc.res.EffectiveLimit(); got != tc.want {
			t.Errorf("%+v.EffectiveLimit() = %v, want %v", tc.res, got, tc.want)
		}
	}
}

// BenchmarkTickModel is the pure model part of one tick for 100 apps of 10
// ready pods each: with identical pods per app (the usual Deployment) and
// with every pod's resources different (the worst case).
func BenchmarkTickModel(b *testing.B) {
	const apps, podsPerApp = 100, 10
	for _, bc := range []struct {
		name     string
		distinct bool
	}{{"identical pods", false}, {"distinct pods", true}} {
		b.Run(bc.name, func(b *testing.B) {
			res := make([][]PodResources, apps)
			out := make([][]PodLoad, apps)
			for a := range res {
				res[a] = make([]PodResources, podsPerApp)
				for p := range res[a] {
					res[a][p] = PodResources{Request: 0.25, Limit: 0.5}
					if bc.distinct {
						res[a][p] = PodResources{Request: 0.25 + 0.05*float64(p), Limit: 0.5 + 0.05*float64(p)}
					}
				}
				out[a] = make([]PodLoad, podsPerApp)
			}
			b.ReportAllocs()
			for b.Loop() {
				for a := range res {
					Compute(float64(10+a), DefaultCPUPerRequest, res[a], out[a])
				}
			}
		})
	}
}

func TestHistogramQuantile(t *testing.T) {
	les := []float64{0.1, 0.2, 0.5}
	tests := []struct {
		name  string
		q     float64
		cum   []float64
		total float64
		want  float64
	}{
		{"first bucket from 0", 0.25, []float64{50, 80, 100}, 100, 0.05},
		{"interpolated", 0.65, []float64{50, 80, 100}, 100, 0.15},
		{"in +Inf bucket: highest bound", 0.99, []float64{50, 80, 90}, 100, 0.5},
		{"no observations", 0.5, []float64{0, 0, 0}, 0, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HistogramQuantile(tt.q, les, tt.cum, tt.total)
			if !(math.Abs(got-tt.want) < 1e-12) && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
