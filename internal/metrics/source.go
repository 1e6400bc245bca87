package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Sample is one series' value at an instant.
type Sample struct {
	Labels    map[string]string
	Value     float64
	Timestamp time.Time
}

// Vector is the result of an instant query: one sample per series (a scalar result
// is one sample without labels). Vectors returned by a [Source] are read-only: equal
// queries in a batch share one.
type Vector []Sample

// Source evaluates expressions at an instant. It is the interface consumers declare;
// [*Prometheus] implements it.
type Source interface {
	// Instant evaluates q at at (the zero time means the source's now). It returns
	// a non-empty vector of finite values, or an error matching one of
	// [ErrNoData], [ErrNaN], [ErrBadQuery] or [ErrUnavailable].
	Instant(ctx context.Context, q Expr, at time.Time) (Vector, error)
}

// The outcomes of a query that produced no usable value. Controllers hold (never
// scale down) on any of them and report it in a Degraded condition.
var (
	// ErrNoData: the query matched no series.
	ErrNoData = errors.New("no data")
	// ErrNaN: the result holds a NaN or infinite value.
	ErrNaN = errors.New("result is NaN or infinite")
	// ErrUnavailable: the source could not be reached or did not answer in time.
	ErrUnavailable = errors.New("metric source unavailable")
)

// QueryError is the error of a query: which source, which query, which outcome (Kind:
// one of the sentinel errors) and the underlying cause. It matches its Kind and its
// cause with errors.Is and errors.As.
type QueryError struct {
	// Source names the metric source, e.g. "prometheus http://host:9090" (never
	// with credentials).
	Source string
	// Query is the PromQL sent (empty if the expression did not render).
	Query string
	// Kind is ErrNoData, ErrNaN, ErrBadQuery or ErrUnavailable.
	Kind error
	// Err is the cause, if any (transport error, Prometheus API error, FieldError).
	Err error
	// Vector is the full result for ErrNaN, finite samples included.
	Vector Vector
}

func (e *QueryError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Query != "" {
		b.WriteString(": query ")
		b.WriteString(e.Query)
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Kind == ErrNaN && len(e.Vector) > 0 {
		bad := 0
		var first *Sample
		for i := range e.Vector {
			if !finite(e.Vector[i].Value) {
				if first == nil {
					first = &e.Vector[i]
				}
				bad++
			}
		}
		fmt.Fprintf(&b, " (%d of %d samples", bad, len(e.Vector))
		if first != nil {
			fmt.Fprintf(&b, ", e.g. %s = %v", formatLabels(first.Labels), first.Value)
		}
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the kind and the cause.
func (e *QueryError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// formatLabels renders labels as {a="1", b="2"}, sorted.
func formatLabels(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(quote(l[k]))
	}
	b.WriteString("}")
	return b.String()
}

// check applies the package's outcome rules to a result: empty is ErrNoData, any
// non-finite value is ErrNaN.
func check(source, query string, v Vector) (Vector, error) {
	if len(v) == 0 {
		return nil, &QueryError{Source: source, Query: query, Kind: ErrNoData}
	}
	for i := range v {
		if !finite(v[i].Value) {
			return nil, &QueryError{Source: source, Query: query, Kind: ErrNaN, Vector: v}
		}
	}
	return v, nil
}

// Value returns the value of a single-sample vector; more samples is an
// [ErrBadQuery] (aggregate the query), none is [ErrNoData].
func (v Vector) Value() (float64, error) {
	switch len(v) {
	case 0:
		return 0, ErrNoData
	case 1:
		return v[0].Value, nil
	default:
		return 0, fmt.Errorf("%w: expected one sample, got %d (first %s): aggregate the query, e.g. Aggregation sum without By", ErrBadQuery, len(v), formatLabels(v[0].Labels))
	}
}

// ByLabel maps each sample's value of label to its value. Two samples with the same
// label value are an [ErrBadQuery] (group the query by that label).
func (v Vector) ByLabel(label string) (map[string]float64, error) {
	out := make(map[string]float64, len(v))
	for _, s := range v {
		k := s.Labels[label]
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%w: two samples have %s=%q: group the query by %s", ErrBadQuery, label, k, label)
		}
		out[k] = s.Value
	}
	return out, nil
}

// Scalar evaluates q with src and returns its single value (see [Vector.Value]).
func Scalar(ctx context.Context, src Source, q Expr, at time.Time) (float64, error) {
	v, err := src.Instant(ctx, q, at)
	if err != nil {
		return 0, err
	}
	return v.Value()
}
