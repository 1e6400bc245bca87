// Package demo is `make demo`: it applies examples/quickstart to the lab
// (private cluster, an EKS and an ACK burst target through the emulators, the
// runtime, a burst policy and an SLO for a sample app), runs the runtime the
// quickstart installed as a local process, replays a flash crowd through
// loadsim while showing load, replicas per cluster, SLO compliance and phase
// live, waits for the burst to come back, and writes a Markdown report with an
// SVG chart. The sampling, summary, terminal rows and chart are pure functions
// (report.go, view.go); run.go drives the real parts.
package demo
