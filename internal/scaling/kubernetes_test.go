package scaling

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// k8sNoDownWindow is the default configuration without the scale-down
// stabilisation window, so that one decision shows the replica calculator's
// result.
func k8sNoDownWindow(utilization bool) KubernetesConfig {
	c := DefaultKubernetesConfig()
	c.ScaleDown.StabilizationWindow = 0
	c.Utilization = utilization
	return c
}

func newK8s(t *testing.T, c KubernetesConfig) *Kubernetes {
	t.Helper()
	k, err := NewKubernetes(c)
	if err != nil {
		t.Fatalf("NewKubernetes: %v", err)
	}
	return k
}

// TestKubernetesReplicaCalculator uses the vectors of Kubernetes'
// replica_calculator_test.go (v1.36), with CPU utilisation per pod in percent
// of equal requests (the tests' 1.0 CPU requests; levels in millicores / 10).
func TestKubernetesReplicaCalculator(t *testing.T) {
	u, m := podSpec{unready: true}, podSpec{missing: true}
	unreadyAt := func(v float64) podSpec { return podSpec{v: v, unready: true} }
	tests := []struct {
		name    string
		current int32
		target  float64
		pods    []PodSample
		tol     *[2]float64 // down, up
		want    int32
	}{
		{"ScaleUp", 3, 30, readyPods(30, 50, 70), nil, 5},
		{"ScaleUpUnreadyLessScale", 3, 30, mixedPods(unreadyAt(30), podSpec{v: 50}, podSpec{v: 70}), nil, 4},
		{"ScaleUpUnreadyNoScale", 3, 30, mixedPods(podSpec{v: 40}, unreadyAt(50), unreadyAt(70)), nil, 3},
		{"ScaleDown", 5, 50, readyPods(10, 30, 50, 25, 25), nil, 3},
		{"ScaleDownExcludeUnreadyPods", 5, 50, mixedPods(podSpec{v: 10}, podSpec{v: 30}, podSpec{v: 50}, unreadyAt(25), unreadyAt(25)), nil, 2},
		{"Tolerance", 3, 100, readyPods(112.22, 103, 92.73), nil, 3},
		{"MissingMetrics", 4, 100, mixedPods(podSpec{v: 40}, podSpec{v: 9.5}, m, m), nil, 3},
		{"MissingMetricsNoChangeEq", 2, 100, mixedPods(podSpec{v: 100}, m), nil, 2},
		{"MissingMetricsNoChangeGt", 2, 100, mixedPods(podSpec{v: 190}, m), nil, 2},
		{"MissingMetricsNoChangeLt", 2, 100, mixedPods(podSpec{v: 60}, m), nil, 2},
		{"MissingMetricsUnreadyChange", 3, 50, mixedPods(unreadyAt(10), podSpec{v: 45}, m), nil, 3},
		{"MissingMetricsUnreadyScaleUp", 3, 50, mixedPods(unreadyAt(10), podSpec{v: 200}, m), nil, 4},
		{"MissingMetricsUnreadyScaleDown", 4, 50, mixedPods(unreadyAt(10), podSpec{v: 10}, podSpec{v: 10}, m), nil, 3},
		// Kubernetes' ScaleDownTargetOver100 has unequal requests; the same
		// rule with equal ones: missing pods count as the 300 % target.
		// (10+10+300)/3 = 106 %, ratio 0.35, ceil(0.35*3) = 2.
		{"MissingMetricsScaleDownTargetOver100", 4, 300, mixedPods(u, podSpec{v: 10}, podSpec{v: 10}, m), nil, 2},
		{"ConfigurableTolerance/outside 0%", 3, 100, samePods(3, 101), &[2]float64{0, 0}, 4},
		{"ConfigurableTolerance/within 200% up", 3, 100, samePods(3, 190), &[2]float64{0.1, 2}, 3},
		{"ConfigurableTolerance/outside 8% up", 3, 100, samePods(3, 109), &[2]float64{2, 0.08}, 4},
		{"ConfigurableTolerance/within 36% down", 3, 100, samePods(3, 65), &[2]float64{0.36, 0.1}, 3},
		{"ConfigurableTolerance/outside 34% down", 3, 100, samePods(3, 65), &[2]float64{0.34, 0.1}, 2},
		{"NaN, Inf and negative samples are missing", 4, 100, mixedPods(podSpec{v: 40}, podSpec{v: 9.5}, podSpec{v: -1}, podSpec{v: inf()}), nil, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := k8sNoDownWindow(true)
			if tc.tol != nil {
				c.ScaleDown.Tolerance, c.ScaleUp.Tolerance = tc.tol[0], tc.tol[1]
			}
			k := newK8s(t, c)
			d := k.Decide(Input{Now: algT0, Current: tc.current, Min: 1, Max: 100, Target: tc.target, Pods: tc.pods})
			if d.Desired != tc.want {
				t.Fatalf("got %d, want %d (reason: %s)", d.Desired, tc.want, d.Reason)
			}
		})
	}
}

// TestKubernetesPlainMetrics covers Pods metrics (AverageValue): missing pods
// count as the target itself on scale-down, not max(100, target).
func TestKubernetesPlainMetrics(t *testing.T) {
	tests := []struct {
		name    string
		current int32
		target  float64
		pods    []PodSample
		want    int32
	}{
		// Kubernetes' documented example: current 200m for a target of 100m
		// doubles the replicas; 50m halves them.
		{"docs: 200m for 100m doubles", 4, 0.1, samePods(4, 0.2), 8},
		{"docs: 50m for 100m halves", 4, 0.1, samePods(4, 0.05), 2},
		// ratio 20/50 = 0.4; the missing pod counts as 50: (40+50)/3 = 30,
		// ratio 0.6, ceil(1.8) = 2.
		{"missing counted at target", 3, 50, mixedPods(podSpec{v: 20}, podSpec{v: 20}, podSpec{missing: true}), 2},
		// Not truncated to a whole unit: 50.4 / 50 = 1.008 holds, 56 scales.
		{"within tolerance", 4, 50, samePods(4, 50.4), 4},
		{"above tolerance", 4, 50, samePods(4, 56), 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newK8s(t, k8sNoDownWindow(false))
			d := k.Decide(Input{Now: algT0, Current: tc.current, Min: 1, Max: 100, Target: tc.target, Pods: tc.pods})
			if d.Desired != tc.want {
				t.Fatalf("got %d, want %d (reason: %s)", d.Desired, tc.want, d.Reason)
			}
		})
	}
}

// TestKubernetesExternal uses replica_calculator_test.go's per-pod external
// metric vectors (qps 8600).
func TestKubernetesExternal(t *testing.T) {
	tests := []struct {
		name    string
		current int32
		min     int32
		target  float64
		total   float64
		want    int32
	}{
		{"ScaleUpPerPodCMExternal", 3, 1, 2150, 8600, 4},
		{"ScaleDownPerPodCMExternal", 5, 1, 2867, 8600, 3},
		{"TolerancePerPodCMExternal", 3, 1, 2900, 8600, 3},
		// Beyond int32: capped, then limited by the default policies.
		{"overflow", 1, 1, 1, 1e300, 5},
		// From zero (Min 0): ceil(250/100) = 3 within the default 4 pods.
		{"from zero", 0, 0, 100, 250, 3},
		{"from zero, none needed", 0, 0, 100, 0, 0},
		// From zero, 40 wanted: the default scale-up policy allows 4.
		{"from zero, policy", 0, 0, 100, 4000, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newK8s(t, k8sNoDownWindow(false))
			d := k.Decide(Input{Now: algT0, Current: tc.current, Min: tc.min, Max: 100, Target: tc.target, External: ext(tc.total)})
			if d.Desired != tc.want {
				t.Fatalf("got %d, want %d (reason: %s)", d.Desired, tc.want, d.Reason)
			}
		})
	}
}

// TestKubernetesBehavior runs Kubernetes' documented behavior examples
// (kubernetes.io, "Horizontal Pod Autoscaling", "Configurable scaling
// behavior") decision by decision.
func TestKubernetesBehavior(t *testing.T) {
	const target = 100
	want := func(n float64) *float64 { return ext(n * target) } // a total asking for n pods
	defaults := DefaultKubernetesConfig()

	docsDown := DefaultKubernetesConfig()
	docsDown.ScaleDown = HPARules{
		StabilizationWindow: 0,
		SelectPolicy:        SelectMax,
		Policies: []HPAPolicy{
			{Type: PodsPolicy, Value: 4, Period: time.Minute},
			{Type: PercentPolicy, Value: 10, Period: time.Minute},
		},
		Tolerance: 0.1,
	}
	upDisabled := DefaultKubernetesConfig()
	upDisabled.ScaleUp.SelectPolicy = SelectDisabled
	downDisabled := DefaultKubernetesConfig()
	downDisabled.ScaleDown.SelectPolicy = SelectDisabled
	downDisabled.ScaleDown.StabilizationWindow = 0
	upMin := DefaultKubernetesConfig()
	upMin.ScaleUp.SelectPolicy = SelectMin
	upWindow := DefaultKubernetesConfig()
	upWindow.ScaleUp.StabilizationWindow = time.Minute
	upTolerance := DefaultKubernetesConfig()
	upTolerance.ScaleUp.Tolerance = 0.05
	upTolerance.ScaleDown.StabilizationWindow = 0

	var flapping []step
	for i := range 20 { // ten minutes of load alternating every 30 s
		n := 10.0
		if i%2 == 1 {
			n = 4
		}
		flapping = append(flapping, step{at: time.Duration(i) * 30 * time.Second, ext: want(n), want: 10})
	}
	// The last high recommendation was at 540 s: low from then on scales
	// down 300 s later, not before.
	flapping = append(flapping,
		step{at: 600 * time.Second, ext: want(4), want: 10},
		step{at: 839 * time.Second, ext: want(4), want: 10},
		step{at: 840 * time.Second, ext: want(4), want: 4},
	)

	tests := []struct {
		name       string
		cfg        KubernetesConfig
		first, max int32
		steps      []step
	}{
		{
			// Default scale-up: max(4 pods, 100 %) per 15 s.
			name: "default scale-up from 1", cfg: defaults, first: 1, max: 100,
			steps: []step{
				{at: 0, ext: want(1000), want: 5},                  // max(1+4, 2)
				{at: 10 * time.Second, ext: want(1000), want: 5},   // 4 already added in this 15 s
				{at: 15 * time.Second, ext: want(1000), want: 10},  // max(5+4, 10)
				{at: 30 * time.Second, ext: want(1000), want: 20},  // 100 % wins
				{at: 45 * time.Second, ext: want(1000), want: 40},  //
				{at: 60 * time.Second, ext: want(1000), want: 80},  //
				{at: 75 * time.Second, ext: want(1000), want: 100}, // max replicas
			},
		},
		{
			// Default scale-down: 300 s window, then 100 % per 15 s.
			name: "default scale-down waits 300 s then drops at once", cfg: defaults, first: 10, max: 20,
			steps: []step{
				{at: 0, ext: want(2), want: 10},
				{at: 150 * time.Second, ext: want(2), want: 10},
				{at: 299 * time.Second, ext: want(2), want: 10},
				{at: 300 * time.Second, ext: want(2), want: 2},
			},
		},
		{
			name: "stabilisation window prevents flapping", cfg: defaults, first: 10, max: 20,
			steps: flapping,
		},
		{
			// Docs: "scale down 4 pods or 10 % per minute, whichever is
			// larger": from 80, 8 go first; 10 % of 72 is 7.2, rounded to 8
			// (72*0.9 truncated to 64); below 40 replicas, 4 at a time.
			name: "docs scale-down policies Pods 4 and Percent 10 per 60 s", cfg: docsDown, first: 80, max: 100,
			steps: []step{
				{at: 0, ext: want(10), want: 72},
				{at: 15 * time.Second, ext: want(10), want: 72}, // 8 removed within the minute
				{at: 60 * time.Second, ext: want(10), want: 64},
				{at: 120 * time.Second, ext: want(10), want: 57},
				{at: 180 * time.Second, ext: want(10), want: 51},
				{at: 240 * time.Second, ext: want(10), want: 45},
				{at: 300 * time.Second, ext: want(10), want: 40},
				{at: 360 * time.Second, ext: want(10), want: 36},
				{at: 420 * time.Second, ext: want(10), want: 32},
				{at: 480 * time.Second, ext: want(10), want: 28},
				{at: 540 * time.Second, ext: want(10), want: 24},
				{at: 600 * time.Second, ext: want(10), want: 20},
				{at: 660 * time.Second, ext: want(10), want: 16},
				{at: 720 * time.Second, ext: want(10), want: 12},
				{at: 780 * time.Second, ext: want(10), want: 10},
			},
		},
		{
			name: "docs selectPolicy Disabled on scale-up", cfg: upDisabled, first: 3, max: 100,
			steps: []step{
				{at: 0, ext: want(50), want: 3},
				{at: time.Minute, ext: want(50), want: 3},
			},
		},
		{
			name: "docs selectPolicy Disabled on scale-down", cfg: downDisabled, first: 30, max: 100,
			steps: []step{
				{at: 0, ext: want(1), want: 30},
				{at: time.Hour, ext: want(1), want: 30},
				{at: time.Hour + time.Minute, ext: want(60), want: 60},
			},
		},
		{
			name: "selectPolicy Min on scale-up", cfg: upMin, first: 10, max: 100,
			steps: []step{
				{at: 0, ext: want(50), want: 14}, // min(10+4, 20)
				{at: 15 * time.Second, ext: want(50), want: 18},
			},
		},
		{
			// A scale-up window uses the lowest recommendation of the last
			// minute: a short spike does nothing, a sustained one scales.
			name: "scale-up stabilisation window", cfg: upWindow, first: 4, max: 100,
			steps: []step{
				{at: 0, ext: want(4), want: 4},
				{at: 15 * time.Second, ext: want(10), want: 4},
				{at: 30 * time.Second, ext: want(4), want: 4},
				{at: 45 * time.Second, ext: want(10), want: 4},
				{at: 60 * time.Second, ext: want(10), want: 4}, // the 30 s recommendation of 4 is in the window
				{at: 90 * time.Second, ext: want(10), want: 8}, // it is not: 10, limited by max(4+4, 8)
				{at: 105 * time.Second, ext: want(10), want: 10},
			},
		},
		{
			// Docs (1.33+): a 5 % scale-up tolerance on a 100 target scales
			// up above 105; the default 10 % holds down to 90.
			name: "docs configurable tolerance", cfg: upTolerance, first: 10, max: 100,
			steps: []step{
				{at: 0, ext: want(10.4), want: 10},
				{at: 15 * time.Second, ext: want(10.6), want: 11},
				{at: 30 * time.Second, ext: want(11 * 0.91), want: 11},
				{at: 45 * time.Second, ext: want(11 * 0.89), want: 10},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runSteps(t, newK8s(t, tc.cfg), tc.first, 1, tc.max, target, tc.steps)
		})
	}
}

func TestKubernetesOutOfRange(t *testing.T) {
	tests := []struct {
		name              string
		current, min, max int32
		want              int32
		reasonContains    string
		disabled          bool
	}{
		{"above max", 12, 1, 10, 10, "above max 10", false},
		{"below min", 1, 2, 10, 2, "below min 2", false},
		// horizontal.go reconcileAutoscaler: scale.Spec.Replicas == 0 &&
		// minReplicas != 0 sets ScalingActive false, reason
		// ScalingDisabled, desired 0 and no rescale: the target stays at 0.
		{"zero with min is ScalingDisabled", 0, 2, 10, 0, "scaling is disabled", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newK8s(t, DefaultKubernetesConfig())
			d := k.Decide(Input{Now: algT0, Current: tc.current, Min: tc.min, Max: tc.max, Target: 50, Pods: samePods(int(tc.current), 50)})
			if d.Desired != tc.want || !d.Limited || !strings.Contains(d.Reason, tc.reasonContains) || d.ScalingDisabled != tc.disabled {
				t.Fatalf("got %+v, want %d, limited, reason containing %q", d, tc.want, tc.reasonContains)
			}
		})
	}
}

func TestKubernetesHoldsWithoutMetrics(t *testing.T) {
	k := newK8s(t, k8sNoDownWindow(true))
	pods := mixedPods(podSpec{unready: true}, podSpec{missing: true}, podSpec{v: 10, unready: true})
	d := k.Decide(Input{Now: algT0, Current: 3, Min: 1, Max: 10, Target: 50, Pods: pods})
	if d.Desired != 3 || !strings.Contains(d.Reason, "no metrics from ready pods (3 pods, 2 not ready, 1 without a sample)") {
		t.Fatalf("got %+v", d)
	}
	d = k.Decide(Input{Now: algAt(time.Minute), Current: 0, Min: 0, Max: 10, Target: 50})
	if d.Desired != 0 {
		t.Fatalf("from zero without pods: got %+v", d)
	}
}

func TestKubernetesReason(t *testing.T) {
	k := newK8s(t, DefaultKubernetesConfig())
	in := Input{Now: algT0, Current: 2, Min: 1, Max: 50, Target: 50, Pods: samePods(2, 500)}
	d := k.Decide(in)
	want := "average 500 for target 50 over 2 ready pods (ratio 10): recommend 20; limited to 6 by scale-up policies (Max of 4 pods per 15s, 100% per 15s)"
	if d.Desired != 6 || d.Reason != want || !d.Limited {
		t.Fatalf("got %+v\nwant reason %q", d, want)
	}
	// Same inputs, same history: same text.
	k2 := newK8s(t, DefaultKubernetesConfig())
	if d2 := k2.Decide(in); d2 != d {
		t.Fatalf("not deterministic: %+v vs %+v", d2, d)
	}
	d = k.Decide(Input{Now: algAt(15 * time.Second), Current: 6, Min: 1, Max: 50, Target: 50, Pods: samePods(6, 10)})
	want = "average 10 for target 50 over 6 ready pods (ratio 0.2): recommend 2; highest recommendation in the 5m0s scale-down window is 6"
	if d.Desired != 6 || d.Reason != want {
		t.Fatalf("got %+v\nwant reason %q", d, want)
	}
}

func TestKubernetesConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*KubernetesConfig)
		want   string
	}{
		{"zero value", func(c *KubernetesConfig) { *c = KubernetesConfig{} }, "ScaleUp.Policies is empty"},
		{"negative window", func(c *KubernetesConfig) { c.ScaleDown.StabilizationWindow = -time.Second }, "ScaleDown.StabilizationWindow is -1s"},
		{"window over 1h", func(c *KubernetesConfig) { c.ScaleUp.StabilizationWindow = 2 * time.Hour }, "ScaleUp.StabilizationWindow is 2h0m0s"},
		{"select policy", func(c *KubernetesConfig) { c.ScaleUp.SelectPolicy = "Most" }, `ScaleUp.SelectPolicy is "Most"`},
		{"policy type", func(c *KubernetesConfig) { c.ScaleDown.Policies[0].Type = "Nodes" }, `ScaleDown.Policies[0].Type is "Nodes"`},
		{"policy value", func(c *KubernetesConfig) { c.ScaleUp.Policies[1].Value = 0 }, "ScaleUp.Policies[1].Value is 0"},
		{"policy period", func(c *KubernetesConfig) { c.ScaleUp.Policies[0].Period = time.Hour }, "ScaleUp.Policies[0].Period is 1h0m0s"},
		{"tolerance", func(c *KubernetesConfig) { c.ScaleDown.Tolerance = -0.1 }, "ScaleDown.Tolerance is -0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultKubernetesConfig()
			tc.mutate(&c)
			_, err := NewKubernetes(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	c := DefaultKubernetesConfig()
	c.ScaleUp.SelectPolicy = ""
	if _, err := NewKubernetes(c); err != nil {
		t.Fatalf("empty SelectPolicy means Max: %v", err)
	}
}

func TestValidate(t *testing.T) {
	ok := Input{Now: algT0, Current: 1, Min: 1, Max: 3, Target: 50}
	tests := []struct {
		name   string
		mutate func(*Input)
		want   string
	}{
		{"negative min", func(in *Input) { in.Min = -1 }, "Min is -1"},
		{"max 0", func(in *Input) { in.Min, in.Max = 0, 0 }, "Max is 0"},
		{"min above max", func(in *Input) { in.Min = 4 }, "Min (4) is greater than Max (3)"},
		{"negative current", func(in *Input) { in.Current = -2 }, "Current is -2"},
		{"zero target", func(in *Input) { in.Target = 0 }, "Target is 0"},
		{"NaN target", func(in *Input) { in.Target = nan() }, "Target is NaN"},
		{"zero time", func(in *Input) { in.Now = time.Time{} }, "Now is the zero time"},
		{"negative external", func(in *Input) { in.External = ext(-1) }, "External is -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := ok
			tc.mutate(&in)
			err := Validate(in)
			if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrInvalidInput containing %q", err, tc.want)
			}
			for _, alg := range allAlgorithms(t) {
				d := alg.Decide(in)
				if !strings.HasPrefix(d.Reason, "invalid input: ") || !d.Limited {
					t.Fatalf("%s: got %+v", alg.Name(), d)
				}
				if in.Min >= 0 && in.Min <= in.Max && (d.Desired < in.Min || d.Desired > in.Max) {
					t.Fatalf("%s: %d outside [%d, %d]", alg.Name(), d.Desired, in.Min, in.Max)
				}
			}
		})
	}
	if err := Validate(ok); err != nil {
		t.Fatalf("valid input: %v", err)
	}
}
