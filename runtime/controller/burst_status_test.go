package controller

import (
	"fmt"
	"testing"

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
