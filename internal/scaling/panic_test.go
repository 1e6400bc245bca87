package scaling

import (
	"strings"
	"testing"
	"time"
)

func newPanic(t *testing.T, c PanicConfig) *Panic {
	t.Helper()
	p, err := NewPanic(c)
	if err != nil {
		t.Fatalf("NewPanic: %v", err)
	}
	return p
}

// panicStep is a KPA tick with an observed total, the decision expected and
// whether the algorithm is panicking after it.
type panicStep struct {
	at    time.Duration
	total float64
	want  int32
	panic bool
}

func runPanic(t *testing.T, p *Panic, first, minR, maxR int32, steps []panicStep) {
	t.Helper()
	cur := first
	for i, s := range steps {
		d := p.Decide(Input{Now: algAt(s.at), Current: cur, Min: minR, Max: maxR, Target: 100, External: ext(s.total)})
		if d.Desired != s.want || p.Panicking() != s.panic {
			t.Fatalf("step %d at %v: current %d: got %d (panicking %v), want %d (panicking %v); reason: %s",
				i, s.at, cur, d.Desired, p.Panicking(), s.want, s.panic, d.Reason)
		}
		if d.Desired < minR || d.Desired > maxR {
			t.Fatalf("step %d: %d outside [%d, %d]", i, d.Desired, minR, maxR)
		}
		cur = d.Desired
	}
}

// Ticks every 6 s: the 6 s panic window holds only the current tick, the
// 60 s stable window the last ten.
func TestPanic(t *testing.T) {
	s := time.Second
	var steady []panicStep
	for at := time.Duration(0); at < 60*s; at += 6 * s {
		steady = append(steady, panicStep{at: at, total: 100, want: 1})
	}
	burst := append(append([]panicStep(nil), steady...),
		// Stable (0,60]: nine ticks of 100 and one of 1000: 190, 2 pods.
		// Panic window: 1000, 10 pods for 1 ready: 10 >= 2 x 1, panic.
		panicStep{at: 60 * s, total: 1000, want: 10, panic: true},
		// 10 ready: panic pods 10/10 < 2, but panic lasts a stable window.
		panicStep{at: 66 * s, total: 1000, want: 10, panic: true},
		// Load drops: stable 300 asks for 3, bounded to 5 by the
		// scale-down rate; the ratchet keeps 10.
		panicStep{at: 72 * s, total: 300, want: 10, panic: true},
		panicStep{at: 96 * s, total: 300, want: 10, panic: true},
		// 60 s after the last tick over the threshold (60 s) is not yet
		// "after": still panicking.
		panicStep{at: 120 * s, total: 300, want: 10, panic: true},
		// Panic ends; stable 300 asks for 3, at most halving: 5, then 3.
		panicStep{at: 126 * s, total: 300, want: 5},
		panicStep{at: 132 * s, total: 300, want: 3},
		panicStep{at: 138 * s, total: 300, want: 3},
	)
	extend := append(append([]panicStep(nil), steady...),
		panicStep{at: 60 * s, total: 1000, want: 10, panic: true},
		panicStep{at: 66 * s, total: 300, want: 10, panic: true},
		// A second burst over the threshold of the new size (20 >= 2 x 10)
		// extends panic and ratchets up.
		panicStep{at: 72 * s, total: 2000, want: 20, panic: true},
		panicStep{at: 78 * s, total: 300, want: 20, panic: true},
		panicStep{at: 126 * s, total: 300, want: 20, panic: true},
		panicStep{at: 132 * s, total: 300, want: 20, panic: true},
		panicStep{at: 138 * s, total: 300, want: 10},
	)

	rateUp := DefaultPanicConfig()
	rateUp.MaxScaleUpRate = 2

	tests := []struct {
		name          string
		cfg           PanicConfig
		first, mn, mx int32
		steps         []panicStep
	}{
		{name: "steady load stays stable", cfg: DefaultPanicConfig(), first: 1, mn: 1, mx: 100, steps: steady},
		{name: "burst enters panic, ratchets, leaves after a stable window", cfg: DefaultPanicConfig(), first: 1, mn: 1, mx: 100, steps: burst},
		{name: "panic extended by a second burst", cfg: DefaultPanicConfig(), first: 1, mn: 1, mx: 100, steps: extend},
		{
			// As the KPA after a restart: more than one ready pod starts in
			// panic at that count, so no scale-down before a stable window.
			name: "starts in panic with ready pods, then halves per tick", cfg: DefaultPanicConfig(), first: 10, mn: 0, mx: 100,
			steps: []panicStep{
				{at: 0, total: 0, want: 10, panic: true},
				{at: 30 * s, total: 0, want: 10, panic: true},
				{at: 60 * s, total: 0, want: 10, panic: true},
				{at: 66 * s, total: 0, want: 5},
				{at: 72 * s, total: 0, want: 2},
				{at: 78 * s, total: 0, want: 1},
				{at: 84 * s, total: 0, want: 0}, // floor(1/2) = 0: scale to zero with Min 0
				{at: 90 * s, total: 0, want: 0},
				// From zero, ready counts as 1: 5 pods is 5x, panic.
				{at: 96 * s, total: 500, want: 5, panic: true},
			},
		},
		{
			name: "min replicas bound the halving", cfg: DefaultPanicConfig(), first: 10, mn: 3, mx: 100,
			steps: []panicStep{
				{at: 0, total: 0, want: 10, panic: true},
				{at: 66 * s, total: 0, want: 5},
				{at: 72 * s, total: 0, want: 3},
				{at: 78 * s, total: 0, want: 3},
			},
		},
		{
			name: "max scale-up rate", cfg: rateUp, first: 1, mn: 1, mx: 100,
			steps: []panicStep{
				{at: 0, total: 10000, want: 2, panic: true},
				{at: 6 * s, total: 10000, want: 4, panic: true},
				{at: 12 * s, total: 10000, want: 8, panic: true},
			},
		},
		{
			name: "max replicas", cfg: DefaultPanicConfig(), first: 1, mn: 1, mx: 7,
			steps: []panicStep{
				{at: 0, total: 10000, want: 7, panic: true},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runPanic(t, newPanic(t, tc.cfg), tc.first, tc.mn, tc.mx, tc.steps)
		})
	}
}

func TestPanicScaleDownDelay(t *testing.T) {
	c := DefaultPanicConfig()
	c.StableWindow = 6 * time.Second // one tick per window
	c.PanicWindowPercentage = 100
	c.PanicThreshold = 1000
	c.ScaleDownDelay = 30 * time.Second
	s := time.Second
	runPanic(t, newPanic(t, c), 1, 1, 100, []panicStep{
		{at: 0, total: 400, want: 4},
		{at: 6 * s, total: 100, want: 4},  // 2 (halving) delayed
		{at: 24 * s, total: 100, want: 4}, // the 4 at 0 s is still within 30 s
		{at: 30 * s, total: 100, want: 2},
		{at: 36 * s, total: 100, want: 2}, // 1, but 2 at 30 s
		{at: 54 * s, total: 100, want: 2},
		{at: 60 * s, total: 100, want: 1},
	})
}

func TestPanicPods(t *testing.T) {
	// Ready pods' average times ready pods; not-ready pods are not scraped
	// and missing samples are extrapolated from the others.
	p := newPanic(t, DefaultPanicConfig())
	pods := mixedPods(podSpec{v: 50}, podSpec{v: 50}, podSpec{v: 50}, podSpec{missing: true}, podSpec{v: 900, unready: true})
	d := p.Decide(Input{Now: algT0, Current: 5, Min: 1, Max: 20, Target: 100, Pods: pods})
	want := "stable average 200 and panic average 200 for target 100 per pod over 4 ready pods: stable 2, panic 2; panicking: keeping 4"
	if d.Desired != 4 || d.Reason != want {
		t.Fatalf("got %+v\nwant reason %q", d, want)
	}
	// No usable sample and no history: hold.
	p = newPanic(t, DefaultPanicConfig())
	d = p.Decide(Input{Now: algT0, Current: 3, Min: 1, Max: 20, Target: 100, Pods: mixedPods(podSpec{missing: true}, podSpec{unready: true})})
	if d.Desired != 3 || !strings.HasPrefix(d.Reason, "no data in the 1m0s stable window") {
		t.Fatalf("got %+v", d)
	}
	// Target utilisation 0.5 halves the per-pod target: 200/50 = 4.
	c := DefaultPanicConfig()
	c.TargetUtilization = 0.5
	p = newPanic(t, c)
	d = p.Decide(Input{Now: algT0, Current: 1, Min: 1, Max: 20, Target: 100, External: ext(200)})
	if d.Desired != 4 {
		t.Fatalf("target utilisation: got %+v", d)
	}
}

func TestPanicConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*PanicConfig)
		want   string
	}{
		{"zero value", func(c *PanicConfig) { *c = PanicConfig{} }, "StableWindow is 0s"},
		{"stable window", func(c *PanicConfig) { c.StableWindow = 2 * time.Hour }, "StableWindow is 2h0m0s"},
		{"panic window", func(c *PanicConfig) { c.PanicWindowPercentage = 0.5 }, "PanicWindowPercentage is 0.5"},
		{"threshold", func(c *PanicConfig) { c.PanicThreshold = 100 }, "PanicThreshold is 100"},
		{"up rate", func(c *PanicConfig) { c.MaxScaleUpRate = 1 }, "MaxScaleUpRate is 1"},
		{"down rate", func(c *PanicConfig) { c.MaxScaleDownRate = inf() }, "MaxScaleDownRate is +Inf"},
		{"utilisation", func(c *PanicConfig) { c.TargetUtilization = 1.5 }, "TargetUtilization is 1.5"},
		{"delay", func(c *PanicConfig) { c.ScaleDownDelay = -time.Second }, "ScaleDownDelay is -1s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultPanicConfig()
			tc.mutate(&c)
			if _, err := NewPanic(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
