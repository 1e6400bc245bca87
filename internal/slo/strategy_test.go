package slo

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestHorizontal(t *testing.T) {
	noWindows := HorizontalConfig{MinReplicas: 1, MaxReplicas: 20, Tolerance: 0.1}
	tests := []struct {
		name       string
		current    int32
		compliance float64
		cfg        HorizontalConfig
		history    []Recommendation
		desired    int32
		proposed   int32
		within     bool
		stabilised bool
		reason     string
	}{
		{"within tolerance holds", 5, 108, noWindows, nil, 5, 5, true, false, "compliance within tolerance"},
		{"the tolerance bound itself holds", 5, 110, noWindows, nil, 5, 5, true, false, "compliance within tolerance"},
		{"the lower bound holds", 5, 90, noWindows, nil, 5, 5, true, false, "compliance within tolerance"},
		{"violated scales out by the ratio", 4, 150, noWindows, nil, 6, 6, false, false, "SLO violated: scaling out"},
		{"ceil of a fraction", 4, 130, noWindows, nil, 6, 6, false, false, "SLO violated: scaling out"}, // 5.2 -> 6
		{
			"float noise does not add a replica", 10, 110,
			HorizontalConfig{MinReplicas: 1, MaxReplicas: 20}, nil, 11, 11, false, false, "SLO violated: scaling out",
		},
		{"outperformed scales in", 10, 50, noWindows, nil, 5, 5, false, false, "SLO outperformed: scaling in"},
		{"clamped to max", 5, 1000, noWindows, nil, 20, 20, false, false, "SLO violated: scaling out (limited by min/max)"},
		{
			"clamped to min", 10, 10,
			HorizontalConfig{MinReplicas: 3, MaxReplicas: 20, Tolerance: 0.1}, nil, 3, 3, false, false, "SLO outperformed: scaling in (limited by min/max)",
		},
		{
			"from zero a violation proposes one", 0, 400,
			HorizontalConfig{MinReplicas: 0, MaxReplicas: 5}, nil, 1, 1, false, false, "SLO violated: scaling out from zero",
		},
		{
			"from zero min still applies", 0, 400,
			HorizontalConfig{MinReplicas: 2, MaxReplicas: 5}, nil, 2, 2, false, false, "SLO violated: scaling out from zero (limited by min/max)",
		},
		{
			"current above max within tolerance is brought into bounds", 30, 100, noWindows, nil, 20, 20, true, false,
			"compliance within tolerance (limited by min/max)",
		},
		{
			"scale-down held by the highest recommendation of the down window", 10, 50,
			HorizontalConfig{MinReplicas: 1, MaxReplicas: 20, Tolerance: 0.1, ScaleDownWindow: 5 * time.Minute},
			[]Recommendation{{t0.Add(-4 * time.Minute), 12}, {t0.Add(-time.Minute), 8}},
			10, 5, false, true, "SLO outperformed: scaling in; held by stabilisation window",
		},
		{
			"scale-down goes as low as the window allows", 10, 50,
			HorizontalConfig{MinReplicas: 1, MaxReplicas: 20, Tolerance: 0.1, ScaleDownWindow: 5 * time.Minute},
			[]Recommendation{{t0.Add(-6 * time.Minute), 12}, {t0.Add(-time.Minute), 7}},
			7, 5, false, true, "SLO outperformed: scaling in; held by stabilisation window",
		},
		{
			"scale-up held by the lowest recommendation of the up window", 4, 200,
			HorizontalConfig{MinReplicas: 1, MaxReplicas: 20, Tolerance: 0.1, ScaleUpWindow: time.Minute},
			[]Recommendation{{t0.Add(-30 * time.Second), 4}},
			4, 8, false, true, "SLO violated: scaling out; held by stabilisation window",
		},
		{
			"old recommendations no longer hold a scale-up", 4, 200,
			HorizontalConfig{MinReplicas: 1, MaxReplicas: 20, Tolerance: 0.1, ScaleUpWindow: time.Minute},
			[]Recommendation{{t0.Add(-61 * time.Second), 4}},
			8, 8, false, false, "SLO violated: scaling out",
		},
		{
			"the down window does not hold a scale-up", 4, 200,
			HorizontalConfig{MinReplicas: 1, MaxReplicas: 20, Tolerance: 0.1, ScaleDownWindow: 5 * time.Minute},
			[]Recommendation{{t0.Add(-time.Minute), 2}},
			8, 8, false, false, "SLO violated: scaling out",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Horizontal(t0, tc.current, tc.compliance, tc.cfg, slices.Clone(tc.history))
			if err != nil {
				t.Fatalf("Horizontal: %v", err)
			}
			if d.Desired != tc.desired || d.Proposed != tc.proposed {
				t.Errorf("desired, proposed = %d, %d, want %d, %d", d.Desired, d.Proposed, tc.desired, tc.proposed)
			}
			if d.WithinTolerance != tc.within || d.Stabilised != tc.stabilised {
				t.Errorf("within, stabilised = %v, %v, want %v, %v", d.WithinTolerance, d.Stabilised, tc.within, tc.stabilised)
			}
			if d.Reason != tc.reason {
				t.Errorf("reason = %q, want %q", d.Reason, tc.reason)
			}
		})
	}
}

// TestHorizontalOverTime runs a latency SLO through a spike and back with
// Polaris' default windows, carrying the history between evaluations.
func TestHorizontalOverTime(t *testing.T) {
	cfg := HorizontalConfig{MinReplicas: 2, MaxReplicas: 12, Tolerance: DefaultTolerance, ScaleUpWindow: DefaultScaleUpWindow, ScaleDownWindow: DefaultScaleDownWindow}
	steps := []struct {
		after      time.Duration
		compliance float64
		want       int32
	}{
		{0, 100, 4},                      // met: hold at 4
		{20 * time.Second, 200, 4},       // violated, but the proposal 20 s ago was 4: the up window holds
		{40 * time.Second, 200, 4},       // the 4 at 0 s is still inside the 60 s up window
		{61 * time.Second, 200, 8},       // the 4 left the window; the lowest left is 8
		{81 * time.Second, 150, 8},       // proposes 12, but 8 was proposed at 40 s and 61 s
		{122 * time.Second, 150, 12},     // only the 12 of 81 s is left in the up window
		{142 * time.Second, 50, 12},      // outperformed: the down window holds at the highest (12)
		{300 * time.Second, 50, 12},      // still within 300 s of the 12s of 81 s and 122 s
		{423 * time.Second, 50, 6},       // those left the window; the highest left is 6
		{440 * time.Second, 100, 6},      // met
		{739 * time.Second, 100 / 3., 6}, // proposes 2, but 6 was proposed at 440 s
		{741 * time.Second, 100 / 3., 2}, // 300 s after 440 s: down to min
	}
	var hist []Recommendation
	current := int32(4)
	for _, s := range steps {
		d, err := Horizontal(t0.Add(s.after), current, s.compliance, cfg, hist)
		if err != nil {
			t.Fatal(err)
		}
		if d.Desired != s.want {
			t.Fatalf("at +%v compliance %v: desired %d, want %d (proposed %d, history %v)", s.after, s.compliance, d.Desired, s.want, d.Proposed, hist)
		}
		for _, r := range d.History {
			if t0.Add(s.after).Sub(r.At) >= DefaultScaleDownWindow {
				t.Fatalf("history kept %v, older than the longest window", r)
			}
		}
		hist, current = d.History, d.Desired
	}
}

func TestHorizontalWithoutWindowsKeepsNoHistory(t *testing.T) {
	d, err := Horizontal(t0, 3, 200, HorizontalConfig{MinReplicas: 1, MaxReplicas: 10}, []Recommendation{{t0.Add(-time.Second), 1}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Desired != 6 || len(d.History) != 0 {
		t.Errorf("desired %d history %v, want 6 and none", d.Desired, d.History)
	}
}

func TestHorizontalRejectsBadInput(t *testing.T) {
	ok := HorizontalConfig{MinReplicas: 1, MaxReplicas: 5, Tolerance: 0.1}
	tests := []struct {
		name       string
		current    int32
		compliance float64
		cfg        HorizontalConfig
		want       string
	}{
		{"min above max", 1, 100, HorizontalConfig{MinReplicas: 6, MaxReplicas: 5}, "minReplicas (6) is greater than maxReplicas (5)"},
		{"max 0", 1, 100, HorizontalConfig{}, "maxReplicas is 0"},
		{"negative min", 1, 100, HorizontalConfig{MinReplicas: -1, MaxReplicas: 5}, "minReplicas is -1"},
		{"tolerance 1", 1, 100, HorizontalConfig{MaxReplicas: 5, Tolerance: 1}, "tolerance is 1"},
		{"negative window", 1, 100, HorizontalConfig{MaxReplicas: 5, ScaleDownWindow: -time.Second}, "stabilisation windows are 0s up, -1s down"},
		{"negative current", -1, 100, ok, "current replicas is -1"},
		{"NaN compliance", 1, math.NaN(), ok, "compliance is NaN"},
		{"infinite compliance", 1, math.Inf(1), ok, "compliance is +Inf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Horizontal(t0, tc.current, tc.compliance, tc.cfg, nil)
			if err == nil || !errors.Is(err, ErrInvalidObjective) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrInvalidObjective containing %q", err, tc.want)
			}
		})
	}
}

// FuzzHorizontal checks that no input makes Horizontal leave [min, max],
// keep history beyond the longest window, or panic.
func FuzzHorizontal(f *testing.F) {
	f.Add(int32(4), 150.0, int32(1), int32(10), 0.1, int64(60), int64(300), []byte{1, 2, 3, 4})
	f.Add(int32(0), 1e308, int32(0), int32(1), 0.0, int64(0), int64(0), []byte{})
	f.Add(int32(1000), 0.0, int32(3), int32(7), 0.5, int64(1), int64(1), []byte{200, 100, 50})
	f.Fuzz(func(t *testing.T, current int32, compliance float64, lo, hi int32, tol float64, upSec, downSec int64, raw []byte) {
		cfg := HorizontalConfig{MinReplicas: lo, MaxReplicas: hi, Tolerance: tol,
			ScaleUpWindow: time.Duration(upSec%3600) * time.Second, ScaleDownWindow: time.Duration(downSec%3600) * time.Second}
		var hist []Recommendation
		for i := 0; i+1 < len(raw); i += 2 {
			hist = append(hist, Recommendation{At: t0.Add(-time.Duration(raw[i]) * 10 * time.Second), Replicas: int32(raw[i+1])})
		}
		d, err := Horizontal(t0, current, compliance, cfg, hist)
		if err != nil {
			return
		}
		if d.Desired < lo || d.Desired > hi || d.Proposed < lo || d.Proposed > hi {
			t.Fatalf("Horizontal(%d, %v, %+v) = %+v outside [%d, %d]", current, compliance, cfg, d, lo, hi)
		}
		longest := max(cfg.ScaleUpWindow, cfg.ScaleDownWindow)
		for _, r := range d.History {
			if !r.At.After(t0.Add(-longest)) {
				t.Fatalf("history kept %v with longest window %v", r, longest)
			}
		}
	})
}

func TestVertical(t *testing.T) {
	const mi = int64(1) << 20
	base := VerticalConfig{
		Min:            Resources{CPUMilli: 100, MemoryBytes: 128 * mi},
		Max:            Resources{CPUMilli: 2000, MemoryBytes: 2048 * mi},
		ScaleUpPercent: DefaultStepPercent, ScaleDownPercent: DefaultStepPercent,
		Tolerance:     0.1,
		ScaleUpWindow: time.Minute, ScaleDownWindow: 5 * time.Minute,
	}
	cur := Resources{CPUMilli: 500, MemoryBytes: 512 * mi}
	tests := []struct {
		name       string
		current    Resources
		compliance float64
		lastScale  time.Time
		cfg        VerticalConfig
		want       Resources
		dir        ScaleDirection
		stabilised bool
		reason     string
	}{
		{"violated: up 10 %", cur, 130, time.Time{}, base, Resources{550, 512*mi + (512*mi+9)/10}, ScaleUp, false, "SLO violated: raising requests"},
		{"outperformed: down 10 %", cur, 60, time.Time{}, base, Resources{450, 512*mi - (512*mi+9)/10}, ScaleDown, false, "SLO outperformed: lowering requests"},
		{"within tolerance", cur, 95, time.Time{}, base, cur, ScaleNone, false, "compliance within tolerance"},
		{
			"a quantum replaces the percent", cur, 130, time.Time{},
			withVertical(base, func(c *VerticalConfig) { c.CPUStepMilli = 250; c.MemoryStepBytes = 64 * mi }),
			Resources{750, 576 * mi}, ScaleUp, false, "SLO violated: raising requests",
		},
		{"clamped to max", Resources{1950, 2000 * mi}, 150, time.Time{}, base, Resources{2000, 2048 * mi}, ScaleUp, false, "SLO violated: raising requests"},
		{"clamped to min", Resources{105, 130 * mi}, 20, time.Time{}, base, Resources{100, 128 * mi}, ScaleDown, false, "SLO outperformed: lowering requests"},
		{"already at max", Resources{2000, 2048 * mi}, 150, time.Time{}, base, Resources{2000, 2048 * mi}, ScaleUp, false, "at resource bounds"},
		{"scale-up inside the up window", cur, 150, t0.Add(-30 * time.Second), base, cur, ScaleUp, true, "held by stabilisation window"},
		{"scale-up after the up window", cur, 150, t0.Add(-time.Minute), base, Resources{550, 512*mi + (512*mi+9)/10}, ScaleUp, false, "SLO violated: raising requests"},
		{"scale-down inside the down window", cur, 50, t0.Add(-2 * time.Minute), base, cur, ScaleDown, true, "held by stabilisation window"},
		{
			"memory not scaled when its max is 0", cur, 150, time.Time{},
			withVertical(base, func(c *VerticalConfig) { c.Min.MemoryBytes, c.Max.MemoryBytes = 0, 0 }),
			Resources{550, 512 * mi}, ScaleUp, false, "SLO violated: raising requests",
		},
		{
			"a zero request grows to min", Resources{0, 512 * mi}, 150, time.Time{}, base,
			Resources{100, 512*mi + (512*mi+9)/10}, ScaleUp, false, "SLO violated: raising requests",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Vertical(t0, tc.current, tc.compliance, tc.lastScale, tc.cfg)
			if err != nil {
				t.Fatalf("Vertical: %v", err)
			}
			if d.Resources != tc.want {
				t.Errorf("resources = %+v, want %+v", d.Resources, tc.want)
			}
			if d.Direction != tc.dir || d.Stabilised != tc.stabilised || d.Reason != tc.reason {
				t.Errorf("direction, stabilised, reason = %v, %v, %q, want %v, %v, %q", d.Direction, d.Stabilised, d.Reason, tc.dir, tc.stabilised, tc.reason)
			}
		})
	}
}

func withVertical(c VerticalConfig, f func(*VerticalConfig)) VerticalConfig { f(&c); return c }

func TestVerticalRejectsBadInput(t *testing.T) {
	ok := VerticalConfig{Min: Resources{100, 100}, Max: Resources{1000, 1000}, ScaleUpPercent: 10, ScaleDownPercent: 10}
	cur := Resources{500, 500}
	tests := []struct {
		name string
		cur  Resources
		cfg  VerticalConfig
		want string
	}{
		{"cpu min above max", cur, withVertical(ok, func(c *VerticalConfig) { c.Min.CPUMilli = 2000 }), "cpu millicores min (2000) is greater than max (1000)"},
		{"memory min without max", cur, withVertical(ok, func(c *VerticalConfig) { c.Max.MemoryBytes = 0 }), "memory bytes max is 0 (not scaled) but min is 100"},
		{"nothing scaled", cur, VerticalConfig{ScaleUpPercent: 10, ScaleDownPercent: 10}, "neither cpu nor memory has a max"},
		{"up percent 0", cur, withVertical(ok, func(c *VerticalConfig) { c.ScaleUpPercent = 0 }), "scaleUpPercent is 0"},
		{"down percent 100", cur, withVertical(ok, func(c *VerticalConfig) { c.ScaleDownPercent = 100 }), "scaleDownPercent is 100"},
		{"negative quantum", cur, withVertical(ok, func(c *VerticalConfig) { c.CPUStepMilli = -1 }), "cpu millicores step is -1"},
		{"negative current", Resources{-1, 5}, ok, "current cpu millicores is -1"},
		{"tolerance negative", cur, withVertical(ok, func(c *VerticalConfig) { c.Tolerance = -0.1 }), "tolerance is -0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Vertical(t0, tc.cur, 150, time.Time{}, tc.cfg)
			if err == nil || !errors.Is(err, ErrInvalidObjective) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrInvalidObjective containing %q", err, tc.want)
			}
		})
	}
	// Quanta for every scaled resource make the percents unnecessary.
	q := VerticalConfig{Max: Resources{CPUMilli: 1000}, CPUStepMilli: 50}
	d, err := Vertical(t0, Resources{CPUMilli: 500, MemoryBytes: 7}, 150, time.Time{}, q)
	if err != nil || d.Resources != (Resources{550, 7}) {
		t.Errorf("quantum-only config: %+v, %v; want {550 7}", d.Resources, err)
	}
}
