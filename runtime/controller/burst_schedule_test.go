package controller

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	hcapolicy "github.com/hca-project/terraform-provider-hca/internal/policy"
)

// TestBurstScheduleFloor: the hook raises the algorithm's total (or the
// standing total when no metric decided) to the floor of the windows in
// force, started ahead by the adaptive forecast horizon, and reports a
// schedule that does not compile instead of failing.
func TestBurstScheduleFloor(t *testing.T) {
	// 2026-11-24 is a Tuesday; 08:00 Europe/Berlin is 07:00 UTC.
	window := []hcav1.ScheduleWindow{{Name: "business", Start: "0 8 * * MON-FRI", Duration: metav1.Duration{Duration: 10 * time.Hour}, TimeZone: "Europe/Berlin", MinReplicas: 6}}
	policy := func(ws []hcav1.ScheduleWindow, horizon time.Duration) *hcav1.BurstPolicy {
		return &hcav1.BurstPolicy{Spec: hcav1.BurstPolicySpec{MinReplicas: 1, MaxReplicas: 20, Schedules: ws,
			Algorithm: hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive, Adaptive: &hcav1.AdaptiveAlgorithm{ForecastHorizon: &metav1.Duration{Duration: horizon}}}}}
	}
	tests := []struct {
		name        string
		p           *hcav1.BurstPolicy
		in          burstMetricOutcome
		current     int32
		now         string
		wantSource  burstTotalSource
		wantTotal   int32
		wantMessage string
	}{
		{"in the window: 2 raised to 6", policy(window, 30*time.Second), burstMetricOutcome{source: burstTotalFromAlgorithm, total: 2, reason: "adaptive"}, 2,
			"2026-11-24T09:00:00Z", burstTotalFromAlgorithm, 6, "schedule business keeps at least 6"},
		{"in the window: 9 stands", policy(window, 30*time.Second), burstMetricOutcome{source: burstTotalFromAlgorithm, total: 9}, 9,
			"2026-11-24T09:00:00Z", burstTotalFromAlgorithm, 9, ""},
		{"metrics missing: the standing 3 raised to 6", policy(window, 30*time.Second), burstMetricOutcome{source: burstTotalKeep, message: "metrics[0]: no data"}, 3,
			"2026-11-24T09:00:00Z", burstTotalFromAlgorithm, 6, "metrics[0]: no data; schedule business"},
		{"20 s before the start with a 30 s horizon: in force", policy(window, 30*time.Second), burstMetricOutcome{source: burstTotalFromAlgorithm, total: 2}, 2,
			"2026-11-24T06:59:40Z", burstTotalFromAlgorithm, 6, "schedule business"},
		{"20 s before the start with forecasting off: not yet", policy(window, 0), burstMetricOutcome{source: burstTotalFromAlgorithm, total: 2}, 2,
			"2026-11-24T06:59:40Z", burstTotalFromAlgorithm, 2, ""},
		{"Saturday: none", policy(window, 30*time.Second), burstMetricOutcome{source: burstTotalFromAlgorithm, total: 2}, 2,
			"2026-11-28T09:00:00Z", burstTotalFromAlgorithm, 2, ""},
		{"unknown zone reported, total untouched", policy([]hcav1.ScheduleWindow{{Name: "x", Start: "0 8 * * *", Duration: metav1.Duration{Duration: time.Hour}, TimeZone: "Mars/Olympus", MinReplicas: 6}}, 0),
			burstMetricOutcome{source: burstTotalFromAlgorithm, total: 2}, 2, "2026-11-24T08:30:00Z", burstTotalFromAlgorithm, 2, "spec.schedules[0].timeZone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now, err := time.Parse(time.RFC3339, tt.now)
			if err != nil {
				t.Fatal(err)
			}
			out := tt.in
			burstScheduleFloor(tt.p, &out, tt.current, tt.p.Spec.MaxReplicas, hcapolicy.DeriveHorizons(tt.p.Spec.Algorithm.Adaptive, hcapolicy.ReadyFigures{}), now)
			if out.source != tt.wantSource || out.total != tt.wantTotal {
				t.Errorf("source %v total %d, want %v %d", out.source, out.total, tt.wantSource, tt.wantTotal)
			}
			if tt.wantMessage != "" && !strings.Contains(out.message, tt.wantMessage) {
				t.Errorf("message %q lacks %q", out.message, tt.wantMessage)
			}
			if tt.wantMessage == "" && strings.Contains(out.message, "schedule") {
				t.Errorf("message %q names a schedule", out.message)
			}
		})
	}
}

func TestMetricsRequeue(t *testing.T) {
	tests := []struct {
		name          string
		next, elapsed time.Duration
		want          time.Duration
	}{
		{"instant round: the whole interval", 15 * time.Second, 0, 15 * time.Second},
		{"a 2 s round: 13 s left of 15", 15 * time.Second, 2 * time.Second, 13 * time.Second},
		{"a round as long as the interval: due now", 15 * time.Second, 15 * time.Second, time.Millisecond},
		{"a round longer than the interval: due now, never 0 (no requeue)", 2 * time.Second, 5 * time.Second, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := metricsRequeue(tt.next, tt.elapsed); got != tt.want {
				t.Fatalf("metricsRequeue(%v, %v) = %v, want %v", tt.next, tt.elapsed, got, tt.want)
			}
		})
	}
}
