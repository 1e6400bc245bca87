package controller

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

func TestCloudReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("describe ack node pool c1/np1: %w after 5 attempts: Throttling.User", member.ErrThrottled), "Throttled"},
		{fmt.Errorf("eks node group a/b: %w: set hca_runtime's aws block", member.ErrNoCloudAccess), "NoCloudAccess"},
		{fmt.Errorf("set desired: %w", fmt.Errorf("eks node group a/b in eu-west-1: %w", member.ErrNodegroupNotFound)), "NotFound"},
		{fmt.Errorf("describe eks node group a/b in eu-west-1: %w: ServiceUnavailableException", member.ErrCloudUnavailable), "CloudUnavailable"},
		{errors.New("InvalidParameterException: desiredSize can't be greater than maxSize"), "CloudError"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := cloudReason(tc.err); got != tc.want {
				t.Errorf("cloudReason(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestInGroup(t *testing.T) {
	eksGroup := hcav1.NodeGroup{Name: "od", EKS: &hcav1.EKSNodeGroupRef{ClusterName: "c", Region: "r", NodegroupName: "burst"}}
	ackGroup := hcav1.NodeGroup{Name: "od", ACK: &hcav1.ACKNodePoolRef{ClusterID: "c1", Region: "cn-hangzhou", NodePoolID: "np1"}}
	node := func(labels map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}}
	}
	tests := []struct {
		name  string
		group hcav1.NodeGroup
		node  *corev1.Node
		want  bool
	}{
		{"eks node of the group", eksGroup, node(map[string]string{EKSNodegroupLabel: "burst"}), true},
		{"eks node of another group", eksGroup, node(map[string]string{EKSNodegroupLabel: "spot"}), false},
		{"ack node for an eks group", eksGroup, node(map[string]string{ACKNodePoolLabel: "burst"}), false},
		{"ack node of the pool", ackGroup, node(map[string]string{ACKNodePoolLabel: "np1"}), true},
		{"ack node of another pool", ackGroup, node(map[string]string{ACKNodePoolLabel: "np2"}), false},
		{"ack pool by name is not enough", ackGroup, node(map[string]string{"alibabacloud.com/nodepool-name": "np1"}), false},
		{"unlabelled node", ackGroup, node(nil), false},
		{"group of no cloud", hcav1.NodeGroup{Name: "x"}, node(map[string]string{EKSNodegroupLabel: "x"}), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := inGroup(tc.group, tc.node); got != tc.want {
				t.Errorf("inGroup = %v, want %v", got, tc.want)
			}
		})
	}
}
