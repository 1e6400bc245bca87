package forecast

import (
	"errors"
	"math"
	"testing"
	"time"
)

func seq(n int, f func(i int) float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// pattern is a period-4 series: 10, 20, 30, 20, repeated.
func pattern(i int) float64 { return []float64{10, 20, 30, 20}[i%4] }

func TestModels(t *testing.T) {
	constant := seq(12, func(int) float64 { return 7 })
	ramp := seq(12, func(i int) float64 { return 5 + 3*float64(i) }) // 5, 8, ..., 38
	seasonal := seq(12, pattern)                                     // ends at index 11: 20
	cases := []struct {
		name   string
		m      Model
		values []float64
		h      int
		want   float64
	}{
		// A constant series: every model forecasts the constant.
		{"naive constant", Naive{}, constant, 3, 7},
		{"trend constant", Trend{Window: 5}, constant, 3, 7},
		{"holt constant", Holt{Alpha: 0.5, Beta: 0.3, Phi: 0.9}, constant, 3, 7},
		{"seasonal constant", SeasonalNaive{Period: 4}, constant, 3, 7},
		{"holt-winters constant", HoltWinters{Alpha: 0.5, Beta: 0.1, Gamma: 0.2, Period: 4}, constant, 3, 7},
		// A ramp 5 + 3i, last point i = 11 (38): h = 4 steps later is i = 15, 50.
		{"trend ramp", Trend{Window: 6}, ramp, 4, 50},
		{"trend ramp whole series", Trend{}, ramp, 1, 41},
		// Holt starts at l = 5, b = 3: every one-step forecast is exact, so
		// the level is 38 and the trend 3 at the end; undamped: 38 + 4·3.
		{"holt ramp undamped", Holt{Alpha: 0.3, Beta: 0.2, Phi: 1}, ramp, 4, 50},
		// Damped by 0.5: 38 + (0.5 + 0.25)·b where b = 3·... is the damped
		// trend; with α = β = 1 the level is the value and the trend the
		// last difference, so b = 3 and the forecast is 38 + 0.75·3.
		{"holt ramp damped", Holt{Alpha: 1, Beta: 1, Phi: 0.5}, ramp, 2, 40.25},
		// Naive on a ramp: the last value.
		{"naive ramp", Naive{}, ramp, 4, 38},
		// A pure seasonal series repeats: index 11 + 1 = 12 is 10, 11 + 2
		// = 13 is 20, 11 + 3 = 14 is 30, 11 + 5 = 16 is 10.
		{"seasonal repeat h1", SeasonalNaive{Period: 4}, seasonal, 1, 10},
		{"seasonal repeat h3", SeasonalNaive{Period: 4}, seasonal, 3, 30},
		{"seasonal repeat h5", SeasonalNaive{Period: 4}, seasonal, 5, 10},
		{"holt-winters repeat h3", HoltWinters{Alpha: 0.4, Beta: 0.2, Gamma: 0.3, Period: 4}, seasonal, 3, 30},
		{"holt-winters repeat h6", HoltWinters{Alpha: 0.4, Beta: 0.2, Gamma: 0.3, Period: 4}, seasonal, 6, 20},
		// Seasonal with a trend: pattern + 1 per period (the level of each
		// period of 4 points rises by 1). Last period (8..11) is pattern +
		// 2, the one before + 1: change 1. Index 12 (h = 1) is pattern(12)
		// + 3 = 13: the value a period earlier (index 8: 12) + 1.
		// With Window 1 the change is index 11 (22) − index 7 (21): the same.
		{"seasonal with trend, window 1", SeasonalNaive{Period: 4, Window: 1}, seq(12, func(i int) float64 { return pattern(i) + float64(i/4) }), 1, 13},
		// Two periods ahead (h = 5, k = 2): index 11 + 5 − 8 = 8 (12) + 2·1.
		{"seasonal with trend, two periods", SeasonalNaive{Period: 4, Window: 4}, seq(12, func(i int) float64 { return pattern(i) + float64(i/4) }), 5, 14},
		{"seasonal with trend", SeasonalNaive{Period: 4, Window: 4}, seq(12, func(i int) float64 { return pattern(i) + float64(i/4) }), 1, 13},
		// Smooth 1: the point a period back (index 8, 10) is the mean of
		// indexes 7 to 9 (20, 10, 20): 50/3. On a constant series smoothing
		// changes nothing. h = 3 reads index 10 (30): the mean of 9 to 11
		// (20, 30, 20). At the end of the history the window is cut: h = 4
		// reads index 11 with Smooth 2, 9 to 13 cut to 9 to 11.
		{"seasonal smoothed h1", SeasonalNaive{Period: 4, Smooth: 1}, seasonal, 1, 50.0 / 3},
		{"seasonal smoothed constant", SeasonalNaive{Period: 4, Window: 2, Smooth: 2}, constant, 1, 7},
		{"seasonal smoothed h3", SeasonalNaive{Period: 4, Smooth: 1}, seasonal, 3, 70.0 / 3},
		{"seasonal smoothed cut at the end", SeasonalNaive{Period: 4, Smooth: 2}, seasonal, 4, (30 + 20 + 20) / 3.0},
		// Smoothed, with the level change: pattern + 1 per period, h = 1:
		// index 8 smoothed over 7..9 (21, 12, 22: 55/3) + the change 1.
		{"seasonal smoothed with trend", SeasonalNaive{Period: 4, Window: 1, Smooth: 1}, seq(12, func(i int) float64 { return pattern(i) + float64(i/4) }), 1, 55.0/3 + 1},
		// Too short for a period: the last value.
		{"seasonal short", SeasonalNaive{Period: 24}, ramp, 2, 38},
		{"holt-winters short", HoltWinters{Period: 24}, ramp, 2, 38},
		{"holt one point", Holt{Alpha: 0.5}, []float64{4}, 2, 4},
		// Non-finite points are dropped.
		{"naive skips NaN", Naive{}, []float64{1, 2, math.NaN()}, 1, 2},
		{"trend skips Inf", Trend{}, []float64{1, math.Inf(1), 2, 3}, 1, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.m.Forecast(c.values, c.h)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-9 {
				t.Errorf("%s.Forecast(h=%d) = %v, want %v", c.m.Name(), c.h, got, c.want)
			}
		})
	}
}

func TestNoData(t *testing.T) {
	for _, m := range []Model{Naive{}, Trend{}, Holt{}, SeasonalNaive{Period: 2}, HoltWinters{Period: 2}} {
		if _, err := m.Forecast([]float64{math.NaN()}, 1); !errors.Is(err, ErrNoData) {
			t.Errorf("%s on no finite value: err %v, want ErrNoData", m.Name(), err)
		}
	}
}

func TestFit(t *testing.T) {
	cases := []struct {
		name             string
		values           []float64
		window           int
		level, slope, r2 float64
	}{
		{"ramp", []float64{1, 3, 5, 7}, 0, 7, 2, 1},
		{"window", []float64{100, 1, 3, 5}, 3, 5, 2, 1},
		{"constant", []float64{4, 4, 4}, 0, 4, 0, 1},
		// A step 0, 0, 1, 1: x mean 1.5, y mean 0.5; sxy = 2, sxx = 5, syy = 1:
		// slope 0.4, level 0.5 + 0.4·1.5 = 1.1, R² = 4/5 = 0.8.
		{"step", []float64{0, 0, 1, 1}, 0, 1.1, 0.4, 0.8},
		{"one point", []float64{9}, 0, 9, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := Fit(c.values, c.window)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(l.Level-c.level) > 1e-9 || math.Abs(l.Slope-c.slope) > 1e-9 || math.Abs(l.R2-c.r2) > 1e-9 {
				t.Errorf("Fit = %+v, want level %v slope %v R² %v", l, c.level, c.slope, c.r2)
			}
		})
	}
}

func TestRegular(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cases := []struct {
		name    string
		ts      []time.Time
		vs      []float64
		from    time.Time
		to      time.Time
		step    time.Duration
		want    []float64
		wantErr bool
	}{
		// Samples at 5 s and 20 s; steps end at 0, 10, 20, 30: the first
		// step takes the first sample, the last carries 20 s's value.
		{"carry", []time.Time{at(5), at(20)}, []float64{1, 2}, at(0), at(30), 10 * time.Second, []float64{1, 1, 2, 2}, false},
		{"last in step wins", []time.Time{at(1), at(2), at(9)}, []float64{1, 2, 3}, at(0), at(10), 10 * time.Second, []float64{1, 3}, false},
		{"NaN ignored", []time.Time{at(0), at(10)}, []float64{4, math.NaN()}, at(0), at(10), 10 * time.Second, []float64{4, 4}, false},
		{"before range ignored", []time.Time{at(-5), at(5)}, []float64{9, 1}, at(0), at(10), 10 * time.Second, []float64{1, 1}, false},
		{"no data", nil, nil, at(0), at(10), time.Second, nil, true},
		{"bad step", []time.Time{at(0)}, []float64{1}, at(0), at(10), 0, nil, true},
		{"length mismatch", []time.Time{at(0)}, nil, at(0), at(10), time.Second, nil, true},
		{"reversed range", []time.Time{at(0)}, []float64{1}, at(10), at(0), time.Second, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Regular(c.ts, c.vs, c.from, c.to, c.step)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v", err, c.wantErr)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestSelectAndMAPE(t *testing.T) {
	ramp := seq(20, func(i int) float64 { return 10 + 2*float64(i) })
	// On a ramp the trend is exact and the naive forecast is 2h low.
	s := Select(ramp, 3, 5, Naive{}, Trend{Window: 4})
	if s[0].Model.Name() != "trend" || s[0].MAE > 1e-9 || math.Abs(s[1].MAE-6) > 1e-9 || s[1].N != 5 {
		t.Errorf("Select on a ramp = %+v, want trend (MAE 0) then naive (MAE 6)", s)
	}
	// On a pure seasonal series the seasonal model is exact.
	seas := seq(16, pattern)
	s = Select(seas, 1, 4, Naive{}, Trend{Window: 4}, SeasonalNaive{Period: 4})
	if s[0].Model.Name() != "seasonal" || s[0].MAE != 0 {
		t.Errorf("Select on a seasonal series = %+v, want seasonal first with MAE 0", s)
	}
	// MAPE: |100-110|/100 and |200-150|/200: (10 % + 25 %) / 2; a 0 actual
	// is skipped.
	if got := MAPE([]float64{100, 200, 0}, []float64{110, 150, 5}); math.Abs(got-17.5) > 1e-9 {
		t.Errorf("MAPE = %v, want 17.5", got)
	}
	if got := MAPE([]float64{0}, []float64{1}); !math.IsNaN(got) {
		t.Errorf("MAPE with no non-zero actual = %v, want NaN", got)
	}
}

func FuzzForecast(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(3), uint8(4))
	f.Add([]byte{0, 0, 0, 255, 255, 255}, uint8(0), uint8(0))
	f.Add([]byte{}, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, h, period uint8) {
		v := make([]float64, 0, len(raw)/2)
		for i := 0; i+1 < len(raw); i += 2 {
			x := float64(int(raw[i])<<8 | int(raw[i+1]))
			switch raw[i] {
			case 0xff:
				x = math.NaN()
			case 0xfe:
				x = math.Inf(1)
			case 0xfd:
				x = math.MaxFloat64
			case 0xfc:
				x = -math.MaxFloat64
			}
			v = append(v, x)
		}
		p := int(period % 32)
		models := []Model{Naive{}, Trend{Window: p}, Holt{Alpha: 0.5, Beta: 0.3, Phi: 0.9}, SeasonalNaive{Period: p, Window: int(h % 8)}, SeasonalNaive{Period: p, Window: int(h % 8), Smooth: int(period/32) % 8}, HoltWinters{Alpha: 0.3, Beta: 0.1, Gamma: 0.2, Period: p}}
		for _, m := range models {
			got, err := m.Forecast(v, int(h))
			if err != nil {
				if !errors.Is(err, ErrNoData) {
					t.Fatalf("%s: unexpected error %v", m.Name(), err)
				}
				continue
			}
			if !finite(got) {
				t.Fatalf("%s.Forecast(%v, %d) = %v: not finite", m.Name(), v, h, got)
			}
		}
		_ = Select(v, int(h), 8, models...)
	})
}

func BenchmarkForecast(b *testing.B) {
	day := seq(1440, func(i int) float64 { return 300 + 200*math.Sin(float64(i)/1440*2*math.Pi) })
	for _, m := range []Model{Naive{}, Trend{Window: 8}, Holt{Alpha: 0.5, Beta: 0.3, Phi: 0.9}, SeasonalNaive{Period: 96}, HoltWinters{Alpha: 0.3, Beta: 0.1, Gamma: 0.2, Period: 96}} {
		b.Run(m.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Forecast(day, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("select", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Select(day[:200], 2, 8, Naive{}, Trend{Window: 8}, SeasonalNaive{Period: 96})
		}
	})
}
