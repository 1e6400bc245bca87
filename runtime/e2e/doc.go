// Package e2e holds end-to-end tests of hca-runtime: the real binary, started as a
// process against the lab (private cluster, a burst cluster, Prometheus, Consul,
// nginx and loadsim), killed and restarted mid-burst.
package e2e
