// Package scaling holds the runtime's scaling decisions as pure code: no
// Kubernetes client, no HTTP, no clock of its own. Every function takes plain
// structs and the current time, so the same inputs always give the same
// outputs and tests drive time explicitly.
//
// Replica-count algorithms implement [Algorithm]:
//
//   - [NewAdaptive]: the default: panic mode's speed on steps, the HPA's
//     scale-down stabilisation (released by a step down), a load forecast
//     (internal/forecast) at the horizon on top, optional headroom.
//   - [NewKubernetes]: the HorizontalPodAutoscaler as Kubernetes v1.36
//     implements it (usage ratio and tolerance, missing-metric and not-ready
//     pod handling, behavior policies and stabilisation windows, or the
//     legacy path of an HPA without a behavior block; ScalingDisabled for a
//     target scaled to 0 by hand).
//   - [NewFRSS]: Fast-Response/Slow-Shrinkage (fast scale-up, one pod at a
//     time scale-down after a long window).
//   - [NewPanic]: Knative's KPA (stable and panic windows, up-only ratchet
//     while panicking, bounded scale-up and scale-down rates).
//
// With several metrics, every algorithm's [Algorithm.DecideMetrics] takes
// the highest metric's proposal and stabilises and limits it once, as the
// HPA's computeReplicasForMetrics: one instance per target, whose history
// holds only the changes really made.
//
// Every algorithm groups pods as Kubernetes' groupPods does (one helper,
// groupPods): Pending pods never count, running pods without a sample are
// missing whether Ready or not, and readiness matters for CPU only.
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
