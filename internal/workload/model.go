package workload

import "math"

// This file is the pure queueing model: no Kubernetes, no HTTP, no clock.

// Buckets are the upper bounds, in seconds, of the http_request_duration_seconds
// histogram (the +Inf bucket is implicit).
var Buckets = [NumBuckets]float64{.005, .01, .025, .05, .1, .2, .25, .5, 1, 2.5, 5, 10}

// NumBuckets is the number of finite histogram buckets.
const NumBuckets = 12

const (
	// DefaultCPUPerRequest is the CPU cost of one request in CPU-seconds when
	// none is given: 10m of CPU per request/s.
	DefaultCPUPerRequest = 0.01

	// DefaultPodCPU is the capacity, in cores, assumed for a pod that declares
	// neither a CPU request nor a CPU limit on any container.
	DefaultPodCPU = 1.0

	// MaxLatencyUtilisation caps ρ = served/capacity in the latency formula, so
	// a saturated pod has a large but finite response time (100× the service
	// time) instead of an infinite one.
	MaxLatencyUtilisation = 0.99
)

// PodResources is a ready pod's CPU declaration in cores and its memory limit
// in MiB: the sums over its containers. Zero means "not declared"; a pod
// without a memory limit is never slowed down by memory pressure (see
// [ComputeMemory]).
type PodResources struct {
	Request float64
	Limit   float64
	// MemoryLimit is the memory limit in MiB (0: none, no memory model).
	MemoryLimit float64
}

// EffectiveLimit is the CPU, in cores, the pod can use: its limit, or its
// request when it declares no limit (a documented simplification: a real pod
// without a limit may burst to the node's free CPU), or [DefaultPodCPU] when it
// declares neither.
func (r PodResources) EffectiveLimit() float64 {
	switch {
	case r.Limit > 0:
		return r.Limit
	case r.Request > 0:
		return r.Request
	default:
		return DefaultPodCPU
	}
}

// PodLoad is the model's steady state for one ready pod. Rates are per second.
type PodLoad struct {
	// Share is the offered load sent to the pod (req/s): λ/n.
	Share float64
	// Capacity is the pod's service rate μ = limit/cpuPerRequest (req/s).
	Capacity float64
	// Served is min(Share, Capacity) (req/s), answered with status 200.
	Served float64
	// Errors is Share-Served (req/s), answered with status 503.
	Errors float64
	// CPU is the CPU usage in cores: Served×cpuPerRequest, so at most the limit.
	CPU float64
	// Utilisation is CPU/request as the HPA defines it (0 when the pod
	// declares no request).
	Utilisation float64
	// MeanLatency is the M/M/1 mean response time 1/(μ-λs) in seconds, with
	// ρ = λs/μ capped at [MaxLatencyUtilisation].
	MeanLatency float64
	// Buckets[i] is the expected number of served requests per second whose
	// response time is at most [Buckets][i]: Served×(1-exp(-(μ-λs)×le)).
	Buckets [NumBuckets]float64

	// The memory fields are zero unless [ComputeMemory] ran with a memory
	// model and the pod declares a memory limit.

	// Memory is the pod's working set in MiB, at most its memory limit.
	Memory float64
	// MemoryUtilisation is Memory/MemoryLimit, in [0, 1].
	MemoryUtilisation float64
	// GCOverhead is the extra CPU per request that memory pressure costs, as
	// a fraction of cpuPerRequest: each request costs cpuPerRequest×(1+GCOverhead).
	GCOverhead float64
}

// Memory is an app's memory behaviour for [ComputeMemory]. The zero value is
// "no memory model": pods behave as in [Compute] whatever their memory limit.
type Memory struct {
	// BaseMiB is the working set of an idle pod (runtime, code, caches).
	BaseMiB float64
	// PerRequestMiB is the working set added per req/s offered to the pod
	// (buffers of requests in flight and queued, their garbage).
	PerRequestMiB float64
	// GCCost scales the slowdown under memory pressure (see [ComputeMemory]).
	GCCost float64
}

// MaxMemoryPressure caps x = working set/limit in the slowdown formula, so
// that a pod whose working set exceeds its limit (in reality it swaps, thrashes
// in GC or is OOM-killed) is very slow but still finite: 1+19×GCCost times the
// CPU per request.
const MaxMemoryPressure = 0.95

func (m Memory) active() bool { return m.BaseMiB > 0 || m.PerRequestMiB > 0 }

// Compute splits the offered load (req/s) evenly across the ready pods, whose
// resources are given in pods, and writes each pod's state to out, which must be
// at least as long as pods. It returns the load no pod received: all of offered
// when pods is empty, else 0 (requests beyond a pod's capacity are counted as
// that pod's errors, not here). cpuPerRequest is in CPU-seconds and must be > 0.
//
// Each pod is an M/M/1 queue with service rate μ = limit/cpuPerRequest. It
// serves λs = min(λ/n, μ); its response time is exponentially distributed
// with rate μ-λs (ρ = λs/μ capped at 0.99 for this), so latency grows without
// bound as utilisation approaches 1. Histogram buckets hold exact expected
// counts. Compute does not allocate.
func Compute(offered, cpuPerRequest float64, pods []PodResources, out []PodLoad) (unassigned float64) {
	return ComputeMemory(offered, cpuPerRequest, Memory{}, pods, out)
}

// ComputeMemory is [Compute] with a memory dimension: a too-small memory limit
// hurts latency. A pod offered λs req/s holds the working set
//
//	W = BaseMiB + PerRequestMiB×λs  (MiB)
//
// and, with memory limit L and pressure x = min(W/L, [MaxMemoryPressure]),
// spends the fraction
//
//	g = GCCost × x/(1-x)
//
// more CPU per request (a garbage collector's work grows with live/headroom,
// as Go's and the JVM's do; near and past the limit it stands for swapping
// and thrashing). Every request then costs cpuPerRequest×(1+g): the service
// rate μ = limit/(cpuPerRequest×(1+g)) falls, so latency grows and the pod
// saturates earlier, and CPU usage per served request grows. The pod reports
// Memory = min(W, L). With the zero [Memory] or a pod without a memory limit
// the results are bit-identical to [Compute]'s.
func ComputeMemory(offered, cpuPerRequest float64, mem Memory, pods []PodResources, out []PodLoad) (unassigned float64) {
	if len(pods) == 0 {
		return offered
	}
	share := offered / float64(len(pods))
	for i, res := range pods {
		if i > 0 && res == pods[i-1] {
			out[i] = out[i-1] // pods of one Deployment are usually identical
			continue
		}
		limit := res.EffectiveLimit()
		p := &out[i]
		cost := cpuPerRequest
		p.Memory, p.MemoryUtilisation, p.GCOverhead = 0, 0, 0
		if mem.active() && res.MemoryLimit > 0 {
			w := mem.BaseMiB + mem.PerRequestMiB*share
			x := math.Min(w/res.MemoryLimit, MaxMemoryPressure)
			p.GCOverhead = mem.GCCost * x / (1 - x)
			p.Memory = math.Min(w, res.MemoryLimit)
			p.MemoryUtilisation = p.Memory / res.MemoryLimit
			cost = cpuPerRequest * (1 + p.GCOverhead)
		}
		mu := limit / cost
		served := math.Min(share, mu)
		p.Share = share
		p.Capacity = mu
		p.Served = served
		p.Errors = share - served
		p.CPU = served * cost
		p.Utilisation = 0
		if res.Request > 0 {
			p.Utilisation = p.CPU / res.Request
		}
		// Rate of the exponential response-time distribution: μ-λs with ρ capped.
		theta := mu - math.Min(served, MaxLatencyUtilisation*mu)
		p.MeanLatency = 1 / theta
		for b, le := range Buckets {
			p.Buckets[b] = served * -math.Expm1(-theta*le)
		}
	}
	return 0
}

// HistogramQuantile is PromQL's histogram_quantile(q, ...) over one
// histogram: les are the finite upper bounds, cum the cumulative counts per
// bound and total the +Inf bucket (the _count). The rank q x total is
// located in the first bucket whose count reaches it and interpolated
// linearly inside it (lower bound 0 for the first bucket); a rank in the
// +Inf bucket gives the highest finite bound. NaN without observations, and
// without finite bounds (PromQL's answer for a lone +Inf bucket).
func HistogramQuantile(q float64, les []float64, cum []float64, total float64) float64 {
	if !(total > 0) || len(les) == 0 {
		return math.NaN()
	}
	rank := q * total
	prevLe, prevCum := 0.0, 0.0
	for i, le := range les {
		if cum[i] >= rank {
			if cum[i] == prevCum {
				return le
			}
			return prevLe + (le-prevLe)*(rank-prevCum)/(cum[i]-prevCum)
		}
		prevLe, prevCum = le, cum[i]
	}
	return les[len(les)-1]
}
