package member

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// GroupState is what a cloud says of a node group (an EKS managed node group
// or an ACK node pool), in the same terms for both.
type GroupState struct {
	// Desired is the number of nodes the group is asked to have.
	Desired int32
	// Min and Max bound it in the cloud; Max 0 means the cloud sets no bound
	// of its own (an ACK node pool without auto scaling): spec.maxNodes holds.
	Min, Max int32
	// Status is "ACTIVE" when the group accepts a new size, else the cloud's
	// own word for its state (EKS UPDATING, CREATING, DEGRADED; ACK updating,
	// deleting, ...).
	Status string
	// Issues are why nodes do not come ("AsgInstanceLaunchFailures: ...").
	Issues []string
	// Detail names the cloud's backing group where it has one (the EKS node
	// group's Auto Scaling group).
	Detail string
}

// GroupNode is a node of a group to remove: its Kubernetes name and provider
// ID (aws:///eu-west-1a/i-0123...).
type GroupNode struct {
	Name       string
	ProviderID string
}

// Errors the node-group calls wrap, for the caller's status reasons.
var (
	// ErrNodegroupNotFound is returned for a node group the cloud does not know.
	ErrNodegroupNotFound = errors.New("node group not found")
	// ErrThrottled is returned when the cloud still refuses the call for its
	// request rate after the retries.
	ErrThrottled = errors.New("throttled by the cloud API")
	// ErrNoCloudAccess is returned for a group of a cloud the runtime has no
	// credentials for.
	ErrNoCloudAccess = errors.New("no access to the node group's cloud")
	// ErrCloudUnavailable is returned when the cloud API still answers a
	// server error (HTTP 5xx: the cloud's side, not the request) after the
	// retries.
	ErrCloudUnavailable = errors.New("the cloud API answered a server error")
)

// Clouds scales node groups in whichever cloud each is in: it implements the
// capacity controller's cloud-neutral interface on top of the EKS and ACK
// adapters. A nil field means no access to that cloud (ErrNoCloudAccess).
type Clouds struct {
	AWS *AWSAPI
	ACK *ACKAPI
}

// DescribeGroup reads a node group's size, bounds, status and issues.
func (c Clouds) DescribeGroup(ctx context.Context, g hcav1.NodeGroup) (GroupState, error) {
	switch {
	case g.EKS != nil && c.AWS != nil:
		return c.AWS.DescribeNodegroup(ctx, g.EKS.ClusterName, g.EKS.Region, g.EKS.NodegroupName)
	case g.ACK != nil && c.ACK != nil:
		return c.ACK.DescribeNodePool(ctx, g.ACK.ClusterID, g.ACK.Region, g.ACK.NodePoolID)
	}
	return GroupState{}, c.noAccess(g)
}

// SetDesired sets a node group's desired size; min and max stay.
func (c Clouds) SetDesired(ctx context.Context, g hcav1.NodeGroup, desired int32) error {
	switch {
	case g.EKS != nil && c.AWS != nil:
		return c.AWS.SetNodegroupDesired(ctx, g.EKS.ClusterName, g.EKS.Region, g.EKS.NodegroupName, desired)
	case g.ACK != nil && c.ACK != nil:
		return c.ACK.SetNodePoolDesired(ctx, g.ACK.ClusterID, g.ACK.Region, g.ACK.NodePoolID, desired)
	}
	return c.noAccess(g)
}

// RemoveNodes takes the given nodes out of their group and releases them,
// lowering its desired size by as many: these nodes, not ones the cloud
// chooses. The caller keeps the group at or above its minimum.
func (c Clouds) RemoveNodes(ctx context.Context, g hcav1.NodeGroup, nodes []GroupNode) error {
	switch {
	case g.EKS != nil && c.AWS != nil:
		return c.AWS.TerminateNodegroupNodes(ctx, g.EKS.ClusterName, g.EKS.Region, g.EKS.NodegroupName, nodes)
	case g.ACK != nil && c.ACK != nil:
		return c.ACK.RemoveNodePoolNodes(ctx, g.ACK.ClusterID, g.ACK.Region, g.ACK.NodePoolID, nodes)
	}
	return c.noAccess(g)
}

func (c Clouds) noAccess(g hcav1.NodeGroup) error {
	switch {
	case g.EKS != nil:
		return fmt.Errorf("eks node group %s/%s: %w: set hca_runtime's aws block (or AWS_REGION and AWS credentials in the runtime's environment)", g.EKS.ClusterName, g.EKS.NodegroupName, ErrNoCloudAccess)
	case g.ACK != nil:
		return fmt.Errorf("ack node pool %s/%s: %w: set hca_runtime's alicloud block (ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET in the runtime's environment)", g.ACK.ClusterID, g.ACK.NodePoolID, ErrNoCloudAccess)
	}
	return fmt.Errorf("node group %s: %w: it names neither an eks node group nor an ack node pool", g.Name, ErrNoCloudAccess)
}

func (a *AWSAPI) eks(region string) *eks.Client {
	return eks.NewFromConfig(a.regional(region), func(o *eks.Options) {
		if a.EKSEndpoint != "" {
			o.BaseEndpoint = aws.String(a.EKSEndpoint)
		}
	})
}

// awsThrottled wraps err with ErrThrottled when AWS refused it for the
// request rate, and with ErrCloudUnavailable when AWS answered a server error
// (5xx); the SDK's standard retryer has retried both already, with backoff.
func awsThrottled(err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded":
			return fmt.Errorf("%w: %w", ErrThrottled, err)
		}
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
		return fmt.Errorf("%w: %w", ErrCloudUnavailable, err)
	}
	return err
}

// DescribeNodegroup reads a managed node group's size, status and health.
// The SDK's standard retryer retries throttling with backoff.
func (a *AWSAPI) DescribeNodegroup(ctx context.Context, cluster, region, name string) (GroupState, error) {
	out, err := a.eks(region).DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
	if err != nil {
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return GroupState{}, fmt.Errorf("eks node group %s/%s in %s: %w", cluster, name, region, ErrNodegroupNotFound)
		}
		return GroupState{}, fmt.Errorf("describe eks node group %s/%s in %s: %w", cluster, name, region, awsThrottled(err))
	}
	ng := out.Nodegroup
	if ng == nil || ng.ScalingConfig == nil {
		return GroupState{}, fmt.Errorf("describe eks node group %s/%s in %s: no scaling configuration in the answer", cluster, name, region)
	}
	st := GroupState{Status: string(ng.Status),
		Desired: aws.ToInt32(ng.ScalingConfig.DesiredSize), Min: aws.ToInt32(ng.ScalingConfig.MinSize), Max: aws.ToInt32(ng.ScalingConfig.MaxSize)}
	if ng.Health != nil {
		for _, is := range ng.Health.Issues {
			st.Issues = append(st.Issues, fmt.Sprintf("%s: %s", is.Code, aws.ToString(is.Message)))
		}
	}
	if ng.Resources != nil && len(ng.Resources.AutoScalingGroups) > 0 {
		st.Detail = aws.ToString(ng.Resources.AutoScalingGroups[0].Name)
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
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return fmt.Errorf("eks node group %s/%s in %s: %w", cluster, name, region, ErrNodegroupNotFound)
		}
		return fmt.Errorf("set the desired size of eks node group %s/%s in %s to %d: %w", cluster, name, region, desired, awsThrottled(err))
	}
	return nil
}
