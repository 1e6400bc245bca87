package moha

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// SafeDecide is [Decide] with a response-time guard, what the loop ([Step])
// uses: the paper's 12 variations plus, for each of their CPU/memory limit
// pairs and, when s's measured response time is within limitMs, for each pod
// size of the ranges' grid ([RangeGrid]: the corners and midpoints of the CPU
// and memory ranges), the fewest replicas within the ranges whose predicted
// response time at the current load is at most limitMs (From [FromLoad], the
// grid's limits [FromRange]; none when no replica count in the range is
// predicted within it). All are predicted and
// ranked by TOPSIS together; then every variation predicted within limitMs
// goes before every one that is not, each group keeping its TOPSIS order.
// When none is within limitMs, all are ordered by predicted response time
// (fastest first; ties by TOPSIS order): the loop then takes the fastest
// configuration it knows.
//
// The grid is left out while the measured response time is over the limit:
// then the load is usually rising, the past interval's mean understates the
// load the new configuration will meet, and the cheapest grid size sized for
// it lags the rise (on the bench's MOHA ramp, 1 to 1,000 req/s in 3.5 min,
// the loop with the grid in every round averaged 185 ms against the
// small-pod HPA's 128 ms; with the grid only within the limit, 77 ms). Eq.
// 1's response-time variations, which scale with the measured excess, meet
// the rise; the grid moves to cheaper pods once it is met.
//
// The guard is what eq. 1 lacks when a pod is saturated: a CPU usage capped
// at 100 % asks for only 100/80 = 1.25 times the replicas, while the load may
// need several times more; the load variations ask the model directly, as
// Knative's KPA sizes from the observed concurrency rather than from a usage
// ratio.
func SafeDecide(p Predictor, s State, c Config, limitMs float64) (Decision, error) {
	if err := errors.Join(s.validate(), c.Validate()); err != nil {
		return Decision{}, fmt.Errorf("moha decision: %w", err)
	}
	if !(limitMs > 0) || !finite(limitMs) {
		return Decision{}, fmt.Errorf("moha decision: response-time limit %v ms must be finite and > 0", limitMs)
	}
	vs := Variations(s, c.Desired, c.Ranges)
	var pairs [][2]float64
	for _, v := range vs {
		if pr := [2]float64{v.CPULimitMilli, v.MemoryLimitMiB}; !slices.Contains(pairs, pr) {
			pairs = append(pairs, pr)
		}
	}
	grid := len(pairs)
	if s.ResponseTimeMs <= limitMs {
		for _, pr := range RangeGrid(c.Ranges) {
			if !slices.Contains(pairs, pr) {
				pairs = append(pairs, pr)
			}
		}
	}
	for i, pr := range pairs {
		n, ok, err := fewestReplicas(p, pr[0], pr[1], s.RequestsPerSecond, c.Ranges.Replicas, limitMs)
		if err != nil {
			return Decision{}, err
		}
		v := Variation{CPULimitMilli: pr[0], MemoryLimitMiB: pr[1], Replicas: n, From: [3]Target{FromLoad, FromLoad, FromLoad}}
		if i >= grid {
			v.From = [3]Target{FromRange, FromRange, FromLoad}
		}
		if ok && !slices.ContainsFunc(vs, v.sameConfig) {
			vs = append(vs, v)
		}
	}
	d, err := rank(p, s, c, vs)
	if err != nil {
		return Decision{}, err
	}
	within := func(v Variation) bool { return v.Predicted[0] <= limitMs }
	if slices.ContainsFunc(d.Ranked, within) {
		slices.SortStableFunc(d.Ranked, func(a, b Variation) int {
			switch wa, wb := within(a), within(b); {
			case wa && !wb:
				return -1
			case !wa && wb:
				return 1
			}
			return 0
		})
	} else {
		slices.SortStableFunc(d.Ranked, func(a, b Variation) int {
			switch {
			case a.Predicted[0] < b.Predicted[0]:
				return -1
			case a.Predicted[0] > b.Predicted[0]:
				return 1
			}
			return 0
		})
	}
	return d, nil
}

// RangeGrid is the pod sizes (CPU limit, memory limit) [SafeDecide] sizes
// besides eq. 1's: each range's min, midpoint (rounded to a whole millicore
// or MiB) and max, 3 × 3 = 9 (fewer when a range is a single value).
//
// Eq. 1 proposes pod sizes near the current one only (its CPU and memory
// usage ratios), so a loop that starts on small pods stays on small pods
// although pods with more memory are cheaper per request: the GC overhead
// falls with the memory pressure ([workload.ComputeMemory]). On the bench's
// synthetic service at 80 ms, a 300m/400Mi pod costs about 2.05e-4 $ per
// req/s and hour, a 500m/600Mi pod about 1.60e-4 (22 % less).
func RangeGrid(r Ranges) [][2]float64 {
	three := func(r Range) []float64 {
		out := []float64{r.Min}
		for _, v := range []float64{math.Round((r.Min + r.Max) / 2), r.Max} {
			if v > out[len(out)-1] && v <= r.Max {
				out = append(out, v)
			}
		}
		return out
	}
	var out [][2]float64
	for _, cpu := range three(r.CPULimitMilli) {
		for _, mem := range three(r.MemoryLimitMiB) {
			out = append(out, [2]float64{cpu, mem})
		}
	}
	return out
}

// fewestReplicas is the smallest replica count in r whose predicted response
// time with pods of cpu/mem at rps is at most limitMs; ok false when none is.
// The predicted response time is taken as non-increasing in the replicas (a
// request's share of the pods only shrinks), so the search is a bisection:
// about log2(r.Max-r.Min) predictions.
func fewestReplicas(p Predictor, cpu, mem, rps float64, r Range, limitMs float64) (n int, ok bool, err error) {
	fits := func(n int) (bool, error) {
		pred, err := predict(p, Variation{CPULimitMilli: cpu, MemoryLimitMiB: mem, Replicas: n}, rps)
		return pred[0] <= limitMs, err
	}
	lo, hi := int(r.Min), int(r.Max)
	if ok, err := fits(hi); err != nil || !ok {
		return 0, false, err
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		ok, err := fits(mid)
		if err != nil {
			return 0, false, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true, nil
}

// PerPod predicts configurations outside a model's training range from the
// per-pod load: n pods offered rps req/s are predicted as n' pods offered
// rps×n'/n, the same load per pod, with n' = min(n, MaxReplicas), lowered
// further (fractionally: the regressors take real inputs) until rps×n'/n is
// at most MaxRequestsPerSecond. A request-serving service's pods behind one
// load balancer share the load evenly (the Kubernetes HPA's proportionality
// assumption), and a regressor (an RBF kernel, a tanh network) does not
// extrapolate past its training range: the paper's grid has 1-5 replicas and
// at most 1,000 req/s, a burst needs 20 pods and more load.
type PerPod struct {
	Predictor
	// MaxReplicas and MaxRequestsPerSecond are the training set's largest
	// replica count and request rate; <= 0: no bound.
	MaxReplicas, MaxRequestsPerSecond float64
}

// NewPerPod wraps m with the bounds of its input scaler (the training set's).
func NewPerPod(m *Model) PerPod {
	p := PerPod{Predictor: m}
	if len(m.InputScaler.Max) == NumInputs {
		p.MaxReplicas, p.MaxRequestsPerSecond = m.InputScaler.Max[2], m.InputScaler.Max[3]
	}
	return p
}

// Predict is the wrapped prediction at the same per-pod load.
func (p PerPod) Predict(in [NumInputs]float64) [NumTargets]float64 {
	n, rps := in[2], in[3]
	if n > 0 {
		scaled := n
		if p.MaxReplicas > 0 && scaled > p.MaxReplicas {
			scaled = p.MaxReplicas
		}
		if p.MaxRequestsPerSecond > 0 && rps*scaled/n > p.MaxRequestsPerSecond {
			scaled = p.MaxRequestsPerSecond * n / rps
		}
		in[2], in[3] = scaled, rps*scaled/n
	}
	return p.Predictor.Predict(in)
}
