package telemetry

import (
	"context"
	"errors"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/metrics"
)

// CountingSource wraps a metrics.Source and counts its queries by result in
// hca_metric_queries_total. Nil m returns src itself. A metrics.BatchSource
// stays one (each expression of a batch is counted).
func (m *Metrics) CountingSource(src metrics.Source) metrics.Source {
	if m == nil || src == nil {
		return src
	}
	c := countingSource{src: src, m: m}
	if b, ok := src.(metrics.BatchSource); ok {
		// Keep the batching: metrics.InstantManyOf falls back to one query
		// per expression for a source that is not a BatchSource.
		return countingBatchSource{countingSource: c, batch: b}
	}
	return c
}

// countingBatchSource is countingSource over a metrics.BatchSource: it counts
// each expression of a batch by its result (the requests Prometheus receives
// are fewer: merged expressions share one).
type countingBatchSource struct {
	countingSource
	batch metrics.BatchSource
}

func (c countingBatchSource) InstantMany(ctx context.Context, exprs []metrics.Expr, at time.Time) []metrics.Result {
	res := c.batch.InstantMany(ctx, exprs, at)
	for _, r := range res {
		c.m.MetricQueries.WithLabelValues(QueryResult(r.Err)).Inc()
	}
	return res
}

type countingSource struct {
	src metrics.Source
	m   *Metrics
}

func (c countingSource) Instant(ctx context.Context, q metrics.Expr, at time.Time) (metrics.Vector, error) {
	v, err := c.src.Instant(ctx, q, at)
	c.m.MetricQueries.WithLabelValues(QueryResult(err)).Inc()
	return v, err
}

// QueryResult is the result label of a metric query that returned err.
func QueryResult(err error) string {
	switch {
	case err == nil:
		return ResultOK
	case errors.Is(err, metrics.ErrNoData):
		return "no_data"
	case errors.Is(err, metrics.ErrNaN):
		return "nan"
	case errors.Is(err, metrics.ErrBadQuery):
		return "bad_query"
	case errors.Is(err, metrics.ErrUnavailable):
		return "unavailable"
	default:
		return ResultError
	}
}
