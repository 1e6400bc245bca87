// Package loadsim is the lab's workload simulator. For each registered app (a
// namespace and Deployment name) it takes an offered load in requests per second,
// set through a small JSON API or replayed from a CSV trace, splits it evenly
// across the app's Running and Ready pods in every lab cluster (the private
// cluster and the burst clusters each hold a Deployment of the same
// namespace/name; pods are matched by that Deployment's selector in each
// cluster) and exports per-pod Prometheus metrics: CPU usage, CPU request and
// limit, request counts by status code and a latency histogram.
//
// [Sim.MetricsAPIHandler] serves the same per-pod CPU as the resource metrics
// API (metrics.k8s.io/v1beta1) of one cluster, so that the cluster's own HPA
// controller can scale on it once registered as an APIService.
//
// Scaling an app changes its pod count, which changes each pod's share of the
// load and therefore the metrics an autoscaler reads: the loop autoscaling
// tests need.
//
// The queueing model (model.go) is pure and documented on [Compute]. The
// runtime ([Sim]) polls the clusters once per tick, integrates counters over
// the elapsed time and serves /metrics, /healthz and the /v1/apps API from
// [Sim.Handler].
package loadsim
