package metrics

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPromQL(t *testing.T) {
	sel := []LabelFilter{Eq("namespace", "shop"), Eq("app", "web")}
	cpu := Query{Metric: "container_cpu_usage_seconds_total", Filters: sel, Range: time.Minute, Func: Rate, Aggregation: Sum, By: []string{"pod"}}
	req := Query{Metric: "loadsim_cpu_request_cores", Filters: sel, Aggregation: Sum, By: []string{"pod"}}
	tests := []struct {
		name string
		expr Expr
		want string
	}{
		{"bare metric", Query{Metric: "up"}, `up`},
		{"colon in recording rule name", Query{Metric: "job:http_requests:rate5m"}, `job:http_requests:rate5m`},
		{"all operators", Query{Metric: "up", Filters: []LabelFilter{Eq("a", "1"), Ne("b", "2"), Re("c", "x|y"), Nre("d", ".*z")}},
			`up{a="1", b!="2", c=~"x|y", d!~".*z"}`},
		{"escaped value", Query{Metric: "up", Filters: []LabelFilter{Eq("pod", "we\"ird\\pod\n\t☃")}},
			`up{pod="we\"ird\\pod\n\t☃"}`},
		{"escaped regex", Query{Metric: "up", Filters: []LabelFilter{Re("instance", `10\.0\.0\.\d+:9100`)}},
			`up{instance=~"10\\.0\\.0\\.\\d+:9100"}`},
		{"non-printable rune", Query{Metric: "up", Filters: []LabelFilter{Eq("x", "a\u00adb\x00")}},
			`up{x="a\u00adb\x00"}`},
		{"rate", Query{Metric: "http_requests_total", Range: 30 * time.Second, Func: Rate}, `rate(http_requests_total[30s])`},
		{"increase compound range", Query{Metric: "http_requests_total", Range: 90 * time.Second, Func: Increase}, `increase(http_requests_total[1m30s])`},
		{"avg_over_time ms", Query{Metric: "queue_depth", Range: 1500 * time.Millisecond, Func: AvgOverTime}, `avg_over_time(queue_depth[1s500ms])`},
		{"max_over_time hour", Query{Metric: "queue_depth", Range: time.Hour, Func: MaxOverTime, Aggregation: Max}, `max(max_over_time(queue_depth[1h]))`},
		{"sum without by", Query{Metric: "up", Aggregation: Sum}, `sum(up)`},
		{"count by two", Query{Metric: "up", Aggregation: Count, By: []string{"job", "instance"}}, `count by (job, instance) (up)`},
		{"avg min", Query{Metric: "x", Aggregation: Avg}, `avg(x)`},
		{"min", Query{Metric: "x", Aggregation: Min, By: []string{"pod"}}, `min by (pod) (x)`},
		{"cpu utilisation side", cpu, `sum by (pod) (rate(container_cpu_usage_seconds_total{namespace="shop", app="web"}[1m]))`},
		{"utilisation ratio", Ratio(cpu, req, "pod"),
			`sum by (pod) (rate(container_cpu_usage_seconds_total{namespace="shop", app="web"}[1m])) / on (pod) sum by (pod) (loadsim_cpu_request_cores{namespace="shop", app="web"})`},
		{"ratio on ()", Ratio(Query{Metric: "a", Aggregation: Sum}, Query{Metric: "b", Aggregation: Sum}),
			`sum(a) / on () sum(b)`},
		{"div default matching", Div(Query{Metric: "a"}, Query{Metric: "b"}), `a / b`},
		{"ignoring", Binary{Op: OpDiv, LHS: Query{Metric: "a"}, RHS: Query{Metric: "b"}, Ignoring: []string{"code"}}, `a / ignoring (code) b`},
		{"nested binary parenthesised", Mul(Div(Query{Metric: "a"}, Query{Metric: "b"}), Number(100)), `(a / b) * 100`},
		{"right nested", Sub(Number(1), Div(Query{Metric: "errors"}, Query{Metric: "requests"})), `1 - (errors / requests)`},
		{"negative number", Mul(Query{Metric: "a"}, Number(-2.5)), `a * (-2.5)`},
		{"nan literal", Div(Number(0), Number(0)), `0 / 0`},
		{"number forms", Add(Number(math.Inf(1)), Number(1e21)), `+Inf + 1e+21`},
		{"nan number", Number(math.NaN()), `NaN`},
		{"pointer operands", Div(&Query{Metric: "a"}, &Binary{Op: OpAdd, LHS: Number(1), RHS: Number(2)}), `a / (1 + 2)`},
		{"raw", Raw(`sum(rate(x[5m])) > 3`), `sum(rate(x[5m])) > 3`},
		{"raw operand", Div(Raw(`a + b`), Number(2)), `(a + b) / 2`},
		{"quantile summed", Query{Metric: "http_request_duration_seconds_bucket", Filters: sel, Range: time.Minute, Func: Rate, Aggregation: Sum, Quantile: Q(0.9)},
			`histogram_quantile(0.9, sum by (le) (rate(http_request_duration_seconds_bucket{namespace="shop", app="web"}[1m])))`},
		{"quantile by pod", Query{Metric: "http_request_duration_seconds_bucket", Range: time.Minute, Func: Rate, Aggregation: Sum, By: []string{"pod"}, Quantile: Q(0.99)},
			`histogram_quantile(0.99, sum by (le, pod) (rate(http_request_duration_seconds_bucket[1m])))`},
		{"quantile le already in by", Query{Metric: "h_bucket", Range: time.Minute, Func: Increase, Aggregation: Sum, By: []string{"pod", "le"}, Quantile: Q(0.5)},
			`histogram_quantile(0.5, sum by (pod, le) (increase(h_bucket[1m])))`},
		{"quantile per series", Query{Metric: "h_bucket", Range: time.Minute, Func: Rate, Quantile: Q(1)},
			`histogram_quantile(1, rate(h_bucket[1m]))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.expr.PromQL()
			if err != nil {
				t.Fatalf("PromQL() error: %v", err)
			}
			if got != tt.want {
				t.Errorf("PromQL()\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestPromQLErrors(t *testing.T) {
	ok := Query{Metric: "up"}
	tests := []struct {
		name  string
		expr  Expr
		field string
		msg   string // substring of the message
	}{
		{"empty metric", Query{}, "Metric", "metric name is empty"},
		{"bad metric", Query{Metric: "1up"}, "Metric", `"1up" is not a valid metric name`},
		{"dash metric", Query{Metric: "http-requests"}, "Metric", "not a valid metric name"},
		{"empty label name", Query{Metric: "up", Filters: []LabelFilter{{Op: Equal, Value: "x"}}}, "Filters[0].Name", "label name is empty"},
		{"bad label name", Query{Metric: "up", Filters: []LabelFilter{Eq("a", "b"), Eq("app.kubernetes.io/name", "web")}}, "Filters[1].Name", `"app.kubernetes.io/name" is not a valid label name`},
		{"colon label", Query{Metric: "up", Filters: []LabelFilter{Eq("a:b", "x")}}, "Filters[0].Name", "not a valid label name"},
		{"name label", Query{Metric: "up", Filters: []LabelFilter{Eq("__name__", "x")}}, "Filters[0].Name", "select the metric with Metric"},
		{"empty op", Query{Metric: "up", Filters: []LabelFilter{{Name: "a", Value: "b"}}}, "Filters[0].Op", "operator is empty"},
		{"bad op", Query{Metric: "up", Filters: []LabelFilter{{Name: "a", Op: "==", Value: "b"}}}, "Filters[0].Op", `unknown operator "=="`},
		{"bad utf8", Query{Metric: "up", Filters: []LabelFilter{Eq("a", "\xff")}}, "Filters[0].Value", "not valid UTF-8"},
		{"bad regex", Query{Metric: "up", Filters: []LabelFilter{Re("a", "(x")}}, "Filters[0].Value", `"(x" is not a valid RE2 regular expression`},
		{"bad negative regex", Query{Metric: "up", Filters: []LabelFilter{Nre("a", "x++")}}, "Filters[0].Value", "not a valid RE2"},
		{"negative range", Query{Metric: "x", Range: -time.Second, Func: Rate}, "Range", "negative"},
		{"sub-ms range", Query{Metric: "x", Range: time.Microsecond, Func: Rate}, "Range", "whole number of milliseconds"},
		{"range without func", Query{Metric: "x", Range: time.Minute}, "Range", "set without Func"},
		{"func without range", Query{Metric: "x", Func: Rate}, "Range", "rate needs a range"},
		{"unknown func", Query{Metric: "x", Range: time.Minute, Func: "irate"}, "Func", `unknown function "irate"`},
		{"unknown aggregation", Query{Metric: "x", Aggregation: "stddev"}, "Aggregation", `unknown aggregation "stddev"`},
		{"by without aggregation", Query{Metric: "x", By: []string{"pod"}}, "By", "without Aggregation"},
		{"bad by", Query{Metric: "x", Aggregation: Sum, By: []string{"pod", "pod-name"}}, "By[1]", "not a valid label name"},
		{"duplicate by", Query{Metric: "x", Aggregation: Sum, By: []string{"pod", "ns", "pod"}}, "By[2]", `"pod" repeats By[0]`},
		{"quantile range", Query{Metric: "h_bucket", Range: time.Minute, Func: Rate, Aggregation: Sum, Quantile: Q(90)}, "Quantile", "outside [0, 1]"},
		{"quantile nan", Query{Metric: "h_bucket", Range: time.Minute, Func: Rate, Aggregation: Sum, Quantile: Q(math.NaN())}, "Quantile", "outside [0, 1]"},
		{"quantile not bucket", Query{Metric: "h_count", Range: time.Minute, Func: Rate, Aggregation: Sum, Quantile: Q(0.9)}, "Metric", "not a histogram bucket metric"},
		{"quantile no rate", Query{Metric: "h_bucket", Aggregation: Sum, Quantile: Q(0.9)}, "Func", "needs rate or increase"},
		{"quantile over time", Query{Metric: "h_bucket", Range: time.Minute, Func: AvgOverTime, Quantile: Q(0.9)}, "Func", "needs rate or increase"},
		{"quantile max", Query{Metric: "h_bucket", Range: time.Minute, Func: Rate, Aggregation: Max, Quantile: Q(0.9)}, "Aggregation", "use sum"},
		{"binary empty op", Binary{LHS: ok, RHS: ok}, "Op", "operator is empty"},
		{"binary bad op", Binary{Op: "%", LHS: ok, RHS: ok}, "Op", `unknown operator "%"`},
		{"binary no lhs", Div(nil, ok), "LHS", "left operand is missing"},
		{"binary nil pointer rhs", Div(ok, (*Query)(nil)), "RHS", "right operand is missing"},
		{"on and ignoring", Binary{Op: OpDiv, LHS: ok, RHS: ok, On: []string{"a"}, Ignoring: []string{"b"}}, "Ignoring", "not both"},
		{"bad on", Ratio(ok, ok, "pod", "a-b"), "On[1]", "not a valid label name"},
		{"on with a number", Ratio(ok, Number(2), "pod"), "On", "an operand is a number"},
		{"ignoring with numbers", Binary{Op: OpAdd, LHS: Add(Number(1), Number(2)), RHS: ok, Ignoring: []string{"pod"}}, "Ignoring", "an operand is a number"},
		{"lhs path", Div(Query{Metric: "up", Filters: []LabelFilter{Eq("a", "1"), {Name: "b"}}}, ok), "LHS.Filters[1].Op", "operator is empty"},
		{"nested rhs path", Div(ok, Mul(ok, Query{Metric: "x", Func: Rate})), "RHS.RHS.Range", "rate needs a range"},
		{"empty raw", Raw("  "), "Raw", "query is empty"},
		{"raw bad utf8", Raw("up\xff"), "Raw", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.expr.PromQL()
			if err == nil {
				t.Fatalf("PromQL() = %q, want an error on %s", got, tt.field)
			}
			if !errors.Is(err, ErrBadQuery) {
				t.Errorf("error %v does not match ErrBadQuery", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FieldError", err)
			}
			if fe.Field != tt.field {
				t.Errorf("field = %q, want %q (error: %v)", fe.Field, tt.field, err)
			}
			if !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", fe.Msg, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "invalid query: "+tt.field+": ") {
				t.Errorf("Error() = %q, want it to start with the field", err.Error())
			}
		})
	}
}

// FuzzLabelValue checks that any UTF-8 label value renders to a PromQL string
// literal that Go's unquoting (which PromQL's parser uses) turns back into the value.
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"", "a", `"`, `\`, "\n", "☃", "\x00", "\u00ad", `a\"b`, "\U0001F600"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := Query{Metric: "m", Filters: []LabelFilter{Eq("l", v)}}.PromQL()
		if !utf8Valid(v) {
			if err == nil {
				t.Fatalf("invalid UTF-8 %q rendered as %q", v, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("PromQL(%q): %v", v, err)
		}
		lit := strings.TrimSuffix(strings.TrimPrefix(got, `m{l=`), `}`)
		back, err := unquote(lit)
		if err != nil || back != v {
			t.Fatalf("literal %s unquotes to %q (%v), want %q", lit, back, err, v)
		}
	})
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }

func unquote(s string) (string, error) { return strconv.Unquote(s) }
