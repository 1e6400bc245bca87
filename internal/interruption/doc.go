// Package interruption decides what the burst controller does with a burst
// cluster's replicas when some of their nodes are under a spot interruption
// notice: surge replacements first, remove the leaving replicas only once the
// replacements are Ready. It is pure (no I/O): the controller reads the pods
// and writes the decision.
package interruption
