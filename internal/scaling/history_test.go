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
			return max(len(a.obs), len(a.delay))
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
