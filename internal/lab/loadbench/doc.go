// Package loadbench is the lab benchmark at platform scale (`make bench-load`,
// tools/loadbench): it fills the running lab's private cluster with namespaces,
// Deployments on kwok nodes, ServiceLevelObjectives (two per namespace, a mix
// of every SLO type) and BurstPolicies whose burst target is a lab burst
// cluster; it serves Prometheus series for all of them from an exporter the
// lab's Prometheus scrapes; it runs the real hca-runtime binary (--class, so
// that it only takes the benchmark's objects) and measures it from outside:
// CPU and RSS from /proc, Prometheus queries per SLO cycle, API server writes
// per second, and how late SLO and policy evaluations start against their
// schedule (the runtime's hca_schedule_lateness_seconds).
//
// It is a measurement, not a test: [Run] returns figures and [WriteTable]
// prints them. A lab test runs it at a small scale (lab_test.go) so that it
// cannot rot, and asserts only what is observable: every SLO evaluated with
// data, every policy reconciled.
//
// The pure parts (the object mix, the exporter's series, the parsing of
// /proc and of metric scrapes, the histogram maths) are table-tested.
package loadbench
