package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// minimalSLO is a model with only the required arguments (and the schema
// defaults of the computed ones): a latency SLO enforced by the Horizontal
// strategy.
func minimalSLO() sloModel {
	return sloModel{
		Name: types.StringValue("web-latency"), Namespace: types.StringValue("shop"),
		Target: &sloTarget{Kind: types.StringNull(), Name: types.StringValue("web")},
		SLO: &sloObjective{Type: types.StringValue("latency"), Latency: &sloLatency{
			Percentile: types.StringValue("99.9"), Threshold: durationOf("200ms"), HistogramMetric: types.StringNull()}},
		Tolerance:          types.StringValue("0.1"),
		EvaluationInterval: durationOf("20s"),
		ElasticityStrategy: &sloStrategy{Kind: types.StringValue("Horizontal"),
			Horizontal: &sloHorizontal{MinReplicas: types.Int64Null(), MaxReplicas: types.Int64Value(10)}},
	}
}

// minimalSLOMultiObjective is elasticity_strategy.multi_objective with only
// its required arguments: the model's ConfigMap and the paper's ranges.
func minimalSLOMultiObjective() *sloMultiObjective {
	return &sloMultiObjective{
		Model: &sloMOModel{ConfigMapName: types.StringValue("web-model"), Key: types.StringNull()},
		Ranges: &moRanges{MinCPU: types.StringValue("300m"), MaxCPU: types.StringValue("500m"), MinMemory: types.StringValue("400Mi"), MaxMemory: types.StringValue("600Mi"),
			MinReplicas: types.Int64Null(), MaxReplicas: types.Int64Value(10)},
		WeightPreset: types.StringNull(), TolerancePercent: types.Int64Null(), Interval: durationNull(), Cooldown: durationNull(),
		Container: types.StringNull(), ResizePolicy: types.StringNull(),
	}
}

// sloAPIDefaults fills in what the API server defaults (the CRD's defaults).
func sloAPIDefaults(s *hcav1.ServiceLevelObjectiveSpec) {
	if s.Target.Kind == "" {
		s.Target.Kind = hcav1.WorkloadDeployment
	}
	if s.Tolerance == nil {
		s.Tolerance = qty("0.1")
	}
	if s.EvaluationInterval == nil {
		s.EvaluationInterval = dur("20s")
	}
	if l := s.SLO.Latency; l != nil && l.HistogramMetric == "" {
		l.HistogramMetric = sloDefaultHistogramMetric
	}
	if c := s.SLO.CostEfficiency; c != nil && c.HistogramMetric == "" {
		c.HistogramMetric = sloDefaultHistogramMetric
	}
	if a := s.SLO.Availability; a != nil {
		if a.RequestsMetric == "" {
			a.RequestsMetric = sloDefaultRequestsMetric
		}
		if a.ErrorCodes == "" {
			a.ErrorCodes = sloDefaultErrorCodes
		}
	}
	if c := s.SLO.Custom; c != nil && c.Direction == "" {
		c.Direction = hcav1.DirectionBelow
	}
	if st := s.Stabilization; st != nil {
		if st.ScaleUp == nil {
			st.ScaleUp = dur("0s")
		}
		if st.ScaleDown == nil {
			st.ScaleDown = dur("5m")
		}
	}
	if h := s.ElasticityStrategy.Horizontal; h != nil && h.MinReplicas == 0 {
		h.MinReplicas = 1
	}
	if mo := s.ElasticityStrategy.MultiObjective; mo != nil {
		if mo.Model.Key == "" {
			mo.Model.Key = sloDefaultModelKey
		}
		if mo.Ranges.MinReplicas == 0 {
			mo.Ranges.MinReplicas = 1
		}
		if mo.TolerancePercent == 0 {
			mo.TolerancePercent = 10
		}
		if mo.Interval == nil {
			mo.Interval = dur("30s")
		}
		if mo.Cooldown == nil {
			mo.Cooldown = dur("2m")
		}
		if mo.ResizePolicy == "" {
			mo.ResizePolicy = "Recreate"
		}
		if d := mo.Desired; d != nil {
			if d.CPUUsagePercent == 0 {
				d.CPUUsagePercent = 85
			}
			if d.MemoryUsagePercent == 0 {
				d.MemoryUsagePercent = 80
			}
		}
	}
	if v := s.ElasticityStrategy.Vertical; v != nil {
		if v.CPUStep == nil {
			v.CPUStep = qty("100m")
		}
		if v.MemoryStep == nil {
			v.MemoryStep = qty("64Mi")
		}
		if v.ResizePolicy == "" {
			v.ResizePolicy = "Recreate"
		}
	}
}

// TestSLOConverters converts models to the API and back: the API's defaults
// (as the API server fills them in) leave unset nested arguments unset, and
// equal durations and quantities keep the configured spelling.
func TestSLOConverters(t *testing.T) {
	cpu := minimalSLO()
	cpu.Target.Kind = types.StringValue("StatefulSet")
	cpu.SLO = &sloObjective{Type: types.StringValue("cpu-utilization"), CPUUtilization: &sloCPUUtilization{TargetAverageUtilization: types.Int64Value(70)}}
	cpu.Tolerance = types.StringValue("0")
	cpu.EvaluationInterval = durationOf("60s")
	cpu.Stabilization = &sloStabilization{ScaleUp: durationOf("30s"), ScaleDown: durationNull()}
	cpu.ElasticityStrategy.Horizontal.MinReplicas = types.Int64Value(1)

	cost := minimalSLO()
	cost.SLO = &sloObjective{Type: types.StringValue("cost-efficiency"), CostEfficiency: &sloCostEfficiency{
		ResponseTimeThreshold: durationOf("0.1s"), TargetCostEfficiency: types.StringValue("50"),
		MinRequestsPercentile: types.Int64Value(0), HistogramMetric: types.StringValue("rt_seconds")}}
	cost.Tolerance = types.StringValue("100m")
	cost.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("Vertical"),
		Vertical: &sloVertical{Container: types.StringValue("app"), MinCPU: types.StringValue("0.1"), MaxCPU: types.StringValue("2"),
			MinMemory: types.StringValue("64Mi"), MaxMemory: types.StringValue("2Gi"), CPUStep: types.StringNull(), MemoryStep: types.StringValue("128Mi"),
			ResizePolicy: types.StringValue("InPlaceOrRecreate")}}

	avail := minimalSLO()
	avail.SLO = &sloObjective{Type: types.StringValue("availability"), Availability: &sloAvailability{
		TargetPercent: types.StringValue("99.95"), RequestsMetric: types.StringNull(), ErrorCodes: types.StringValue("5..|429")}}
	avail.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("Burst"),
		Horizontal: &sloHorizontal{MinReplicas: types.Int64Value(2), MaxReplicas: types.Int64Value(20)},
		Burst:      &sloBurst{BurstPolicyName: types.StringValue("web")}}

	custom := minimalSLO()
	custom.SLO = &sloObjective{Type: types.StringValue("custom"), Custom: &sloCustom{
		Query: types.StringValue(`sum(rate(errors_total{app="web"}[1m]))`), TargetValue: types.StringValue("0.5"), Direction: types.StringValue("above")}}
	custom.Stabilization = &sloStabilization{ScaleUp: durationNull(), ScaleDown: durationNull()}

	moMinimal := minimalSLO()
	moMinimal.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: minimalSLOMultiObjective()}
	moFull := minimalSLO()
	moFull.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"),
		Horizontal: &sloHorizontal{MinReplicas: types.Int64Null(), MaxReplicas: types.Int64Value(10)},
		MultiObjective: &sloMultiObjective{
			Model:   &sloMOModel{ConfigMapName: types.StringValue("web-model"), Key: types.StringValue("svr.json")},
			Desired: &sloMODesired{CPUUsagePercent: types.Int64Value(70), MemoryUsagePercent: types.Int64Null()},
			Ranges: &moRanges{MinCPU: types.StringValue("0.3"), MaxCPU: types.StringValue("1500m"), MinMemory: types.StringValue("400Mi"), MaxMemory: types.StringValue("1Gi"),
				MinReplicas: types.Int64Value(2), MaxReplicas: types.Int64Value(8)},
			WeightPreset: types.StringNull(),
			Weights: &moWeights{ResponseTime: types.Float64Value(0.4), CPUUsage: types.Float64Value(0.1), MemoryUsage: types.Float64Value(0.1),
				CPULimit: types.Float64Value(0.2), MemoryLimit: types.Float64Value(0.1), Replicas: types.Float64Value(0.1)},
			TolerancePercent: types.Int64Value(5), Interval: durationOf("1m"), Cooldown: durationOf("90s"),
			Container: types.StringValue("app"), ResizePolicy: types.StringValue("InPlaceOrRecreate"),
			Metrics: &moMetricsModel{RequestsPerSecond: types.StringValue(`sum(rate(requests_total{app="$name"}[30s]))`), ResponseTimeMs: types.StringNull(),
				CPUUsagePercent: types.StringNull(), MemoryUsagePercent: types.StringNull()},
		}}

	tests := []struct {
		name string
		in   sloModel
		want hcav1.ServiceLevelObjectiveSpec
	}{
		{
			name: "latency, multi-objective, defaults",
			in:   moMinimal,
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO:       hcav1.SLOSpec{Type: "latency", Latency: &hcav1.LatencySLO{Percentile: *qty("99.9"), Threshold: *dur("200ms")}},
				Tolerance: qty("0.1"), EvaluationInterval: dur("20s"),
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "MultiObjective", MultiObjective: &hcav1.MultiObjectiveSLOConfig{
					MultiObjectiveStaticConfig: hcav1.MultiObjectiveStaticConfig{Model: hcav1.MultiObjectiveModelRef{ConfigMapName: "web-model"},
						Ranges: hcav1.MultiObjectiveRanges{MinCPU: *qty("300m"), MaxCPU: *qty("500m"), MinMemory: *qty("400Mi"), MaxMemory: *qty("600Mi"), MaxReplicas: 10}}}}},
		},
		{
			name: "latency, multi-objective, every argument, horizontal kept",
			in:   moFull,
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO:       hcav1.SLOSpec{Type: "latency", Latency: &hcav1.LatencySLO{Percentile: *qty("99.9"), Threshold: *dur("200ms")}},
				Tolerance: qty("0.1"), EvaluationInterval: dur("20s"),
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "MultiObjective", Horizontal: &hcav1.HorizontalStaticConfig{MaxReplicas: 10},
					MultiObjective: &hcav1.MultiObjectiveSLOConfig{
						Desired: &hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: 70},
						MultiObjectiveStaticConfig: hcav1.MultiObjectiveStaticConfig{Model: hcav1.MultiObjectiveModelRef{ConfigMapName: "web-model", Key: "svr.json"},
							Ranges:           hcav1.MultiObjectiveRanges{MinCPU: *qty("300m"), MaxCPU: *qty("1500m"), MinMemory: *qty("400Mi"), MaxMemory: *qty("1Gi"), MinReplicas: 2, MaxReplicas: 8},
							Weights:          &hcav1.MultiObjectiveWeights{ResponseTime: *qty("0.4"), CPUUsage: *qty("0.1"), MemoryUsage: *qty("0.1"), CPULimit: *qty("0.2"), MemoryLimit: *qty("0.1"), Replicas: *qty("0.1")},
							TolerancePercent: 5, Interval: dur("1m"), Cooldown: dur("90s"), Container: "app", ResizePolicy: "InPlaceOrRecreate",
							Metrics: &hcav1.MultiObjectiveMetrics{RequestsPerSecond: `sum(rate(requests_total{app="$name"}[30s]))`}}}}},
		},
		{
			name: "latency, horizontal, defaults",
			in:   minimalSLO(),
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO:       hcav1.SLOSpec{Type: "latency", Latency: &hcav1.LatencySLO{Percentile: *qty("99.9"), Threshold: *dur("200ms")}},
				Tolerance: qty("0.1"), EvaluationInterval: dur("20s"),
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Horizontal", Horizontal: &hcav1.HorizontalStaticConfig{MaxReplicas: 10}}},
		},
		{
			name: "cpu utilization, statefulset, stabilization",
			in:   cpu,
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Kind: "StatefulSet", Name: "web"},
				SLO:       hcav1.SLOSpec{Type: "cpu-utilization", CPUUtilization: &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 70}},
				Tolerance: qty("0"), EvaluationInterval: dur("1m"), Stabilization: &hcav1.StabilizationWindows{ScaleUp: dur("30s")},
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Horizontal", Horizontal: &hcav1.HorizontalStaticConfig{MinReplicas: 1, MaxReplicas: 10}}},
		},
		{
			name: "cost efficiency, vertical",
			in:   cost,
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO: hcav1.SLOSpec{Type: "cost-efficiency", CostEfficiency: &hcav1.CostEfficiencySLO{ResponseTimeThreshold: *dur("100ms"),
					TargetCostEfficiency: *qty("50"), MinRequestsPercentile: ptr32(0), HistogramMetric: "rt_seconds"}},
				Tolerance: qty("0.1"), EvaluationInterval: dur("20s"),
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Vertical", Vertical: &hcav1.VerticalStaticConfig{Container: "app",
					MinCPU: *qty("100m"), MaxCPU: *qty("2"), MinMemory: *qty("64Mi"), MaxMemory: *qty("2Gi"), MemoryStep: qty("128Mi"), ResizePolicy: "InPlaceOrRecreate"}}},
		},
		{
			name: "availability, burst with horizontal kept",
			in:   avail,
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO:       hcav1.SLOSpec{Type: "availability", Availability: &hcav1.AvailabilitySLO{TargetPercent: *qty("99.95"), ErrorCodes: "5..|429"}},
				Tolerance: qty("0.1"), EvaluationInterval: dur("20s"),
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Burst", Horizontal: &hcav1.HorizontalStaticConfig{MinReplicas: 2, MaxReplicas: 20},
					Burst: &hcav1.BurstStaticConfig{BurstPolicyName: "web"}}},
		},
		{
			name: "custom, empty stabilization",
			in:   custom,
			want: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO: hcav1.SLOSpec{Type: "custom", Custom: &hcav1.CustomSLO{Query: `sum(rate(errors_total{app="web"}[1m]))`,
					TargetValue: *qty("0.5"), Direction: "above"}},
				Tolerance: qty("0.1"), EvaluationInterval: dur("20s"), Stabilization: &hcav1.StabilizationWindows{},
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Horizontal", Horizontal: &hcav1.HorizontalStaticConfig{MaxReplicas: 10}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			slo, err := in.toAPI()
			if err != nil {
				t.Fatal(err)
			}
			if slo.Namespace != "shop" || slo.Name != "web-latency" || slo.Kind != "ServiceLevelObjective" {
				t.Errorf("toAPI object %s %s/%s", slo.Kind, slo.Namespace, slo.Name)
			}
			if !equality.Semantic.DeepEqual(slo.Spec, tt.want) {
				t.Fatalf("toAPI spec:\n got %+v\nwant %+v", slo.Spec, tt.want)
			}
			// Back, as the API server returns it (defaults filled in), with
			// the model as prior: the same model.
			sloAPIDefaults(&slo.Spec)
			back := sloFromAPI(slo, &in)
			in.ID = types.StringValue("shop/web-latency")
			in.CurrentValue, in.LastEvaluationTime, in.StrategyKind, in.StrategyName = types.StringValue(""), types.StringValue(""), types.StringValue(""), types.StringValue("")
			in.CompliancePercent, in.Ready, in.Conditions = types.Int64Null(), types.BoolValue(false), back.Conditions
			if !reflect.DeepEqual(back, in) {
				t.Errorf("fromAPI(toAPI(m)) != m:\n got %s\nwant %s", dumpSLO(back), dumpSLO(in))
			}
		})
	}
}

// TestSLOFromAPI_import converts objects as an import sees them (no prior):
// the API's defaults stay unset in nested objects, decimals read as plain
// decimals, durations in their shortest spelling.
func TestSLOFromAPI_import(t *testing.T) {
	tests := []struct {
		name  string
		spec  hcav1.ServiceLevelObjectiveSpec
		check func(m sloModel) string
	}{
		{
			name: "latency with defaults",
			spec: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO:                hcav1.SLOSpec{Type: "latency", Latency: &hcav1.LatencySLO{Percentile: *qty("99900m"), Threshold: *dur("1500ms")}},
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Horizontal", Horizontal: &hcav1.HorizontalStaticConfig{MaxReplicas: 5}}},
			check: func(m sloModel) string {
				l := m.SLO.Latency
				return fmt.Sprintf("kind=%s p=%s th=%s hist=%s tol=%s int=%s min=%s max=%s",
					m.Target.Kind, l.Percentile, l.Threshold, l.HistogramMetric, m.Tolerance, m.EvaluationInterval,
					m.ElasticityStrategy.Horizontal.MinReplicas, m.ElasticityStrategy.Horizontal.MaxReplicas)
			},
		},
		{
			name: "values that are not the defaults",
			spec: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Kind: "StatefulSet", Name: "db"},
				SLO: hcav1.SLOSpec{Type: "availability", Availability: &hcav1.AvailabilitySLO{TargetPercent: *qty("99950m"),
					RequestsMetric: "reqs_total", ErrorCodes: "5.."}},
				Tolerance: qty("50m"), EvaluationInterval: dur("90s"),
				Stabilization:      &hcav1.StabilizationWindows{ScaleUp: dur("0s"), ScaleDown: dur("10m")},
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Burst", Burst: &hcav1.BurstStaticConfig{BurstPolicyName: "db"}}},
			check: func(m sloModel) string {
				a, st := m.SLO.Availability, m.Stabilization
				return fmt.Sprintf("kind=%s target=%s metric=%s codes=%s tol=%s int=%s up=%s down=%s burst=%s",
					m.Target.Kind, a.TargetPercent, a.RequestsMetric, a.ErrorCodes, m.Tolerance, m.EvaluationInterval, st.ScaleUp, st.ScaleDown,
					m.ElasticityStrategy.Burst.BurstPolicyName)
			},
		},
		{
			name: "multi-objective with the API's defaults",
			spec: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO: hcav1.SLOSpec{Type: "latency", Latency: &hcav1.LatencySLO{Percentile: *qty("50"), Threshold: *dur("100ms")}},
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "MultiObjective", MultiObjective: &hcav1.MultiObjectiveSLOConfig{
					Desired: &hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: 85, MemoryUsagePercent: 70},
					MultiObjectiveStaticConfig: hcav1.MultiObjectiveStaticConfig{Model: hcav1.MultiObjectiveModelRef{ConfigMapName: "m", Key: "model.json"},
						Ranges:           hcav1.MultiObjectiveRanges{MinCPU: *qty("300m"), MaxCPU: *qty("1"), MinMemory: *qty("400Mi"), MaxMemory: *qty("1Gi"), MinReplicas: 1, MaxReplicas: 5},
						WeightPreset:     "ResourcesFirst",
						TolerancePercent: 10, Interval: dur("30s"), Cooldown: dur("120s"), ResizePolicy: "Recreate"}}}},
			check: func(m sloModel) string {
				mo := m.ElasticityStrategy.MultiObjective
				return fmt.Sprintf("cm=%s key=%s cpu=%s mem=%s ranges=%s/%s/%s/%s/%s/%s preset=%s tol=%s int=%s cool=%s ctr=%s resize=%s metrics=%v",
					mo.Model.ConfigMapName, mo.Model.Key, mo.Desired.CPUUsagePercent, mo.Desired.MemoryUsagePercent,
					mo.Ranges.MinCPU, mo.Ranges.MaxCPU, mo.Ranges.MinMemory, mo.Ranges.MaxMemory, mo.Ranges.MinReplicas, mo.Ranges.MaxReplicas,
					mo.WeightPreset, mo.TolerancePercent, mo.Interval, mo.Cooldown, mo.Container, mo.ResizePolicy, mo.Metrics)
			},
		},
		{
			name: "vertical quantities",
			spec: hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: "web"},
				SLO: hcav1.SLOSpec{Type: "custom", Custom: &hcav1.CustomSLO{Query: "q", TargetValue: *qty("1k"), Direction: "below"}},
				ElasticityStrategy: hcav1.ElasticityStrategy{Kind: "Vertical", Vertical: &hcav1.VerticalStaticConfig{MinCPU: *qty("100m"), MaxCPU: *qty("2"),
					MinMemory: *qty("64Mi"), MaxMemory: *qty("2Gi"), CPUStep: qty("100m"), MemoryStep: qty("32Mi")}}},
			check: func(m sloModel) string {
				c, v := m.SLO.Custom, m.ElasticityStrategy.Vertical
				return fmt.Sprintf("target=%s dir=%s container=%s cpu=%s-%s mem=%s-%s steps=%s/%s",
					c.TargetValue, c.Direction, v.Container, v.MinCPU, v.MaxCPU, v.MinMemory, v.MaxMemory, v.CPUStep, v.MemoryStep)
			},
		},
	}
	want := []string{
		`kind=<null> p="99.9" th="1.5s" hist=<null> tol="0.1" int="20s" min=<null> max=5`,
		`kind="StatefulSet" target="99.95" metric="reqs_total" codes=<null> tol="0.05" int="1m30s" up=<null> down="10m" burst="db"`,
		`cm="m" key=<null> cpu=<null> mem=70 ranges="300m"/"1"/"400Mi"/"1Gi"/<null>/5 preset="ResourcesFirst" tol=<null> int=<null> cool=<null> ctr=<null> resize=<null> metrics=<nil>`,
		`target="1000" dir=<null> container=<null> cpu="100m"-"2" mem="64Mi"-"2Gi" steps=<null>/"32Mi"`,
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slo := &hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "x"}, Spec: tt.spec}
			sloAPIDefaults(&slo.Spec)
			m := sloFromAPI(slo, nil)
			if m.ID.ValueString() != "shop/x" {
				t.Errorf("id %s", m.ID)
			}
			if got := tt.check(m); got != want[i] {
				t.Errorf("got  %s\nwant %s", got, want[i])
			}
		})
	}
}

func dumpSLO(m sloModel) string {
	s := fmt.Sprintf("%+v target=%+v slo=%+v stab=%+v strategy=%+v", m, m.Target, m.SLO, m.Stabilization, m.ElasticityStrategy)
	if o := m.SLO; o != nil {
		s += fmt.Sprintf(" cpu=%+v lat=%+v cost=%+v avail=%+v custom=%+v", o.CPUUtilization, o.Latency, o.CostEfficiency, o.Availability, o.Custom)
	}
	if e := m.ElasticityStrategy; e != nil {
		s += fmt.Sprintf(" h=%+v v=%+v b=%+v", e.Horizontal, e.Vertical, e.Burst)
	}
	return s
}

// TestSLOSetStatus checks the computed status attributes, and that with
// onlyUnknown a planned (known) value is kept.
func TestSLOSetStatus(t *testing.T) {
	at := metav1.NewTime(time.Date(2025, 3, 1, 10, 4, 5, 0, time.FixedZone("CET", 3600)))
	slo := &hcav1.ServiceLevelObjective{Status: hcav1.ServiceLevelObjectiveStatus{
		CurrentValue: "183ms", CompliancePercent: ptr32(92), LastEvaluationTime: &at,
		Strategy: &hcav1.StrategyRef{Kind: "HorizontalElasticityStrategy", Name: "web-latency"},
		Conditions: []metav1.Condition{
			{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Evaluated", Message: "compliance 92%"},
			{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: "Evaluated"},
		},
	}}
	tests := []struct {
		name        string
		slo         *hcav1.ServiceLevelObjective
		prior       sloModel
		onlyUnknown bool
		want        string
	}{
		{"evaluated", slo, sloModel{}, false,
			`"183ms" 92 "2025-03-01T09:04:05Z" "HorizontalElasticityStrategy" "web-latency" true [{"last_transition_time":"","message":"","reason":"Evaluated","status":"False","type":"Degraded"},{"last_transition_time":"","message":"compliance 92%","reason":"Evaluated","status":"True","type":"Ready"}]`},
		{"never evaluated", &hcav1.ServiceLevelObjective{}, sloModel{}, false, `"" <null> "" "" "" false []`},
		{"degraded", &hcav1.ServiceLevelObjective{Status: hcav1.ServiceLevelObjectiveStatus{Conditions: []metav1.Condition{
			{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse, Reason: "NoData", Message: "no sample"}}}}, sloModel{}, false,
			`"" <null> "" "" "" false [{"last_transition_time":"","message":"no sample","reason":"NoData","status":"False","type":"Ready"}]`},
		{"planned values kept", slo, sloModel{CurrentValue: types.StringValue("1s"), CompliancePercent: types.Int64Unknown(), LastEvaluationTime: types.StringUnknown(),
			StrategyKind: types.StringValue("k"), StrategyName: types.StringUnknown(), Ready: types.BoolValue(false), Conditions: types.ListNull(types.ObjectType{AttrTypes: conditionAttrs})}, true,
			`"1s" 92 "2025-03-01T09:04:05Z" "k" "web-latency" false <null>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.prior
			m.setStatus(tt.slo, tt.onlyUnknown)
			got := fmt.Sprintf("%s %s %s %s %s %s %s", m.CurrentValue, m.CompliancePercent, m.LastEvaluationTime, m.StrategyKind, m.StrategyName, m.Ready, m.Conditions)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestValidateSLO checks the plan-time mirror of the CRD's CEL rules.
func TestValidateSLO(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*sloModel)
		want   []string
	}{
		{"valid", func(*sloModel) {}, nil},
		{"type without its block", func(m *sloModel) { m.SLO.Type = types.StringValue("availability") }, []string{
			"slo.latency is set but slo.type is availability: remove latency or set type to latency.",
			"slo.availability (target_percent) is required when slo.type is availability."}},
		{"cpu block missing", func(m *sloModel) { m.SLO = &sloObjective{Type: types.StringValue("cpu-utilization")} },
			[]string{"slo.cpu_utilization (target_average_utilization) is required when slo.type is cpu-utilization."}},
		{"cost block missing", func(m *sloModel) { m.SLO = &sloObjective{Type: types.StringValue("cost-efficiency")} },
			[]string{"slo.cost_efficiency (response_time_threshold and target_cost_efficiency) is required when slo.type is cost-efficiency."}},
		{"custom block missing", func(m *sloModel) { m.SLO = &sloObjective{Type: types.StringValue("custom")} },
			[]string{"slo.custom (query and target_value) is required when slo.type is custom."}},
		{"second block", func(m *sloModel) { m.SLO.CPUUtilization = &sloCPUUtilization{} },
			[]string{"slo.cpu_utilization is set but slo.type is latency: remove cpu_utilization or set type to cpu-utilization."}},
		{"type unknown", func(m *sloModel) { m.SLO.Type = types.StringUnknown(); m.SLO.Custom = &sloCustom{} }, nil},
		{"burst without burst", func(m *sloModel) { m.ElasticityStrategy.Kind = types.StringValue("Burst") },
			[]string{"elasticity_strategy.burst (burst_policy_name) is required when kind is Burst."}},
		{"vertical without vertical", func(m *sloModel) { m.ElasticityStrategy.Kind = types.StringValue("Vertical") },
			[]string{"elasticity_strategy.vertical (min_cpu, max_cpu, min_memory and max_memory) is required when kind is Vertical."}},
		{"horizontal without horizontal", func(m *sloModel) {
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("Horizontal"), Burst: &sloBurst{BurstPolicyName: types.StringValue("web")}}
		}, []string{"elasticity_strategy.horizontal (max_replicas, and min_replicas if not 1) is required when kind is Horizontal."}},
		{"other strategies' blocks may stay", func(m *sloModel) {
			m.ElasticityStrategy.Burst = &sloBurst{BurstPolicyName: types.StringValue("web")}
		}, nil},
		{"min above max", func(m *sloModel) { m.ElasticityStrategy.Horizontal.MinReplicas = types.Int64Value(11) },
			[]string{"elasticity_strategy.horizontal.min_replicas (11) must be <= max_replicas (10)."}},
		{"min equal max", func(m *sloModel) { m.ElasticityStrategy.Horizontal.MinReplicas = types.Int64Value(10) }, nil},
		{"max unknown", func(m *sloModel) {
			m.ElasticityStrategy.Horizontal.MinReplicas = types.Int64Value(11)
			m.ElasticityStrategy.Horizontal.MaxReplicas = types.Int64Unknown()
		}, nil},
		{"vertical bounds inverted", func(m *sloModel) {
			m.ElasticityStrategy.Vertical = &sloVertical{MinCPU: types.StringValue("1.5"), MaxCPU: types.StringValue("1000m"),
				MinMemory: types.StringValue("1Gi"), MaxMemory: types.StringValue("512Mi")}
		}, []string{"elasticity_strategy.vertical.min_cpu (1.5) must be <= max_cpu (1000m).",
			"elasticity_strategy.vertical.min_memory (1Gi) must be <= max_memory (512Mi)."}},
		{"multi-objective without multi_objective", func(m *sloModel) { m.ElasticityStrategy.Kind = types.StringValue("MultiObjective") },
			[]string{"elasticity_strategy.multi_objective (model and ranges) is required when kind is MultiObjective."}},
		{"multi-objective", func(m *sloModel) {
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: minimalSLOMultiObjective()}
		}, nil},
		{"multi-objective on a cpu SLO", func(m *sloModel) {
			m.SLO = &sloObjective{Type: types.StringValue("cpu-utilization"), CPUUtilization: &sloCPUUtilization{TargetAverageUtilization: types.Int64Value(60)}}
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: minimalSLOMultiObjective()}
		}, []string{"elasticity_strategy.kind MultiObjective needs an objective on the response time: slo.type latency, whose threshold is the desired response time (slo.type is cpu-utilization)."}},
		{"multi-objective on a StatefulSet", func(m *sloModel) {
			m.Target.Kind = types.StringValue("StatefulSet")
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: minimalSLOMultiObjective()}
		}, []string{"elasticity_strategy.kind MultiObjective scales a Deployment: set target.kind to Deployment (got StatefulSet)."}},
		{"multi-objective block kept under another kind is still checked", func(m *sloModel) {
			mo := minimalSLOMultiObjective()
			mo.Ranges.MinCPU, mo.Ranges.MinReplicas = types.StringValue("600m"), types.Int64Value(11)
			m.ElasticityStrategy.MultiObjective = mo
		}, []string{"elasticity_strategy.multi_objective.ranges.min_cpu (600m) must be <= elasticity_strategy.multi_objective.ranges.max_cpu (500m).",
			"elasticity_strategy.multi_objective.ranges.min_replicas (11) must be <= elasticity_strategy.multi_objective.ranges.max_replicas (10)."}},
		{"multi-objective memory range inverted", func(m *sloModel) {
			mo := minimalSLOMultiObjective()
			mo.Ranges.MinMemory = types.StringValue("1Gi")
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: mo}
		}, []string{"elasticity_strategy.multi_objective.ranges.min_memory (1Gi) must be <= elasticity_strategy.multi_objective.ranges.max_memory (600Mi)."}},
		{"multi-objective weights", func(m *sloModel) {
			mo := minimalSLOMultiObjective()
			mo.Weights = &moWeights{ResponseTime: types.Float64Value(0.5), CPUUsage: types.Float64Value(0.1), MemoryUsage: types.Float64Value(0.1),
				CPULimit: types.Float64Value(0.1), MemoryLimit: types.Float64Value(0.1), Replicas: types.Float64Value(0.2)}
			mo.WeightPreset = types.StringValue("Balanced")
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: mo}
		}, []string{"Set elasticity_strategy.multi_objective.weights or elasticity_strategy.multi_objective.weight_preset, not both.",
			"The elasticity_strategy.multi_objective.weights must sum to exactly 1; response_time + cpu_usage + memory_usage + cpu_limit + memory_limit + replicas = 0.5 + 0.1 + 0.1 + 0.1 + 0.1 + 0.2 = 1.1. Adjust them, or use elasticity_strategy.multi_objective.weight_preset."}},
		{"multi-objective weights summing to 1 in decimals", func(m *sloModel) {
			mo := minimalSLOMultiObjective()
			mo.Weights = &moWeights{ResponseTime: types.Float64Value(0.7), CPUUsage: types.Float64Value(0.1), MemoryUsage: types.Float64Value(0.1),
				CPULimit: types.Float64Value(0.1), MemoryLimit: types.Float64Value(0), Replicas: types.Float64Value(0)}
			m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue("MultiObjective"), MultiObjective: mo}
		}, nil},
		{"vertical bounds equal in other spellings", func(m *sloModel) {
			m.ElasticityStrategy.Vertical = &sloVertical{MinCPU: types.StringValue("1"), MaxCPU: types.StringValue("1000m"),
				MinMemory: types.StringValue("1Gi"), MaxMemory: types.StringValue("1024Mi")}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := minimalSLO()
			tt.modify(&m)
			var got []string
			for _, e := range validateSLO(&m).Errors() {
				got = append(got, e.Detail())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDecimalString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0.1", "0.1"}, {"100m", "0.1"}, {"99.9", "99.9"}, {"99900m", "99.9"}, {"250m", "0.25"}, {"100", "100"},
		{"1k", "1000"}, {"1e3", "1000"}, {"0", "0"}, {"1m", "0.001"}, {"1Gi", "1Gi"},
	} {
		if got := decimalString(*qty(tt.in)); got != tt.want {
			t.Errorf("decimalString(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestSLOSchemaDescriptions checks that every attribute of hca_slo documents
// itself, as the generated docs show nothing else.
func TestSLOSchemaDescriptions(t *testing.T) {
	var resp fwresource.SchemaResponse
	NewSLOResource().Schema(context.Background(), fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if diags := resp.Schema.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("schema implementation: %v", diags)
	}
	n := 0
	walkResourceAttributes("", resp.Schema.Attributes, func(name string, a schema.Attribute) {
		n++
		if strings.TrimSpace(a.GetDescription()) == "" {
			t.Errorf("%s has no description", name)
		}
	})
	if n != 92 {
		t.Errorf("hca_slo has %d attributes, want 92 (update this test with the schema)", n)
	}
}

func checkSLO(c client.Client, ns, name string, check func(*hcav1.ServiceLevelObjective) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var slo hcav1.ServiceLevelObjective
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &slo); err != nil {
			return err
		}
		return check(&slo)
	}
}

func checkSLOGone(c client.Client, ns string, names ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		for _, name := range names {
			err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &hcav1.ServiceLevelObjective{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("ServiceLevelObjective %s/%s still there (get: %v)", ns, name, err)
			}
		}
		return nil
	}
}

func sloHCL(lab labCluster, name, ns, body string) string {
	return accProvider(lab) + fmt.Sprintf(`
resource "hca_slo" "web" {
  name      = %q
  namespace = %q
%s
}
`, name, ns, body)
}

func TestAccSLOResource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-slo")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	renamed := name + "-v2"
	const addr = "hca_slo.web"
	latency := `  target    = { name = "web" }
  slo = {
    type    = "latency"
    latency = { percentile = "99.9", threshold = "200ms" }
  }
  elasticity_strategy = {
    kind       = "Horizontal"
    horizontal = { max_replicas = 10 }
  }`
	cost := `  target = { kind = "StatefulSet", name = "web" }
  slo = {
    type = "cost-efficiency"
    cost_efficiency = {
      response_time_threshold = "100ms"
      target_cost_efficiency  = "50"
      min_requests_percentile = 90
      histogram_metric        = "web_request_seconds"
    }
  }
  tolerance           = "0.05"
  evaluation_interval = "1m"
  stabilization       = { scale_up = "30s" }
  elasticity_strategy = {
    kind       = "Vertical"
    horizontal = { min_replicas = 2, max_replicas = 10 }
    vertical = {
      container   = "app"
      min_cpu     = "100m"
      max_cpu     = "2"
      min_memory  = "64Mi"
      max_memory    = "2Gi"
      memory_step   = "128Mi"
      resize_policy = "InPlaceOrRecreate"
    }
  }`
	availability := `  target = { name = "web" }
  slo = {
    type         = "availability"
    availability = { target_percent = "99.95", requests_metric = "web_requests_total", error_codes = "5..|429" }
  }
  stabilization = { scale_up = "15s", scale_down = "10m" }
  elasticity_strategy = {
    kind  = "Burst"
    burst = { burst_policy_name = "web" }
  }`
	custom := `  target = { name = "web" }
  slo = {
    type   = "custom"
    custom = { query = "sum(rate(http_requests_total{app=\"web\"}[1m]))", target_value = "250", direction = "above" }
  }
  elasticity_strategy = {
    kind       = "Horizontal"
    horizontal = { min_replicas = 2, max_replicas = 4 }
  }`
	cpu := `  target = { name = "web" }
  slo = {
    type            = "cpu-utilization"
    cpu_utilization = { target_average_utilization = 70 }
  }
  elasticity_strategy = {
    kind       = "Horizontal"
    horizontal = { max_replicas = 6 }
  }`
	importStep := func(n string) resource.TestStep {
		return resource.TestStep{ResourceName: addr, ImportState: true, ImportStateId: ns + "/" + n, ImportStateVerify: true}
	}
	accTest(t, resource.TestCase{
		CheckDestroy: checkSLOGone(c, ns, name, renamed),
		Steps: []resource.TestStep{
			{
				Config: sloHCL(lab, name, ns, latency),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", ns+"/"+name),
					resource.TestCheckResourceAttr(addr, "tolerance", "0.1"),
					resource.TestCheckResourceAttr(addr, "evaluation_interval", "20s"),
					resource.TestCheckNoResourceAttr(addr, "slo.latency.histogram_metric"),
					resource.TestCheckNoResourceAttr(addr, "elasticity_strategy.horizontal.min_replicas"),
					resource.TestCheckResourceAttr(addr, "ready", "false"),
					resource.TestCheckResourceAttr(addr, "current_value", ""),
					resource.TestCheckNoResourceAttr(addr, "compliance_percent"),
					resource.TestCheckResourceAttr(addr, "conditions.#", "0"),
					checkSLO(c, ns, name, func(slo *hcav1.ServiceLevelObjective) error {
						s := slo.Spec
						l := s.SLO.Latency
						if s.SLO.Type != "latency" || l == nil || l.Percentile.Cmp(*qty("99.9")) != 0 || l.Threshold.Duration != 200*time.Millisecond {
							return fmt.Errorf("slo %+v latency %+v", s.SLO, l)
						}
						// The API server's defaults.
						if s.Target.Kind != "Deployment" || l.HistogramMetric != sloDefaultHistogramMetric || s.Tolerance.Cmp(*qty("0.1")) != 0 ||
							s.EvaluationInterval.Duration != 20*time.Second || s.ElasticityStrategy.Horizontal.MinReplicas != 1 {
							return fmt.Errorf("defaults: %+v", s)
						}
						return nil
					}),
				),
			},
			importStep(name),
			{
				Config: sloHCL(lab, name, ns, cost),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				Check: checkSLO(c, ns, name, func(slo *hcav1.ServiceLevelObjective) error {
					s := slo.Spec
					ce := s.SLO.CostEfficiency
					if s.SLO.Latency != nil || ce == nil || ce.ResponseTimeThreshold.Duration != 100*time.Millisecond || ce.TargetCostEfficiency.Cmp(*qty("50")) != 0 ||
						*ce.MinRequestsPercentile != 90 || ce.HistogramMetric != "web_request_seconds" || s.Target.Kind != "StatefulSet" {
						return fmt.Errorf("slo %+v cost %+v", s.SLO, ce)
					}
					if s.Tolerance.Cmp(*qty("0.05")) != 0 || s.EvaluationInterval.Duration != time.Minute ||
						s.Stabilization.ScaleUp.Duration != 30*time.Second || s.Stabilization.ScaleDown.Duration != 5*time.Minute {
						return fmt.Errorf("tolerance %v interval %v stabilization %+v", s.Tolerance, s.EvaluationInterval, s.Stabilization)
					}
					e := s.ElasticityStrategy
					v := e.Vertical
					if e.Kind != "Vertical" || e.Horizontal.MinReplicas != 2 || v == nil || v.Container != "app" || v.MinCPU.Cmp(*qty("100m")) != 0 ||
						v.MaxMemory.Cmp(*qty("2Gi")) != 0 || v.CPUStep.Cmp(*qty("100m")) != 0 || v.MemoryStep.Cmp(*qty("128Mi")) != 0 ||
						v.ResizePolicy != "InPlaceOrRecreate" {
						return fmt.Errorf("strategy %+v vertical %+v", e, v)
					}
					return nil
				}),
			},
			importStep(name),
			{
				Config: sloHCL(lab, name, ns, availability),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "tolerance", "0.1"),
					resource.TestCheckNoResourceAttr(addr, "elasticity_strategy.vertical"),
					checkSLO(c, ns, name, func(slo *hcav1.ServiceLevelObjective) error {
						s := slo.Spec
						a := s.SLO.Availability
						if s.SLO.CostEfficiency != nil || a == nil || a.TargetPercent.Cmp(*qty("99.95")) != 0 || a.RequestsMetric != "web_requests_total" || a.ErrorCodes != "5..|429" {
							return fmt.Errorf("slo %+v availability %+v", s.SLO, a)
						}
						e := s.ElasticityStrategy
						if e.Kind != "Burst" || e.Burst == nil || e.Burst.BurstPolicyName != "web" || e.Horizontal != nil || e.Vertical != nil || s.Tolerance.Cmp(*qty("0.1")) != 0 {
							return fmt.Errorf("strategy %+v tolerance %v", e, s.Tolerance)
						}
						return nil
					}),
				),
			},
			importStep(name),
			// The runtime reports an evaluation: Read shows it.
			{
				PreConfig: func() {
					var slo hcav1.ServiceLevelObjective
					ctx := context.Background()
					if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &slo); err != nil {
						t.Fatal(err)
					}
					now := metav1.NewTime(time.Date(2025, 3, 1, 9, 4, 5, 0, time.UTC))
					slo.Status = hcav1.ServiceLevelObjectiveStatus{ObservedGeneration: slo.Generation, CurrentValue: "99.91%", CompliancePercent: ptr32(96),
						LastEvaluationTime: &now, Strategy: &hcav1.StrategyRef{Kind: "BurstElasticityStrategy", Name: hcav1.ObjectName(name)},
						Conditions: []metav1.Condition{
							{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Evaluated", Message: "compliance 96% written to BurstElasticityStrategy " + name, LastTransitionTime: now},
							{Type: hcav1.ConditionMetricsAvailable, Status: metav1.ConditionTrue, Reason: "Evaluated", Message: "the SLO's metrics returned a value", LastTransitionTime: now},
						}}
					if err := c.Status().Update(ctx, &slo); err != nil {
						t.Fatalf("write status: %v", err)
					}
				},
				Config: sloHCL(lab, name, ns, availability),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "current_value", "99.91%"),
					resource.TestCheckResourceAttr(addr, "compliance_percent", "96"),
					resource.TestCheckResourceAttr(addr, "last_evaluation_time", "2025-03-01T09:04:05Z"),
					resource.TestCheckResourceAttr(addr, "strategy_kind", "BurstElasticityStrategy"),
					resource.TestCheckResourceAttr(addr, "strategy_name", name),
					resource.TestCheckResourceAttr(addr, "ready", "true"),
					resource.TestCheckResourceAttr(addr, "conditions.#", "2"),
					resource.TestCheckResourceAttr(addr, "conditions.0.type", "MetricsAvailable"),
					resource.TestCheckResourceAttr(addr, "conditions.1.type", "Ready"),
					resource.TestCheckResourceAttr(addr, "conditions.1.status", "True"),
					resource.TestCheckResourceAttr(addr, "conditions.1.message", "compliance 96% written to BurstElasticityStrategy "+name),
				),
			},
			// A new name replaces the object.
			{
				Config: sloHCL(lab, renamed, ns, custom),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", ns+"/"+renamed),
					resource.TestCheckResourceAttr(addr, "ready", "false"),
					func(s *terraform.State) error { return checkSLOGone(c, ns, name)(s) },
					checkSLO(c, ns, renamed, func(slo *hcav1.ServiceLevelObjective) error {
						cu := slo.Spec.SLO.Custom
						if cu == nil || cu.Query != `sum(rate(http_requests_total{app="web"}[1m]))` || cu.TargetValue.Cmp(*qty("250")) != 0 || cu.Direction != "above" {
							return fmt.Errorf("custom %+v", cu)
						}
						return nil
					}),
				),
			},
			importStep(renamed),
			{
				Config: sloHCL(lab, renamed, ns, cpu),
				Check: checkSLO(c, ns, renamed, func(slo *hcav1.ServiceLevelObjective) error {
					if cu := slo.Spec.SLO.CPUUtilization; cu == nil || cu.TargetAverageUtilization != 70 || slo.Spec.SLO.Custom != nil {
						return fmt.Errorf("slo %+v", slo.Spec.SLO)
					}
					return nil
				}),
			},
			importStep(renamed),
			// Bad import IDs.
			{ResourceName: addr, ImportState: true, ImportStateId: renamed, ExpectError: errorRe("Invalid import ID",
				fmt.Sprintf(`The import ID %q is not <namespace>/<name>: it has no '/'. Use the ServiceLevelObjective's namespace and name`, renamed))},
			{ResourceName: addr, ImportState: true, ImportStateId: "Shop/" + renamed, ExpectError: errorRe("Invalid import ID",
				fmt.Sprintf(`The import ID "Shop/%s" is not <namespace>/<name>: the namespace "Shop" is not a DNS label (1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit). Use the ServiceLevelObjective's namespace and name`, renamed))},
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/absent", ExpectError: errorRe("Cannot import non-existent remote object")},
			// Drift: changed out of band, then deleted out of band; each
			// time the plan shows it and apply restores the configuration.
			{
				PreConfig: func() {
					var slo hcav1.ServiceLevelObjective
					ctx := context.Background()
					if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: renamed}, &slo); err != nil {
						t.Fatal(err)
					}
					slo.Spec.ElasticityStrategy.Horizontal.MaxReplicas = 60
					slo.Spec.SLO.CPUUtilization.TargetAverageUtilization = 50
					if err := c.Update(ctx, &slo); err != nil {
						t.Fatalf("update out of band: %v", err)
					}
				},
				Config:             sloHCL(lab, renamed, ns, cpu),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: sloHCL(lab, renamed, ns, cpu),
				Check: checkSLO(c, ns, renamed, func(slo *hcav1.ServiceLevelObjective) error {
					if slo.Spec.ElasticityStrategy.Horizontal.MaxReplicas != 6 || slo.Spec.SLO.CPUUtilization.TargetAverageUtilization != 70 {
						return fmt.Errorf("not restored: %+v %+v", slo.Spec.ElasticityStrategy.Horizontal, slo.Spec.SLO.CPUUtilization)
					}
					return nil
				}),
			},
			{
				PreConfig: func() {
					if err := c.Delete(context.Background(), &hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: renamed}}); err != nil {
						t.Fatalf("delete out of band: %v", err)
					}
				},
				Config:             sloHCL(lab, renamed, ns, cpu),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: sloHCL(lab, renamed, ns, cpu),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
				Check: checkSLO(c, ns, renamed, func(*hcav1.ServiceLevelObjective) error { return nil }),
			},
		},
	})
}

// TestAccSLOResource_invalid checks the plan-time diagnostics of invalid
// configurations. They need no lab: Terraform stops at validation.
func TestAccSLOResource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	const latency = `slo = { type = "latency", latency = { percentile = "99", threshold = "200ms" } }`
	const horizontal = `elasticity_strategy = { kind = "Horizontal", horizontal = { max_replicas = 3 } }`
	tests := []struct {
		name, body string
		want       []string
	}{
		{"type without its block", `slo = { type = "availability" }` + "\n" + horizontal,
			[]string{"Missing slo.availability", "slo.availability (target_percent) is required when slo.type is availability."}},
		{"block of another type", `slo = { type = "latency", latency = { percentile = "99", threshold = "200ms" }, cpu_utilization = { target_average_utilization = 50 } }` + "\n" + horizontal,
			[]string{"Invalid slo.cpu_utilization", "slo.cpu_utilization is set but slo.type is latency: remove cpu_utilization or set type to cpu-utilization."}},
		{"unknown type", `slo = { type = "throughput" }` + "\n" + horizontal,
			[]string{"Invalid Attribute Value Match", `Attribute slo.type value must be one of: ["cpu-utilization" "latency" "cost-efficiency" "availability" "custom"], got: "throughput"`}},
		{"strategy block missing", latency + "\n" + `elasticity_strategy = { kind = "Burst", horizontal = { max_replicas = 3 } }`,
			[]string{"Missing elasticity_strategy.burst", "elasticity_strategy.burst (burst_policy_name) is required when kind is Burst."}},
		{"min above max", latency + "\n" + `elasticity_strategy = { kind = "Horizontal", horizontal = { min_replicas = 5, max_replicas = 3 } }`,
			[]string{"Invalid elasticity_strategy.horizontal.min_replicas", "elasticity_strategy.horizontal.min_replicas (5) must be <= max_replicas (3)."}},
		{"min_cpu above max_cpu", latency + "\n" + `elasticity_strategy = { kind = "Vertical", vertical = { min_cpu = "2", max_cpu = "500m", min_memory = "64Mi", max_memory = "1Gi" } }`,
			[]string{"Invalid elasticity_strategy.vertical.min_cpu", "elasticity_strategy.vertical.min_cpu (2) must be <= max_cpu (500m)."}},
		{"min_memory zero", latency + "\n" + `elasticity_strategy = { kind = "Vertical", vertical = { min_cpu = "1", max_cpu = "2", min_memory = "0", max_memory = "1Gi" } }`,
			[]string{"Invalid elasticity_strategy.vertical.min_memory", `elasticity_strategy.vertical.min_memory must be greater than 0, got "0": use a quantity such as "64Mi".`}},
		{"tolerance", latency + "\n" + horizontal + "\ntolerance = \"1\"",
			[]string{"Invalid tolerance", `tolerance must be a decimal at least 0 and less than 1, got "1".`}},
		{"evaluation_interval", latency + "\n" + horizontal + "\nevaluation_interval = \"500ms\"",
			[]string{"Invalid evaluation_interval", `evaluation_interval must be at least 1s, got "500ms".`}},
		{"percentile", `slo = { type = "latency", latency = { percentile = "100", threshold = "200ms" } }` + "\n" + horizontal,
			[]string{"Invalid slo.latency.percentile", `slo.latency.percentile must be a decimal greater than 0 and less than 100, got "100".`}},
		{"threshold", `slo = { type = "latency", latency = { percentile = "99", threshold = "0s" } }` + "\n" + horizontal,
			[]string{"Invalid slo.latency.threshold", `slo.latency.threshold must be greater than 0s, got "0s".`}},
		{"error_codes 5xx", `slo = { type = "availability", availability = { target_percent = "99.9", error_codes = "5xx" } }` + "\n" + horizontal,
			[]string{"Invalid slo.availability.error_codes", `slo.availability.error_codes "5xx" matches no HTTP status code (100 to 599)`}},
		{"target_percent", `slo = { type = "availability", availability = { target_percent = "100.1" } }` + "\n" + horizontal,
			[]string{"Invalid slo.availability.target_percent", `slo.availability.target_percent must be a decimal greater than 0 and at most 100, got "100.1".`}},
		{"custom target_value", `slo = { type = "custom", custom = { query = "up", target_value = "0" } }` + "\n" + horizontal,
			[]string{"Invalid slo.custom.target_value", `slo.custom.target_value must be a decimal greater than 0, got "0".`}},
		{"histogram_metric", `slo = { type = "latency", latency = { percentile = "99", threshold = "1s", histogram_metric = "http-seconds" } }` + "\n" + horizontal,
			[]string{"Invalid Attribute Value Match", "Attribute slo.latency.histogram_metric must be a Prometheus metric name: letters, digits, '_' and ':', not starting with a digit, got: http-seconds"}},
		{"target_average_utilization", `slo = { type = "cpu-utilization", cpu_utilization = { target_average_utilization = 101 } }` + "\n" + horizontal,
			[]string{"Invalid Attribute Value", "Attribute slo.cpu_utilization.target_average_utilization value must be between 1 and 100, got: 101"}},
		{"stabilization", latency + "\n" + horizontal + "\nstabilization = { scale_down = \"5 minutes\" }",
			[]string{"Invalid Attribute Value Match", `Attribute stabilization.scale_down must be a Go duration such as "30s", "5m" or "1h30m", got: 5 minutes`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\nresource \"hca_slo\" \"this\" {\n  name = \"web\"\n  namespace = \"shop\"\n  target = { name = \"web\" }\n  %s\n}\n",
						kubeconfig, tt.body),
					ExpectError: errorRe(tt.want[0], tt.want[1:]...),
				}},
			})
		})
	}
}

// TestAccSLOResource_example plans examples/resources/hca_slo with the real
// Terraform CLI.
func TestAccSLOResource_example(t *testing.T) {
	planExample(t, "hca_slo")
}

// TestAccSLOResource_importThenPlan imports a ServiceLevelObjective whose
// configuration spells its quantities and durations otherwise than the API
// holds them (tolerance "0.10" for 100m, percentile "99.90" for 99.9,
// threshold "0.2s" for 200ms, evaluation_interval "1m" for 60s): the plan
// after the import is empty.
func TestAccSLOResource_importThenPlan(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-slo-imp")
	m := minimalSLO()
	obj, err := m.toAPI()
	if err != nil {
		t.Fatal(err)
	}
	obj.Namespace, obj.Name = ns, "web-latency"
	obj.Spec.Tolerance, obj.Spec.EvaluationInterval = qty("100m"), dur("60s")
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("create the ServiceLevelObjective to import: %v", err)
	}
	cfg := accProvider(lab) + fmt.Sprintf(`
resource "hca_slo" "web" {
  name                = "web-latency"
  namespace           = %q
  target              = { name = "web" }
  slo                 = { type = "latency", latency = { percentile = "99.90", threshold = "0.2s" } }
  tolerance           = "0.10"
  evaluation_interval = "1m"
  elasticity_strategy = { kind = "Horizontal", horizontal = { max_replicas = 10 } }
}
`, ns)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: "hca_slo.web", ImportState: true, ImportStateId: ns + "/web-latency", ImportStatePersist: true},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccSLOResource_multiObjective applies an hca_slo of kind MultiObjective
// against the lab, reads it back (the API's defaults stay unset, spellings
// are kept: no diff after apply), changes every argument, imports it, and
// switches it to Horizontal with the MultiObjective configuration kept.
func TestAccSLOResource_multiObjective(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-slo-moha")
	const addr = "hca_slo.web"
	slo := `  target = { name = "web" }
  slo = {
    type    = "latency"
    latency = { percentile = "50", threshold = "0.12s" }
  }`
	minimal := slo + `
  elasticity_strategy = {
    kind = "MultiObjective"
    multi_objective = {
      model  = { config_map_name = "web-model" }
      ranges = { min_cpu = "300m", max_cpu = "0.5", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }
    }
  }`
	full := slo + `
  elasticity_strategy = {
    kind       = "%s"
    horizontal = { max_replicas = 6 }
    multi_objective = {
      model             = { config_map_name = "web-model", key = "svr.json" }
      desired           = { cpu_usage_percent = 70 }
      ranges            = { min_cpu = "300m", max_cpu = "1500m", min_memory = "400Mi", max_memory = "1Gi", min_replicas = 2, max_replicas = 8 }
      weights           = { response_time = 0.4, cpu_usage = 0.1, memory_usage = 0.1, cpu_limit = 0.2, memory_limit = 0.1, replicas = 0.1 }
      tolerance_percent = 5
      interval          = "1m"
      cooldown          = "90s"
      container         = "app"
      resize_policy     = "InPlaceOrRecreate"
      metrics           = { requests_per_second = "sum(rate(http_requests_total{namespace=\"$namespace\",app=\"$name\"}[30s]))" }
    }
  }`
	accTest(t, resource.TestCase{
		CheckDestroy: checkSLOGone(c, ns, "web-latency"),
		Steps: []resource.TestStep{
			{
				Config: sloHCL(lab, "web-latency", ns, minimal),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "elasticity_strategy.kind", "MultiObjective"),
					resource.TestCheckResourceAttr(addr, "elasticity_strategy.multi_objective.ranges.max_cpu", "0.5"),
					resource.TestCheckNoResourceAttr(addr, "elasticity_strategy.multi_objective.model.key"),
					resource.TestCheckNoResourceAttr(addr, "elasticity_strategy.multi_objective.tolerance_percent"),
					checkSLO(c, ns, "web-latency", func(s *hcav1.ServiceLevelObjective) error {
						mo := s.Spec.ElasticityStrategy.MultiObjective
						if s.Spec.ElasticityStrategy.Kind != hcav1.StrategyMultiObjective || mo == nil {
							return fmt.Errorf("elasticityStrategy %+v, want kind MultiObjective with multiObjective", s.Spec.ElasticityStrategy)
						}
						// The API server's defaults, which the state leaves unset.
						if mo.Model.ConfigMapName != "web-model" || mo.Model.Key != "model.json" || mo.TolerancePercent != 10 || mo.Interval.Duration != 30*time.Second ||
							mo.Cooldown.Duration != 2*time.Minute || mo.ResizePolicy != "Recreate" || mo.Ranges.MinReplicas != 1 || mo.Ranges.MaxCPU.Cmp(kresource.MustParse("500m")) != 0 || mo.Desired != nil {
							return fmt.Errorf("multiObjective %+v", mo)
						}
						return nil
					}),
				),
			},
			{
				Config: sloHCL(lab, "web-latency", ns, fmt.Sprintf(full, "MultiObjective")),
				Check: checkSLO(c, ns, "web-latency", func(s *hcav1.ServiceLevelObjective) error {
					mo := s.Spec.ElasticityStrategy.MultiObjective
					if mo == nil || mo.Model.Key != "svr.json" || mo.Desired == nil || mo.Desired.CPUUsagePercent != 70 || mo.Desired.MemoryUsagePercent != 80 ||
						mo.Weights == nil || mo.Weights.CPULimit.Cmp(kresource.MustParse("0.2")) != 0 || mo.TolerancePercent != 5 || mo.Cooldown.Duration != 90*time.Second ||
						mo.Container != "app" || mo.ResizePolicy != "InPlaceOrRecreate" || mo.Metrics == nil || !strings.Contains(mo.Metrics.RequestsPerSecond, "[30s]") ||
						mo.Ranges.MinReplicas != 2 || mo.Ranges.MaxMemory.Cmp(kresource.MustParse("1Gi")) != 0 {
						return fmt.Errorf("multiObjective %+v", mo)
					}
					return nil
				}),
			},
			// An import reads durations in their shortest spelling.
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/web-latency", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"slo.latency.threshold", "elasticity_strategy.multi_objective.cooldown"}},
			{
				Config: sloHCL(lab, "web-latency", ns, fmt.Sprintf(full, "Horizontal")),
				Check: checkSLO(c, ns, "web-latency", func(s *hcav1.ServiceLevelObjective) error {
					if s.Spec.ElasticityStrategy.Kind != hcav1.StrategyHorizontal || s.Spec.ElasticityStrategy.MultiObjective == nil {
						return fmt.Errorf("elasticityStrategy %+v, want Horizontal with multiObjective kept", s.Spec.ElasticityStrategy)
					}
					return nil
				}),
			},
		},
	})
}
