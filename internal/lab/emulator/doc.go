// Package emulator serves the parts of the AWS (EKS, STS) and Alibaba Cloud (ACK)
// APIs that HCA uses, on loopback, so that the unmodified SDK clients can be driven
// in tests and demos. Every cluster the emulators "create" is a real lab cluster
// (etcd, kube-apiserver, scheduler, controller-manager, kwok nodes) started through
// the Clusters interface.
//
// Node groups (EKS) and node pools (ACK) are kept at their desired size by a fleet
// that behaves as an Auto Scaling group: each node it adds joins after the boot
// delay (DefaultNodeBootDelay, AWSOptions/ACKOptions.NodeBootDelay, the tag
// LabBootDelayTag), nodes beyond the account's vCPU quota or of an instance type
// without capacity never come (and the APIs say why in the clouds' words), and a
// spot node can be interrupted with the clouds' notice. The lab's control endpoints
// on each emulator's URL, which need no signature:
//
//	POST /lab/v1/spot-interruptions     {"cluster": "<EKS name | ACK cluster ID>", "node": "<node>"}
//	POST /lab/v1/throttling             {"next": N} or {"ratePerSecond": r, "burst": b}; {} turns it off
//	POST /lab/v1/server-errors          {"status": 500 | 503, "next": N}; next 0: every call; {} turns it off
//	POST /lab/v1/insufficient-capacity  {"instanceType": "m5.large", "insufficient": true}
//	POST /lab/v1/vcpu-quota             {"capacityType": "ON_DEMAND" | "SPOT", "vcpus": 32}; 0 removes it
package emulator
