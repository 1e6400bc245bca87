// Package lab runs a local hybrid cloud of real components on loopback: Kubernetes
// control planes (etcd, kube-apiserver, kube-controller-manager, kube-scheduler) with
// kwok nodes, Prometheus, a Consul dev agent, nginx driven by consul-template, the
// workload simulator and the AWS/Alibaba Cloud API emulators. Binaries are built from
// the Go module proxy into a cache shared by checkouts (see Binaries) and every process
// is started detached, with its output in a log file and its pid recorded, so that
// `lab down` can stop all of them.
//
// Everything under internal/lab is test bed, never shipped: the lab itself
// (this package), labtest (tests' access to a running lab), emulator (the EKS,
// STS and ACK APIs), loadsim (the workload simulator serving
// internal/workload's model as metrics) and demo (`make demo`).
// TestShippedBinaryLinksNoLab in runtime/cmd/hca-runtime keeps it that way.
package lab
