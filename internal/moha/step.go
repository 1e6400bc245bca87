package moha

import (
	"fmt"
	"math"
	"time"
)

// Loop is the runtime's configuration of one MultiObjective strategy: what a
// decision aims at, when nothing needs changing and how long a change settles.
type Loop struct {
	Config
	// TolerancePercent is the band, in percentage points around the desired
	// usages, within which (with the response time within the limit) nothing
	// changes.
	TolerancePercent float64
	// Cooldown is the scale-down stabilisation: after a change, no change
	// that lowers the capacity for this long. Increases are not held (the
	// Kubernetes HPA's and Knative's asymmetry: scale up at once, scale down
	// after a window).
	Cooldown time.Duration
	// HeadroomPercent keeps the response time this far under the desired
	// one: the limit a measured response time must meet to hold and a
	// chosen configuration's predicted one to be taken ([SafeDecide]) is
	// desired × (1 - HeadroomPercent/100). 0: the desired response time
	// itself, the paper's check.
	HeadroomPercent float64
	// MinDecreasePercent is the hysteresis of decreases: a change lowering
	// the capacity is made only when it cuts the total CPU (replicas × CPU
	// limit) by at least this many percent, or the total memory when the
	// total CPU stays; smaller gains are not worth rolling the pods.
	MinDecreasePercent float64
	// LoadHeadroomPercent is the headroom of capacity: [SafeDecide]
	// proposes, predicts and guards the configurations at the measured
	// request rate × (1 + LoadHeadroomPercent/100), so a configuration is
	// taken only if it would meet the response-time limit with that much
	// more load. The response-time headroom alone leaves none: this
	// service's 80 ms is about 94 % of a pod's capacity, and a decrease to
	// a configuration sized for the past interval's load saturated on the
	// next minute's 5-15 % rise (docs/bench/moha.md). 0: sized for the
	// measured load.
	LoadHeadroomPercent float64
}

// The loop's defaults besides the CRD's: the response time kept 20 % under
// the desired one, configurations sized for 10 % more than the measured
// load, and decreases made only when they cut the total CPU (or memory) by
// at least 5 %. Chosen on the seven reference traces of docs/bench/moha.md
// together, not per trace.
const (
	DefaultHeadroomPercent     = 20
	DefaultLoadHeadroomPercent = 10
	DefaultMinDecreasePercent  = 5
)

// ResponseTimeLimitMs is the response time the loop keeps under:
// the desired one less the headroom.
func (l Loop) ResponseTimeLimitMs() float64 {
	return l.Desired.ResponseTimeMs * (1 - l.HeadroomPercent/100)
}

// Thresholds are the paper's no-scaling check for l: a response time at most
// the limit ([Loop.ResponseTimeLimitMs]) and both usages within the desired ±
// the tolerance.
func (l Loop) Thresholds() Thresholds {
	band := func(v float64) Range { return Range{Min: v - l.TolerancePercent, Max: v + l.TolerancePercent} }
	return Thresholds{
		ResponseTimeMs:     l.ResponseTimeLimitMs(),
		CPUUsagePercent:    band(l.Desired.CPUUsagePercent),
		MemoryUsagePercent: band(l.Desired.MemoryUsagePercent),
	}
}

// StepReason says why a [Step] changed the configuration or held it.
type StepReason string

// The reasons of a [Step].
const (
	// ReasonCooldown: the best configuration lowers the capacity and a
	// change was made less than the cooldown ago.
	ReasonCooldown StepReason = "Cooldown"
	// ReasonWithinTargets: the thresholds are met and the configuration is
	// within the ranges; nothing to do.
	ReasonWithinTargets StepReason = "WithinTargets"
	// ReasonBestIsCurrent: the best configuration is the current one.
	ReasonBestIsCurrent StepReason = "BestIsCurrent"
	// ReasonNoIncreaseNeeded: the best configuration raises the capacity
	// but the measurements do not ask for more: the response time is within
	// the limit and neither usage is above its band (a measurement of the
	// current configuration outweighs the model's prediction of it).
	ReasonNoIncreaseNeeded StepReason = "NoIncreaseNeeded"
	// ReasonSmallGain: the best configuration lowers the capacity by less
	// than the hysteresis (MinDecreasePercent).
	ReasonSmallGain StepReason = "SmallGain"
	// ReasonOverLimit: the best configuration lowers the capacity, but no
	// variation is predicted within the response-time limit (the best is
	// the fastest) while the current configuration measures within it:
	// moving would trade a measured good response time for a predicted bad
	// one. (With the replicas fixed, min = max, the load variations add
	// nothing, and a pod size over-provisioned for the load has no
	// variation within the limit once eq. 1 shrinks it.)
	ReasonOverLimit StepReason = "OverLimit"
	// ReasonSettling: the best configuration raises the capacity and the
	// measurements ask for more, but the last change was made less than the
	// cooldown ago and the model predicts the configuration in force within
	// the thresholds at the load the loop sizes for (the measured load plus
	// LoadHeadroomPercent, as the choices are predicted: a response time
	// within the limit, no usage above its band). Judged at the measured
	// load alone, pods that could not take the headroom held a round on a
	// rising load and saturated (moha-ramp, docs/bench/moha.md). The measurements may still describe the
	// configuration before that change: a query's window (the lab's 15 s,
	// the default 1 min) and the new pods' start-up outlast the interval, and
	// eq. 1 scales the new configuration by the old one's ratios (a
	// saturated pod's 1,100 ms against 100 ms asks for 11 times the
	// replicas), so increase followed increase on one stale measurement.
	// Once the cooldown has passed the measurements decide again.
	ReasonSettling StepReason = "Settling"
	// ReasonScaled: the best configuration differs from the current one and
	// is applied.
	ReasonScaled StepReason = "Scaled"
)

// StepResult is one decision of the loop: the configuration to run (equal to
// the current one when held), why, and the ranking when one was made.
type StepResult struct {
	CPULimitMilli  float64
	MemoryLimitMiB float64
	Replicas       int
	Reason         StepReason
	// Decision is the ranking, best first; empty when the step held before
	// ranking (within targets).
	Decision Decision
}

// Changed reports whether the result differs from the state it came from.
func (r StepResult) Changed() bool { return r.Reason == ReasonScaled }

// Step is one round of the MultiObjective strategy: s is the measured state,
// lastScale the time of the last change (zero: never) and now the round's
// time. In order:
//
//  1. invalid configuration or state: an error naming the field, nothing
//     decided;
//  2. the thresholds met ([Loop.Thresholds]) and the current configuration
//     within the ranges: hold (WithinTargets);
//  3. otherwise [SafeDecide] with the limit [Loop.ResponseTimeLimitMs], at
//     the measured load plus LoadHeadroomPercent, and take the best
//     variation: BestIsCurrent if it is the current
//     configuration; Scaled at once if the current configuration is
//     outside the ranges, or if it raises the capacity (more total CPU, or
//     as much CPU and more memory) and the measurements ask for more (the
//     response time over the limit or a usage above its band), else held
//     (NoIncreaseNeeded); within the cooldown since lastScale an increase
//     is also held when the model predicts the current configuration within
//     the thresholds at the measured load plus LoadHeadroomPercent
//     (Settling: the measurements may still be the previous
//     configuration's);
//  4. a decrease: held within the cooldown since lastScale (Cooldown), when
//     it cuts less than MinDecreasePercent (SmallGain) and when it is
//     predicted over the response-time limit that the current configuration
//     measures within (OverLimit), else Scaled.
func Step(p Predictor, s State, l Loop, lastScale, now time.Time) (StepResult, error) {
	hold := StepResult{CPULimitMilli: s.CPULimitMilli, MemoryLimitMiB: s.MemoryLimitMiB, Replicas: s.Replicas}
	if l.TolerancePercent < 0 || !finite(l.TolerancePercent) {
		return StepResult{}, fmt.Errorf("moha step: tolerance_percent %v must be finite and >= 0", l.TolerancePercent)
	}
	if l.Cooldown < 0 {
		return StepResult{}, fmt.Errorf("moha step: cooldown %v must be >= 0", l.Cooldown)
	}
	if !(l.HeadroomPercent >= 0 && l.HeadroomPercent < 100) {
		return StepResult{}, fmt.Errorf("moha step: headroom_percent %v must be >= 0 and < 100", l.HeadroomPercent)
	}
	if !(l.MinDecreasePercent >= 0 && l.MinDecreasePercent <= 100) {
		return StepResult{}, fmt.Errorf("moha step: min_decrease_percent %v must be between 0 and 100", l.MinDecreasePercent)
	}
	if !(l.LoadHeadroomPercent >= 0) || !finite(l.LoadHeadroomPercent) {
		return StepResult{}, fmt.Errorf("moha step: load_headroom_percent %v must be finite and >= 0", l.LoadHeadroomPercent)
	}
	if err := l.Config.Validate(); err != nil {
		return StepResult{}, fmt.Errorf("moha step: %w", err)
	}
	if err := s.validate(); err != nil {
		return StepResult{}, fmt.Errorf("moha step: %w", err)
	}
	r := l.Ranges
	inRanges := in(s.CPULimitMilli, r.CPULimitMilli) && in(s.MemoryLimitMiB, r.MemoryLimitMiB) && in(float64(s.Replicas), r.Replicas)
	if inRanges && l.Thresholds().Satisfied(s) {
		hold.Reason = ReasonWithinTargets
		return hold, nil
	}
	// Sized for the load plus the headroom; the measurements (the response
	// time, the usages eq. 1 scales by) stay the measured ones.
	sized := s
	sized.RequestsPerSecond *= 1 + l.LoadHeadroomPercent/100
	d, err := SafeDecide(p, sized, l.Config, l.ResponseTimeLimitMs())
	if err != nil {
		return StepResult{}, fmt.Errorf("moha step: %w", err)
	}
	best := d.Best()
	out := StepResult{CPULimitMilli: best.CPULimitMilli, MemoryLimitMiB: best.MemoryLimitMiB, Replicas: best.Replicas, Reason: ReasonScaled, Decision: d}
	curCPU, curMem := s.CPULimitMilli*float64(s.Replicas), s.MemoryLimitMiB*float64(s.Replicas)
	newCPU, newMem := best.CPULimitMilli*float64(best.Replicas), best.MemoryLimitMiB*float64(best.Replicas)
	cooling := !lastScale.IsZero() && now.Sub(lastScale) < l.Cooldown
	th := l.Thresholds()
	within := func(rt, cpu, mem float64) bool {
		return rt <= th.ResponseTimeMs && cpu <= th.CPUUsagePercent.Max && mem <= th.MemoryUsagePercent.Max
	}
	switch {
	case best.CPULimitMilli == s.CPULimitMilli && best.MemoryLimitMiB == s.MemoryLimitMiB && best.Replicas == s.Replicas:
		out.Reason = ReasonBestIsCurrent
	case !inRanges:
		// back into the ranges: at once
	case newCPU > curCPU || newCPU == curCPU && newMem > curMem:
		if within(s.ResponseTimeMs, s.CPUUsagePercent, s.MemoryUsagePercent) {
			out.Reason = ReasonNoIncreaseNeeded
			break
		}
		if cooling {
			// at the load the choices are sized for, not the measured one
			cur, err := predict(p, Variation{CPULimitMilli: s.CPULimitMilli, MemoryLimitMiB: s.MemoryLimitMiB, Replicas: s.Replicas}, sized.RequestsPerSecond)
			if err != nil {
				return StepResult{}, fmt.Errorf("moha step: %w", err)
			}
			if within(cur[0], cur[1], cur[2]) {
				out.Reason = ReasonSettling
			}
		}
	case cooling:
		out.Reason = ReasonCooldown
	case cut(curCPU, newCPU) < l.MinDecreasePercent && (newCPU != curCPU || cut(curMem, newMem) < l.MinDecreasePercent):
		out.Reason = ReasonSmallGain
	case best.Predicted[0] > l.ResponseTimeLimitMs() && s.ResponseTimeMs <= l.ResponseTimeLimitMs():
		out.Reason = ReasonOverLimit
	}
	if out.Reason != ReasonScaled {
		out.CPULimitMilli, out.MemoryLimitMiB, out.Replicas = hold.CPULimitMilli, hold.MemoryLimitMiB, hold.Replicas
	}
	return out, nil
}

// cut is how many percent to is below from.
func cut(from, to float64) float64 { return (from - to) / from * 100 }

func in(v float64, r Range) bool { return v >= r.Min && v <= r.Max && !math.IsNaN(v) }
