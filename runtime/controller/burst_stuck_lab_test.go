package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestBurstStuckPendingLab: the preferred burst cluster (no node groups)
// holds a policy's 2 burst replicas and loses the node they ran on; the
// ReplicaSet there starts them again and they stay Unschedulable, since that
// cluster can make no room. The runtime places them again in the other
// target and shrinks the stuck copy, so the workload is whole again (issue
// 14, "re-place replicas that stay Pending in a burst cluster"). Before, the
// 2 replicas stayed Pending there until the load fell.
func TestBurstStuckPendingLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)

	stuck := fmt.Sprintf("stuck-%d", bl.id)
	stuckClient := bl.extraCluster(t, ctx, stuck, 2, 0) // preferred over bl.burst (priority 1)

	pool := fmt.Sprintf("bp-st-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, stuck, lab.NodePool{Name: pool, Count: 1, CPU: "32", Memory: "16Gi", Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	ns := bl.namespace(t, ctx, "burst-st")
	bl.deploy(t, ctx, ns, pool, 6)
	bl.startManager(t, ctx, clock.RealClock{})
	if err := bl.control.Create(ctx, bl.policy(ns, time.Second, hcav1.ClusterName(stuck), hcav1.ClusterName(bl.burst))); err != nil {
		t.Fatal(err)
	}

	copyOf := func(c client.Client) (replicas int32, scheduled, unschedulable int, err error) {
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"}); err != nil {
			return 0, 0, 0, err
		}
		replicas = -1
		for _, d := range deps.Items {
			replicas = ptr.Deref(d.Spec.Replicas, 1)
		}
		var pods corev1.PodList
		if err := c.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"}); err != nil {
			return 0, 0, 0, err
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			if p.Spec.NodeName != "" {
				scheduled++
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					unschedulable++
				}
			}
		}
		return replicas, scheduled, unschedulable, nil
	}
	primary := func() int32 {
		var d appsv1.Deployment
		if err := bl.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
			return -1
		}
		return ptr.Deref(d.Spec.Replicas, 1)
	}
	state := func() string {
		sr, ss, su, err := copyOf(stuckClient)
		br, bs, bu, err2 := copyOf(bl.member)
		return fmt.Sprintf("primary=%d %s: copy=%d scheduled=%d unschedulable=%d (%v); %s: copy=%d scheduled=%d unschedulable=%d (%v)",
			primary(), stuck, sr, ss, su, err, bl.burst, br, bs, bu, err2)
	}

	wctx, wcancel := context.WithTimeout(ctx, 90*time.Second)
	defer wcancel()
	burstEventually(t, wctx, "the overflow bursts into the preferred cluster "+stuck, func() (bool, string) {
		sr, ss, _, err := copyOf(stuckClient)
		return err == nil && primary() == 4 && sr == 2 && ss == 2, state()
	})

	// The fault: the preferred cluster loses its node (the pool removed)
	// and the pods that ran there with it, as a node's pods go once the node
	// is gone (kube-controller-manager's pod garbage collector, after 40 s).
	if err := bl.clusters.SetNodePool(ctx, stuck, lab.NodePool{Name: pool, Count: 0}); err != nil {
		t.Fatal(err)
	}
	lost := time.Now()
	if err := stuckClient.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"},
		client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}

	rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer rcancel()
	burstEventually(t, rctx, "the 2 replicas stuck in "+stuck+" placed again in "+bl.burst, func() (bool, string) {
		sr, _, su, err := copyOf(stuckClient)
		br, bs, _, err2 := copyOf(bl.member)
		return err == nil && err2 == nil && primary() == 4 && sr <= 0 && su == 0 && br == 2 && bs == 2, state()
	})
	t.Logf("stuck replicas placed again %v after the node was lost (pendingThreshold 1 s)", time.Since(lost).Round(time.Second))
	if notes := bl.eventNotes(t, ctx, ns); !strings.Contains(notes, "Normal PendingReplaced: ") || !strings.Contains(notes, "which cannot make room: placed again, ") {
		t.Errorf("no PendingReplaced Event placing the stuck replicas again; events:\n%s", notes)
	}
}
