package loadbench

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCPUSeconds(t *testing.T) {
	// Fields 14 and 15 (utime, stime) are 250 and 50 ticks.
	tail := " 1 100 100 0 -1 4194560 1200 0 3 0 250 50 0 0 20 0 12 0 4242 1000000 2000"
	tests := []struct {
		name, stat string
		want       float64
		wantErr    string
	}{
		{"plain name", "4242 (hca-runtime) S" + tail, 3, ""},
		{"name with spaces and parentheses", "4242 (a (b) c) S" + tail, 3, ""},
		{"no command", "4242 S" + tail, 0, "no ')'"},
		{"truncated", "4242 (x) S 1 2 3", 0, "fields after the command name"},
		{"not a number", "4242 (x) S 1 100 100 0 -1 4194560 1200 0 3 0 a 50", 0, "utime/stime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cpuSeconds(tt.stat)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("cpuSeconds = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestMemoryMiB(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		want    procMemory
		wantErr bool
	}{
		{"all four", "Name:\thca-runtime\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nRssAnon:\t   81920 kB\nRssFile:\t   20480 kB\nThreads:\t12\n",
			procMemory{RSS: 100, HWM: 200, Anon: 80, File: 20}, false},
		{"an old kernel without the split", "VmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n", procMemory{RSS: 100, HWM: 200}, false},
		{"zombie has neither", "Name:\thca-runtime\nState:\tZ (zombie)\n", procMemory{}, true},
		{"RSS without HWM", "VmRSS:\t1 kB\nRssAnon:\t1 kB\n", procMemory{}, true},
		{"bad unit", "VmHWM:\t1 MB\nVmRSS:\t1 kB\n", procMemory{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memoryMiB(tt.status)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("memoryMiB = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

const scrapeText = `# TYPE hca_schedule_lateness_seconds histogram
hca_schedule_lateness_seconds_bucket{loop="slo",le="0.01"} 90
hca_schedule_lateness_seconds_bucket{loop="slo",le="0.1"} 99
hca_schedule_lateness_seconds_bucket{loop="slo",le="1"} 100
hca_schedule_lateness_seconds_bucket{loop="slo",le="+Inf"} 100
hca_schedule_lateness_seconds_sum{loop="slo"} 2
hca_schedule_lateness_seconds_count{loop="slo"} 100
hca_schedule_lateness_seconds_bucket{loop="burst",le="0.01"} 0
hca_schedule_lateness_seconds_bucket{loop="burst",le="0.1"} 0
hca_schedule_lateness_seconds_bucket{loop="burst",le="1"} 3
hca_schedule_lateness_seconds_bucket{loop="burst",le="+Inf"} 4
hca_schedule_lateness_seconds_sum{loop="burst"} 100
hca_schedule_lateness_seconds_count{loop="burst"} 4
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:1",method="PATCH"} 7
rest_client_requests_total{code="409",host="127.0.0.1:1",method="PATCH"} 1
rest_client_requests_total{code="200",host="127.0.0.1:1",method="GET"} 50
rest_client_requests_total{code="200",host="127.0.0.1:2",method="PATCH"} 5
`

func TestScrapeSums(t *testing.T) {
	s, err := parseScrape(strings.NewReader(scrapeText))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.sum("rest_client_requests_total", map[string]string{"host": "127.0.0.1:1", "method": "PATCH"}); got != 8 {
		t.Errorf("PATCHes to host 1 = %v, want 8 (both codes)", got)
	}
	if got := s.sum("rest_client_requests_total", map[string]string{"method": "!GET"}); got != 13 {
		t.Errorf("non-GETs = %v, want 13", got)
	}
	if got := s.sum("absent_total", nil); got != 0 {
		t.Errorf("absent family = %v, want 0", got)
	}
	by := s.sumBy("rest_client_requests_total", []string{"host", "method"}, nil)
	if by["127.0.0.1:1 PATCH"] != 8 || by["127.0.0.1:1 GET"] != 50 || by["127.0.0.1:2 PATCH"] != 5 || len(by) != 3 {
		t.Errorf("by host and method = %v", by)
	}
}

func TestHistogramBounds(t *testing.T) {
	s, err := parseScrape(strings.NewReader(scrapeText))
	if err != nil {
		t.Fatal(err)
	}
	slo := s.histogram("hca_schedule_lateness_seconds", map[string]string{"loop": "slo"})
	burst := s.histogram("hca_schedule_lateness_seconds", map[string]string{"loop": "burst"})
	all := s.histogram("hca_schedule_lateness_seconds", nil)
	// 80 of the slo observations and none of burst's happened before.
	before := hist{bounds: slo.bounds, counts: []float64{80, 80, 80, 80}, sum: 1}
	tests := []struct {
		name  string
		h     hist
		q     float64
		count float64
		want  float64
	}{
		{"p90 of slo: 90 of 100 within 10 ms", slo, 0.9, 100, 0.01},
		{"p99 of slo", slo, 0.99, 100, 0.1},
		{"max of slo", slo, 1, 100, 1},
		{"p50 of burst: 2 of 4 needs the 1 s bucket", burst, 0.5, 4, 1},
		{"max of burst: one beyond the last bound", burst, 1, 4, math.Inf(1)},
		{"both loops summed: 90 of 104 within 10 ms", all, 0.85, 104, 0.01},
		{"slo since before: 10 of 20 within 10 ms", slo.minus(before), 0.5, 20, 0.01},
		{"slo since before: p99 of 20", slo.minus(before), 0.99, 20, 1},
		{"nothing observed", slo.minus(slo), 0.99, 0, math.NaN()},
		{"absent family", s.histogram("absent_seconds", nil), 1, 0, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c := tt.h.count(); c != tt.count {
				t.Fatalf("count = %v, want %v", c, tt.count)
			}
			got := tt.h.upperBound(tt.q)
			if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Fatalf("upperBound(%v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

func TestWindowStart(t *testing.T) {
	base := time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	tests := []struct {
		now, want time.Time
	}{
		{base, base.Add(10 * time.Second)},
		{base.Add(10 * time.Second), base.Add(10 * time.Second)},
		{base.Add(10*time.Second + time.Millisecond), base.Add(30 * time.Second)},
		{base.Add(19 * time.Second), base.Add(30 * time.Second)},
	}
	for _, tt := range tests {
		if got := windowStart(tt.now, 20*time.Second); !got.Equal(tt.want) {
			t.Errorf("windowStart(%s) = %s, want %s", tt.now.Format("15:04:05.000"), got.Format("15:04:05.000"), tt.want.Format("15:04:05.000"))
		}
	}
}

// TestGoMemLimit: the run's GOMEMLIMIT is the one hca_runtime sets for the
// container limit it stands for (300 MiB less the 40 MiB reserve of the
// binary's pages), none without a limit.
func TestGoMemLimit(t *testing.T) {
	tests := []struct {
		limitMiB int
		want     int64
	}{
		{300, 260 << 20},
		{1024, 1073741824 - 107374182},
		{0, 0},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.limitMiB), func(t *testing.T) {
			if got := goMemLimit(tt.limitMiB); got != tt.want {
				t.Errorf("goMemLimit(%d) = %d, want %d", tt.limitMiB, got, tt.want)
			}
		})
	}
}
