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
	// usages, within which (with the response time at most the desired one)
	// nothing changes.
	TolerancePercent float64
	// Cooldown after a change during which nothing changes again.
	Cooldown time.Duration
}

// Thresholds are the paper's no-scaling check for l: a response time at most
// the desired one and both usages within the desired ± the tolerance.
func (l Loop) Thresholds() Thresholds {
	band := func(v float64) Range { return Range{Min: v - l.TolerancePercent, Max: v + l.TolerancePercent} }
	return Thresholds{
		ResponseTimeMs:     l.Desired.ResponseTimeMs,
		CPUUsagePercent:    band(l.Desired.CPUUsagePercent),
		MemoryUsagePercent: band(l.Desired.MemoryUsagePercent),
	}
}

// StepReason says why a [Step] changed the configuration or held it.
type StepReason string

// The reasons of a [Step].
const (
	// ReasonCooldown: a change was made less than the cooldown ago.
	ReasonCooldown StepReason = "Cooldown"
	// ReasonWithinTargets: the thresholds are met and the configuration is
	// within the ranges; nothing to do.
	ReasonWithinTargets StepReason = "WithinTargets"
	// ReasonBestIsCurrent: the TOPSIS winner is the current configuration.
	ReasonBestIsCurrent StepReason = "BestIsCurrent"
	// ReasonScaled: the TOPSIS winner differs from the current configuration.
	ReasonScaled StepReason = "Scaled"
)

// StepResult is one decision of the loop: the configuration to run (equal to
// the current one when held), why, and the ranking when one was made.
type StepResult struct {
	CPULimitMilli  float64
	MemoryLimitMiB float64
	Replicas       int
	Reason         StepReason
	// Decision is the ranking; empty when the step held before ranking
	// (cooldown, within targets).
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
//  2. within the cooldown since lastScale: hold (Cooldown);
//  3. the thresholds met ([Loop.Thresholds]) and the current configuration
//     within the ranges: hold (WithinTargets);
//  4. otherwise [Decide] and take the best variation: Scaled if it differs
//     from the current configuration, else BestIsCurrent.
func Step(p Predictor, s State, l Loop, lastScale, now time.Time) (StepResult, error) {
	hold := StepResult{CPULimitMilli: s.CPULimitMilli, MemoryLimitMiB: s.MemoryLimitMiB, Replicas: s.Replicas}
	if l.TolerancePercent < 0 || !finite(l.TolerancePercent) {
		return StepResult{}, fmt.Errorf("moha step: tolerance_percent %v must be finite and >= 0", l.TolerancePercent)
	}
	if l.Cooldown < 0 {
		return StepResult{}, fmt.Errorf("moha step: cooldown %v must be >= 0", l.Cooldown)
	}
	if err := l.Config.Validate(); err != nil {
		return StepResult{}, fmt.Errorf("moha step: %w", err)
	}
	if err := s.validate(); err != nil {
		return StepResult{}, fmt.Errorf("moha step: %w", err)
	}
	if !lastScale.IsZero() && now.Sub(lastScale) < l.Cooldown {
		hold.Reason = ReasonCooldown
		return hold, nil
	}
	r := l.Ranges
	inRanges := in(s.CPULimitMilli, r.CPULimitMilli) && in(s.MemoryLimitMiB, r.MemoryLimitMiB) && in(float64(s.Replicas), r.Replicas)
	if inRanges && l.Thresholds().Satisfied(s) {
		hold.Reason = ReasonWithinTargets
		return hold, nil
	}
	d, err := Decide(p, s, l.Config)
	if err != nil {
		return StepResult{}, fmt.Errorf("moha step: %w", err)
	}
	best := d.Best()
	out := StepResult{CPULimitMilli: best.CPULimitMilli, MemoryLimitMiB: best.MemoryLimitMiB, Replicas: best.Replicas, Reason: ReasonScaled, Decision: d}
	if best.CPULimitMilli == s.CPULimitMilli && best.MemoryLimitMiB == s.MemoryLimitMiB && best.Replicas == s.Replicas {
		out.Reason = ReasonBestIsCurrent
	}
	return out, nil
}

func in(v float64, r Range) bool { return v >= r.Min && v <= r.Max && !math.IsNaN(v) }
