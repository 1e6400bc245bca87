package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// TestNodeBoots: boots are kept per cluster and group, the last
// nodeBootsKept of each; a nil store holds nothing.
func TestNodeBoots(t *testing.T) {
	var b NodeBoots
	for i := range nodeBootsKept + 5 {
		b.add("eks", "od", time.Duration(i)*time.Second)
	}
	b.add("eks", "spot", time.Hour)
	b.add("ack", "od", time.Minute)
	got := b.of("eks", []string{"od"})
	if len(got) != nodeBootsKept || got[0] != 5*time.Second || got[len(got)-1] != time.Duration(nodeBootsKept+4)*time.Second {
		t.Errorf("of(eks, od) = %v, want the last %d", got, nodeBootsKept)
	}
	if got := b.of("eks", []string{"spot", "none"}); !slices.Equal(got, []time.Duration{time.Hour}) {
		t.Errorf("of(eks, spot) = %v", got)
	}
	var nilBoots *NodeBoots
	nilBoots.add("eks", "od", time.Second)
	if got := nilBoots.of("eks", []string{"od"}); got != nil {
		t.Errorf("nil store: %v", got)
	}
}

// TestBurstReadiness: the controller gathers the start-ups of the Ready
// pods and the boots of the usable node groups of the burst targets (spot
// ones only with allowSpot, none of a cluster being drained), and the room
// only when some replica waits for a node.
func TestBurstReadiness(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	pod := func(startup time.Duration, ready corev1.ConditionStatus) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(t0)},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.NewTime(t0.Add(startup))}}}}
	}
	pods := []corev1.Pod{pod(40*time.Second, corev1.ConditionTrue), pod(20*time.Second, corev1.ConditionTrue), pod(5*time.Minute, corev1.ConditionFalse)}
	group := func(name string, ct hcav1.CapacityType) hcav1.NodeGroup {
		return hcav1.NodeGroup{Name: name, CapacityType: ct}
	}
	view := func(name string, target bool, groups ...hcav1.NodeGroup) *burstView {
		v := &burstView{name: name, hc: &hcav1.HybridCluster{Spec: hcav1.HybridClusterSpec{NodeGroups: groups}}}
		if target {
			v.target = &hcav1.BurstTargetCluster{Cluster: hcav1.ClusterName(name)}
		}
		return v
	}
	boots := &NodeBoots{}
	boots.add("eks", "od", 3*time.Minute)
	boots.add("eks", "spot", 10*time.Minute)
	boots.add("old", "od", 20*time.Minute)
	r := &BurstReconciler{opts: BurstOptions{NodeBoots: boots}}
	fit := int32(3)
	for _, tc := range []struct {
		name        string
		algorithm   hcav1.AlgorithmName
		allowSpot   bool
		views       []*burstView
		pods, nodes time.Duration
		room        int32 // -1: none gathered
	}{
		// 15 s + 40 s (p90 of 40 and 20) = 55 s: 60 s.
		{"no node groups: no node horizon, no room", "", false, []*burstView{view("private-2", true)}, time.Minute, 0, -1},
		// + 3 min (eks/od) + 10 s = 4m05s: 4m15s.
		{"node groups: observed boot, room", hcav1.AlgorithmAdaptive, false, []*burstView{view("eks", true, group("od", ""), group("spot", hcav1.CapacitySpot)), view("old", false, group("od", ""))}, time.Minute, 4*time.Minute + 15*time.Second, 3},
		// p90 of 3 min and 10 min: 10 min; 10m65s: 11m15s.
		{"spot allowed: its boots count", "", true, []*burstView{view("eks", true, group("od", ""), group("spot", hcav1.CapacitySpot))}, time.Minute, 11*time.Minute + 15*time.Second, 3},
		{"only a spot group, spot not allowed: no node horizon", "", false, []*burstView{view("eks", true, group("spot", hcav1.CapacitySpot))}, time.Minute, 0, -1},
		{"another algorithm: nothing", hcav1.AlgorithmKubernetes, false, []*burstView{view("eks", true, group("od", ""))}, 0, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &hcav1.BurstPolicy{Spec: hcav1.BurstPolicySpec{Algorithm: hcav1.Algorithm{Name: tc.algorithm}}}
			if tc.allowSpot {
				p.Spec.Capacity = &hcav1.BurstCapacity{AllowSpot: true}
			}
			rd, err := r.readiness(context.Background(), p, nil, pods, tc.views, nil, &fit, false, scaling.PodRequests{CPUMilli: 1000, MemoryBytes: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			if rd.horizons.Pods != tc.pods || rd.horizons.Nodes != tc.nodes {
				t.Errorf("horizons %v, %v; want %v, %v (%s)", rd.horizons.Pods, rd.horizons.Nodes, tc.pods, tc.nodes, rd.horizons)
			}
			switch {
			case tc.room < 0 && rd.room != nil:
				t.Errorf("room %d, want none", *rd.room)
			case tc.room >= 0 && (rd.room == nil || *rd.room != tc.room):
				t.Errorf("room %v, want %d", rd.room, tc.room)
			}
		})
	}
}

// TestBurstTargetRoom: a burst target's room is the prober's free capacity
// on its Ready nodes less the replicas placed since the probe, without
// what its node groups could add; limited by maxReplicas; none where
// replicas cannot go.
func TestBurstTargetRoom(t *testing.T) {
	pod := scaling.PodRequests{CPUMilli: 1000, MemoryBytes: 1 << 30}
	free := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6"), corev1.ResourceMemory: resource.MustParse("16Gi")}
	five := int32(5)
	for _, tc := range []struct {
		name     string
		view     burstView
		t        scaling.BurstTarget
		unprobed int32
		want     policy.TargetRoom
	}{
		{"probed, less the unprobed replicas", burstView{target: &hcav1.BurstTargetCluster{}, hc: &hcav1.HybridCluster{Status: hcav1.HybridClusterStatus{Free: free},
			Spec: hcav1.HybridClusterSpec{NodeGroups: []hcav1.NodeGroup{{Name: "od"}}}}}, scaling.BurstTarget{Reachable: true}, 2,
			policy.TargetRoom{Usable: true, Probed: true, FreeCPUMilli: 4000, FreeMemoryBytes: 14 << 30, NodeGroups: true, Spare: -1}},
		{"maxReplicas", burstView{target: &hcav1.BurstTargetCluster{MaxReplicas: &five}, hc: &hcav1.HybridCluster{}}, scaling.BurstTarget{Reachable: true, MaxReplicas: 5, Current: 3},
			0, policy.TargetRoom{Usable: true, Spare: 2}},
		{"unreachable", burstView{target: &hcav1.BurstTargetCluster{}}, scaling.BurstTarget{}, 0, policy.TargetRoom{Spare: -1}},
		{"drained", burstView{hc: &hcav1.HybridCluster{}}, scaling.BurstTarget{Reachable: true}, 0, policy.TargetRoom{Spare: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstTargetRoom(&tc.view, tc.t, tc.unprobed, pod, false); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestRecordReadyBoots: the capacity controller's timed boots reach
// NodeBoots without telemetry, for the burst controller's horizons.
func TestRecordReadyBoots(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	boots := &NodeBoots{}
	r := &CapacityReconciler{Boots: boots}
	g := &capacityGroup{spec: hcav1.NodeGroup{Name: "od", EKS: &hcav1.EKSNodeGroupRef{NodegroupName: "od"}}}
	node := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{EKSNodegroupLabel: "od"}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(90 * time.Second))}}}}
	r.recordReady("eks", g, nil) // the first look times nothing
	r.readyTimer.ordered("eks/od", 1, t0)
	r.recordReady("eks", g, []corev1.Node{node})
	if got := boots.of("eks", []string{"od"}); !slices.Equal(got, []time.Duration{90 * time.Second}) {
		t.Errorf("boots %v, want [1m30s]", got)
	}
}
