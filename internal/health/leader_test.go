package health

import (
	"strings"
	"testing"
	"time"
)

func TestLeader(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	self := "pod-a_1"
	tests := []struct {
		name    string
		elected bool
		lease   Lease
		want    string // "" ready, else a part of the error
	}{
		{"standby, lease held by another", false, Lease{Holder: "pod-b_2", Renewed: now, Duration: 15 * time.Second}, ""},
		{"standby, nobody holds it", false, Lease{}, ""},
		{"leader, renewed 2 s ago", true, Lease{Holder: self, Renewed: now.Add(-2 * time.Second), Duration: 15 * time.Second}, ""},
		// Renewed 15 s ago with a 15 s lease: expires exactly now, not after.
		{"leader, at the edge of expiry", true, Lease{Holder: self, Renewed: now.Add(-15 * time.Second), Duration: 15 * time.Second}, ""},
		{"leader, expired 1 s ago", true, Lease{Holder: self, Renewed: now.Add(-16 * time.Second), Duration: 15 * time.Second}, "leader lease expired: last renewed 2026-11-24T11:59:44Z, 16s before now, lease duration 15s"},
		{"leader, taken by another", true, Lease{Holder: "pod-b_2", Renewed: now, Duration: 15 * time.Second}, "held by pod-b_2, not by this replica (pod-a_1)"},
		{"leader, released", true, Lease{Renewed: now, Duration: 15 * time.Second}, "held by nobody"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Leader(tt.elected, self, tt.lease, now)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Leader = %v, want ready", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Leader = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
