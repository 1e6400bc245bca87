package scaling

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/forecast"
)

// AdaptiveConfig configures [NewAdaptive]. Start from
// [DefaultAdaptiveConfig]: the zero value is invalid.
type AdaptiveConfig struct {
	// Tolerance is the HPA's: the count stays at Current while the load per
	// current pod is within Tolerance of Target, as a ratio (in [0, 1)).
	// The forecast and the headroom apply beyond it.
	Tolerance float64
	// ScaleDownWindow is the HPA's scale-down stabilisation window: the
	// count never drops below the highest recommendation made within it
	// (0 to 1 h; 0 scales down at once), unless a step down releases it
	// or a trusted seasonal forecast expects less over the window ahead.
	ScaleDownWindow time.Duration
	// ReleaseWindow and ReleaseRatio tell a step down from noise: once
	// every recommendation of the last ReleaseWindow is at most
	// ReleaseRatio times the highest of the ScaleDownWindow, the load has
	// fallen by a step, and the count drops to the highest of the
	// ReleaseWindow only (ReleaseWindow 0 to ScaleDownWindow, 0 turning
	// the release off; ReleaseRatio in (0, 1)).
	ReleaseWindow time.Duration
	ReleaseRatio  float64
	// Horizon is the time needed to make capacity ready: the metric's age
	// and pod start-up, plus node boot when bursting unless NodeHorizon
	// carries it. The algorithm scales for the load forecast at Now +
	// Horizon when it exceeds the current load (0 to 1 h; 0 turns
	// forecasting off).
	Horizon time.Duration
	// NodeHorizon is the horizon of the replicas that must wait for a node
	// to boot: Horizon plus the node boot and the capacity controller's
	// round ([ReadyHorizon] with the boot; at most 1 h). 0, not above
	// Horizon, or Horizon 0 (no forecast) turns it off: every replica has
	// Horizon. Otherwise each decision forecasts at both, and the
	// NodeHorizon forecast raises the count only when the count it needs
	// does not fit where replicas start without a new node (Current +
	// Input.Room; Room unknown: no room, every added replica may wait for a
	// node). A load that fits in the private cluster is scaled for Horizon
	// ahead, not a node boot ahead.
	NodeHorizon time.Duration
	// Step is the spacing of the load history the forecasts read (the
	// metric's scrape interval; 1 s to 10 min). One observation per step is
	// kept: the last one made in it.
	Step time.Duration
	// TrendWindow is the history the ramp model fits a line to (at least 3
	// steps, at most 1 h).
	TrendWindow time.Duration
	// MinR2 is the coefficient of determination below which the fitted
	// line is not trusted and the trend model forecasts the last value (in
	// [0, 1]): a step fits a line badly, a ramp well.
	MinR2 float64
	// SeasonalPeriod is the period of the seasonal model (0 turns it off;
	// otherwise at least 2 steps, at most 8 days). It forecasts from the
	// load one period earlier, once the algorithm has seen a period. A
	// period of several whole days (168h: a week) also runs the daily
	// model (24h) beside it, which needs only a day of history.
	SeasonalPeriod time.Duration
	// Backtest is the recent history over which the models compete: the
	// one with the lowest error forecasting it (at the horizon, from the
	// points before each) is used (at least one step, at most 1 h).
	Backtest time.Duration
	// StepRatio tells a step from a small rise. A load beyond the tolerance
	// of the current count but below StepRatio times the load that count is
	// sized for (Current x target) is scaled for only once the previous
	// step's observation was beyond the tolerance too: a small rise must
	// persist for one Step (about the HPA's 15 s period), while a step (at
	// least StepRatio) is followed at once. A forecast is held to the same
	// rule: a forecast small rise raises the count once the forecast made
	// at the previous step was beyond the tolerance too, a forecast step
	// at once. 0 turns the confirmation off (every rise and every forecast
	// at once); otherwise above 1, at most 100.
	StepRatio float64
	// HeadroomReplicas and HeadroomPercent add spare replicas to the count
	// the load needs: the larger of HeadroomReplicas and ceil(needed x
	// HeadroomPercent / 100) (0 to 1000 percent).
	HeadroomReplicas int32
	HeadroomPercent  float64
}

// DefaultAdaptiveConfig returns the defaults: the HPA's tolerance of 0.1
// and scale-down window of 5 min, released after 1 min below half of it,
// horizon 30 s (a 15 s scrape's age plus a 20 s start-up, rounded down to
// whole steps), step 15 s, trend window 1 min with R² at least 0.85, a
// daily seasonal period, backtest over 2 min, small rises (below twice the
// count's load: Knative's panic threshold of 200 %) confirmed over one
// step, no headroom.
func DefaultAdaptiveConfig() AdaptiveConfig {
	return AdaptiveConfig{
		Tolerance:       0.1,
		ScaleDownWindow: 5 * time.Minute,
		ReleaseWindow:   time.Minute,
		ReleaseRatio:    0.5,
		Horizon:         30 * time.Second,
		Step:            15 * time.Second,
		TrendWindow:     time.Minute,
		MinR2:           0.85,
		SeasonalPeriod:  24 * time.Hour,
		Backtest:        2 * time.Minute,
		StepRatio:       2,
	}
}

// ReadyHorizon is the forecast horizon that makes capacity ready in time,
// the default of AdaptiveConfig.Horizon where the delays are known: the
// metric's age (a scrape interval, plus any staleness of the pipeline) and
// the pod start-up, plus, when the added replicas must wait for nodes that
// are not there (a burst into node groups that grow on demand), the node
// boot and the capacity controller's round. Negative delays count as 0; the
// sum is capped at the 1 h Horizon allows.
func ReadyHorizon(metricAge, podStartup, nodeBoot, capacityRound time.Duration) time.Duration {
	h := max(metricAge, 0) + max(podStartup, 0)
	if nodeBoot > 0 {
		h += nodeBoot + max(capacityRound, 0)
	}
	return min(h, time.Hour)
}

// Validate reports the first invalid field of c.
func (c AdaptiveConfig) Validate() error {
	switch {
	case badFloat(c.Tolerance) || c.Tolerance < 0 || c.Tolerance >= 1:
		return fmt.Errorf("adaptive algorithm: Tolerance is %v: set it in [0, 1) (0.1 is the default)", c.Tolerance)
	case c.ScaleDownWindow < 0 || c.ScaleDownWindow > time.Hour:
		return fmt.Errorf("adaptive algorithm: ScaleDownWindow is %v: set it between 0s and 1h (5m is the default)", c.ScaleDownWindow)
	case c.ReleaseWindow < 0 || c.ReleaseWindow > c.ScaleDownWindow:
		return fmt.Errorf("adaptive algorithm: ReleaseWindow is %v: set it between 0s (off) and ScaleDownWindow (%v)", c.ReleaseWindow, c.ScaleDownWindow)
	case badFloat(c.ReleaseRatio) || c.ReleaseRatio <= 0 || c.ReleaseRatio >= 1:
		return fmt.Errorf("adaptive algorithm: ReleaseRatio is %v: set it above 0 and below 1 (0.5 is the default)", c.ReleaseRatio)
	case c.Horizon < 0 || c.Horizon > time.Hour:
		return fmt.Errorf("adaptive algorithm: Horizon is %v: set it between 0s (no forecast) and 1h", c.Horizon)
	case c.NodeHorizon < 0 || c.NodeHorizon > time.Hour:
		return fmt.Errorf("adaptive algorithm: NodeHorizon is %v: set it between 0s (none) and 1h", c.NodeHorizon)
	case c.Step < time.Second || c.Step > 10*time.Minute:
		return fmt.Errorf("adaptive algorithm: Step is %v: set it between 1s and 10m (the scrape interval, 15s by default)", c.Step)
	case c.TrendWindow < 3*c.Step || c.TrendWindow > time.Hour:
		return fmt.Errorf("adaptive algorithm: TrendWindow is %v: set it between 3 steps (%v) and 1h", c.TrendWindow, 3*c.Step)
	case badFloat(c.MinR2) || c.MinR2 < 0 || c.MinR2 > 1:
		return fmt.Errorf("adaptive algorithm: MinR2 is %v: set it between 0 and 1", c.MinR2)
	case c.SeasonalPeriod != 0 && (c.SeasonalPeriod < 2*c.Step || c.SeasonalPeriod > 8*24*time.Hour):
		return fmt.Errorf("adaptive algorithm: SeasonalPeriod is %v: set 0 (off) or between 2 steps (%v) and 8 days", c.SeasonalPeriod, 2*c.Step)
	case c.Backtest < c.Step || c.Backtest > time.Hour:
		return fmt.Errorf("adaptive algorithm: Backtest is %v: set it between one step (%v) and 1h", c.Backtest, c.Step)
	case badFloat(c.StepRatio) || c.StepRatio != 0 && (c.StepRatio <= 1 || c.StepRatio > 100):
		return fmt.Errorf("adaptive algorithm: StepRatio is %v: set 0 (every rise at once) or above 1 and at most 100 (2 is the default)", c.StepRatio)
	case c.HeadroomReplicas < 0:
		return fmt.Errorf("adaptive algorithm: HeadroomReplicas is %d: set 0 or more", c.HeadroomReplicas)
	case badFloat(c.HeadroomPercent) || c.HeadroomPercent < 0 || c.HeadroomPercent > 1000:
		return fmt.Errorf("adaptive algorithm: HeadroomPercent is %v: set it between 0 and 1000", c.HeadroomPercent)
	}
	return nil
}

// Forecast is what [Adaptive] forecast at its last decision.
type Forecast struct {
	// At is the time forecast (decision time + Horizon); zero when no
	// forecast was made (no observation, or Horizon 0).
	At time.Time
	// Load is the forecast total load at At; Observed the total the
	// decision observed (the naive forecast).
	Load, Observed float64
	// Model is the model used ("naive", "trend", "seasonal" for
	// SeasonalPeriod or "daily" for the daily model of a longer period).
	Model string
}

// Adaptive is HCA's default algorithm: the panic mode's speed on steps,
// the HPA's scale-down stabilisation against flapping, a forecast on top,
// and optional headroom.
//
// Each Decide observes the target's total load L as [Panic] does (External,
// or the Ready pods' average sample times the Ready pods) and records it in
// a history of one value per Step. Then, with target = Input.Target:
//
//   - needed = ceil(L / target), at once and without a rate limit (a step
//     is followed in one decision, like the KPA in panic mode); Current
//     while L / (Current x target) is within Tolerance of 1 (the HPA's
//     tolerance, which keeps noise out; with headroom, the last needed
//     count stands for Current, which includes the headroom). A rise below
//     StepRatio times the load Current is sized for is not a step: needed
//     stays Current unless the previous step's observation was beyond the
//     tolerance too (the rise persisted for a Step). Small rises cost
//     little while they wait — the pods run below twice their target —
//     and scaling for them one scrape later saves the pods a rise that
//     does not last would have started (the HPA acts once per 15 s
//     period; the KPA only panics at twice its capacity);
//   - with a Horizon, the load F at Now + Horizon is forecast by a trend:
//     a least-squares line over TrendWindow ([forecast.Fit]), used only
//     when its R² reaches MinR2 and it rises, otherwise the last value (the
//     naive forecast). Once a SeasonalPeriod of history exists,
//     [forecast.SeasonalNaive] (level change over one step) competes with
//     it (and a daily one too when the period is several days, after a
//     day): all are backtested over the last Backtest of history at the
//     horizon ([forecast.Select]) and the lowest error forecasts, unless a
//     seasonal model whose backtest error is within Tolerance of the load
//     forecasts more (it then forecasts: see predict). needed
//     becomes the count for F (with the same tolerance) when F is above L
//     and that count is larger: a forecast only raises the count, a
//     falling one is left to the stabilisation. A forecast below StepRatio
//     times the load the count is sized for is a small rise, held like an
//     observed one until the forecast made at the previous step (from the
//     history up to it) was beyond the tolerance too;
//   - with a NodeHorizon, the replicas that must wait for a node are
//     forecast that far: the load at Now + NodeHorizon raises needed (by
//     the same rules) only when the count it needs is beyond Current plus
//     Input.Room, the replicas that start without a new node; those that
//     fit are scaled for Horizon ahead only;
//   - headroom adds max(HeadroomReplicas, ceil(needed x HeadroomPercent /
//     100));
//   - the result is stabilised downwards as the HPA does: never below the
//     highest recommendation of the last ScaleDownWindow; up at once. A
//     step down releases it: when the highest recommendation of the last
//     ReleaseWindow is at most ReleaseRatio times the ScaleDownWindow's,
//     the floor is the ReleaseWindow's highest (noise stays within the
//     ratio, a fallen flash crowd does not). The window guards against
//     the load coming back within it; while a seasonal model is trusted
//     (see predict; for every metric), the hold above the need is bounded
//     by what that model forecasts: the count for its highest forecast
//     over the next ScaleDownWindow plus the load's highest excursion
//     above the model over its level window behind (the noise it does not
//     repeat), with the headroom ([forecastHold]). A load the forecast
//     expects back keeps its pods; one it expects to keep falling (an
//     evening) releases them with the need, not a window later;
//   - then clamped to [Min, Max].
//
// With no observation (no usable sample) Decide holds Current (clamped)
// and records nothing. History older than what the models need is dropped;
// a clock that goes backwards restarts the history.
type Adaptive struct {
	cfg AdaptiveConfig

	// series are the load histories, one per metric.
	series []adaptiveSeries
	recs   []stamped
	fc     Forecast
	// lastNeed is the last decision's count before headroom.
	lastNeed int32
	// keep is the history length the models need.
	keep       int
	trendN, hN int
	// nodeHN is NodeHorizon in steps (0: off).
	nodeHN int
	// aheadN is the scale-down window in steps, the span of the seasonal
	// forecast that bounds the stabilisation (0: no forecast, no bound).
	aheadN      int
	seasonN     int
	backtestN   int
	models      []forecast.Model
	trendModel  guardedTrend
	seasonModel forecast.SeasonalNaive
	// dailyModel is the daily season of a period of several days (Period
	// 0: none).
	dailyModel dailySeason
}

// dailySeason is forecast.SeasonalNaive over a day, named apart from the
// configured period's model.
type dailySeason struct{ forecast.SeasonalNaive }

func (dailySeason) Name() string { return "daily" }

// adaptiveSeries is one metric's load history.
type adaptiveSeries struct {
	// hist holds one value per step; hist[len-1] is the step of lastAt.
	hist   []float64
	lastAt time.Time
	// excess caches the load's excursions above a seasonal model at the
	// closed steps (all but the last; see ahead).
	excess excessCache
}

// excessCache holds the excursions of closed steps (which never change
// until the history is replaced) by step time, oldest first, for one
// model; spare is the buffer the next update fills.
type excessCache struct {
	model     string
	at, spare []time.Time
	v, spareV []float64
}

// reset empties c.
func (c *excessCache) reset(model string) {
	c.model, c.at, c.v = model, c.at[:0], c.v[:0]
}

// guardedTrend is forecast.Trend that forecasts the last value unless the
// line fits (R² >= minR2) and rises, and extrapolates it at most window
// steps.
type guardedTrend struct {
	window int
	minR2  float64
}

func (guardedTrend) Name() string { return "trend" }

func (g guardedTrend) Forecast(values []float64, h int) (float64, error) {
	l, err := forecast.Fit(values, g.window)
	if err != nil {
		return 0, err
	}
	last := values[len(values)-1]
	if l.N < 3 || l.R2 < g.minR2 || l.Slope <= 0 {
		return last, nil
	}
	// A line is extrapolated no further than the span it was fitted over:
	// beyond it a ramp's end is as likely as its continuation.
	f := l.At(min(h, g.window))
	if badFloat(f) {
		return last, nil
	}
	return f, nil
}

var _ forecast.Model = guardedTrend{}

// NewAdaptive returns the adaptive algorithm for one target.
func NewAdaptive(cfg AdaptiveConfig) (*Adaptive, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	steps := func(d time.Duration) int { return int((d + cfg.Step - 1) / cfg.Step) }
	a := &Adaptive{cfg: cfg, trendN: steps(cfg.TrendWindow), hN: steps(cfg.Horizon), seasonN: steps(cfg.SeasonalPeriod), backtestN: steps(cfg.Backtest)}
	if cfg.Horizon > 0 && cfg.NodeHorizon > cfg.Horizon {
		a.nodeHN = steps(cfg.NodeHorizon)
	}
	if cfg.Horizon > 0 && cfg.SeasonalPeriod > 0 {
		a.aheadN = steps(cfg.ScaleDownWindow)
	}
	a.trendModel = guardedTrend{window: a.trendN, minR2: cfg.MinR2}
	a.seasonModel = seasonal(a.seasonN)
	const day = 24 * time.Hour
	if cfg.SeasonalPeriod > day && cfg.SeasonalPeriod%day == 0 {
		a.dailyModel = dailySeason{seasonal(steps(day))}
	}
	h := max(a.hN, a.nodeHN)
	a.keep = a.trendN + h + a.backtestN + 1
	if a.seasonN > 0 {
		// A period back, plus what the seasonal model reads around it (its
		// level window, its smoothing) and the backtest at the horizon.
		a.keep = max(a.keep, a.seasonN+h+a.backtestN+a.seasonModel.Window+a.seasonModel.Smooth+2)
		// The forecast over the scale-down window ahead, and the model's
		// forecasts over its level window behind (see ahead).
		w := a.seasonModel.Window
		a.keep = max(a.keep, a.seasonN+max(w, a.aheadN)+w+a.seasonModel.Smooth+2)
	}
	return a, nil
}

// SetHorizons changes the Horizon and NodeHorizon of a running algorithm
// (the runtime derives them from start-ups and boots it measures, which
// move), keeping its load history, its recommendations (the stabilisation
// window) and its last forecast; an invalid pair leaves it unchanged. The
// history it keeps follows the new horizons from the next decision.
func (a *Adaptive) SetHorizons(horizon, nodeHorizon time.Duration) error {
	cfg := a.cfg
	cfg.Horizon, cfg.NodeHorizon = horizon, nodeHorizon
	n, err := NewAdaptive(cfg)
	if err != nil {
		return err
	}
	n.series, n.recs, n.fc, n.lastNeed = a.series, a.recs, a.fc, a.lastNeed
	*a = *n
	return nil
}

// Horizons are the Horizon and NodeHorizon a decides with.
func (a *Adaptive) Horizons() (horizon, nodeHorizon time.Duration) {
	return a.cfg.Horizon, a.cfg.NodeHorizon
}

// seasonal is the seasonal model of a period of p steps. Periods under 64
// steps repeat exactly, with the level change over one step. Longer ones
// (a day of 15 s steps) take the level change over the last p/8 steps, at
// most 60 (15 min), and smooth the point one period back over p/32 steps
// either side, at most 8 (2 min): one period's noise is not repeated, and
// the level is not one scrape's.
func seasonal(p int) forecast.SeasonalNaive {
	if p < 64 {
		return forecast.SeasonalNaive{Period: p, Window: 1}
	}
	return forecast.SeasonalNaive{Period: p, Window: min(p/8, 60), Smooth: min(p/32, 8)}
}

// Name returns "adaptive".
func (a *Adaptive) Name() string { return "adaptive" }

// LastForecast returns the forecast of the last decision.
func (a *Adaptive) LastForecast() Forecast { return a.fc }

// Warm replaces the load history with past samples of the target's total
// (for example a Prometheus query_range of the policy's metric over the
// last SeasonalPeriod plus a few minutes, at Step), so that the seasonal
// model need not wait a period of uptime after a restart. Samples after
// now, non-finite ones and those older than the history the models need
// are ignored; steps without a sample carry the previous one forward.
// It is WarmMetric of metric 0.
func (a *Adaptive) Warm(ts []time.Time, vs []float64, now time.Time) error {
	return a.WarmMetric(0, 1, ts, vs, now)
}

// WarmMetric is Warm for metric i of the n metrics the target's
// DecideMetrics calls will pass.
func (a *Adaptive) WarmMetric(i, n int, ts []time.Time, vs []float64, now time.Time) error {
	if i < 0 || i >= n {
		return fmt.Errorf("adaptive: warm the history: metric %d of %d", i, n)
	}
	if len(a.series) != n {
		a.series = make([]adaptiveSeries, n)
	}
	sr := &a.series[i]
	if len(ts) != len(vs) {
		return fmt.Errorf("adaptive: warm the history: %d timestamps for %d values", len(ts), len(vs))
	}
	from := now.Add(-time.Duration(a.keep-1) * a.cfg.Step)
	for i, t := range ts {
		// Start at the first usable sample: no history is made up before it.
		if !t.Before(from) && !t.After(now) && !badFloat(vs[i]) {
			from = t
			break
		}
	}
	vals, err := forecast.Regular(ts, vs, from, now, a.cfg.Step)
	if err != nil {
		return fmt.Errorf("adaptive: warm the history: %w", err)
	}
	sr.excess.reset("")
	sr.hist = append(sr.hist[:0], vals...)
	sr.lastAt = from.Add(time.Duration(len(vals)-1) * a.cfg.Step)
	return nil
}

// HistoryWindow is how far back the models read, the range [Adaptive.Warm]
// uses, and Step the spacing of that history: a caller warming the
// algorithm queries [now-HistoryWindow, now] at Step.
func (a *Adaptive) HistoryWindow() (window, step time.Duration) {
	return time.Duration(a.keep-1) * a.cfg.Step, a.cfg.Step
}

// observe records total at now in the step history sr.
func (a *Adaptive) observe(sr *adaptiveSeries, now time.Time, total float64) {
	if len(sr.hist) > 0 && now.Before(sr.lastAt) {
		sr.hist = sr.hist[:0]
		sr.excess.reset("")
	}
	if len(sr.hist) == 0 {
		sr.hist = append(sr.hist, total)
		sr.lastAt = now
		return
	}
	gap := int(now.Sub(sr.lastAt) / a.cfg.Step)
	if gap == 0 {
		sr.hist[len(sr.hist)-1] = total
		return
	}
	// Steps without an observation carry the last value forward.
	prev := sr.hist[len(sr.hist)-1]
	for i := 1; i < min(gap, a.keep); i++ {
		sr.hist = append(sr.hist, prev)
	}
	sr.hist = append(sr.hist, total)
	sr.lastAt = sr.lastAt.Add(time.Duration(gap) * a.cfg.Step)
	// Dropped in batches of a quarter of the history (at least 16 steps):
	// a week of 15 s steps is not moved at every step. The models read
	// the history from its end, so older points do no harm.
	if over := len(sr.hist) - a.keep; over > max(a.keep/4, 16) {
		n := copy(sr.hist, sr.hist[over:])
		sr.hist = sr.hist[:n]
	}
}

// predict forecasts the load h steps ahead. A seasonal model with a
// period of history forecasts when it is trusted — the load of its level
// window (up to 15 min) is within the tolerance of the same window one
// period ago: the pattern holds today —, the configured period's before
// the daily one. Otherwise the guarded trend (the last value unless a
// rising line fits) and the seasonal models are backtested over the last
// Backtest at the horizon ([forecast.Select]) and the lowest error
// forecasts. Ranking by the recent error alone would not do: over recent,
// flat history the naive forecast ties with or beats (on noise) a model
// that knows the ramp ahead (yesterday's, last week's) until the ramp has
// begun, when it is too late to start pods for it.
func (a *Adaptive) predict(sr *adaptiveSeries, h int) (float64, string) {
	last := sr.hist[len(sr.hist)-1]
	a.models = append(a.models[:0], a.trendModel)
	if a.seasonN > 0 && len(sr.hist) > a.seasonN+h {
		a.models = append(a.models, a.seasonModel)
	}
	if p := a.dailyModel.Period; p > 0 && len(sr.hist) > p+h {
		a.models = append(a.models, a.dailyModel)
	}
	if len(a.models) == 1 {
		return a.forecastWith(a.trendModel, sr.hist, last, h)
	}
	if m, ok := a.trustedSeason(sr, h); ok {
		return a.forecastWith(m, sr.hist, last, h)
	}
	scores := forecast.Select(sr.hist, h, a.backtestN, a.models...)
	return a.forecastWith(scores[0].Model, sr.hist, last, h)
}

// trustedSeason is the seasonal model that forecasts h steps ahead of sr
// without competing: one with a period and h steps of history whose
// pattern holds now ([trusted]), the configured period's first (a week
// knows Monday, the day before does not). ok is false when there is none.
func (a *Adaptive) trustedSeason(sr *adaptiveSeries, h int) (m forecast.Model, ok bool) {
	if a.seasonN > 0 && len(sr.hist) > a.seasonN+h && trusted(sr.hist, a.seasonModel, a.cfg.Tolerance) {
		return a.seasonModel, true
	}
	if d := a.dailyModel; d.Period > 0 && len(sr.hist) > d.Period+h && trusted(sr.hist, d.SeasonalNaive, a.cfg.Tolerance) {
		return d, true
	}
	return nil, false
}

// ahead is the highest load a trusted seasonal model forecasts over the
// scale-down window ahead of sr (1 to aheadN steps), and its model; ok is
// false without a trusted seasonal model (or a window).
func (a *Adaptive) ahead(sr *adaptiveSeries) (peak float64, model string, ok bool) {
	if a.aheadN == 0 || len(sr.hist) == 0 {
		return 0, "", false
	}
	m, ok := a.trustedSeason(sr, a.aheadN)
	if !ok {
		return 0, "", false
	}
	last := sr.hist[len(sr.hist)-1]
	for h := 1; h <= a.aheadN; h++ {
		f, name := a.forecastWith(m, sr.hist, last, h)
		if h == 1 || f > peak {
			peak = f
		}
		if name != m.Name() {
			// The model failed (it then forecasts the last value): no
			// forecast to bound the stabilisation with.
			return 0, "", false
		}
	}
	// The load's excursions above the model over its level window (the
	// history trusted judges it on; at least the scale-down window), each
	// step against the model's forecast from the steps before it: the
	// noise the forecast does not repeat, which the hold must still cover.
	// The closed steps' excursions change only with a new step: cached.
	sn, n := seasonalOf(m), len(sr.hist)
	excursion := func(j int) float64 {
		f, err := m.Forecast(sr.hist[:j], 1)
		if err != nil || badFloat(f) {
			return 0
		}
		return sr.hist[j] - f
	}
	c := &sr.excess
	if c.model != m.Name() {
		c.reset(m.Name())
	}
	at, v, k := c.spare[:0], c.spareV[:0], 0
	excess := 0.0
	for j := max(n-max(sn.Window, a.aheadN), sn.Period+1); j < n-1; j++ {
		t := sr.lastAt.Add(-time.Duration(n-1-j) * a.cfg.Step)
		for k < len(c.at) && c.at[k].Before(t) {
			k++
		}
		var e float64
		if k < len(c.at) && c.at[k].Equal(t) {
			e = c.v[k]
		} else {
			e = excursion(j)
		}
		at, v = append(at, t), append(v, e)
		excess = max(excess, e)
	}
	c.at, c.spare, c.v, c.spareV = at, c.at, v, c.v
	if n-1 > sn.Period {
		excess = max(excess, excursion(n-1))
	}
	return peak + excess, m.Name(), true
}

// forecastHold is the scale-down stabilisation bounded by a trusted
// seasonal forecast: the count stays at most at down (the highest
// recommendation of the window, or of the release window after a step
// down) and at least at want (what is needed now); a forecast of what the
// window ahead needs (aheadWant, with headroom) lowers the hold to it. The
// window guards against the load coming back within it: when the forecast
// expects it back the hold stays, when it expects the load to keep falling
// the pods go. Without a forecast (ok false) the hold is down.
func forecastHold(want, down, aheadWant int32, ok bool) int32 {
	if !ok {
		return down
	}
	return max(want, min(down, aheadWant))
}

// seasonalOf is the seasonal model m is.
func seasonalOf(m forecast.Model) forecast.SeasonalNaive {
	if d, ok := m.(dailySeason); ok {
		return d.SeasonalNaive
	}
	s, _ := m.(forecast.SeasonalNaive)
	return s
}

// trusted reports whether the pattern one period back holds now: the mean
// load of the seasonal model's level window (at least one step) is within
// tolerance of the same window one period earlier. A model whose period
// ago does not match today (a holiday, a changed pattern, a day against
// the day before a Monday) is not followed.
func trusted(hist []float64, m forecast.SeasonalNaive, tolerance float64) bool {
	w, n := max(m.Window, 1), len(hist)
	if m.Period < 1 || n < m.Period+w {
		return false
	}
	now, then := 0.0, 0.0
	for _, v := range hist[n-w:] {
		now += v
	}
	for _, v := range hist[n-w-m.Period : n-m.Period] {
		then += v
	}
	return !badFloat(now) && !badFloat(then) && math.Abs(now-then) <= tolerance*math.Abs(now)
}

// forecastWith is m's forecast h steps ahead ("naive" when it is the last
// value from the trend model, or fails).
func (a *Adaptive) forecastWith(m forecast.Model, hist []float64, last float64, h int) (float64, string) {
	f, err := m.Forecast(hist, h)
	switch {
	case err != nil || badFloat(f):
		return last, "naive"
	case m == forecast.Model(a.trendModel) && f == last:
		return f, "naive"
	}
	return f, m.Name()
}

// Decide returns the adaptive decision for in; see [Adaptive].
func (a *Adaptive) Decide(in Input) Decision { return a.DecideMetrics([]Input{in}) }

// DecideMetrics is Decide over several metrics: each metric keeps its own
// load history and forecast and says what it needs, the highest need wins,
// and the headroom and the scale-down stabilisation apply to it once; see
// [Algorithm.DecideMetrics]. LastForecast is then the forecast of the
// metric whose need won.
func (a *Adaptive) DecideMetrics(ins []Input) Decision {
	in, err := validateMetrics(ins)
	if err != nil {
		return invalid(in, err)
	}
	now := in.Now
	a.recs = pruneStamped(a.recs, now.Add(-a.cfg.ScaleDownWindow), now)
	a.fc = Forecast{}
	if len(a.series) != len(ins) {
		a.series = make([]adaptiveSeries, len(ins))
	}
	var b strings.Builder
	b.Grow(256)
	// ref is the count a load within the tolerance keeps: Current, or with
	// headroom the count needed last time (Current holds the headroom,
	// which must not be counted as need and compounded).
	ref := in.Current
	if a.lastNeed > 0 && (a.cfg.HeadroomReplicas > 0 || a.cfg.HeadroomPercent > 0) {
		ref = a.lastNeed
	}
	needed, ok, noData := int32(0), false, 0
	// hold is the highest need the seasonal forecasts see over the window
	// ahead: known only when every metric has one.
	var hold aheadNeed
	aheadAll := true
	for i := range ins {
		writeMetric(&b, i, len(ins))
		n, fc, h, got := a.need(&a.series[i], ins[i], ref, &b)
		if !got {
			noData++
			continue
		}
		if !ok || n > needed {
			needed, ok, a.fc = n, true, fc
		}
		switch {
		case !h.ok:
			aheadAll = false
		case !hold.ok || h.n > hold.n:
			hold = h
		}
	}
	if !aheadAll || noData > 0 {
		hold = aheadNeed{}
	}
	if !ok || (noData > 0 && needed < ref) {
		cur := clamp(in.Current, in.Min, in.Max)
		b.WriteString(": holding ")
		writeInt(&b, cur)
		// The count held keeps the last decision's spare replicas.
		var spare int32
		if a.lastNeed > 0 {
			spare = max(0, min(cur-a.lastNeed, a.withHeadroom(a.lastNeed)-a.lastNeed))
		}
		return Decision{Desired: cur, Reason: b.String(), Limited: cur != in.Current, Headroom: spare}
	}
	if len(ins) > 1 {
		b.WriteString("; highest need ")
		writeInt(&b, needed)
	}
	a.lastNeed = needed
	want := a.withHeadroom(needed)
	if a.cfg.HeadroomReplicas > 0 || a.cfg.HeadroomPercent > 0 {
		b.WriteString("; headroom ")
		writeInt(&b, want-needed)
	}
	// The HPA's scale-down stabilisation, released by a step down.
	longMax, shortMax := want, want
	release := now.Add(-a.cfg.ReleaseWindow)
	for _, r := range a.recs {
		longMax = max(longMax, r.n)
		if r.at.After(release) {
			shortMax = max(shortMax, r.n)
		}
	}
	a.recs = pushStamped(a.recs, stamped{at: now, n: want})
	down, window := longMax, a.cfg.ScaleDownWindow
	if a.cfg.ReleaseWindow > 0 && float64(shortMax) <= a.cfg.ReleaseRatio*float64(longMax) {
		down, window = shortMax, a.cfg.ReleaseWindow
	}
	held := forecastHold(want, down, a.withHeadroom(hold.n), hold.ok)
	stab := min(max(in.Current, want), held)
	if stab > want {
		b.WriteString("; scale-down stabilisation keeps ")
		writeInt(&b, stab)
		if held < down {
			b.WriteString(" (the ")
			b.WriteString(hold.model)
			b.WriteString(" forecast's need over the next ")
			b.WriteString(a.cfg.ScaleDownWindow.String())
			b.WriteString(", below the highest of the last ")
		} else {
			b.WriteString(" (highest of the last ")
		}
		b.WriteString(window.String())
		b.WriteString(")")
	} else if held < down && max(in.Current, want) > held {
		b.WriteString("; the ")
		b.WriteString(hold.model)
		b.WriteString(" forecast needs at most ")
		writeInt(&b, max(hold.n, 0))
		b.WriteString(" over the next ")
		b.WriteString(a.cfg.ScaleDownWindow.String())
		b.WriteString(": no scale-down stabilisation")
	}
	final := clampWriting(&b, stab, in.Min, in.Max)
	// The spare replicas are those of the headroom within the final count
	// (a maximum may cut them; replicas the stabilisation keeps above
	// want are the load's, on their way down).
	spare := max(0, min(want, final)-max(needed, 0))
	return Decision{Desired: final, Reason: b.String(), Limited: final != want, Headroom: spare}
}

// withHeadroom is needed plus the headroom.
func (a *Adaptive) withHeadroom(needed int32) int32 {
	if a.cfg.HeadroomReplicas == 0 && a.cfg.HeadroomPercent == 0 {
		return needed
	}
	extra := max(a.cfg.HeadroomReplicas, ceilReplicas(float64(needed)*a.cfg.HeadroomPercent/100))
	return clamp64(int64(needed)+int64(extra), 0, math.MaxInt32)
}

// need is what metric in (history sr) needs, ref standing for the current
// count, with the forecast made; ok is false when in has no usable sample
// (b then says why).
func (a *Adaptive) need(sr *adaptiveSeries, in Input, ref int32, b *strings.Builder) (needed int32, fc Forecast, hold aheadNeed, ok bool) {
	total, ok := 0.0, false
	switch {
	case in.External != nil:
		total, ok = *in.External, true
	case len(in.Pods) > 0:
		g := groupPods(in.Pods, true)
		if g.counted > 0 {
			total = g.sum / float64(g.counted) * float64(g.ready)
			ok = !badFloat(total)
		}
		if !ok {
			g.writeNoMetrics(b, len(in.Pods))
		}
	default:
		b.WriteString("no pods and no external metric")
	}
	if !ok {
		return 0, Forecast{}, aheadNeed{}, false
	}
	a.observe(sr, in.Now, total)

	b.WriteString("load ")
	writeNum(b, total)
	b.WriteString(" for target ")
	writeNum(b, in.Target)
	b.WriteString(" per pod: need ")
	// count is the pods a load needs: ref within the tolerance.
	count := func(load float64) (int32, bool) {
		if ref > 0 && math.Abs(load/(float64(ref)*in.Target)-1) <= a.cfg.Tolerance {
			return ref, true
		}
		return ceilReplicas(load / in.Target), false
	}
	needed, within := count(total)
	confirming := false
	if !within && needed > ref && ref > 0 && a.cfg.StepRatio > 0 && total < a.cfg.StepRatio*float64(ref)*in.Target && len(sr.hist) >= 2 {
		// A small rise: scaled for once it persisted for a step.
		if prev := sr.hist[len(sr.hist)-2]; prev/(float64(ref)*in.Target) <= 1+a.cfg.Tolerance {
			needed, confirming = ref, true
		}
	}
	writeInt(b, needed)
	switch {
	case within:
		b.WriteString(" (within the tolerance)")
	case confirming:
		writeHeldRise(b, a.cfg.StepRatio)
	}
	// sized is the load ref pods are sized for.
	sized := float64(ref) * in.Target
	if a.hN > 0 {
		f, model := a.predict(sr, a.hN)
		fc = Forecast{At: in.Now.Add(a.cfg.Horizon), Load: f, Observed: total, Model: model}
		if fn, _ := count(f); f > total*(1+a.cfg.Tolerance) && fn > needed {
			if a.forecastActs(sr, a.hN, f, sized) {
				writeForecast(b, model, f, a.cfg.Horizon, fn, "")
				needed = fn
			} else {
				writeForecastHeld(b, model, f, a.cfg.Horizon, a.cfg.StepRatio)
			}
		}
	}
	if a.nodeHN > 0 {
		// The replicas beyond the room wait for a node: they are scaled
		// for NodeHorizon ahead, the others only Horizon ahead.
		fits := int64(in.Current)
		if in.Room != nil {
			fits += int64(max(*in.Room, 0))
		}
		f, model := a.predict(sr, a.nodeHN)
		if fn, _ := count(f); f > total*(1+a.cfg.Tolerance) && fn > needed && int64(fn) > fits {
			if a.forecastActs(sr, a.nodeHN, f, sized) {
				fc = Forecast{At: in.Now.Add(a.cfg.NodeHorizon), Load: f, Observed: total, Model: model}
				writeForecast(b, model, f, a.cfg.NodeHorizon, fn, " (beyond the room: nodes must boot)")
				needed = fn
			} else {
				writeForecastHeld(b, model, f, a.cfg.NodeHorizon, a.cfg.StepRatio)
			}
		}
	}
	if peak, model, ok := a.ahead(sr); ok {
		n, _ := count(peak)
		hold = aheadNeed{n: n, model: model, ok: true}
	}
	return needed, fc, hold, true
}

// aheadNeed is the count a trusted seasonal forecast needs over the
// scale-down window ahead (ok false: none), from its highest load.
type aheadNeed struct {
	n     int32
	model string
	ok    bool
}

// forecastActs reports whether forecast f, h steps ahead of sr and beyond
// the tolerance of the load sized (what the count is sized for), raises
// the count now: a forecast step (at least StepRatio x sized, or from 0
// pods, or with StepRatio 0) at once; a smaller rise as an observed one,
// once it persisted for a step: the forecast made at the previous step
// (from the history up to it, at the same horizon) was beyond the
// tolerance of sized too.
func (a *Adaptive) forecastActs(sr *adaptiveSeries, h int, f, sized float64) bool {
	if a.cfg.StepRatio == 0 || sized <= 0 || f >= a.cfg.StepRatio*sized {
		return true
	}
	if len(sr.hist) < 2 {
		return false
	}
	prev := adaptiveSeries{hist: sr.hist[:len(sr.hist)-1]}
	p, _ := a.predict(&prev, h)
	return p > (1+a.cfg.Tolerance)*sized
}

// writeForecastHeld writes a forecast of a small rise that waits for the
// next step to b.
func writeForecastHeld(b *strings.Builder, model string, f float64, h time.Duration, ratio float64) {
	writeForecastHead(b, model, f, h)
	writeHeldRise(b, ratio)
}

// writeHeldRise writes why a small rise waits to b.
func writeHeldRise(b *strings.Builder, ratio float64) {
	b.WriteString(" (a rise below ")
	writeNum(b, ratio)
	b.WriteString("x: held until the next step confirms it)")
}

// writeForecastHead writes "; MODEL forecast F in H" to b.
func writeForecastHead(b *strings.Builder, model string, f float64, h time.Duration) {
	b.WriteString("; ")
	b.WriteString(model)
	b.WriteString(" forecast ")
	writeNum(b, f)
	b.WriteString(" in ")
	b.WriteString(h.String())
}

// writeForecast writes a forecast that raised the need to b.
func writeForecast(b *strings.Builder, model string, f float64, h time.Duration, n int32, why string) {
	writeForecastHead(b, model, f, h)
	b.WriteString(" needs ")
	writeInt(b, n)
	b.WriteString(why)
}
