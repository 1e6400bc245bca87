package metrics

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// describe renders a plan as one line per request:
// "<query> ; label=<l> ; <value>@<indexes>[keep]...".
func describe(p BatchPlan) []string {
	var out []string
	for _, r := range p.Requests {
		var ms []string
		for _, m := range r.Members {
			s := fmt.Sprintf("%s@%v", strings.Join(m.Values, ","), m.Indexes)
			if len(m.Values) > 0 && len(m.drop) == 0 {
				s += "keep"
			}
			ms = append(ms, s)
		}
		out = append(out, fmt.Sprintf("%s ; label=%s ; %s", r.Query, strings.Join(r.Labels, ","), strings.Join(ms, " ")))
	}
	return out
}

func TestPlanBatches(t *testing.T) {
	util := func(ns string) Expr {
		sel := []LabelFilter{Eq("namespace", ns), Eq("app", "web")}
		return Ratio(
			Query{Metric: "cpu_seconds_total", Filters: sel, Range: time.Minute, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
			Query{Metric: "cpu_request", Filters: sel, Aggregation: Sum, By: []string{"pod"}},
			"pod")
	}
	rps := func(ns string) Expr {
		return Query{Metric: "requests_total", Filters: []LabelFilter{Eq("namespace", ns)}, Range: time.Minute, Func: Rate, Aggregation: Sum}
	}
	tests := []struct {
		name     string
		exprs    []Expr
		maxBatch int
		want     []string
	}{
		{
			name:     "duplicates sent once",
			exprs:    []Expr{Query{Metric: "up"}, Query{Metric: "down"}, Query{Metric: "up"}},
			maxBatch: 100,
			want: []string{
				`up ; label= ; @[0 2]`,
				`down ; label= ; @[1]`,
			},
		},
		{
			name:     "ratio merged over namespaces",
			exprs:    []Expr{util("a"), util("b"), util("c")},
			maxBatch: 100,
			want: []string{
				`sum by (pod, namespace) (rate(cpu_seconds_total{namespace=~"a|b|c", app="web"}[1m])) / on (pod, namespace) sum by (pod, namespace) (cpu_request{namespace=~"a|b|c", app="web"}) ; label=namespace ; a@[0] b@[1] c@[2]`,
			},
		},
		{
			name:     "sum without by gains the label",
			exprs:    []Expr{rps("a"), rps("b"), rps("a")},
			maxBatch: 100,
			want: []string{
				`sum by (namespace) (rate(requests_total{namespace=~"a|b"}[1m])) ; label=namespace ; a@[0 2] b@[1]`,
			},
		},
		{
			name: "label already in by is kept",
			exprs: []Expr{
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a")}, Aggregation: Max, By: []string{"ns", "pod"}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b")}, Aggregation: Max, By: []string{"ns", "pod"}},
			},
			maxBatch: 100,
			want:     []string{`max by (ns, pod) (x{ns=~"a|b"}) ; label=ns ; a@[0]keep b@[1]keep`},
		},
		{
			name:     "no aggregation keeps the label",
			exprs:    []Expr{Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a")}}, Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b")}}},
			maxBatch: 100,
			want:     []string{`x{ns=~"a|b"} ; label=ns ; a@[0]keep b@[1]keep`},
		},
		{
			name:     "regex metacharacters in values are quoted",
			exprs:    []Expr{Query{Metric: "x", Filters: []LabelFilter{Eq("host", "10.0.0.1:80")}}, Query{Metric: "x", Filters: []LabelFilter{Eq("host", "a|b(c)*")}}},
			maxBatch: 100,
			want:     []string{`x{host=~"10\\.0\\.0\\.1:80|a\\|b\\(c\\)\\*"} ; label=host ; 10.0.0.1:80@[0]keep a|b(c)*@[1]keep`},
		},
		{
			name: "quantile groups by le and the label",
			exprs: []Expr{
				Histogram{Metric: "lat_seconds", Filters: []LabelFilter{Eq("ns", "a")}, Range: time.Minute}.Quantile(0.9),
				Histogram{Metric: "lat_seconds", Filters: []LabelFilter{Eq("ns", "b")}, Range: time.Minute}.Quantile(0.9),
				Histogram{Metric: "lat_seconds", Filters: []LabelFilter{Eq("ns", "c")}, Range: time.Minute}.Quantile(0.5),
			},
			maxBatch: 100,
			want: []string{
				`histogram_quantile(0.9, sum by (le, ns) (rate(lat_seconds_bucket{ns=~"a|b"}[1m]))) ; label=ns ; a@[0] b@[1]`,
				`histogram_quantile(0.5, sum by (le) (rate(lat_seconds_bucket{ns="c"}[1m]))) ; label= ; @[2]`,
			},
		},
		{
			name: "scalar divisor",
			exprs: []Expr{
				Div(rps("a"), Number(2)),
				Div(rps("b"), Number(2)),
				Div(rps("c"), Number(3)),
			},
			maxBatch: 100,
			want: []string{
				`sum by (namespace) (rate(requests_total{namespace=~"a|b"}[1m])) / 2 ; label=namespace ; a@[0] b@[1]`,
				`sum(rate(requests_total{namespace="c"}[1m])) / 3 ; label= ; @[2]`,
			},
		},
		{
			name:     "scalar on the left",
			exprs:    []Expr{Mul(Number(100), rps("a")), Mul(Number(100), rps("b"))},
			maxBatch: 100,
			want: []string{
				`100 * sum by (namespace) (rate(requests_total{namespace=~"a|b"}[1m])) ; label=namespace ; a@[0] b@[1]`,
			},
		},
		{
			name: "default matching keeps the left side's labels",
			exprs: []Expr{
				Div(Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a")}}, Query{Metric: "y", Filters: []LabelFilter{Eq("ns", "a")}}),
				Div(Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b")}}, Query{Metric: "y", Filters: []LabelFilter{Eq("ns", "b")}}),
			},
			maxBatch: 100,
			want:     []string{`x{ns=~"a|b"} / y{ns=~"a|b"} ; label=ns ; a@[0]keep b@[1]keep`},
		},
		{
			name:     "chunks of maxBatch",
			exprs:    []Expr{rps("a"), rps("b"), rps("c")},
			maxBatch: 2,
			want: []string{
				`sum by (namespace) (rate(requests_total{namespace=~"a|b"}[1m])) ; label=namespace ; a@[0] b@[1]`,
				`sum(rate(requests_total{namespace="c"}[1m])) ; label= ; @[2]`,
			},
		},
		{
			name:     "maxBatch 1 disables merging",
			exprs:    []Expr{rps("a"), rps("b"), rps("a")},
			maxBatch: 1,
			want: []string{
				`sum(rate(requests_total{namespace="a"}[1m])) ; label= ; @[0 2]`,
				`sum(rate(requests_total{namespace="b"}[1m])) ; label= ; @[1]`,
			},
		},
		{
			name:     "raw never merged",
			exprs:    []Expr{Raw(`x{ns="a"}`), Raw(`x{ns="b"}`), Div(Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a")}}, Raw("1")), Div(Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b")}}, Raw("1"))},
			maxBatch: 100,
			want: []string{
				`x{ns="a"} ; label= ; @[0]`,
				`x{ns="b"} ; label= ; @[1]`,
				`x{ns="a"} / (1) ; label= ; @[2]`,
				`x{ns="b"} / (1) ; label= ; @[3]`,
			},
		},
		{
			name: "ignored label never merged",
			exprs: []Expr{
				Binary{Op: OpDiv, LHS: Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a")}}, RHS: Query{Metric: "y", Filters: []LabelFilter{Eq("ns", "a")}}, Ignoring: []string{"ns"}},
				Binary{Op: OpDiv, LHS: Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b")}}, RHS: Query{Metric: "y", Filters: []LabelFilter{Eq("ns", "b")}}, Ignoring: []string{"ns"}},
			},
			maxBatch: 100,
			want: []string{
				`x{ns="a"} / ignoring (ns) y{ns="a"} ; label= ; @[0]`,
				`x{ns="b"} / ignoring (ns) y{ns="b"} ; label= ; @[1]`,
			},
		},
		{
			name: "sides with different values never merged",
			exprs: []Expr{
				Div(Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a")}}, Query{Metric: "y", Filters: []LabelFilter{Eq("ns", "b")}}),
				Div(Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "c")}}, Query{Metric: "y", Filters: []LabelFilter{Eq("ns", "d")}}),
			},
			maxBatch: 100,
			want: []string{
				`x{ns="a"} / y{ns="b"} ; label= ; @[0]`,
				`x{ns="c"} / y{ns="d"} ; label= ; @[1]`,
			},
		},
		{
			name: "empty values, le and repeated filters are not batch labels",
			exprs: []Expr{
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b")}},
				Query{Metric: "h_bucket", Filters: []LabelFilter{Eq("le", "0.1")}},
				Query{Metric: "h_bucket", Filters: []LabelFilter{Eq("le", "0.5")}},
				Query{Metric: "z", Filters: []LabelFilter{Eq("ns", "a"), Eq("ns", "a")}},
				Query{Metric: "z", Filters: []LabelFilter{Eq("ns", "b"), Eq("ns", "b")}},
			},
			maxBatch: 100,
			want: []string{
				`x{ns=""} ; label= ; @[0]`,
				`x{ns="b"} ; label= ; @[1]`,
				`h_bucket{le="0.1"} ; label= ; @[2]`,
				`h_bucket{le="0.5"} ; label= ; @[3]`,
				`z{ns="a", ns="a"} ; label= ; @[4]`,
				`z{ns="b", ns="b"} ; label= ; @[5]`,
			},
		},
		{
			name: "largest group first",
			exprs: []Expr{
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a"), Eq("app", "web")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b"), Eq("app", "web")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "c"), Eq("app", "web")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a"), Eq("app", "api")}},
			},
			maxBatch: 100,
			// ns alone gathers 3 (web in a, b, c), app alone 2 (a's web
			// and api), both at once all 4: one query; the series of
			// (api, b) and (api, c) answer nobody.
			want: []string{
				`x{ns=~"a|b|c", app=~"web|api"} ; label=app,ns ; web,a@[0]keep web,b@[1]keep web,c@[2]keep api,a@[3]keep`,
			},
		},
		{
			name: "a label ties: the single label wins over the set",
			exprs: []Expr{
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a"), Eq("app", "web")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b"), Eq("app", "web")}},
			},
			maxBatch: 100,
			want:     []string{`x{ns=~"a|b", app="web"} ; label=ns ; a@[0]keep b@[1]keep`},
		},
		{
			name: "SLOs two per namespace: one query per shape, not one per namespace",
			exprs: []Expr{
				Query{Metric: "rps", Filters: []LabelFilter{Eq("namespace", "n1"), Eq("deployment", "web")}, Range: time.Minute, Func: Rate, Aggregation: Sum},
				Query{Metric: "rps", Filters: []LabelFilter{Eq("namespace", "n1"), Eq("deployment", "api")}, Range: time.Minute, Func: Rate, Aggregation: Sum},
				Query{Metric: "rps", Filters: []LabelFilter{Eq("namespace", "n2"), Eq("deployment", "shop")}, Range: time.Minute, Func: Rate, Aggregation: Sum},
				Query{Metric: "rps", Filters: []LabelFilter{Eq("namespace", "n2"), Eq("deployment", "cart")}, Range: time.Minute, Func: Rate, Aggregation: Sum},
			},
			maxBatch: 100,
			want: []string{
				`sum by (deployment, namespace) (rate(rps{namespace=~"n1|n2", deployment=~"web|api|shop|cart"}[1m])) ; label=deployment,namespace ; web,n1@[0] api,n1@[1] shop,n2@[2] cart,n2@[3]`,
			},
		},
		{
			name: "a chunk of the set that varies in one label only is merged on that one",
			exprs: []Expr{
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "a"), Eq("app", "web")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "b"), Eq("app", "web")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "c"), Eq("app", "api")}},
				Query{Metric: "x", Filters: []LabelFilter{Eq("ns", "d"), Eq("app", "api")}},
			},
			maxBatch: 2,
			// ns alone gathers 2 and 2, both labels 4: chunks of 2 in
			// which only ns varies.
			want: []string{
				`x{ns=~"a|b", app="web"} ; label=ns ; a@[0]keep b@[1]keep`,
				`x{ns=~"c|d", app="api"} ; label=ns ; c@[2]keep d@[3]keep`,
			},
		},
		{
			name:     "numbers deduplicated, not merged",
			exprs:    []Expr{Div(Number(0), Number(0)), Number(1), Div(Number(0), Number(0))},
			maxBatch: 100,
			want: []string{
				`0 / 0 ; label= ; @[0 2]`,
				`1 ; label= ; @[1]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := PlanBatches(tt.exprs, tt.maxBatch)
			for i, err := range plan.Errors {
				if err != nil {
					t.Fatalf("expression %d: %v", i, err)
				}
			}
			got := describe(plan)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("plan\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestPlanBatchesInvalid(t *testing.T) {
	plan := PlanBatches([]Expr{Query{Metric: "ok"}, Query{Metric: "bad-name"}, nil, (*Binary)(nil)}, 10)
	if len(plan.Requests) != 1 || plan.Requests[0].Query != "ok" {
		t.Errorf("requests = %v, want only ok", describe(plan))
	}
	if plan.Errors[0] != nil {
		t.Errorf("Errors[0] = %v, want nil", plan.Errors[0])
	}
	for i := 1; i < 4; i++ {
		if !errors.Is(plan.Errors[i], ErrBadQuery) {
			t.Errorf("Errors[%d] = %v, want ErrBadQuery", i, plan.Errors[i])
		}
	}
}

// TestPlanBatchesSLOs checks the shape of the benchmark's workload: 1,000 SLO queries
// over 200 workloads become 5 requests.
func TestPlanBatchesSLOs(t *testing.T) {
	exprs := sloExprs("bench_x", 200)
	plan := PlanBatches(exprs, DefaultMaxBatch)
	if len(exprs) != 1000 || len(plan.Requests) != 5 {
		t.Fatalf("%d expressions planned as %d requests, want 1000 as 5", len(exprs), len(plan.Requests))
	}
	seen := make(map[int]bool)
	for _, r := range plan.Requests {
		if strings.Join(r.Labels, ",") != "namespace" || len(r.Members) != 200 {
			t.Errorf("request %s: labels %q, %d members; want namespace, 200", r.Query, r.Labels, len(r.Members))
		}
		for _, m := range r.Members {
			for _, i := range m.Indexes {
				seen[i] = true
			}
		}
	}
	if len(seen) != 1000 {
		t.Errorf("plan answers %d of 1000 expressions", len(seen))
	}
}

// spreadSLOExprs are n SLO queries as the SLO controller writes them, two
// workloads per namespace, each with its own name (namespace and app both
// vary), cycling through utilisation, latency and availability.
func spreadSLOExprs(n int) []Expr {
	out := make([]Expr, 0, n)
	for i := range n {
		sel := []LabelFilter{Eq("namespace", fmt.Sprintf("team-%04d", i/2)), Eq("app", fmt.Sprintf("svc-%05d", i))}
		switch i % 3 {
		case 0:
			out = append(out, Ratio(
				Query{Metric: "cpu_seconds_total", Filters: sel, Range: time.Minute, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
				Query{Metric: "cpu_request_cores", Filters: sel, Aggregation: Sum, By: []string{"pod"}}, "pod"))
		case 1:
			out = append(out, Histogram{Metric: "latency_seconds", Filters: sel, Range: time.Minute}.Quantile(0.9))
		default:
			out = append(out, Ratio(
				Query{Metric: "requests_total", Filters: append([]LabelFilter{Nre("code", "5..")}, sel...), Range: time.Minute, Func: Rate, Aggregation: Sum},
				Query{Metric: "requests_total", Filters: sel, Range: time.Minute, Func: Rate, Aggregation: Sum}))
		}
	}
	return out
}

// TestPlanBatchesAcrossNamespaces: 10,000 SLOs two per namespace (5,000
// namespaces, every workload named differently) merge on namespace and app
// together: one query per SLO type and 256 SLOs, 3 x ceil(3,334 / 256) = 42
// requests, where merging on one label could not merge any two of them.
func TestPlanBatchesAcrossNamespaces(t *testing.T) {
	exprs := spreadSLOExprs(10000)
	plan := PlanBatches(exprs, DefaultMaxBatch)
	if len(plan.Requests) != 42 {
		t.Fatalf("%d requests, want 42", len(plan.Requests))
	}
	seen := make(map[int]bool)
	for _, r := range plan.Requests {
		if strings.Join(r.Labels, ",") != "app,namespace" {
			t.Errorf("request merged on %v, want app and namespace", r.Labels)
		}
		for _, m := range r.Members {
			for _, i := range m.Indexes {
				seen[i] = true
			}
		}
	}
	if len(seen) != len(exprs) {
		t.Errorf("the plan answers %d of %d expressions", len(seen), len(exprs))
	}
}
