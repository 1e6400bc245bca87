package controller

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// BurstSLOAppliedAnnotation, on the primary Deployment, records which output
// of the SLO's BurstElasticityStrategy ("<uid>/<generation>") the total was
// last computed from, written with the total in one patch: each output is
// applied exactly once, also across restarts.
const BurstSLOAppliedAnnotation = "hca.dev/slo-applied"

// burstTotals decides a target Deployment's total replica count (all
// clusters), in place of whoever scales the primary Deployment.
//
// Inputs: the policy (spec.metrics and spec.algorithm, min/max), the SLO's
// BurstElasticityStrategy driving it if any, the target's pods in every
// cluster, a metric source (only its Instant method). Output: a
// burstMetricOutcome for burstDecide. The deciding is internal/scaling's
// algorithms and internal/slo's Horizontal; this type only keeps their
// history, in memory as the HPA does (a restart starts afresh), per
// "namespace/policy/deployment".
type burstTotals struct {
	source   metrics.Source
	interval time.Duration
	// telemetry records how late each scheduled evaluation started (nil: not).
	telemetry *telemetry.Metrics

	mu    sync.Mutex
	algos map[string]*burstAlgoState
	// slo holds the SLO strategy's state (its windows' history) per target.
	slo map[string]*slo.BurstTotal
}

func newBurstTotals(source metrics.Source, interval time.Duration) *burstTotals {
	return &burstTotals{source: source, interval: interval, algos: map[string]*burstAlgoState{}, slo: map[string]*slo.BurstTotal{}}
}

// burstSLOKey identifies one output of a strategy.
func burstSLOKey(s *hcav1.BurstElasticityStrategy) string {
	return fmt.Sprintf("%s/%d", s.UID, s.Generation)
}

// fromSLO applies the output of the SLO's Burst strategy to the total,
// Polaris' horizontal maths: ceil(total x compliance / 100) outside the
// tolerance band, within [minR, maxR] and the SLO's stabilisation windows. An
// output already applied keeps the stored total. It also returns the key to
// record as applied ("" when nothing new is applied).
func (t *burstTotals) fromSLO(key string, s *hcav1.BurstElasticityStrategy, d *appsv1.Deployment, current, minR, maxR int32, now time.Time) (*burstMetricOutcome, string) {
	out := s.Spec.SLOOutput
	applied := burstSLOKey(s)
	if d.Annotations[BurstSLOAppliedAnnotation] == applied {
		return &burstMetricOutcome{source: burstTotalKeep, available: true,
			message: fmt.Sprintf("total driven by SLO %s (compliance %d%%, applied)", s.Name, out.CompliancePercent)}, ""
	}
	up, down := windows(s.Spec.Stabilization)
	cfg := slo.HorizontalConfig{MinReplicas: minR, MaxReplicas: maxR, Tolerance: tolerance(out), ScaleUpWindow: up, ScaleDownWindow: down}
	t.mu.Lock()
	bt := t.slo[key]
	if bt == nil {
		bt = &slo.BurstTotal{}
		t.slo[key] = bt
	}
	t.mu.Unlock()
	dec, err := bt.Apply(now, current, float64(out.CompliancePercent), cfg)
	if err != nil {
		return &burstMetricOutcome{source: burstTotalKeep, message: fmt.Sprintf("burst strategy %s: %v", s.Name, err)}, ""
	}
	reason := fmt.Sprintf("SLO %s compliance %d%%: %s", s.Name, out.CompliancePercent, dec.Reason)
	return &burstMetricOutcome{source: burstTotalFromAlgorithm, total: dec.Desired, reason: reason, available: true, message: reason}, applied
}

// burstAlgoState is the algorithm history of one target: one instance for
// all the policy's metrics, which stabilises the highest metric's
// recommendation once (scaling.Algorithm.DecideMetrics, as autoscaling/v2).
// It lives in memory: after a restart the algorithm starts fresh, as the
// HPA's does.
type burstAlgoState struct {
	// missingAt is the last evaluation with a metric missing.
	missingAt   time.Time
	fingerprint string
	alg         scaling.Algorithm
	last        time.Time
	outcome     burstMetricOutcome
}

// burstMetricOutcome is what the metrics said about a target's total.
type burstMetricOutcome struct {
	source burstTotalSource
	total  int32
	// headroom is how many of total are the algorithm's spare replicas
	// (scaling.Decision.Headroom).
	headroom    int32
	reason      string
	noScaleDown bool
	// available: every metric had data at the last evaluation.
	available bool
	message   string
	// measured: the message's figures are metrics read again every
	// evaluation (fromMetrics), not another controller's output (an SLO's
	// compliance); a status differing from the last one written only in
	// such figures waits for the heartbeat (burstStatusDue).
	measured bool
	// next is when the next evaluation is due.
	next time.Duration
}

// burstFreshWindow is how long after metrics return a scale-down waits: the
// rate window of the CPU queries (metricInput), so that no decision shrinks
// on a rate computed over the first few fresh samples.
const burstFreshWindow = time.Minute

// burstPodNameRE matches the pods of a Deployment's ReplicaSets.
func burstPodNameRE(deployment string) string {
	return regexp.QuoteMeta(deployment) + "-[a-z0-9]+-[a-z0-9]+"
}

// burstMaxNamedPods is the most pods a policy's usage query names one by one
// (burstPodFilter); beyond, it selects them by burstPodNameRE.
const burstMaxNamedPods = 256

// burstPodFilter selects the series of pods for a policy's usage query: by
// their names (an alternation of literals, which Prometheus looks up in its
// index), or, with none or more than burstMaxNamedPods, by the name pattern
// of the Deployment's pods. A pattern makes Prometheus match it against every
// pod name it holds, whatever the namespace: in make bench-load's platform of
// 5,000 pods, 33 ms of Prometheus CPU per query against 0.5 ms by names
// (BenchmarkSLOEvaluatePlatformLab), and 1,000 policies every 15 s asked more
// of it than two cores hold. The loop reads only the listed pods' samples,
// so both select the same figures.
func burstPodFilter(deployment string, pods []corev1.Pod) metrics.LabelFilter {
	if len(pods) == 0 || len(pods) > burstMaxNamedPods {
		return metrics.Re("pod", burstPodNameRE(deployment))
	}
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, regexp.QuoteMeta(p.Name))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return metrics.Re("pod", strings.Join(names, "|"))
}

// fromMetrics runs the policy's algorithm for a target when an evaluation is
// due: every t.interval, or, when the runtime sets none, every
// policy.DecisionInterval of the algorithm (2 s for adaptive and panic, 15 s
// for kubernetes and frss, the intervals the benchmarks measure). Between evaluations the stored total stands. pods are
// the target's scheduled pods in every cluster, current its replica count.
//
// ready gathers, when an evaluation is due, the adaptive algorithm's
// horizons, derived from what the controller measured
// (policy.DeriveHorizons), and its room: the running algorithm takes new
// horizons at an evaluation (scaling.Adaptive.SetHorizons, history kept);
// the horizons used are in the message. A room that could not be read is
// unknown (the algorithm then counts no room) and the message says why.
func (t *burstTotals) fromMetrics(ctx context.Context, key string, p *hcav1.BurstPolicy, d *appsv1.Deployment, pods []corev1.Pod, current int32, ready func() (burstReadiness, error), now time.Time) *burstMetricOutcome {
	minR, maxR := max(p.Spec.MinReplicas, 1), max(p.Spec.MaxReplicas, max(p.Spec.MinReplicas, 1))
	interval := t.interval
	if interval <= 0 {
		interval = policy.DecisionInterval(p.Spec.Algorithm.Name)
	}
	fp := burstHash([]any{p.Spec.Algorithm, p.Spec.Metrics, minR, maxR, p.Spec.Schedules})
	t.mu.Lock()
	st := t.algos[key]
	if st != nil && st.fingerprint == fp && now.Before(st.last.Add(interval)) {
		out := st.outcome
		t.mu.Unlock()
		out.source = burstTotalKeep
		out.next = st.last.Add(interval).Sub(now)
		return &out
	}
	t.mu.Unlock()
	// One target is evaluated by one worker at a time: st is this
	// evaluation's until it ends.
	due := now
	if st != nil && st.fingerprint == fp {
		due = st.last.Add(interval)
		t.telemetry.Late(telemetry.LoopBurst, now.Sub(due))
	}
	rd, roomErr := ready()
	if st == nil || st.fingerprint != fp {
		alg, err := policy.NewAlgorithmForMetricsWith(p.Spec.Algorithm, p.Spec.Metrics, rd.horizons)
		if err != nil {
			return &burstMetricOutcome{source: burstTotalKeep, noScaleDown: true, message: err.Error(), next: interval}
		}
		st = &burstAlgoState{fingerprint: fp, alg: alg}
		t.mu.Lock()
		t.algos[key] = st
		t.mu.Unlock()
		t.warm(ctx, st, p, d, now)
	}
	if a, ok := st.alg.(*scaling.Adaptive); ok {
		if h, n := a.Horizons(); h != rd.horizons.Pods || n != rd.horizons.Nodes {
			if err := a.SetHorizons(rd.horizons.Pods, rd.horizons.Nodes); err != nil {
				return &burstMetricOutcome{source: burstTotalKeep, noScaleDown: true, message: fmt.Sprintf("spec.algorithm.adaptive: %v", err), next: interval}
			}
		}
	}

	req := burstPodRequests(&d.Spec.Template.Spec)
	out := burstMetricOutcome{source: burstTotalFromAlgorithm, available: true, measured: true, next: interval}
	ins := make([]scaling.Input, len(p.Spec.Metrics))
	errs := make([]error, len(p.Spec.Metrics))
	for i, m := range p.Spec.Metrics {
		ins[i], errs[i] = t.metricInput(ctx, d, m, pods, req, current, minR, maxR, now)
		ins[i].IgnoreReadiness = policy.IgnoreReadiness(m)
		ins[i].Room = rd.room
	}
	best, spare, bestReason, disabled, missing := burstDecideMetrics(st.alg, ins, errs)
	fresh := !st.missingAt.IsZero() && now.Sub(st.missingAt) < burstFreshWindow
	switch {
	case len(missing) > 0:
		st.missingAt = now
		out.available = false
		out.noScaleDown = true
		out.message = strings.Join(missing, "; ")
	case fresh:
		// Back after an outage: a rate over the first fresh samples reads
		// low, so the total may rise but not fall until a full window of
		// fresh data exists.
		out.noScaleDown = true
		out.message = fmt.Sprintf("%s; metrics back after an outage at %s: no scale-down before %s (a full %v window of fresh data)",
			bestReason, st.missingAt.UTC().Format(time.RFC3339), st.missingAt.Add(burstFreshWindow).UTC().Format(time.RFC3339), burstFreshWindow)
	case disabled != "":
		out.message, best = disabled, -1
	default:
		out.message = bestReason
	}
	if best < 0 {
		out.source = burstTotalKeep
	} else {
		out.total, out.headroom = best, spare
		out.reason = bestReason
	}
	if burstAdaptive(p) {
		out.message = strings.TrimPrefix(out.message+"; "+rd.horizons.String(), "; ")
	}
	if roomErr != nil {
		out.message += fmt.Sprintf("; room unknown (%v): every added replica may wait for a node", roomErr)
	}
	if disabled == "" {
		burstScheduleFloor(p, &out, current, maxR, rd.horizons, now)
	}
	at := burstEvaluatedAt(due, now, interval)
	out.next = at.Add(interval).Sub(now)
	t.mu.Lock()
	st.last, st.outcome = at, out
	t.mu.Unlock()
	return &out
}

// burstEvaluatedAt is the instant an evaluation made at now stands for, from
// which the next one is due an interval later: the instant it was due, when
// it started less than an interval late, so that a late round (a full
// queue, a slow Prometheus) does not push every later evaluation back and a
// policy keeps one evaluation per interval, as the SLO loop keeps its grid;
// now when it is the first (due is now) or an interval or more late (nothing
// is caught up twice). It is pure.
func burstEvaluatedAt(due, now time.Time, interval time.Duration) time.Time {
	if late := now.Sub(due); late > 0 && late < interval {
		return due
	}
	return now
}

// burstDecideMetrics is one evaluation of a target's algorithm over the
// policy's metrics: ins[i] is metrics[i]'s input, errs[i] why it could not
// be read. The algorithm decides over all of them at once
// (scaling.Algorithm.DecideMetrics: the highest metric's recommendation is
// stabilised and limited once, as kube-controller-manager's
// computeReplicasForMetrics then normalizeDesiredReplicas), a metric that
// could not be read taking part as one without data (upstream's invalid
// metric: skipped, and no scale-down on partial data). best is the
// decided total (-1: none), spare the headroom's replicas within it
// (scaling.Decision.Headroom), disabled the reason when the target was scaled
// to 0 by hand (the HPA's ScalingDisabled), missing what could not be read.
func burstDecideMetrics(alg scaling.Algorithm, ins []scaling.Input, errs []error) (best, spare int32, reason, disabled string, missing []string) {
	use := make([]scaling.Input, 0, len(ins))
	for i, in := range ins {
		if errs[i] == nil {
			if err := scaling.Validate(in); err != nil {
				errs[i] = err
			}
		}
		if errs[i] != nil {
			missing = append(missing, fmt.Sprintf("metrics[%d]: %v", i, errs[i]))
			// No data: no pods, no external total, a valid target.
			in = scaling.Input{Now: in.Now, Current: in.Current, Min: in.Min, Max: in.Max, Target: 1}
		}
		use = append(use, in)
	}
	if len(use) == 0 || len(missing) == len(use) {
		return -1, 0, "", "", missing
	}
	dec := alg.DecideMetrics(use)
	switch {
	case strings.HasPrefix(dec.Reason, "invalid input: "):
		return -1, 0, "", "", append(missing, dec.Reason)
	case dec.ScalingDisabled:
		// The target was scaled to 0 by hand: the HPA's ScalingDisabled,
		// nothing is decided until someone scales it up again.
		return -1, 0, "", fmt.Sprintf("%s: %s", alg.Name(), dec.Reason), missing
	}
	return dec.Desired, dec.Headroom, fmt.Sprintf("%s: %s", alg.Name(), dec.Reason), "", missing
}

// metricInput turns one metric into the algorithm's input: per-pod
// utilisation for Resource metrics (usage from Prometheus over the pods'
// requests), an external total for PromQL metrics.
func (t *burstTotals) metricInput(ctx context.Context, d *appsv1.Deployment, m hcav1.MetricSpec, pods []corev1.Pod, req scaling.PodRequests, current, minR, maxR int32, now time.Time) (scaling.Input, error) {
	in := scaling.Input{Now: now, Current: current, Min: minR, Max: maxR}
	switch m.Type {
	case hcav1.MetricResource:
		if m.Resource == nil {
			return in, errors.New("type Resource needs resource")
		}
		in.Target = float64(m.Resource.TargetAverageUtilization)
		q := metrics.Query{
			Filters:     []metrics.LabelFilter{metrics.Eq("namespace", d.Namespace), burstPodFilter(d.Name, pods), metrics.Ne("container", ""), metrics.Ne("container", "POD")},
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
		vec, err := t.source.Instant(ctx, q, now)
		if err != nil {
			return in, err
		}
		byPod, err := vec.ByLabel("pod")
		if err != nil {
			return in, err
		}
		for _, pod := range pods {
			v, ok := byPod[pod.Name]
			s := scaling.PodSample{Name: pod.Name, Ready: burstPodReady(&pod), Pending: pod.Status.Phase == corev1.PodPending, Missing: !ok, Value: 100 * v / per}
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
		v, err := metrics.Scalar(ctx, t.source, metrics.Raw(m.PromQL.Query), now)
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

// forget drops the history of a policy's targets (key prefix
// "namespace/name/").
func (t *burstTotals) forget(prefix string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.algos {
		if strings.HasPrefix(k, prefix) {
			delete(t.algos, k)
		}
	}
	for k := range t.slo {
		if strings.HasPrefix(k, prefix) {
			delete(t.slo, k)
		}
	}
}

// burstScheduleFloor raises out to the floor of p's spec.schedules in force
// at now (started ahead by the adaptive algorithm's forecast horizon), also
// when no metric decided; a schedule that does not compile is reported in
// the message and ignored.
func burstScheduleFloor(p *hcav1.BurstPolicy, out *burstMetricOutcome, current, maxR int32, h policy.Horizons, now time.Time) {
	sched, err := policy.Schedule(p.Spec.Schedules)
	if err != nil {
		out.message = strings.TrimPrefix(out.message+"; "+err.Error(), "; ")
		return
	}
	f := sched.Floor(now, policy.ScheduleLeadFor(p.Spec.Algorithm, h))
	total, raised, why := scaling.RaiseToFloor(out.total, out.source == burstTotalFromAlgorithm, current, maxR, f)
	if raised {
		out.source, out.total = burstTotalFromAlgorithm, total
		out.reason = strings.TrimPrefix(out.reason+"; "+why, "; ")
		out.message = strings.TrimPrefix(out.message+"; "+why, "; ")
	}
}
