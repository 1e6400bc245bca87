package scaling

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestScheduleFloor(t *testing.T) {
	// Reference dates (tzdata): Europe/Berlin is UTC+1 in winter, UTC+2
	// from 2026-03-29 02:00; America/New_York jumps 02:00 -> 03:00 on
	// 2026-03-08 and falls back 02:00 -> 01:00 on 2026-11-01.
	// 2026-11-24 is a Tuesday, 2026-11-27 a Friday.
	business := Window{Name: "business", Start: "0 9 * * MON-FRI", Duration: 8 * time.Hour, TimeZone: "Europe/Berlin", MinReplicas: 5}
	tests := []struct {
		name     string
		windows  []Window
		now      string
		lead     time.Duration
		wantMin  int32
		wantAct  []string
		wantNext string // "" for zero
	}{
		{
			name: "inside a business window (10:00 CET)", windows: []Window{business},
			now: "2026-11-24T09:00:00Z", wantMin: 5, wantAct: []string{"business"},
			wantNext: "2026-11-24T16:00:00Z", // 17:00 CET
		},
		{
			name: "start is inclusive (09:00 CET)", windows: []Window{business},
			now: "2026-11-24T08:00:00Z", wantMin: 5, wantAct: []string{"business"},
			wantNext: "2026-11-24T16:00:00Z",
		},
		{
			name: "end is exclusive (17:00 CET); next is Wednesday 09:00 CET", windows: []Window{business},
			now: "2026-11-24T16:00:00Z", wantMin: 0,
			wantNext: "2026-11-25T08:00:00Z",
		},
		{
			name: "Saturday: none; next is Monday 09:00 CET", windows: []Window{business},
			now: "2026-11-28T09:00:00Z", wantMin: 0,
			wantNext: "2026-11-30T08:00:00Z",
		},
		{
			name: "4 min before the start without lead: not yet", windows: []Window{business},
			now: "2026-11-24T07:56:00Z", wantMin: 0,
			wantNext: "2026-11-24T08:00:00Z",
		},
		{
			name: "4 min before the start with a 5 min lead: in force", windows: []Window{business},
			now: "2026-11-24T07:56:00Z", lead: 5 * time.Minute, wantMin: 5, wantAct: []string{"business"},
			wantNext: "2026-11-24T16:00:00Z",
		},
		{
			name: "lead moves the next change earlier", windows: []Window{business},
			now: "2026-11-24T07:50:00Z", lead: 5 * time.Minute, wantMin: 0,
			wantNext: "2026-11-24T07:55:00Z",
		},
		{
			name:    "summer time: 09:00 CEST is 07:00 UTC",
			windows: []Window{{Name: "daily", Start: "0 9 * * *", Duration: time.Hour, TimeZone: "Europe/Berlin", MinReplicas: 2}},
			now:     "2026-03-30T07:00:00Z", wantMin: 2, wantAct: []string{"daily"},
			wantNext: "2026-03-30T08:00:00Z",
		},
		{
			name:    "summer time: 06:59 UTC is 08:59 CEST, not yet",
			windows: []Window{{Name: "daily", Start: "0 9 * * *", Duration: time.Hour, TimeZone: "Europe/Berlin", MinReplicas: 2}},
			now:     "2026-03-30T06:59:00Z", wantMin: 0,
			wantNext: "2026-03-30T07:00:00Z",
		},
		{
			name:    "spring forward: 02:30 is skipped, the window opens at 03:00 EDT (07:00 UTC)",
			windows: []Window{{Name: "night", Start: "30 2 * * *", Duration: time.Hour, TimeZone: "America/New_York", MinReplicas: 3}},
			now:     "2026-03-08T07:00:00Z", wantMin: 3, wantAct: []string{"night"},
			wantNext: "2026-03-08T08:00:00Z",
		},
		{
			name:    "spring forward: 01:59 EST is before the skipped start",
			windows: []Window{{Name: "night", Start: "30 2 * * *", Duration: time.Hour, TimeZone: "America/New_York", MinReplicas: 3}},
			now:     "2026-03-08T06:59:00Z", wantMin: 0,
			wantNext: "2026-03-08T07:00:00Z",
		},
		{
			name:    "fall back: 01:30 EDT (05:30 UTC) opens the window",
			windows: []Window{{Name: "night", Start: "30 1 * * *", Duration: time.Hour, TimeZone: "America/New_York", MinReplicas: 3}},
			now:     "2026-11-01T05:30:00Z", wantMin: 3, wantAct: []string{"night"},
			wantNext: "2026-11-01T06:30:00Z",
		},
		{
			name:    "fall back: the second 01:30 (EST, 06:30 UTC) does not open it again",
			windows: []Window{{Name: "night", Start: "30 1 * * *", Duration: time.Hour, TimeZone: "America/New_York", MinReplicas: 3}},
			now:     "2026-11-01T06:40:00Z", wantMin: 0,
			wantNext: "2026-11-02T06:30:00Z", // 01:30 EST on Monday
		},
		{
			name:    "duration is elapsed time across a DST jump: 00:00 EST + 6h ends 07:00 EDT (11:00 UTC)",
			windows: []Window{{Name: "jump", Start: "0 0 8 3 *", Duration: 6 * time.Hour, TimeZone: "America/New_York", MinReplicas: 4}},
			now:     "2026-03-08T10:59:00Z", wantMin: 4, wantAct: []string{"jump"},
			wantNext: "2026-03-08T11:00:00Z",
		},
		{
			name:    "crossing midnight: Friday 22:00 + 8h still in force Saturday 05:59",
			windows: []Window{{Name: "batch", Start: "0 22 * * FRI", Duration: 8 * time.Hour, TimeZone: "UTC", MinReplicas: 3}},
			now:     "2026-11-28T05:59:00Z", wantMin: 3, wantAct: []string{"batch"},
			wantNext: "2026-11-28T06:00:00Z",
		},
		{
			name:    "crossing midnight: over at Saturday 06:00; next is the following Friday",
			windows: []Window{{Name: "batch", Start: "0 22 * * FRI", Duration: 8 * time.Hour, TimeZone: "UTC", MinReplicas: 3}},
			now:     "2026-11-28T06:00:00Z", wantMin: 0,
			wantNext: "2026-12-04T22:00:00Z",
		},
		{
			name: "overlapping windows: the highest floor, both named",
			windows: []Window{
				{Name: "day", Start: "0 8 * * *", Duration: 10 * time.Hour, MinReplicas: 4},
				{Name: "lunch", Start: "0 12 * * *", Duration: 2 * time.Hour, MinReplicas: 9},
			},
			now: "2026-11-24T13:00:00Z", wantMin: 9, wantAct: []string{"day", "lunch"},
			wantNext: "2026-11-24T14:00:00Z",
		},
		{
			name: "overlapping windows: after lunch only day",
			windows: []Window{
				{Name: "day", Start: "0 8 * * *", Duration: 10 * time.Hour, MinReplicas: 4},
				{Name: "lunch", Start: "0 12 * * *", Duration: 2 * time.Hour, MinReplicas: 9},
			},
			now: "2026-11-24T15:00:00Z", wantMin: 4, wantAct: []string{"day"},
			wantNext: "2026-11-24T18:00:00Z",
		},
		{
			name:    "one window overlapping itself: every 30 min for 1h stays in force",
			windows: []Window{{Name: "half", Start: "*/30 * * * *", Duration: time.Hour, MinReplicas: 2}},
			now:     "2026-11-24T10:10:00Z", wantMin: 2, wantAct: []string{"half"},
			wantNext: "2026-11-24T10:30:00Z", // the 09:30 start ends; 10:30 starts anew
		},
		{
			name:    "day-of-month and day-of-week both restricted mean either (cron): the 1st or a Monday",
			windows: []Window{{Name: "either", Start: "0 0 1 * MON", Duration: time.Hour, MinReplicas: 2}},
			now:     "2026-11-30T00:30:00Z", wantMin: 2, wantAct: []string{"either"}, // Monday the 30th
			wantNext: "2026-11-30T01:00:00Z",
		},
		{
			name: "no windows", now: "2026-11-24T10:00:00Z", wantMin: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSchedule(tt.windows)
			if err != nil {
				t.Fatalf("NewSchedule: %v", err)
			}
			got := s.Floor(utc(tt.now), tt.lead)
			if got.Min != tt.wantMin {
				t.Errorf("Min = %d, want %d", got.Min, tt.wantMin)
			}
			if !slices.Equal(got.Active, tt.wantAct) {
				t.Errorf("Active = %v, want %v", got.Active, tt.wantAct)
			}
			var want time.Time
			if tt.wantNext != "" {
				want = utc(tt.wantNext)
			}
			if !got.NextChange.Equal(want) {
				t.Errorf("NextChange = %v, want %v", got.NextChange.UTC(), want)
			}
		})
	}
}

func TestScheduleNil(t *testing.T) {
	var s *Schedule
	if got := s.Floor(time.Now(), time.Minute); got.Min != 0 || got.Active != nil {
		t.Fatalf("nil schedule: %+v", got)
	}
}

func TestNewScheduleErrors(t *testing.T) {
	ok := Window{Name: "a", Start: "0 9 * * *", Duration: time.Hour, TimeZone: "UTC", MinReplicas: 2}
	with := func(f func(*Window)) []Window { w := ok; f(&w); return []Window{w} }
	tests := []struct {
		name    string
		windows []Window
		want    []string // substrings of the error
	}{
		{"six fields", with(func(w *Window) { w.Start = "0 0 9 * * *" }), []string{"windows[0].start", "6 fields, want 5"}},
		{"bad minute", with(func(w *Window) { w.Start = "61 9 * * *" }), []string{"windows[0].start", "not a 5-field cron expression"}},
		{"descriptor", with(func(w *Window) { w.Start = "@every 1h" }), []string{"windows[0].start"}},
		{"tz prefix", with(func(w *Window) { w.Start = "CRON_TZ=UTC 0 9 * * *" }), []string{"windows[0].start", "set timeZone instead"}},
		{"unknown zone", with(func(w *Window) { w.TimeZone = "Mars/Olympus" }), []string{"windows[0].timeZone", "not an IANA time zone"}},
		{"Local zone", with(func(w *Window) { w.TimeZone = "Local" }), []string{"windows[0].timeZone", "IANA zone"}},
		{"zero duration", with(func(w *Window) { w.Duration = 0 }), []string{"windows[0].duration", "at most 168h"}},
		{"too long", with(func(w *Window) { w.Duration = 169 * time.Hour }), []string{"windows[0].duration"}},
		{"floor below 1", with(func(w *Window) { w.MinReplicas = 0 }), []string{"windows[0].minReplicas"}},
		{"no name", with(func(w *Window) { w.Name = "" }), []string{"windows[0].name"}},
		{"duplicate", []Window{ok, ok}, []string{"windows[1].name", "also windows[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSchedule(tt.windows)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func BenchmarkScheduleFloorEveryMinuteWeek(b *testing.B) {
	s, err := NewSchedule([]Window{{Name: "m", Start: "* * * * *", Duration: MaxWindowDuration, MinReplicas: 2}})
	if err != nil {
		b.Fatal(err)
	}
	now := utc("2026-11-24T10:00:00Z")
	for b.Loop() {
		s.Floor(now, time.Minute)
	}
}

func BenchmarkScheduleFloorBusiness(b *testing.B) {
	s, err := NewSchedule([]Window{{Name: "b", Start: "0 9 * * MON-FRI", Duration: 8 * time.Hour, TimeZone: "Europe/Berlin", MinReplicas: 2}})
	if err != nil {
		b.Fatal(err)
	}
	now := utc("2026-11-24T10:00:00Z")
	for b.Loop() {
		s.Floor(now, time.Minute)
	}
}

func TestRaiseToFloor(t *testing.T) {
	f := ScheduleFloor{Min: 8, Active: []string{"business", "lunch"}}
	tests := []struct {
		name           string
		total          int32
		decided        bool
		current, maxR  int32
		floor          ScheduleFloor
		want           int32
		wantRaised     bool
		wantReasonPart string
	}{
		{"decision below the floor is raised", 3, true, 5, 20, f, 8, true, "schedule business, lunch keeps at least 8"},
		{"decision above the floor stands", 12, true, 5, 20, f, 12, false, ""},
		{"decision equal to the floor stands", 8, true, 5, 20, f, 8, false, ""},
		{"floor capped at max", 3, true, 5, 6, f, 6, true, "at least 6"},
		{"no decision: current below the floor is raised", 0, false, 4, 20, f, 8, true, "at least 8"},
		{"no decision: current above the floor is kept", 0, false, 10, 20, f, 0, false, ""},
		{"no window", 3, true, 5, 20, ScheduleFloor{}, 3, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, raised, reason := RaiseToFloor(tt.total, tt.decided, tt.current, tt.maxR, tt.floor)
			if got != tt.want || raised != tt.wantRaised || !strings.Contains(reason, tt.wantReasonPart) {
				t.Fatalf("RaiseToFloor = %d, %v, %q; want %d, %v, containing %q", got, raised, reason, tt.want, tt.wantRaised, tt.wantReasonPart)
			}
		})
	}
}
