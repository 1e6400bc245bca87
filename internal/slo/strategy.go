package slo

import (
	"fmt"
	"math"
	"time"
)

// Defaults a ServiceLevelObjective can fall back to. The maths below takes
// every value explicitly (0 means 0, not "default"), so tests and callers see
// exactly what is applied.
const (
	// DefaultTolerance is Polaris' default tolerance (10 percentage points
	// around 100), as a fraction.
	DefaultTolerance = 0.1
	// DefaultScaleUpWindow and DefaultScaleDownWindow are Polaris'
	// stabilisation window defaults.
	DefaultScaleUpWindow   = 60 * time.Second
	DefaultScaleDownWindow = 300 * time.Second
	// DefaultStepPercent is Polaris' vertical scale-up and scale-down
	// percent.
	DefaultStepPercent = 10
)

// ceilEpsilon absorbs floating-point noise before rounding up:
// 10 x 110 / 100 is 11.000000000000002 in float64, and must give 11, not 12.
const ceilEpsilon = 1e-9

func ceilReplicas(x float64) float64 { return math.Ceil(x - ceilEpsilon) }

// checkCompliance rejects compliance values that no Evaluate returns.
func checkCompliance(c float64) error {
	if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
		return fmt.Errorf("%w: compliance is %v: pass a finite value of 0 or more from Evaluate", ErrInvalidObjective, c)
	}
	return nil
}

func checkTolerance(t float64) error {
	if !(t >= 0 && t < 1) {
		return fmt.Errorf("%w: tolerance is %v: use a fraction in [0, 1), e.g. 0.1 for 90..110 %%", ErrInvalidObjective, t)
	}
	return nil
}

// withinTolerance reports |compliance - 100| <= tolerance x 100. The bounds
// themselves count as within (Polaris acts only strictly outside them).
func withinTolerance(compliance, tolerance float64) bool {
	return math.Abs(compliance-100) <= tolerance*100+ceilEpsilon
}

// HorizontalConfig is a HorizontalElasticityStrategy's static configuration.
type HorizontalConfig struct {
	// MinReplicas and MaxReplicas bound the result: 0 <= Min <= Max, Max >= 1.
	MinReplicas, MaxReplicas int32
	// Tolerance is the band around 100 % in which nothing changes, as a
	// fraction in [0, 1).
	Tolerance float64
	// ScaleUpWindow: a scale-up goes only as high as the lowest
	// recommendation of this window (0: act at once).
	ScaleUpWindow time.Duration
	// ScaleDownWindow: a scale-down goes only as low as the highest
	// recommendation of this window (0: act at once).
	ScaleDownWindow time.Duration
}

// Recommendation is one past proposal of [Horizontal], kept for the
// stabilisation windows.
type Recommendation struct {
	At       time.Time
	Replicas int32
}

// HorizontalDecision is the answer of [Horizontal].
type HorizontalDecision struct {
	// Desired is the replica count to set, within [MinReplicas, MaxReplicas].
	Desired int32
	// Proposed is this evaluation's recommendation before the windows:
	// ceil(current x compliance / 100) (or current within tolerance),
	// clamped to [MinReplicas, MaxReplicas].
	Proposed int32
	// WithinTolerance reports that compliance was inside the tolerance band.
	WithinTolerance bool
	// Stabilised reports that a window held Desired back from Proposed.
	Stabilised bool
	// Reason is a short constant text for events and status.
	Reason string
	// History is the recommendation history to pass to the next call: the
	// input history without entries older than the longest window, plus this
	// evaluation's proposal. It reuses history's backing array.
	History []Recommendation
}

// Horizontal computes the replica count for a target at current replicas
// with the given compliance:
//
//  1. Within tolerance (|compliance - 100| <= tolerance x 100) the proposal
//     is current; otherwise ceil(current x compliance / 100). From 0
//     replicas a violation proposes 1 (a product with 0 would never grow).
//     The proposal is clamped to [MinReplicas, MaxReplicas].
//  2. Stabilisation over recommendations, as the Kubernetes HPA does it: a
//     scale-up goes at most to the lowest proposal within ScaleUpWindow, a
//     scale-down at most to the highest proposal within ScaleDownWindow
//     (this evaluation's proposal included).
//
// now is the decision time; history is what the previous call returned
// (nil the first time). Errors wrap [ErrInvalidObjective] and name the
// field.
func Horizontal(now time.Time, current int32, compliance float64, cfg HorizontalConfig, history []Recommendation) (HorizontalDecision, error) {
	switch {
	case cfg.MinReplicas < 0:
		return HorizontalDecision{}, fmt.Errorf("%w: minReplicas is %d: use 0 or more", ErrInvalidObjective, cfg.MinReplicas)
	case cfg.MaxReplicas < 1:
		return HorizontalDecision{}, fmt.Errorf("%w: maxReplicas is %d: use 1 or more", ErrInvalidObjective, cfg.MaxReplicas)
	case cfg.MinReplicas > cfg.MaxReplicas:
		return HorizontalDecision{}, fmt.Errorf("%w: minReplicas (%d) is greater than maxReplicas (%d): lower minReplicas or raise maxReplicas", ErrInvalidObjective, cfg.MinReplicas, cfg.MaxReplicas)
	case cfg.ScaleUpWindow < 0 || cfg.ScaleDownWindow < 0:
		return HorizontalDecision{}, fmt.Errorf("%w: stabilisation windows are %v up, %v down: use 0 or more", ErrInvalidObjective, cfg.ScaleUpWindow, cfg.ScaleDownWindow)
	case current < 0:
		return HorizontalDecision{}, fmt.Errorf("%w: current replicas is %d: pass the target's replicas, 0 or more", ErrInvalidObjective, current)
	}
	if err := checkTolerance(cfg.Tolerance); err != nil {
		return HorizontalDecision{}, err
	}
	if err := checkCompliance(compliance); err != nil {
		return HorizontalDecision{}, err
	}

	d := HorizontalDecision{Reason: "compliance within tolerance"}
	raw := float64(current)
	switch {
	case withinTolerance(compliance, cfg.Tolerance):
		d.WithinTolerance = true
	case current == 0:
		if compliance > 100 {
			raw = 1
			d.Reason = "SLO violated: scaling out from zero"
		} else {
			d.Reason = "SLO outperformed at zero replicas"
		}
	default:
		raw = ceilReplicas(float64(current) * compliance / 100)
		if compliance > 100 {
			d.Reason = "SLO violated: scaling out"
		} else {
			d.Reason = "SLO outperformed: scaling in"
		}
	}
	proposed := int32(min(max(raw, float64(cfg.MinReplicas)), float64(cfg.MaxReplicas)))
	d.Proposed = proposed
	if float64(proposed) != raw {
		d.Reason += " (limited by min/max)"
	}

	// Forget what no window can see any more, then stabilise.
	longest := max(cfg.ScaleUpWindow, cfg.ScaleDownWindow)
	kept := history[:0]
	for _, r := range history {
		if longest > 0 && r.At.After(now.Add(-longest)) {
			kept = append(kept, r)
		}
	}
	up, down := proposed, proposed
	for _, r := range kept {
		if r.At.After(now.Add(-cfg.ScaleUpWindow)) {
			up = min(up, r.Replicas)
		}
		if r.At.After(now.Add(-cfg.ScaleDownWindow)) {
			down = max(down, r.Replicas)
		}
	}
	desired := current
	if desired < up {
		desired = up
	}
	if desired > down {
		desired = down
	}
	desired = min(max(desired, cfg.MinReplicas), cfg.MaxReplicas)
	d.Desired = desired
	if desired != proposed {
		d.Stabilised = true
		d.Reason += "; held by stabilisation window"
	}
	if longest > 0 {
		kept = append(kept, Recommendation{At: now, Replicas: proposed})
	}
	d.History = kept
	return d, nil
}

// Resources is a container's CPU and memory request.
type Resources struct {
	CPUMilli    int64
	MemoryBytes int64
}

// VerticalConfig is a VerticalElasticityStrategy's static configuration.
type VerticalConfig struct {
	// Min and Max bound each resource. A resource whose Max is 0 is not
	// scaled (its Min must then be 0 too); otherwise 0 <= Min <= Max.
	Min, Max Resources
	// ScaleUpPercent and ScaleDownPercent are the step, in percent of the
	// current request (Polaris uses 10). Up must be > 0; down in (0, 100).
	ScaleUpPercent, ScaleDownPercent float64
	// CPUStepMilli and MemoryStepBytes, when > 0, replace the percent step
	// with a fixed quantum for that resource.
	CPUStepMilli, MemoryStepBytes int64
	// Tolerance is the band around 100 % in which nothing changes, as a
	// fraction in [0, 1).
	Tolerance float64
	// ScaleUpWindow and ScaleDownWindow: after a change at lastScale, a
	// change in that direction waits until the window has passed (Polaris'
	// stabilisation window semantics for vertical scaling).
	ScaleUpWindow, ScaleDownWindow time.Duration
}

// ScaleDirection says which way a decision moves resources.
type ScaleDirection int

const (
	ScaleNone ScaleDirection = 0
	ScaleUp   ScaleDirection = 1
	ScaleDown ScaleDirection = -1
)

// VerticalDecision is the answer of [Vertical].
type VerticalDecision struct {
	// Resources are the requests to set (equal to current when nothing
	// changes, apart from clamping into bounds).
	Resources Resources
	// Direction is the way compliance asked to move (ScaleNone within
	// tolerance).
	Direction ScaleDirection
	// WithinTolerance reports that compliance was inside the tolerance band.
	WithinTolerance bool
	// Stabilised reports that the window since lastScale held the change
	// back.
	Stabilised bool
	// Reason is a short constant text for events and status.
	Reason string
}

// Vertical computes new CPU and memory requests from compliance, one step
// per call as Polaris' vertical strategy: above the tolerance band each
// scaled resource grows by its step, below it shrinks by its step, and the
// result is clamped to [Min, Max]. The step is the configured quantum, or
// the percent of the current request (rounded up, at least 1 unit).
// lastScale is when the requests last changed (zero: never); a change waits
// until the window of its direction has passed since then.
//
// Errors wrap [ErrInvalidObjective] and name the field.
func Vertical(now time.Time, current Resources, compliance float64, lastScale time.Time, cfg VerticalConfig) (VerticalDecision, error) {
	if err := validateVertical(current, cfg); err != nil {
		return VerticalDecision{}, err
	}
	if err := checkCompliance(compliance); err != nil {
		return VerticalDecision{}, err
	}
	d := VerticalDecision{Resources: clampResources(current, cfg), Reason: "compliance within tolerance"}
	if withinTolerance(compliance, cfg.Tolerance) {
		d.WithinTolerance = true
		return d, nil
	}
	window := cfg.ScaleDownWindow
	d.Direction = ScaleDown
	if compliance > 100 {
		window = cfg.ScaleUpWindow
		d.Direction = ScaleUp
	}
	if !lastScale.IsZero() && now.Sub(lastScale) < window {
		d.Stabilised = true
		d.Reason = "held by stabilisation window"
		return d, nil
	}
	next := current
	if cfg.Max.CPUMilli > 0 {
		next.CPUMilli = stepResource(current.CPUMilli, cfg.CPUStepMilli, d.Direction, cfg)
	}
	if cfg.Max.MemoryBytes > 0 {
		next.MemoryBytes = stepResource(current.MemoryBytes, cfg.MemoryStepBytes, d.Direction, cfg)
	}
	d.Resources = clampResources(next, cfg)
	switch {
	case d.Resources == current:
		d.Reason = "at resource bounds"
	case d.Direction == ScaleUp:
		d.Reason = "SLO violated: raising requests"
	default:
		d.Reason = "SLO outperformed: lowering requests"
	}
	return d, nil
}

// stepResource moves v one step in dir: quantum when > 0, else the
// direction's percent of v rounded up (at least 1). Never below 0.
func stepResource(v, quantum int64, dir ScaleDirection, cfg VerticalConfig) int64 {
	step := quantum
	if step <= 0 {
		pct := cfg.ScaleUpPercent
		if dir == ScaleDown {
			pct = cfg.ScaleDownPercent
		}
		step = max(int64(math.Ceil(float64(v)*pct/100-ceilEpsilon)), 1)
	}
	if dir == ScaleUp {
		if v > math.MaxInt64-step {
			return math.MaxInt64
		}
		return v + step
	}
	return max(v-step, 0)
}

// clampResources clamps each scaled resource into [Min, Max]; unscaled ones
// (Max 0) are returned as they are.
func clampResources(r Resources, cfg VerticalConfig) Resources {
	if cfg.Max.CPUMilli > 0 {
		r.CPUMilli = min(max(r.CPUMilli, cfg.Min.CPUMilli), cfg.Max.CPUMilli)
	}
	if cfg.Max.MemoryBytes > 0 {
		r.MemoryBytes = min(max(r.MemoryBytes, cfg.Min.MemoryBytes), cfg.Max.MemoryBytes)
	}
	return r
}

func validateVertical(current Resources, cfg VerticalConfig) error {
	check := func(name string, lo, hi, cur, quantum int64) error {
		switch {
		case lo < 0 || hi < 0:
			return fmt.Errorf("%w: %s bounds are min %d, max %d: use 0 or more", ErrInvalidObjective, name, lo, hi)
		case hi == 0 && lo != 0:
			return fmt.Errorf("%w: %s max is 0 (not scaled) but min is %d: set max, or min to 0", ErrInvalidObjective, name, lo)
		case lo > hi:
			return fmt.Errorf("%w: %s min (%d) is greater than max (%d): lower min or raise max", ErrInvalidObjective, name, lo, hi)
		case cur < 0:
			return fmt.Errorf("%w: current %s is %d: pass the container's request, 0 or more", ErrInvalidObjective, name, cur)
		case quantum < 0:
			return fmt.Errorf("%w: %s step is %d: use 0 (percent step) or more", ErrInvalidObjective, name, quantum)
		}
		return nil
	}
	if err := check("cpu millicores", cfg.Min.CPUMilli, cfg.Max.CPUMilli, current.CPUMilli, cfg.CPUStepMilli); err != nil {
		return err
	}
	if err := check("memory bytes", cfg.Min.MemoryBytes, cfg.Max.MemoryBytes, current.MemoryBytes, cfg.MemoryStepBytes); err != nil {
		return err
	}
	if cfg.Max.CPUMilli == 0 && cfg.Max.MemoryBytes == 0 {
		return fmt.Errorf("%w: neither cpu nor memory has a max: set maxResources for at least one", ErrInvalidObjective)
	}
	// The percents matter only for a scaled resource without a quantum.
	needsPercent := (cfg.Max.CPUMilli > 0 && cfg.CPUStepMilli == 0) || (cfg.Max.MemoryBytes > 0 && cfg.MemoryStepBytes == 0)
	if needsPercent && !(cfg.ScaleUpPercent > 0 && !math.IsInf(cfg.ScaleUpPercent, 1)) {
		return fmt.Errorf("%w: scaleUpPercent is %v: set a finite value above 0, e.g. %d", ErrInvalidObjective, cfg.ScaleUpPercent, DefaultStepPercent)
	}
	if needsPercent && !(cfg.ScaleDownPercent > 0 && cfg.ScaleDownPercent < 100) {
		return fmt.Errorf("%w: scaleDownPercent is %v: set a value in (0, 100), e.g. %d", ErrInvalidObjective, cfg.ScaleDownPercent, DefaultStepPercent)
	}
	if cfg.ScaleUpWindow < 0 || cfg.ScaleDownWindow < 0 {
		return fmt.Errorf("%w: stabilisation windows are %v up, %v down: use 0 or more", ErrInvalidObjective, cfg.ScaleUpWindow, cfg.ScaleDownWindow)
	}
	return checkTolerance(cfg.Tolerance)
}
