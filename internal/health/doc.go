// Package health decides hca-runtime's readiness from what its probes saw: the
// leader lease's record and whether this replica was elected. It is pure: the
// runtime reads the lease and the clock and passes them in.
package health
