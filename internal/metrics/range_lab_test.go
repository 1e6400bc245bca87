package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLabRange runs query_range against the lab's Prometheus: one series
// at every step, a long range split into several queries without a gap or
// a duplicate at the seams, several series refused, no series ErrNoData.
func TestLabRange(t *testing.T) {
	f := newLabFixture(t)
	ctx := context.Background()
	// The shop's requests: 0.1 + 0.2 + 0.25 cores, a gauge present since
	// the first scrape (more than labWindow before f.at).
	sum := Query{Metric: f.prefix + "_cpu_request_cores", Filters: []LabelFilter{Eq("job", f.job), Eq("namespace", "shop")}, Aggregation: Sum}
	start := f.at.Add(-2 * time.Second)

	check := func(t *testing.T, s Series, n int, step time.Duration) {
		t.Helper()
		if len(s.Times) != n || len(s.Values) != n {
			t.Fatalf("%d times and %d values, want %d points", len(s.Times), len(s.Values), n)
		}
		for i, v := range s.Values {
			if !within(v, 0.55, 1e-9) {
				t.Errorf("value %d = %v, want 0.55", i, v)
			}
			if want := start.Add(time.Duration(i) * step); s.Times[i].Sub(want).Abs() > time.Millisecond {
				t.Errorf("time %d = %v, want %v", i, s.Times[i], want)
			}
		}
	}
	t.Run("one query", func(t *testing.T) {
		calls := f.calls.Load()
		s, err := f.prom.Range(ctx, sum, start, f.at, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		check(t, s, 21, 100*time.Millisecond)
		if n := f.calls.Load() - calls; n != 1 {
			t.Errorf("%d HTTP requests, want 1", n)
		}
	})
	t.Run("split into chunks of 7 points", func(t *testing.T) {
		defer func(n int) { maxRangePoints = n }(maxRangePoints)
		maxRangePoints = 7
		calls := f.calls.Load()
		s, err := f.prom.Range(ctx, sum, start, f.at, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		check(t, s, 21, 100*time.Millisecond)
		if n := f.calls.Load() - calls; n != 3 {
			t.Errorf("%d HTTP requests, want 3 (21 points by 7)", n)
		}
	})
	t.Run("several series", func(t *testing.T) {
		per := Query{Metric: f.prefix + "_cpu_request_cores", Filters: []LabelFilter{Eq("job", f.job), Eq("namespace", "shop")}}
		_, err := f.prom.Range(ctx, per, start, f.at, time.Second)
		if !errors.Is(err, ErrBadQuery) {
			t.Fatalf("error %v, want ErrBadQuery", err)
		}
		if want := "3 series: aggregate the query to one series"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	})
	t.Run("no series", func(t *testing.T) {
		none := Query{Metric: f.prefix + "_absent", Aggregation: Sum}
		if _, err := f.prom.Range(ctx, none, start, f.at, time.Second); !errors.Is(err, ErrNoData) {
			t.Fatalf("error %v, want ErrNoData", err)
		}
	})
	t.Run("bad range", func(t *testing.T) {
		if _, err := f.prom.Range(ctx, sum, f.at, start, time.Second); !errors.Is(err, ErrBadQuery) {
			t.Fatalf("end before start: error %v, want ErrBadQuery", err)
		}
	})
}
