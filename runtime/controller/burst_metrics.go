package controller

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
)

// BurstSLOAppliedAnnotation, on the primary Deployment, records which SLO
// output (a hash of the policy's SLOOutputAnnotation) the total was last
// computed from, written with the total in one patch: each output is applied
// exactly once, also across restarts.
const BurstSLOAppliedAnnotation = "hca.dev/slo-applied"

// sloOutcome applies the output of an SLO whose Burst strategy drives the
// policy (SLOOutputAnnotation) to the total, Polaris' horizontal maths:
// ceil(total x compliance / 100) outside the tolerance band, within
// [minReplicas, maxReplicas]. An output already applied keeps the stored
// total. It returns nil when the policy carries no SLO output.
func (r *BurstReconciler) sloOutcome(p *hcav1.BurstPolicy, d *appsv1.Deployment, current, minR, maxR int32, now time.Time) (*burstMetricOutcome, string) {
	raw, ok := p.Annotations[SLOOutputAnnotation]
	if !ok {
		return nil, ""
	}
	v, err := ParseSLOOutput(p)
	if err != nil {
		return &burstMetricOutcome{source: burstTotalKeep, message: err.Error()}, ""
	}
	key := burstHash(raw)
	if d.Annotations[BurstSLOAppliedAnnotation] == key {
		return &burstMetricOutcome{source: burstTotalKeep, available: true,
			message: fmt.Sprintf("total driven by SLO %s (compliance %d%%, applied)", v.SLO, v.CompliancePercent)}, ""
	}
	tol := slo.DefaultTolerance
	if v.Tolerance != "" {
		q, err := resource.ParseQuantity(v.Tolerance)
		if err != nil {
			return &burstMetricOutcome{source: burstTotalKeep, message: fmt.Sprintf("annotation %s: tolerance %q is not a number", SLOOutputAnnotation, v.Tolerance)}, ""
		}
		tol = q.AsApproximateFloat64()
	}
	cfg := slo.HorizontalConfig{MinReplicas: minR, MaxReplicas: maxR, Tolerance: tol}
	for _, w := range []struct {
		name, v string
		dst     *time.Duration
	}{{"scaleUpWindow", v.ScaleUpWindow, &cfg.ScaleUpWindow}, {"scaleDownWindow", v.ScaleDownWindow, &cfg.ScaleDownWindow}} {
		if w.v == "" {
			continue
		}
		d, err := time.ParseDuration(w.v)
		if err != nil || d < 0 {
			return &burstMetricOutcome{source: burstTotalKeep, message: fmt.Sprintf("annotation %s: %s %q is not a duration", SLOOutputAnnotation, w.name, w.v)}, ""
		}
		*w.dst = d
	}
	histKey := p.Namespace + "/" + p.Name + "/" + d.Name // as algos' keys, which forget drops
	r.mu.Lock()
	history := r.sloHistory[histKey]
	r.mu.Unlock()
	dec, err := slo.Horizontal(now, current, float64(v.CompliancePercent), cfg, history)
	if err != nil {
		return &burstMetricOutcome{source: burstTotalKeep, message: fmt.Sprintf("annotation %s: %v", SLOOutputAnnotation, err)}, ""
	}
	r.mu.Lock()
	r.sloHistory[histKey] = dec.History
	r.mu.Unlock()
	reason := fmt.Sprintf("SLO %s compliance %d%%: %s", v.SLO, v.CompliancePercent, dec.Reason)
	return &burstMetricOutcome{source: burstTotalFromAlgorithm, total: dec.Desired, reason: reason, available: true, message: reason}, key
}

// burstAlgoState is the algorithm history of one target (one instance per
// metric; the largest proposal wins, as in autoscaling/v2). It lives in memory:
// after a restart the algorithms start fresh, as the HPA's do.
type burstAlgoState struct {
	fingerprint string
	algs        []scaling.Algorithm
	last        time.Time
	outcome     burstMetricOutcome
}

// burstMetricOutcome is what the metrics said about a target's total.
type burstMetricOutcome struct {
	source      burstTotalSource
	total       int32
	reason      string
	noScaleDown bool
	// available: every metric had data at the last evaluation.
	available bool
	message   string
	// next is when the next evaluation is due.
	next time.Duration
}

// burstPodNameRE matches the pods of a Deployment's ReplicaSets.
func burstPodNameRE(deployment string) string {
	return regexp.QuoteMeta(deployment) + "-[a-z0-9]+-[a-z0-9]+"
}

// evaluateMetrics runs the policy's algorithm for a target when an evaluation
// is due (every MetricsInterval). Between evaluations the stored total stands.
func (r *BurstReconciler) evaluateMetrics(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, primaryPods []corev1.Pod, views []*burstView, primarySpec, burstNow int32, now time.Time) *burstMetricOutcome {
	key := p.Namespace + "/" + p.Name + "/" + d.Name
	minR, maxR := max(p.Spec.MinReplicas, 1), max(p.Spec.MaxReplicas, max(p.Spec.MinReplicas, 1))
	fp := burstHash([]any{p.Spec.Algorithm, p.Spec.Metrics, minR, maxR})
	r.mu.Lock()
	st := r.algos[key]
	if st != nil && st.fingerprint == fp && now.Before(st.last.Add(r.opts.MetricsInterval)) {
		out := st.outcome
		r.mu.Unlock()
		out.source = burstTotalKeep
		out.next = st.last.Add(r.opts.MetricsInterval).Sub(now)
		return &out
	}
	if st == nil || st.fingerprint != fp {
		st = &burstAlgoState{fingerprint: fp}
		for _, m := range p.Spec.Metrics {
			alg, err := policy.NewAlgorithm(p.Spec.Algorithm, m.Type == hcav1.MetricResource)
			if err != nil {
				r.mu.Unlock()
				return &burstMetricOutcome{source: burstTotalKeep, noScaleDown: true, message: err.Error(), next: r.opts.MetricsInterval}
			}
			st.algs = append(st.algs, alg)
		}
		r.algos[key] = st
	}
	r.mu.Unlock()

	current := primarySpec + burstNow
	var pods []corev1.Pod
	for _, pod := range primaryPods {
		if pod.Spec.NodeName != "" {
			pods = append(pods, pod)
		}
	}
	for _, v := range views {
		for _, pod := range v.pods {
			if pod.Labels[BurstOfLabel] == burstOf(d.Namespace, d.Name) && burstPodActive(&pod) {
				pods = append(pods, pod)
			}
		}
	}
	req := burstPodRequests(&d.Spec.Template.Spec)
	out := burstMetricOutcome{source: burstTotalFromAlgorithm, available: true, next: r.opts.MetricsInterval}
	var best int32 = -1
	var bestReason string
	var missing []string
	for i, m := range p.Spec.Metrics {
		in, err := r.metricInput(ctx, d, m, pods, req, current, minR, maxR, now)
		if err != nil {
			missing = append(missing, fmt.Sprintf("metrics[%d]: %v", i, err))
			continue
		}
		dec := st.algs[i].Decide(in)
		if strings.HasPrefix(dec.Reason, "invalid input: ") {
			missing = append(missing, fmt.Sprintf("metrics[%d]: %s", i, dec.Reason))
			continue
		}
		if dec.Desired > best {
			best, bestReason = dec.Desired, fmt.Sprintf("%s: metrics[%d] %s", st.algs[i].Name(), i, dec.Reason)
		}
	}
	if len(missing) > 0 {
		out.available = false
		out.noScaleDown = true
		out.message = strings.Join(missing, "; ")
	} else {
		out.message = bestReason
	}
	if best < 0 {
		out.source = burstTotalKeep
	} else {
		out.total = best
		out.reason = bestReason
	}
	r.mu.Lock()
	st.last, st.outcome = now, out
	r.mu.Unlock()
	return &out
}

// metricInput turns one metric into the algorithm's input: per-pod
// utilisation for Resource metrics (usage from Prometheus over the pods'
// requests), an external total for PromQL metrics.
func (r *BurstReconciler) metricInput(ctx context.Context, d *appsv1.Deployment, m hcav1.MetricSpec, pods []corev1.Pod, req scaling.PodRequests, current, minR, maxR int32, now time.Time) (scaling.Input, error) {
	in := scaling.Input{Now: now, Current: current, Min: minR, Max: maxR}
	switch m.Type {
	case hcav1.MetricResource:
		if m.Resource == nil {
			return in, errors.New("type Resource needs resource")
		}
		in.Target = float64(m.Resource.TargetAverageUtilization)
		q := metrics.Query{
			Filters:     []metrics.LabelFilter{metrics.Eq("namespace", d.Namespace), metrics.Re("pod", burstPodNameRE(d.Name)), metrics.Ne("container", ""), metrics.Ne("container", "POD")},
			Aggregation: metrics.Sum, By: []string{"pod"},
		}
		var per float64
		switch m.Resource.Name {
		case hcav1.ResourceCPU:
			if req.CPUMilli <= 0 {
				return in, fmt.Errorf("deployment %s requests no CPU: set resources.requests.cpu or use a PromQL metric", d.Name)
			}
			q.Metric, q.Func, q.Range = "container_cpu_usage_seconds_total", metrics.Rate, time.Minute
			per = float64(req.CPUMilli) / 1000
		case hcav1.ResourceMemory:
			if req.MemoryBytes <= 0 {
				return in, fmt.Errorf("deployment %s requests no memory: set resources.requests.memory or use a PromQL metric", d.Name)
			}
			q.Metric = "container_memory_working_set_bytes"
			per = float64(req.MemoryBytes)
		default:
			return in, fmt.Errorf("resource %q is not supported: use cpu or memory", m.Resource.Name)
		}
		vec, err := r.opts.Metrics.Instant(ctx, q, now)
		if err != nil {
			return in, err
		}
		byPod, err := vec.ByLabel("pod")
		if err != nil {
			return in, err
		}
		for _, pod := range pods {
			v, ok := byPod[pod.Name]
			s := scaling.PodSample{Name: pod.Name, Ready: burstPodReady(&pod), Missing: !ok, Value: 100 * v / per}
			if pod.Status.StartTime != nil {
				s.StartedAt = pod.Status.StartTime.Time
			}
			in.Pods = append(in.Pods, s)
		}
		return in, nil
	case hcav1.MetricPromQL:
		if m.PromQL == nil {
			return in, errors.New("type PromQL needs promql")
		}
		in.Target = m.PromQL.TargetValue.AsApproximateFloat64()
		v, err := metrics.Scalar(ctx, r.opts.Metrics, metrics.Raw(m.PromQL.Query), now)
		if err != nil {
			return in, err
		}
		ext := v
		if m.PromQL.TargetType == hcav1.PromQLValue {
			// The value is per replica already: the total is value x replicas.
			ext = v * float64(max(current, 1))
		}
		in.External = &ext
		return in, nil
	default:
		return in, fmt.Errorf("metric type %q is unknown: use Resource or PromQL", m.Type)
	}
}
