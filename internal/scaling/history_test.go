package scaling

import (
	"testing"
	"time"
)

// TestHistoryBounded drives every algorithm with many decisions and checks
// that the history it keeps is pruned by time and capped.
func TestHistoryBounded(t *testing.T) {
	lens := func(a Algorithm) int {
		switch a := a.(type) {
		case *Kubernetes:
			return max(len(a.recs), len(a.ups), len(a.downs))
		case *FRSS:
			return max(len(a.recs), len(a.downs))
		case *Panic:
			n := len(a.delay)
			for _, o := range a.obs {
				n = max(n, len(o))
			}
			return n
		}
		t.Fatalf("unknown algorithm %T", a)
		return 0
	}
	for _, alg := range allAlgorithms(t) {
		t.Run(alg.Name(), func(t *testing.T) {
			in := Input{Now: algT0, Current: 5, Min: 1, Max: 50, Target: 50}
			for i := range maxHistory + 1000 {
				in.Now = algT0.Add(time.Duration(i) * time.Millisecond)
				// Alternate load so both directions record events.
				in.External = ext(float64(50 * (1 + 20*(i%2))))
				in.Current = alg.Decide(in).Desired
			}
			if n := lens(alg); n > maxHistory {
				t.Fatalf("history of %d entries after %d decisions in 5 s, cap %d", n, maxHistory+1000, maxHistory)
			}
			// Two hours later every window has passed: one decision leaves
			// only what it records itself.
			in.Now = in.Now.Add(2 * time.Hour)
			alg.Decide(in)
			if n := lens(alg); n > 1 {
				t.Fatalf("history of %d entries after the windows passed", n)
			}
			// The clock going backwards drops the entries from the future.
			in.Now = in.Now.Add(-time.Hour)
			alg.Decide(in)
			if n := lens(alg); n > 1 {
				t.Fatalf("history of %d entries after the clock went back", n)
			}
		})
	}
}

// TestStabilize: recommendations 8 at -200 s and 3 at -30 s, current 5.
// With a 60 s up window and a 300 s down window, the up window holds 3 and
// the down window 8 and 3 (plus the proposal each time).
func TestStabilize(t *testing.T) {
	past := func() []stamped {
		return []stamped{{at: algAt(-200 * time.Second), n: 8}, {at: algAt(-30 * time.Second), n: 3}}
	}
	tests := []struct {
		name         string
		up, down     time.Duration
		proposed     int32
		want         int32
		wantRecorded int
	}{
		// Up to 10: the lowest in the up window is 3, below current 5:
		// hold 5.
		{"rise held by a low recommendation", time.Minute, 5 * time.Minute, 10, 5, 3},
		// Down to 2: the highest in the down window is 8: hold 5.
		{"fall held by a high recommendation", time.Minute, 5 * time.Minute, 2, 5, 3},
		// Down to 2 with a 100 s down window: only 3 (at -30 s) and 2 are
		// in it, so 5 falls to 3.
		{"fall to the highest in the window", time.Minute, 100 * time.Second, 2, 3, 3},
		// No windows: the proposal itself.
		{"no windows", 0, 0, 2, 2, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := past()
			if got := stabilize(&recs, algT0, tc.up, tc.down, 5, tc.proposed); got != tc.want || len(recs) != tc.wantRecorded {
				t.Fatalf("got %d with %d recommendations, want %d with %d", got, len(recs), tc.want, tc.wantRecorded)
			}
		})
	}
}
