package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func TestBurstClusterChanged(t *testing.T) {
	probed := func(at time.Time) *hcav1.HybridCluster {
		return &hcav1.HybridCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "burst", Generation: 1},
			Status: hcav1.HybridClusterStatus{
				Reachable:     true,
				LastProbeTime: &metav1.Time{Time: at},
				Free:          corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
				NodeGroups:    []hcav1.NodeGroupStatus{{Name: "g", DesiredNodes: 2}},
				Conditions: []metav1.Condition{{Type: "Reachable", Status: metav1.ConditionTrue, Reason: "Probed",
					Message: "probed at " + at.String(), LastTransitionTime: metav1.Time{Time: at}}},
			},
		}
	}
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		change func(n *hcav1.HybridCluster)
		want   bool
	}{
		{"probe time and condition message only", func(*hcav1.HybridCluster) {}, false},
		{"spec generation", func(n *hcav1.HybridCluster) { n.Generation++ }, true},
		{"unreachable", func(n *hcav1.HybridCluster) { n.Status.Reachable = false }, true},
		{"free capacity", func(n *hcav1.HybridCluster) { n.Status.Free[corev1.ResourceCPU] = resource.MustParse("3") }, true},
		{"node group size", func(n *hcav1.HybridCluster) { n.Status.NodeGroups[0].RequestedNodes = 1 }, true},
		{"condition status", func(n *hcav1.HybridCluster) { n.Status.Conditions[0].Status = metav1.ConditionFalse }, true},
		{"deleted", func(n *hcav1.HybridCluster) { n.DeletionTimestamp = &metav1.Time{Time: t0} }, true},
		{"labels", func(n *hcav1.HybridCluster) { n.Labels = map[string]string{"a": "b"} }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, n := probed(t0), probed(t0.Add(30*time.Second))
			tt.change(n)
			if got := burstClusterChanged(o, n); got != tt.want {
				t.Errorf("burstClusterChanged = %v, want %v", got, tt.want)
			}
		})
	}
}
