package workload

import "time"

// DefaultPodStartupDelay is a realistic time from a pod's binding to Ready on a
// fresh cloud node: the Kubernetes scalability SLO for pod start-up is 5 s at the
// 99th percentile excluding image pulls (kubernetes/community,
// sig-scalability/slos/pod_startup_latency.md), and pulling an application image
// of a few hundred MB onto a node that has not cached it takes seconds more (the
// kubelet's image pull, e.g. EKS's "Reduce container startup time" guide). The
// lab's pods (lab.DefaultPodStartupDelay) and the simulator's default pod
// (simulate.DefaultPodModel) both start in it.
const DefaultPodStartupDelay = 10 * time.Second
