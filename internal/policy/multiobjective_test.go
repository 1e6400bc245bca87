package policy

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
)

func TestMultiObjectiveLoop(t *testing.T) {
	q := resource.MustParse
	spec := hcav1.MultiObjectiveElasticityStrategySpec{
		Desired: hcav1.MultiObjectiveDesired{ResponseTimeMillis: 250},
		MultiObjectiveStaticConfig: hcav1.MultiObjectiveStaticConfig{
			Ranges: hcav1.MultiObjectiveRanges{MinCPU: q("0.3"), MaxCPU: q("1500m"), MinMemory: q("512Mi"), MaxMemory: q("1Gi"), MaxReplicas: 7},
		},
	}
	tests := []struct {
		name   string
		change func(s *hcav1.MultiObjectiveElasticityStrategySpec)
		want   moha.Loop
	}{
		// Unset: usages 85 % CPU and 80 % memory (the CRD's defaults when the
		// API server did not apply them), min replicas 1, balanced weights,
		// 2 min cooldown; headroom and hysteresis are the package's.
		{"defaults", func(*hcav1.MultiObjectiveElasticityStrategySpec) {}, moha.Loop{
			Config: moha.Config{Desired: moha.Desired{ResponseTimeMs: 250, CPUUsagePercent: 85, MemoryUsagePercent: 80},
				Ranges:  moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 1500}, MemoryLimitMiB: moha.Range{Min: 512, Max: 1024}, Replicas: moha.Range{Min: 1, Max: 7}},
				Weights: moha.Balanced},
			Cooldown: 2 * time.Minute, HeadroomPercent: 20, LoadHeadroomPercent: 10, MinDecreasePercent: 5}},
		{"preset, tolerance and cooldown", func(s *hcav1.MultiObjectiveElasticityStrategySpec) {
			s.WeightPreset, s.TolerancePercent, s.Cooldown = hcav1.WeightsResourcesFirst, 5, &metav1.Duration{Duration: time.Minute}
			s.Desired.CPUUsagePercent, s.Ranges.MinReplicas = 60, 2
		}, moha.Loop{
			Config: moha.Config{Desired: moha.Desired{ResponseTimeMs: 250, CPUUsagePercent: 60, MemoryUsagePercent: 80},
				Ranges:  moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 1500}, MemoryLimitMiB: moha.Range{Min: 512, Max: 1024}, Replicas: moha.Range{Min: 2, Max: 7}},
				Weights: moha.ResourcesFirst},
			TolerancePercent: 5, Cooldown: time.Minute, HeadroomPercent: 20, LoadHeadroomPercent: 10, MinDecreasePercent: 5}},
		{"explicit weights", func(s *hcav1.MultiObjectiveElasticityStrategySpec) {
			s.Weights = &hcav1.MultiObjectiveWeights{ResponseTime: q("0.7"), CPUUsage: q("0"), MemoryUsage: q("0"), CPULimit: q("0.1"), MemoryLimit: q("0.1"), Replicas: q("100m")}
		}, moha.Loop{
			Config: moha.Config{Desired: moha.Desired{ResponseTimeMs: 250, CPUUsagePercent: 85, MemoryUsagePercent: 80},
				Ranges:  moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 1500}, MemoryLimitMiB: moha.Range{Min: 512, Max: 1024}, Replicas: moha.Range{Min: 1, Max: 7}},
				Weights: moha.Weights{ResponseTime: 0.7, CPULimit: 0.1, MemoryLimit: 0.1, Replicas: 0.1}},
			Cooldown: 2 * time.Minute, HeadroomPercent: 20, LoadHeadroomPercent: 10, MinDecreasePercent: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spec
			tc.change(&s)
			if got := MultiObjectiveLoop(&s); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMultiObjectiveInterval(t *testing.T) {
	for _, tc := range []struct {
		in   *metav1.Duration
		want time.Duration
	}{{nil, 30 * time.Second}, {&metav1.Duration{}, 30 * time.Second}, {&metav1.Duration{Duration: time.Minute}, time.Minute}} {
		if got := MultiObjectiveInterval(&hcav1.MultiObjectiveElasticityStrategySpec{MultiObjectiveStaticConfig: hcav1.MultiObjectiveStaticConfig{Interval: tc.in}}); got != tc.want {
			t.Errorf("interval %v: got %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMultiObjectiveFromSLO(t *testing.T) {
	q := resource.MustParse
	static := hcav1.MultiObjectiveStaticConfig{
		Model:        hcav1.MultiObjectiveModelRef{ConfigMapName: "web-model", Key: "model.json"},
		Ranges:       hcav1.MultiObjectiveRanges{MinCPU: q("300m"), MaxCPU: q("500m"), MinMemory: q("400Mi"), MaxMemory: q("600Mi"), MinReplicas: 1, MaxReplicas: 10},
		WeightPreset: hcav1.WeightsResponseTimeFirst, TolerancePercent: 10,
		Interval: &metav1.Duration{Duration: 30 * time.Second}, Cooldown: &metav1.Duration{Duration: 2 * time.Minute},
		ResizePolicy: "InPlaceOrRecreate", Container: "app",
	}
	base := func() hcav1.ServiceLevelObjectiveSpec {
		return hcav1.ServiceLevelObjectiveSpec{
			Target: hcav1.TargetRef{Name: "web"},
			SLO:    hcav1.SLOSpec{Type: hcav1.SLOLatency, Latency: &hcav1.LatencySLO{Percentile: q("99"), Threshold: metav1.Duration{Duration: 250 * time.Millisecond}}},
			ElasticityStrategy: hcav1.ElasticityStrategy{Kind: hcav1.StrategyMultiObjective,
				MultiObjective: &hcav1.MultiObjectiveSLOConfig{MultiObjectiveStaticConfig: *static.DeepCopy()}},
		}
	}
	want := func(ms, cpu, mem int32) hcav1.MultiObjectiveElasticityStrategySpec {
		return hcav1.MultiObjectiveElasticityStrategySpec{
			Target:                     hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "web"},
			Desired:                    hcav1.MultiObjectiveDesired{ResponseTimeMillis: ms, MultiObjectiveDesiredUsage: hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: cpu, MemoryUsagePercent: mem}},
			MultiObjectiveStaticConfig: *static.DeepCopy(),
		}
	}
	tests := []struct {
		name    string
		change  func(s *hcav1.ServiceLevelObjectiveSpec)
		want    hcav1.MultiObjectiveElasticityStrategySpec
		wantErr string
	}{
		{"threshold in ms, default usages", func(*hcav1.ServiceLevelObjectiveSpec) {}, want(250, 85, 80), ""},
		{"seconds convert to ms", func(s *hcav1.ServiceLevelObjectiveSpec) { s.SLO.Latency.Threshold.Duration = 1500 * time.Millisecond }, want(1500, 85, 80), ""},
		// A fraction of a millisecond rounds up: the target is never tighter than the SLO's.
		{"sub-millisecond rounds up", func(s *hcav1.ServiceLevelObjectiveSpec) { s.SLO.Latency.Threshold.Duration = 100*time.Millisecond + 1 }, want(101, 85, 80), ""},
		{"microseconds give at least 1 ms", func(s *hcav1.ServiceLevelObjectiveSpec) { s.SLO.Latency.Threshold.Duration = 300 * time.Microsecond }, want(1, 85, 80), ""},
		{"hours cap at MaxInt32 ms", func(s *hcav1.ServiceLevelObjectiveSpec) { s.SLO.Latency.Threshold.Duration = 1000 * time.Hour }, want(math.MaxInt32, 85, 80), ""},
		{"usages set", func(s *hcav1.ServiceLevelObjectiveSpec) {
			s.ElasticityStrategy.MultiObjective.Desired = &hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: 70, MemoryUsagePercent: 60}
		}, want(250, 70, 60), ""},
		{"one usage set", func(s *hcav1.ServiceLevelObjectiveSpec) {
			s.ElasticityStrategy.MultiObjective.Desired = &hcav1.MultiObjectiveDesiredUsage{MemoryUsagePercent: 90}
		}, want(250, 85, 90), ""},
		{"explicit Deployment", func(s *hcav1.ServiceLevelObjectiveSpec) { s.Target.Kind = hcav1.WorkloadDeployment }, want(250, 85, 80), ""},
		{"no multiObjective", func(s *hcav1.ServiceLevelObjectiveSpec) { s.ElasticityStrategy.MultiObjective = nil }, hcav1.MultiObjectiveElasticityStrategySpec{},
			"spec.elasticityStrategy.multiObjective (model and ranges) is required"},
		{"not a latency SLO", func(s *hcav1.ServiceLevelObjectiveSpec) {
			s.SLO = hcav1.SLOSpec{Type: hcav1.SLOCPUUtilization, CPUUtilization: &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 50}}
		}, hcav1.MultiObjectiveElasticityStrategySpec{}, `needs spec.slo.type latency, whose threshold is the desired response time (slo.type is "cpu-utilization")`},
		{"StatefulSet", func(s *hcav1.ServiceLevelObjectiveSpec) { s.Target.Kind = hcav1.WorkloadStatefulSet }, hcav1.MultiObjectiveElasticityStrategySpec{},
			"scales a Deployment, spec.target.kind is StatefulSet"},
		{"zero threshold", func(s *hcav1.ServiceLevelObjectiveSpec) { s.SLO.Latency.Threshold.Duration = 0 }, hcav1.MultiObjectiveElasticityStrategySpec{},
			"spec.slo.latency.threshold must be greater than 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			tc.change(&in)
			before := in.DeepCopy()
			got, err := MultiObjectiveFromSLO(&in)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrNotMultiObjective) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want ErrNotMultiObjective with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if !equality.Semantic.DeepEqual(&in, before) {
				t.Error("the SLO's spec was modified")
			}
			// The spec is a copy: changing it leaves the SLO alone.
			got.Ranges.MaxReplicas, got.Interval.Duration = 99, time.Hour
			if in.ElasticityStrategy.MultiObjective.Ranges.MaxReplicas != 10 || in.ElasticityStrategy.MultiObjective.Interval.Duration != 30*time.Second {
				t.Error("the spec shares memory with the SLO")
			}
		})
	}
}
