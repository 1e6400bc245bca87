package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestBurstConditionEvents: one Event per transition of the conditions an
// operator must hear about (metrics, reachability, Consul): a Warning when one
// turns False, a Normal when it recovers, nothing for a first True, an
// unchanged status or Unknown.
func TestBurstConditionEvents(t *testing.T) {
	c := func(typ string, st metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: reason + " message"}
	}
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	pub, met, rea := hcav1.ConditionPublished, hcav1.ConditionMetricsAvailable, hcav1.ConditionReachable
	tests := []struct {
		name          string
		before, after []metav1.Condition
		want          []string
	}{
		{"first True says nothing", nil, []metav1.Condition{c(pub, T, BurstReasonPublished), c(met, T, BurstReasonMetricsOK)}, nil},
		{"Consul lost", []metav1.Condition{c(pub, T, BurstReasonPublished)}, []metav1.Condition{c(pub, F, BurstReasonConsulUnavailable)},
			[]string{"Warning ConsulUnavailable"}},
		{"Consul back", []metav1.Condition{c(pub, F, BurstReasonConsulUnavailable)}, []metav1.Condition{c(pub, T, BurstReasonPublished)},
			[]string{"Normal Published"}},
		{"Consul down from the start", nil, []metav1.Condition{c(pub, F, BurstReasonConsulUnavailable)}, []string{"Warning ConsulUnavailable"}},
		{"still down: no repeat", []metav1.Condition{c(pub, F, BurstReasonConsulUnavailable)}, []metav1.Condition{c(pub, F, BurstReasonConsulUnavailable)}, nil},
		{"metrics and a cluster lost together", []metav1.Condition{c(met, T, BurstReasonMetricsOK), c(rea, T, BurstReasonAllReachable)},
			[]metav1.Condition{c(met, F, BurstReasonMetricsMissing), c(rea, F, BurstReasonUnreachable)},
			[]string{"Warning " + BurstReasonMetricsMissing, "Warning " + BurstReasonUnreachable}},
		{"no metric source is not a loss", []metav1.Condition{c(met, T, BurstReasonMetricsOK)}, []metav1.Condition{c(met, U, BurstReasonNoMetricSource)}, nil},
		{"Consul no longer configured", []metav1.Condition{c(pub, F, BurstReasonConsulUnavailable)}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range burstConditionEvents(tt.before, tt.after) {
				got = append(got, e.kind+" "+e.reason)
				if e.note == "" {
					t.Errorf("event %s %s has no note", e.kind, e.reason)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("events %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBurstTotalConflict(t *testing.T) {
	n := int32(7)
	tests := []struct {
		name      string
		source    burstTotalSource
		requested *int32
		fromSLO   bool
		want      string // a part of the message; "" no conflict
	}{
		{"no request, total from the Deployment", burstTotalFromDeployment, nil, false, ""},
		{"a request the policy follows", burstTotalFromDeployment, &n, false, ""},
		{"no request, total from metrics", burstTotalFromAlgorithm, nil, false, ""},
		{"a request beside spec.metrics", burstTotalFromAlgorithm, &n, false, "computes its own total from spec.metrics"},
		{"a request beside an SLO's Burst strategy", burstTotalFromAlgorithm, &n, true, "from an SLO's Burst strategy"},
		{"a request while metrics are held", burstTotalKeep, &n, false, "a total of 7 replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := burstTotalConflict("web", tt.source, tt.requested, tt.fromSLO)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("conflict %q, want none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("conflict %q, want it to contain %q", got, tt.want)
			case tt.want != "" && !strings.Contains(got, "Deployment web") || tt.want != "" && !strings.Contains(got, BurstRequestedTotalAnnotation):
				t.Errorf("conflict %q names neither the Deployment nor the annotation", got)
			}
		})
	}
}

func TestBurstConflictEvents(t *testing.T) {
	a, b := "conflict A", "conflict B"
	deg := func(st metav1.ConditionStatus, msg string) []metav1.Condition {
		return []metav1.Condition{{Type: hcav1.ConditionDegraded, Status: st, Reason: BurstReasonConflictingTotals, Message: msg}}
	}
	tests := []struct {
		name      string
		before    []metav1.Condition
		conflicts []string
		want      int
	}{
		{"none", nil, nil, 0},
		{"a new conflict", deg(metav1.ConditionFalse, "all inputs available"), []string{a}, 1},
		{"first round", nil, []string{a}, 1},
		{"already named: no repeat", deg(metav1.ConditionTrue, "x; "+a), []string{a}, 0},
		{"a second one beside it", deg(metav1.ConditionTrue, a), []string{a, b}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := burstConflictEvents(tt.before, tt.conflicts)
			if len(got) != tt.want {
				t.Fatalf("%d events %v, want %d", len(got), got, tt.want)
			}
			for _, e := range got {
				if e.kind != corev1.EventTypeWarning || e.reason != BurstReasonConflictingTotals {
					t.Errorf("event %+v, want a Warning %s", e, BurstReasonConflictingTotals)
				}
			}
		})
	}
}

func TestBurstStatusDue(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	status := func(msg string, ready int32, mut ...func(*hcav1.BurstPolicyStatus)) *hcav1.BurstPolicyStatus {
		st := &hcav1.BurstPolicyStatus{
			ObservedGeneration: 2,
			Phase:              hcav1.PhaseWatching,
			Replicas:           []hcav1.ClusterReplicas{{Cluster: "private", Desired: 3, Ready: ready}},
			Conditions: []metav1.Condition{
				{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: BurstReasonReconciled, Message: "3 replicas: private 3", LastTransitionTime: metav1.NewTime(t0)},
				{Type: hcav1.ConditionMetricsAvailable, Status: metav1.ConditionTrue, Reason: BurstReasonMetricsOK, Message: msg, LastTransitionTime: metav1.NewTime(t0)},
			},
		}
		for _, m := range mut {
			m(st)
		}
		return st
	}
	const hb = 5 * time.Minute
	steady := "web: kubernetes: cpu utilisation 43.5% of target 60% -> 3"
	cases := []struct {
		name          string
		before, after *hcav1.BurstPolicyStatus
		notMeasured   bool
		writtenAt     time.Time
		now           time.Time
		want          bool
	}{
		{"nothing changed", status(steady, 3), status(steady, 3), false, t0, t0.Add(time.Hour), false},
		{"only a figure changed, heartbeat not due", status(steady, 3), status("web: kubernetes: cpu utilisation 47% of target 60% -> 3", 3), false, t0, t0.Add(4 * time.Minute), false},
		{"only a figure changed, heartbeat due", status(steady, 3), status("web: kubernetes: cpu utilisation 47% of target 60% -> 3", 3), false, t0, t0.Add(5 * time.Minute), true},
		{"only a figure changed, never written by this process", status(steady, 3), status("web: kubernetes: cpu utilisation 47% of target 60% -> 3", 3), false, time.Time{}, t0, true},
		{"words of a message changed", status(steady, 3), status(steady+"; metrics back after an outage at 10:00: no scale-down before 10:01", 3), false, t0, t0.Add(time.Second), true},
		{"ready replicas changed", status(steady, 3), status(steady, 2), false, t0, t0.Add(time.Second), true},
		{"condition status changed", status(steady, 3), status(steady, 3, func(s *hcav1.BurstPolicyStatus) {
			s.Conditions[1].Status, s.Conditions[1].Reason = metav1.ConditionFalse, BurstReasonMetricsMissing
		}), false, t0, t0.Add(time.Second), true},
		{"phase changed", status(steady, 3), status(steady, 3, func(s *hcav1.BurstPolicyStatus) { s.Phase = hcav1.PhaseBursting }), false, t0, t0.Add(time.Second), true},
		{"an SLO's compliance changed: not a measurement, written at once", status("web: total driven by SLO s (compliance 150%, applied)", 3),
			status("web: total driven by SLO s (compliance 50%, applied)", 3), true, t0, t0.Add(time.Second), true},
		{"observed generation changed", status(steady, 3), status(steady, 3, func(s *hcav1.BurstPolicyStatus) { s.ObservedGeneration = 3 }), false, t0, t0.Add(time.Second), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstStatusDue(tc.before, tc.after, !tc.notMeasured, tc.writtenAt, tc.now, hb, phaseOf(tc.writtenAt, hb)); got != tc.want {
				t.Errorf("burstStatusDue = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBurstMessageWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cpu 43.5% of 60% -> 3", "cpu #% of #% -> #"},
		{"v1.2 ends.", "v# ends."},
		{"", ""},
		{"no figures", "no figures"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := burstMessageWords(tc.in); got != tc.want {
				t.Errorf("burstMessageWords(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// phaseOf is the heartbeat phase that puts at on its object's grid, so a
// heartbeat falls due exactly one heartbeat after at.
func phaseOf(at time.Time, hb time.Duration) time.Duration {
	return time.Duration(at.UnixNano() % int64(hb))
}
