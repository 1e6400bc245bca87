package scaling

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// MaxWindowDuration is the longest a scheduled window may last.
const MaxWindowDuration = 168 * time.Hour

// scheduleLookahead bounds the search for a window's next start.
const scheduleLookahead = 8 * 24 * time.Hour

// Window is a scheduled scaling window: from each time Start matches, in
// TimeZone's wall clock, for Duration (elapsed time), the target keeps at
// least MinReplicas.
//
// Start is a standard 5-field cron expression (minute hour day-of-month month
// day-of-week; names such as MON and JAN, ranges, lists and steps allowed;
// day-of-month and day-of-week both restricted means either, as in cron).
// Daylight saving time: a start whose wall-clock time is skipped (02:30 on
// the spring-forward day) happens at the end of the skip (03:00), as Vixie
// cron runs such jobs; a start whose wall-clock time occurs twice (01:30 on
// the fall-back day) happens once, at the first occurrence.
type Window struct {
	Name        string
	Start       string
	Duration    time.Duration
	TimeZone    string
	MinReplicas int32
}

// Schedule is a compiled list of windows, ready for [Schedule.Floor].
type Schedule struct {
	windows []compiledWindow
}

type compiledWindow struct {
	Window
	spec *cron.SpecSchedule
	loc  *time.Location
}

// cronParser accepts the 5 standard fields only: no seconds, no
// descriptors (@every would not be a wall-clock start).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ParseCron checks a 5-field cron expression; the error says what is wrong
// and what is expected.
func ParseCron(expr string) error {
	_, err := parseCron(expr)
	return err
}

func parseCron(expr string) (*cron.SpecSchedule, error) {
	e := strings.TrimSpace(expr)
	if strings.Contains(e, "TZ=") {
		return nil, errors.New("a time zone prefix (CRON_TZ= or TZ=) is not allowed in the cron expression: set timeZone instead")
	}
	if n := len(strings.Fields(e)); n != 5 {
		return nil, fmt.Errorf("%q has %d fields, want 5 (minute hour day-of-month month day-of-week, e.g. \"0 8 * * MON-FRI\")", expr, n)
	}
	s, err := cronParser.Parse(e)
	if err != nil {
		return nil, fmt.Errorf("%q is not a 5-field cron expression (minute hour day-of-month month day-of-week, e.g. \"0 8 * * MON-FRI\"): %w", expr, err)
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("%q is not a 5-field cron expression", expr)
	}
	return spec, nil
}

// LoadTimeZone resolves an IANA time zone name ("" means UTC); "Local" is
// refused, because the runtime's local zone is not the user's.
func LoadTimeZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if name == "Local" {
		return nil, errors.New("\"Local\" depends on the machine the runtime runs on: name an IANA zone such as \"Europe/Berlin\" or \"UTC\"")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not an IANA time zone name (e.g. \"Europe/Berlin\", \"America/New_York\", \"UTC\"): %w", name, err)
	}
	return loc, nil
}

// NewSchedule compiles windows; the error names the window and field
// ("windows[1].timeZone: ...").
func NewSchedule(windows []Window) (*Schedule, error) {
	s := &Schedule{}
	seen := map[string]int{}
	for i, w := range windows {
		if w.Name == "" {
			return nil, fmt.Errorf("windows[%d].name: set a name", i)
		}
		if j, ok := seen[w.Name]; ok {
			return nil, fmt.Errorf("windows[%d].name: %q is also windows[%d]'s name: give each window its own name", i, w.Name, j)
		}
		seen[w.Name] = i
		spec, err := parseCron(w.Start)
		if err != nil {
			return nil, fmt.Errorf("windows[%d].start: %w", i, err)
		}
		loc, err := LoadTimeZone(w.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("windows[%d].timeZone: %w", i, err)
		}
		if w.Duration <= 0 || w.Duration > MaxWindowDuration {
			return nil, fmt.Errorf("windows[%d].duration: %v is outside (0s, %v]: set a positive duration of at most 168h", i, w.Duration, MaxWindowDuration)
		}
		if w.MinReplicas < 1 {
			return nil, fmt.Errorf("windows[%d].minReplicas: %d is below 1: set the floor the window keeps", i, w.MinReplicas)
		}
		s.windows = append(s.windows, compiledWindow{Window: w, spec: spec, loc: loc})
	}
	return s, nil
}

// ScheduleFloor is what the windows ask for at one instant.
type ScheduleFloor struct {
	// Min is the highest MinReplicas of the windows in force (0: none).
	Min int32
	// Active are the names of the windows in force, in declaration order.
	Active []string
	// NextChange is the earliest later instant when a window comes into or
	// goes out of force (zero when none within 8 days).
	NextChange time.Time
}

// Floor evaluates the windows at now. A window that starts at s and lasts
// d is in force over [s-lead, s+d): lead is the time the workload needs to
// make its replicas ready (pod start-up, node boot), so that the floor is
// ready when the window opens. Overlapping windows (and overlapping starts of
// one window) give the highest floor; a window crossing midnight belongs to
// the day it starts.
func (s *Schedule) Floor(now time.Time, lead time.Duration) ScheduleFloor {
	var f ScheduleFloor
	if s == nil {
		return f
	}
	lead = max(lead, 0)
	note := func(t time.Time) {
		if t.After(now) && (f.NextChange.IsZero() || t.Before(f.NextChange)) {
			f.NextChange = t
		}
	}
	for _, w := range s.windows {
		active := false
		// Starts in (now-d, now+lead] put the window in force now.
		w.starts(now.Add(-w.Duration), now.Add(lead), func(start time.Time) bool {
			if !start.After(now.Add(-w.Duration)) || start.After(now.Add(lead)) {
				return true
			}
			active = true
			note(start.Add(w.Duration))
			return true
		})
		if active {
			f.Min = max(f.Min, w.MinReplicas)
			f.Active = append(f.Active, w.Name)
		}
		// The next start beyond now+lead brings the window (back) into force.
		w.starts(now.Add(lead), now.Add(lead+scheduleLookahead), func(start time.Time) bool {
			if start.After(now.Add(lead)) {
				note(start.Add(-lead))
				return false
			}
			return true
		})
	}
	return f
}

// starts calls fn with every start in [from, to] (and possibly a few just
// outside, which fn must filter) in ascending order until fn returns false.
func (w *compiledWindow) starts(from, to time.Time, fn func(time.Time) bool) {
	lf, lt := from.In(w.loc), to.In(w.loc)
	// One day early: a start late on the previous day can fall in range
	// after a DST shift.
	day := time.Date(lf.Year(), lf.Month(), lf.Day()-1, 12, 0, 0, 0, w.loc)
	last := time.Date(lt.Year(), lt.Month(), lt.Day(), 12, 0, 0, 0, w.loc)
	for ; !day.After(last); day = time.Date(day.Year(), day.Month(), day.Day()+1, 12, 0, 0, 0, w.loc) {
		if !w.dayMatches(day) {
			continue
		}
		for h := range 24 {
			if w.spec.Hour&(1<<uint(h)) == 0 {
				continue
			}
			for m := range 60 {
				if w.spec.Minute&(1<<uint(m)) == 0 {
					continue
				}
				if !fn(wallClock(day.Year(), day.Month(), day.Day(), h, m, w.loc)) {
					return
				}
			}
		}
	}
}

// dayMatches is cron's day rule: with day-of-month or day-of-week "*", both
// must match; with both restricted, either.
func (w *compiledWindow) dayMatches(day time.Time) bool {
	s := w.spec
	if s.Month&(1<<uint(day.Month())) == 0 {
		return false
	}
	dom := s.Dom&(1<<uint(day.Day())) != 0
	dow := s.Dow&(1<<uint(day.Weekday())) != 0
	// robfig/cron marks "*" (and "?") with the top bit.
	const star = 1 << 63
	if s.Dom&star != 0 || s.Dow&star != 0 {
		return dom && dow
	}
	return dom || dow
}

// wallClock is the instant when loc's clocks read y-mo-d h:m: for a time
// skipped by a DST jump, the end of the skip; for a time read twice, the
// first.
func wallClock(y int, mo time.Month, d, h, m int, loc *time.Location) time.Time {
	t := time.Date(y, mo, d, h, m, 0, 0, loc)
	if t.Hour() != h || t.Minute() != m {
		// Skipped: Go normalised into one of the zones around the jump.
		start, end := t.ZoneBounds()
		if t.Day() != d || t.Hour()*60+t.Minute() > h*60+m {
			return start
		}
		return end
	}
	for _, back := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
		if e := t.Add(-back); e.Day() == d && e.Hour() == h && e.Minute() == m {
			return e
		}
	}
	return t
}

// RaiseToFloor lifts a total replica count to the schedule's floor f.Min
// (capped at maxR). total is the algorithm's decision when decided, else the
// count that stands (current). It returns the count, whether the floor
// raised it, and the reason naming the windows in force.
func RaiseToFloor(total int32, decided bool, current, maxR int32, f ScheduleFloor) (int32, bool, string) {
	base := total
	if !decided {
		base = current
	}
	floor := min(f.Min, maxR)
	if floor <= base {
		return total, false, ""
	}
	return floor, true, fmt.Sprintf("schedule %s keeps at least %d replicas", strings.Join(f.Active, ", "), floor)
}
