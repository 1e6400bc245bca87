package controller

import (
	"context"
	"fmt"
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
	// The boots the capacity controller keeps in each HybridCluster's
	// status (a restarted runtime reads the same).
	boots := map[string]map[string]time.Duration{"eks": {"od": 3 * time.Minute, "spot": 10 * time.Minute}, "old": {"od": 20 * time.Minute}}
	view := func(name string, target bool, groups ...hcav1.NodeGroup) *burstView {
		hc := &hcav1.HybridCluster{Spec: hcav1.HybridClusterSpec{NodeGroups: groups}}
		for _, g := range groups {
			if d, ok := boots[name][g.Name]; ok {
				hc.Status.NodeGroups = append(hc.Status.NodeGroups, hcav1.NodeGroupStatus{Name: g.Name, RecentBoots: []metav1.Duration{{Duration: d}}})
			}
		}
		v := &burstView{name: name, hc: hc}
		if target {
			v.target = &hcav1.BurstTargetCluster{Cluster: hcav1.ClusterName(name)}
		}
		return v
	}
	r := &BurstReconciler{}
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

// TestRecordReadyBoots: the capacity controller's timed boots reach the
// group's status.recentBoots without telemetry (rounded to the second,
// oldest first, the last nodeBootsKept), for the burst controller's
// horizons, which read them from there (burstNodeBoots).
func TestRecordReadyBoots(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	r := &CapacityReconciler{}
	g := &capacityGroup{spec: hcav1.NodeGroup{Name: "od", EKS: &hcav1.EKSNodeGroupRef{NodegroupName: "od"}}, status: hcav1.NodeGroupStatus{Name: "od"}}
	node := func(name string, ready time.Duration) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{EKSNodegroupLabel: "od"}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(ready))}}}}
	}
	r.recordReady("eks", g, nil) // the first look times nothing
	r.readyTimer.ordered("eks/od", 1, t0)
	nodes := []corev1.Node{node("n1", 90*time.Second+300*time.Millisecond)}
	r.recordReady("eks", g, nodes)
	if got := g.status.RecentBoots; len(got) != 1 || got[0].Duration != 90*time.Second {
		t.Errorf("recentBoots %v, want [1m30s]", got)
	}
	// 25 more boots: the last 20 are kept, oldest first.
	for i := range 25 {
		r.readyTimer.ordered("eks/od", 1, t0)
		nodes = append(nodes, node(fmt.Sprintf("m%d", i), time.Duration(100+i)*time.Second))
		r.recordReady("eks", g, nodes)
	}
	got := g.status.RecentBoots
	if len(got) != nodeBootsKept || got[0].Duration != 105*time.Second || got[len(got)-1].Duration != 124*time.Second {
		t.Errorf("recentBoots %v, want the last %d: 1m45s ... 2m4s", got, nodeBootsKept)
	}
	hc := &hcav1.HybridCluster{Status: hcav1.HybridClusterStatus{NodeGroups: []hcav1.NodeGroupStatus{g.status, {Name: "spot", RecentBoots: []metav1.Duration{{Duration: time.Hour}}}}}}
	if b := burstNodeBoots(hc, []string{"od"}); len(b) != nodeBootsKept || b[0] != 105*time.Second {
		t.Errorf("burstNodeBoots(od) = %v, want the group's %d boots", b, nodeBootsKept)
	}
	if b := burstNodeBoots(hc, []string{"spot", "none"}); !slices.Equal(b, []time.Duration{time.Hour}) {
		t.Errorf("burstNodeBoots(spot) = %v, want [1h0m0s]", b)
	}
}
