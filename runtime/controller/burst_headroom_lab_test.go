package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestBurstHeadroomLab: a policy whose load needs 6 replicas of 1 CPU
// keeps 2 spare (headroomReplicas) on a primary that runs 4, with two burst
// targets: the dear one ($0.2 per vCPU-hour) first by priority, the cheap
// one ($0.0464) second. The load's 2 replicas the primary cannot run go to
// the dear target (priority placement); the 2 spare ones to the cheap one,
// and status.headroom shows them there at 2 x 1 vCPU x $0.0464 = $0.0928
// per hour. Without the headroom rule all 4 go to the dear target.
func TestBurstHeadroomLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx) // bl.burst: priority 1, $0.0464 per vCPU-hour
	prom, err := metrics.NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"])
	if err != nil {
		t.Fatal(err)
	}
	pool := fmt.Sprintf("bp-hr-%d", bl.id)
	bl.pool(t, ctx, pool, "4") // the primary runs 4 replicas, the cheap target 32
	dearName := fmt.Sprintf("dear-%d", bl.id)
	dear := bl.extraCluster(t, ctx, dearName, 10, 0)
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, dearName, lab.NodePool{Name: pool, Count: 1, CPU: "32", Memory: "16Gi", Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	var hc hcav1.HybridCluster
	if err := bl.control.Get(ctx, client.ObjectKey{Name: dearName}, &hc); err != nil {
		t.Fatal(err)
	}
	hc.Spec.Prices = &hcav1.ClusterPrices{PerVCPUHour: "0.2", PerGiBHour: "0.025"}
	if err := bl.control.Update(ctx, &hc); err != nil {
		t.Fatal(err)
	}

	ns := bl.namespace(t, ctx, "burst-hr")
	bl.deploy(t, ctx, ns, pool, 4)
	bl.startManager(t, ctx, clock.RealClock{}, func(o *controller.BurstOptions) {
		o.Metrics, o.MetricsInterval = prom, 500*time.Millisecond
	})
	p := bl.policy(ns, 0, hcav1.ClusterName(dearName), hcav1.ClusterName(bl.burst))
	p.Spec.Placement = hcav1.PlacementPriority
	// 600 requests/s at 100 per replica: 6 replicas, and 2 spare.
	p.Spec.Metrics = []hcav1.MetricSpec{{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "vector(600)", TargetValue: resource.MustParse("100"), TargetType: hcav1.PromQLAverageValue}}}
	p.Spec.Algorithm = hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive, Adaptive: &hcav1.AdaptiveAlgorithm{HeadroomReplicas: 2}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}

	copyReplicas := func(c client.Client) (int32, error) {
		var ds appsv1.DeploymentList
		if err := c.List(ctx, &ds, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"}); err != nil {
			return 0, err
		}
		var n int32
		for _, d := range ds.Items {
			n += ptr.Deref(d.Spec.Replicas, 1)
		}
		return n, nil
	}
	wantHeadroom := hcav1.HeadroomStatus{Replicas: 2, CostPerHour: "0.0928",
		Clusters: []hcav1.ClusterHeadroom{{Cluster: hcav1.ClusterName(bl.burst), Replicas: 2, CostPerHour: "0.0928"}}}
	wctx, wcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "the load's 2 burst replicas on the dear target, the 2 spare on the cheap one, their cost in the status", func() (bool, string) {
		s := bl.state(ctx, ns)
		onDear, err := copyReplicas(dear)
		if err != nil {
			return false, err.Error()
		}
		onCheap, err := copyReplicas(bl.member)
		if err != nil {
			return false, err.Error()
		}
		got := bl.getPolicy(t, ctx, ns).Status.Headroom
		ok := s.primary == 4 && onDear == 2 && onCheap == 2 && got != nil && got.Replicas == wantHeadroom.Replicas &&
			got.CostPerHour == wantHeadroom.CostPerHour && len(got.Clusters) == 1 && got.Clusters[0] == wantHeadroom.Clusters[0]
		return ok, fmt.Sprintf("primary %d, dear %d, cheap %d, status.headroom %+v, decision %q", s.primary, onDear, onCheap, got, s.decision)
	})
}
