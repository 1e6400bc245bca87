package controller

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
)

func testSLO(spec hcav1.SLOSpec) *hcav1.ServiceLevelObjective {
	return &hcav1.ServiceLevelObjective{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-latency", UID: types.UID("uid-1"), Generation: 3},
		Spec:       hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"}, SLO: spec},
	}
}

func TestPlanSLOQueries(t *testing.T) {
	minFast := int32(95)
	dur := func(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
	tests := []struct {
		name      string
		spec      hcav1.SLOSpec
		queries   SLOQueries
		want      []string
		objective slo.Objective
	}{
		{"cpu-utilization: usage over requests, in percent",
			hcav1.SLOSpec{Type: hcav1.SLOCPUUtilization, CPUUtilization: &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 70}},
			SLOQueries{Window: 10 * time.Second},
			[]string{`(sum(rate(container_cpu_usage_seconds_total{namespace="shop", app="web"}[10s])) / on () sum(loadsim_cpu_request_cores{namespace="shop", app="web"})) * 100`},
			slo.Objective{Kind: slo.KindCPUUtilization, TargetUtilizationPercent: 70}},
		{"cpu-utilization with kube-state-metrics requests and another workload label",
			hcav1.SLOSpec{Type: hcav1.SLOCPUUtilization, CPUUtilization: &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 50}},
			SLOQueries{WorkloadLabel: "workload", CPURequestMetric: "kube_pod_container_resource_requests", CPURequestFilters: []metrics.LabelFilter{metrics.Eq("resource", "cpu")}},
			[]string{`(sum(rate(container_cpu_usage_seconds_total{namespace="shop", workload="web"}[1m])) / on () sum(kube_pod_container_resource_requests{namespace="shop", workload="web", resource="cpu"})) * 100`},
			slo.Objective{Kind: slo.KindCPUUtilization, TargetUtilizationPercent: 50}},
		{"latency: histogram_quantile of the percentile",
			hcav1.SLOSpec{Type: hcav1.SLOLatency, Latency: &hcav1.LatencySLO{Percentile: resource.MustParse("90"), Threshold: dur(100 * time.Millisecond)}},
			SLOQueries{Window: 10 * time.Second},
			[]string{`histogram_quantile(0.9, sum by (le) (rate(http_request_duration_seconds_bucket{namespace="shop", app="web"}[10s])))`},
			slo.Objective{Kind: slo.KindLatency, Percentile: 90, ThresholdSeconds: 0.1}},
		{"latency p99.9 on a custom histogram",
			hcav1.SLOSpec{Type: hcav1.SLOLatency, Latency: &hcav1.LatencySLO{Percentile: resource.MustParse("99.9"), Threshold: dur(2 * time.Second), HistogramMetric: "rpc_seconds"}},
			SLOQueries{},
			[]string{`histogram_quantile(0.999, sum by (le) (rate(rpc_seconds_bucket{namespace="shop", app="web"}[1m])))`},
			slo.Objective{Kind: slo.KindLatency, Percentile: 99.9, ThresholdSeconds: 2}},
		{"availability: error rate and request rate",
			hcav1.SLOSpec{Type: hcav1.SLOAvailability, Availability: &hcav1.AvailabilitySLO{TargetPercent: resource.MustParse("99.9")}},
			SLOQueries{Window: 30 * time.Second},
			[]string{`sum(rate(http_requests_total{namespace="shop", app="web", code=~"5.."}[30s]))`, `sum(rate(http_requests_total{namespace="shop", app="web"}[30s]))`},
			slo.Objective{Kind: slo.KindAvailability, TargetAvailabilityPercent: 99.9}},
		{"cost-efficiency: fast bucket and request count",
			hcav1.SLOSpec{Type: hcav1.SLOCostEfficiency, CostEfficiency: &hcav1.CostEfficiencySLO{ResponseTimeThreshold: dur(250 * time.Millisecond), TargetCostEfficiency: resource.MustParse("100"), MinRequestsPercentile: &minFast}},
			SLOQueries{Window: 10 * time.Second},
			[]string{`sum(rate(http_request_duration_seconds_bucket{namespace="shop", app="web", le="0.25"}[10s]))`, `sum(rate(http_request_duration_seconds_count{namespace="shop", app="web"}[10s]))`},
			slo.Objective{Kind: slo.KindCostEfficiency, TargetCostEfficiency: 100, MinFastPercent: 95}},
		{"custom: verbatim PromQL, above",
			hcav1.SLOSpec{Type: hcav1.SLOCustom, Custom: &hcav1.CustomSLO{Query: `sum(rate(orders_total[5m]))`, TargetValue: resource.MustParse("250m"), Direction: hcav1.DirectionAbove}},
			SLOQueries{},
			[]string{`sum(rate(orders_total[5m]))`},
			slo.Objective{Kind: slo.KindCustom, Target: 0.25, Direction: slo.HigherIsBetter}},
		{"custom: direction unset is below",
			hcav1.SLOSpec{Type: hcav1.SLOCustom, Custom: &hcav1.CustomSLO{Query: `vector(1)`, TargetValue: resource.MustParse("2")}},
			SLOQueries{},
			[]string{`vector(1)`},
			slo.Objective{Kind: slo.KindCustom, Target: 2, Direction: slo.LowerIsBetter}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := planSLO(testSLO(tt.spec), tt.queries)
			if err != nil {
				t.Fatalf("planSLO: %v", err)
			}
			var got []string
			for _, e := range p.exprs {
				q, err := e.PromQL()
				if err != nil {
					t.Fatalf("render: %v", err)
				}
				got = append(got, q)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("queries:\n got %q\nwant %q", got, tt.want)
			}
			if p.objective != tt.objective {
				t.Errorf("objective = %+v, want %+v", p.objective, tt.objective)
			}
		})
	}
}

func TestPlanSLOErrors(t *testing.T) {
	tests := []struct {
		name string
		spec hcav1.SLOSpec
		want string
	}{
		{"latency without parameters", hcav1.SLOSpec{Type: hcav1.SLOLatency}, "spec.slo.latency is required"},
		{"cpu without parameters", hcav1.SLOSpec{Type: hcav1.SLOCPUUtilization}, "spec.slo.cpuUtilization is required"},
		{"unknown type", hcav1.SLOSpec{Type: "throughput"}, `spec.slo.type "throughput" is unknown`},
		{"custom target 0", hcav1.SLOSpec{Type: hcav1.SLOCustom, Custom: &hcav1.CustomSLO{Query: "vector(1)", TargetValue: resource.MustParse("0")}}, "custom target is 0"},
		{"availability 100 %", hcav1.SLOSpec{Type: hcav1.SLOAvailability, Availability: &hcav1.AvailabilitySLO{TargetPercent: resource.MustParse("100")}}, "targetAvailabilityPercent is 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planSLO(testSLO(tt.spec), SLOQueries{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if r := failureReason(err); r != ReasonInvalidObjective {
				t.Errorf("reason = %s, want %s", r, ReasonInvalidObjective)
			}
		})
	}
}

func vec(v float64) metrics.Result { return metrics.Result{Vector: metrics.Vector{{Value: v}}} }

func TestMeasure(t *testing.T) {
	noData := &metrics.QueryError{Source: "prometheus", Query: "q", Kind: metrics.ErrNoData}
	down := &metrics.QueryError{Source: "prometheus", Query: "q", Kind: metrics.ErrUnavailable, Err: errors.New("connection refused")}
	tests := []struct {
		name    string
		typ     hcav1.SLOType
		res     []metrics.Result
		cost    float64
		want    slo.Measurement
		wantErr error
	}{
		{"latency value", hcav1.SLOLatency, []metrics.Result{vec(0.25)}, 0, slo.Measurement{Observed: true, Value: 0.25}, nil},
		{"latency no data", hcav1.SLOLatency, []metrics.Result{{Err: noData}}, 0, slo.Measurement{}, metrics.ErrNoData},
		{"two samples is a bad query", hcav1.SLOCustom, []metrics.Result{{Vector: metrics.Vector{{Value: 1}, {Value: 2}}}}, 0, slo.Measurement{}, metrics.ErrBadQuery},
		{"availability without error series counts zero errors", hcav1.SLOAvailability, []metrics.Result{{Err: noData}, vec(40)}, 0,
			slo.Measurement{Observed: true, RequestsPerSecond: 40}, nil},
		{"availability with the source down", hcav1.SLOAvailability, []metrics.Result{{Err: down}, {Err: down}}, 0, slo.Measurement{}, metrics.ErrUnavailable},
		{"cost-efficiency", hcav1.SLOCostEfficiency, []metrics.Result{vec(30), vec(40)}, 0.5,
			slo.Measurement{Observed: true, RequestsPerSecond: 40, FastRequestsPerSecond: 30, CostPerHour: 0.5}, nil},
		{"cost-efficiency without fast bucket", hcav1.SLOCostEfficiency, []metrics.Result{{Err: noData}, vec(40)}, 0.5, slo.Measurement{}, metrics.ErrNoData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := measure(sloPlan{typ: tt.typ}, tt.res, tt.cost)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("measurement = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestFailureReason(t *testing.T) {
	qe := func(kind error) error { return &metrics.QueryError{Source: "p", Query: "q", Kind: kind} }
	tests := []struct {
		err  error
		want string
	}{
		{qe(metrics.ErrUnavailable), ReasonMetricsUnavailable},
		{qe(metrics.ErrNoData), ReasonNoData},
		{qe(metrics.ErrNaN), ReasonNaN},
		{qe(metrics.ErrBadQuery), ReasonBadQuery},
		{slo.ErrNoTraffic, ReasonNoTraffic},
		{fmt.Errorf("x: %w", slo.ErrNoData), ReasonNoData},
		{fmt.Errorf("x: %w", slo.ErrInvalidObjective), ReasonInvalidObjective},
		{fmt.Errorf("%w: boom", errPanic), ReasonEvaluationPanicked},
		{errNoSource, ReasonNoMetricSource},
		{errors.New("other"), ReasonEvaluationFailed},
	}
	for _, tt := range tests {
		if got := failureReason(tt.err); got != tt.want {
			t.Errorf("failureReason(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}

func TestGuardTurnsPanicIntoError(t *testing.T) {
	err := guard(func() error { var m map[string]int; m["x"] = 1; return nil })
	if !errors.Is(err, errPanic) || !strings.Contains(err.Error(), "nil map") {
		t.Fatalf("guard = %v, want an errPanic naming the panic", err)
	}
}

func TestFormatAndRound(t *testing.T) {
	tests := []struct {
		typ  hcav1.SLOType
		r    slo.Result
		want string
	}{
		{hcav1.SLOLatency, slo.Result{Value: 0.1834}, "183.4ms"},
		{hcav1.SLOLatency, slo.Result{Value: 12.5}, "12.5s"},
		{hcav1.SLOCPUUtilization, slo.Result{Value: 62.04}, "62.0%"},
		{hcav1.SLOAvailability, slo.Result{Value: 99.95}, "99.950%"},
		{hcav1.SLOCostEfficiency, slo.Result{Value: 1234.5, FastPercent: 97}, "1234/h (fast 97.0%)"},
		{hcav1.SLOCostEfficiency, slo.Result{Value: math.MaxFloat64, FastPercent: 100}, "inf (fast 100.0%)"},
		{hcav1.SLOCustom, slo.Result{Value: 0.5}, "0.5"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.typ, tt.r); got != tt.want {
			t.Errorf("formatValue(%s, %v) = %q, want %q", tt.typ, tt.r.Value, got, tt.want)
		}
	}
	for c, want := range map[float64]int32{0: 0, 99.5: 100, 149.4: 149, math.NaN(): 0, math.MaxFloat64: math.MaxInt32} {
		if got := compliancePercent(c); got != want {
			t.Errorf("compliancePercent(%v) = %d, want %d", c, got, want)
		}
	}
}

func TestNextOnGrid(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		now      time.Duration
		interval time.Duration
		want     time.Duration
	}{
		{0, 20 * time.Second, 20 * time.Second},
		{9 * time.Second, 20 * time.Second, 20 * time.Second},
		{11 * time.Second, 20 * time.Second, 40 * time.Second}, // at least half an interval away
		{19 * time.Second, 20 * time.Second, 40 * time.Second},
		{20 * time.Second, 20 * time.Second, 40 * time.Second},
	}
	for _, tt := range tests {
		got := nextOnGrid(base.Add(tt.now), tt.interval).Sub(base)
		if got != tt.want {
			t.Errorf("nextOnGrid(+%v, %v) = +%v, want +%v", tt.now, tt.interval, got, tt.want)
		}
	}
}

func TestBuildStrategy(t *testing.T) {
	tol := resource.MustParse("0.2")
	up := metav1.Duration{Duration: 0}
	stab := &hcav1.StabilizationWindows{ScaleUp: &up}
	horizontal := &hcav1.HorizontalStaticConfig{MinReplicas: 2, MaxReplicas: 6}
	vertical := &hcav1.VerticalStaticConfig{MinCPU: resource.MustParse("500m"), MaxCPU: resource.MustParse("3"), MinMemory: resource.MustParse("64Mi"), MaxMemory: resource.MustParse("1Gi")}
	mk := func(kind hcav1.StrategyKind) *hcav1.ServiceLevelObjective {
		s := testSLO(hcav1.SLOSpec{Type: hcav1.SLOCustom, Custom: &hcav1.CustomSLO{Query: "vector(1)", TargetValue: resource.MustParse("1")}})
		s.Spec.Tolerance = &tol
		s.Spec.Stabilization = stab
		s.Spec.ElasticityStrategy = hcav1.ElasticityStrategy{Kind: kind, Horizontal: horizontal, Vertical: vertical, Burst: &hcav1.BurstStaticConfig{BurstPolicyName: "web-burst"}}
		return s
	}
	tests := []struct {
		name    string
		slo     *hcav1.ServiceLevelObjective
		kind    string
		wantErr string
	}{
		{"horizontal", mk(hcav1.StrategyHorizontal), KindHorizontalStrategy, ""},
		{"vertical", mk(hcav1.StrategyVertical), KindVerticalStrategy, ""},
		{"burst", mk(hcav1.StrategyBurst), KindBurstStrategy, ""},
		{"burst without its policy", func() *hcav1.ServiceLevelObjective {
			s := mk(hcav1.StrategyBurst)
			s.Spec.ElasticityStrategy.Burst = nil
			return s
		}(), "", "spec.elasticityStrategy.burst.burstPolicyName is required for kind Burst"},
		{"horizontal without its config", func() *hcav1.ServiceLevelObjective {
			s := mk(hcav1.StrategyHorizontal)
			s.Spec.ElasticityStrategy.Horizontal = nil
			return s
		}(), "", "spec.elasticityStrategy.horizontal (minReplicas, maxReplicas) is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := buildStrategy(tt.slo, 150)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if obj.GetName() != "web-latency" || obj.GetNamespace() != "shop" || obj.GetLabels()[SLOLabel] != "web-latency" {
				t.Errorf("meta = %s/%s labels %v, want shop/web-latency labelled with the SLO", obj.GetNamespace(), obj.GetName(), obj.GetLabels())
			}
			refs := obj.GetOwnerReferences()
			if len(refs) != 1 || refs[0].UID != "uid-1" || refs[0].Kind != "ServiceLevelObjective" || refs[0].APIVersion != "hca.dev/v1alpha1" || !*refs[0].Controller {
				t.Errorf("owner references = %+v, want the SLO as controller", refs)
			}
			var out hcav1.SLOOutput
			var target hcav1.TargetRef
			var gotStab *hcav1.StabilizationWindows
			switch o := obj.(type) {
			case *hcav1.HorizontalElasticityStrategy:
				out, target, gotStab = o.Spec.SLOOutput, o.Spec.Target, o.Spec.Stabilization
				if o.Spec.StaticConfig != *horizontal {
					t.Errorf("static config = %+v", o.Spec.StaticConfig)
				}
			case *hcav1.VerticalElasticityStrategy:
				out, target, gotStab = o.Spec.SLOOutput, o.Spec.Target, o.Spec.Stabilization
				if o.Spec.StaticConfig.MaxCPU.Cmp(vertical.MaxCPU) != 0 {
					t.Errorf("static config = %+v", o.Spec.StaticConfig)
				}
			case *hcav1.BurstElasticityStrategy:
				out, gotStab = o.Spec.SLOOutput, o.Spec.Stabilization
				target = targetOf(tt.slo) // a burst strategy names its policy, not the workload
				if o.Spec.BurstPolicyName != "web-burst" {
					t.Errorf("burst policy = %q, want web-burst", o.Spec.BurstPolicyName)
				}
			}
			if kind := strategyRef(tt.slo).Kind; kind != tt.kind {
				t.Errorf("strategyRef kind = %s, want %s", kind, tt.kind)
			}
			if out.CompliancePercent != 150 || out.Tolerance == nil || out.Tolerance.Cmp(tol) != 0 {
				t.Errorf("sloOutput = %+v, want 150 %% with tolerance 0.2", out)
			}
			if target != (hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "web"}) {
				t.Errorf("target = %+v, want Deployment web", target)
			}
			if gotStab == nil || gotStab == stab {
				t.Errorf("stabilization = %p, want a copy of the SLO's", gotStab)
			}
		})
	}
}

// TestBurstStrategyEvaluatedAt: with a stabilisation window, each evaluation
// is a new output (EvaluatedAt moves the generation) so that the window sees
// every recommendation; with both windows 0 an unchanged output is the same
// object, applied once.
func TestBurstStrategyEvaluatedAt(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC))
	tests := []struct {
		name string
		stab *hcav1.StabilizationWindows
		want *metav1.Time
	}{
		{"windows set to 0: no evaluation time (an unchanged output is applied once)", &hcav1.StabilizationWindows{ScaleUp: &metav1.Duration{}, ScaleDown: &metav1.Duration{}}, nil},
		{"no windows set: the strategies' defaults (down after 5m)", nil, &at},
		{"a scale-down window", &hcav1.StabilizationWindows{ScaleUp: &metav1.Duration{}, ScaleDown: &metav1.Duration{Duration: 30 * time.Second}}, &at},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSLO(hcav1.SLOSpec{})
			s.Spec.Stabilization = tt.stab
			s.Spec.ElasticityStrategy = hcav1.ElasticityStrategy{Kind: hcav1.StrategyBurst, Burst: &hcav1.BurstStaticConfig{BurstPolicyName: "web"}}
			s.Status.LastEvaluationTime = &at
			obj, err := buildStrategy(s, 180)
			if err != nil {
				t.Fatal(err)
			}
			got := obj.(*hcav1.BurstElasticityStrategy).Spec
			if (got.EvaluatedAt == nil) != (tt.want == nil) || got.EvaluatedAt != nil && !got.EvaluatedAt.Equal(tt.want) {
				t.Errorf("evaluatedAt = %v, want %v", got.EvaluatedAt, tt.want)
			}
			if got.SLOOutput.CompliancePercent != 180 {
				t.Errorf("compliance = %d, want 180", got.SLOOutput.CompliancePercent)
			}
		})
	}
}

func TestSetRequests(t *testing.T) {
	ctr := func(name, cpu, mem, cpuLimit string) corev1.Container {
		c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}
		if cpuLimit != "" {
			c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpuLimit)}
		}
		return c
	}
	tests := []struct {
		name      string
		container string
		want      slo.Resources
		wantCPU   []string
		wantLimit string
	}{
		{"all containers in proportion", "", slo.Resources{CPUMilli: 1500, MemoryBytes: 384 << 20}, []string{"1125m", "375m"}, "2250m"},
		{"one container", "sidecar", slo.Resources{CPUMilli: 600, MemoryBytes: 128 << 20}, []string{"750m", "600m"}, "1500m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &corev1.PodSpec{Containers: []corev1.Container{ctr("app", "750m", "256Mi", "1500m"), ctr("sidecar", "250m", "128Mi", "")}}
			cur, err := podRequests(spec, tt.container)
			if err != nil {
				t.Fatal(err)
			}
			setRequests(spec, tt.container, cur, tt.want)
			after, _ := podRequests(spec, tt.container)
			if after != tt.want {
				t.Errorf("requests after = %+v, want %+v", after, tt.want)
			}
			for i, w := range tt.wantCPU {
				if got := spec.Containers[i].Resources.Requests[corev1.ResourceCPU]; got.Cmp(resource.MustParse(w)) != 0 {
					t.Errorf("container %d cpu = %s, want %s", i, got.String(), w)
				}
			}
			if got := spec.Containers[0].Resources.Limits[corev1.ResourceCPU]; got.Cmp(resource.MustParse(tt.wantLimit)) != 0 {
				t.Errorf("app cpu limit = %s, want %s (ratio kept)", got.String(), tt.wantLimit)
			}
		})
	}
	if _, err := podRequests(&corev1.PodSpec{Containers: []corev1.Container{ctr("app", "1", "1Gi", "")}}, "nope"); err == nil || !strings.Contains(err.Error(), `container "nope"`) {
		t.Errorf("unknown container: %v", err)
	}
}
