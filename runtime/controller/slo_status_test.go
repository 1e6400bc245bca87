package controller

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

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
			if got := sloStatusDue(before, after, t0.Add(tt.now), hb, 0); got != tt.want {
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
			if got := sloResultDue(tt.sent, tt.r, tt.statusAt, 5*time.Minute, 0); got != tt.want {
				t.Errorf("sloResultDue = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHeartbeatDue: a heartbeat falls due at the first instant after the last
// write on the object's own grid (phase + k × heartbeat), never more than a
// heartbeat after it.
func TestHeartbeatDue(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) // on the 5 min grid
	const hb = 5 * time.Minute
	tests := []struct {
		name      string
		last, now time.Duration // after t0
		phase     time.Duration
		want      bool
	}{
		{"phase 0, a heartbeat after a write on the grid", 0, hb, 0, true},
		{"phase 0, 1 s before", 0, hb - time.Second, 0, false},
		{"phase 0, written off the grid: due at the next grid point", 10 * time.Second, hb, 0, true},
		{"phase 0, written off the grid: not before it", 10 * time.Second, hb - time.Second, 0, false},
		{"phase 2 min: due at t0 + 2 min", 0, 2 * time.Minute, 2 * time.Minute, true},
		{"phase 2 min: not 1 s before", 0, 2*time.Minute - time.Second, 2 * time.Minute, false},
		{"phase 2 min, written on the phase: a whole heartbeat later", 2 * time.Minute, 2*time.Minute + hb, 2 * time.Minute, true},
		{"phase 2 min, written on the phase: not 1 s before", 2 * time.Minute, 2*time.Minute + hb - time.Second, 2 * time.Minute, false},
		{"written before t0 (negative offset)", -time.Minute, 2 * time.Minute, 2 * time.Minute, true},
		{"no heartbeat", 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hb
			if tt.name == "no heartbeat" {
				h = 0
			}
			if got := heartbeatDue(t0.Add(tt.last), t0.Add(tt.now), h, tt.phase); got != tt.want {
				t.Errorf("heartbeatDue = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHeartbeatSpread: 10,000 SLOs whose statuses were all written at once
// and are evaluated together every 20 s write their heartbeats spread over
// the period: no 20 s cycle takes more than 1.25 × the steady share
// (10,000 × 20 s / 5 min = 667), and none goes unwritten for longer than
// the heartbeat. With one phase for all, one cycle would take all 10,000.
func TestHeartbeatSpread(t *testing.T) {
	const n, hb, every = 10000, 5 * time.Minute, 20 * time.Second
	t0 := time.Date(2026, 11, 29, 12, 0, 7, 0, time.UTC)
	last := make([]time.Time, n)
	phase := make([]time.Duration, n)
	for i := range last {
		last[i] = t0
		phase[i] = heartbeatPhase(types.UID(fmt.Sprintf("5f0c1e2a-%04d-4b7e-9a61-%012d", i%9973, i)), hb)
	}
	steady := n * int(every) / int(hb)
	for c := 1; c <= 60; c++ { // 20 min
		now := t0.Add(time.Duration(c) * every)
		writes := 0
		for i := range last {
			if heartbeatDue(last[i], now, hb, phase[i]) {
				if gap := now.Sub(last[i]); gap > hb {
					t.Fatalf("SLO %d written %v after its last write, want at most %v", i, gap, hb)
				}
				last[i] = now
				writes++
			}
		}
		if writes > steady*5/4 {
			t.Errorf("cycle %d (%v): %d heartbeat writes, want at most %d (1.25 × %d)", c, now.Sub(t0), writes, steady*5/4, steady)
		}
	}
}
