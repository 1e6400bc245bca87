package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	consul "github.com/hashicorp/consul/api"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// failoverCluster is what the test reads of one burst cluster.
type failoverCluster struct {
	copyReplicas int32 // -1: no copy
	configMaps   int
	namespace    bool
	passing      int // Consul instances of the service on its node, passing
	critical     int // and critical
}

func (c failoverCluster) String() string {
	return fmt.Sprintf("copy=%d configMaps=%d namespace=%v consul(passing=%d critical=%d)", c.copyReplicas, c.configMaps, c.namespace, c.passing, c.critical)
}

// readFailoverCluster reads the policy's objects in a burst cluster through
// member (nil: the cluster is down, only Consul is read).
func (bl *burstLab) readFailoverCluster(ctx context.Context, member client.Client, cluster, ns string) (failoverCluster, error) {
	c := failoverCluster{copyReplicas: -1}
	if member != nil {
		var copies appsv1.DeploymentList
		if err := member.List(ctx, &copies, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"}); err != nil {
			return c, err
		}
		if len(copies.Items) > 1 {
			return c, fmt.Errorf("%d copies in %s", len(copies.Items), cluster)
		}
		for _, d := range copies.Items {
			c.copyReplicas = ptr.Deref(d.Spec.Replicas, 1)
		}
		var cms corev1.ConfigMapList
		if err := member.List(ctx, &cms, client.InNamespace(ns), client.MatchingLabels{controller.BurstPolicyLabel: "web"}); err != nil {
			return c, err
		}
		c.configMaps = len(cms.Items)
		var nsObj corev1.Namespace
		err := member.Get(ctx, types.NamespacedName{Name: ns}, &nsObj)
		if err != nil && !apierrors.IsNotFound(err) {
			return c, err
		}
		c.namespace = err == nil && nsObj.DeletionTimestamp == nil
	}
	node, _, err := bl.consul.Catalog().Node(catalog.NodeName(cluster), nil)
	if err != nil || node == nil {
		return c, err
	}
	checks, _, err := bl.consul.Health().Node(catalog.NodeName(cluster), nil)
	if err != nil {
		return c, err
	}
	status := map[string]string{}
	for _, ch := range checks {
		status[ch.ServiceID] = ch.Status
	}
	for id, svc := range node.Services {
		if svc.Service != ns {
			continue
		}
		switch status[id] {
		case consul.HealthPassing:
			c.passing++
		case consul.HealthCritical:
			c.critical++
		}
	}
	return c, nil
}

// failoverFault makes a burst cluster unreachable to the runtime
// (inject) and reachable again (restore).
type failoverFault struct {
	what string // "the apiserver stopped", for messages
	// clusterUp: the test's own client still reaches the cluster.
	clusterUp bool
	inject    func(t *testing.T, ctx context.Context, bl *burstLab, cluster string)
	restore   func(t *testing.T, ctx context.Context, bl *burstLab, cluster string)
}

// TestBurstFailoverLab stops the kube-apiserver of the burst cluster that
// holds a policy's burst replicas (the preferred of two targets), mid-burst:
// after failoverAfter its replicas are placed again in the other target, its
// Consul instances turn critical, and the operator gets a Degraded condition,
// a FailedOver Event and hca_burst_failovers_total. When the apiserver is
// back, its stale copy and the objects HCA made there are removed, and the
// total is still 6.
func TestBurstFailoverLab(t *testing.T) {
	testFailover(t, failoverFault{
		what: "its apiserver stopped",
		inject: func(t *testing.T, ctx context.Context, bl *burstLab, cluster string) {
			// SIGTERM: it stops listening at once, then takes a few seconds to exit.
			if err := bl.clusters.StopAPIServer(ctx, cluster); err != nil {
				t.Fatal(err)
			}
		},
		restore: func(t *testing.T, ctx context.Context, bl *burstLab, cluster string) {
			if err := bl.clusters.StartAPIServer(ctx, cluster); err != nil {
				t.Fatal(err)
			}
		},
	})
}

// TestBurstFailoverCredentialsRevokedLab is TestBurstFailoverLab with the
// preferred cluster's credentials revoked (its kubeconfig Secret rewritten
// with a token the apiserver does not know) for longer than failoverAfter:
// the cluster is up and holds the stale copy, but the runtime cannot reach
// it. When the good kubeconfig is put back, the stale copy is removed.
func TestBurstFailoverCredentialsRevokedLab(t *testing.T) {
	var good []byte
	secret := func(cluster string) types.NamespacedName {
		return types.NamespacedName{Namespace: "default", Name: "hc-" + cluster} // bl.register's
	}
	setKubeconfig := func(t *testing.T, ctx context.Context, bl *burstLab, cluster string, kubeconfig []byte) {
		var sec corev1.Secret
		if err := bl.control.Get(ctx, secret(cluster), &sec); err != nil {
			t.Fatal(err)
		}
		if good == nil {
			good = sec.Data["kubeconfig"]
		}
		sec.Data["kubeconfig"] = kubeconfig
		if err := bl.control.Update(ctx, &sec); err != nil {
			t.Fatal(err)
		}
	}
	testFailover(t, failoverFault{
		what:      "its credentials revoked",
		clusterUp: true,
		inject: func(t *testing.T, ctx context.Context, bl *burstLab, cluster string) {
			var sec corev1.Secret
			if err := bl.control.Get(ctx, secret(cluster), &sec); err != nil {
				t.Fatal(err)
			}
			setKubeconfig(t, ctx, bl, cluster, labtest.RevokedKubeconfig(t, sec.Data["kubeconfig"]))
		},
		restore: func(t *testing.T, ctx context.Context, bl *burstLab, cluster string) {
			setKubeconfig(t, ctx, bl, cluster, good)
		},
	})
}

// testFailover bursts into the preferred of two targets, injects fault
// there, checks the failover to the other target, restores, and checks the
// stale copy is cleaned with the total unchanged.
func testFailover(t *testing.T, fault failoverFault) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)

	down := fmt.Sprintf("down-%d", bl.id)
	downClient := bl.extraCluster(t, ctx, down, 2, 3*time.Second) // preferred over bl.burst (priority 1)

	pool := fmt.Sprintf("bp-fo-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	if err := bl.clusters.SetNodePool(ctx, down, lab.NodePool{Name: pool, Count: 1, CPU: "32", Memory: "16Gi",
		Taints: []lab.Taint{{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}}}); err != nil {
		t.Fatal(err)
	}
	ns := bl.namespace(t, ctx, "burst-fo")
	bl.deploy(t, ctx, ns, pool, 6)
	tm := telemetry.New(prometheus.NewRegistry())
	bl.startManager(t, ctx, clock.RealClock{}, func(o *controller.BurstOptions) { o.Telemetry = tm })
	const grace = 10 * time.Second
	p := bl.policy(ns, time.Second, hcav1.ClusterName(down), hcav1.ClusterName(bl.burst))
	p.Spec.FailoverAfter = &metav1.Duration{Duration: grace}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}

	primary := func() int32 {
		var d appsv1.Deployment
		if err := bl.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
			return -1
		}
		return ptr.Deref(d.Spec.Replicas, 1)
	}
	wctx, wcancel := context.WithTimeout(ctx, 90*time.Second)
	defer wcancel()
	burstEventually(t, wctx, "the overflow bursts into the preferred cluster "+down, func() (bool, string) {
		d, err := bl.readFailoverCluster(ctx, downClient, down, ns)
		o, err2 := bl.readFailoverCluster(ctx, bl.member, bl.burst, ns)
		return err == nil && err2 == nil && primary() == 4 && d.copyReplicas == 2 && d.passing == 2 && d.configMaps == 1 && o.copyReplicas == -1,
			fmt.Sprintf("primary=%d %s: %s (%v); %s: %s (%v)", primary(), down, d, err, bl.burst, o, err2)
	})

	// The fault, in the preferred cluster.
	stopped := time.Now()
	fault.inject(t, ctx, bl, down)
	t.Logf("%s: %s in %v", down, fault.what, time.Since(stopped).Round(100*time.Millisecond))
	bl.policyObserved(t, ctx, ns) // a round notices (in production the prober's status update wakes it)

	fctx, fcancel := context.WithTimeout(ctx, grace+90*time.Second)
	defer fcancel()
	burstEventually(t, fctx, "the replicas of "+down+" are placed again in "+bl.burst+" and its Consul instances are critical", func() (bool, string) {
		d, err := bl.readFailoverCluster(ctx, nil, down, ns)
		o, err2 := bl.readFailoverCluster(ctx, bl.member, bl.burst, ns)
		got := bl.getPolicy(t, ctx, ns)
		var fo *hcav1.ClusterReplicas
		for i := range got.Status.Replicas {
			if string(got.Status.Replicas[i].Cluster) == down {
				fo = &got.Status.Replicas[i]
			}
		}
		deg := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionDegraded)
		ok := err == nil && err2 == nil && primary() == 4 && o.copyReplicas == 2 && o.passing == 2 &&
			d.passing == 0 && d.critical == 2 && fo != nil && fo.Desired == 0 && fo.FailedOverAt != nil &&
			deg != nil && deg.Status == metav1.ConditionTrue && deg.Reason == controller.BurstReasonFailedOver
		return ok, fmt.Sprintf("primary=%d %s: %s (%v); %s: %s (%v); status %+v; degraded %+v", primary(), down, d, err, bl.burst, o, err2, got.Status.Replicas, deg)
	})
	t.Logf("replicas re-placed %v after %s (failoverAfter %v)", time.Since(stopped).Round(time.Second), fault.what, grace)
	notes := bl.eventNotes(t, ctx, ns)
	if want := fmt.Sprintf("burst cluster %s unreachable since", down); !strings.Contains(notes, "Warning FailedOver: "+want) || !strings.Contains(notes, "2 replicas written off") {
		t.Errorf("no Warning FailedOver event naming %s and 2 replicas; events:\n%s", down, notes)
	}
	if got := testutil.ToFloat64(tm.Failovers.WithLabelValues(ns+"/web", down)); got != 1 {
		t.Errorf("hca_burst_failovers_total{policy=%q,cluster=%q} = %v, want 1", ns+"/web", down, got)
	}

	// The cluster comes back: the stale copy goes, nothing of the policy is
	// left there, the total stays 6 (4 in the primary, 2 in bl.burst).
	if fault.clusterUp {
		// The stale copy is still there, out of the runtime's reach.
		if d, err := bl.readFailoverCluster(ctx, downClient, down, ns); err != nil || d.copyReplicas != 2 {
			t.Fatalf("before the restore %s holds %s (%v), want its stale copy of 2 replicas", down, d, err)
		}
	}
	restarted := time.Now()
	fault.restore(t, ctx, bl, down)
	t.Logf("%s: restored in %v", down, time.Since(restarted).Round(100*time.Millisecond))
	rctx, rcancel := context.WithTimeout(ctx, 90*time.Second)
	defer rcancel()
	burstEventually(t, rctx, "the stale copy in "+down+" is removed and the total is 6", func() (bool, string) {
		d, err := bl.readFailoverCluster(ctx, downClient, down, ns)
		o, err2 := bl.readFailoverCluster(ctx, bl.member, bl.burst, ns)
		got := bl.getPolicy(t, ctx, ns)
		var statusTotal int32
		var marked bool
		for _, c := range got.Status.Replicas {
			statusTotal += c.Desired
			marked = marked || c.FailedOverAt != nil || c.UnreachableSince != nil
		}
		ok := err == nil && err2 == nil && d.copyReplicas == -1 && d.configMaps == 0 && !d.namespace && d.passing+d.critical == 0 &&
			primary() == 4 && o.copyReplicas == 2 && o.passing == 2 && statusTotal == 6 && !marked
		return ok, fmt.Sprintf("primary=%d %s: %s (%v); %s: %s (%v); status %+v", primary(), down, d, err, bl.burst, o, err2, got.Status.Replicas)
	})
	t.Logf("stale copy removed and %s cleaned %v after the restore began", down, time.Since(restarted).Round(time.Second))
	if c := meta.FindStatusCondition(bl.getPolicy(t, ctx, ns).Status.Conditions, hcav1.ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Degraded condition %+v after the cluster is back, want False", c)
	}
	if notes := bl.eventNotes(t, ctx, ns); !strings.Contains(notes, "stale replicas removed from "+down) {
		t.Errorf("no event about the stale replicas removed from %s; events:\n%s", down, notes)
	}
}
