// Package policy turns the API's algorithm parameters (internal/api/v1alpha1)
// into internal/scaling configurations and algorithms, and a
// MultiObjectiveElasticityStrategy's spec into the moha.Loop it runs. The
// controllers and the simulator both build them here, so a simulation runs
// exactly the configuration the runtime would.
package policy
