package emulator

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
)

func asClient(cfg aws.Config, base string) *autoscaling.Client {
	return autoscaling.NewFromConfig(cfg, func(o *autoscaling.Options) {
		o.BaseEndpoint = aws.String(base)
		o.Retryer = retry.AddWithMaxAttempts(retry.NewStandard(), 2)
	})
}

// TestAutoScalingTerminate drives TerminateInstanceInAutoScalingGroup with the
// unmodified Auto Scaling SDK: the named instance's node goes, no other; the
// node group's desired size drops with ShouldDecrementDesiredCapacity and
// stays (a replacement boots) without it; Auto Scaling's errors for an
// unknown instance, the minimum size, throttling and server errors.
func TestAutoScalingTerminate(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: -1})
	in := eksTestNodegroupInput(e.name, "od", "m5.large", 1, 3, 3)
	if _, err := e.cli.CreateNodegroup(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	e.waitNodes(t, "od", 3)
	e.waitActive(t, "od")
	as := asClient(awsLabConfig(), e.base)
	ctx := context.Background()
	instance := func(node string) string {
		n, ok := e.mem.node(e.lab, node)
		if !ok {
			t.Fatalf("no node %s", node)
		}
		id := n.pool.ProviderID[strings.LastIndex(n.pool.ProviderID, "/")+1:]
		if !strings.HasPrefix(n.pool.ProviderID, "aws:///") || !strings.HasPrefix(id, "i-") || len(id) != 19 {
			t.Fatalf("node %s has provider ID %q, want aws:///<zone>/i-<17 hex>", node, n.pool.ProviderID)
		}
		return id
	}
	terminate := func(id string, dec bool) (*autoscaling.TerminateInstanceInAutoScalingGroupOutput, error) {
		return as.TerminateInstanceInAutoScalingGroup(ctx, &autoscaling.TerminateInstanceInAutoScalingGroupInput{InstanceId: aws.String(id), ShouldDecrementDesiredCapacity: aws.Bool(dec)})
	}

	nodes := e.nodes("od")
	slices.Sort(nodes)
	victim := nodes[1]
	victimID := instance(victim)
	out, err := terminate(victimID, true)
	if err != nil {
		t.Fatalf("terminate %s: %v", victim, err)
	}
	asg := aws.ToString(e.describe(t, "od").Resources.AutoScalingGroups[0].Name)
	if a := out.Activity; a == nil || aws.ToString(a.AutoScalingGroupName) != asg || aws.ToString(a.Description) != "Terminating EC2 instance: "+victimID {
		t.Errorf("activity %+v, want one of group %s", out.Activity, asg)
	}
	e.waitNodes(t, "od", 2)
	if got := e.nodes("od"); slices.Contains(got, victim) || !slices.Contains(got, nodes[0]) || !slices.Contains(got, nodes[2]) {
		t.Fatalf("nodes after terminating %s: %v, want %s and %s", victim, got, nodes[0], nodes[2])
	}
	if d := aws.ToInt32(e.describe(t, "od").ScalingConfig.DesiredSize); d != 2 {
		t.Errorf("desired size %d, want 2", d)
	}

	// Without decrement the group replaces the node.
	out2, err := terminate(instance(nodes[0]), false)
	if err != nil || out2.Activity == nil {
		t.Fatalf("terminate %s without decrement: %v", nodes[0], err)
	}
	waitFor(t, "a replacement node", func() bool {
		got := e.nodes("od")
		return len(got) == 2 && !slices.Contains(got, nodes[0]) && slices.Contains(got, nodes[2])
	})
	if d := aws.ToInt32(e.describe(t, "od").ScalingConfig.DesiredSize); d != 2 {
		t.Errorf("desired size %d, want 2", d)
	}

	// Down to the minimum of 1, then refused.
	if _, err := terminate(instance(nodes[2]), true); err != nil {
		t.Fatal(err)
	}
	e.waitNodes(t, "od", 1)
	last := e.nodes("od")[0]
	for _, tc := range []struct {
		name, id, code, msg string
		throttle            int
		serverError         int // the status of the next 2 calls (the client's 2 attempts)
	}{
		{"min size", instance(last), "ValidationError", "Currently, desiredSize equals minSize (1)", 0, 0},
		{"unknown instance", "i-00000000000000000", "ValidationError", "No managed instance found for instance ID: i-00000000000000000", 0, 0},
		{"gone instance", "", "", "", 0, 0}, // filled below: the node is gone
		{"throttled", instance(last), "Throttling", "Rate exceeded", 5, 0},
		{"internal failure", instance(last), "InternalFailure", "The request processing has failed because of an unknown error", 0, 500},
		{"service unavailable", instance(last), "ServiceUnavailable", "The request has failed due to a temporary failure of the server.", 0, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "gone instance" {
				tc.id, tc.code, tc.msg = ec2InstanceID(e.lab, nodes[2]), "ValidationError", "No managed instance found"
			}
			e.a.throttle.set(ThrottleConfig{Next: tc.throttle})
			defer e.a.throttle.set(ThrottleConfig{})
			if err := e.a.SetServerErrors(ServerErrorConfig{Status: tc.serverError, Next: 2}); err != nil {
				t.Fatal(err)
			}
			_, err := terminate(tc.id, true)
			if code := awsErrorCode(err); code != tc.code || err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v (code %q), want %s with %q", err, code, tc.code, tc.msg)
			}
		})
	}
	if got := e.nodes("od"); len(got) != 1 || got[0] != last {
		t.Errorf("nodes after the refusals: %v, want [%s]", got, last)
	}
}
