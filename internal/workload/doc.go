// Package workload is the application model shared by the lab and the
// simulator: the pure M/M/1 queueing model of one app's pods ([Compute]: per-pod
// CPU, errors and a latency histogram for an offered load; [ComputeMemory] adds
// a memory dimension in which a too-small memory limit slows requests down), PromQL's
// histogram_quantile over its buckets ([HistogramQuantile]), and load traces
// ([Trace], [ParseTrace]). It ships in hca-runtime (`simulate` replays traces
// through it) and imports nothing of the lab: the lab's loadsim serves the same
// model as Prometheus metrics of lab pods.
package workload
