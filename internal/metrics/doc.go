// Package metrics is the runtime's view of metric databases: a database-independent
// query builder, the narrow [Source] interface the controllers consume, its
// Prometheus implementation and the composed metrics (cost per hour, Polaris cost
// efficiency).
//
// # Queries
//
// A [Query] selects one metric with label filters and optionally applies a range
// function ([Rate], [Increase], [AvgOverTime], [MaxOverTime]), an aggregation
// ([Sum], [Avg], [Max], [Min], [Count]) grouped by labels, and histogram_quantile
// over a *_bucket metric. [Binary] combines expressions ([Div], [Ratio], [Mul],
// [Add], [Sub]); [Number] is a literal and [Raw] carries user-written PromQL (the
// `custom` SLO type) verbatim. Every [Expr] renders with PromQL(), which validates
// names and values first and reports the offending field (for example
// "LHS.Filters[1].Name") and how to fix it; such errors match [ErrBadQuery].
//
//	util := metrics.Ratio(
//		metrics.Query{Metric: "container_cpu_usage_seconds_total", Filters: sel, Range: time.Minute, Func: metrics.Rate, Aggregation: metrics.Sum, By: []string{"pod"}},
//		metrics.Query{Metric: "loadsim_cpu_request_cores", Filters: sel, Aggregation: metrics.Sum, By: []string{"pod"}},
//		"pod")
//	// sum by (pod) (rate(container_cpu_usage_seconds_total{...}[1m])) / on (pod) sum by (pod) (loadsim_cpu_request_cores{...})
//
// # Outcomes
//
// [Source.Instant] returns a non-empty [Vector] of finite samples or an error, never
// both. The errors are explicit so that a controller can hold its replicas rather
// than scale down on missing data, and say why in a Degraded condition:
//
//   - [ErrNoData]: the query matched nothing (the empty vector).
//   - [ErrNaN]: at least one sample is NaN or ±Inf (0/0, a quantile over zero
//     requests, a division by a zero request). The whole result is refused, not just
//     the bad samples, because silently dropping a pod is itself missing data; the
//     [*QueryError] still carries the full vector for a consumer that wants the
//     finite samples.
//   - [ErrBadQuery]: the expression is invalid (caught by the builder, or rejected
//     by Prometheus as bad_data or an execution error).
//   - [ErrUnavailable]: transport failure, timeout, or a server error.
//
// All four come wrapped in a [*QueryError] naming the source (its URL without
// credentials) and the query, and match with errors.Is.
//
// # Batching
//
// [Prometheus.InstantMany] evaluates many expressions at one instant. It renders
// them, removes duplicates (identical PromQL is sent once), and merges queries that
// differ only in the value of one equality filter on the same label into one
// query: the filter becomes a regex alternation of the values, the label is added to
// every aggregation's by-list and every on() list, and the result is split back per
// value. For example the utilisation of 200 workloads, one query each of the form
// sum by (pod) (rate(cpu{namespace="a"}[1m])) / on (pod) sum by (pod) (req{namespace="a"}),
// becomes one query with namespace=~"a|b|..." grouped by (pod, namespace). The
// requests then run concurrently with a bounded number in flight
// ([WithConcurrency]), each merging at most [WithMaxBatch] queries. [Raw] expressions
// and expressions that ignore() the label are never merged; a merged query that
// Prometheus rejects as bad is retried unmerged, so one bad member cannot fail the
// others. Queries that differ in several such labels at once (SLOs of one type
// over workloads in different namespaces: namespace and app) merge on all of them
// when that gathers more queries than any one label does: each label becomes an
// alternation, and a result series answers the member whose values it carries
// (series of pairs nobody asked for answer nobody). [PlanBatches] returns the plan
// without running it. On the lab, 1,000 SLO queries over 200 workloads (five
// shapes) become five requests; 10,000 SLOs two per namespace over 5,000
// namespaces, every workload named differently, become 42.
package metrics
