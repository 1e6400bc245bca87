// Package telemetry is hca-runtime's observability: its own Prometheus metrics
// (prefix hca_), registered with controller-runtime's registry so that the
// manager's /metrics endpoint serves them beside controller-runtime's own
// (reconcile counts and durations, work queues, client-go requests).
//
// Three kinds of series:
//   - event counters the controllers increment where they act (decisions,
//     node requests and releases, errors), through nil-safe methods of
//     [Metrics] or the narrow recorder interfaces the controllers declare;
//   - state gauges computed at scrape time from the objects' status in the
//     manager's cache by [StatusCollector] (replicas per policy and cluster,
//     burst phase, SLO compliance, node groups): no controller has to keep them
//     up to date and a deleted object's series disappear with it;
//   - client-side counters of the runtime's dependencies: AWS SDK calls, errors
//     and throttles ([AWSAPIOptions], an SDK middleware) and metric queries
//     ([CountingSource], a decorator of metrics.Source).
//
// The names follow Prometheus' conventions (base units, _total for counters);
// `promtool check metrics` passes on a scrape (a lab test runs it).
package telemetry
