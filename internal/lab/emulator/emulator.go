package emulator

import (
	"context"

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
