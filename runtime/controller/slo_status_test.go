package controller

import (
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestSLOStatusDue: only a status that differs in more than its current value
// and evaluation time is written at once; one that differs only there waits
// for the heartbeat since the evaluation time last written.
func TestSLOStatusDue(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { v := metav1.NewTime(t0.Add(d)); return &v }
	c := func(v int32) *int32 { return &v }
	base := func() *hcav1.ServiceLevelObjectiveStatus {
		st := &hcav1.ServiceLevelObjectiveStatus{CurrentValue: "42", CompliancePercent: c(50), LastEvaluationTime: at(0), ObservedGeneration: 1,
			Strategy: &hcav1.StrategyRef{Kind: "HorizontalElasticityStrategy", Name: "web"}}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Evaluated", Message: "compliance 50%", LastTransitionTime: *at(-time.Hour)})
		return st
	}
	const hb = 5 * time.Minute
	tests := []struct {
		name   string
		change func(st *hcav1.ServiceLevelObjectiveStatus)
		before func(st *hcav1.ServiceLevelObjectiveStatus)
		now    time.Duration
		want   bool
	}{
		{"nothing changed", func(*hcav1.ServiceLevelObjectiveStatus) {}, nil, time.Hour, false},
		{"only the evaluation time, within the heartbeat", func(st *hcav1.ServiceLevelObjectiveStatus) { st.LastEvaluationTime = at(20 * time.Second) }, nil, 20 * time.Second, false},
		{"value and time, 1 s before the heartbeat", func(st *hcav1.ServiceLevelObjectiveStatus) {
			st.LastEvaluationTime, st.CurrentValue = at(299*time.Second), "43"
		}, nil, 299 * time.Second, false},
		{"value and time, at the heartbeat", func(st *hcav1.ServiceLevelObjectiveStatus) {
			st.LastEvaluationTime, st.CurrentValue = at(hb), "43"
		}, nil, hb, true},
		{"never written before", func(st *hcav1.ServiceLevelObjectiveStatus) { st.LastEvaluationTime = at(time.Second) },
			func(st *hcav1.ServiceLevelObjectiveStatus) { st.LastEvaluationTime = nil }, time.Second, true},
		{"compliance changed", func(st *hcav1.ServiceLevelObjectiveStatus) {
			st.LastEvaluationTime, st.CompliancePercent = at(20*time.Second), c(51)
		}, nil, 20 * time.Second, true},
		{"first compliance", func(st *hcav1.ServiceLevelObjectiveStatus) { st.LastEvaluationTime = at(20 * time.Second) },
			func(st *hcav1.ServiceLevelObjectiveStatus) { st.CompliancePercent = nil }, 20 * time.Second, true},
		{"a condition changed", func(st *hcav1.ServiceLevelObjectiveStatus) {
			st.LastEvaluationTime = at(20 * time.Second)
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse, Reason: "MetricsUnavailable", Message: "down"})
		}, nil, 20 * time.Second, true},
		{"a new generation observed", func(st *hcav1.ServiceLevelObjectiveStatus) {
			st.LastEvaluationTime, st.ObservedGeneration = at(20*time.Second), 2
		}, nil, 20 * time.Second, true},
		{"the strategy switched", func(st *hcav1.ServiceLevelObjectiveStatus) {
			st.LastEvaluationTime, st.Strategy = at(20*time.Second), &hcav1.StrategyRef{Kind: "VerticalElasticityStrategy", Name: "web"}
		}, nil, 20 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := base(), base()
			if tt.before != nil {
				tt.before(before)
			}
			tt.change(after)
			if got := sloStatusDue(before, after, t0.Add(tt.now), hb); got != tt.want {
				t.Errorf("sloStatusDue = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSLOResultDue: an evaluation wakes the reconciler when it changes what
// the reconciler writes besides currentValue and lastEvaluationTime, or when
// the status heartbeat is due; not for a new value alone.
func TestSLOResultDue(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	sent := &sloResult{generation: 2, typ: hcav1.SLOType("latency"), value: "0.2", compliance: 97, at: t0}
	next := func(change func(r *sloResult)) *sloResult {
		r := *sent
		r.at = t0.Add(20 * time.Second)
		r.value = "0.21"
		change(&r)
		return &r
	}
	tests := []struct {
		name     string
		sent     *sloResult
		r        *sloResult
		statusAt time.Time
		want     bool
	}{
		{"first result", nil, next(func(*sloResult) {}), t0, true},
		{"value only", sent, next(func(*sloResult) {}), t0, false},
		{"compliance", sent, next(func(r *sloResult) { r.compliance = 96 }), t0, true},
		{"generation", sent, next(func(r *sloResult) { r.generation = 3 }), t0, true},
		{"error appears", sent, next(func(r *sloResult) { r.err = errors.New("no data") }), t0, true},
		{"same error", &sloResult{generation: 2, err: errors.New("no data")}, &sloResult{generation: 2, err: errors.New("no data"), at: t0}, t0, false},
		{"other error", &sloResult{generation: 2, err: errors.New("no data")}, &sloResult{generation: 2, err: errors.New("timeout"), at: t0}, t0, true},
		{"status never written", sent, next(func(*sloResult) {}), time.Time{}, true},
		{"heartbeat due", sent, next(func(r *sloResult) { r.at = t0.Add(5 * time.Minute) }), t0, true},
		{"heartbeat not yet due", sent, next(func(r *sloResult) { r.at = t0.Add(5*time.Minute - time.Second) }), t0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sloResultDue(tt.sent, tt.r, tt.statusAt, 5*time.Minute); got != tt.want {
				t.Errorf("sloResultDue = %v, want %v", got, tt.want)
			}
		})
	}
}
