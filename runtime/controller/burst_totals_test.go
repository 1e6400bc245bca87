package controller

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// TestBurstDecideMetrics: with several metrics the burst controller keeps
// one algorithm per target and stabilises the highest metric's
// recommendation once, as kube-controller-manager's HPA does
// (pkg/controller/podautoscaler/horizontal.go: computeReplicasForMetrics
// takes the largest replica proposal of the metrics, then
// normalizeDesiredReplicasWithBehaviors stabilises it and records the scale
// events once). Each case replays rounds of two PromQL totals (target 10
// per pod), applying every decided total as the next round's current
// count, and compares with what one algorithm per metric, the highest
// decision winning (the controller before issue 11 item 5), did: every
// instance recorded scale events and recommendations that were never
// applied.
func TestBurstDecideMetrics(t *testing.T) {
	d := func(s string) *metav1.Duration {
		v, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		return &metav1.Duration{Duration: v}
	}
	type round struct {
		at     time.Duration
		a, b   float64 // the two metrics' totals
		want   int32   // one algorithm over both metrics
		oldMax int32   // one algorithm per metric, highest decision
	}
	// rounds repeats (a, b) every 15 s from `from` to `to` (inclusive),
	// both totals expected to give want and oldMax.
	rounds := func(from, to time.Duration, a, b float64, want, oldMax int32) []round {
		var rs []round
		for at := from; at <= to; at += 15 * time.Second {
			rs = append(rs, round{at, a, b, want, oldMax})
		}
		return rs
	}
	cat := func(rss ...[]round) []round {
		var out []round
		for _, rs := range rss {
			out = append(out, rs...)
		}
		return out
	}
	tests := []struct {
		name    string
		alg     hcav1.Algorithm
		current int32
		rounds  []round
	}{{
		// A scale-down policy of 1 pod per minute. For 30 s metric a asks
		// for 5 but b holds 10: nothing is removed. The per-metric a
		// instance recorded its own -1 event anyway, so at 30 s, when b
		// falls too, it still believes a pod went in the last minute and
		// holds 10 while the b instance proposes 9 (and records that
		// event); a minute later the two have swapped. The per-metric
		// instances never scale down, where the HPA removes one pod a
		// minute: 9 at 30 s, 8 at 90 s, ... 5 at 270 s.
		name: "kubernetes scale-down policy: no phantom scale-down event",
		alg: hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes, Kubernetes: &hcav1.KubernetesAlgorithm{
			ScaleDown: &hcav1.ScalingRules{StabilizationWindow: d("0s"), Policies: []hcav1.ScalingPolicy{{Type: hcav1.ScalingPods, Value: 1, Period: *d("60s")}}}}},
		current: 10,
		rounds: cat(
			rounds(0, 15*time.Second, 50, 100, 10, 10),
			rounds(30*time.Second, 75*time.Second, 50, 50, 9, 10),
			rounds(90*time.Second, 135*time.Second, 50, 50, 8, 10),
			rounds(150*time.Second, 195*time.Second, 50, 50, 7, 10),
			rounds(210*time.Second, 255*time.Second, 50, 50, 6, 10),
			rounds(270*time.Second, 300*time.Second, 50, 50, 5, 10),
		),
	}, {
		// The behaviour defaults allow max(4 pods, 100 %) per 15 s. From 3
		// the highest proposal, 9, is limited to 7 (+4). 5 s later both
		// metrics ask for more (9 and 11): the HPA's period started at 3,
		// so 7 stays the limit; the metric-a instance believes it only
		// went 3 -> 6 and allows 8, beyond the policy.
		name:    "kubernetes scale-up policy: one event, one limit",
		alg:     hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes, Kubernetes: &hcav1.KubernetesAlgorithm{ScaleUp: &hcav1.ScalingRules{}}},
		current: 3,
		rounds: []round{
			{0, 60, 90, 7, 7},
			{5 * time.Second, 90, 110, 7, 8},
		},
	}, {
		// adaptive (no forecast): a needs 20 and b 10 for 4 minutes, then
		// a falls by a step to 4 and b to 8. Once the last minute's
		// recommendations (8) are at most half the five minutes' highest
		// (20), at 4m45, the step down releases the stabilisation to 8.
		// The per-metric b instance saw no step (8 against its own 10,
		// recommended while a decided) and keeps 10 until its 10s leave
		// its five-minute window at 8m45: four minutes at 10 pods for a
		// load of 8.
		name:    "adaptive scale-down stabilisation released once",
		alg:     hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive, Adaptive: &hcav1.AdaptiveAlgorithm{ForecastHorizon: d("0s")}},
		current: 20,
		rounds: cat(
			rounds(0, 225*time.Second, 200, 100, 20, 20),
			rounds(240*time.Second, 270*time.Second, 40, 80, 20, 20),
			rounds(285*time.Second, 510*time.Second, 40, 80, 8, 10),
			rounds(525*time.Second, 570*time.Second, 40, 80, 8, 8),
		),
	}}
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := []hcav1.MetricSpec{
				{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "a", TargetValue: resource.MustParse("10")}},
				{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "b", TargetValue: resource.MustParse("10")}},
			}
			alg, err := policy.NewAlgorithmForMetrics(tc.alg, ms)
			if err != nil {
				t.Fatal(err)
			}
			var perMetric []scaling.Algorithm
			for range ms {
				a, err := policy.NewAlgorithm(tc.alg, false)
				if err != nil {
					t.Fatal(err)
				}
				perMetric = append(perMetric, a)
			}
			cur, oldCur := tc.current, tc.current
			for _, r := range tc.rounds {
				in := func(cur int32, total float64) scaling.Input {
					return scaling.Input{Now: t0.Add(r.at), Current: cur, Min: 1, Max: 100, Target: 10, External: &total}
				}
				best, _, reason, disabled, missing := burstDecideMetrics(alg, []scaling.Input{in(cur, r.a), in(cur, r.b)}, make([]error, 2))
				if best != r.want || disabled != "" || missing != nil {
					t.Fatalf("at %v (current %d, totals %v and %v): got %d (%s; disabled %q, missing %v), want %d", r.at, cur, r.a, r.b, best, reason, disabled, missing, r.want)
				}
				cur = best
				old := int32(-1)
				for i, total := range []float64{r.a, r.b} {
					old = max(old, perMetric[i].Decide(in(oldCur, total)).Desired)
				}
				if old != r.oldMax {
					t.Fatalf("at %v, one algorithm per metric (current %d): got %d, want %d", r.at, oldCur, old, r.oldMax)
				}
				oldCur = old
			}
		})
	}
}

// TestBurstDecideMetricsMissing: a metric that could not be read takes part
// as a metric without data: upstream skips an invalid metric but refuses to
// scale down on partial data, and scales up on the others; with no metric
// read nothing is decided.
func TestBurstDecideMetricsMissing(t *testing.T) {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	in := func(total float64) scaling.Input {
		return scaling.Input{Now: now, Current: 5, Min: 1, Max: 100, Target: 10, External: &total}
	}
	down := errors.New("prometheus: connection refused")
	tests := []struct {
		name     string
		ins      []scaling.Input
		errs     []error
		want     int32
		missing  int
		contains string
	}{
		{"scale-down held", []scaling.Input{{}, in(10)}, []error{down, nil}, 5, 1, "holding 5"},
		{"scale-up allowed", []scaling.Input{{}, in(80)}, []error{down, nil}, 8, 1, "highest proposal 8"},
		{"none read", []scaling.Input{{}, {}}, []error{down, down}, -1, 2, ""},
		{"invalid input is missing", []scaling.Input{{Now: now, Current: 5, Min: 1, Max: 100}, in(80)}, []error{nil, nil}, 8, 1, "highest proposal 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alg, err := policy.NewAlgorithm(hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes}, false)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.ins {
				if tc.ins[i].Now.IsZero() {
					tc.ins[i] = scaling.Input{Now: now, Current: 5, Min: 1, Max: 100}
				}
			}
			best, _, reason, _, missing := burstDecideMetrics(alg, tc.ins, tc.errs)
			if best != tc.want || len(missing) != tc.missing || !strings.Contains(reason, tc.contains) {
				t.Fatalf("got %d (%s), missing %v; want %d, %d missing, reason with %q", best, reason, missing, tc.want, tc.missing, tc.contains)
			}
		})
	}
}

func TestBurstPodFilter(t *testing.T) {
	pod := func(name string) corev1.Pod { return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	many := make([]corev1.Pod, burstMaxNamedPods+1)
	for i := range many {
		many[i] = pod(fmt.Sprintf("web-7d9f-%05d", i))
	}
	for _, tc := range []struct {
		name string
		pods []corev1.Pod
		want string
	}{
		{"no pods: the Deployment's name pattern", nil, `pod=~"web\\.v2-[a-z0-9]+-[a-z0-9]+"`},
		{"listed pods by name, sorted, once each, quoted", []corev1.Pod{pod("web.v2-b-2"), pod("web.v2-a-1"), pod("web.v2-b-2")}, `pod=~"web\\.v2-a-1|web\\.v2-b-2"`},
		{"more than the cap: the pattern", many, `pod=~"web\\.v2-[a-z0-9]+-[a-z0-9]+"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := metrics.Query{Metric: "m", Filters: []metrics.LabelFilter{burstPodFilter("web.v2", tc.pods)}}
			got, err := q.PromQL()
			if err != nil {
				t.Fatal(err)
			}
			if want := "m{" + tc.want + "}"; got != want {
				t.Errorf("query %s, want %s", got, want)
			}
		})
	}
}

func TestBurstEvaluatedAt(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	const iv = 15 * time.Second
	for _, tc := range []struct {
		name     string
		due, now time.Time
		want     time.Time
	}{
		{"on time: the instant itself", t0, t0, t0},
		{"first evaluation (due is now)", t0.Add(3 * time.Second), t0.Add(3 * time.Second), t0.Add(3 * time.Second)},
		{"4 s late: stands for when it was due, the next one stays on the grid", t0, t0.Add(4 * time.Second), t0},
		{"just under an interval late", t0, t0.Add(iv - time.Millisecond), t0},
		{"an interval late: not caught up twice", t0, t0.Add(iv), t0.Add(iv)},
		{"early (a change): the instant itself", t0.Add(time.Second), t0, t0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstEvaluatedAt(tc.due, tc.now, iv); !got.Equal(tc.want) {
				t.Errorf("burstEvaluatedAt(due %v, now %v) = %v, want %v", tc.due.Sub(t0), tc.now.Sub(t0), got.Sub(t0), tc.want.Sub(t0))
			}
		})
	}
}
