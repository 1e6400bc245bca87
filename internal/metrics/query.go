package metrics

import (
	"errors"
	"fmt"
	"math"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/common/model"
)

// Expr is an expression that renders to PromQL. The implementations are [Query],
// [Binary], [Number] and [Raw]; the set is closed so that batching can rewrite them.
type Expr interface {
	// PromQL validates the expression and renders it. Validation errors are
	// [*FieldError]s matching [ErrBadQuery].
	PromQL() (string, error)

	// render writes the PromQL; with check it validates first (a rewrite of a
	// validated expression renders without).
	render(b *strings.Builder, check bool) error
}

// Op is a label filter's match operator.
type Op string

// The PromQL label match operators. Regex values are RE2 and anchored at both ends,
// as Prometheus anchors them.
const (
	Equal        Op = "="
	NotEqual     Op = "!="
	RegexMatch   Op = "=~"
	RegexNoMatch Op = "!~"
)

// LabelFilter restricts a selection to series whose label Name matches Value.
type LabelFilter struct {
	Name  string
	Op    Op
	Value string
}

// Eq filters on name = value.
func Eq(name, value string) LabelFilter { return LabelFilter{Name: name, Op: Equal, Value: value} }

// Ne filters on name != value.
func Ne(name, value string) LabelFilter { return LabelFilter{Name: name, Op: NotEqual, Value: value} }

// Re filters on name =~ value (an RE2 regex, anchored).
func Re(name, value string) LabelFilter { return LabelFilter{Name: name, Op: RegexMatch, Value: value} }

// Nre filters on name !~ value (an RE2 regex, anchored).
func Nre(name, value string) LabelFilter {
	return LabelFilter{Name: name, Op: RegexNoMatch, Value: value}
}

// Func is a function over a range of samples.
type Func string

// The supported range functions. FuncNone selects the latest sample (no range).
const (
	FuncNone    Func = ""
	Rate        Func = "rate"
	Increase    Func = "increase"
	AvgOverTime Func = "avg_over_time"
	MaxOverTime Func = "max_over_time"
)

// Aggregation is an aggregation operator over series.
type Aggregation string

// The supported aggregations. AggNone keeps every series.
const (
	AggNone Aggregation = ""
	Sum     Aggregation = "sum"
	Avg     Aggregation = "avg"
	Max     Aggregation = "max"
	Min     Aggregation = "min"
	Count   Aggregation = "count"
)

// Query selects one metric, optionally applies a range function, an aggregation and
// histogram_quantile. The zero values of Func and Aggregation mean "none".
type Query struct {
	// Metric is the metric name, e.g. "container_cpu_usage_seconds_total".
	Metric string
	// Filters restrict the series, rendered in order.
	Filters []LabelFilter
	// Range is the window of the range function (required with Func, forbidden
	// without); a whole number of milliseconds.
	Range time.Duration
	// Func is applied to each series over Range.
	Func Func
	// Aggregation combines the series, grouped by the labels in By.
	Aggregation Aggregation
	By          []string
	// Quantile, when set, renders histogram_quantile(Quantile, ...) over Metric,
	// which must be a *_bucket metric, with Func Rate or Increase. With Aggregation
	// Sum the "le" label is added to By; with no aggregation each series keeps
	// its own buckets. Use [Q] to set it.
	Quantile *float64
}

// Q returns a pointer to q, for [Query.Quantile].
func Q(q float64) *float64 { return &q }

// Number is a PromQL number literal; it renders as a scalar.
type Number float64

// Raw is PromQL written by a user (a custom SLO or a BurstPolicy metric query). It is
// sent verbatim; only emptiness and UTF-8 are checked here and Prometheus reports
// anything else as [ErrBadQuery]. Raw expressions are never batched.
type Raw string

// BinaryOp is an arithmetic operator between two expressions.
type BinaryOp string

// The supported arithmetic operators.
const (
	OpAdd BinaryOp = "+"
	OpSub BinaryOp = "-"
	OpMul BinaryOp = "*"
	OpDiv BinaryOp = "/"
)

// Binary is LHS Op RHS. Between two vectors, series match on all labels unless On
// or Ignoring is set: a non-nil On (even empty: "on ()") matches on exactly those
// labels, a non-nil Ignoring on all labels but those. On and Ignoring exclude each
// other. Operands that are themselves Binary or Raw are parenthesised.
type Binary struct {
	Op       BinaryOp
	LHS, RHS Expr
	On       []string
	Ignoring []string
}

// Div returns lhs / rhs with default (all-label) matching.
func Div(lhs, rhs Expr) Binary { return Binary{Op: OpDiv, LHS: lhs, RHS: rhs} }

// Mul returns lhs * rhs.
func Mul(lhs, rhs Expr) Binary { return Binary{Op: OpMul, LHS: lhs, RHS: rhs} }

// Add returns lhs + rhs.
func Add(lhs, rhs Expr) Binary { return Binary{Op: OpAdd, LHS: lhs, RHS: rhs} }

// Sub returns lhs - rhs.
func Sub(lhs, rhs Expr) Binary { return Binary{Op: OpSub, LHS: lhs, RHS: rhs} }

// Ratio returns num / on (on...) den: a ratio whose sides match on exactly the given
// labels (with none, "on ()": both sides must be single series).
func Ratio(num, den Expr, on ...string) Binary {
	if on == nil {
		on = []string{}
	}
	return Binary{Op: OpDiv, LHS: num, RHS: den, On: on}
}

// ErrBadQuery marks an invalid query: rejected by the builder (a [*FieldError]) or by
// the metric source.
var ErrBadQuery = errors.New("bad query")

// FieldError is a validation error naming the offending field of an expression, with
// a path through Binary operands (e.g. "RHS.Filters[0].Value").
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return "invalid query: " + e.Field + ": " + e.Msg }

// Unwrap makes every FieldError match [ErrBadQuery].
func (e *FieldError) Unwrap() error { return ErrBadQuery }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// prefixErr puts prefix before the field of a FieldError.
func prefixErr(prefix string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: prefix + "." + fe.Field, Msg: fe.Msg}
	}
	return err
}

// validName reports whether s matches [a-zA-Z_:][a-zA-Z0-9_:]* (metric names,
// colon allowed) or [a-zA-Z_][a-zA-Z0-9_]* (label names): the legacy Prometheus name
// rules, which every Prometheus version accepts unquoted.
func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		case c == ':' && colon:
		default:
			return false
		}
	}
	return true
}

// regexCache remembers the validation of regex values (the same few recur across
// SLOs); it stops growing at regexCacheMax entries.
var (
	regexCache     sync.Map // string -> error (nil when valid)
	regexCacheSize atomic.Int64
)

const regexCacheMax = 4096

// checkRegex parses v as Prometheus does (RE2, anchored).
func checkRegex(v string) error {
	if e, ok := regexCache.Load(v); ok {
		err, _ := e.(error)
		return err
	}
	_, err := syntax.Parse("^(?:"+v+")$", syntax.Perl)
	if regexCacheSize.Load() < regexCacheMax {
		regexCacheSize.Add(1)
		regexCache.Store(v, err)
	}
	return err
}

// checkLabelName validates a label name; field names it in the error (built only
// then: validation runs on every render).
func checkLabelName(name string, field func() string) error {
	if name == "" {
		return fieldErr(field(), "label name is empty: name a label such as pod or namespace")
	}
	if !validName(name, false) {
		return fieldErr(field(), "%q is not a valid label name: use letters, digits and underscores, not starting with a digit", name)
	}
	return nil
}

func indexed(name string, i int, sub string) func() string {
	return func() string { return name + "[" + strconv.Itoa(i) + "]" + sub }
}

// PromQL validates q and renders it.
func (q Query) PromQL() (string, error) { return renderExpr(q, true) }

// PromQL validates b and renders it.
func (b Binary) PromQL() (string, error) { return renderExpr(b, true) }

// PromQL renders n ("NaN", "+Inf" and "-Inf" included: PromQL accepts them).
func (n Number) PromQL() (string, error) { return renderExpr(n, true) }

// PromQL checks that r is non-empty UTF-8 and returns it unchanged.
func (r Raw) PromQL() (string, error) { return renderExpr(r, true) }

func renderExpr(e Expr, check bool) (string, error) {
	var b strings.Builder
	b.Grow(128)
	if e = deref(e); e == nil {
		return "", fieldErr("Expr", "expression is nil")
	}
	if err := e.render(&b, check); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (q Query) validate() error {
	switch {
	case q.Metric == "":
		return fieldErr("Metric", "metric name is empty: name the metric to select, e.g. container_cpu_usage_seconds_total")
	case !validName(q.Metric, true):
		return fieldErr("Metric", "%q is not a valid metric name: use letters, digits, underscores and colons, not starting with a digit", q.Metric)
	}
	for i, f := range q.Filters {
		if err := checkLabelName(f.Name, indexed("Filters", i, ".Name")); err != nil {
			return err
		}
		field := indexed("Filters", i, "")
		if f.Name == model.MetricNameLabel {
			return fieldErr(field()+".Name", "__name__ repeats the metric name: select the metric with Metric only")
		}
		switch f.Op {
		case Equal, NotEqual, RegexMatch, RegexNoMatch:
		case "":
			return fieldErr(field()+".Op", "operator is empty: use =, !=, =~ or !~")
		default:
			return fieldErr(field()+".Op", "unknown operator %q: use =, !=, =~ or !~", f.Op)
		}
		if !utf8.ValidString(f.Value) {
			return fieldErr(field()+".Value", "value is not valid UTF-8: label values are UTF-8 strings")
		}
		if f.Op == RegexMatch || f.Op == RegexNoMatch {
			if err := checkRegex(f.Value); err != nil {
				return fieldErr(field()+".Value", "%q is not a valid RE2 regular expression: %v", f.Value, err)
			}
		}
	}
	if q.Range < 0 {
		return fieldErr("Range", "%v is negative: use a window such as 1m", q.Range)
	}
	if q.Range%time.Millisecond != 0 {
		return fieldErr("Range", "%v is not a whole number of milliseconds (PromQL's resolution)", q.Range)
	}
	switch q.Func {
	case FuncNone:
		if q.Range != 0 {
			return fieldErr("Range", "%v is set without Func: an instant query needs a function over the range (rate, increase, avg_over_time, max_over_time); set Func or clear Range", q.Range)
		}
	case Rate, Increase, AvgOverTime, MaxOverTime:
		if q.Range == 0 {
			return fieldErr("Range", "%s needs a range: set Range, e.g. 1m (at least twice the scrape interval)", q.Func)
		}
	default:
		return fieldErr("Func", "unknown function %q: use rate, increase, avg_over_time, max_over_time or leave it empty", q.Func)
	}
	switch q.Aggregation {
	case AggNone:
		if len(q.By) != 0 {
			return fieldErr("By", "grouping labels %q are set without Aggregation: set Aggregation (e.g. sum) or clear By", q.By)
		}
	case Sum, Avg, Max, Min, Count:
	default:
		return fieldErr("Aggregation", "unknown aggregation %q: use sum, avg, max, min, count or leave it empty", q.Aggregation)
	}
	for i, l := range q.By {
		if err := checkLabelName(l, indexed("By", i, "")); err != nil {
			return err
		}
		for j := range i {
			if q.By[j] == l {
				return fieldErr(indexed("By", i, "")(), "%q repeats By[%d]: list each label once", l, j)
			}
		}
	}
	if q.Quantile != nil {
		v := *q.Quantile
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fieldErr("Quantile", "%v is outside [0, 1]: use e.g. 0.9 for the 90th percentile", v)
		}
		if !strings.HasSuffix(q.Metric, "_bucket") {
			return fieldErr("Metric", "%q is not a histogram bucket metric: a quantile needs the *_bucket series (e.g. http_request_duration_seconds_bucket)", q.Metric)
		}
		if q.Func != Rate && q.Func != Increase {
			return fieldErr("Func", "a quantile over buckets needs rate or increase, not %q", q.Func)
		}
		if q.Aggregation != AggNone && q.Aggregation != Sum {
			return fieldErr("Aggregation", "a quantile over buckets sums them by le: use sum (or none), not %s", q.Aggregation)
		}
	}
	return nil
}

// quote renders a PromQL string literal. PromQL unquotes with Go's rules, so
// strconv.Quote round-trips every valid UTF-8 string.
func quote(s string) string { return strconv.Quote(s) }

func (q Query) render(b *strings.Builder, check bool) error {
	if check {
		if err := q.validate(); err != nil {
			return err
		}
	}
	closers := 0
	if q.Quantile != nil {
		b.WriteString("histogram_quantile(")
		b.WriteString(strconv.FormatFloat(*q.Quantile, 'g', -1, 64))
		b.WriteString(", ")
		closers++
	}
	if q.Aggregation != AggNone {
		b.WriteString(string(q.Aggregation))
		by := q.By
		if q.Quantile != nil && !contains(by, model.BucketLabel) {
			by = append([]string{model.BucketLabel}, by...)
		}
		if len(by) > 0 {
			b.WriteString(" by (")
			b.WriteString(strings.Join(by, ", "))
			b.WriteString(") ")
		}
		b.WriteString("(")
		closers++
	}
	if q.Func != FuncNone {
		b.WriteString(string(q.Func))
		b.WriteString("(")
		closers++
	}
	b.WriteString(q.Metric)
	if len(q.Filters) > 0 {
		b.WriteString("{")
		for i, f := range q.Filters {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name)
			b.WriteString(string(f.Op))
			b.WriteString(quote(f.Value))
		}
		b.WriteString("}")
	}
	if q.Range > 0 {
		b.WriteString("[")
		b.WriteString(model.Duration(q.Range).String())
		b.WriteString("]")
	}
	for range closers {
		b.WriteString(")")
	}
	return nil
}

func (b Binary) validate() error {
	switch b.Op {
	case OpAdd, OpSub, OpMul, OpDiv:
	case "":
		return fieldErr("Op", "operator is empty: use +, -, * or /")
	default:
		return fieldErr("Op", "unknown operator %q: use +, -, * or /", b.Op)
	}
	if deref(b.LHS) == nil {
		return fieldErr("LHS", "left operand is missing")
	}
	if deref(b.RHS) == nil {
		return fieldErr("RHS", "right operand is missing")
	}
	if b.On != nil && b.Ignoring != nil {
		return fieldErr("Ignoring", "set together with On: match on some labels (On) or all but some (Ignoring), not both")
	}
	if (b.On != nil || b.Ignoring != nil) && (isScalar(b.LHS) || isScalar(b.RHS)) {
		field := "On"
		if b.On == nil {
			field = "Ignoring"
		}
		return fieldErr(field, "label matching needs a vector on both sides, but an operand is a number: clear On and Ignoring")
	}
	for _, m := range []struct {
		field  string
		labels []string
	}{{"On", b.On}, {"Ignoring", b.Ignoring}} {
		for i, l := range m.labels {
			if err := checkLabelName(l, indexed(m.field, i, "")); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b Binary) render(sb *strings.Builder, check bool) error {
	if check {
		if err := b.validate(); err != nil {
			return err
		}
	}
	if err := renderOperand(sb, b.LHS, check); err != nil {
		return prefixErr("LHS", err)
	}
	sb.WriteString(" ")
	sb.WriteString(string(b.Op))
	sb.WriteString(" ")
	switch {
	case b.On != nil:
		sb.WriteString("on (")
		sb.WriteString(strings.Join(b.On, ", "))
		sb.WriteString(") ")
	case b.Ignoring != nil:
		sb.WriteString("ignoring (")
		sb.WriteString(strings.Join(b.Ignoring, ", "))
		sb.WriteString(") ")
	}
	if err := renderOperand(sb, b.RHS, check); err != nil {
		return prefixErr("RHS", err)
	}
	return nil
}

// renderOperand parenthesises operands whose precedence is not that of an atom.
func renderOperand(sb *strings.Builder, e Expr, check bool) error {
	e = deref(e)
	paren := false
	switch v := e.(type) {
	case Binary, Raw:
		paren = true
	case Number:
		paren = v < 0 || math.Signbit(float64(v))
	}
	if paren {
		sb.WriteString("(")
	}
	if err := e.render(sb, check); err != nil {
		return err
	}
	if paren {
		sb.WriteString(")")
	}
	return nil
}

func (n Number) render(b *strings.Builder, _ bool) error {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		b.WriteString("NaN")
	case math.IsInf(f, 1):
		b.WriteString("+Inf")
	case math.IsInf(f, -1):
		b.WriteString("-Inf")
	default:
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return nil
}

func (r Raw) render(b *strings.Builder, _ bool) error {
	if strings.TrimSpace(string(r)) == "" {
		return fieldErr("Raw", "query is empty: write a PromQL expression")
	}
	if !utf8.ValidString(string(r)) {
		return fieldErr("Raw", "query is not valid UTF-8")
	}
	b.WriteString(string(r))
	return nil
}

// deref turns pointers to expressions into values so that type switches see one
// form; a nil pointer becomes a nil Expr.
func deref(e Expr) Expr {
	switch v := e.(type) {
	case *Query:
		if v == nil {
			return nil
		}
		return *v
	case *Binary:
		if v == nil {
			return nil
		}
		return *v
	case *Number:
		if v == nil {
			return nil
		}
		return *v
	case *Raw:
		if v == nil {
			return nil
		}
		return *v
	}
	return e
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
