package simulate

import (
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// FloorName labels the reactive floor's run.
const FloorName = "reactive floor"

// ReactiveFloor runs the ideal reactive scaler on trace tr: every control
// interval ctrl it decides exactly the demand of the load in the latest
// scrape it can see (clamped to the policy's [Min, Max]), scaling up and down
// at once, with no tolerance, window or rate limit. It knows the demand but
// acts only after the metric delay (the scrape interval and the model's
// staleness), the control interval and the pods' start-up (and a burst
// cluster's provisioning, or the boot of its node groups' nodes), like every
// reactive algorithm: its SLA violations
// and cost are the limit those algorithms are measured against. p must be a
// burst policy (no SLO).
func ReactiveFloor(p Policy, m ClusterModel, tr workload.Trace, ctrl time.Duration) (*Result, error) {
	if p.SLO != nil {
		return nil, inputErr("reactive floor: policy %q is a ServiceLevelObjective: the floor is computed for a BurstPolicy's demand", p.SLO.Name)
	}
	if ctrl < time.Second || ctrl%time.Second != 0 {
		return nil, inputErr("reactive floor: control interval %v: use whole seconds, at least 1s", ctrl)
	}
	p.floor = ctrl
	p.Algorithm = FloorName
	r, err := Run(p, m, tr)
	if err != nil {
		return nil, err
	}
	r.Name = FloorName
	return r, nil
}

// traceOf rebuilds the trace a run replayed from its per-second load (the
// trace replays with step interpolation, so the seconds' loads are the
// trace at every whole second).
func traceOf(r *Result) workload.Trace {
	tr := make(workload.Trace, 0, len(r.Series.Load))
	for t, l := range r.Series.Load {
		if t > 0 && l == r.Series.Load[t-1] && t < len(r.Series.Load)-1 {
			continue
		}
		tr = append(tr, workload.TracePoint{Seconds: float64(t), RPS: l})
	}
	return tr
}

// withFloor returns results and, when they are burst-policy runs on one
// trace, the reactive floor of the first one's policy and model at the
// shortest of their control intervals, appended.
func withFloor(results []*Result) ([]*Result, error) {
	if len(results) == 0 {
		return results, nil
	}
	base := results[0]
	ctrl := time.Duration(0)
	for _, r := range results {
		if r.Policy.floor > 0 {
			return results, nil
		}
		if r.Policy.SLO != nil {
			continue
		}
		if ctrl == 0 || r.ControlInterval < ctrl {
			ctrl = r.ControlInterval
		}
	}
	if base.Policy.SLO != nil || ctrl == 0 {
		return results, nil
	}
	f, err := ReactiveFloor(base.Policy, base.Model, traceOf(base), ctrl)
	if err != nil {
		return nil, err
	}
	return append(append([]*Result(nil), results...), f), nil
}
