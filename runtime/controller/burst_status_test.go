package controller

import (
	"fmt"
	"strings"
	"testing"

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
