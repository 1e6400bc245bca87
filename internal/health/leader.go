package health

import (
	"fmt"
	"time"
)

// Lease is what a probe read of the leader election lease.
type Lease struct {
	// Holder is the lease's holderIdentity ("" when nobody holds it).
	Holder string
	// Renewed is its renewTime and Duration its leaseDurationSeconds.
	Renewed  time.Time
	Duration time.Duration
}

// Leader decides the leader part of readiness, following controller-runtime's
// conventions: a replica that was never elected is a standby and ready (it is
// healthy, waits for the lease and takes over when the leader goes; a
// Deployment with several replicas must be able to finish its rollout); a
// replica that was elected is ready only while the lease still names it
// (self) and has not expired at now. The manager exits soon after it loses
// the lease; until then, readiness already says so.
func Leader(elected bool, self string, l Lease, now time.Time) error {
	if !elected {
		return nil
	}
	if l.Holder != self {
		holder := l.Holder
		if holder == "" {
			holder = "nobody"
		}
		return fmt.Errorf("leader lease lost: held by %s, not by this replica (%s)", holder, self)
	}
	if l.Duration > 0 && now.After(l.Renewed.Add(l.Duration)) {
		return fmt.Errorf("leader lease expired: last renewed %s, %s before now, lease duration %s",
			l.Renewed.UTC().Format(time.RFC3339), now.Sub(l.Renewed).Round(time.Second), l.Duration)
	}
	return nil
}
