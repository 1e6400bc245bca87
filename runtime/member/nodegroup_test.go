package member

import (
	"reflect"
	"strings"
	"testing"
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
