// Package forecast predicts a load series a short horizon ahead, as pure
// code: no clock, no I/O. Inputs are plain (timestamps, values, a step), so
// the runtime can feed it from Prometheus query_range and the simulator from
// the trace it replays, with the same code. The adaptive algorithm
// (internal/scaling) keeps the regular series itself, one value per step
// of its own inputs.
//
// [Regular] turns samples into a regular series (one value per step, the
// last sample of each step, gaps carried forward). On a regular series:
//
//   - [Naive]: the last value (the reactive baseline);
//   - [Trend]: least squares over the last Window points, extrapolated h
//     steps; [Fit] also reports R², so a caller can ignore a poor line (a
//     step is not a ramp);
//   - [Holt]: Holt's linear method with a damped trend (Gardner and
//     McKenzie), for ramps;
//   - [SeasonalNaive]: the value one period before the target time, shifted
//     by the change of level between the last few points and the same points
//     one period earlier (a seasonal-naive forecast with a trend), for daily
//     and weekly patterns;
//   - [HoltWinters]: additive Holt-Winters (level, trend, one seasonal term
//     per step of the period), initialised from the first period.
//
// [Select] backtests models on the series' recent past (each forecast made
// only from the points before it, [Backtest]) and ranks them by mean
// absolute error, so the choice is per series and per moment. [MAPE] is
// the mean absolute percentage error of forecasts against actual values.
//
// Every model returns a finite forecast for finite input and never panics;
// too short a series falls back to the last value, and an empty one is
// [ErrNoData].
package forecast
