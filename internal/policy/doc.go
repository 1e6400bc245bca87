// Package policy turns the API's algorithm parameters (internal/api/v1alpha1)
// into internal/scaling configurations and algorithms. The burst controller and
// the simulator both build their algorithms here, so a simulation runs exactly
// the configuration the runtime would.
package policy
