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

	burstCluster := func(name string, maxNodes, priority int32) *hcav1.HybridCluster {
		t.Helper()
		e.createCluster(t, ctx, name, pool, true, eksGroup{name: "burst", boot: "2s"})
		hc := bl.eksBurstCluster(name, pool, maxNodes, priority)
		bl.create(t, ctx, hc)
		return hc
	}
	small := burstCluster(fmt.Sprintf("capp-a-%d", bl.id), 1, 10)
	big := burstCluster(fmt.Sprintf("capp-b-%d", bl.id), 3, 5)

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
