package controller_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// TestCapacityServerErrorsLab: the EKS API answers 503 ServiceUnavailable to
// every call about the burst cluster (the SDK's retries included) while 2
// burst replicas need a node. The capacity controller survives it: the node
// group's reason is CloudUnavailable with one Event (not one per round),
// hca_cloud_api_errors_total counts the code, nothing is ordered; once the
// API answers again the group grows to one node (never two: no duplicate
// order) and the replicas run there.
func TestCapacityServerErrorsLab(t *testing.T) {
	e := newEKSLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	name, pool := fmt.Sprintf("cap5xx-%d", bl.id), fmt.Sprintf("cap5xx-%d", bl.id)
	e.createCluster(t, ctx, name, pool, true, eksGroup{name: "burst", boot: "2s"})
	// Before the cluster's cleanup: the fault ends before the group and the
	// cluster are deleted.
	t.Cleanup(func() { labPost(t, e.base, "/lab/v1/server-errors", emulator.ServerErrorConfig{Cluster: name}) })

	hc := bl.eksBurstCluster(name, pool, 3, 5)
	bl.create(t, ctx, hc)
	bl.privatePool(t, ctx, pool)
	ns := bl.namespace(t, ctx, "cap5xx")
	bl.logEventsOnFailure(t, ns, name)
	bl.deployOnTestPool(t, ctx, ns, pool, 6)

	// The runtime's cloud client counts its calls as hca-runtime's does
	// (telemetry.AWSAPIOptions); the test reads the group with its own.
	metrics := telemetry.New(prometheus.NewRegistry())
	rtCloud := *e.cloud
	rtCloud.Config = e.cloud.Config.Copy()
	rtCloud.Config.APIOptions = append(rtCloud.Config.APIOptions, metrics.AWSAPIOptions()...)
	members, _ := bl.startCapacity(t, ctx, member.Clouds{AWS: &rtCloud}, true)
	// Connected before the fault: the member's client is kept.
	m, err := members.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}

	status := func() hcav1.NodeGroupStatus {
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil || len(got.Status.NodeGroups) != 1 {
			return hcav1.NodeGroupStatus{Reason: "?"}
		}
		return got.Status.NodeGroups[0]
	}
	events := func(reason string) int { return bl.clusterEvents(t, ctx, name, reason) }
	unavailable := func() float64 {
		return testutil.ToFloat64(metrics.CloudErrors.WithLabelValues("EKS", "DescribeNodegroup", "ServiceUnavailableException"))
	}
	var maxDesired int32
	desired := func() int32 {
		st, err := e.cloud.DescribeNodegroup(ctx, name, eksRegion, "burst")
		if err != nil {
			return -1
		}
		maxDesired = max(maxDesired, st.Desired)
		return st.Desired
	}
	state := func() string {
		r, p, _ := podCounts(ctx, m.Client, ns)
		return fmt.Sprintf("burst pods running %d, pending %d; status %+v; 503 errors counted %v", r, p, status(), unavailable())
	}
	step := func(what string, timeout time.Duration, cond func() bool) {
		t.Helper()
		sctx, scancel := context.WithTimeout(ctx, timeout)
		defer scancel()
		burstEventually(t, sctx, what, func() (bool, string) { return cond(), state() })
	}

	labPost(t, e.base, "/lab/v1/server-errors", emulator.ServerErrorConfig{Status: http.StatusServiceUnavailable, Cluster: name})
	bl.capacityPolicy(t, ctx, ns, nil, hcav1.ClusterName(name))
	step("reason CloudUnavailable and its Event", time.Minute, func() bool {
		st := status()
		return st.Reason == "CloudUnavailable" && strings.Contains(st.Message, "ServiceUnavailableException") && events("CloudUnavailable") > 0
	})
	// Some more rounds (0.5 s apart) of the fault: errors counted each
	// round, still one Event.
	counted := unavailable()
	step("3 more failed rounds", time.Minute, func() bool { return unavailable() >= counted+3 })
	if n := events("CloudUnavailable"); n != 1 {
		t.Errorf("%d CloudUnavailable Events over the rounds of one fault, want 1", n)
	}
	if n := events("NodesRequested"); n != 0 {
		t.Errorf("%d NodesRequested Events while every call fails, want 0", n)
	}

	labPost(t, e.base, "/lab/v1/server-errors", emulator.ServerErrorConfig{Cluster: name})
	step("the group grows once EKS answers: 2 replicas run on 1 node", 2*time.Minute, func() bool {
		r, _, _ := podCounts(ctx, m.Client, ns)
		return r == 2 && desired() == 1 && status().Reason == ""
	})
	for range 6 { // a few more rounds
		desired()
		time.Sleep(500 * time.Millisecond)
	}
	if maxDesired != 1 {
		t.Errorf("the group was asked for up to %d nodes, want 1 (no duplicate order)", maxDesired)
	}
	if n := events("NodesRequested"); n != 1 {
		t.Errorf("%d NodesRequested Events, want 1", n)
	}
	t.Logf("503 answers counted in hca_cloud_api_errors_total (DescribeNodegroup): %v", unavailable())
}
