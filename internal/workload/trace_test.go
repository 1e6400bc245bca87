package workload

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseTraceGood(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Trace
	}{
		{"with header", "seconds,requests_per_second\n0,10\n30,50\n60,0\n",
			Trace{{0, 10}, {30, 50}, {60, 0}}},
		{"without header", "0,10\n5.5,20", Trace{{0, 10}, {5.5, 20}}},
		{"CRLF, spaces, blank lines and comments", "# ramp\r\n Seconds , Requests_Per_Second \r\n\r\n0 , 1\r\n# peak\r\n10,1e2\r\n",
			Trace{{0, 1}, {10, 100}}},
		{"first point after zero", "15,40\n", Trace{{15, 40}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTrace(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("ParseTrace: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseTraceBad(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantLine int
		wantMsg  string
	}{
		{"three fields", "0,1\n1,2,3\n", 2, "want 2 comma-separated fields"},
		{"one field", "seconds,requests_per_second\n0,1\n\n7\n", 4, "got 1"},
		{"seconds not a number", "0,1\nten,2\n", 2, `seconds "ten" is not a number`},
		{"rps not a number", "0,1\n1,lots\n", 2, `requests_per_second "lots" is not a number`},
		{"negative rps", "0,-5\n", 1, "is negative"},
		{"negative seconds", "-1,5\n", 1, "is negative"},
		{"NaN", "0,NaN\n", 1, "is not finite"},
		{"Inf seconds", "Inf,1\n", 1, "is not finite"},
		{"not increasing", "0,1\n10,2\n10,3\n", 3, "must strictly increase"},
		{"decreasing", "0,1\n10,2\n5,3\n", 3, "not after the previous line's 10"},
		{"misspelt header", "secs,rps\n0,1\n", 1, `a header, if any, must be exactly "seconds,requests_per_second"`},
		{"header not first", "0,1\nseconds,requests_per_second\n", 2, "is not a number"},
		{"empty", "", 0, "no data lines"},
		{"only header", "seconds,requests_per_second\n", 0, "no data lines"},
		{"line too long", "0,1\n" + strings.Repeat("9", maxTraceLine+10) + ",1\n", 2, "longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTrace(strings.NewReader(tc.in))
			var te *TraceError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TraceError", err)
			}
			if te.Line != tc.wantLine {
				t.Errorf("line = %d, want %d (err %v)", te.Line, tc.wantLine, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestTraceAt(t *testing.T) {
	tr := Trace{{5, 10}, {10, 20}, {20, 0}}
	for _, tc := range []struct {
		elapsed float64
		want    float64
		ok      bool
	}{
		{0, 0, false}, {4.999, 0, false}, {5, 10, true}, {9.9, 10, true}, {10, 20, true},
		{19, 20, true}, {20, 0, true}, {1000, 0, true},
	} {
		got, ok := tr.At(tc.elapsed)
		if got != tc.want || ok != tc.ok {
			t.Errorf("At(%v) = %v, %v; want %v, %v", tc.elapsed, got, ok, tc.want, tc.ok)
		}
	}
	if d := tr.Duration(); d != 20 {
		t.Errorf("Duration() = %v, want 20", d)
	}
}
