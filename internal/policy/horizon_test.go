package policy

import (
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

func TestDeriveHorizons(t *testing.T) {
	s := time.Second
	set := func(d time.Duration) *hcav1.AdaptiveAlgorithm {
		return &hcav1.AdaptiveAlgorithm{ForecastHorizon: &metav1.Duration{Duration: d}}
	}
	for _, c := range []struct {
		name        string
		ad          *hcav1.AdaptiveAlgorithm
		f           ReadyFigures
		pods, nodes time.Duration
		says        string
	}{
		// Defaults: 15 s age + 10 s start-up = 25 s, a whole step up.
		{"nothing known", nil, ReadyFigures{}, 30 * s, 0, "pod start-up 10s default"},
		{"no forecastHorizon in adaptive", &hcav1.AdaptiveAlgorithm{}, ReadyFigures{}, 30 * s, 0, "derived"},
		// 15 + 50 = 65 s: 75 s.
		{"measured start-up", nil, ReadyFigures{PodStartups: []time.Duration{50 * s}}, 75 * s, 0, "pod start-up 50s measured on 1 pod"},
		// p90 of 10 start-ups is the 9th: 40 s; 15 + 40 = 55 s: 60 s.
		{"p90 of start-ups", nil, ReadyFigures{PodStartups: []time.Duration{5 * s, 100 * s, 10 * s, 40 * s, 10 * s, 10 * s, 10 * s, 10 * s, 10 * s, 10 * s}}, time.Minute, 0, "p90 of 10 pods"},
		{"metric age given", nil, ReadyFigures{MetricAge: 30 * s, PodStartups: []time.Duration{15 * s}}, 45 * s, 0, "metric age 30s"},
		// 15 + 10 + 75 (default boot) + 10 = 110 s: 120 s.
		{"node groups, default boot", nil, ReadyFigures{NodeGroups: true}, 30 * s, 2 * time.Minute, "node boot 1m15s default + capacity round 10s"},
		// 15 + 20 + 3 min + 10 s = 3m45s.
		{"node groups, observed boots", nil, ReadyFigures{NodeGroups: true, PodStartups: []time.Duration{20 * s}, NodeBoots: []time.Duration{3 * time.Minute, time.Minute}}, 45 * s, 3*time.Minute + 45*s, "node boot 3m0s measured, p90 of 2 nodes"},
		{"boots without node groups count for nothing", nil, ReadyFigures{NodeBoots: []time.Duration{time.Minute}}, 30 * s, 0, ""},
		{"explicit wins", set(2 * time.Minute), ReadyFigures{NodeGroups: true, PodStartups: []time.Duration{50 * s}}, 2 * time.Minute, 0, "forecast horizon 2m0s (forecastHorizon)"},
		{"0s turns forecasting off", set(0), ReadyFigures{NodeGroups: true}, 0, 0, "forecasting off"},
		{"capped at 1h", nil, ReadyFigures{NodeGroups: true, NodeBoots: []time.Duration{2 * time.Hour}}, 30 * s, time.Hour, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := DeriveHorizons(c.ad, c.f)
			if h.Pods != c.pods || h.Nodes != c.nodes {
				t.Errorf("DeriveHorizons = %v, %v; want %v, %v", h.Pods, h.Nodes, c.pods, c.nodes)
			}
			if !strings.Contains(h.String(), c.says) {
				t.Errorf("String() = %q, want it to contain %q", h.String(), c.says)
			}
			cfg, err := AdaptiveConfigFor(c.ad, h)
			if err != nil {
				t.Fatalf("AdaptiveConfigFor: %v", err)
			}
			if cfg.Horizon != c.pods || cfg.NodeHorizon != c.nodes {
				t.Errorf("AdaptiveConfigFor horizons = %v, %v; want %v, %v", cfg.Horizon, cfg.NodeHorizon, c.pods, c.nodes)
			}
		})
	}
}

func TestRoom(t *testing.T) {
	pod := scaling.PodRequests{CPUMilli: 500, MemoryBytes: 1 << 30}
	for _, c := range []struct {
		name    string
		fit     int32
		targets []TargetRoom
		pod     scaling.PodRequests
		want    int32
	}{
		{"primary only", 3, nil, pod, 3},
		{"probed target: the scarcer resource", 1, []TargetRoom{{Usable: true, Probed: true, FreeCPUMilli: 2000, FreeMemoryBytes: 3 << 30, NodeGroups: true, Spare: -1}}, pod, 4},
		{"probed, spare limits", 0, []TargetRoom{{Usable: true, Probed: true, FreeCPUMilli: 2000, FreeMemoryBytes: 8 << 30, Spare: 2}}, pod, 2},
		{"negative free is none", 2, []TargetRoom{{Usable: true, Probed: true, FreeCPUMilli: -500, FreeMemoryBytes: 8 << 30, Spare: -1}}, pod, 2},
		{"unprobed node groups: no known room", 0, []TargetRoom{{Usable: true, NodeGroups: true, Spare: -1}}, pod, 0},
		{"unprobed without node groups: unlimited", 0, []TargetRoom{{Usable: true, Spare: -1}}, pod, math.MaxInt32},
		{"unprobed without node groups, limited", 1, []TargetRoom{{Usable: true, Spare: 5}}, pod, 6},
		{"unusable counts nothing", 1, []TargetRoom{{Usable: false, Spare: -1}}, pod, 1},
		{"no requests fit anywhere probed", 0, []TargetRoom{{Usable: true, Probed: true, Spare: -1}}, scaling.PodRequests{}, math.MaxInt32},
		{"sum saturates", 5, []TargetRoom{{Usable: true, Spare: -1}, {Usable: true, Spare: -1}}, pod, math.MaxInt32},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Room(c.fit, c.targets, c.pod); got != c.want {
				t.Errorf("Room = %d, want %d", got, c.want)
			}
		})
	}
}
