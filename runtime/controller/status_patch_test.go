package controller

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// statusPatchSLO is an SLO as the runtime holds it between two evaluations:
// spec and metadata as a user's apply leaves them, a status of three
// conditions.
func statusPatchSLO() *hcav1.ServiceLevelObjective {
	at := metav1.NewTime(time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC))
	return &hcav1.ServiceLevelObjective{
		TypeMeta: metav1.TypeMeta{APIVersion: "hca.dev/v1alpha1", Kind: "ServiceLevelObjective"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-latency", Namespace: "shop", UID: "0a4c8f1e-5d2b-4c1e-9a77-3b2f1c0d9e11", ResourceVersion: "48213",
			Generation: 3, Labels: map[string]string{"app": "web", ClassLabel: "default"},
			Annotations: map[string]string{"team": "checkout", "owner": "platform@example.com"}},
		Spec: hcav1.ServiceLevelObjectiveSpec{
			Target:             hcav1.TargetRef{Kind: "Deployment", Name: "web"},
			SLO:                hcav1.SLOSpec{Type: hcav1.SLOLatency, Latency: &hcav1.LatencySLO{Percentile: resource.MustParse("95"), Threshold: metav1.Duration{Duration: 200 * time.Millisecond}}},
			ElasticityStrategy: hcav1.ElasticityStrategy{Kind: hcav1.StrategyHorizontal},
		},
		Status: hcav1.ServiceLevelObjectiveStatus{
			ObservedGeneration: 3, CurrentValue: "183ms", CompliancePercent: ptrTo(int32(92)), LastEvaluationTime: &at,
			Strategy: &hcav1.StrategyRef{Kind: KindHorizontalStrategy, Name: "web-latency"},
			Conditions: []metav1.Condition{
				{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonEvaluated, Message: "compliance 92% written to HorizontalElasticityStrategy web-latency", LastTransitionTime: at, ObservedGeneration: 3},
				{Type: hcav1.ConditionMetricsAvailable, Status: metav1.ConditionTrue, Reason: ReasonEvaluated, Message: "the SLO's metrics returned a value", LastTransitionTime: at, ObservedGeneration: 3},
				{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: ReasonEvaluated, LastTransitionTime: at, ObservedGeneration: 3},
			},
		},
	}
}

// TestStatusPatch checks that the status-only patch leaves the object
// exactly as client.MergeFrom's whole-object patch does, when applied to the
// stored object, and that it carries the optimistic lock.
func TestStatusPatch(t *testing.T) {
	later := metav1.NewTime(time.Date(2026, 11, 29, 23, 5, 0, 0, time.UTC))
	cases := []struct {
		name   string
		change func(s *hcav1.ServiceLevelObjectiveStatus)
	}{
		{"unchanged", func(*hcav1.ServiceLevelObjectiveStatus) {}},
		{"heartbeat: value and time", func(s *hcav1.ServiceLevelObjectiveStatus) {
			s.CurrentValue, s.LastEvaluationTime = "191ms", &later
		}},
		{"condition flips", func(s *hcav1.ServiceLevelObjectiveStatus) {
			s.Conditions[2].Status, s.Conditions[2].Reason, s.Conditions[2].Message = metav1.ConditionTrue, "QueryFailed", "holding the last strategy output"
		}},
		{"field removed", func(s *hcav1.ServiceLevelObjectiveStatus) { s.CompliancePercent, s.Strategy = nil, nil }},
		{"nested field changed", func(s *hcav1.ServiceLevelObjectiveStatus) { s.Strategy.Name = "" }},
		{"conditions emptied", func(s *hcav1.ServiceLevelObjectiveStatus) { s.Conditions = nil }},
		{"from an empty status", func(s *hcav1.ServiceLevelObjectiveStatus) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := statusPatchSLO()
			if tc.name == "from an empty status" {
				before.Status = hcav1.ServiceLevelObjectiveStatus{}
			}
			after := before.DeepCopy()
			if tc.name == "from an empty status" {
				after.Status = statusPatchSLO().Status
			}
			tc.change(&after.Status)
			stored, err := json.Marshal(before)
			if err != nil {
				t.Fatal(err)
			}
			want := applyPatch(t, stored, client.MergeFrom(before), after)
			got := applyPatch(t, stored, statusMergeFrom(before.Status, after.Status), after)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("status patch leaves\n%+v\nMergeFrom leaves\n%+v", got, want)
			}
			gotStatus, _ := json.Marshal(got.Status)
			wantStatus, _ := json.Marshal(after.Status)
			if string(gotStatus) != string(wantStatus) {
				t.Errorf("status after the patch = %s, want %s", gotStatus, wantStatus)
			}
		})
	}
	t.Run("optimistic lock", func(t *testing.T) {
		before := statusPatchSLO()
		data, err := statusMergeFromLocked(before.Status, before.Status, before.ResourceVersion).Data(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"metadata":{"resourceVersion":"48213"},"status":{}}`; string(data) != want {
			t.Errorf("locked patch of an unchanged status = %s, want %s", data, want)
		}
	})
	t.Run("a status that is not an object", func(t *testing.T) {
		var nilStatus *hcav1.ServiceLevelObjectiveStatus
		_, err := statusMergeFrom(nilStatus, hcav1.ServiceLevelObjectiveStatus{}).Data(nil)
		if err == nil || !strings.Contains(err.Error(), "must be JSON objects") {
			t.Errorf("nil status: err = %v, want one saying the statuses must be JSON objects", err)
		}
	})
}

func applyPatch(t *testing.T, stored []byte, p client.Patch, obj client.Object) *hcav1.ServiceLevelObjective {
	t.Helper()
	return applyPatchAs[hcav1.ServiceLevelObjective](t, stored, p, obj)
}

// applyPatchAs applies p, computed from obj, to the stored JSON as a JSON
// merge patch and decodes the result as a T.
func applyPatchAs[T any](t *testing.T, stored []byte, p client.Patch, obj client.Object) *T {
	t.Helper()
	data, err := p.Data(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonpatch.MergePatch(stored, data)
	if err != nil {
		t.Fatalf("apply %s: %v", data, err)
	}
	var v T
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// BenchmarkStatusPatch compares the cost of one SLO status heartbeat's patch
// computed from the whole objects (client.MergeFrom) and from the statuses
// alone (statusMergeFrom).
func BenchmarkStatusPatch(b *testing.B) {
	before := statusPatchSLO()
	after := before.DeepCopy()
	later := metav1.NewTime(before.Status.LastEvaluationTime.Add(5 * time.Minute))
	after.Status.CurrentValue, after.Status.LastEvaluationTime = "191ms", &later
	for _, bc := range []struct {
		name  string
		patch client.Patch
	}{
		{"MergeFrom whole object", client.MergeFrom(before)},
		{"statusMergeFrom", statusMergeFrom(before.Status, after.Status)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.patch.Data(after); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzMergeDiff checks mergeDiff against jsonpatch.CreateMergePatch: for any
// two JSON objects (as encoding/json writes them), both patches leave the
// first object equal to the second.
func FuzzMergeDiff(f *testing.F) {
	slo := statusPatchSLO()
	sloJSON, _ := json.Marshal(slo.Status)
	for _, seed := range [][2]string{
		{`{}`, `{}`},
		{`{"a":1,"b":{"c":"x","d":[1,2]}}`, `{"a":1,"b":{"c":"y"}}`},
		{`{"a":{"b":{"c":1}}}`, `{"a":2}`},
		{`{"a":[{"x":1}]}`, `{"a":[{"x":1},{"y":null}],"n":null}`},
		{string(sloJSON), `{"currentValue":"191ms","conditions":[]}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, before, after string) {
		norm := func(s string) ([]byte, bool) {
			var v map[string]any
			if json.Unmarshal([]byte(s), &v) != nil || v == nil {
				return nil, false
			}
			out, err := json.Marshal(v)
			return out, err == nil
		}
		b, ok := norm(before)
		if !ok {
			return
		}
		a, ok := norm(after)
		if !ok {
			return
		}
		diff, err := mergeDiff(b, a)
		if err != nil {
			t.Fatalf("mergeDiff(%s, %s): %v", b, a, err)
		}
		ref, err := jsonpatch.CreateMergePatch(b, a)
		if err != nil {
			return // an input the reference refuses
		}
		got, err := jsonpatch.MergePatch(b, diff)
		if err != nil {
			t.Fatalf("apply %s to %s: %v", diff, b, err)
		}
		want, err := jsonpatch.MergePatch(b, ref)
		if err != nil {
			t.Fatalf("apply reference %s to %s: %v", ref, b, err)
		}
		if !jsonpatch.Equal(got, want) {
			t.Errorf("mergeDiff %s leaves %s; CreateMergePatch %s leaves %s", diff, got, ref, want)
		}
	})
}

// TestSpecPatch: a strategy's spec patch (specMergeFrom) leaves the object
// as client.MergeFrom of the whole objects does, for the changes an SLO
// makes to its strategy.
func TestSpecPatch(t *testing.T) {
	base := func() *hcav1.HorizontalElasticityStrategy {
		return &hcav1.HorizontalElasticityStrategy{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-latency", ResourceVersion: "7", Labels: map[string]string{"hca.dev/class": "a"}},
			Spec: hcav1.HorizontalElasticityStrategySpec{
				Target:       hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "web"},
				SLOOutput:    hcav1.SLOOutput{CompliancePercent: 71},
				StaticConfig: hcav1.HorizontalStaticConfig{MinReplicas: 1, MaxReplicas: 3},
			},
			Status: hcav1.HorizontalElasticityStrategyStatus{CurrentReplicas: 2, DesiredReplicas: 2},
		}
	}
	cases := []struct {
		name   string
		change func(*hcav1.HorizontalElasticityStrategySpec)
	}{
		{"compliance changed", func(s *hcav1.HorizontalElasticityStrategySpec) { s.SLOOutput.CompliancePercent = 104 }},
		{"bounds changed", func(s *hcav1.HorizontalElasticityStrategySpec) { s.StaticConfig.MaxReplicas = 5 }},
		{"windows added", func(s *hcav1.HorizontalElasticityStrategySpec) {
			s.Stabilization = &hcav1.StabilizationWindows{ScaleDown: &metav1.Duration{Duration: time.Minute}}
		}},
		{"unchanged", func(*hcav1.HorizontalElasticityStrategySpec) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := base()
			after := before.DeepCopy()
			tc.change(&after.Spec)
			stored, err := json.Marshal(before)
			if err != nil {
				t.Fatal(err)
			}
			apply := func(p client.Patch) *hcav1.HorizontalElasticityStrategy {
				return applyPatchAs[hcav1.HorizontalElasticityStrategy](t, stored, p, after)
			}
			got, want := apply(specMergeFrom(before.Spec, after.Spec)), apply(client.MergeFrom(before))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("spec patch leaves\n%+v\nMergeFrom leaves\n%+v", got, want)
			}
			if !reflect.DeepEqual(got.Spec, after.Spec) {
				t.Errorf("spec after the patch = %+v, want %+v", got.Spec, after.Spec)
			}
		})
	}
}
