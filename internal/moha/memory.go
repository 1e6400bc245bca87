package moha

import (
	"math"
	"slices"
)

// Measured is one remembered measurement: the mean response time a
// configuration's pods served at a request rate per pod, measured over a
// whole decision interval in which the configuration did not change.
type Measured struct {
	CPULimitMilli, MemoryLimitMiB float64
	// RequestsPerSecondPerPod is the offered rate over the replicas.
	RequestsPerSecondPerPod float64
	ResponseTimeMs          float64
}

// Memory is a bounded table of measurements, oldest first: at most one per
// pod size and rate bucket (rates per pod within a 10 % wide band on a log
// scale; a newer one replaces it and goes last), at most Capacity in all (the
// oldest go first). The zero value remembers nothing.
//
// Its key leaves the replica count out: the pods of a configuration are
// identical and share the load evenly (the assumption [PerPod] already
// predicts beyond the training range with), so one 300m/400Mi pod at 60
// req/s measures what two of them at 120 req/s do, and a configuration the
// loop ran with 1 pod at night answers for any count at that load per pod.
type Memory struct {
	Capacity int
	Entries  []Measured
}

// DefaultMemoryCapacity is the loop's table size: 128 measurements.
const DefaultMemoryCapacity = 128

// MemoryRateTolerancePercent is how much higher than the rate asked about a
// remembered rate per pod may be and still answer for it. A pod's response
// time does not fall as its load grows, so a measurement at the same or a
// slightly higher rate bounds the response time from above; one at a lower
// rate would promise too much. (Letting slightly smaller pods answer as well,
// by the same argument, was tried: it bounded more loosely and saved less on
// diurnal and week, docs/bench/moha.md.)
const MemoryRateTolerancePercent = 10

// Remember returns m with meas added (m is not modified). Measurements with
// a non-positive rate or a response time that is not finite and >= 0 are
// not kept.
func (m Memory) Remember(meas Measured) Memory {
	if !(meas.RequestsPerSecondPerPod > 0) || !finite(meas.RequestsPerSecondPerPod) || !(meas.ResponseTimeMs >= 0) || !finite(meas.ResponseTimeMs) || m.Capacity <= 0 {
		return m
	}
	key := func(e Measured) bool {
		return e.CPULimitMilli == meas.CPULimitMilli && e.MemoryLimitMiB == meas.MemoryLimitMiB &&
			roundRate(e.RequestsPerSecondPerPod) == roundRate(meas.RequestsPerSecondPerPod)
	}
	out := slices.DeleteFunc(slices.Clone(m.Entries), key)
	out = append(out, meas)
	if len(out) > m.Capacity {
		out = out[len(out)-m.Capacity:]
	}
	return Memory{Capacity: m.Capacity, Entries: out}
}

// roundRate is r's bucket: floor(ln r / ln 1.1), a band
// MemoryRateTolerancePercent wide on a log scale. (Buckets of a whole req/s
// with 64 entries were tried: the day's many rates evicted a night's
// measurements before the next night.)
func roundRate(r float64) int64 {
	return int64(math.Floor(math.Log(r) / math.Log1p(MemoryRateTolerancePercent/100.0)))
}

// Lookup is the remembered response time of pods of cpu/mem at rpsPerPod:
// among the measurements of that pod size at a rate per pod from rpsPerPod
// up to MemoryRateTolerancePercent higher, the one at the lowest rate (the
// newest of equal rates); ok false when there is none.
func (m Memory) Lookup(cpu, mem, rpsPerPod float64) (rtMs float64, ok bool) {
	best := -1.0
	for _, e := range m.Entries {
		if e.CPULimitMilli != cpu || e.MemoryLimitMiB != mem {
			continue
		}
		r := e.RequestsPerSecondPerPod
		if r < rpsPerPod || r > rpsPerPod*(1+MemoryRateTolerancePercent/100.0) {
			continue
		}
		if best < 0 || r <= best {
			best, rtMs, ok = r, e.ResponseTimeMs, true
		}
	}
	return rtMs, ok
}

// Remembered is a [Predictor] that prefers measurements to predictions: the
// response time of a pod size Memory has measured at the same or a slightly
// higher rate per pod ([Memory.Lookup]) is the measured one; the usages, and everything
// Memory does not know, are P's.
type Remembered struct {
	P      Predictor
	Memory Memory
}

// Predict is P's prediction with the remembered response time, if any.
func (r Remembered) Predict(in [NumInputs]float64) [NumTargets]float64 {
	out := r.P.Predict(in)
	if in[2] > 0 {
		if rt, ok := r.Memory.Lookup(in[0], in[1], in[3]/in[2]); ok {
			out[0] = rt
		}
	}
	return out
}
