package scaling

import (
	"testing"
	"time"
)

func TestFailover(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	const grace = 90 * time.Second
	tests := []struct {
		name string
		in   FailoverInput
		want FailoverDecision
	}{
		{"reachable, nothing recorded: healthy",
			FailoverInput{Now: at(0), After: grace, Reachable: true, Known: 4, Present: 4},
			FailoverDecision{Mode: FailoverHealthy}},
		{"first unreachable round: holding, since now, wait the whole grace",
			FailoverInput{Now: at(0), After: grace, Known: 4},
			FailoverDecision{Mode: FailoverHolding, State: FailoverState{UnreachableSince: at(0)}, RequeueAfter: 90 * time.Second}},
		{"unreachable for 60 s of 90: still holding, 30 s left",
			FailoverInput{Now: at(60), After: grace, Known: 4, State: FailoverState{UnreachableSince: at(0)}},
			FailoverDecision{Mode: FailoverHolding, State: FailoverState{UnreachableSince: at(0)}, RequeueAfter: 30 * time.Second}},
		{"unreachable for exactly 90 s: the 4 replicas are written off once",
			FailoverInput{Now: at(90), After: grace, Known: 4, State: FailoverState{UnreachableSince: at(0)}},
			FailoverDecision{Mode: FailoverWrittenOff, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}, Moved: 4}},
		{"still unreachable after the failover: written off, nothing moved again",
			FailoverInput{Now: at(150), After: grace, Known: 0, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}},
			FailoverDecision{Mode: FailoverWrittenOff, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}}},
		{"failover turned off later: a written-off cluster stays written off",
			FailoverInput{Now: at(150), After: 0, Known: 0, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}},
			FailoverDecision{Mode: FailoverWrittenOff, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}}},
		{"back with 4 stale replicas: stale for this round, the state cleared",
			FailoverInput{Now: at(200), After: grace, Reachable: true, Known: 0, Present: 4, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}},
			FailoverDecision{Mode: FailoverStale}},
		{"the stale round's writes failed (state kept by the caller): stale again",
			FailoverInput{Now: at(210), After: grace, Reachable: true, Present: 4, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}},
			FailoverDecision{Mode: FailoverStale}},
		{"after the stale round: healthy, the kept replicas count as they are",
			FailoverInput{Now: at(220), After: grace, Reachable: true, Known: 1, Present: 1},
			FailoverDecision{Mode: FailoverHealthy}},
		{"back and the stale copies are gone: healthy, nothing recorded",
			FailoverInput{Now: at(210), After: grace, Reachable: true, Present: 0, State: FailoverState{FailedOverAt: at(90)}},
			FailoverDecision{Mode: FailoverHealthy}},
		{"flapping: unreachable again before a stale round succeeded: written off, not a new grace period",
			FailoverInput{Now: at(205), After: grace, Known: 0, State: FailoverState{FailedOverAt: at(90)}},
			FailoverDecision{Mode: FailoverWrittenOff, State: FailoverState{UnreachableSince: at(205), FailedOverAt: at(90)}}},
		{"flapping within the grace: reachable again at 60 s forgets the outage",
			FailoverInput{Now: at(60), After: grace, Reachable: true, Known: 4, Present: 4, State: FailoverState{UnreachableSince: at(0)}},
			FailoverDecision{Mode: FailoverHealthy}},
		{"flapping within the grace: the next outage starts a new grace period",
			FailoverInput{Now: at(65), After: grace, Known: 4},
			FailoverDecision{Mode: FailoverHolding, State: FailoverState{UnreachableSince: at(65)}, RequeueAfter: 90 * time.Second}},
		{"failover off (0s): held however long",
			FailoverInput{Now: at(3600), After: 0, Known: 4, State: FailoverState{UnreachableSince: at(0)}},
			FailoverDecision{Mode: FailoverHolding, State: FailoverState{UnreachableSince: at(0)}}},
		{"nothing known there: written off with nothing moved",
			FailoverInput{Now: at(90), After: grace, Known: 0, State: FailoverState{UnreachableSince: at(0)}},
			FailoverDecision{Mode: FailoverWrittenOff, State: FailoverState{UnreachableSince: at(0), FailedOverAt: at(90)}}},
		{"recorded since is in the future (clock moved back): restart the grace now",
			FailoverInput{Now: at(10), After: grace, Known: 2, State: FailoverState{UnreachableSince: at(100)}},
			FailoverDecision{Mode: FailoverHolding, State: FailoverState{UnreachableSince: at(10)}, RequeueAfter: 90 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Failover(tt.in); got != tt.want {
				t.Errorf("Failover() = %+v (mode %s), want %+v (mode %s)", got, got.Mode, tt.want, tt.want.Mode)
			}
		})
	}
}

// FuzzFailover checks, for any input, that Failover does not panic and keeps
// its promises: replicas move only in the round a cluster is written off,
// and then all those last known; a reachable cluster records nothing; an
// unreachable one records since when (never later than now); a written-off
// cluster stays written off while unreachable; and the wait is never longer
// than the grace period.
func FuzzFailover(f *testing.F) {
	f.Add(int64(90), int64(90e9), false, int32(4), int32(0), int64(0), int64(0))
	f.Add(int64(60), int64(90e9), false, int32(4), int32(0), int64(1), int64(0))
	f.Add(int64(200), int64(90e9), true, int32(0), int32(4), int64(1), int64(91))
	f.Add(int64(10), int64(0), false, int32(2), int32(0), int64(100), int64(0))
	f.Add(int64(-5), int64(-1), false, int32(-3), int32(-1), int64(-7), int64(-2))
	f.Fuzz(func(t *testing.T, now, after int64, reachable bool, known, present int32, since, failed int64) {
		t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
		at := func(s int64) time.Time {
			if s == 0 {
				return time.Time{}
			}
			return t0.Add(time.Duration(s%1e6) * time.Second)
		}
		in := FailoverInput{Now: at(now), After: time.Duration(after), Reachable: reachable, Known: known, Present: present,
			State: FailoverState{UnreachableSince: at(since), FailedOverAt: at(failed)}}
		if in.Now.IsZero() {
			in.Now = t0
		}
		got := Failover(in)
		if got.Moved != 0 && (got.Mode != FailoverWrittenOff || !in.State.FailedOverAt.IsZero() || got.Moved != max(known, 0)) {
			t.Fatalf("moved %d in mode %s from %+v", got.Moved, got.Mode, in)
		}
		if got.Moved < 0 || got.RequeueAfter < 0 || (in.After > 0 && got.RequeueAfter > in.After) {
			t.Fatalf("moved %d, requeue %v (after %v)", got.Moved, got.RequeueAfter, in.After)
		}
		if reachable && got.State != (FailoverState{}) {
			t.Fatalf("reachable, but records %+v", got.State)
		}
		if !reachable {
			if got.Mode != FailoverHolding && got.Mode != FailoverWrittenOff {
				t.Fatalf("unreachable in mode %s", got.Mode)
			}
			if got.State.UnreachableSince.IsZero() || got.State.UnreachableSince.After(in.Now) {
				t.Fatalf("unreachable since %v at %v", got.State.UnreachableSince, in.Now)
			}
			if !in.State.FailedOverAt.IsZero() && (got.Mode != FailoverWrittenOff || got.State.FailedOverAt != in.State.FailedOverAt) {
				t.Fatalf("a written-off cluster left that state: %+v from %+v", got, in)
			}
		}
	})
}
