package forecast

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// ErrNoData is returned for a series with no usable (finite) value.
var ErrNoData = errors.New("forecast: no data")

// Model forecasts a regular series.
type Model interface {
	// Name identifies the model in reasons and reports.
	Name() string
	// Forecast returns the value h >= 1 steps after the last of values
	// (a regular series, oldest first, finite values). It never panics; an
	// empty values is ErrNoData.
	Forecast(values []float64, h int) (float64, error)
}

// Regular returns one value per step from from to to (both included, to >=
// from): the last sample at or before each step's end time, i.e. the value
// a scraper would hold at that time. Steps before the first sample take the
// first sample's value. Non-finite values and samples outside [from, to]
// are ignored. ts must be sorted ascending (ties: the later wins).
func Regular(ts []time.Time, vs []float64, from, to time.Time, step time.Duration) ([]float64, error) {
	switch {
	case len(ts) != len(vs):
		return nil, fmt.Errorf("forecast: %d timestamps for %d values: pass one value per timestamp", len(ts), len(vs))
	case step <= 0:
		return nil, fmt.Errorf("forecast: step %v: use a positive step", step)
	case to.Before(from):
		return nil, fmt.Errorf("forecast: range end %v is before its start %v", to, from)
	}
	n := int(to.Sub(from)/step) + 1
	out := make([]float64, n)
	have := false
	var last float64
	j := 0
	for i := range n {
		end := from.Add(time.Duration(i) * step)
		for ; j < len(ts) && !ts[j].After(end); j++ {
			if ts[j].Before(from) || !finite(vs[j]) {
				continue
			}
			if !have {
				for k := range i {
					out[k] = vs[j]
				}
			}
			last, have = vs[j], true
		}
		out[i] = last
	}
	if !have {
		return nil, ErrNoData
	}
	return out, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// clean returns the finite values of v (v itself when all are).
func clean(v []float64) []float64 {
	for i, x := range v {
		if !finite(x) {
			out := append([]float64(nil), v[:i]...)
			for _, y := range v[i+1:] {
				if finite(y) {
					out = append(out, y)
				}
			}
			return out
		}
	}
	return v
}

// cleanLast returns the finite values of v and the last of them, or
// ErrNoData.
func cleanLast(v []float64) ([]float64, float64, error) {
	c := clean(v)
	if len(c) == 0 {
		return nil, 0, ErrNoData
	}
	return c, c[len(c)-1], nil
}

// bounded keeps a forecast finite: an overflow becomes the last value.
func bounded(f, last float64) float64 {
	if !finite(f) {
		return last
	}
	return f
}

// Naive forecasts the last value.
type Naive struct{}

// Name returns "naive".
func (Naive) Name() string { return "naive" }

// Forecast returns the last finite value.
func (Naive) Forecast(values []float64, _ int) (float64, error) {
	return lastFinite(values)
}

// lastFinite returns the last finite value of v, reading only its tail.
func lastFinite(v []float64) (float64, error) {
	for i := len(v) - 1; i >= 0; i-- {
		if finite(v[i]) {
			return v[i], nil
		}
	}
	return 0, ErrNoData
}

// Line is a least-squares line over the last points of a series: the value
// at the last point is Level, it grows by Slope per step, and R2 is the
// coefficient of determination (1 for a constant series).
type Line struct {
	Level, Slope, R2 float64
	N                int
}

// Fit fits a line to the finite values among the last window values (all
// when window <= 0 or larger than the series).
func Fit(values []float64, window int) (Line, error) {
	v := values
	if window > 0 && window < len(v) {
		v = v[len(v)-window:]
	}
	v = clean(v)
	if len(v) == 0 {
		return Line{}, ErrNoData
	}
	n := float64(len(v))
	if len(v) == 1 {
		return Line{Level: v[0], R2: 1, N: 1}, nil
	}
	mx := (n - 1) / 2
	var my float64
	for _, y := range v {
		my += y
	}
	my /= n
	var sxy, sxx, syy float64
	for i, y := range v {
		dx, dy := float64(i)-mx, y-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	slope := sxy / sxx
	r2 := 1.0
	if syy > 0 {
		r2 = sxy * sxy / (sxx * syy)
	}
	l := Line{Level: my + slope*(n-1-mx), Slope: slope, R2: r2, N: len(v)}
	if !finite(l.Level) || !finite(l.Slope) || !finite(l.R2) {
		return Line{Level: v[len(v)-1], R2: 0, N: len(v)}, nil
	}
	return l, nil
}

// At is the line's value h steps after its last point.
func (l Line) At(h int) float64 { return l.Level + l.Slope*float64(h) }

// Trend is least squares over the last Window points (all when 0),
// extrapolated.
type Trend struct{ Window int }

// Name returns "trend".
func (Trend) Name() string { return "trend" }

// Forecast extrapolates the fitted line h steps.
func (t Trend) Forecast(values []float64, h int) (float64, error) {
	l, err := Fit(values, t.Window)
	if err != nil {
		return 0, err
	}
	last, _ := lastFinite(values)
	return bounded(l.At(h), last), nil
}

// Holt is Holt's linear method with a damped trend: level
// l_t = αy_t + (1−α)(l_{t−1} + φb_{t−1}), trend b_t = β(l_t − l_{t−1}) +
// (1−β)φb_{t−1}, forecast l_t + (φ + φ² + … + φ^h)b_t. Phi 1 is the undamped
// method. It starts with l = y_0 and b = y_1 − y_0, so a linear series is
// extrapolated exactly when Phi is 1.
type Holt struct{ Alpha, Beta, Phi float64 }

// Name returns "holt".
func (Holt) Name() string { return "holt" }

// Forecast returns the damped-trend forecast h steps ahead.
func (m Holt) Forecast(values []float64, h int) (float64, error) {
	v, last, err := cleanLast(values)
	if err != nil {
		return 0, err
	}
	if len(v) < 2 {
		return last, nil
	}
	a, b, phi := unit(m.Alpha), unit(m.Beta), unit(m.Phi)
	level, trend := v[0], v[1]-v[0]
	for _, y := range v[1:] {
		prev := level
		level = a*y + (1-a)*(level+phi*trend)
		trend = b*(level-prev) + (1-b)*phi*trend
	}
	damp, p := 0.0, 1.0
	for range max(h, 1) {
		p *= phi
		damp += p
	}
	return bounded(level+damp*trend, last), nil
}

// unit limits a smoothing parameter to [0, 1] (NaN: 1).
func unit(x float64) float64 {
	if math.IsNaN(x) || x > 1 {
		return 1
	}
	return math.Max(x, 0)
}

// SeasonalNaive forecasts the value Period steps before the target time,
// shifted by the change of level: the mean of the last Window points minus
// the mean of the same points one period earlier (times the number of
// periods back, at least one). Window 0 is the plain seasonal-naive
// forecast; Window 1 adds today's change against yesterday at this time.
// With fewer than Period+1 points it is Naive; the level change needs
// Period+Window points. Smooth > 0 replaces the point one period back by
// the mean of the points within Smooth steps of it (those that exist):
// noise of the last period is not repeated, at the price of a ramp spread
// over 2 x Smooth steps. Its cost is O(Window + Smooth), whatever the
// history.
type SeasonalNaive struct{ Period, Window, Smooth int }

// Name returns "seasonal".
func (SeasonalNaive) Name() string { return "seasonal" }

// Forecast returns the seasonal-naive forecast with a level change. A
// non-finite value where it reads gives the last finite value (dropping it
// would shift the seasons).
func (m SeasonalNaive) Forecast(values []float64, h int) (float64, error) {
	v := values
	last, err := lastFinite(v)
	if err != nil {
		return 0, err
	}
	p := m.Period
	h = max(h, 1)
	if p < 1 || len(v) < p+1 {
		return last, nil
	}
	k := (h-1)/p + 1 // periods back to a known point
	i := len(v) - 1 + h - k*p
	if i < 0 {
		return last, nil
	}
	f := v[i]
	if sm := m.Smooth; sm > 0 {
		f = mean(v[max(i-sm, 0):min(i+sm+1, len(v))])
	}
	if w := m.Window; w > 0 && len(v) >= p+w {
		n := len(v)
		f += float64(k) * (mean(v[n-w:]) - mean(v[n-w-p:n-p]))
	}
	return bounded(f, last), nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// HoltWinters is additive Holt-Winters with Period seasonal terms. It
// starts from the first period (level its mean, trend 0, seasonal terms the
// deviations from it), so a purely periodic series repeats exactly. With
// fewer than Period+1 points it is Naive.
type HoltWinters struct {
	Alpha, Beta, Gamma float64
	Period             int
}

// Name returns "holt-winters".
func (HoltWinters) Name() string { return "holt-winters" }

// Forecast returns the additive Holt-Winters forecast h steps ahead.
func (m HoltWinters) Forecast(values []float64, h int) (float64, error) {
	v, last, err := cleanLast(values)
	if err != nil {
		return 0, err
	}
	p := m.Period
	if p < 1 || len(v) < p+1 {
		return last, nil
	}
	a, b, g := unit(m.Alpha), unit(m.Beta), unit(m.Gamma)
	level := mean(v[:p])
	var trend float64
	season := make([]float64, p)
	for i := range p {
		season[i] = v[i] - level
	}
	for t := p; t < len(v); t++ {
		s := season[t%p]
		prev := level
		level = a*(v[t]-s) + (1-a)*(level+trend)
		trend = b*(level-prev) + (1-b)*trend
		season[t%p] = g*(v[t]-level) + (1-g)*s
	}
	h = max(h, 1)
	return bounded(level+float64(h)*trend+season[(len(v)-1+h)%p], last), nil
}

// Score is one model's backtest.
type Score struct {
	Model Model
	// MAE is the mean absolute error of its forecasts h steps ahead over
	// the backtest points; N how many there were.
	MAE float64
	N   int
}

// Backtest forecasts each of the last n points of values from the points
// before it (h steps earlier, no peeking) and returns the mean absolute
// error. Points with no history before them, or not finite, are skipped.
// Its cost is n forecasts of the model.
func Backtest(m Model, values []float64, h, n int) Score {
	v := values
	h = max(h, 1)
	s := Score{Model: m}
	var sum float64
	for t := max(len(v)-n, h); t < len(v); t++ {
		if !finite(v[t]) {
			continue
		}
		f, err := m.Forecast(v[:t-h+1], h)
		if err != nil {
			continue
		}
		sum += math.Abs(f - v[t])
		s.N++
	}
	if s.N > 0 {
		s.MAE = sum / float64(s.N)
	} else {
		s.MAE = math.Inf(1)
	}
	return s
}

// Select backtests every model over the last n points at horizon h and
// returns the scores, best (lowest MAE) first; ties keep the models' order,
// so list the simplest first.
func Select(values []float64, h, n int, models ...Model) []Score {
	out := make([]Score, len(models))
	for i, m := range models {
		out[i] = Backtest(m, values, h, n)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].MAE < out[j].MAE })
	return out
}

// MAPE is the mean absolute percentage error of forecast against actual, in
// percent, over the pairs whose actual value is not 0 (and both finite); NaN
// when there is none.
func MAPE(actual, forecast []float64) float64 {
	var sum float64
	var n int
	for i := range min(len(actual), len(forecast)) {
		a, f := actual[i], forecast[i]
		if a == 0 || !finite(a) || !finite(f) {
			continue
		}
		sum += math.Abs((a - f) / a)
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return 100 * sum / float64(n)
}
