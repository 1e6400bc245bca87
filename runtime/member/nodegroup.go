package member

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// NodegroupState is what EKS says of a managed node group.
type NodegroupState struct {
	// Desired, Min and Max are its scaling configuration.
	Desired, Min, Max int32
	// Status is ACTIVE, UPDATING, CREATING, DEGRADED, ...
	Status string
	// Issues are its health issues ("AsgInstanceLaunchFailures: ...").
	Issues []string
}

// ErrNodegroupNotFound is returned for a node group EKS does not know.
var ErrNodegroupNotFound = errors.New("node group not found")

func (a *AWSAPI) eks(region string) *eks.Client {
	return eks.NewFromConfig(a.regional(region), func(o *eks.Options) {
		if a.EKSEndpoint != "" {
			o.BaseEndpoint = aws.String(a.EKSEndpoint)
		}
	})
}

// DescribeNodegroup reads a managed node group's size, status and health.
// The SDK's standard retryer retries throttling with backoff.
func (a *AWSAPI) DescribeNodegroup(ctx context.Context, cluster, region, name string) (NodegroupState, error) {
	out, err := a.eks(region).DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
	if err != nil {
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return NodegroupState{}, fmt.Errorf("eks node group %s/%s in %s: %w", cluster, name, region, ErrNodegroupNotFound)
		}
		return NodegroupState{}, fmt.Errorf("describe eks node group %s/%s in %s: %w", cluster, name, region, err)
	}
	ng := out.Nodegroup
	if ng == nil || ng.ScalingConfig == nil {
		return NodegroupState{}, fmt.Errorf("describe eks node group %s/%s in %s: no scaling configuration in the answer", cluster, name, region)
	}
	st := NodegroupState{Status: string(ng.Status),
		Desired: aws.ToInt32(ng.ScalingConfig.DesiredSize), Min: aws.ToInt32(ng.ScalingConfig.MinSize), Max: aws.ToInt32(ng.ScalingConfig.MaxSize)}
	if ng.Health != nil {
		for _, is := range ng.Health.Issues {
			st.Issues = append(st.Issues, fmt.Sprintf("%s: %s", is.Code, aws.ToString(is.Message)))
		}
	}
	return st, nil
}

// SetNodegroupDesired sets a managed node group's desired size
// (UpdateNodegroupConfig); min and max stay. The caller reads the group first
// and calls only for a change (EKS refuses an update that changes nothing).
func (a *AWSAPI) SetNodegroupDesired(ctx context.Context, cluster, region, name string, desired int32) error {
	_, err := a.eks(region).UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{
		ClusterName: aws.String(cluster), NodegroupName: aws.String(name),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(desired)},
	})
	if err != nil {
		return fmt.Errorf("set the desired size of eks node group %s/%s in %s to %d: %w", cluster, name, region, desired, err)
	}
	return nil
}
