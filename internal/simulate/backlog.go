package simulate

import (
	"math"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// cohort is the requests that arrived in one second and still wait.
type cohort struct {
	at int
	n  float64
}

// backlog is the queue of requests in front of the ready pods, carried from
// one second to the next, first in first out: what the pods cannot serve in
// a second waits for the next, until its client times out. It is what makes
// under-provisioning cost what it costs: an overloaded second delays the
// seconds after it until the queue drains.
type backlog struct {
	q   []cohort
	res [1]workload.PodResources
	out [1]workload.PodLoad
}

// second is what the ready pods did in one second.
type second struct {
	// served requests (from the backlog and fresh), the late ones among
	// them (served in a later second than they arrived: over any SLO
	// threshold under a second), slow the SLA violations among the served
	// (late ones and fresh ones slower than the threshold), latencySum
	// the sum of their response times.
	served, late, slow, latencySum float64
	// cpu is the CPU-seconds used, util the pods' utilisation (percent of
	// the request).
	cpu, util float64
	// meanLatency and latency are the served requests' mean and
	// q-percentile response time (+Inf with no ready pod).
	meanLatency, latency float64
	// buckets are the served requests per histogram bucket (cumulative, as
	// http_request_duration_seconds).
	buckets [workload.NumBuckets]float64
}

func (b *backlog) total() float64 {
	var n float64
	for _, c := range b.q {
		n += c.n
	}
	return n
}

// serve adds second t's arrivals to the backlog and lets ready pods of
// resources res serve it, oldest first, at loadsim's model (workload.Compute
// on the whole work in front of them: each pod serves up to its capacity).
// A request served in its own second answers in the model's M/M/1 time
// (exponential, so it is slower than thr with probability e^(−thr/mean));
// one served later has waited t − arrival seconds more. thr is the SLO
// threshold and q the latency percentile of the series, both in seconds and
// as a fraction.
func (b *backlog) serve(t int, arrivals float64, ready int32, cpuPerRequest float64, res workload.PodResources, thr, q float64) second {
	var sv second
	if arrivals > 0 {
		b.q = append(b.q, cohort{at: t, n: arrivals})
	}
	if ready == 0 {
		sv.meanLatency, sv.latency = math.Inf(1), math.Inf(1)
		return sv
	}
	k := float64(ready)
	b.res[0] = res
	workload.Compute(b.total()/k, cpuPerRequest, b.res[:], b.out[:])
	pl := b.out[0]
	capacity := pl.Served * k
	sv.served, sv.cpu, sv.util = capacity, pl.CPU*k, pl.Utilisation*100
	left := capacity
	var fresh, waitSum float64
	for i := range b.q {
		if left <= 0 {
			break
		}
		c := &b.q[i]
		take := math.Min(c.n, left)
		c.n -= take
		left -= take
		if c.at == t {
			fresh += take
			continue
		}
		w := float64(t - c.at)
		sv.late += take
		waitSum += take * w
		for i, le := range workload.Buckets {
			if le >= w {
				sv.buckets[i] += take
			}
		}
	}
	b.compact()
	if capacity > 0 {
		for i := range sv.buckets {
			sv.buckets[i] += pl.Buckets[i] * k * fresh / capacity
		}
	}
	sv.slow = sv.late + fresh*math.Exp(-thr/pl.MeanLatency)
	sv.latencySum = capacity*pl.MeanLatency + waitSum
	sv.meanLatency, sv.latency = pl.MeanLatency, pl.MeanLatency*-math.Log1p(-q)
	if capacity > 0 {
		sv.meanLatency = sv.latencySum / capacity
		if f := sv.late / capacity; f > 1-q {
			// The percentile falls among the late requests: their mean
			// wait stands for it.
			sv.latency = waitSum/sv.late + pl.MeanLatency
		} else if f > 0 {
			// Among the fresh ones: their q/(1−f) quantile.
			sv.latency = pl.MeanLatency * -math.Log1p(-q/(1-f))
		}
	}
	return sv
}

// expire drops the requests that have waited timeout seconds by the end of
// second t and returns how many: their clients gave up.
func (b *backlog) expire(t, timeout int) float64 {
	var n float64
	for i := range b.q {
		if t-b.q[i].at >= timeout {
			n += b.q[i].n
			b.q[i].n = 0
		}
	}
	b.compact()
	return n
}

// compact removes the emptied cohorts.
func (b *backlog) compact() {
	out := b.q[:0]
	for _, c := range b.q {
		if c.n > 1e-9 {
			out = append(out, c)
		}
	}
	b.q = out
}
