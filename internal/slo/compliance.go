package slo

import (
	"errors"
	"fmt"
	"math"
)

// Kind is an SLO type, as written in a ServiceLevelObjective.
type Kind string

const (
	// KindCPUUtilization: average CPU utilisation of the target's pods
	// (percent of their requests) against a target utilisation.
	KindCPUUtilization Kind = "cpu-utilization"
	// KindLatency: a latency percentile (for example p99) against a
	// threshold.
	KindLatency Kind = "latency"
	// KindCostEfficiency: Polaris' cost efficiency, requests per second
	// answered faster than a response-time threshold divided by the cost per
	// hour, against a target, with a minimum share of fast requests.
	KindCostEfficiency Kind = "cost-efficiency"
	// KindAvailability: the error ratio against the error budget that a
	// target availability allows.
	KindAvailability Kind = "availability"
	// KindCustom: any value (a PromQL query) against a target, in a given
	// direction.
	KindCustom Kind = "custom"
)

// Direction says which way a custom value is good.
type Direction string

const (
	// LowerIsBetter: compliance = value / target x 100 (like latency).
	LowerIsBetter Direction = "lower-is-better"
	// HigherIsBetter: compliance = target / value x 100 (like throughput).
	HigherIsBetter Direction = "higher-is-better"
)

// DefaultMinFastPercent is Polaris' default minimum share of requests faster
// than the threshold for cost efficiency (minRequestsPercentile 90).
const DefaultMinFastPercent = 90

// InfiniteViolation is the compliance reported when the ratio would be
// infinite: a higher-is-better value of 0, a cost efficiency of 0, or no fast
// request at all. It is the 200 Polaris' cost-efficiency SLO returns for a
// cost efficiency of 0: "double the resources", a bounded step rather than
// an unbounded one.
const InfiniteViolation = 200

// Errors. Every error from Evaluate wraps exactly one of ErrInvalidObjective
// (fix the spec) or ErrNoData (hold: do not scale on this evaluation).
var (
	// ErrInvalidObjective: the objective's configuration cannot be
	// evaluated; the message names the field and the fix.
	ErrInvalidObjective = errors.New("invalid service level objective")
	// ErrNoData: the measurement is missing, NaN, infinite or impossible
	// (negative). Callers must hold the current scale, never scale down on
	// it, and surface the reason.
	ErrNoData = errors.New("no usable metric data")
	// ErrNoTraffic: the window had no request, so a request-based SLO
	// (cost-efficiency, availability) has nothing to judge. It wraps
	// ErrNoData: callers hold, but may report "idle" rather than "degraded".
	ErrNoTraffic = fmt.Errorf("%w: no requests in the window", ErrNoData)
)

// Objective is the part of a ServiceLevelObjective that Evaluate needs.
// Only the fields of Kind are read.
type Objective struct {
	Kind Kind

	// TargetUtilizationPercent (cpu-utilization): the wanted average CPU
	// utilisation in percent of the pods' requests, > 0 (e.g. 70).
	TargetUtilizationPercent float64

	// Percentile (latency): which percentile the measurement is, in (0, 100]
	// (e.g. 99). The metrics layer queries it; Evaluate only checks it.
	Percentile float64
	// ThresholdSeconds (latency): the highest acceptable value of that
	// percentile, > 0.
	ThresholdSeconds float64

	// TargetCostEfficiency (cost-efficiency): wanted fast requests per
	// second per unit of cost per hour, > 0.
	TargetCostEfficiency float64
	// MinFastPercent (cost-efficiency): the minimum share of requests, in
	// percent, that must be faster than the response-time threshold; 0
	// means [DefaultMinFastPercent]. Must be in (0, 100].
	MinFastPercent float64

	// TargetAvailabilityPercent (availability): the share of requests that
	// must succeed, in (0, 100) (e.g. 99.9). 100 is rejected: an objective
	// that allows no error at all gives no ratio to scale by.
	TargetAvailabilityPercent float64

	// Target (custom): the wanted value, > 0.
	Target float64
	// Direction (custom): [LowerIsBetter] or [HigherIsBetter].
	Direction Direction
}

// Measurement is what the metrics layer observed for one SLO in one
// evaluation. Only the fields the objective's Kind uses are read.
type Measurement struct {
	// Observed must be true when the query returned a sample. The zero
	// Measurement means "nothing came back" and gives ErrNoData.
	Observed bool

	// Value is the measured value for cpu-utilization (percent of
	// requests), latency (the percentile, in seconds) and custom.
	Value float64

	// RequestsPerSecond is the rate of all requests (cost-efficiency,
	// availability).
	RequestsPerSecond float64
	// FastRequestsPerSecond is the rate of requests answered faster than the
	// response-time threshold (cost-efficiency).
	FastRequestsPerSecond float64
	// CostPerHour is the target's current cost per hour (cost-efficiency),
	// for example from HybridCluster prices x requested resources.
	CostPerHour float64
	// ErrorsPerSecond is the rate of failed requests (availability).
	ErrorsPerSecond float64
}

// Result is one evaluation's outcome.
type Result struct {
	// Compliance: 100 met, > 100 violated, < 100 outperformed. Always finite
	// and >= 0.
	Compliance float64
	// Value is the SLO's current value in its own unit, for status: CPU
	// utilisation percent, latency seconds, cost efficiency (fast requests
	// per second per cost per hour; math.MaxFloat64 when the cost is 0, so
	// the value stays finite for status), availability percent, or the
	// custom value.
	Value float64
	// FastPercent is the share of fast requests in percent (cost-efficiency
	// only).
	FastPercent float64
}

// Evaluate computes the compliance of m against o:
//
//   - cpu-utilization: value / target x 100.
//   - latency: percentile value / threshold x 100.
//   - availability: error ratio / (1 - target availability) x 100, the
//     share of the error budget in use.
//   - custom: value / target x 100 when lower is better, target / value x
//     100 when higher is better ([InfiniteViolation] for a value of 0).
//   - cost-efficiency: efficiency = fast requests per second / cost per
//     hour, with fast share = fast / all requests. See below.
//
// Cost efficiency. Polaris (polaris-slo-cloud, CostEfficiencySlo) reports 100
// whenever the fast share reaches the minimum and target / efficiency x 100
// otherwise. Two cases of that formula point the wrong way, so this differs
// on purpose:
//
//   - Fast share below the minimum: violated regardless of the efficiency.
//     Compliance = max(target / efficiency, min share / fast share) x 100,
//     which is always above 100 (Polaris could return below 100 here and
//     scale in while too many requests are slow). A fast share or an
//     efficiency of 0 counts as [InfiniteViolation] for its term.
//   - Fast share at or above the minimum: latency is fine, so the question
//     is only whether resources are wasted. Efficiency >= target: 100 (met,
//     as Polaris). Efficiency below target: efficiency / target x 100, below
//     100, so a horizontal strategy releases replicas until the efficiency
//     reaches the target (Polaris holds at 100 here, so its target had no
//     effect while latency was fine).
//   - A cost of 0 (a private cluster without prices) makes the efficiency
//     infinite: only the fast-share term can then violate.
//
// Missing or unusable data gives an error wrapping [ErrNoData] (or
// [ErrNoTraffic] when there was no request); a bad objective gives one
// wrapping [ErrInvalidObjective]. Evaluate does not allocate unless it
// returns an error.
func Evaluate(o Objective, m Measurement) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	if !m.Observed {
		return Result{}, fmt.Errorf("%w: the %s query returned no sample", ErrNoData, o.Kind)
	}
	switch o.Kind {
	case KindCPUUtilization:
		if err := checkValue("CPU utilisation", m.Value); err != nil {
			return Result{}, err
		}
		return Result{Compliance: capFinite(m.Value / o.TargetUtilizationPercent * 100), Value: m.Value}, nil
	case KindLatency:
		if err := checkValue("latency", m.Value); err != nil {
			return Result{}, err
		}
		return Result{Compliance: capFinite(m.Value / o.ThresholdSeconds * 100), Value: m.Value}, nil
	case KindAvailability:
		return availability(o, m)
	case KindCostEfficiency:
		return costEfficiency(o, m)
	default: // KindCustom; Validate rejected the rest.
		if err := checkValue("custom value", m.Value); err != nil {
			return Result{}, err
		}
		if o.Direction == LowerIsBetter {
			return Result{Compliance: capFinite(m.Value / o.Target * 100), Value: m.Value}, nil
		}
		if m.Value == 0 {
			return Result{Compliance: InfiniteViolation, Value: 0}, nil
		}
		return Result{Compliance: capFinite(o.Target / m.Value * 100), Value: m.Value}, nil
	}
}

func availability(o Objective, m Measurement) (Result, error) {
	if err := checkValue("request rate", m.RequestsPerSecond); err != nil {
		return Result{}, err
	}
	if err := checkValue("error rate", m.ErrorsPerSecond); err != nil {
		return Result{}, err
	}
	if m.RequestsPerSecond == 0 {
		return Result{}, ErrNoTraffic
	}
	// Errors and requests come from two queries; a scrape in between can
	// put errors slightly above requests. The ratio cannot exceed 1.
	ratio := min(m.ErrorsPerSecond/m.RequestsPerSecond, 1)
	allowed := (100 - o.TargetAvailabilityPercent) / 100
	return Result{Compliance: capFinite(ratio / allowed * 100), Value: (1 - ratio) * 100}, nil
}

func costEfficiency(o Objective, m Measurement) (Result, error) {
	if err := checkValue("request rate", m.RequestsPerSecond); err != nil {
		return Result{}, err
	}
	if err := checkValue("fast request rate", m.FastRequestsPerSecond); err != nil {
		return Result{}, err
	}
	if err := checkValue("cost per hour", m.CostPerHour); err != nil {
		return Result{}, err
	}
	if m.RequestsPerSecond == 0 {
		return Result{}, ErrNoTraffic
	}
	fast := min(m.FastRequestsPerSecond, m.RequestsPerSecond) // same two-query skew as availability
	fastPct := fast / m.RequestsPerSecond * 100
	minPct := o.MinFastPercent
	if minPct == 0 {
		minPct = DefaultMinFastPercent
	}
	eff := math.Inf(1)
	if m.CostPerHour > 0 {
		eff = fast / m.CostPerHour
	}
	r := Result{Value: min(eff, math.MaxFloat64), FastPercent: fastPct}

	if fastPct < minPct {
		latencyTerm := float64(InfiniteViolation)
		if fastPct > 0 {
			latencyTerm = minPct / fastPct * 100
		}
		effTerm := float64(InfiniteViolation)
		if eff > 0 {
			effTerm = o.TargetCostEfficiency / eff * 100 // 0 when eff is +Inf
		}
		r.Compliance = capFinite(max(latencyTerm, effTerm))
		return r, nil
	}
	if eff >= o.TargetCostEfficiency {
		r.Compliance = 100
		return r, nil
	}
	r.Compliance = eff / o.TargetCostEfficiency * 100
	return r, nil
}

// maxFiniteCompliance bounds ratios that overflow to +Inf (a target of 1e300
// over a value of 1e-300): still a huge violation, but a finite number.
const maxFiniteCompliance = math.MaxFloat64

func capFinite(c float64) float64 {
	if math.IsInf(c, 1) {
		return maxFiniteCompliance
	}
	return c
}

// checkValue rejects NaN, infinities and negative values of a measured
// quantity.
func checkValue(what string, v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("%w: %s is NaN", ErrNoData, what)
	case math.IsInf(v, 0):
		return fmt.Errorf("%w: %s is %v", ErrNoData, what, v)
	case v < 0:
		return fmt.Errorf("%w: %s is %v, below 0", ErrNoData, what, v)
	}
	return nil
}

// positive reports whether v is finite and > 0.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// Validate reports the first problem with o, naming the field and the fix.
// It does not allocate when o is valid.
func (o Objective) Validate() error {
	switch o.Kind {
	case KindCPUUtilization:
		if !positive(o.TargetUtilizationPercent) {
			return fmt.Errorf("%w: cpu-utilization targetUtilizationPercent is %v: set a finite value above 0, e.g. 70", ErrInvalidObjective, o.TargetUtilizationPercent)
		}
	case KindLatency:
		if !(o.Percentile > 0 && o.Percentile <= 100) {
			return fmt.Errorf("%w: latency percentile is %v: set a value in (0, 100], e.g. 99", ErrInvalidObjective, o.Percentile)
		}
		if !positive(o.ThresholdSeconds) {
			return fmt.Errorf("%w: latency thresholdSeconds is %v: set a finite value above 0", ErrInvalidObjective, o.ThresholdSeconds)
		}
	case KindCostEfficiency:
		if !positive(o.TargetCostEfficiency) {
			return fmt.Errorf("%w: cost-efficiency targetCostEfficiency is %v: set a finite value above 0 (fast requests/s per cost per hour)", ErrInvalidObjective, o.TargetCostEfficiency)
		}
		if !(o.MinFastPercent >= 0 && o.MinFastPercent <= 100) {
			return fmt.Errorf("%w: cost-efficiency minFastPercent is %v: set a value in (0, 100], or 0 for %d", ErrInvalidObjective, o.MinFastPercent, DefaultMinFastPercent)
		}
	case KindAvailability:
		if !(o.TargetAvailabilityPercent > 0 && o.TargetAvailabilityPercent < 100) {
			return fmt.Errorf("%w: availability targetAvailabilityPercent is %v: set a value in (0, 100), e.g. 99.9", ErrInvalidObjective, o.TargetAvailabilityPercent)
		}
	case KindCustom:
		if !positive(o.Target) {
			return fmt.Errorf("%w: custom target is %v: set a finite value above 0", ErrInvalidObjective, o.Target)
		}
		if o.Direction != LowerIsBetter && o.Direction != HigherIsBetter {
			return fmt.Errorf("%w: custom direction is %q: use %q or %q", ErrInvalidObjective, o.Direction, LowerIsBetter, HigherIsBetter)
		}
	default:
		return fmt.Errorf("%w: kind %q is unknown: use cpu-utilization, latency, cost-efficiency, availability or custom", ErrInvalidObjective, o.Kind)
	}
	return nil
}
