// Package scaling holds the runtime's scaling decisions as pure code: no
// Kubernetes client, no HTTP, no clock of its own. Every function takes plain
// structs and the current time, so the same inputs always give the same
// outputs and tests drive time explicitly.
//
// Replica-count algorithms implement [Algorithm]:
//
//   - [NewKubernetes]: the HorizontalPodAutoscaler as Kubernetes v1.36
//     implements it (usage ratio and tolerance, missing-metric and not-ready
//     pod handling, behavior policies and stabilisation windows).
//   - [NewFRSS]: Fast-Response/Slow-Shrinkage (fast scale-up, one pod at a
//     time scale-down after a long window).
//   - [NewPanic]: Knative's KPA (stable and panic windows, up-only ratchet
//     while panicking, bounded scale-up and scale-down rates).
//
// An Algorithm value keeps the history it needs (past recommendations, metric
// windows) in its own struct, pruned by time (and capped) so memory stays
// bounded. Use one instance per scaled target; instances are not safe for
// concurrent use. Decide never panics and keeps a valid input's decision
// within [Min, Max]; an input that fails [Validate] gets a hold decision
// whose Reason starts with "invalid input: ".
//
// The package also places replicas over clusters and partitions federated
// min/max (placement*.go, federation*.go).
package scaling
