package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestBurstScheduleLab: a BurstPolicy whose metric needs one replica gets
// a window read in Asia/Kolkata (UTC+05:30). Before the window (less the
// adaptive forecast horizon) the primary Deployment keeps 1 replica; once
// the injected clock reaches it, the runtime writes the window's floor, 3,
// and names the schedule in its decision; after the window and the
// scale-down stabilisation, it returns to 1.
func TestBurstScheduleLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	prom, err := metrics.NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"])
	if err != nil {
		t.Fatal(err)
	}
	pool := fmt.Sprintf("bp-s-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	ns := bl.namespace(t, ctx, "burst-s")
	bl.deploy(t, ctx, ns, pool, 1)
	clk := clocktesting.NewFakeClock(time.Now())
	bl.startManager(t, ctx, clk, func(o *controller.BurstOptions) { o.Metrics = prom })

	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	at := clk.Now().In(loc).Add(3 * time.Minute)
	p := bl.policy(ns, time.Second, hcav1.ClusterName(bl.burst))
	// A load of 1 against a target of 100 per replica: one replica.
	p.Spec.Metrics = []hcav1.MetricSpec{{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "vector(1)", TargetValue: resource.MustParse("100"), TargetType: hcav1.PromQLAverageValue}}}
	p.Spec.Algorithm = hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive}
	p.Spec.Schedules = []hcav1.ScheduleWindow{{Name: "rush", Start: fmt.Sprintf("%d %d * * *", at.Minute(), at.Hour()),
		Duration: metav1.Duration{Duration: 10 * time.Minute}, TimeZone: "Asia/Kolkata", MinReplicas: 3}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	nudge := func(n int) {
		patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{"test/nudge":"%d"}}}`, n))
		if err := bl.control.Patch(ctx, &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	wctx, wcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "a decision from the metric: 1 replica", func() (bool, string) {
		p := bl.getPolicy(t, ctx, ns)
		d := p.Status.LastDecision
		return d != nil && d.Desired == 1 && bl.state(ctx, ns).primary == 1, fmt.Sprintf("decision %+v", d)
	})
	if d := bl.getPolicy(t, ctx, ns).Status.LastDecision; strings.Contains(d.Reason, "schedule") {
		t.Fatalf("before the window the decision names a schedule: %+v", d)
	}

	// 3 min later: the window opens (its 30 s lead already passed).
	clk.Step(3 * time.Minute)
	nudge(1)
	burstEventually(t, wctx, "the window's floor of 3 on the primary", func() (bool, string) {
		s := bl.state(ctx, ns)
		d := bl.getPolicy(t, ctx, ns).Status.LastDecision
		return s.primary == 3 && d != nil && strings.Contains(d.Reason, "schedule rush keeps at least 3 replicas"), fmt.Sprintf("%s decision %+v", s, d)
	})

	// After the window and the 5 min scale-down stabilisation.
	clk.Step(16 * time.Minute)
	nudge(2)
	burstEventually(t, wctx, "back to the metric's 1 replica", func() (bool, string) {
		s := bl.state(ctx, ns)
		return s.primary == 1, s.String()
	})
}
