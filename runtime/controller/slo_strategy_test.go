package controller

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestBuildMultiObjectiveStrategy: an SLO of kind MultiObjective owns a
// MultiObjectiveElasticityStrategy named after it, carrying its class, its
// target, its static configuration and its latency threshold as the desired
// response time; the compliance does not reach the spec, so an evaluation
// that only changes the compliance changes nothing.
func TestBuildMultiObjectiveStrategy(t *testing.T) {
	q := resource.MustParse
	static := hcav1.MultiObjectiveStaticConfig{
		Model:        hcav1.MultiObjectiveModelRef{ConfigMapName: "web-model", Key: "model.json"},
		Ranges:       hcav1.MultiObjectiveRanges{MinCPU: q("300m"), MaxCPU: q("500m"), MinMemory: q("400Mi"), MaxMemory: q("600Mi"), MinReplicas: 1, MaxReplicas: 10},
		WeightPreset: hcav1.WeightsBalanced, TolerancePercent: 10,
		Interval: &metav1.Duration{Duration: 3 * time.Second},
	}
	latency := hcav1.SLOSpec{Type: hcav1.SLOLatency, Latency: &hcav1.LatencySLO{Percentile: q("50"), Threshold: metav1.Duration{Duration: 100 * time.Millisecond}}}
	mo := func(change func(s *hcav1.ServiceLevelObjective)) *hcav1.ServiceLevelObjective {
		s := testSLO(*latency.DeepCopy())
		s.Labels = map[string]string{ClassLabel: "lab"}
		s.Spec.ElasticityStrategy = hcav1.ElasticityStrategy{Kind: hcav1.StrategyMultiObjective,
			MultiObjective: &hcav1.MultiObjectiveSLOConfig{Desired: &hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: 80}, MultiObjectiveStaticConfig: *static.DeepCopy()},
			// Another kind's configuration may stay set.
			Horizontal: &hcav1.HorizontalStaticConfig{MinReplicas: 1, MaxReplicas: 4}}
		if change != nil {
			change(s)
		}
		return s
	}
	tests := []struct {
		name    string
		slo     *hcav1.ServiceLevelObjective
		wantRT  int32
		wantErr string
	}{
		{"latency threshold is the desired response time", mo(nil), 100, ""},
		{"threshold in seconds", mo(func(s *hcav1.ServiceLevelObjective) { s.Spec.SLO.Latency.Threshold.Duration = 2 * time.Second }), 2000, ""},
		{"no multiObjective", mo(func(s *hcav1.ServiceLevelObjective) { s.Spec.ElasticityStrategy.MultiObjective = nil }), 0,
			"invalid SLO spec: spec.elasticityStrategy.multiObjective (model and ranges) is required for kind MultiObjective"},
		{"not a latency SLO", mo(func(s *hcav1.ServiceLevelObjective) {
			s.Spec.SLO = hcav1.SLOSpec{Type: hcav1.SLOCPUUtilization, CPUUtilization: &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 60}}
		}), 0, "invalid SLO spec: kind MultiObjective needs spec.slo.type latency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := buildStrategy(tt.slo, 150)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || failureReason(err) != ReasonInvalidObjective {
					t.Fatalf("err = %v, want %q (reason %s)", err, tt.wantErr, ReasonInvalidObjective)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := obj.(*hcav1.MultiObjectiveElasticityStrategy)
			if !ok {
				t.Fatalf("built %T, want a MultiObjectiveElasticityStrategy", obj)
			}
			if ref := strategyRef(tt.slo); ref != (hcav1.StrategyRef{Kind: KindMultiObjective, Name: "web-latency"}) {
				t.Errorf("strategyRef = %+v", ref)
			}
			if got.Name != "web-latency" || got.Namespace != "shop" || got.Labels[SLOLabel] != "web-latency" || got.Labels[ClassLabel] != "lab" {
				t.Errorf("meta = %s/%s labels %v, want shop/web-latency with the SLO's name and class", got.Namespace, got.Name, got.Labels)
			}
			if refs := got.OwnerReferences; len(refs) != 1 || refs[0].UID != "uid-1" || !*refs[0].Controller {
				t.Errorf("owner references = %+v, want the SLO as controller", refs)
			}
			want := hcav1.MultiObjectiveElasticityStrategySpec{
				Target: hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "web"},
				Desired: hcav1.MultiObjectiveDesired{ResponseTimeMillis: tt.wantRT,
					MultiObjectiveDesiredUsage: hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: 80, MemoryUsagePercent: 80}},
				MultiObjectiveStaticConfig: static,
			}
			if !equality.Semantic.DeepEqual(got.Spec, want) {
				t.Errorf("spec = %+v\nwant   %+v", got.Spec, want)
			}
			again, err := buildStrategy(tt.slo, 60)
			if err != nil || !equality.Semantic.DeepEqual(again.(*hcav1.MultiObjectiveElasticityStrategy).Spec, got.Spec) {
				t.Errorf("a new compliance changed the spec: %v", err)
			}
		})
	}
	if _, ok := strategyKinds()[KindMultiObjective].(*hcav1.MultiObjectiveElasticityStrategy); !ok {
		t.Error("strategyKinds lacks the MultiObjective kind: switching away would leave its object behind")
	}
}

// TestSameSpec: writeStrategy skips its patch when the spec and the SLO's
// labels are already there, and patches when either differs.
func TestSameSpec(t *testing.T) {
	hes := func(compliance int32, labels map[string]string) *hcav1.HorizontalElasticityStrategy {
		return &hcav1.HorizontalElasticityStrategy{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: hcav1.HorizontalElasticityStrategySpec{Target: hcav1.TargetRef{Name: "web"},
				SLOOutput: hcav1.SLOOutput{CompliancePercent: compliance}},
		}
	}
	want := map[string]string{ClassLabel: "default"}
	cases := []struct {
		name       string
		have, want *hcav1.HorizontalElasticityStrategy
		same       bool
	}{
		{"equal, with more labels", hes(92, map[string]string{ClassLabel: "default", "team": "a"}), hes(92, want), true},
		{"compliance differs", hes(92, want), hes(93, want), false},
		{"label missing", hes(92, nil), hes(92, want), false},
		{"label differs", hes(92, map[string]string{ClassLabel: "other"}), hes(92, want), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := sameSpec(tc.have, tc.want) && hasLabels(tc.have.Labels, tc.want.Labels)
			if got != tc.same {
				t.Errorf("same = %v, want %v", got, tc.same)
			}
		})
	}
	if sameSpec(hes(1, nil), &hcav1.VerticalElasticityStrategy{}) {
		t.Error("objects of two kinds are the same")
	}
}

// TestNewStrategy: each strategy kind an SLO may own makes an empty object
// of that kind, registered in the runtime's scheme under the kind's name;
// another kind makes none.
func TestNewStrategy(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := hcav1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for _, kind := range append(slices.Clone(strategyKindNames), "PodAutoscaler") {
		t.Run(kind, func(t *testing.T) {
			obj := newStrategy(kind)
			if kind == "PodAutoscaler" {
				if obj != nil {
					t.Fatalf("newStrategy(%q) = %T, want nil", kind, obj)
				}
				return
			}
			if obj == nil {
				t.Fatalf("newStrategy(%q) = nil", kind)
			}
			gvks, _, err := scheme.ObjectKinds(obj)
			if err != nil || len(gvks) != 1 || gvks[0].Kind != kind {
				t.Errorf("newStrategy(%q) is %T, registered as %v (%v)", kind, obj, gvks, err)
			}
			if obj.GetName() != "" || obj.GetResourceVersion() != "" {
				t.Errorf("newStrategy(%q) is not empty: %+v", kind, obj)
			}
		})
	}
}

// TestHoldEvent: a change is always an Event, a hold only when a window held
// a proposal back, and the same proposal held again has the same key.
func TestHoldEvent(t *testing.T) {
	cases := []struct {
		name                string
		changed, held       bool
		proposed            any
		wantReason, wantKey string
	}{
		{"scaled", true, false, int32(3), "Scaled", ""},
		{"scaled part of the way (a window held the rest)", true, true, int32(3), "Scaled", ""},
		{"held by a window", false, true, int32(2), "Held", "held 2"},
		{"held by a window, another proposal", false, true, int32(1), "Held", "held 1"},
		{"nothing proposed (within tolerance, or at minReplicas)", false, false, int32(1), "", ""},
		{"vertical: held by a window", false, true, nil, "Held", "held <nil>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reason, key := holdEvent(c.changed, c.held, c.proposed)
			if reason != c.wantReason || key != c.wantKey {
				t.Errorf("holdEvent(%v, %v, %v) = %q, %q; want %q, %q", c.changed, c.held, c.proposed, reason, key, c.wantReason, c.wantKey)
			}
		})
	}
}
