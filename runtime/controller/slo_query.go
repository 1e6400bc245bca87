package controller

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/slo"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// SLOQueries says how the SLO controller selects a workload's series. The zero
// value takes the defaults below, which match the lab's exporter (loadsim): it
// labels every series with namespace and app (the workload's name) and mirrors
// cAdvisor's container_cpu_usage_seconds_total.
type SLOQueries struct {
	// Window is the rate window of every query (default 1m). One window for all
	// SLOs keeps their queries mergeable into one batch.
	Window time.Duration
	// WorkloadLabel is the label carrying the target's name (default "app").
	WorkloadLabel string
	// CPUUsageMetric is the CPU-seconds counter (default
	// container_cpu_usage_seconds_total).
	CPUUsageMetric string
	// CPURequestMetric is a gauge of each pod's CPU request in cores (default
	// loadsim_cpu_request_cores).
	CPURequestMetric string
	// CPURequestFilters are added to CPURequestMetric's selection (e.g.
	// resource="cpu" for kube-state-metrics' kube_pod_container_resource_requests).
	CPURequestFilters []metrics.LabelFilter
}

// Defaults of SLOQueries.
const (
	DefaultSLOWindow        = time.Minute
	DefaultWorkloadLabel    = "app"
	DefaultCPUUsageMetric   = "container_cpu_usage_seconds_total"
	DefaultCPURequestMetric = "loadsim_cpu_request_cores"
	defaultHistogramMetric  = "http_request_duration_seconds"
	defaultRequestsMetric   = "http_requests_total"
	defaultErrorCodes       = "5.."
)

func (q SLOQueries) withDefaults() SLOQueries {
	if q.Window <= 0 {
		q.Window = DefaultSLOWindow
	}
	if q.WorkloadLabel == "" {
		q.WorkloadLabel = DefaultWorkloadLabel
	}
	if q.CPUUsageMetric == "" {
		q.CPUUsageMetric = DefaultCPUUsageMetric
	}
	if q.CPURequestMetric == "" {
		q.CPURequestMetric = DefaultCPURequestMetric
	}
	return q
}

// sloPlan is what one SLO evaluation needs: the objective for slo.Evaluate and
// the expressions to read (one, or two for request-based types).
type sloPlan struct {
	typ       hcav1.SLOType
	objective slo.Objective
	// exprs: the value (cpu, latency, custom); errors and all requests
	// (availability); fast and all requests (cost-efficiency).
	exprs []metrics.Expr
}

// errSpec marks an SLO spec that cannot be turned into queries.
var errSpec = errors.New("invalid SLO spec")

// planSLO builds the objective and the metric queries of s. It is pure.
func planSLO(s *hcav1.ServiceLevelObjective, qc SLOQueries) (sloPlan, error) {
	qc = qc.withDefaults()
	sel := []metrics.LabelFilter{metrics.Eq("namespace", s.Namespace), metrics.Eq(qc.WorkloadLabel, string(s.Spec.Target.Name))}
	spec := s.Spec.SLO
	p := sloPlan{typ: spec.Type}
	switch spec.Type {
	case hcav1.SLOCPUUtilization:
		if spec.CPUUtilization == nil {
			return p, fmt.Errorf("%w: spec.slo.cpuUtilization is required for type cpu-utilization", errSpec)
		}
		p.objective = slo.Objective{Kind: slo.KindCPUUtilization, TargetUtilizationPercent: float64(spec.CPUUtilization.TargetAverageUtilization)}
		usage := metrics.Query{Metric: qc.CPUUsageMetric, Filters: sel, Range: qc.Window, Func: metrics.Rate, Aggregation: metrics.Sum}
		reqFilters := append(append([]metrics.LabelFilter{}, sel...), qc.CPURequestFilters...)
		req := metrics.Query{Metric: qc.CPURequestMetric, Filters: reqFilters, Aggregation: metrics.Sum}
		p.exprs = []metrics.Expr{metrics.Mul(metrics.Ratio(usage, req), metrics.Number(100))}
	case hcav1.SLOLatency:
		l := spec.Latency
		if l == nil {
			return p, fmt.Errorf("%w: spec.slo.latency is required for type latency", errSpec)
		}
		pct := l.Percentile.AsApproximateFloat64()
		p.objective = slo.Objective{Kind: slo.KindLatency, Percentile: pct, ThresholdSeconds: l.Threshold.Seconds()}
		h := metrics.Histogram{Metric: orDefault(l.HistogramMetric, defaultHistogramMetric), Filters: sel, Range: qc.Window}
		// Rounded to 9 digits: 99.9 / 100 is 0.9990000000000001 in float64.
		p.exprs = []metrics.Expr{h.Quantile(math.Round(pct*1e7) / 1e9)}
	case hcav1.SLOAvailability:
		a := spec.Availability
		if a == nil {
			return p, fmt.Errorf("%w: spec.slo.availability is required for type availability", errSpec)
		}
		p.objective = slo.Objective{Kind: slo.KindAvailability, TargetAvailabilityPercent: a.TargetPercent.AsApproximateFloat64()}
		m := orDefault(a.RequestsMetric, defaultRequestsMetric)
		errFilters := append(append([]metrics.LabelFilter{}, sel...), metrics.Re("code", orDefault(a.ErrorCodes, defaultErrorCodes)))
		p.exprs = []metrics.Expr{
			metrics.Query{Metric: m, Filters: errFilters, Range: qc.Window, Func: metrics.Rate, Aggregation: metrics.Sum},
			metrics.Query{Metric: m, Filters: sel, Range: qc.Window, Func: metrics.Rate, Aggregation: metrics.Sum},
		}
	case hcav1.SLOCostEfficiency:
		c := spec.CostEfficiency
		if c == nil {
			return p, fmt.Errorf("%w: spec.slo.costEfficiency is required for type cost-efficiency", errSpec)
		}
		p.objective = slo.Objective{Kind: slo.KindCostEfficiency, TargetCostEfficiency: c.TargetCostEfficiency.AsApproximateFloat64()}
		if c.MinRequestsPercentile != nil {
			p.objective.MinFastPercent = float64(*c.MinRequestsPercentile)
		}
		h := metrics.Histogram{Metric: orDefault(c.HistogramMetric, defaultHistogramMetric), Filters: sel, Range: qc.Window}
		fast, err := h.FastRequests(c.ResponseTimeThreshold.Seconds())
		if err != nil {
			return p, fmt.Errorf("%w: spec.slo.costEfficiency.responseTimeThreshold: %w", errSpec, err)
		}
		p.exprs = []metrics.Expr{fast, h.Requests()}
	case hcav1.SLOCustom:
		c := spec.Custom
		if c == nil {
			return p, fmt.Errorf("%w: spec.slo.custom is required for type custom", errSpec)
		}
		dir := slo.LowerIsBetter
		if c.Direction == hcav1.DirectionAbove {
			dir = slo.HigherIsBetter
		}
		p.objective = slo.Objective{Kind: slo.KindCustom, Target: c.TargetValue.AsApproximateFloat64(), Direction: dir}
		p.exprs = []metrics.Expr{metrics.Raw(c.Query)}
	default:
		return p, fmt.Errorf("%w: spec.slo.type %q is unknown: use cpu-utilization, latency, cost-efficiency, availability or custom", errSpec, spec.Type)
	}
	if err := p.objective.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// measure turns the plan's query results (one per expression, in order) into a
// measurement. costPerHour is used by cost-efficiency only. An error means no
// usable data (hold).
func measure(p sloPlan, res []metrics.Result, costPerHour float64) (slo.Measurement, error) {
	value := func(i int) (float64, error) {
		if res[i].Err != nil {
			return 0, res[i].Err
		}
		v, err := res[i].Vector.Value()
		if err != nil {
			return 0, fmt.Errorf("query %d of the %s SLO: %w", i, p.typ, err)
		}
		return v, nil
	}
	m := slo.Measurement{Observed: true}
	switch p.typ {
	case hcav1.SLOAvailability:
		total, err := value(1)
		if err != nil {
			return slo.Measurement{}, err
		}
		errs, err := value(0)
		// No series with an error code at all is zero errors, not missing data:
		// the request counter answered.
		if err != nil && !errors.Is(err, metrics.ErrNoData) {
			return slo.Measurement{}, err
		}
		m.RequestsPerSecond, m.ErrorsPerSecond = total, errs
	case hcav1.SLOCostEfficiency:
		total, err := value(1)
		if err != nil {
			return slo.Measurement{}, err
		}
		fast, err := value(0)
		if err != nil {
			return slo.Measurement{}, err
		}
		m.RequestsPerSecond, m.FastRequestsPerSecond, m.CostPerHour = total, fast, costPerHour
	default:
		v, err := value(0)
		if err != nil {
			return slo.Measurement{}, err
		}
		m.Value = v
	}
	return m, nil
}

// formatValue renders an SLO value with its unit for status.currentValue.
func formatValue(typ hcav1.SLOType, r slo.Result) string {
	switch typ {
	case hcav1.SLOLatency:
		d := time.Duration(r.Value * float64(time.Second))
		if d < 10*time.Second {
			return strconv.FormatFloat(r.Value*1000, 'f', 1, 64) + "ms"
		}
		return d.Round(time.Millisecond).String()
	case hcav1.SLOCPUUtilization:
		return strconv.FormatFloat(r.Value, 'f', 1, 64) + "%"
	case hcav1.SLOAvailability:
		return strconv.FormatFloat(r.Value, 'f', 3, 64) + "%"
	case hcav1.SLOCostEfficiency:
		if r.Value >= math.MaxFloat64 {
			return fmt.Sprintf("inf (fast %.1f%%)", r.FastPercent)
		}
		return fmt.Sprintf("%.4g/h (fast %.1f%%)", r.Value, r.FastPercent)
	default:
		return strconv.FormatFloat(r.Value, 'g', 6, 64)
	}
}

// compliancePercent rounds a compliance to the int32 the API carries.
func compliancePercent(c float64) int32 {
	switch {
	case !(c > 0): // 0, negative or NaN
		return 0
	case c >= math.MaxInt32:
		return math.MaxInt32
	}
	return int32(math.Round(c))
}

// Condition reasons of a ServiceLevelObjective.
const (
	ReasonEvaluated          = "Evaluated"
	ReasonMetricsUnavailable = "MetricsUnavailable"
	ReasonNoData             = "NoData"
	ReasonNoTraffic          = "NoTraffic"
	ReasonNaN                = "NaN"
	ReasonBadQuery           = "BadQuery"
	ReasonInvalidObjective   = "InvalidObjective"
	ReasonEvaluationPanicked = "EvaluationPanicked"
	ReasonEvaluationFailed   = "EvaluationFailed"
	ReasonNoMetricSource     = "NoMetricSource"
)

// errNoSource: hca-runtime was started without a metric source.
var errNoSource = errors.New("no metric source is configured: start hca-runtime with --prometheus-url")

// errPanic marks an evaluation that panicked.
var errPanic = errors.New("evaluation panicked")

// failureReason classifies an evaluation error for conditions and hca_errors_total.
func failureReason(err error) string {
	switch {
	case errors.Is(err, errNoSource):
		return ReasonNoMetricSource
	case errors.Is(err, errPanic):
		return ReasonEvaluationPanicked
	case errors.Is(err, metrics.ErrUnavailable):
		return ReasonMetricsUnavailable
	case errors.Is(err, metrics.ErrBadQuery):
		return ReasonBadQuery
	case errors.Is(err, metrics.ErrNaN):
		return ReasonNaN
	case errors.Is(err, slo.ErrNoTraffic):
		return ReasonNoTraffic
	case errors.Is(err, metrics.ErrNoData), errors.Is(err, slo.ErrNoData):
		return ReasonNoData
	case errors.Is(err, slo.ErrInvalidObjective), errors.Is(err, errSpec), errors.Is(err, metrics.ErrBadInput):
		return ReasonInvalidObjective
	}
	return ReasonEvaluationFailed
}
