package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// TestCapacityPlacementSkipsLab: two EKS burst targets, the preferred one
// (priority 10) with a node group of at most 1 node, the other (priority 5)
// of at most 3. 6 one-CPU burst replicas need 2 four-CPU nodes: the
// preferred target grows to its maximum (MaxReached) and placement, seeing
// that it can take no more, puts the rest on the other target, which grows
// for them; no replica is left Pending.
//
// Found by this test: when the policy burst before the targets were probed,
// status.free unset counted as unlimited and all 6 went to the preferred
// target, 2 staying Pending there (placement places the deficit only and
// never moves replicas already placed). An unprobed target with node groups
// now offers what its groups can hold (TestBurstPlacementTarget); this test
// waits for the probes, as in a running install.
func TestCapacityPlacementSkipsLab(t *testing.T) {
	e := newEKSLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	pool := fmt.Sprintf("capp-%d", bl.id)

	small := bl.eksTarget(t, ctx, e, fmt.Sprintf("capp-a-%d", bl.id), pool, 0, 1, 10)
	big := bl.eksTarget(t, ctx, e, fmt.Sprintf("capp-b-%d", bl.id), pool, 0, 3, 5)

	bl.privatePool(t, ctx, pool)
	ns := bl.namespace(t, ctx, "capplace")
	bl.deployOnTestPool(t, ctx, ns, pool, 10)

	members, _ := bl.startCapacity(t, ctx, member.Clouds{AWS: e.cloud}, true)

	// As in a running install, the targets are probed (free capacity) and
	// their groups read (status.nodeGroups) before the burst.
	pctx, pcancel := context.WithTimeout(ctx, time.Minute)
	defer pcancel()
	burstEventually(t, pctx, "both targets probed and their groups read", func() (bool, string) {
		var a, b hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(small), &a)
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(big), &b)
		return a.Status.Free != nil && b.Status.Free != nil && len(a.Status.NodeGroups) == 1 && len(b.Status.NodeGroups) == 1,
			fmt.Sprintf("free %v / %v, groups %+v / %+v", a.Status.Free, b.Status.Free, a.Status.NodeGroups, b.Status.NodeGroups)
	})
	bl.capacityPolicy(t, ctx, ns, &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: time.Minute}}, hcav1.ClusterName(small.Name), hcav1.ClusterName(big.Name))
	count := func(hc *hcav1.HybridCluster) (running, pending int, reason string) {
		m, err := members.Get(ctx, hc.Name)
		if err != nil {
			return -1, -1, err.Error()
		}
		running, pending, err = podCounts(ctx, m.Client, ns)
		if err != nil {
			return -1, -1, err.Error()
		}
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err == nil && len(got.Status.NodeGroups) == 1 {
			reason = got.Status.NodeGroups[0].Reason
		}
		return running, pending, reason
	}
	wctx, wcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "4 replicas on the preferred target's one node, 2 on the other, none Pending", func() (bool, string) {
		ra, pa, why := count(small)
		rb, pb, _ := count(big)
		return ra == 4 && pa == 0 && why == "MaxReached" && rb == 2 && pb == 0,
			fmt.Sprintf("preferred: running %d pending %d reason %q; other: running %d pending %d", ra, pa, why, rb, pb)
	})
}

// TestCapacityPlacementRunningNodesFirstLab: two EKS burst targets, the
// preferred one (priority 10) at 0 nodes, the other (priority 5) running one
// node with room (its group's minimum). 4 one-CPU burst replicas go to the
// running node, where they start at once, and the preferred target buys no
// node: a node boot is a minute or more on EKS (75 s in the lab's default),
// and a burst exists because the load already outran the primary.
//
// Before placement knew running room from room to buy, all 4 went to the
// preferred target by priority and waited there for a node (the demo's 8
// replicas waiting 75 s on EKS while ACK's workers had room).
func TestCapacityPlacementRunningNodesFirstLab(t *testing.T) {
	e := newEKSLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	pool := fmt.Sprintf("capr-%d", bl.id)

	preferred := bl.eksTarget(t, ctx, e, fmt.Sprintf("capr-a-%d", bl.id), pool, 0, 2, 10)
	running := bl.eksTarget(t, ctx, e, fmt.Sprintf("capr-b-%d", bl.id), pool, 1, 2, 5)

	bl.privatePool(t, ctx, pool)
	ns := bl.namespace(t, ctx, "caprun")
	bl.deployOnTestPool(t, ctx, ns, pool, 8)

	members, _ := bl.startCapacity(t, ctx, member.Clouds{AWS: e.cloud}, true)

	// The other target's minimum node runs and both targets are probed
	// before the burst.
	pctx, pcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer pcancel()
	burstEventually(t, pctx, "the other target runs its node, both probed", func() (bool, string) {
		var a, b hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(preferred), &a)
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(running), &b)
		ok := a.Status.Free != nil && b.Status.Free != nil && len(a.Status.NodeGroups) == 1 && len(b.Status.NodeGroups) == 1 &&
			b.Status.NodeGroups[0].ReadyNodes == 1 && b.Status.Free.Cpu().MilliValue() >= 4000
		return ok, fmt.Sprintf("free %v / %v, groups %+v / %+v", a.Status.Free, b.Status.Free, a.Status.NodeGroups, b.Status.NodeGroups)
	})
	bl.capacityPolicy(t, ctx, ns, &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: time.Minute}}, hcav1.ClusterName(preferred.Name), hcav1.ClusterName(running.Name))
	state := func() (ra, pa, rb, pb int, nodes int32, why string) {
		count := func(hc *hcav1.HybridCluster) (int, int) {
			m, err := members.Get(ctx, hc.Name)
			if err != nil {
				return -1, -1
			}
			r, p, err := podCounts(ctx, m.Client, ns)
			if err != nil {
				return -1, -1
			}
			return r, p
		}
		ra, pa = count(preferred)
		rb, pb = count(running)
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(preferred), &got); err == nil && len(got.Status.NodeGroups) == 1 {
			nodes = got.Status.NodeGroups[0].DesiredNodes
		}
		return ra, pa, rb, pb, nodes, fmt.Sprintf("preferred: running %d pending %d nodes %d; other: running %d pending %d", ra, pa, nodes, rb, pb)
	}
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "4 replicas run on the other target's running node, the preferred target buys none", func() (bool, string) {
		ra, pa, rb, pb, nodes, why := state()
		return rb == 4 && pb == 0 && ra == 0 && pa == 0 && nodes == 0, why
	})
	// A few more rounds: nothing moves to the preferred target.
	time.Sleep(3 * time.Second)
	if ra, pa, rb, _, nodes, why := state(); ra != 0 || pa != 0 || nodes != 0 || rb != 4 {
		t.Errorf("after 3 s more: %s", why)
	}
}
