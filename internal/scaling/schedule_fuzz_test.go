package scaling

import (
	"testing"
	"time"
)

// FuzzSchedule: no panic on any cron expression, time zone, duration or
// instant; a schedule that compiles gives a floor that is one of its windows'
// MinReplicas (or 0), names only its windows, and changes next strictly later
// than now. RaiseToFloor never lowers the count and never passes maxR unless
// the count already did.
func FuzzSchedule(f *testing.F) {
	// Seeds from TestSchedule's windows: weekday mornings in Berlin,
	// a DST-skipped start, a daily window, and malformed ones.
	f.Add("45 7 * * MON-FRI", "Europe/Berlin", int64(3*3600), int32(10), int64(1774836000), int64(120), int32(4), int32(20))
	f.Add("30 2 * * *", "Europe/Berlin", int64(3600), int32(3), int64(1774746000), int64(0), int32(1), int32(5))
	f.Add("0 22 * * *", "UTC", int64(5400), int32(4), int64(0), int64(0), int32(0), int32(0))
	f.Add("0 0 8 * * *", "", int64(60), int32(1), int64(1), int64(1), int32(1), int32(1))
	f.Add("@daily", "Local", int64(-1), int32(-1), int64(-1), int64(-1), int32(-1), int32(-1))
	f.Fuzz(func(t *testing.T, cron, zone string, durSec int64, minR int32, nowUnix, leadSec int64, total, maxR int32) {
		_ = ParseCron(cron)
		w := Window{Name: "w", Start: cron, Duration: time.Duration(durSec%(8*86400)) * time.Second, TimeZone: zone, MinReplicas: minR}
		s, err := NewSchedule([]Window{w})
		if err != nil {
			return
		}
		now := time.Unix(nowUnix%(1<<34), 0).UTC()
		lead := time.Duration(leadSec%3600) * time.Second
		fl := s.Floor(now, lead)
		if fl.Min != 0 && fl.Min != minR {
			t.Fatalf("floor %d, want 0 or the window's %d", fl.Min, minR)
		}
		if (fl.Min != 0) != (len(fl.Active) == 1) || (len(fl.Active) == 1 && fl.Active[0] != "w") {
			t.Fatalf("floor %+v: active windows do not match the floor", fl)
		}
		if !fl.NextChange.IsZero() && !fl.NextChange.After(now) {
			t.Fatalf("next change %v is not after now %v", fl.NextChange, now)
		}
		got, raised, _ := RaiseToFloor(total, true, total, maxR, fl)
		if got < total || (raised && got <= total) || (!raised && got != total) {
			t.Fatalf("RaiseToFloor(%d, max %d, floor %d) = %d, raised %v", total, maxR, fl.Min, got, raised)
		}
		if raised && got > maxR && got > total {
			t.Fatalf("RaiseToFloor(%d, max %d, floor %d) = %d above max", total, maxR, fl.Min, got)
		}
	})
}

// FuzzScaleBack: no panic; a plan never removes more than a cluster runs,
// never touches an unreachable burst cluster, and accounts for the whole
// excess: removed + blocked + remaining = excess.
func FuzzScaleBack(f *testing.F) {
	f.Add(int32(5), int64(500), int64(1<<29), int32(3), []byte{1, 1, 3, 1, 20, 40, 2, 0, 4, 0, 9, 9})
	f.Add(int32(50), int64(0), int64(0), int32(0), []byte{5, 1, 5, 1, 5, 1})
	f.Add(int32(0), int64(1), int64(1), int32(1), []byte{})
	f.Fuzz(func(t *testing.T, excess int32, cpu, mem int64, primaryCurrent int32, raw []byte) {
		if excess < 0 || cpu < 0 || mem < 0 || primaryCurrent < 0 {
			return
		}
		excess %= 10000
		p := PodRequests{CPUMilli: cpu % 8000, MemoryBytes: mem % (64 << 30)}
		var targets []BurstTarget
		for i := 0; i+4 <= len(raw) && len(targets) < 12; i += 4 {
			b := raw[i : i+4]
			targets = append(targets, BurstTarget{Name: string(rune('a' + len(targets))), Current: int32(b[0] % 30), Reachable: b[1]%4 != 0,
				PricePerVCPUHour: float64(b[2]) / 100, PricePerGiBHour: float64(b[3]) / 100})
		}
		plan, err := ScaleBack(excess, p, "primary", primaryCurrent%1000, targets)
		if err != nil {
			return
		}
		current := map[string]int32{"primary": primaryCurrent % 1000}
		reachable := map[string]bool{"primary": true}
		for _, tg := range targets {
			current[tg.Name], reachable[tg.Name] = tg.Current, tg.Reachable
		}
		seen := map[string]bool{}
		for _, r := range plan.Reductions {
			if r.Replicas <= 0 || r.Replicas > current[r.Cluster] || seen[r.Cluster] || !reachable[r.Cluster] {
				t.Fatalf("reduction %+v: not positive, more than the %d there, repeated or unreachable", r, current[r.Cluster])
			}
			seen[r.Cluster] = true
		}
		if plan.Blocked < 0 || plan.Remaining < 0 || plan.Removed()+plan.Blocked+plan.Remaining != excess {
			t.Fatalf("removed %d + blocked %d + remaining %d != excess %d", plan.Removed(), plan.Blocked, plan.Remaining, excess)
		}
	})
}
