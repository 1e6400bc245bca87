package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestBurstScaleBackByPriceLab: a policy bursts 6 replicas into three burst
// clusters at three prices (2 each, maxReplicas 2); the load falls to the
// baseline in two steps. The replicas leave the most expensive cluster
// first and the cheapest last, and the cheapest never loses one while a
// dearer cluster still runs one (issue 14's "load dropped to baseline"
// fault: scale-back order and time).
func TestBurstScaleBackByPriceLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)

	// bl.burst is the cheapest; the dearer two are preferred by priority,
	// so they fill first and scale-back order is not placement order.
	mid, dear := fmt.Sprintf("mid-%d", bl.id), fmt.Sprintf("dear-%d", bl.id)
	clients := map[string]client.Client{bl.burst: bl.member}
	clients[mid] = bl.extraCluster(t, ctx, mid, 2, 0)
	clients[dear] = bl.extraCluster(t, ctx, dear, 3, 0)
	for name, price := range map[string]string{bl.burst: "0.0200", mid: "0.0400", dear: "0.0800"} {
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var hc hcav1.HybridCluster
			if err := bl.control.Get(ctx, types.NamespacedName{Name: name}, &hc); err != nil {
				return err
			}
			hc.Spec.Prices = &hcav1.ClusterPrices{PerVCPUHour: hcav1.Price(price), PerGiBHour: "0.0010"}
			return bl.control.Update(ctx, &hc)
		}); err != nil {
			t.Fatalf("price %s: %v", name, err)
		}
	}

	pool := fmt.Sprintf("bp-sb-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	for _, c := range []string{mid, dear} {
		if err := bl.clusters.SetNodePool(ctx, c, lab.NodePool{Name: pool, Count: 1, CPU: "32", Memory: "16Gi",
			Taints: []lab.Taint{{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}}}); err != nil {
			t.Fatal(err)
		}
	}
	ns := bl.namespace(t, ctx, "burst-sb")
	bl.deploy(t, ctx, ns, pool, 10)
	bl.startManager(t, ctx, clock.RealClock{})
	p := bl.policy(ns, time.Second, hcav1.ClusterName(dear), hcav1.ClusterName(mid), hcav1.ClusterName(bl.burst))
	for i := range p.Spec.BurstTargets {
		p.Spec.BurstTargets[i].MaxReplicas = ptr.To[int32](2)
	}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}

	copyReplicas := func(cluster string) int32 {
		var deps appsv1.DeploymentList
		if err := clients[cluster].List(ctx, &deps, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"}); err != nil {
			return -2
		}
		for _, d := range deps.Items {
			if d.DeletionTimestamp == nil {
				return ptr.Deref(d.Spec.Replicas, 1)
			}
		}
		return 0
	}
	primary := func() int32 {
		var d appsv1.Deployment
		if err := bl.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
			return -1
		}
		return ptr.Deref(d.Spec.Replicas, 1)
	}
	type dist struct{ primary, dear, mid, cheap int32 }
	read := func() dist { return dist{primary(), copyReplicas(dear), copyReplicas(mid), copyReplicas(bl.burst)} }

	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "6 replicas burst, 2 into each cluster", func() (bool, string) {
		d := read()
		return d == dist{4, 2, 2, 2}, fmt.Sprintf("%+v", d)
	})

	// The load falls to the baseline in two steps: 10 -> 6, then 6 -> 4, the
	// total asked for on the Deployment (controller.BurstRequestedTotalAnnotation:
	// spec.replicas holds the primary's share, 4 already, so writing 4 there
	// would not be a change the runtime can see).
	scale := func(n int32) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var d appsv1.Deployment
			if err := bl.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
				return err
			}
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			d.Annotations[controller.BurstRequestedTotalAnnotation] = fmt.Sprint(n)
			return bl.control.Update(ctx, &d)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		total int32
		want  dist
	}{
		{6, dist{4, 0, 0, 2}}, // the dearer two go first, the cheapest keeps its 2
		{4, dist{4, 0, 0, 0}}, // then the cheapest
	} {
		start := time.Now()
		scale(step.total)
		sctx, scancel := context.WithTimeout(ctx, 90*time.Second)
		burstEventually(t, sctx, fmt.Sprintf("total %d: replicas scaled back to %+v", step.total, step.want), func() (bool, string) {
			d := read()
			// Order: a cheaper cluster never runs fewer than it should
			// while a dearer one still runs more than it should.
			if d.cheap >= 0 && d.mid >= 0 && d.cheap < step.want.cheap && (d.dear > step.want.dear || d.mid > step.want.mid) {
				t.Fatalf("total %d: the cheapest cluster lost replicas before the dearer ones: %+v", step.total, d)
			}
			return d == step.want, fmt.Sprintf("%+v", d)
		})
		scancel()
		t.Logf("total %d: scaled back to %+v in %v", step.total, step.want, time.Since(start).Round(100*time.Millisecond))
	}
}
