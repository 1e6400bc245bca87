// Package emulator serves the parts of the AWS (EKS, STS) and Alibaba Cloud (ACK)
// APIs that HCA uses, on loopback, so that the unmodified SDK clients can be driven
// in tests and demos. Every cluster the emulators "create" is a real lab cluster
// (etcd, kube-apiserver, scheduler, controller-manager, kwok nodes) started through
// the Clusters interface.
package emulator
