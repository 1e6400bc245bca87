package member

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
)

func (a *AWSAPI) autoscaling(region string) *autoscaling.Client {
	return autoscaling.NewFromConfig(a.regional(region), func(o *autoscaling.Options) {
		if a.AutoScalingEndpoint != "" {
			o.BaseEndpoint = aws.String(a.AutoScalingEndpoint)
		}
	})
}

// InstanceID is the EC2 instance ID in an AWS node's provider ID
// ("aws:///eu-west-1a/i-0123456789abcdef0" -> "i-0123456789abcdef0").
func InstanceID(providerID string) (string, error) {
	rest, ok := strings.CutPrefix(providerID, "aws://")
	i := strings.LastIndex(rest, "/")
	if !ok || i < 0 || !strings.HasPrefix(rest[i+1:], "i-") {
		return "", fmt.Errorf("provider ID %q is not an EC2 instance's (aws:///<zone>/i-...)", providerID)
	}
	return rest[i+1:], nil
}

// TerminateNodegroupNodes terminates the given nodes' instances in the
// managed node group's Auto Scaling group, decrementing its desired
// capacity (TerminateInstanceInAutoScalingGroup with
// ShouldDecrementDesiredCapacity), so that these nodes go and no other. The
// node group's desired size follows its Auto Scaling group's. Auto Scaling
// refuses to go below the group's minimum (ValidationError).
func (a *AWSAPI) TerminateNodegroupNodes(ctx context.Context, cluster, region, name string, nodes []GroupNode) error {
	if len(nodes) == 0 {
		return nil
	}
	st, err := a.DescribeNodegroup(ctx, cluster, region, name)
	if err != nil {
		return err
	}
	if st.Detail == "" {
		return fmt.Errorf("eks node group %s/%s in %s has no Auto Scaling group yet", cluster, name, region)
	}
	var errs []error
	for _, n := range nodes {
		id, err := InstanceID(n.ProviderID)
		if err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", n.Name, err))
			continue
		}
		_, err = a.autoscaling(region).TerminateInstanceInAutoScalingGroup(ctx, &autoscaling.TerminateInstanceInAutoScalingGroupInput{
			InstanceId: aws.String(id), ShouldDecrementDesiredCapacity: aws.Bool(true)})
		if err != nil {
			errs = append(errs, fmt.Errorf("terminate instance %s (node %s) in auto scaling group %s of eks node group %s/%s: %w", id, n.Name, st.Detail, cluster, name, awsThrottled(err)))
		}
	}
	return errors.Join(errs...)
}
