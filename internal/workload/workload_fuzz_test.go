package workload

import (
	"math"
	"strings"
	"testing"
)

// FuzzHistogramQuantile: no panic; with observations the quantile lies
// within [0, highest finite bound] and grows with q (PromQL's interpolation).
func FuzzHistogramQuantile(f *testing.F) {
	f.Add(0.9, []byte{10, 20, 30, 40}, 100.0)
	f.Add(0.5, []byte{0, 0, 5}, 5.0)
	f.Add(0.99, []byte{1}, 10.0)
	f.Add(0.0, []byte{}, 0.0)
	f.Fuzz(func(t *testing.T, q float64, raw []byte, extra float64) {
		if math.IsNaN(q) || q < 0 || q > 1 || math.IsNaN(extra) || math.IsInf(extra, 0) || extra < 0 {
			return
		}
		// Bounds 0.05, 0.1, ... and cumulative counts growing by raw[i].
		var les, cum []float64
		var c float64
		for i, b := range raw {
			if i == 30 {
				break
			}
			les = append(les, 0.05*float64(i+1))
			c += float64(b)
			cum = append(cum, c)
		}
		total := c + math.Mod(extra, 1000)
		got := HistogramQuantile(q, les, cum, total)
		if total == 0 || len(les) == 0 {
			if !math.IsNaN(got) {
				t.Fatalf("HistogramQuantile(%v, %v, %v, %v) = %v, want NaN (no observations or no finite bound)", q, les, cum, total, got)
			}
			return
		}
		hi := 0.0
		if len(les) > 0 {
			hi = les[len(les)-1]
		}
		if math.IsNaN(got) || got < 0 || got > hi+1e-9 {
			t.Fatalf("HistogramQuantile(%v, %v, %v, %v) = %v, outside [0, %v]", q, les, cum, total, got, hi)
		}
		if q2 := math.Min(1, q+0.1); HistogramQuantile(q2, les, cum, total) < got-1e-9 {
			t.Fatalf("quantile %v = %v below quantile %v = %v", q2, HistogramQuantile(q2, les, cum, total), q, got)
		}
	})
}

// FuzzParseTrace: no panic on any CSV; a parsed trace has strictly
// increasing, non-negative, finite times (as Trace promises) and finite,
// non-negative loads, and At replays its points.
func FuzzParseTrace(f *testing.F) {
	f.Add(TraceHeader + "\n0,10\n60,20\n")
	f.Add(TraceHeader + "\n0,-1\n")
	f.Add("")
	f.Add(TraceHeader + "\n0,NaN\n30,Inf\n")
	f.Add(TraceHeader + "\n60,1\n30,2\n")
	f.Fuzz(func(t *testing.T, csv string) {
		tr, err := ParseTrace(strings.NewReader(csv))
		if err != nil {
			return
		}
		for i, p := range tr {
			if p.Seconds < 0 || math.IsNaN(p.Seconds) || math.IsInf(p.Seconds, 0) || (i > 0 && p.Seconds <= tr[i-1].Seconds) {
				t.Fatalf("point %d %+v: times must be non-negative, finite and strictly increasing", i, p)
			}
			if p.RPS < 0 || math.IsNaN(p.RPS) || math.IsInf(p.RPS, 0) {
				t.Fatalf("point %d %+v: load must be finite and non-negative", i, p)
			}
			if got, ok := tr.At(p.Seconds); !ok || got != p.RPS {
				t.Fatalf("At(%v) = %v, %v; want %v", p.Seconds, got, ok, p.RPS)
			}
		}
	})
}
