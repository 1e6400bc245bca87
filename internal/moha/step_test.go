package moha

import (
	"strings"
	"testing"
	"time"
)

func TestStep(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	loop := Loop{Config: Config{Desired: exampleDesired, Ranges: wideRanges, Weights: Weights{ResponseTime: 1}}, TolerancePercent: 10, Cooldown: 2 * time.Minute}
	// calm: 1 s at 80 % and 75 %, inside the 70-90 % bands.
	calm := State{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 2, RequestsPerSecond: 100, ResponseTimeMs: 900, CPUUsagePercent: 80, MemoryUsagePercent: 75}
	tests := []struct {
		name      string
		s         State
		loop      Loop
		lastScale time.Time
		want      config
		reason    StepReason
		ranked    bool
	}{
		// exampleState (1.5 s, 90 %, 60 %) misses the thresholds; with all
		// weight on the response time the stub's fastest variation wins,
		// 450m × 3 with 600Mi (TestDecide's first case).
		{"violated, never scaled: scales", exampleState, loop, time.Time{}, config{450, 600, 3}, ReasonScaled, true},
		// The same 2 min 1 s after the last change: past the cooldown.
		{"violated, cooldown over: scales", exampleState, loop, t0.Add(-121 * time.Second), config{450, 600, 3}, ReasonScaled, true},
		// 1 min 59 s after: held as it is.
		{"violated, in cooldown: holds", exampleState, loop, t0.Add(-119 * time.Second), config{300, 400, 2}, ReasonCooldown, false},
		{"within targets: holds", calm, loop, time.Time{}, config{300, 400, 2}, ReasonWithinTargets, false},
		// Memory usage 69 % is outside 70-90 %: ranks. Eq. 1 gives CPU
		// ceil(300×0.9) = 270 or 300×80/80 = 300, memory ceil(400×0.9) = 360
		// or ceil(400×69/80) = ceil(345) = 345, replicas ceil(1.8), 2 and
		// ceil(1.725), all 2. The stub's response time 1000/(cpu×replicas/1000)
		// is lowest with 300m; of the two ties the first in variation order
		// (memory from the response time) wins: the current CPU and replicas
		// with 360Mi.
		{"memory under the band: ranks", func() State { s := calm; s.MemoryUsagePercent = 69; return s }(), loop, time.Time{}, config{300, 360, 2}, ReasonScaled, true},
		// The current configuration outside the ranges ranks even when the
		// targets are met: memory range [500, 2000] lifts 360/345 to 500.
		{"outside the ranges: ranks", calm, func() Loop { l := loop; l.Ranges.MemoryLimitMiB = Range{500, 2000}; return l }(), time.Time{}, config{300, 500, 2}, ReasonScaled, true},
		// The winner equals the current configuration: 300m is the CPU
		// range's max and min, 400Mi the memory's, 2 the replicas'.
		{"best is current", exampleState, func() Loop {
			l := loop
			l.Ranges = Ranges{CPULimitMilli: Range{300, 300}, MemoryLimitMiB: Range{400, 400}, Replicas: Range{2, 2}}
			return l
		}(), time.Time{}, config{300, 400, 2}, ReasonBestIsCurrent, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Step(stubPredictor{}, tc.s, tc.loop, tc.lastScale, t0)
			if err != nil {
				t.Fatal(err)
			}
			if c := (config{got.CPULimitMilli, got.MemoryLimitMiB, got.Replicas}); c != tc.want || got.Reason != tc.reason {
				t.Errorf("got %v %s, want %v %s (ranked %v)", c, got.Reason, tc.want, tc.reason, configs(got.Decision.Ranked))
			}
			if (len(got.Decision.Ranked) > 0) != tc.ranked {
				t.Errorf("ranked %d variations, want ranking %v", len(got.Decision.Ranked), tc.ranked)
			}
			if got.Changed() != (tc.reason == ReasonScaled) {
				t.Errorf("Changed() = %v with reason %s", got.Changed(), got.Reason)
			}
		})
	}
}

func TestStepInvalid(t *testing.T) {
	loop := Loop{Config: Config{Desired: exampleDesired, Ranges: wideRanges, Weights: Balanced}, TolerancePercent: 10}
	tests := []struct {
		name   string
		change func(l *Loop, s *State)
		want   string
	}{
		{"weights", func(l *Loop, _ *State) { l.Weights.Replicas = 0.2 }, "weights: sum to 1.1, must sum to 1"},
		{"range", func(l *Loop, _ *State) { l.Ranges.Replicas = Range{5, 3} }, "ranges.replicas: min 5 > max 3"},
		{"tolerance", func(l *Loop, _ *State) { l.TolerancePercent = -1 }, "tolerance_percent -1 must be finite and >= 0"},
		{"cooldown", func(l *Loop, _ *State) { l.Cooldown = -time.Second }, "cooldown -1s must be >= 0"},
		{"state", func(_ *Loop, s *State) { s.CPULimitMilli = 0 }, "current.cpu_limit_millicores: 0 must be finite and > 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, s := loop, exampleState
			tc.change(&l, &s)
			got, err := Step(stubPredictor{}, s, l, time.Time{}, time.Time{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q (got %+v)", err, tc.want, got)
			}
		})
	}
}

// FuzzStep: whatever the state and the times, a step that changes the
// configuration lands within the ranges, never within the cooldown, and a
// held step keeps the state's configuration.
func FuzzStep(f *testing.F) {
	s := exampleState
	f.Add(s.CPULimitMilli, s.MemoryLimitMiB, s.Replicas, s.RequestsPerSecond, s.ResponseTimeMs, s.CPUUsagePercent, s.MemoryUsagePercent, int64(0), int64(120))
	f.Add(300.0, 400.0, 1, 200.0, 1300.0, 100.0, 100.0, int64(60), int64(120))
	f.Add(500.0, 600.0, 3, 100.0, 20.0, 80.0, 80.0, int64(1000), int64(0))
	f.Fuzz(func(t *testing.T, cpu, mem float64, replicas int, rps, rt, cpuU, memU float64, sinceScale, cooldown int64) {
		st := State{CPULimitMilli: cpu, MemoryLimitMiB: mem, Replicas: replicas, RequestsPerSecond: rps, ResponseTimeMs: rt, CPUUsagePercent: cpuU, MemoryUsagePercent: memU}
		r := Ranges{CPULimitMilli: Range{300, 500}, MemoryLimitMiB: Range{400, 600}, Replicas: Range{1, 10}}
		l := Loop{Config: Config{Desired: exampleDesired, Ranges: r, Weights: Balanced}, TolerancePercent: 10, Cooldown: time.Duration(cooldown) * time.Second}
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		last := now.Add(-time.Duration(sinceScale) * time.Second)
		got, err := Step(appPredictor{DefaultApp}, st, l, last, now)
		if err != nil {
			return
		}
		if !got.Changed() {
			if got.CPULimitMilli != cpu || got.MemoryLimitMiB != mem || got.Replicas != replicas {
				t.Fatalf("held (%s) but returned %+v for %+v", got.Reason, got, st)
			}
			return
		}
		if now.Sub(last) < l.Cooldown {
			t.Fatalf("changed %v after the last change, cooldown %v", now.Sub(last), l.Cooldown)
		}
		if !in(got.CPULimitMilli, r.CPULimitMilli) || !in(got.MemoryLimitMiB, r.MemoryLimitMiB) || !in(float64(got.Replicas), r.Replicas) {
			t.Fatalf("changed to %+v outside %+v", got, r)
		}
	})
}
