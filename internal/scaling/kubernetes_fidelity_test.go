package scaling

import (
	"strings"
	"testing"
	"time"
)

// TestKubernetesLegacyScaleUp follows horizontal.go without a behavior block
// (hpa.Spec.Behavior == nil: normalizeDesiredReplicas and
// convertDesiredReplicasWithRules): a scale-up is capped at
// calculateScaleUpLimit = max(scaleUpLimitFactor 2 x current,
// scaleUpLimitMinimum 4) at every sync, with no memory of earlier scale
// events; the behavior defaults (max(4 pods, 100 %) per 15 s) count the
// events of the last 15 s instead. Load: an external total of 100 for a
// target of 10 per pod, so every sync proposes ceil(100/10) = 10.
func TestKubernetesLegacyScaleUp(t *testing.T) {
	legacy := DefaultKubernetesConfig()
	legacy.Legacy = true
	load := ext(100)
	tests := []struct {
		name  string
		cfg   KubernetesConfig
		steps []step
	}{
		// Legacy, syncs every 15 s: 1 -> max(2, 4) = 4 -> max(8, 4) = 8
		// -> 10 (cap 16).
		{"legacy, 15 s syncs", legacy, []step{{0, nil, load, 4}, {15 * time.Second, nil, load, 8}, {30 * time.Second, nil, load, 10}}},
		// Legacy, syncs 1 s apart: the cap is per sync, so the same
		// sequence 4, 8, 10 comes one second apart.
		{"legacy, 1 s syncs", legacy, []step{{0, nil, load, 4}, {time.Second, nil, load, 8}, {2 * time.Second, nil, load, 10}}},
		// Behavior defaults, 15 s syncs: from 1, max(1+4, 2x1) = 5; at
		// 15 s the first event is no longer within the period (After, not
		// at, the cut-off), so max(5+4, 2x5) = 10.
		{"behavior defaults, 15 s syncs", DefaultKubernetesConfig(), []step{{0, nil, load, 5}, {15 * time.Second, nil, load, 10}}},
		// Behavior defaults, 1 s syncs: the +4 of second 0 is within the
		// 15 s period, so the period starts at 1 and the limit stays 5.
		{"behavior defaults, 1 s syncs", DefaultKubernetesConfig(), []step{{0, nil, load, 5}, {time.Second, nil, load, 5}, {15 * time.Second, nil, load, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runSteps(t, newK8s(t, tc.cfg), 1, 1, 100, 10, tc.steps)
		})
	}
}

// TestKubernetesLegacyScaleDown: without a behavior the scale-down is
// stabilizeRecommendation (the highest recommendation of the downscale
// stabilisation window, 5 m by default) and then only Min bounds it: no
// rate policy applies, even one configured in ScaleDown.Policies.
func TestKubernetesLegacyScaleDown(t *testing.T) {
	c := DefaultKubernetesConfig()
	c.Legacy = true
	c.ScaleDown.Policies = []HPAPolicy{{Type: PodsPolicy, Value: 1, Period: time.Minute}}
	// Current 10, load 20 for target 10: proposal 2. The first sync holds
	// 10 (the initial recommendation, 10, is in the window); 301 s later
	// the window holds only proposals of 2, and 10 -> 2 in one step.
	runSteps(t, newK8s(t, c), 10, 1, 100, 10, []step{
		{0, nil, ext(20), 10},
		{150 * time.Second, nil, ext(20), 10},
		{301 * time.Second, nil, ext(20), 2},
	})
}

// TestKubernetesPodGroups follows groupPods in replica_calculator.go: a
// Pending pod is ignored ("unready"); a pod without metrics is "missing"
// whatever its readiness (the metrics lookup comes before the readiness
// check); readiness is checked only for the CPU resource, so for memory a
// not-Ready pod with a sample counts. Utilisation in percent of equal
// requests, target 50, tolerance 0.1, no scale-down window.
func TestKubernetesPodGroups(t *testing.T) {
	running := func(v float64) PodSample { return PodSample{Value: v, Ready: true} }
	tests := []struct {
		name   string
		memory bool
		pods   []PodSample
		want   int32
	}{
		// 20 % and 20 %, ratio 0.4; the third pod runs, is not Ready and
		// has no sample: missing, counted at max(100, 50) = 100 % for a
		// scale-down: (20+20+100)/3 = 46 % (truncated), ratio 0.92, within
		// tolerance: hold 3. (Treated as unready it would be ignored and
		// give ceil(0.4 x 2) = 1.)
		{"running, not ready, no sample is missing", false, []PodSample{running(20), running(20), {Missing: true}}, 3},
		// The same pod Pending is unready and ignored: ceil(0.4 x 2) = 1.
		{"pending pod is unready", false, []PodSample{running(20), running(20), {Pending: true, Missing: true}}, 1},
		// A Pending pod's sample never counts, Ready flag or not.
		{"pending pod's sample ignored", false, []PodSample{running(20), running(20), {Pending: true, Ready: true, Value: 90}}, 1},
		// CPU: 80 %, 80 % and a not-Ready pod at 20 %: unready; ratio 1.6
		// above 1, so it counts at 0: 160/3 = 53 %, ratio 1.06, within
		// tolerance: hold 3.
		{"cpu: not ready with a sample is unready", false, []PodSample{running(80), running(80), {Value: 20}}, 3},
		// Memory: readiness is ignored, (80+80+20)/3 = 60 %, ratio 1.2:
		// ceil(1.2 x 3) = 4.
		{"memory: not ready with a sample counts", true, []PodSample{running(80), running(80), {Value: 20}}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := k8sNoDownWindow(true)
			c.IgnoreReadiness = tc.memory
			d := newK8s(t, c).Decide(Input{Now: algT0, Current: 3, Min: 1, Max: 100, Target: 50, Pods: tc.pods})
			if d.Desired != tc.want {
				t.Fatalf("got %d, want %d (reason: %s)", d.Desired, tc.want, d.Reason)
			}
		})
	}
}

// TestGroupPods checks the one pod grouping every algorithm uses.
func TestGroupPods(t *testing.T) {
	pods := []PodSample{
		{Value: 10, Ready: true},                   // counted
		{Value: 30, Ready: true},                   // counted
		{Value: 5},                                 // not Ready with a sample: unready (CPU) or counted
		{Missing: true, Ready: true},               // missing
		{Missing: true},                            // missing, not Ready
		{Value: nan(), Ready: true},                // unusable: missing
		{Pending: true, Value: 50},                 // pending: unready
		{Pending: true, Ready: true, Value: 50},    // pending wins over Ready
		{Value: -1},                                // unusable: missing
		{Value: inf(), Ready: true, Missing: true}, // missing
	}
	tests := []struct {
		readiness bool
		want      podGroups
	}{
		// Ready (not Pending): pods 0, 1, 3, 5, 9 = 5.
		{true, podGroups{sum: 40, counted: 2, missing: 5, unready: 3, ready: 5}},
		{false, podGroups{sum: 45, counted: 3, missing: 5, unready: 2, ready: 5}},
	}
	for _, tc := range tests {
		if got := groupPods(pods, tc.readiness); got != tc.want {
			t.Errorf("groupPods(readiness %v) = %+v, want %+v", tc.readiness, got, tc.want)
		}
	}
}

// TestKubernetesDecideMetrics: with several metrics the HPA takes the
// highest proposal (computeReplicasForMetrics) and normalises it once, so
// its scale events are the ones applied. Policy: behavior defaults (max(4
// pods, 100 %) per 15 s). Current 3; metric 0 proposes ceil(18/3) = 6,
// metric 1 ceil(27/3) = 9.
func TestKubernetesDecideMetrics(t *testing.T) {
	in := func(at time.Duration, cur int32, total float64) Input {
		return Input{Now: algAt(at), Current: cur, Min: 1, Max: 100, Target: 3, External: ext(total)}
	}
	k := newK8s(t, DefaultKubernetesConfig())
	// Highest 9, limited to max(3+4, 2x3) = 7 (one event of +4).
	d := k.DecideMetrics([]Input{in(0, 3, 18), in(0, 3, 27)})
	if d.Desired != 7 || !strings.Contains(d.Reason, "highest proposal 9") {
		t.Fatalf("first sync: got %+v, want 7 from highest proposal 9", d)
	}
	// 5 s later, at 7, both metrics still ask for more (9 and 11): the
	// period started at 7 - 4 = 3, so the limit is still 7.
	if d = k.DecideMetrics([]Input{in(5*time.Second, 7, 27), in(5*time.Second, 7, 33)}); d.Desired != 7 {
		t.Fatalf("second sync: got %+v, want 7", d)
	}

	// One instance per metric (what issue 11 item 5 fixes): the metric-0
	// instance believes it scaled 3 -> 6 (+3), so 5 s later its period
	// starts at 7 - 3 = 4 and it allows max(4+4, 2x4) = 8: the maximum of
	// the two instances, 8, exceeds the policy upstream enforces.
	k0, k1 := newK8s(t, DefaultKubernetesConfig()), newK8s(t, DefaultKubernetesConfig())
	d0, d1 := k0.Decide(in(0, 3, 18)), k1.Decide(in(0, 3, 27))
	if d0.Desired != 6 || d1.Desired != 7 {
		t.Fatalf("per-metric instances: got %d and %d, want 6 and 7", d0.Desired, d1.Desired)
	}
	d0, d1 = k0.Decide(in(5*time.Second, 7, 27)), k1.Decide(in(5*time.Second, 7, 33))
	if got := max(d0.Desired, d1.Desired); got != 8 {
		t.Fatalf("per-metric instances, second sync: got %d, want 8", got)
	}
}

// TestKubernetesDecideMetricsPartialData: a metric without data is
// skipped, but a scale-down on partial data holds (upstream:
// "invalidMetricsCount > 0 && replicas < specReplicas" is an error and no
// rescale); a scale-up on partial data goes ahead.
func TestKubernetesDecideMetricsPartialData(t *testing.T) {
	noData := Input{Now: algT0, Current: 5, Min: 1, Max: 100, Target: 50, Pods: []PodSample{{Missing: true, Ready: true}}}
	tests := []struct {
		name  string
		total float64
		want  int32
	}{
		{"scale-down held", 50, 5},   // proposal ceil(50/50) = 1 < 5: hold
		{"scale-up allowed", 400, 8}, // proposal ceil(400/50) = 8
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := noData
			other.Pods, other.External = nil, ext(tc.total)
			d := newK8s(t, k8sNoDownWindow(true)).DecideMetrics([]Input{noData, other})
			if d.Desired != tc.want {
				t.Fatalf("got %d, want %d (reason: %s)", d.Desired, tc.want, d.Reason)
			}
		})
	}
	bad := newK8s(t, DefaultKubernetesConfig())
	other := noData
	other.Current = 6
	if d := bad.DecideMetrics([]Input{noData, other}); !strings.HasPrefix(d.Reason, "invalid input: ") {
		t.Fatalf("inputs with other Current: got %+v, want an invalid-input hold", d)
	}
	if d := bad.DecideMetrics(nil); !strings.HasPrefix(d.Reason, "invalid input: ") {
		t.Fatalf("no inputs: got %+v, want an invalid-input hold", d)
	}
}

// TestUnlessReversed: a count that moves against the usage ratio holds the
// current one (replica_calculator.go: "return the current replicas if the
// change would be too small or if the new usage ratio would cause a change
// in scale direction").
func TestUnlessReversed(t *testing.T) {
	tests := []struct {
		ratio   float64
		n, cur  int32
		want    int32
		wantMsg string
	}{
		{1.5, 6, 4, 6, ": recommend 6"},
		{1.5, 3, 4, 4, ": 3 would reverse the direction, recommend 4"},
		{0.5, 5, 4, 4, ": 5 would reverse the direction, recommend 4"},
		{0.5, 2, 4, 2, ": recommend 2"},
	}
	for _, tc := range tests {
		var b strings.Builder
		if got := unlessReversed(&b, tc.ratio, tc.n, tc.cur, "recommend"); got != tc.want || b.String() != tc.wantMsg {
			t.Errorf("unlessReversed(%v, %d, %d) = %d, %q; want %d, %q", tc.ratio, tc.n, tc.cur, got, b.String(), tc.want, tc.wantMsg)
		}
	}
}
