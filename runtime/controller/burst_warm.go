package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// burstHistory is what warming the adaptive forecast needs of a metric
// source: one series over a past range, bounded in points (Prometheus'
// query_range). *metrics.Prometheus implements it; a source without it
// leaves the forecast cold.
type burstHistory interface {
	Range(ctx context.Context, q metrics.Expr, start, end time.Time, step time.Duration) (metrics.Series, error)
}

// burstWarmable is an algorithm whose history can be filled from the past
// (the adaptive algorithm).
type burstWarmable interface {
	HistoryWindow() (window, step time.Duration)
	WarmMetric(i, n int, ts []time.Time, vs []float64, now time.Time) error
}

var (
	_ burstHistory  = (*metrics.Prometheus)(nil)
	_ burstWarmable = (*scaling.Adaptive)(nil)
)

// burstHistoryQuery is the expression whose past values are the adaptive
// algorithm's load total for metric m of d, and the factor to apply to
// them: for Resource metrics the pods' summed usage in percent of one pod's
// request (the sum of the per-pod utilisations the algorithm adds up), for
// PromQL AverageValue metrics the query itself. ok is false where the past
// total is not known (PromQL Value metrics, which multiply by the replica
// count of the moment, or a request of 0).
func burstHistoryQuery(d *appsv1.Deployment, m hcav1.MetricSpec, req scaling.PodRequests) (q metrics.Expr, factor float64, ok bool) {
	switch m.Type {
	case hcav1.MetricResource:
		if m.Resource == nil {
			return nil, 0, false
		}
		sel := metrics.Query{
			Filters:     []metrics.LabelFilter{metrics.Eq("namespace", d.Namespace), metrics.Re("pod", burstPodNameRE(d.Name)), metrics.Ne("container", ""), metrics.Ne("container", "POD")},
			Aggregation: metrics.Sum,
		}
		switch m.Resource.Name {
		case hcav1.ResourceCPU:
			if req.CPUMilli <= 0 {
				return nil, 0, false
			}
			sel.Metric, sel.Func, sel.Range = "container_cpu_usage_seconds_total", metrics.Rate, time.Minute
			return sel, 100 / (float64(req.CPUMilli) / 1000), true
		case hcav1.ResourceMemory:
			if req.MemoryBytes <= 0 {
				return nil, 0, false
			}
			sel.Metric = "container_memory_working_set_bytes"
			return sel, 100 / float64(req.MemoryBytes), true
		}
	case hcav1.MetricPromQL:
		if m.PromQL == nil || m.PromQL.TargetType == hcav1.PromQLValue {
			return nil, 0, false
		}
		return metrics.Raw(m.PromQL.Query), 1, true
	}
	return nil, 0, false
}

// warm fills, once per new algorithm state, a warmable algorithm's history
// of each metric from the source's past values of that metric, so that a
// restarted runtime forecasts (seasonally, too) at once instead of after a
// period of uptime. It returns how many metrics it warmed. Failures leave
// that metric's history cold and are logged; they never block a decision.
func (t *burstTotals) warm(ctx context.Context, st *burstAlgoState, p *hcav1.BurstPolicy, d *appsv1.Deployment, now time.Time) int {
	h, ok := t.source.(burstHistory)
	if !ok {
		return 0
	}
	w, ok := st.alg.(burstWarmable)
	if !ok {
		return 0
	}
	warmed := 0
	req := burstPodRequests(&d.Spec.Template.Spec)
	for i, m := range p.Spec.Metrics {
		q, factor, ok := burstHistoryQuery(d, m, req)
		if !ok {
			continue
		}
		window, step := w.HistoryWindow()
		s, err := h.Range(ctx, q, now.Add(-window), now, step)
		if err == nil {
			for j := range s.Values {
				s.Values[j] *= factor
			}
			err = w.WarmMetric(i, len(p.Spec.Metrics), s.Times, s.Values, now)
		}
		if err != nil {
			log.FromContext(ctx).Info("adaptive forecast starts cold: no history", "policy", p.Namespace+"/"+p.Name, "deployment", d.Name,
				"metric", fmt.Sprintf("metrics[%d]", i), "error", err.Error())
			continue
		}
		warmed++
	}
	return warmed
}
