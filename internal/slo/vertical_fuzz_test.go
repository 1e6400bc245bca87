package slo

import (
	"math"
	"testing"
	"time"
)

// FuzzVertical: no panic; an accepted decision keeps each scaled resource
// within [Min, Max] (a current value outside the range, after its bounds
// changed, may stay or move into it whatever the direction; fuzzing found
// that case: a violated SLO with CPU above a lowered Max clamps CPU down),
// moves in the direction it reports (never up
// on a met SLO's side of the band, never down on a violated one), and
// changes nothing within the tolerance.
func FuzzVertical(f *testing.F) {
	const mi = int64(1) << 20
	// Seeds from TestVertical: violated, outperformed, within tolerance,
	// a quantum step, clamped at max.
	f.Add(int64(500), 512*mi, 130.0, int64(100), 128*mi, int64(2000), 2048*mi, 10.0, 10.0, int64(0), int64(0), 0.1, int64(0))
	f.Add(int64(500), 512*mi, 60.0, int64(100), 128*mi, int64(2000), 2048*mi, 10.0, 10.0, int64(0), int64(0), 0.1, int64(0))
	f.Add(int64(500), 512*mi, 95.0, int64(100), 128*mi, int64(2000), 2048*mi, 10.0, 10.0, int64(0), int64(0), 0.1, int64(30))
	f.Add(int64(500), 512*mi, 130.0, int64(100), 128*mi, int64(2000), 2048*mi, 10.0, 10.0, int64(250), 64*mi, 0.1, int64(0))
	f.Add(int64(1950), 2000*mi, 150.0, int64(100), 128*mi, int64(2000), 2048*mi, 10.0, 10.0, int64(0), int64(0), 0.1, int64(0))
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, cpu, mem int64, compliance float64, minCPU, minMem, maxCPU, maxMem int64, up, down float64, cpuStep, memStep int64, tol float64, agoSec int64) {
		cfg := VerticalConfig{Min: Resources{minCPU, minMem}, Max: Resources{maxCPU, maxMem}, ScaleUpPercent: up, ScaleDownPercent: down,
			CPUStepMilli: cpuStep, MemoryStepBytes: memStep, Tolerance: tol, ScaleUpWindow: time.Minute, ScaleDownWindow: 5 * time.Minute}
		cur := Resources{cpu, mem}
		last := now.Add(-time.Duration(agoSec%1e6) * time.Second)
		d, err := Vertical(now, cur, compliance, last, cfg)
		if err != nil {
			return
		}
		if math.IsNaN(compliance) {
			t.Fatalf("accepted a NaN compliance: %+v", d)
		}
		check := func(name string, cur, got, lo, hi int64) {
			if hi == 0 {
				if got != cur {
					t.Fatalf("%s: not scaled (max 0) but changed %d -> %d", name, cur, got)
				}
				return
			}
			if got != cur && (got < lo || got > hi) {
				t.Fatalf("%s: %d -> %d outside [%d, %d]", name, cur, got, lo, hi)
			}
			if cur < lo || cur > hi {
				return // outside the range (its bounds changed): the move goes into it, whatever the direction
			}
			switch d.Direction {
			case ScaleUp:
				if got < cur {
					t.Fatalf("%s: direction up but %d -> %d", name, cur, got)
				}
			case ScaleDown:
				if got > cur {
					t.Fatalf("%s: direction down but %d -> %d", name, cur, got)
				}
			case ScaleNone:
				if got != cur {
					t.Fatalf("%s: no direction but %d -> %d", name, cur, got)
				}
			}
		}
		check("cpu", cur.CPUMilli, d.Resources.CPUMilli, cfg.Min.CPUMilli, cfg.Max.CPUMilli)
		check("memory", cur.MemoryBytes, d.Resources.MemoryBytes, cfg.Min.MemoryBytes, cfg.Max.MemoryBytes)
		if d.WithinTolerance && d.Direction != ScaleNone {
			t.Fatalf("within tolerance but direction %v", d.Direction)
		}
		if compliance > 100*(1+tol) && d.Direction == ScaleDown || compliance < 100*(1-tol) && d.Direction == ScaleUp {
			t.Fatalf("compliance %v (tolerance %v) moved %v", compliance, tol, d.Direction)
		}
	})
}
