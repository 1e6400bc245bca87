package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// TestCapacityLab is scale from zero through the EKS emulator and the
// unmodified EKS SDK: a burst cluster whose only node group has 0 nodes
// receives 2 burst replicas; they stay Pending until the capacity controller
// grows the group to 1 node; then they run. When the load falls the replicas
// go home, the node is empty, and after the policy's scale-down delay the
// group is back to 0 nodes.
func TestCapacityLab(t *testing.T) {
	e := newEKSLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)

	const region = eksRegion
	cloud := e.cloud
	name, pool := fmt.Sprintf("cap-%d", bl.id), fmt.Sprintf("cap-%d", bl.id)
	e.createCluster(t, ctx, name, pool, true, eksGroup{name: "burst", boot: "2s"})
	desired := func() int32 {
		st, err := cloud.DescribeNodegroup(ctx, name, region, "burst")
		if err != nil {
			t.Fatal(err)
		}
		return st.Desired
	}

	// The burst cluster, registered by EKS name (the runtime mints tokens),
	// with its node group for the runtime to size.
	hc := bl.eksBurstCluster(name, pool, 3, 5)
	bl.create(t, ctx, hc)
	if len(hc.Spec.NodeGroups) != 1 {
		t.Fatalf("the API server dropped spec.nodeGroups (%+v): is the installed HybridCluster CRD older than this checkout's?", hc.Spec)
	}

	// The private pool holds 4 of the 6 one-CPU replicas; the replicas
	// select the pool by a label the node group's nodes carry too.
	bl.privatePool(t, ctx, pool)
	ns := bl.namespace(t, ctx, "capacity")
	bl.deployOnTestPool(t, ctx, ns, pool, 6)

	members, _ := bl.startCapacity(t, ctx, member.Clouds{AWS: cloud}, false)
	bl.capacityPolicy(t, ctx, ns, &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: 2 * time.Second}}, hcav1.ClusterName(name))
	m, err := members.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	burstPods := func() (running, pending int, nodes int) {
		running, pending, err := podCounts(ctx, m.Client, ns)
		if err != nil {
			return -1, -1, -1
		}
		var nl corev1.NodeList
		_ = m.Client.List(ctx, &nl, client.MatchingLabels{controller.EKSNodegroupLabel: "burst"})
		return running, pending, len(nl.Items)
	}

	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "2 replicas burst and run on a node the runtime bought", func() (bool, string) {
		r, pe, n := burstPods()
		var got hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got)
		return r == 2 && n == 1 && desired() == 1, fmt.Sprintf("running %d, pending %d, nodes %d, desired %d, node groups %+v", r, pe, n, desired(), got.Status.NodeGroups)
	})
	burstEventually(t, ctx, "the statuses show the node", func() (bool, string) {
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil {
			return false, err.Error()
		}
		pol := bl.getPolicy(t, ctx, ns)
		var nodesReady int32
		for _, c := range pol.Status.Replicas {
			if string(c.Cluster) == name {
				nodesReady = c.NodesReady
			}
		}
		ok := len(got.Status.NodeGroups) == 1 && got.Status.NodeGroups[0].ReadyNodes == 1 && got.Status.NodeGroups[0].DesiredNodes == 1 && nodesReady == 1
		// The node's boot, timed from the order to Ready (the emulator
		// boots in 2 s; Ready's transition time is kept to the second),
		// kept for the derived forecast horizon.
		ok = ok && len(got.Status.NodeGroups[0].RecentBoots) == 1 && got.Status.NodeGroups[0].RecentBoots[0].Duration >= time.Second &&
			got.Status.NodeGroups[0].RecentBoots[0].Duration < time.Minute
		return ok, fmt.Sprintf("node groups %+v, policy replicas %+v", got.Status.NodeGroups, pol.Status.Replicas)
	})

	// The load falls: 3 replicas in all, which the private pool holds. The
	// new total must differ from what the runtime last wrote to the primary
	// (4 once settled), or the scale is not a change it can see: 2 then.
	var dep appsv1.Deployment
	if err := bl.control.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &dep); err != nil {
		t.Fatal(err)
	}
	total := int32(3)
	if *dep.Spec.Replicas == total {
		total = 2
	}
	bl.scale(t, ctx, ns, total)
	burstEventually(t, ctx, "the burst replicas go home and the node is released after the 2 s delay", func() (bool, string) {
		r, pe, n := burstPods()
		pol := bl.getPolicy(t, ctx, ns)
		return r == 0 && pe == 0 && n == 0 && desired() == 0, fmt.Sprintf("running %d, pending %d, nodes %d, desired %d; policy phase %s, replicas %+v, conditions %+v",
			r, pe, n, desired(), pol.Status.Phase, pol.Status.Replicas, pol.Status.Conditions)
	})
	if got := bl.hybridClusterReasons(t, ctx, name); !strings.Contains(got, "NodesRequested") || !strings.Contains(got, "NodesReleased") {
		t.Errorf("events on the hybrid cluster: %s; want NodesRequested and NodesReleased", got)
	}
}
