// Package slo computes service level objective compliance and the maths of
// the elasticity strategies that act on it, after the Polaris SLO framework
// (polaris-slo-cloud): an SLO controller turns metrics into one number, the
// compliance percentage, and a separate strategy turns that number into
// resources without knowing which SLO produced it.
//
// Compliance follows Polaris: 100 means the objective is met exactly, more
// than 100 means it is violated (more resources are needed) and less than 100
// means it is outperformed (resources can be released). [Evaluate] computes it
// for every SLO type of a ServiceLevelObjective: cpu-utilization, latency,
// cost-efficiency, availability and custom.
//
// Missing data is never turned into a number: empty results, NaN and
// infinities give an error wrapping [ErrNoData], so callers hold the current
// scale instead of acting (and surface why). A window without any request
// gives [ErrNoTraffic], which also wraps ErrNoData.
//
// [Horizontal] and [Vertical] are the strategy maths: replicas as
// ceil(current x compliance / 100) within a tolerance band, min/max and
// stabilisation windows; CPU and memory requests in steps within bounds.
//
// Everything here is pure: no Kubernetes or HTTP import, time passed in.
// Evaluate does not allocate on success, so one evaluation loop can cover
// thousands of SLOs.
package slo
