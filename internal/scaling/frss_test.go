package scaling

import (
	"strings"
	"testing"
	"time"
)

func newFRSS(t *testing.T, c FRSSConfig) *FRSS {
	t.Helper()
	f, err := NewFRSS(c)
	if err != nil {
		t.Fatalf("NewFRSS: %v", err)
	}
	return f
}

// The paper's worked examples, target 60 %.
var (
	paperLow  = readyPods(48, 46, 42, 50, 41, 43) // sum 270, average 45 %
	paperHigh = readyPods(74, 78, 80, 82, 85, 87) // sum 486, average 81 %
)

func TestFRSSPaperVectors(t *testing.T) {
	// Shrinks to ceil(270/60) = 5, but only once the 9 min down window has
	// passed since the last recommendation of 6 (the first Decide's).
	t.Run("shrink 6 to 5 after the down window", func(t *testing.T) {
		f := newFRSS(t, DefaultFRSSConfig())
		var steps []step
		for at := time.Duration(0); at < 9*time.Minute; at += 15 * time.Second {
			steps = append(steps, step{at: at, pods: paperLow, want: 6})
		}
		steps = append(steps, step{at: 9 * time.Minute, pods: paperLow, want: 5})
		runSteps(t, f, 6, 1, 20, 60, steps)
		// At 5 pods the same load averages 54 %: ratio 0.9, within the 0.2
		// tolerance, so 5 holds for good.
		d := f.Decide(Input{Now: algAt(30 * time.Minute), Current: 5, Min: 1, Max: 20, Target: 60, Pods: readyPods(54, 54, 54, 54, 54)})
		if d.Desired != 5 || !strings.Contains(d.Reason, "within tolerance 0.2") {
			t.Fatalf("at 54 %%: got %+v", d)
		}
	})
	// ceil(486/60) = 9 at once (the paper's text says 8; its equation, which
	// this follows, gives 9).
	t.Run("scale up 6 to 9 at once", func(t *testing.T) {
		f := newFRSS(t, DefaultFRSSConfig())
		d := f.Decide(Input{Now: algT0, Current: 6, Min: 1, Max: 20, Target: 60, Pods: paperHigh})
		want := "sum 486 over 6 ready pods for target 60 (ratio 1.35): need 9"
		if d.Desired != 9 || d.Reason != want || d.Limited {
			t.Fatalf("got %+v, want 9 with reason %q", d, want)
		}
	})
}

func TestFRSS(t *testing.T) {
	const target = 60
	need := func(n float64) *float64 { return ext(n * target) }
	def := DefaultFRSSConfig()
	short := def
	short.DownWindow = time.Minute
	twoSteps := def
	twoSteps.ShrinkStep = 2

	tests := []struct {
		name           string
		cfg            FRSSConfig
		first, min, mx int32
		steps          []step
	}{
		{
			name: "shrinks one pod per down window", cfg: def, first: 6, min: 1, mx: 20,
			steps: []step{
				{at: 0, ext: need(1), want: 6},
				{at: 8 * time.Minute, ext: need(1), want: 6},
				{at: 9 * time.Minute, ext: need(1), want: 5},
				{at: 9*time.Minute + 15*time.Second, ext: need(1), want: 5},
				{at: 17 * time.Minute, ext: need(1), want: 5},
				{at: 18 * time.Minute, ext: need(1), want: 4},
				{at: 27 * time.Minute, ext: need(1), want: 3},
				{at: 36 * time.Minute, ext: need(1), want: 2},
				{at: 45 * time.Minute, ext: need(1), want: 1},
				{at: 54 * time.Minute, ext: need(1), want: 1},
			},
		},
		{
			name: "shrink step of 2", cfg: twoSteps, first: 6, min: 1, mx: 20,
			steps: []step{
				{at: 0, ext: need(1), want: 6},
				{at: 9 * time.Minute, ext: need(1), want: 4},
				{at: 18 * time.Minute, ext: need(1), want: 2},
			},
		},
		{
			name: "grows at once, up to ten times per decision", cfg: def, first: 2, min: 1, mx: 1000,
			steps: []step{
				{at: 0, ext: need(15), want: 15},
				{at: 15 * time.Second, ext: need(500), want: 150},
				{at: 30 * time.Second, ext: need(500), want: 500},
				{at: 45 * time.Second, ext: need(5000), want: 1000}, // max replicas
			},
		},
		{
			// After a scale-up the high recommendation stays in the down
			// window: no shrink until it leaves.
			name: "no shrink within the down window after a scale-up", cfg: def, first: 6, min: 1, mx: 20,
			steps: []step{
				{at: 0, pods: paperHigh, want: 9},
				{at: time.Minute, ext: need(2), want: 9},
				{at: 8*time.Minute + 59*time.Second, ext: need(2), want: 9},
				{at: 9 * time.Minute, ext: need(2), want: 8},
			},
		},
		{
			// A load spike during a shrink stops it; only 9 minutes of low
			// recommendations restart it.
			name: "a spike restarts the down window", cfg: short, first: 6, min: 1, mx: 20,
			steps: []step{
				{at: 0, ext: need(3), want: 6},
				{at: 60 * time.Second, ext: need(3), want: 5},
				{at: 90 * time.Second, ext: need(5.5), want: 5}, // within tolerance: recommends 5
				{at: 120 * time.Second, ext: need(3), want: 5},
				{at: 150 * time.Second, ext: need(3), want: 4},
				{at: 160 * time.Second, ext: need(20), want: 20},
			},
		},
		{
			name: "from zero with min 0", cfg: def, first: 0, min: 0, mx: 50,
			steps: []step{
				{at: 0, ext: need(0), want: 0},
				{at: 15 * time.Second, ext: need(25), want: 10}, // from 0 the rate applies to 1
				{at: 30 * time.Second, ext: need(25), want: 25},
			},
		},
		{
			name: "current outside min and max", cfg: def, first: 30, min: 2, mx: 20,
			steps: []step{
				{at: 0, ext: need(25), want: 20},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runSteps(t, newFRSS(t, tc.cfg), tc.first, tc.min, tc.mx, target, tc.steps)
		})
	}
}

// TestFRSSPods covers missing and not-ready pods (down window 0 so one
// decision shows the recommendation).
func TestFRSSPods(t *testing.T) {
	m, u := podSpec{missing: true}, podSpec{unready: true}
	tests := []struct {
		name    string
		current int32
		pods    []PodSample
		want    int32
		reason  string
	}{
		// 5 pods at 30 % and one missing, counted at 60 %: (150+60)/6 =
		// 35 %, ratio 0.58: ceil(210/60) = 4.
		{"missing counted at target on scale-down", 6, mixedPods(podSpec{v: 30}, podSpec{v: 30}, podSpec{v: 30}, podSpec{v: 30}, podSpec{v: 30}, m), 4, "1 pods without a sample counted at target (ratio 0.58)"},
		// One pod at 40 %, one missing: (40+60)/2 = 50 %, ratio 0.83,
		// within tolerance: hold.
		{"missing brings the ratio within tolerance", 2, mixedPods(podSpec{v: 40}, m), 2, "(ratio 0.83): need 2"},
		// Not-ready pods add nothing: two at 90 % need ceil(180/60) = 3.
		{"not ready counts 0 on scale-up", 4, mixedPods(podSpec{v: 90}, podSpec{v: 90}, u, u), 4, "3 would reverse the direction"},
		{"not ready counts 0 on scale-up, growing", 2, mixedPods(podSpec{v: 120}, podSpec{v: 120}, u), 4, "need 4"},
		{"no samples", 3, mixedPods(u, m, m), 3, "no metrics from ready pods (3 pods, 1 not ready, 2 without a sample): holding 3"},
		{"NaN and negative samples are missing", 3, mixedPods(podSpec{v: nan()}, podSpec{v: -5}, podSpec{v: 90}), 3, "2 would reverse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultFRSSConfig()
			c.DownWindow, c.ShrinkStep = 0, 100
			f := newFRSS(t, c)
			d := f.Decide(Input{Now: algT0, Current: tc.current, Min: 1, Max: 20, Target: 60, Pods: tc.pods})
			if d.Desired != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("got %+v, want %d with reason containing %q", d, tc.want, tc.reason)
			}
		})
	}
}

func TestFRSSConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*FRSSConfig)
		want   string
	}{
		{"zero value", func(c *FRSSConfig) { *c = FRSSConfig{} }, "ScaleUpRate is 0"},
		{"tolerance", func(c *FRSSConfig) { c.Tolerance = nan() }, "Tolerance is NaN"},
		{"rate", func(c *FRSSConfig) { c.ScaleUpRate = -1 }, "ScaleUpRate is -1"},
		{"up window", func(c *FRSSConfig) { c.UpWindow = -time.Second }, "UpWindow is -1s"},
		{"down window", func(c *FRSSConfig) { c.DownWindow = 25 * time.Hour }, "DownWindow is 25h0m0s"},
		{"shrink step", func(c *FRSSConfig) { c.ShrinkStep = 0 }, "ShrinkStep is 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultFRSSConfig()
			tc.mutate(&c)
			if _, err := NewFRSS(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
