package emulator

import (
	"context"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// Clusters starts and stops real lab clusters. *lab.Clusters implements it.
type Clusters interface {
	// CreateCluster starts a control plane and its node pools and returns once
	// the apiserver answers. It fails if a cluster of that name exists.
	CreateCluster(ctx context.Context, spec lab.ClusterSpec) (*lab.ClusterInfo, error)
	// DeleteCluster stops every process of the cluster and removes its files.
	// Deleting a cluster that does not exist is not an error.
	DeleteCluster(ctx context.Context, name string) error
	// SetNodePool creates, resizes (Count) or removes (Count 0) a node pool.
	SetNodePool(ctx context.Context, cluster string, pool lab.NodePool) error
	// AddNode adds one node of pool's shape and waits until it is Ready.
	AddNode(ctx context.Context, cluster string, pool lab.NodePool, name string) error
	// DeleteNode deletes one node (a missing node is not an error).
	DeleteNode(ctx context.Context, cluster, name string) error
	// PoolNodes lists a pool's nodes with their pod counts.
	PoolNodes(ctx context.Context, cluster, pool string) ([]lab.PoolNode, error)
	// TaintNode taints a node and, with cordon, marks it unschedulable.
	TaintNode(ctx context.Context, cluster, name string, taint lab.Taint, cordon bool) error
}

// delayOr maps an Options duration to the one used: def when zero, none when
// negative.
func delayOr(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Lab credentials (defined in package lab, which exports them in .lab/env).
// The emulators accept requests signed with these keys only, as a cloud
// accepts only its own account's keys.
const (
	AWSAccessKeyID       = lab.AWSAccessKeyID
	AWSSecretAccessKey   = lab.AWSSecretAccessKey
	AWSAccountID         = "000000000000"
	AlicloudAccessKey    = lab.AlicloudAccessKey
	AlicloudAccessSecret = lab.AlicloudAccessSecret
)

// AWSEnv is the environment that gives a process (the AWS SDK's default
// chain) the lab's AWS credentials.
func AWSEnv() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AWSAccessKeyID, "AWS_SECRET_ACCESS_KEY=" + AWSSecretAccessKey}
}
