package member

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func TestInstanceID(t *testing.T) {
	tests := []struct {
		providerID, want, err string
	}{
		{"aws:///eu-west-1a/i-0123456789abcdef0", "i-0123456789abcdef0", ""},
		{"aws://eu-west-1a/i-0abc", "i-0abc", ""},
		{"", "", "is not an EC2 instance's"},
		{"alicloud://cn-hangzhou.i-bp1", "", "is not an EC2 instance's"},
		{"aws:///eu-west-1a/", "", "is not an EC2 instance's"},
		{"kwok://node-1", "", "is not an EC2 instance's"},
	}
	for _, tc := range tests {
		t.Run(tc.providerID, func(t *testing.T) {
			got, err := InstanceID(tc.providerID)
			if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("InstanceID(%q) = %q, %v; want %q, error containing %q", tc.providerID, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestACKState(t *testing.T) {
	tests := []struct {
		name, body string
		want       GroupState
		err        string
	}{
		{"active, no auto scaling: no bounds",
			`{"scaling_group":{"desired_size":2},"status":{"state":"active","total_nodes":2}}`,
			GroupState{Desired: 2, Status: "ACTIVE"}, ""},
		{"scaling accepts a change; auto scaling bounds",
			`{"scaling_group":{"desired_size":3},"auto_scaling":{"enable":true,"min_instances":1,"max_instances":5},"status":{"state":"scaling"}}`,
			GroupState{Desired: 3, Min: 1, Max: 5, Status: "ACTIVE"}, ""},
		{"bounds of disabled auto scaling are ignored",
			`{"scaling_group":{"desired_size":0},"auto_scaling":{"enable":false,"min_instances":1,"max_instances":5},"status":{"state":"removing"}}`,
			GroupState{Desired: 0, Status: "ACTIVE"}, ""},
		{"failed nodes are an issue",
			`{"scaling_group":{"desired_size":4},"status":{"state":"active","failed_nodes":2}}`,
			GroupState{Desired: 4, Status: "ACTIVE", Issues: []string{"FailedNodes: 2 nodes of the pool could not be created (ECS quota or stock: see the pool's scaling activities)"}}, ""},
		{"updating keeps its word", `{"scaling_group":{"desired_size":1},"status":{"state":"updating"}}`,
			GroupState{Desired: 1, Status: "updating"}, ""},
		{"no desired size", `{"scaling_group":{},"status":{"state":"active"}}`, GroupState{}, "no scaling_group.desired_size"},
		{"not JSON", `<html>`, GroupState{}, "decode DescribeClusterNodePoolDetail answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ackState([]byte(tc.body))
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ackState = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAWSThrottled: the AWS errors the node-group calls classify, as the SDK
// returns them after its retries.
func TestAWSThrottled(t *testing.T) {
	answer := func(status int, code string) error {
		return &smithy.OperationError{ServiceID: "EKS", OperationName: "DescribeNodegroup", Err: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      &smithy.GenericAPIError{Code: code, Message: "m"}}}
	}
	tests := []struct {
		name string
		err  error
		want error // nil: wrapped in neither
	}{
		{"throttling", answer(429, "ThrottlingException"), ErrThrottled},
		{"Auto Scaling throttling", answer(400, "Throttling"), ErrThrottled},
		{"internal error", answer(500, "ServerException"), ErrCloudUnavailable},
		{"service unavailable", answer(503, "ServiceUnavailableException"), ErrCloudUnavailable},
		{"refusal", answer(400, "InvalidParameterException"), nil},
		{"no answer", errors.New("dial tcp: connection refused"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := awsThrottled(tc.err)
			for _, sentinel := range []error{ErrThrottled, ErrCloudUnavailable} {
				if errors.Is(got, sentinel) != (sentinel == tc.want) {
					t.Errorf("awsThrottled(%v) = %v: errors.Is %v is %v", tc.err, got, sentinel, errors.Is(got, sentinel))
				}
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("awsThrottled(%v) = %v, which does not wrap the SDK's error", tc.err, got)
			}
		})
	}
}

// TestACKFailure: the CS errors that are not retried, classified for the
// capacity controller's reasons, as the v1 SDK returns them.
func TestACKFailure(t *testing.T) {
	answer := func(status int, code string) error {
		return sdkerrors.NewServerError(status, `{"code":"`+code+`","message":"m","requestId":"r"}`, "")
	}
	tests := []struct {
		name string
		err  error
		want error // nil: wrapped in neither
		text string
	}{
		{"internal error", answer(500, "InternalError"), ErrCloudUnavailable, "InternalError: m (HTTP 500, request ID r)"},
		{"bad gateway", answer(502, "BadGateway"), ErrCloudUnavailable, "BadGateway: m (HTTP 502"},
		{"unknown pool", answer(404, "ErrorNodePoolNotFound"), ErrNodegroupNotFound, "ErrorNodePoolNotFound: m"},
		{"refusal", answer(400, "InvalidParameter"), nil, "InvalidParameter: m (HTTP 400"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ackFailure("scale ack node pool c1/np1", tc.err)
			for _, sentinel := range []error{ErrNodegroupNotFound, ErrCloudUnavailable} {
				if errors.Is(got, sentinel) != (sentinel == tc.want) {
					t.Errorf("ackFailure = %v: errors.Is %v is %v", got, sentinel, errors.Is(got, sentinel))
				}
			}
			if !strings.HasPrefix(got.Error(), "scale ack node pool c1/np1: ") || !strings.Contains(got.Error(), tc.text) {
				t.Errorf("ackFailure = %q, want the call named and %q", got, tc.text)
			}
		})
	}
}
