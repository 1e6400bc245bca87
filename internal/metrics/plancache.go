package metrics

import (
	"slices"
	"sync"
)

// planCacheSize is how many batch plans a Prometheus source keeps: one per
// list of expressions asked again and again (the SLO evaluator asks the same
// list every cycle of each interval).
const planCacheSize = 4

// planCache keeps the last batch plans by the PromQL of their expressions, in
// order, and the batch size they were planned for. A list asked again (an SLO
// cycle of 10,000 SLOs every 20 s) reuses its plan instead of planning it
// again: planning is most of the evaluator's allocations (make bench-load:
// 68 MB a cycle, a fifth of the runtime's) and so of its garbage collection.
// Plans are only read once made, so callers share them.
type planCache struct {
	mu      sync.Mutex
	entries []cachedPlan // most recently used first
}

type cachedPlan struct {
	queries  []string
	maxBatch int
	plan     BatchPlan
}

// promQLs renders exprs, or reports false when one does not render (its plan
// carries the error; such lists are not cached).
func promQLs(exprs []Expr) ([]string, bool) {
	out := make([]string, len(exprs))
	for i, e := range exprs {
		e = deref(e)
		if e == nil {
			return nil, false
		}
		s, err := e.PromQL()
		if err != nil {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// plan returns the plan of exprs for maxBatch: a cached one when the same
// queries were planned for the same batch size, else a new one (PlanBatches),
// kept when every expression rendered. A nil cache plans every time.
func (c *planCache) plan(exprs []Expr, maxBatch int) BatchPlan {
	if c == nil || len(exprs) < 2 {
		return PlanBatches(exprs, maxBatch)
	}
	queries, ok := promQLs(exprs)
	if !ok {
		return PlanBatches(exprs, maxBatch)
	}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.maxBatch == maxBatch && slices.Equal(e.queries, queries) {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			c.mu.Unlock()
			return e.plan
		}
	}
	c.mu.Unlock()
	p := PlanBatches(exprs, maxBatch)
	c.mu.Lock()
	c.entries = append([]cachedPlan{{queries: queries, maxBatch: maxBatch, plan: p}}, c.entries...)
	if len(c.entries) > planCacheSize {
		c.entries = c.entries[:planCacheSize]
	}
	c.mu.Unlock()
	return p
}
