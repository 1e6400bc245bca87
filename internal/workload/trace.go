package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// TraceHeader is the optional first line of a trace file.
const TraceHeader = "seconds,requests_per_second"

// TracePoint sets the offered load to RPS requests/s from Seconds after the
// trace started until the next point.
type TracePoint struct {
	Seconds float64 `json:"seconds"`
	RPS     float64 `json:"rps"`
}

// Trace is a parsed load trace: points with strictly increasing, non-negative
// times. It replays with step interpolation.
type Trace []TracePoint

// TraceError reports a malformed trace line (1-based).
type TraceError struct {
	Line int
	Msg  string
}

func (e *TraceError) Error() string {
	if e.Line == 0 {
		return "trace: " + e.Msg
	}
	return fmt.Sprintf("trace line %d: %s", e.Line, e.Msg)
}

// maxTraceLine bounds one line of a trace file.
const maxTraceLine = 4096

// ParseTrace reads a CSV trace of "seconds,requests_per_second" lines. The
// header line TraceHeader is optional (first non-blank line only); blank lines
// and lines starting with '#' are ignored. Times must be finite, >= 0 and
// strictly increasing; loads finite and >= 0. Errors are *TraceError naming
// the line.
func ParseTrace(r io.Reader) (Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), maxTraceLine)
	var tr Trace
	line, seenContent := 0, false
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		first := !seenContent
		seenContent = true
		fields := strings.Split(text, ",")
		if len(fields) != 2 {
			return nil, &TraceError{line, fmt.Sprintf("want 2 comma-separated fields (seconds,requests_per_second), got %d in %q", len(fields), Clip(text))}
		}
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if first && strings.EqualFold(fields[0], "seconds") && strings.EqualFold(fields[1], "requests_per_second") {
			continue
		}
		sec, err := parseNonNegative(fields[0])
		if err != nil {
			hint := ""
			if first {
				hint = fmt.Sprintf(" (a header, if any, must be exactly %q)", TraceHeader)
			}
			return nil, &TraceError{line, fmt.Sprintf("seconds %q %v%s", Clip(fields[0]), err, hint)}
		}
		rps, err := parseNonNegative(fields[1])
		if err != nil {
			return nil, &TraceError{line, fmt.Sprintf("requests_per_second %q %v", Clip(fields[1]), err)}
		}
		if n := len(tr); n > 0 && sec <= tr[n-1].Seconds {
			return nil, &TraceError{line, fmt.Sprintf("seconds %v is not after the previous line's %v: times must strictly increase", sec, tr[n-1].Seconds)}
		}
		tr = append(tr, TracePoint{Seconds: sec, RPS: rps})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &TraceError{line + 1, fmt.Sprintf("line is longer than %d bytes", maxTraceLine)}
		}
		return nil, fmt.Errorf("read trace: %w", err)
	}
	if len(tr) == 0 {
		return nil, &TraceError{0, "no data lines: want lines of seconds,requests_per_second"}
	}
	return tr, nil
}

func parseNonNegative(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return 0, errors.New("is not a number")
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, errors.New("is not finite")
	case v < 0:
		return 0, errors.New("is negative: must be >= 0")
	}
	return v, nil
}

// Clip shortens s to 40 bytes for error messages that quote user input.
func Clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// At returns the load elapsed seconds into the trace: the RPS of the last
// point at or before elapsed (the last point's load holds after the trace
// ends). ok is false before the first point.
func (t Trace) At(elapsed float64) (rps float64, ok bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].Seconds > elapsed })
	if i == 0 {
		return 0, false
	}
	return t[i-1].RPS, true
}

// Duration is the time of the last point in seconds.
func (t Trace) Duration() float64 {
	if len(t) == 0 {
		return 0
	}
	return t[len(t)-1].Seconds
}
