package metrics

import (
	"fmt"
	"testing"
)

// TestPlanCache: a list of expressions asked again gets the plan made the
// first time (the same requests, not planned again); another list, another
// batch size, a list with an expression that does not render, and a list
// pushed out by planCacheSize others are planned anew, and every plan equals
// PlanBatches'.
func TestPlanCache(t *testing.T) {
	list := func(prefix string) []Expr {
		return []Expr{Query{Metric: prefix + "_a"}, Query{Metric: prefix + "_b"}}
	}
	same := func(a, b BatchPlan) bool { return len(a.Requests) > 0 && &a.Requests[0] == &b.Requests[0] }
	tests := []struct {
		name   string
		first  []Expr
		others [][]Expr // asked between the two
		second []Expr
		max2   int
		reused bool
	}{
		{"the same list", list("x"), nil, list("x"), 100, true},
		{"the same queries in new values", list("x"), nil, []Expr{Query{Metric: "x_a"}, Query{Metric: "x_b"}}, 100, true},
		{"another order", list("x"), nil, []Expr{Query{Metric: "x_b"}, Query{Metric: "x_a"}}, 100, false},
		{"another batch size", list("x"), nil, list("x"), 1, false},
		{"after planCacheSize - 1 others", list("x"), lists(planCacheSize - 1), list("x"), 100, true},
		{"pushed out by planCacheSize others", list("x"), lists(planCacheSize), list("x"), 100, false},
		{"a bad expression: not kept", []Expr{Query{Metric: "ok"}, Query{Metric: "bad-name"}}, nil, []Expr{Query{Metric: "ok"}, Query{Metric: "bad-name"}}, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &planCache{}
			a := c.plan(tt.first, 100)
			for _, o := range tt.others {
				c.plan(o, 100)
			}
			b := c.plan(tt.second, tt.max2)
			if got := same(a, b); got != tt.reused {
				t.Errorf("plan reused = %v, want %v", got, tt.reused)
			}
			if want := describe(PlanBatches(tt.second, tt.max2)); fmt.Sprint(describe(b)) != fmt.Sprint(want) {
				t.Errorf("plan %v, want PlanBatches' %v", describe(b), want)
			}
		})
	}
}

func lists(n int) [][]Expr {
	out := make([][]Expr, n)
	for i := range out {
		out[i] = []Expr{Query{Metric: fmt.Sprintf("o%d_a", i)}, Query{Metric: fmt.Sprintf("o%d_b", i)}}
	}
	return out
}
