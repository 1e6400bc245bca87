package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// MaxRangePoints is how many points one query_range asks for at most:
// Prometheus refuses more than 11,000 per series, so longer ranges are
// split into several queries.
const MaxRangePoints = 10000

// maxRangePoints is MaxRangePoints, lowered by tests to split small ranges.
var maxRangePoints = MaxRangePoints

// Series is one series' values over a range, in time order.
type Series struct {
	Times  []time.Time
	Values []float64
}

// Range evaluates q over [start, end] every step (Prometheus' query_range)
// and returns its one series: aggregate q (sum, for instance) to one
// series. A range of more than [MaxRangePoints] steps is fetched in
// several queries. Errors are [QueryError]s of the same kinds as Instant's;
// no series at all is ErrNoData.
func (p *Prometheus) Range(ctx context.Context, q Expr, start, end time.Time, step time.Duration) (Series, error) {
	var out Series
	if q = deref(q); q == nil {
		return out, &QueryError{Source: p.name, Kind: ErrBadQuery, Err: fieldErr("Expr", "expression is nil")}
	}
	s, err := q.PromQL()
	if err != nil {
		return out, &QueryError{Source: p.name, Kind: ErrBadQuery, Err: err}
	}
	if step <= 0 || end.Before(start) {
		return out, &QueryError{Source: p.name, Query: s, Kind: ErrBadQuery, Err: fmt.Errorf("range [%v, %v] step %v: use start <= end and a positive step", start, end, step)}
	}
	chunk := time.Duration(maxRangePoints-1) * step
	for from := start; !from.After(end); from = from.Add(chunk + step) {
		to := from.Add(chunk)
		if to.After(end) {
			to = end
		}
		if err := p.rangeChunk(ctx, s, from, to, step, &out); err != nil {
			return Series{}, err
		}
	}
	if len(out.Times) == 0 {
		return out, &QueryError{Source: p.name, Query: s, Kind: ErrNoData}
	}
	return out, nil
}

func (p *Prometheus) rangeChunk(ctx context.Context, query string, from, to time.Time, step time.Duration, out *Series) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	val, warnings, _, err := p.api.QueryRange(ctx, query, promv1.Range{Start: from, End: to, Step: step}, promv1.WithTimeout(p.timeout))
	if len(warnings) > 0 {
		p.logger.Warn("prometheus query_range warnings", "source", p.name, "query", query, "warnings", []string(warnings))
	}
	if err != nil {
		return &QueryError{Source: p.name, Query: query, Kind: classify(err), Err: err}
	}
	m, ok := val.(model.Matrix)
	if !ok {
		return &QueryError{Source: p.name, Query: query, Kind: ErrBadQuery, Err: fmt.Errorf("query_range returned %s, want a matrix", val.Type())}
	}
	switch {
	case len(m) == 0:
		return nil
	case len(m) > 1:
		return &QueryError{Source: p.name, Query: query, Kind: ErrBadQuery,
			Err: errors.New(fmt.Sprint(len(m), " series: aggregate the query to one series (with sum, for instance)"))}
	}
	for _, sp := range m[0].Values {
		out.Times = append(out.Times, sp.Timestamp.Time())
		out.Values = append(out.Values, float64(sp.Value))
	}
	return nil
}
