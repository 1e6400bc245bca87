package simulate

import (
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

func refSLO(t testing.TB) Policy {
	t.Helper()
	data, err := os.ReadFile("../../examples/traces/slo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseInput(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const sloHead = "apiVersion: hca.dev/v1alpha1\nkind: ServiceLevelObjective\nmetadata: {name: web-latency}\nspec:\n  target: {name: web}\n"

func TestParseSLODefaults(t *testing.T) {
	p, err := ParseInput([]byte(sloHead + "  slo: {type: latency, latency: {percentile: \"99\", threshold: 250ms}}\n  elasticityStrategy: {kind: Horizontal, horizontal: {maxReplicas: 7}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := p.SLO
	if s == nil || s.Tolerance != 0.1 || s.Interval.String() != "20s" || s.UpWindow != 0 || s.DownWindow.String() != "5m0s" || s.MinReplicas != 1 || s.MaxReplicas != 7 {
		t.Fatalf("defaults not applied: %+v", s)
	}
	if s.Objective.Percentile != 99 || s.Objective.ThresholdSeconds != 0.25 || p.Algorithm != "slo-horizontal" || p.LatencyPercentile() != 99 {
		t.Fatalf("objective %+v, algorithm %s", s.Objective, p.Algorithm)
	}
}

// TestSLORun: the SLO control loop on constructed traces.
func TestSLORun(t *testing.T) {
	m := refModel(t)
	vertical, err := ParseInput([]byte(sloHead + "  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n  elasticityStrategy:\n    kind: Vertical\n    vertical: {minCPU: 250m, maxCPU: \"2\", minMemory: 512Mi, maxMemory: 2Gi, cpuStep: 250m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	burstData, err := os.ReadFile("../../examples/traces/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	burst, err := ParseInput(append([]byte(sloHead+"  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n  elasticityStrategy: {kind: Burst, burst: {burstPolicyName: web}}\n---\n"), burstData...))
	if err != nil {
		t.Fatal(err)
	}
	// 352 requests/s on 4 pods: 88 per pod, the p90 (histogram_quantile)
	// about 197 ms, compliance within 90..110 %.
	steady := workload.Trace{{Seconds: 0, RPS: 352}, {Seconds: 900, RPS: 352}}
	tests := []struct {
		name   string
		policy Policy
		trace  workload.Trace
		check  func(t *testing.T, r *Result)
	}{
		{"horizontal scales out on the flash crowd", refSLO(t), refTrace(t, "flash-crowd"), func(t *testing.T, r *Result) {
			up := upTicks(r)
			if len(up) == 0 || up[0].Second < 300 || up[0].Second > 300+2*20 || up[0].Compliance <= 110 {
				t.Fatalf("first scale-out %+v: want one within two 20s evaluations of the step at 300 s, on a violation", up)
			}
			need := r.Series.Demand[330]
			if r.Series.Desired[340] < need {
				t.Fatalf("decided %d at 340 s, demand %d", r.Series.Desired[340], need)
			}
			if r.Metrics.TimeToDecide > 40 {
				t.Fatalf("time to decide %v s, want within two evaluations", r.Metrics.TimeToDecide)
			}
		}},
		{"horizontal holds within tolerance", refSLO(t), steady, func(t *testing.T, r *Result) {
			if r.Series.Desired[0] != 4 || r.Metrics.ScalingActions != 0 {
				t.Fatalf("start %d pods, %d actions: want 4 and none", r.Series.Desired[0], r.Metrics.ScalingActions)
			}
			evaluated := 0
			for i, c := range r.Series.Compliance {
				if math.IsNaN(c) {
					continue
				}
				evaluated++
				if c < 90 || c > 110 {
					t.Fatalf("compliance %v at %d s: the case wants 90..110", c, i)
				}
			}
			if evaluated == 0 || len(r.Ticks) != 1 || !strings.Contains(r.Ticks[0].Reason, "within tolerance") {
				t.Fatalf("ticks %+v (evaluated seconds %d): want one decision, within tolerance", r.Ticks, evaluated)
			}
		}},
		{"vertical raises the CPU request on the flash crowd", vertical, refTrace(t, "flash-crowd"), func(t *testing.T, r *Result) {
			if r.Series.CPURequest[0] != 0.5 || r.Series.CPURequest[600] <= 0.5 {
				t.Fatalf("CPU request %v at 0 s and %v at 600 s: want 0.5 rising", r.Series.CPURequest[0], r.Series.CPURequest[600])
			}
			for _, tk := range r.Ticks {
				if tk.Desired != tk.Current {
					t.Fatalf("vertical changed replicas: %+v", tk)
				}
			}
		}},
		{"burst strategy drives the burst policy", burst, refTrace(t, "private-overflow"), func(t *testing.T, r *Result) {
			if r.Metrics.BurstShare <= 0 || r.Metrics.MaxDesired <= 24 {
				t.Fatalf("burst share %v, max decided %d: want pods in burst clusters beyond the private 24", r.Metrics.BurstShare, r.Metrics.MaxDesired)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, run(t, tt.policy, m, tt.trace))
		})
	}
}

func TestSLODeterministic(t *testing.T) {
	m, tr := refModel(t), refTrace(t, "secondary-peak")
	a, b := run(t, refSLO(t), m, tr), run(t, refSLO(t), m, tr)
	if !reflect.DeepEqual(a.Ticks, b.Ticks) || !reflect.DeepEqual(a.Series.Desired, b.Series.Desired) {
		t.Fatal("two runs of the SLO differ")
	}
}

func TestParseSLOErrors(t *testing.T) {
	const hz = "  elasticityStrategy: {kind: Horizontal, horizontal: {maxReplicas: 5}}\n"
	tests := []struct{ name, input, want string }{
		{"unknown SLO type", sloHead + "  slo: {type: throughput}\n" + hz, `spec.slo.type "throughput" is unknown: use cpu-utilization, latency, cost-efficiency or availability`},
		{"missing type", sloHead + "  slo: {latency: {percentile: \"90\", threshold: 200ms}}\n" + hz, "spec.slo.latency is set but spec.slo.type is \"\""},
		{"missing threshold", sloHead + "  slo: {type: latency, latency: {percentile: \"90\"}}\n" + hz, "spec.slo.latency.threshold is missing"},
		{"missing percentile", sloHead + "  slo: {type: latency, latency: {threshold: 200ms}}\n" + hz, "spec.slo.latency.percentile is missing"},
		{"missing latency", sloHead + "  slo: {type: latency}\n" + hz, "spec.slo.latency is missing"},
		{"custom", sloHead + "  slo: {type: custom, custom: {query: up, targetValue: \"1\"}}\n" + hz, "type custom is not simulated"},
		{"cost threshold not a bucket", sloHead + "  slo: {type: cost-efficiency, costEfficiency: {responseTimeThreshold: 300ms, targetCostEfficiency: \"100\"}}\n" + hz, "responseTimeThreshold 300ms is not a bucket bound"},
		{"unknown field", sloHead + "  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms, thresh: 1s}}\n" + hz, `unknown field "thresh"`},
		{"missing max replicas", sloHead + "  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n  elasticityStrategy: {kind: Horizontal, horizontal: {minReplicas: 2}}\n", "spec.elasticityStrategy.horizontal.maxReplicas is missing"},
		{"multi-objective", sloHead + "  slo: {type: latency, latency: {percentile: \"50\", threshold: 100ms}}\n  elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: m}, ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 5}}}\n",
			"kind MultiObjective is not simulated from the SLO: simulate the MultiObjectiveElasticityStrategy the runtime writes for it"},
		{"missing strategy kind", sloHead + "  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n", "spec.elasticityStrategy.kind is missing"},
		{"burst without policy", sloHead + "  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n  elasticityStrategy: {kind: Burst, burst: {burstPolicyName: web}}\n", `the file has no BurstPolicy: add BurstPolicy "web"`},
		{"fractional interval", sloHead + "  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n  evaluationInterval: 1500ms\n" + hz, "spec.evaluationInterval is 1.5s"},
		{"other kind", "apiVersion: hca.dev/v1alpha1\nkind: HybridCluster\n", `kind "HybridCluster": want BurstPolicy or ServiceLevelObjective`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInput([]byte(tt.input))
			if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want ErrInput containing %q", err, tt.want)
			}
		})
	}
}
