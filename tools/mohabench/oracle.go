package main

import (
	"math"
	"slices"
	"sort"

	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// The oracle's configurations: MOHA's ranges in the bench, CPU limit
// 300m-500m and memory limit 400Mi-600Mi in steps of oracleStep, 1 to
// cmpMaxReplicas pods.
const oracleStep = 10

// oraclePoint is one configuration at one load: what it costs per hour and
// the response time the workload model measures.
type oraclePoint struct {
	hourly, rtMs float64
}

// oracleLevel is one request rate of a trace, how many seconds the trace
// offers it, and the configurations at it that no other beats on both cost
// and response time (its Pareto frontier), cheapest (and slowest) first.
type oracleLevel struct {
	rps, seconds float64
	front        []oraclePoint
}

// oracleResult is the oracle's schedule for one response-time bound: its
// cost per day and load-weighted mean response time; ok false when even the
// fastest configuration every second is over the bound.
type oracleResult struct {
	costPerDay, rtMs float64
	method           string
	ok               bool
}

// oracleLevels returns the levels of tr over the seconds runTrace replays
// (0 to its duration + 60 s): the trace is a step function, so each distinct
// rate is measured once.
func oracleLevels(app moha.App, tr workload.Trace) []oracleLevel {
	secs := map[float64]float64{}
	for t := 0; t < int(tr.Duration())+60; t++ {
		rps, _ := tr.At(float64(t))
		secs[rps]++
	}
	var cfgs []moha.Configuration
	for c := 300.0; c <= 500; c += oracleStep {
		for m := 400.0; m <= 600; m += oracleStep {
			for r := 1; r <= cmpMaxReplicas; r++ {
				cfgs = append(cfgs, moha.Configuration{CPULimitMilli: c, MemoryLimitMiB: m, Replicas: r})
			}
		}
	}
	slices.SortStableFunc(cfgs, func(a, b moha.Configuration) int {
		switch ha, hb := moha.PaperPrices.Hourly(a), moha.PaperPrices.Hourly(b); {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return 0
	})
	var out []oracleLevel
	for rps, s := range secs {
		l := oracleLevel{rps: rps, seconds: s}
		best := math.Inf(1)
		for _, c := range cfgs {
			rt := 0.0
			if rps > 0 {
				rt = app.Measure(c.CPULimitMilli, c.MemoryLimitMiB, c.Replicas, rps).ResponseTimeMs
			}
			if rt < best || len(l.front) == 0 {
				best = rt
				l.front = append(l.front, oraclePoint{moha.PaperPrices.Hourly(c), rt})
			}
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b oracleLevel) int {
		switch {
		case a.rps < b.rps:
			return -1
		case a.rps > b.rps:
			return 1
		}
		return 0
	})
	return out
}

// evaluate returns the cost per day and the load-weighted mean response
// time of taking choose(level) every second of every level.
func evaluate(levels []oracleLevel, choose func(oracleLevel) oraclePoint) (costPerDay, rtMs float64) {
	var n, cost, rtw, offered float64
	for _, l := range levels {
		p := choose(l)
		n += l.seconds
		cost += p.hourly * l.seconds
		rtw += p.rtMs * l.rps * l.seconds
		offered += l.rps * l.seconds
	}
	return cost / n * 24, rtw / offered
}

// oracle is the cheapest schedule of configurations it finds whose
// load-weighted mean response time is at most boundMs, with perfect
// foresight and no start-up delay (so each second is free to take any
// configuration). Two searches, the cheaper kept:
//
//   - threshold: every second takes the cheapest configuration measured
//     within θ ms (the fastest when none is); the mean grows with θ, so a
//     binary search over the frontiers' response times finds the largest θ
//     whose mean is within the bound;
//   - Lagrangian: every second takes the configuration minimising
//     cost per hour + λ × offered rate × response time; the mean falls as λ
//     grows, so a bisection on λ finds the smallest λ within the bound. This
//     is the exact optimum of the bound's convex relaxation: no schedule
//     over these configurations is cheaper by more than one level's step
//     between two frontier points.
func oracle(levels []oracleLevel, boundMs float64) oracleResult {
	fastest := func(l oracleLevel) oraclePoint { return l.front[len(l.front)-1] }
	if _, rt := evaluate(levels, fastest); rt > boundMs {
		return oracleResult{}
	}
	var thetas []float64
	for _, l := range levels {
		for _, p := range l.front {
			thetas = append(thetas, p.rtMs)
		}
	}
	slices.Sort(thetas)
	thetas = slices.Compact(thetas)
	within := func(theta float64) func(oracleLevel) oraclePoint {
		return func(l oracleLevel) oraclePoint {
			for _, p := range l.front {
				if p.rtMs <= theta {
					return p
				}
			}
			return fastest(l)
		}
	}
	// The largest θ whose mean is within the bound: the mean is
	// non-decreasing in θ, and at θ = the smallest response time every
	// second runs its fastest configuration, within the bound (above).
	i := sort.Search(len(thetas), func(i int) bool {
		_, rt := evaluate(levels, within(thetas[i]))
		return rt > boundMs
	})
	best := oracleResult{method: "threshold", ok: true}
	best.costPerDay, best.rtMs = evaluate(levels, within(thetas[max(i-1, 0)]))

	penalised := func(lambda float64) func(oracleLevel) oraclePoint {
		return func(l oracleLevel) oraclePoint {
			b, bv := l.front[0], math.Inf(1)
			for _, p := range l.front {
				if v := p.hourly + lambda*l.rps*p.rtMs; v < bv {
					b, bv = p, v
				}
			}
			return b
		}
	}
	lo, hi := 0.0, 1e-9
	for {
		if _, rt := evaluate(levels, penalised(hi)); rt <= boundMs || hi > 1e6 {
			break
		}
		lo, hi = hi, hi*4
	}
	for range 100 {
		mid := (lo + hi) / 2
		if _, rt := evaluate(levels, penalised(mid)); rt <= boundMs {
			hi = mid
		} else {
			lo = mid
		}
	}
	if c, rt := evaluate(levels, penalised(hi)); rt <= boundMs && c < best.costPerDay {
		best = oracleResult{costPerDay: c, rtMs: rt, method: "Lagrangian", ok: true}
	}
	return best
}
