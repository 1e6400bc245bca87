// Package capacity decides the burst clusters' nodes: which node groups grow,
// by how many nodes, for the replicas a burst needs, and which nodes go back
// once they have been empty long enough. It is pure (no client, no cloud SDK,
// no clock of its own: the time is an input), like internal/scaling.
//
// [Plan] bin-packs the replicas that need a node (each [PodSet] with its
// requests, node selector and tolerations) first onto the nodes already
// requested and not yet Ready (in flight: never ordered twice), then onto new
// nodes of the eligible group with the lowest cost per placed replica (the
// node's price per hour over the replicas of that shape one node holds), so
// spot groups, cheaper per node-hour, are used first when the policy allows
// spot. It honours every group's maximum (nodes ready + requested + new <=
// Max) and skips, with a reason, groups whose nodes cannot come (quota,
// insufficient capacity, maximum reached), that the pods cannot use (node
// selector, taints) or that cannot hold one replica.
//
// [Release] picks the nodes to give back: Ready nodes without workload pods
// for at least the group's scale-down delay (10 minutes by default, as
// Cluster Autoscaler's --scale-down-unneeded-time), never below a group's
// minimum and never in a group that is growing.
package capacity
