package moha

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// State is a service's current configuration, load and measured targets.
type State struct {
	CPULimitMilli      float64 // per pod
	MemoryLimitMiB     float64 // per pod
	Replicas           int
	RequestsPerSecond  float64
	ResponseTimeMs     float64 // average
	CPUUsagePercent    float64 // per pod, % of its CPU limit
	MemoryUsagePercent float64 // per pod, % of its memory limit
}

// Desired are the target values eq. 1 aims at (the paper: 1 s response time,
// 80 % CPU and 80 % memory usage).
type Desired struct {
	ResponseTimeMs     float64
	CPUUsagePercent    float64
	MemoryUsagePercent float64
}

// Range bounds a parameter: Min <= value <= Max.
type Range struct{ Min, Max float64 }

// Ranges bound the three parameters; replicas' bounds must be whole numbers.
type Ranges struct {
	CPULimitMilli  Range
	MemoryLimitMiB Range
	Replicas       Range
}

// Weights are the TOPSIS criteria's weights; they must sum to 1. The criteria:
// minimise the response time, maximise CPU and memory usage, minimise the
// configuration's cost (weighted by CPULimit + MemoryLimit: the paper's CPU
// and memory limit criteria, priced; see [Decide]) and the replicas.
type Weights struct {
	ResponseTime float64
	CPUUsage     float64
	MemoryUsage  float64
	CPULimit     float64
	MemoryLimit  float64
	Replicas     float64
}

// ResponseTimeWeights gives the response time weight w and the five
// resource criteria (1-w)/5 each, the paper's way of weighting.
func ResponseTimeWeights(w float64) Weights {
	r := (1 - w) / 5
	return Weights{ResponseTime: w, CPUUsage: r, MemoryUsage: r, CPULimit: r, MemoryLimit: r, Replicas: r}
}

// The paper's weight variants (its Table 5): balanced (response time 0.5, the
// resources 0.5 together), response time first (0.9/0.1) and resources first
// (0.1/0.9).
var (
	Balanced          = ResponseTimeWeights(0.5)
	ResponseTimeFirst = ResponseTimeWeights(0.9)
	ResourcesFirst    = ResponseTimeWeights(0.1)
)

// MaxReplicas bounds ranges.replicas.max.
const MaxReplicas = 1_000_000

// Config is what a decision is asked to reach and within which bounds.
type Config struct {
	Desired Desired
	Ranges  Ranges
	Weights Weights
}

// weightSumTolerance is how far from 1 the weights' sum may be (decimal
// fractions such as 0.1 are not exact in binary).
const weightSumTolerance = 1e-6

// Validate checks the configuration; its errors name the field.
func (c Config) Validate() error {
	var errs []error
	for _, f := range []namedValue{
		{"desired.response_time_ms", c.Desired.ResponseTimeMs},
		{"desired.cpu_usage_percent", c.Desired.CPUUsagePercent},
		{"desired.memory_usage_percent", c.Desired.MemoryUsagePercent},
	} {
		if !(f.v > 0) || !finite(f.v) {
			errs = append(errs, fmt.Errorf("%s: %v must be finite and > 0", f.name, f.v))
		}
	}
	for _, f := range []struct {
		name string
		r    Range
	}{
		{"ranges.cpu_limit_millicores", c.Ranges.CPULimitMilli},
		{"ranges.memory_limit_mib", c.Ranges.MemoryLimitMiB},
		{"ranges.replicas", c.Ranges.Replicas},
	} {
		switch {
		case !finite(f.r.Min) || !finite(f.r.Max):
			errs = append(errs, fmt.Errorf("%s: min %v and max %v must be finite", f.name, f.r.Min, f.r.Max))
		case f.r.Min > f.r.Max:
			errs = append(errs, fmt.Errorf("%s: min %v > max %v", f.name, f.r.Min, f.r.Max))
		case !(f.r.Min > 0):
			errs = append(errs, fmt.Errorf("%s: min %v must be > 0", f.name, f.r.Min))
		}
	}
	if r := c.Ranges.Replicas; r.Min != math.Trunc(r.Min) || r.Max != math.Trunc(r.Max) || r.Max > MaxReplicas {
		errs = append(errs, fmt.Errorf("ranges.replicas: min %v and max %v must be whole numbers, max at most %d", r.Min, r.Max, MaxReplicas))
	}
	w := c.Weights
	sum := 0.0
	var parts []string
	for _, f := range w.named() {
		if !(f.v >= 0) || !finite(f.v) {
			errs = append(errs, fmt.Errorf("weights.%s: %v must be finite and >= 0", f.name, f.v))
		}
		sum += f.v
		parts = append(parts, fmt.Sprintf("%s %v", f.name, f.v))
	}
	if math.Abs(sum-1) > weightSumTolerance {
		errs = append(errs, fmt.Errorf("weights: sum to %.6g, must sum to 1 (%s)", sum, strings.Join(parts, " + ")))
	}
	return errors.Join(errs...)
}

type namedValue struct {
	name string
	v    float64
}

func (w Weights) named() []namedValue {
	return []namedValue{
		{"response_time", w.ResponseTime}, {"cpu_usage", w.CPUUsage}, {"memory_usage", w.MemoryUsage},
		{"cpu_limit", w.CPULimit}, {"memory_limit", w.MemoryLimit}, {"replicas", w.Replicas},
	}
}

func (s State) validate() error {
	var errs []error
	for _, f := range []struct {
		name     string
		v        float64
		positive bool
	}{
		{"current.cpu_limit_millicores", s.CPULimitMilli, true},
		{"current.memory_limit_mib", s.MemoryLimitMiB, true},
		{"current.replicas", float64(s.Replicas), true},
		{"current.requests_per_second", s.RequestsPerSecond, false},
		{"current.response_time_ms", s.ResponseTimeMs, false},
		{"current.cpu_usage_percent", s.CPUUsagePercent, false},
		{"current.memory_usage_percent", s.MemoryUsagePercent, false},
	} {
		if !finite(f.v) || f.v < 0 || f.positive && f.v == 0 {
			want := ">= 0"
			if f.positive {
				want = "> 0"
			}
			errs = append(errs, fmt.Errorf("%s: %v must be finite and %s", f.name, f.v, want))
		}
	}
	return errors.Join(errs...)
}

// integerSlack absorbs floating-point noise in eq. 1: a product within it of
// a whole number is that number (300×0.9/0.8 may come out as 337.50000000000006).
const integerSlack = 1e-9

// Optimum is the paper's eq. 1: the parameter value that would bring a target
// from its current to its desired value if the target were proportional to
// it, ceil(current × targetCurrent / targetDesired) — for replicas and CPU
// usage, the Kubernetes HPA's formula.
func Optimum(current, targetCurrent, targetDesired float64) float64 {
	return math.Ceil(current*targetCurrent/targetDesired - integerSlack)
}

// Target names which target an eq. 1 optimum was computed from.
type Target string

// The targets eq. 1 is applied to.
const (
	FromResponseTime Target = "response_time"
	FromCPUUsage     Target = "cpu_usage"
	FromMemoryUsage  Target = "memory_usage"
	// FromLoad: the fewest replicas the model predicts to serve the offered
	// load within the response-time limit ([SafeDecide]); not one of the
	// paper's targets.
	FromLoad Target = "load"
	// FromRange: a pod size of the ranges' grid ([RangeGrid]), sized by
	// [SafeDecide] with the fewest replicas; not one of the paper's targets.
	FromRange Target = "range"
)

// Variation is one candidate configuration: its parameters, the target each
// came from, the targets the model predicts for it at the current load and its
// TOPSIS closeness (in [0, 1], higher is better).
type Variation struct {
	CPULimitMilli  float64
	MemoryLimitMiB float64
	Replicas       int
	From           [3]Target // of the CPU limit, the memory limit, the replicas
	Predicted      [NumTargets]float64
	Closeness      float64
}

// Variations is the paper's parameter-variation matrix around s: eq. 1 gives
// each of the 3 parameters an optimum per each of the 3 targets (3³ = 27
// combinations); the CPU limit computed from memory usage and the memory limit
// computed from CPU usage are dropped (a pod's CPU limit does not drive its
// memory usage, nor its memory limit its CPU usage: the paper's "missing
// correlation"), leaving 2 CPU limits × 2 memory limits × 3 replica counts =
// 12. Each value is clamped to its range; configurations repeated after
// clamping are kept once (the first), so there may be fewer than 12. s and d
// must be valid ([Decide] checks them first).
func Variations(s State, d Desired, r Ranges) []Variation {
	type candidate struct {
		v    float64
		from Target
	}
	cpus := []candidate{
		{Optimum(s.CPULimitMilli, s.ResponseTimeMs, d.ResponseTimeMs), FromResponseTime},
		{Optimum(s.CPULimitMilli, s.CPUUsagePercent, d.CPUUsagePercent), FromCPUUsage},
	}
	mems := []candidate{
		{Optimum(s.MemoryLimitMiB, s.ResponseTimeMs, d.ResponseTimeMs), FromResponseTime},
		{Optimum(s.MemoryLimitMiB, s.MemoryUsagePercent, d.MemoryUsagePercent), FromMemoryUsage},
	}
	reps := []candidate{
		{Optimum(float64(s.Replicas), s.ResponseTimeMs, d.ResponseTimeMs), FromResponseTime},
		{Optimum(float64(s.Replicas), s.CPUUsagePercent, d.CPUUsagePercent), FromCPUUsage},
		{Optimum(float64(s.Replicas), s.MemoryUsagePercent, d.MemoryUsagePercent), FromMemoryUsage},
	}
	var out []Variation
	for _, c := range cpus {
		for _, m := range mems {
			for _, n := range reps {
				v := Variation{
					CPULimitMilli:  clamp(c.v, r.CPULimitMilli),
					MemoryLimitMiB: clamp(m.v, r.MemoryLimitMiB),
					Replicas:       int(clamp(n.v, r.Replicas)),
					From:           [3]Target{c.from, m.from, n.from},
				}
				if !slices.ContainsFunc(out, v.sameConfig) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func (v Variation) sameConfig(o Variation) bool {
	return v.CPULimitMilli == o.CPULimitMilli && v.MemoryLimitMiB == o.MemoryLimitMiB && v.Replicas == o.Replicas
}

func clamp(v float64, r Range) float64 { return math.Min(math.Max(v, r.Min), r.Max) }

// Predictor predicts targets ([Targets] order) from inputs ([Inputs] order);
// a [*Model] is one.
type Predictor interface {
	Predict(in [NumInputs]float64) [NumTargets]float64
}

// Decision is the ranked variations, best first.
type Decision struct {
	Ranked []Variation
}

// Best is the chosen configuration.
func (d Decision) Best() Variation { return d.Ranked[0] }

// Decide validates c and s, builds the [Variations] around s, predicts each
// one's targets at the current load with p (a negative prediction counts as 0
// and a usage as at most 100 %), and ranks them with [TOPSIS] on the criteria
// of [Weights] (the CPU and memory limits priced together as the
// configuration's cost per hour; see rank). Ties keep the variation order. On error nothing is decided.
func Decide(p Predictor, s State, c Config) (Decision, error) {
	if err := errors.Join(s.validate(), c.Validate()); err != nil {
		return Decision{}, fmt.Errorf("moha decision: %w", err)
	}
	return rank(p, s, c, Variations(s, c.Desired, c.Ranges))
}

// rank predicts the targets of vs at s's load with p and ranks them with
// TOPSIS on c's weights, best first. One departure from the paper: its
// criteria "minimise the CPU limit" and "minimise the memory limit" (of a
// pod) are one criterion here, minimise the configuration's cost per hour at
// [PaperPrices] (replicas × (CPU limit × CPU price + memory limit × memory
// price)), weighted by the two weights' sum. The paper's per-pod criteria
// rank 3 pods of 300m/400Mi (900m in all) before 1 of 500m/600Mi, and
// TOPSIS normalises each criterion on its own, so CPU (about 9 times the
// price of memory per GB-hour) and memory would count alike: a loop ranked
// so stays on small pods, which cost more per request (see [RangeGrid]).
// Only the prices' ratio matters (TOPSIS normalises the column).
func rank(p Predictor, s State, c Config, vs []Variation) (Decision, error) {
	matrix := make([][]float64, len(vs))
	for i := range vs {
		v := &vs[i]
		pred, err := predict(p, *v, s.RequestsPerSecond)
		if err != nil {
			return Decision{}, err
		}
		v.Predicted = pred
		matrix[i] = []float64{pred[0], pred[1], pred[2], PaperPrices.Hourly(Configuration{CPULimitMilli: v.CPULimitMilli, MemoryLimitMiB: v.MemoryLimitMiB, Replicas: v.Replicas}), float64(v.Replicas)}
	}
	w := c.Weights
	closeness := TOPSIS(matrix,
		[]float64{w.ResponseTime, w.CPUUsage, w.MemoryUsage, w.CPULimit + w.MemoryLimit, w.Replicas},
		[]bool{false, true, true, false, false})
	for i := range vs {
		vs[i].Closeness = closeness[i]
	}
	ranked := make([]Variation, len(vs))
	for r, i := range Rank(closeness) {
		ranked[r] = vs[i]
	}
	return Decision{Ranked: ranked}, nil
}

// predict is p's prediction for v at rps req/s, a negative prediction counted
// as 0 and a usage as at most 100 %.
func predict(p Predictor, v Variation, rps float64) ([NumTargets]float64, error) {
	pred := p.Predict([NumInputs]float64{v.CPULimitMilli, v.MemoryLimitMiB, float64(v.Replicas), rps})
	for t := range pred {
		if !finite(pred[t]) {
			return pred, fmt.Errorf("moha decision: predicted %s %v for %v", Targets[t], pred[t], v)
		}
		pred[t] = math.Max(pred[t], 0)
		if t > 0 {
			pred[t] = math.Min(pred[t], 100)
		}
	}
	return pred, nil
}

// TOPSIS scores alternatives (rows of matrix) on criteria (columns) with the
// given weights; benefit[j] says criterion j is to be maximised (else
// minimised). Each column is divided by its Euclidean norm (a zero column stays
// zero) and multiplied by its weight; the ideal takes each column's best value
// and the anti-ideal its worst; an alternative's closeness is
// D⁻/(D⁺+D⁻), its Euclidean distance to the anti-ideal over the sum of both
// distances, in [0, 1] (1 when it is the ideal; 1 for all when all
// alternatives are equal).
func TOPSIS(matrix [][]float64, weights []float64, benefit []bool) []float64 {
	m := len(matrix)
	out := make([]float64, m)
	if m == 0 {
		return out
	}
	n := len(weights)
	v := make([][]float64, m)
	for i := range v {
		v[i] = make([]float64, n)
	}
	best, worst := make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		norm := 0.0
		for i := range matrix {
			norm += matrix[i][j] * matrix[i][j]
		}
		norm = math.Sqrt(norm)
		for i := range matrix {
			if norm > 0 {
				v[i][j] = weights[j] * matrix[i][j] / norm
			}
		}
		lo, hi := v[0][j], v[0][j]
		for i := range v {
			lo, hi = math.Min(lo, v[i][j]), math.Max(hi, v[i][j])
		}
		if benefit[j] {
			best[j], worst[j] = hi, lo
		} else {
			best[j], worst[j] = lo, hi
		}
	}
	for i := range v {
		var dp, dm float64
		for j := range v[i] {
			dp += (v[i][j] - best[j]) * (v[i][j] - best[j])
			dm += (v[i][j] - worst[j]) * (v[i][j] - worst[j])
		}
		dp, dm = math.Sqrt(dp), math.Sqrt(dm)
		if dp+dm == 0 {
			out[i] = 1
		} else {
			out[i] = dm / (dp + dm)
		}
	}
	return out
}

// Rank returns the alternatives' indices by decreasing closeness, ties by
// increasing index.
func Rank(closeness []float64) []int {
	idx := make([]int, len(closeness))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case closeness[a] > closeness[b]:
			return -1
		case closeness[a] < closeness[b]:
			return 1
		}
		return 0
	})
	return idx
}

// Thresholds say when a service needs no scaling (the paper's analysis step):
// a response time at most ResponseTimeMs and both usages within their ranges
// (the paper: 1 s, 70-90 % and 70-90 %, the desired usage being the middle).
type Thresholds struct {
	ResponseTimeMs     float64
	CPUUsagePercent    Range
	MemoryUsagePercent Range
}

// Satisfied reports whether every target of s is within t: then the paper's
// loop does not scale.
func (t Thresholds) Satisfied(s State) bool {
	in := func(v float64, r Range) bool { return v >= r.Min && v <= r.Max }
	return s.ResponseTimeMs <= t.ResponseTimeMs && in(s.CPUUsagePercent, t.CPUUsagePercent) && in(s.MemoryUsagePercent, t.MemoryUsagePercent)
}
