package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestConditionChange: what counts as a transition to tell the operator.
func TestConditionChange(t *testing.T) {
	c := func(st metav1.ConditionStatus) *metav1.Condition { return &metav1.Condition{Type: "X", Status: st} }
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	tests := []struct {
		name          string
		before, after *metav1.Condition
		lost, back    bool
	}{
		{"first True", nil, c(T), false, false},
		{"first False", nil, c(F), true, false},
		{"lost", c(T), c(F), true, false},
		{"still lost", c(F), c(F), false, false},
		{"back", c(F), c(T), false, true},
		{"still there", c(T), c(T), false, false},
		{"Unknown to False", c(U), c(F), true, false},
		{"Unknown to True is not a return", c(U), c(T), false, false},
		{"False to Unknown", c(F), c(U), false, false},
		{"gone", c(F), nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if lost, back := conditionChange(tt.before, tt.after); lost != tt.lost || back != tt.back {
				t.Errorf("conditionChange = lost %v, back %v; want %v, %v", lost, back, tt.lost, tt.back)
			}
		})
	}
}

// logLines runs rounds of conditions through log (previous round -> this
// one) with a JSON slog logger in the context, as hca-runtime's, and returns
// the lines written at each round: "LEVEL msg k=v ...".
func logLines(t *testing.T, rounds [][]metav1.Condition, log1 func(ctx context.Context, before, after []metav1.Condition)) [][]string {
	t.Helper()
	var buf bytes.Buffer
	ctx := log.IntoContext(context.Background(), logr.FromSlogHandler(slog.NewJSONHandler(&buf, nil)))
	var out [][]string
	var prev []metav1.Condition
	for _, cur := range rounds {
		buf.Reset()
		log1(ctx, prev, cur)
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if l == "" {
				continue
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			s := fmt.Sprintf("%s %s", rec["level"], rec["msg"])
			for _, k := range []string{"policy", "slo", "reason", "error", "message"} {
				if v, ok := rec[k]; ok {
					s += fmt.Sprintf(" %s=%v", k, v)
				}
			}
			lines = append(lines, s)
		}
		out = append(out, lines)
		prev = cur
	}
	return out
}

// TestBurstTransitionLog: a burst policy's metrics lost are logged once at
// warn level with the policy and the error, their return once at info,
// nothing in the rounds between; so are a burst cluster unreachable and
// Consul; a conflict of totals is an Event only.
func TestBurstTransitionLog(t *testing.T) {
	met := func(st metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: hcav1.ConditionMetricsAvailable, Status: st, Reason: reason, Message: msg}
	}
	ok := met(metav1.ConditionTrue, BurstReasonMetricsOK, "web: 120 req/s")
	lost := met(metav1.ConditionFalse, BurstReasonMetricsMissing, `web: query: Post "http://127.0.0.1:9090/api/v1/query": connection refused: holding, never scaling down on missing data`)
	unreachable := metav1.Condition{Type: hcav1.ConditionReachable, Status: metav1.ConditionFalse, Reason: BurstReasonUnreachable, Message: "placement skips unreachable burst clusters: b1: timeout"}
	policy := types.NamespacedName{Namespace: "shop", Name: "web"}
	got := logLines(t, [][]metav1.Condition{{ok}, {lost}, {lost}, {lost, unreachable}, {ok, unreachable}, {ok}},
		func(ctx context.Context, before, after []metav1.Condition) {
			events := append(burstConditionEvents(before, after), burstConflictEvents(before, []string{"a conflict"})...)
			for _, e := range events {
				e.log(ctx, policy)
			}
		})
	want := [][]string{
		nil,
		{"WARN metrics unavailable policy=shop/web reason=MetricsUnavailable error=" + lost.Message},
		nil,
		{"WARN burst clusters unreachable policy=shop/web reason=" + BurstReasonUnreachable + " error=" + unreachable.Message},
		{"INFO metrics available again policy=shop/web reason=MetricsAvailable message=web: 120 req/s"},
		nil, // Reachable gone from the status: not a return
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("round %d: log %q, want %q", i+1, got[i], want[i])
		}
	}
}

// TestSLOTransitionLog: an SLO's metrics lost are logged once at warn level
// with the SLO and the error, their return once at info; an invalid
// objective (Unknown) is not a loss.
func TestSLOTransitionLog(t *testing.T) {
	met := func(st metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: hcav1.ConditionMetricsAvailable, Status: st, Reason: reason, Message: msg}
	}
	ok := met(metav1.ConditionTrue, ReasonEvaluated, "the SLO's metrics returned a value")
	lost := met(metav1.ConditionFalse, ReasonMetricsUnavailable, `query prometheus: Post "http://127.0.0.1:9090/api/v1/query": connection refused`)
	invalid := met(metav1.ConditionUnknown, ReasonInvalidObjective, "bad objective")
	slo := types.NamespacedName{Namespace: "shop", Name: "latency"}
	got := logLines(t, [][]metav1.Condition{{ok}, {lost}, {lost}, {ok}, {ok}, {invalid}},
		func(ctx context.Context, before, after []metav1.Condition) {
			logSLOMetricsTransition(ctx, slo, before, after)
		})
	want := [][]string{
		nil,
		{"WARN metrics unavailable slo=shop/latency reason=MetricsUnavailable error=" + lost.Message},
		nil,
		{"INFO metrics available again slo=shop/latency reason=Evaluated message=the SLO's metrics returned a value"},
		nil,
		nil,
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("round %d: log %q, want %q", i+1, got[i], want[i])
		}
	}
}
