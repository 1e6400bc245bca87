package moha

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// stepTrace offers from rps for 5 minutes, then to rps for 10.
func stepTrace(t *testing.T, from, to float64) workload.Trace {
	t.Helper()
	tr, err := workload.ParseTrace(strings.NewReader(fmt.Sprintf("0,%g\n300,%g\n900,%g\n", from, to, to)))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplayLoadStep replays a load step with the runtime's loop
// (Strategy: Round every 30 s, 2 min cooldown, the package's headroom and
// hysteresis, remembered measurements) predicting with the workload model
// itself, so what is checked is the loop and the replay, not a model's
// error: the configuration grows where the ranges let it (replicas, pod
// size or both) and the response time comes back under the target within
// two intervals and the start-up delay of the step.
func TestReplayLoadStep(t *testing.T) {
	const target = 100.0
	tests := []struct {
		name     string
		ranges   Ranges
		from, to float64
		// what must have grown by the end of the step
		replicas, size bool
	}{
		{"replicas only (fixed pod size)", Ranges{CPULimitMilli: Range{300, 300}, MemoryLimitMiB: Range{400, 400}, Replicas: Range{1, 20}}, 60, 600, true, false},
		{"pod size only (one pod)", Ranges{CPULimitMilli: Range{300, 1000}, MemoryLimitMiB: Range{400, 1000}, Replicas: Range{1, 1}}, 60, 220, false, true},
		{"hybrid", Ranges{CPULimitMilli: Range{300, 500}, MemoryLimitMiB: Range{400, 600}, Replicas: Range{1, 20}}, 60, 600, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loop := Loop{Config: Config{Desired: Desired{ResponseTimeMs: target, CPUUsagePercent: 85, MemoryUsagePercent: 80}, Ranges: tc.ranges, Weights: Balanced},
				TolerancePercent: 10, Cooldown: 2 * time.Minute, HeadroomPercent: DefaultHeadroomPercent, LoadHeadroomPercent: DefaultLoadHeadroomPercent, MinDecreasePercent: DefaultMinDecreasePercent}
			start := Configuration{CPULimitMilli: tc.ranges.CPULimitMilli.Min, MemoryLimitMiB: tc.ranges.MemoryLimitMiB.Min, Replicas: int(tc.ranges.Replicas.Min)}
			rep := Replay{App: DefaultApp, Trace: stepTrace(t, tc.from, tc.to), Start: start, StartupDelay: 10 * time.Second, Prices: PaperPrices, TargetResponseTimeMs: target}
			st := &Strategy{P: appPredictor{DefaultApp}, Loop: loop, Every: 30 * time.Second, Epoch: time.Unix(0, 0), History: History{Memory: Memory{Capacity: DefaultMemoryCapacity}}}
			res, err := rep.Run(st)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Load) != 960 {
				t.Fatalf("%d seconds, want 900 + 60", len(res.Load))
			}
			// Before the step the starting configuration serves within the
			// target (the loop may shrink it no further: it is the minimum).
			for s := 0; s < 300; s++ {
				if rt := res.Measured[s].ResponseTimeMs; rt > target {
					t.Fatalf("second %d before the step: %.1f ms", s, rt)
				}
			}
			if rt := res.Measured[300].ResponseTimeMs; rt <= target {
				t.Fatalf("the step does not overload the starting configuration (%.1f ms): the test tests nothing", rt)
			}
			// Recovery: every second from step+70 s to the end of the step
			// is within the target.
			for s := 370; s < 900; s++ {
				if rt := res.Measured[s].ResponseTimeMs; rt > target {
					t.Fatalf("second %d, %+v: %.1f ms over %g ms (changes %+v)", s, res.Serving[s], rt, target, res.Changes)
				}
			}
			end := res.Serving[899]
			if grew := end.Replicas > start.Replicas; grew != tc.replicas && tc.replicas {
				t.Errorf("replicas %d -> %d, want them grown", start.Replicas, end.Replicas)
			}
			if grew := end.CPULimitMilli > start.CPULimitMilli || end.MemoryLimitMiB > start.MemoryLimitMiB; tc.size && !grew {
				t.Errorf("pod size %+v -> %+v, want it grown", start, end)
			}
			sum := res.Summary()
			if len(res.Changes) == 0 || sum.ReplicaChanges+sum.SizeChanges < len(res.Changes) || sum.MaxReplicas < end.Replicas {
				t.Errorf("changes %+v, summary %+v", res.Changes, sum)
			}
			// Each change serves 10 s after its decision, and is paid for
			// from the decision on.
			for _, c := range res.Changes {
				if res.Serving[c.Second+9] != c.From || res.Serving[c.Second+10] != c.To || res.Pending[c.Second] != c.To ||
					res.CostPerHour[c.Second] != max(PaperPrices.Hourly(c.From), PaperPrices.Hourly(c.To)) {
					t.Errorf("change %+v: serving %+v at +9 s, %+v at +10 s, pending %+v, paid %v", c, res.Serving[c.Second+9], res.Serving[c.Second+10], res.Pending[c.Second], res.CostPerHour[c.Second])
				}
			}
			t.Logf("%+v; changes %+v; rounds %v", sum, res.Changes, st.Rounds)
		})
	}
}

// TestReplaySummary checks the summary's arithmetic on a hand-made replay:
// load-weighted mean and 95th percentile, seconds over, changes, cost.
func TestReplaySummary(t *testing.T) {
	a := Configuration{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 1}
	b := Configuration{CPULimitMilli: 500, MemoryLimitMiB: 400, Replicas: 2}
	r := &ReplayResult{
		Load:                 []float64{10, 10, 80, 0},
		Serving:              []Configuration{a, a, b, b},
		Pending:              []Configuration{a, b, b, b},
		Measured:             []Sample{{ResponseTimeMs: 10}, {ResponseTimeMs: 20}, {ResponseTimeMs: 200}, {ResponseTimeMs: 0}},
		CostPerHour:          []float64{1, 2, 2, 2},
		Changes:              []Change{{Second: 1, From: a, To: b}},
		TargetResponseTimeMs: 100,
	}
	s := r.Summary()
	// mean: (10×10 + 20×10 + 200×80)/100 = 163; p95: 95 of 100 req/s
	// reached only in the 200 ms second.
	if s.ResponseTimeMs != 163 || s.P95ResponseTimeMs != 200 || s.Over != 1 || s.Replicas != 1.5 || s.CPULimitMilli != 400 ||
		s.MaxReplicas != 2 || s.ReplicaChanges != 1 || s.SizeChanges != 1 || s.CostPerDay != 7.0/4*24 || s.Seconds != 4 {
		t.Errorf("summary %+v", s)
	}
	var buf bytes.Buffer
	if err := r.WriteTimeline(&buf); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 5 || lines[2] != "1,10.0,1,300,400,20.0,0.0,0.0,2,500,400,2.0000" {
		t.Errorf("timeline:\n%s", buf.String())
	}
}

// TestRound: a round remembers the measurement of a settled configuration
// (as the controller's status does), records its decision and, when it
// changes the configuration, the time of the change.
func TestRound(t *testing.T) {
	now := time.Unix(10_000, 0)
	loop := Loop{Config: Config{Desired: Desired{ResponseTimeMs: 100, CPUUsagePercent: 85, MemoryUsagePercent: 80},
		Ranges: Ranges{CPULimitMilli: Range{300, 500}, MemoryLimitMiB: Range{400, 600}, Replicas: Range{1, 10}}, Weights: Balanced},
		TolerancePercent: 10, Cooldown: 2 * time.Minute, HeadroomPercent: DefaultHeadroomPercent, LoadHeadroomPercent: DefaultLoadHeadroomPercent, MinDecreasePercent: DefaultMinDecreasePercent}
	cfg := Configuration{CPULimitMilli: 500, MemoryLimitMiB: 600, Replicas: 2}
	state := func(rps float64) State {
		m := DefaultApp.Measure(cfg.CPULimitMilli, cfg.MemoryLimitMiB, cfg.Replicas, rps)
		return State{CPULimitMilli: cfg.CPULimitMilli, MemoryLimitMiB: cfg.MemoryLimitMiB, Replicas: cfg.Replicas, RequestsPerSecond: rps,
			ResponseTimeMs: m.ResponseTimeMs, CPUUsagePercent: m.CPUUsagePercent, MemoryUsagePercent: m.MemoryUsagePercent}
	}
	decided := History{DecidedAt: now.Add(-30 * time.Second), Decided: cfg, Memory: Memory{Capacity: DefaultMemoryCapacity}}
	tests := []struct {
		name       string
		h          History
		rps        float64
		remembered bool
		changed    bool
	}{
		// 2 pods of 500m/600Mi at 380 req/s: 190 each, working set 440 MiB
		// (73 %), 13.75 % GC overhead, 86 % CPU, 34 ms: within the targets,
		// held.
		{"settled, within targets: remembered, held", decided, 380, true, false},
		{"first round: nothing to remember", History{Memory: Memory{Capacity: DefaultMemoryCapacity}}, 380, false, false},
		{"changed 59 s ago: not settled", func() History { h := decided; h.LastScale = now.Add(-59 * time.Second); return h }(), 380, false, false},
		{"another configuration decided", func() History { h := decided; h.Decided.Replicas = 3; return h }(), 380, false, false},
		// At 600 req/s the two pods saturate: scaled.
		{"overloaded: remembered, scaled", decided, 600, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Round(appPredictor{DefaultApp}, state(tc.rps), loop, tc.h, 30*time.Second, now)
			if err != nil {
				t.Fatal(err)
			}
			if r.Remembered != tc.remembered || r.Changed() != tc.changed {
				t.Fatalf("remembered %v, changed %v (%s), want %v, %v", r.Remembered, r.Changed(), r.Reason, tc.remembered, tc.changed)
			}
			if n := len(r.History.Memory.Entries); n != len(tc.h.Memory.Entries)+map[bool]int{true: 1}[tc.remembered] {
				t.Errorf("%d remembered", n)
			}
			if r.History.DecidedAt != now || r.History.Decided != r.Configuration() {
				t.Errorf("history %+v after %+v", r.History, r.StepResult)
			}
			if wantScale := map[bool]time.Time{true: now, false: tc.h.LastScale}[tc.changed]; r.History.LastScale != wantScale {
				t.Errorf("last scale %v, want %v", r.History.LastScale, wantScale)
			}
		})
	}
	bad := loop
	bad.Weights.ResponseTime = 0.6
	if r, err := Round(appPredictor{DefaultApp}, state(380), bad, decided, 30*time.Second, now); err == nil || !strings.Contains(err.Error(), "weights: sum to 1.1, must sum to 1") || r.History.DecidedAt != decided.DecidedAt {
		t.Errorf("weights summing to 1.1: %v, history %+v", err, r.History)
	}
}
