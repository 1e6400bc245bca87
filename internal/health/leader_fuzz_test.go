package health

import (
	"testing"
	"time"
)

// FuzzLeader: no panic; a standby (not elected) is always ready; an elected
// replica is not ready when the lease names another (or nobody), and is
// ready while it holds an unexpired lease.
func FuzzLeader(f *testing.F) {
	f.Add(true, "pod-a", "pod-a", int64(-5), int64(15))
	f.Add(true, "pod-a", "pod-b", int64(-1), int64(15))
	f.Add(true, "pod-a", "pod-a", int64(-60), int64(15))
	f.Add(false, "pod-a", "", int64(0), int64(0))
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, elected bool, self, holder string, renewedSec, durSec int64) {
		l := Lease{Holder: holder, Renewed: now.Add(time.Duration(renewedSec%1e6) * time.Second), Duration: time.Duration(durSec%1e6) * time.Second}
		err := Leader(elected, self, l, now)
		if !elected && err != nil {
			t.Fatalf("standby %q not ready: %v", self, err)
		}
		if elected && holder != self && err == nil {
			t.Fatalf("elected %q ready while the lease names %q", self, holder)
		}
		if elected && holder == self && l.Duration > 0 && !now.After(l.Renewed.Add(l.Duration)) && err != nil {
			t.Fatalf("elected %q holding a lease renewed %v ago (duration %v) not ready: %v", self, now.Sub(l.Renewed), l.Duration, err)
		}
	})
}
