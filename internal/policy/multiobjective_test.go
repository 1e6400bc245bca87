package policy

import (
	"testing"
	"time"

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
			Cooldown: 2 * time.Minute, HeadroomPercent: 20, MinDecreasePercent: 10}},
		{"preset, tolerance and cooldown", func(s *hcav1.MultiObjectiveElasticityStrategySpec) {
			s.WeightPreset, s.TolerancePercent, s.Cooldown = hcav1.WeightsResourcesFirst, 5, &metav1.Duration{Duration: time.Minute}
			s.Desired.CPUUsagePercent, s.Ranges.MinReplicas = 60, 2
		}, moha.Loop{
			Config: moha.Config{Desired: moha.Desired{ResponseTimeMs: 250, CPUUsagePercent: 60, MemoryUsagePercent: 80},
				Ranges:  moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 1500}, MemoryLimitMiB: moha.Range{Min: 512, Max: 1024}, Replicas: moha.Range{Min: 2, Max: 7}},
				Weights: moha.ResourcesFirst},
			TolerancePercent: 5, Cooldown: time.Minute, HeadroomPercent: 20, MinDecreasePercent: 10}},
		{"explicit weights", func(s *hcav1.MultiObjectiveElasticityStrategySpec) {
			s.Weights = &hcav1.MultiObjectiveWeights{ResponseTime: q("0.7"), CPUUsage: q("0"), MemoryUsage: q("0"), CPULimit: q("0.1"), MemoryLimit: q("0.1"), Replicas: q("100m")}
		}, moha.Loop{
			Config: moha.Config{Desired: moha.Desired{ResponseTimeMs: 250, CPUUsagePercent: 85, MemoryUsagePercent: 80},
				Ranges:  moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 1500}, MemoryLimitMiB: moha.Range{Min: 512, Max: 1024}, Replicas: moha.Range{Min: 1, Max: 7}},
				Weights: moha.Weights{ResponseTime: 0.7, CPULimit: 0.1, MemoryLimit: 0.1, Replicas: 0.1}},
			Cooldown: 2 * time.Minute, HeadroomPercent: 20, MinDecreasePercent: 10}},
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
