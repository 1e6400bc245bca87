package moha

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// Prices price a configuration per hour from its limits: per vCPU-hour of
// CPU limit and per GB-hour of memory limit, a GB being MiBPerGB MiB.
type Prices struct {
	PerCoreHour, PerGBHour, MiBPerGB float64
}

// PaperPrices are the MOHA paper's prices (Google Cloud, europe-west3):
// $0.0573 per vCPU-hour and $0.0063421 per GB-hour, 1 GB taken as 953 MiB
// as the paper does.
var PaperPrices = Prices{PerCoreHour: 0.0573, PerGBHour: 0.0063421, MiBPerGB: 953}

// Hourly is what c costs per hour: every pod pays its limits.
func (p Prices) Hourly(c Configuration) float64 {
	return float64(c.Replicas) * (c.CPULimitMilli/1000*p.PerCoreHour + c.MemoryLimitMiB/p.MiBPerGB*p.PerGBHour)
}

// Controller decides a configuration every Interval from the mean
// measurements since its last decision; at is the decision's time since the
// replay's start.
type Controller interface {
	Interval() time.Duration
	Decide(at time.Duration, cur Configuration, mean Sample) (Configuration, error)
}

// Strategy is the runtime's MultiObjective loop as a replay [Controller]:
// [Round] every Every with the history it carries, as the controller runs
// it (runtime/controller's MultiObjectiveStrategyReconciler; its status is
// the History).
type Strategy struct {
	// P predicts (the controller's is NewPerPod of the model).
	P     Predictor
	Loop  Loop
	Every time.Duration
	// History is what the rounds so far left; its Memory's Capacity
	// (DefaultMemoryCapacity in the runtime; 0: nothing remembered).
	History History
	// Epoch is the wall-clock time of the replay's second 0 (only
	// differences matter; it must not be the zero time).
	Epoch time.Time
	// Rounds counts the rounds by reason.
	Rounds map[StepReason]int
}

// Interval is the strategy's decision interval.
func (s *Strategy) Interval() time.Duration { return s.Every }

// Decide runs one round; an error decides nothing.
func (s *Strategy) Decide(at time.Duration, cur Configuration, m Sample) (Configuration, error) {
	st := State{CPULimitMilli: cur.CPULimitMilli, MemoryLimitMiB: cur.MemoryLimitMiB, Replicas: cur.Replicas, RequestsPerSecond: m.RequestsPerSecond,
		ResponseTimeMs: m.ResponseTimeMs, CPUUsagePercent: m.CPUUsagePercent, MemoryUsagePercent: m.MemoryUsagePercent}
	r, err := Round(s.P, st, s.Loop, s.History, s.Every, s.Epoch.Add(at))
	s.History = r.History
	if err != nil {
		return cur, err
	}
	if s.Rounds == nil {
		s.Rounds = map[StepReason]int{}
	}
	s.Rounds[r.Reason]++
	if !r.Changed() {
		return cur, nil
	}
	return r.Configuration(), nil
}

// Replay is a trace replayed second by second on the workload model with a
// controller deciding the configuration.
type Replay struct {
	// App serves the load ([App.Measure]: workload.ComputeMemory for the
	// configuration in force).
	App   App
	Trace workload.Trace
	// Start is the configuration at second 0.
	Start Configuration
	// StartupDelay is how long a change takes to serve: new pods (or, for a
	// new pod size, the rolled pods) start after it, and until then the old
	// configuration serves. It is paid for from the decision on.
	StartupDelay time.Duration
	Prices       Prices
	// TargetResponseTimeMs counts the seconds over it (ReplayResult.Over).
	TargetResponseTimeMs float64
}

// ReplayResult are a replay's per-second series and its decisions.
type ReplayResult struct {
	// Per second, index = trace second: the offered load (req/s), the
	// configuration serving and the one decided (Pending; the serving one
	// when no change is pending), the measurements and what was paid per
	// hour (the larger of the serving and the pending configuration's cost
	// while a change is pending).
	Load        []float64
	Serving     []Configuration
	Pending     []Configuration
	Measured    []Sample
	CostPerHour []float64
	// Changes are the decisions that changed the configuration.
	Changes []Change
	// TargetResponseTimeMs is the replay's target.
	TargetResponseTimeMs float64
}

// Change is one decision that changed the configuration.
type Change struct {
	// Second is the trace time of the decision; the new configuration
	// serves from Second + the start-up delay.
	Second   int
	From, To Configuration
}

// Run replays r.Trace from second 0 to its end plus one minute: every
// second the configuration in force serves the trace's load; every
// c.Interval() (when no change is pending) c decides from the means since its
// last decision, and a change serves r.StartupDelay later. A controller
// error stops the replay.
func (r Replay) Run(c Controller) (*ReplayResult, error) {
	every := int(c.Interval() / time.Second)
	if every < 1 {
		return nil, fmt.Errorf("replay: interval %v: must be at least 1s", c.Interval())
	}
	if r.StartupDelay < 0 {
		return nil, fmt.Errorf("replay: start-up delay %v: must be >= 0", r.StartupDelay)
	}
	out := &ReplayResult{TargetResponseTimeMs: r.TargetResponseTimeMs}
	cur, pending := r.Start, r.Start
	pendingAt := -1
	var acc Sample
	var accN float64
	delay := int(r.StartupDelay / time.Second)
	for t := 0; t < int(r.Trace.Duration())+60; t++ {
		if pendingAt >= 0 && t >= pendingAt {
			cur, pendingAt = pending, -1
		}
		rps, _ := r.Trace.At(float64(t))
		m := r.App.Measure(cur.CPULimitMilli, cur.MemoryLimitMiB, cur.Replicas, rps)
		paid, p := r.Prices.Hourly(cur), cur
		if pendingAt >= 0 {
			paid, p = max(paid, r.Prices.Hourly(pending)), pending
		}
		out.Load = append(out.Load, rps)
		out.Serving = append(out.Serving, cur)
		out.Pending = append(out.Pending, p)
		out.Measured = append(out.Measured, m)
		out.CostPerHour = append(out.CostPerHour, paid)
		acc.RequestsPerSecond += rps
		acc.ResponseTimeMs += m.ResponseTimeMs
		acc.CPUUsagePercent += m.CPUUsagePercent
		acc.MemoryUsagePercent += m.MemoryUsagePercent
		accN++
		if (t+1)%every == 0 && pendingAt < 0 {
			mean := Sample{RequestsPerSecond: acc.RequestsPerSecond / accN, ResponseTimeMs: acc.ResponseTimeMs / accN,
				CPUUsagePercent: acc.CPUUsagePercent / accN, MemoryUsagePercent: acc.MemoryUsagePercent / accN}
			next, err := c.Decide(time.Duration(t+1)*time.Second, cur, mean)
			if err != nil {
				return nil, fmt.Errorf("replay: decision at second %d: %w", t+1, err)
			}
			if next != cur {
				pending, pendingAt = next, t+1+delay
				out.Changes = append(out.Changes, Change{Second: t + 1, From: cur, To: next})
			}
			acc, accN = Sample{}, 0
		}
	}
	return out, nil
}

// ReplaySummary are a replay's figures: means per second, the response time
// weighted by the offered load.
type ReplaySummary struct {
	Seconds int
	// Replicas, CPULimitMilli and MemoryLimitMiB are the mean serving
	// configuration; CPUUsagePercent and MemoryUsagePercent the mean usages.
	Replicas, CPULimitMilli, MemoryLimitMiB float64
	CPUUsagePercent, MemoryUsagePercent     float64
	// ResponseTimeMs is the mean response time weighted by the offered load;
	// P95ResponseTimeMs the response time 95 % of the offered requests'
	// seconds stay within (the load-weighted 95th percentile of the
	// per-second means).
	ResponseTimeMs, P95ResponseTimeMs float64
	// Over counts the seconds whose mean response time is above the target.
	Over int
	// MaxReplicas is the most replicas decided.
	MaxReplicas int
	// ReplicaChanges and SizeChanges count the decisions that changed the
	// replicas and the pod size (CPU or memory limit); one decision may do
	// both.
	ReplicaChanges, SizeChanges int
	CostPerDay                  float64
}

// Summary computes the replay's figures.
func (r *ReplayResult) Summary() ReplaySummary {
	var s ReplaySummary
	n := float64(len(r.Load))
	s.Seconds = len(r.Load)
	if n == 0 {
		return s
	}
	var offered, cost float64
	type weighted struct{ rt, w float64 }
	rts := make([]weighted, 0, len(r.Load))
	for t, rps := range r.Load {
		c, m := r.Serving[t], r.Measured[t]
		s.Replicas += float64(c.Replicas)
		s.CPULimitMilli += c.CPULimitMilli
		s.MemoryLimitMiB += c.MemoryLimitMiB
		s.CPUUsagePercent += m.CPUUsagePercent
		s.MemoryUsagePercent += m.MemoryUsagePercent
		s.ResponseTimeMs += m.ResponseTimeMs * rps
		offered += rps
		if m.ResponseTimeMs > r.TargetResponseTimeMs {
			s.Over++
		}
		cost += r.CostPerHour[t]
		s.MaxReplicas = max(s.MaxReplicas, c.Replicas, r.Pending[t].Replicas)
		if rps > 0 {
			rts = append(rts, weighted{m.ResponseTimeMs, rps})
		}
	}
	s.Replicas /= n
	s.CPULimitMilli /= n
	s.MemoryLimitMiB /= n
	s.CPUUsagePercent /= n
	s.MemoryUsagePercent /= n
	s.ResponseTimeMs /= offered
	s.CostPerDay = cost / n * 24
	slices.SortFunc(rts, func(a, b weighted) int {
		switch {
		case a.rt < b.rt:
			return -1
		case a.rt > b.rt:
			return 1
		}
		return 0
	})
	s.P95ResponseTimeMs = math.NaN()
	for i, cum := 0, 0.0; i < len(rts); i++ {
		if cum += rts[i].w; cum >= 0.95*offered {
			s.P95ResponseTimeMs = rts[i].rt
			break
		}
	}
	for _, c := range r.Changes {
		if c.From.Replicas != c.To.Replicas {
			s.ReplicaChanges++
		}
		if c.From.CPULimitMilli != c.To.CPULimitMilli || c.From.MemoryLimitMiB != c.To.MemoryLimitMiB {
			s.SizeChanges++
		}
	}
	return s
}

// WriteTimeline writes one CSV row per second: the offered load, the
// serving and the pending configuration, the measured targets and the cost
// per hour paid.
func (r *ReplayResult) WriteTimeline(w io.Writer) error {
	if _, err := fmt.Fprintln(w, "second,requests_per_second,replicas,cpu_limit_millicores,memory_limit_mib,response_time_ms,cpu_usage_percent,memory_usage_percent,pending_replicas,pending_cpu_limit_millicores,pending_memory_limit_mib,cost_per_hour"); err != nil {
		return err
	}
	for t, rps := range r.Load {
		c, m, p := r.Serving[t], r.Measured[t], r.Pending[t]
		if _, err := fmt.Fprintf(w, "%d,%.1f,%d,%.0f,%.0f,%.1f,%.1f,%.1f,%d,%.0f,%.0f,%.4f\n", t, rps, c.Replicas, c.CPULimitMilli, c.MemoryLimitMiB,
			m.ResponseTimeMs, m.CPUUsagePercent, m.MemoryUsagePercent, p.Replicas, p.CPULimitMilli, p.MemoryLimitMiB, r.CostPerHour[t]); err != nil {
			return err
		}
	}
	return nil
}
