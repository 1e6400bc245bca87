package metrics

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"
)

// BatchSource is a [Source] that evaluates many expressions at once.
type BatchSource interface {
	Source
	// InstantMany evaluates every expression at at; result i belongs to exprs[i].
	InstantMany(ctx context.Context, exprs []Expr, at time.Time) []Result
}

// Result is the outcome of one expression of a batch: a vector as [Source.Instant]
// would return it, or its error; and the warnings of the query that produced it.
type Result struct {
	Vector   Vector
	Warnings []string
	Err      error
}

// InstantManyOf evaluates exprs with src, in one batch if src is a [BatchSource] and
// one by one otherwise.
func InstantManyOf(ctx context.Context, src Source, exprs []Expr, at time.Time) []Result {
	if b, ok := src.(BatchSource); ok {
		return b.InstantMany(ctx, exprs, at)
	}
	out := make([]Result, len(exprs))
	for i, e := range exprs {
		out[i].Vector, out[i].Err = src.Instant(ctx, e, at)
	}
	return out
}

// BatchPlan is how [Prometheus.InstantMany] evaluates a list of expressions: the
// requests it sends, each answering one or more of them.
type BatchPlan struct {
	// Requests are the queries sent, merged ones first.
	Requests []BatchRequest
	// Errors holds, per input expression, its validation error (nil when planned).
	Errors []error
}

// BatchRequest is one query sent to the source.
type BatchRequest struct {
	// Query is the PromQL sent.
	Query string
	// Labels are the labels whose values select each member's samples (one,
	// or several when members differ in more than one, such as namespace and
	// workload); empty when the request answers a single member.
	Labels []string
	// Members are the distinct queries answered; each may stand for several
	// identical input expressions.
	Members []BatchMember
}

// BatchMember is one distinct query answered by a request.
type BatchMember struct {
	// Indexes are the positions of the input expressions rendering to Query.
	Indexes []int
	// Query is the member's own PromQL.
	Query string
	// Values are the batch labels' values (in the order of the request's
	// Labels) selecting the member's samples.
	Values []string

	expr Expr
	drop []string // batch labels the member's own result does not carry
}

// batchSentinel stands for the batch label's values when comparing shapes.
const batchSentinel = "\x00hca-batch\x00"

// candidate is a shape an expression can be merged on: its labels (one, or
// all its candidate labels at once) with the expression's values for them.
type candidate struct {
	labels, values []string
	key            string
}

type unique struct {
	query string
	expr  Expr
	idx   []int
	cands []candidate
}

// PlanBatches plans the evaluation of exprs: identical queries are sent once, and
// queries that differ only in the values of equality label filters (each present
// with the same value in every selector of the expression) are merged into one
// query selecting all the values, up to maxBatch per query (1 disables merging).
// A shape that varies one label is preferred; queries that differ in several
// (SLOs of the same type over workloads in different namespaces: namespace and
// workload) merge on all of them when that gathers more of them. The plan is
// deterministic for a given input.
func PlanBatches(exprs []Expr, maxBatch int) BatchPlan {
	plan := BatchPlan{Errors: make([]error, len(exprs))}
	var uniq []*unique
	byQuery := make(map[string]*unique, len(exprs))
	for i, e := range exprs {
		e = deref(e)
		if e == nil {
			plan.Errors[i] = fieldErr("Expr", "expression is nil")
			continue
		}
		s, err := e.PromQL()
		if err != nil {
			plan.Errors[i] = err
			continue
		}
		if u, ok := byQuery[s]; ok {
			u.idx = append(u.idx, i)
			continue
		}
		u := &unique{query: s, expr: e, idx: []int{i}}
		byQuery[s] = u
		uniq = append(uniq, u)
	}

	assigned := make(map[*unique]bool, len(uniq))
	if maxBatch > 1 {
		byKey := make(map[string][]*unique)
		for _, u := range uniq {
			cands := candidates(u.expr)
			names := make([]string, 0, len(cands))
			for label := range cands {
				names = append(names, label)
			}
			sort.Strings(names)
			sets := make([][]string, 0, len(names)+1)
			for _, n := range names {
				sets = append(sets, []string{n})
			}
			if len(names) > 1 {
				sets = append(sets, names)
			}
			for _, set := range sets {
				e, values := u.expr, make([]string, len(set))
				for i, label := range set {
					e, values[i] = rewrite(e, label, []string{batchSentinel}), cands[label]
				}
				tmpl, err := renderExpr(e, false)
				if err != nil {
					continue // cannot happen for a valid expression; never merge if it does
				}
				key := strings.Join(set, ",") + "\xff" + tmpl
				u.cands = append(u.cands, candidate{labels: set, values: values, key: key})
				byKey[key] = append(byKey[key], u)
			}
		}
		keys := make([]string, 0, len(byKey))
		for k, us := range byKey {
			if len(us) > 1 {
				keys = append(keys, k)
			}
		}
		// Single labels first, so that on a tie they win over a set.
		sort.Slice(keys, func(i, j int) bool {
			si, sj := strings.Contains(keys[i][:strings.IndexByte(keys[i], '\xff')], ","), strings.Contains(keys[j][:strings.IndexByte(keys[j], '\xff')], ",")
			if si != sj {
				return !si
			}
			return keys[i] < keys[j]
		})
		// Greedy: repeatedly take the shape with the most unassigned members.
		for {
			best, bestN := "", 1
			for _, k := range keys {
				n := 0
				for _, u := range byKey[k] {
					if !assigned[u] {
						n++
					}
				}
				if n > bestN {
					best, bestN = k, n
				}
			}
			if bestN < 2 {
				break
			}
			var members []*unique
			for _, u := range byKey[best] {
				if !assigned[u] {
					members = append(members, u)
					assigned[u] = true
				}
			}
			for start := 0; start < len(members); start += maxBatch {
				chunk := members[start:min(start+maxBatch, len(members))]
				if len(chunk) == 1 {
					plan.Requests = append(plan.Requests, single(chunk[0]))
					continue
				}
				plan.Requests = append(plan.Requests, merged(best, chunk))
			}
		}
	}
	for _, u := range uniq {
		if !assigned[u] {
			plan.Requests = append(plan.Requests, single(u))
		}
	}
	return plan
}

func single(u *unique) BatchRequest {
	return BatchRequest{Query: u.query, Members: []BatchMember{{Indexes: u.idx, Query: u.query, expr: u.expr}}}
}

// merged is one request for us, which share the shape key. Of the shape's
// labels, those whose values differ among us become the request's labels
// (the others stay equality filters, as in each member's own query).
func merged(key string, us []*unique) BatchRequest {
	cands := make([]candidate, len(us))
	for i, u := range us {
		for _, c := range u.cands {
			if c.key == key {
				cands[i] = c
			}
		}
	}
	var labels []string
	var pos []int
	for j, label := range cands[0].labels {
		for _, c := range cands[1:] {
			if c.values[j] != cands[0].values[j] {
				labels, pos = append(labels, label), append(pos, j)
				break
			}
		}
	}
	req := BatchRequest{Labels: labels, Members: make([]BatchMember, len(us))}
	e := us[0].expr
	for k, label := range labels {
		var values []string
		for _, c := range cands {
			if v := c.values[pos[k]]; !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
		e = rewrite(e, label, values)
	}
	for i, u := range us {
		m := BatchMember{Indexes: u.idx, Query: u.query, expr: u.expr}
		for k, label := range labels {
			m.Values = append(m.Values, cands[i].values[pos[k]])
			if !keeps(u.expr, label) {
				m.drop = append(m.drop, label)
			}
		}
		req.Members[i] = m
	}
	// The members share one shape, so rewriting any of them with all values
	// gives the merged query. The members are valid, and the rewrite only adds
	// valid names and quoted alternations, so it renders without checks.
	req.Query, _ = renderExpr(e, false)
	return req
}

// candidates returns the labels an expression can be batched on, with their values:
// labels with exactly one non-empty equality filter in every selector of the
// expression, all with the same value, and not ignored by a binary operator. An
// expression holding Raw PromQL, or no selector, has none.
func candidates(e Expr) map[string]string {
	var out map[string]string
	ok := true
	var walk func(Expr)
	walk = func(e Expr) {
		switch v := deref(e).(type) {
		case Query:
			mine := make(map[string]string)
			seen := make(map[string]int)
			for _, f := range v.Filters {
				if f.Op == Equal {
					seen[f.Name]++
					mine[f.Name] = f.Value
				}
			}
			for name, n := range seen {
				if n != 1 || mine[name] == "" || name == model.BucketLabel {
					delete(mine, name)
				}
			}
			if out == nil {
				out = mine
				return
			}
			for name, value := range out {
				if mv, has := mine[name]; !has || mv != value {
					delete(out, name)
				}
			}
		case Binary:
			walk(v.LHS)
			walk(v.RHS)
			for _, l := range v.Ignoring {
				delete(out, l)
			}
		case Number:
		default: // Raw: opaque
			ok = false
		}
	}
	walk(e)
	if !ok {
		return nil
	}
	return out
}

// rewrite returns e selecting all values of label at once: the equality filter on
// label becomes a regex alternation, and label joins every aggregation's by-list and
// every on() list, so that each value's series stay apart.
func rewrite(e Expr, label string, values []string) Expr {
	switch v := deref(e).(type) {
	case Query:
		quoted := make([]string, len(values))
		for i, val := range values {
			quoted[i] = regexp.QuoteMeta(val)
		}
		filters := make([]LabelFilter, len(v.Filters))
		for i, f := range v.Filters {
			if f.Name == label && f.Op == Equal {
				f = Re(label, strings.Join(quoted, "|"))
			}
			filters[i] = f
		}
		v.Filters = filters
		if v.Aggregation != AggNone && !contains(v.By, label) {
			v.By = append(append(make([]string, 0, len(v.By)+1), v.By...), label)
		}
		return v
	case Binary:
		v.LHS = rewrite(v.LHS, label, values)
		v.RHS = rewrite(v.RHS, label, values)
		if v.On != nil && !contains(v.On, label) {
			v.On = append(append(make([]string, 0, len(v.On)+1), v.On...), label)
		}
		return v
	default:
		return v
	}
}

// keeps reports whether e's own result carries label (so the split result must keep
// it), following PromQL's rules for result labels.
func keeps(e Expr, label string) bool {
	switch v := deref(e).(type) {
	case Query:
		return v.Aggregation == AggNone || contains(v.By, label)
	case Binary:
		switch {
		case isScalar(v.LHS):
			return keeps(v.RHS, label)
		case isScalar(v.RHS):
			return keeps(v.LHS, label)
		case v.On != nil:
			return contains(v.On, label)
		default:
			return keeps(v.LHS, label)
		}
	default:
		return false
	}
}

func isScalar(e Expr) bool {
	switch v := deref(e).(type) {
	case Number:
		return true
	case Binary:
		return isScalar(v.LHS) && isScalar(v.RHS)
	default:
		return false
	}
}

// InstantMany implements [BatchSource] following [PlanBatches] with the source's
// maximum batch size, running up to its concurrency of requests at a time. A merged
// request that Prometheus rejects as a bad query is retried member by member, so one
// bad member cannot fail the others; a transport failure fails all its members.
// The plan of a list of expressions asked again (the same queries in the same
// order, as an SLO cycle asks every interval) is reused (planCache).
func (p *Prometheus) InstantMany(ctx context.Context, exprs []Expr, at time.Time) []Result {
	plan := p.plans.plan(exprs, p.maxBatch)
	out := make([]Result, len(exprs))
	for i, err := range plan.Errors {
		if err != nil {
			out[i].Err = &QueryError{Source: p.name, Kind: ErrBadQuery, Err: err}
		}
	}
	work := make(chan *BatchRequest)
	var wg sync.WaitGroup
	for range min(p.concurrency, len(plan.Requests)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for req := range work {
				p.runRequest(ctx, req, at, out)
			}
		}()
	}
	for i := range plan.Requests {
		work <- &plan.Requests[i]
	}
	close(work)
	wg.Wait()
	return out
}

func (p *Prometheus) runRequest(ctx context.Context, req *BatchRequest, at time.Time, out []Result) {
	if len(req.Labels) == 0 {
		m := &req.Members[0]
		v, warnings, err := p.do(ctx, m.Query, at)
		if err == nil {
			v, err = check(p.name, m.Query, v)
		}
		setResults(out, m.Indexes, Result{Vector: v, Warnings: warnings, Err: err})
		return
	}
	v, warnings, err := p.do(ctx, req.Query, at)
	if err != nil {
		var qe *QueryError
		if errors.Is(err, ErrBadQuery) || !errors.As(err, &qe) {
			for i := range req.Members {
				p.runRequest(ctx, &BatchRequest{Query: req.Members[i].Query, Members: req.Members[i : i+1]}, at, out)
			}
			return
		}
		for _, m := range req.Members {
			setResults(out, m.Indexes, Result{Warnings: warnings, Err: &QueryError{Source: p.name, Query: m.Query, Kind: qe.Kind, Err: qe.Err}})
		}
		return
	}
	byValues := make(map[string]int, len(req.Members))
	for i, m := range req.Members {
		byValues[strings.Join(m.Values, "\xff")] = i
	}
	split := make([]Vector, len(req.Members))
	key := make([]string, len(req.Labels))
	for _, s := range v {
		for k, label := range req.Labels {
			key[k] = s.Labels[label]
		}
		// A series of a pair of values no member asked for (namespace a's
		// value with namespace b's workload) answers nobody.
		i, ok := byValues[strings.Join(key, "\xff")]
		if !ok {
			continue
		}
		for _, label := range req.Members[i].drop {
			delete(s.Labels, label)
		}
		split[i] = append(split[i], s)
	}
	for i, m := range req.Members {
		vec, err := check(p.name, m.Query, split[i])
		setResults(out, m.Indexes, Result{Vector: vec, Warnings: warnings, Err: err})
	}
}

func setResults(out []Result, idx []int, r Result) {
	for _, i := range idx {
		out[i] = r
	}
}
