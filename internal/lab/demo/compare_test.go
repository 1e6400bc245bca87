package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestBaselineFRSS: the committed baseline is a whole recorded run: the
// surge, the burst and its return are all in its samples.
func TestBaselineFRSS(t *testing.T) {
	b, err := BaselineFRSS()
	if err != nil {
		t.Fatal(err)
	}
	if b.Run == "" || b.Label == "" {
		t.Errorf("baseline without its date or label: %+v", b.Run)
	}
	s := Summarize(b.Samples, Clusters[0], RequestsPerPod)
	if !s.SurgeSeen || !s.BurstSeen || !s.FallSeen || !s.BackSeen || s.ErrorShare <= 0 {
		t.Errorf("baseline summary %+v: want the surge, the burst, the fall, the return and some refused requests", s)
	}
}

func TestParseBaseline(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", "{", "baseline: "},
		{"no samples", `{"label":"x","samples":[]}`, `baseline "x": no samples`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseBaseline([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseBaseline: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestWriteBeforeAfter: two made-up runs of 30 -> 300 req/s (20 replicas
// needed at 15 per replica), sampled every 10 s; the surge is the sample at
// 10 s, the fall the one at 50 s. A sample's rates hold until the next one,
// so the last sample counts for nothing: offered 30 + 4 x 300 = 1230.
// Before: refused 300 + 150 + 150 = 600 -> 48.78 %; ready 2, 2, 10, 16, 20:
// a burst replica at 20 s (10 s after the surge), all 20 at 40 s (30 s
// after). After: refused 300 -> 24.39 %; ready 2, 8, 20: all 20 and the
// first burst replica at 20 s (10 s after). Both are back in private at the
// fall (0 s).
func TestWriteBeforeAfter(t *testing.T) {
	mk := func(ready [][2]int32, refused []float64) []Sample {
		load := []float64{30, 300, 300, 300, 300, 30}
		var out []Sample
		for i := range load {
			out = append(out, Sample{At: time.Duration(i) * 10 * time.Second, OfferedRPS: load[i], ErrorRPS: refused[i],
				Ready: map[string]int32{"private": ready[i][0], "eks": ready[i][1]}})
		}
		return out
	}
	before := Baseline{Label: "frss", Run: "2026-11-24T23:01:10Z", Source: "a test",
		Samples: mk([][2]int32{{2, 0}, {2, 0}, {8, 2}, {8, 8}, {8, 12}, {8, 0}}, []float64{0, 300, 150, 150, 0, 0})}
	after := Summarize(mk([][2]int32{{2, 0}, {8, 0}, {8, 12}, {8, 12}, {8, 12}, {8, 0}}, []float64{0, 300, 0, 0, 0, 0}), Clusters[0], RequestsPerPod)
	var b bytes.Buffer
	if err := WriteBeforeAfter(&b, before, "adaptive", after); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"## Before and after",
		"- before: frss; run 2026-11-24T23:01:10Z (a test)",
		"- after: adaptive; this run",
		"| refused requests | 48.78 % | 24.39 % |",
		"| all replicas needed Ready, after the surge | 30s | 10s |",
		"| first replica Ready outside private, after the surge | 10s | 10s |",
		"| most ready replicas | 20 (needed 20) | 20 (needed 20) |",
		"| burst back in private, after the load fell | 0s | 0s |",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("section lacks %q:\n%s", w, b.String())
		}
	}
}
