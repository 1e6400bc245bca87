package controller

import (
	"bytes"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/simulate"
	appmodel "github.com/hca-project/terraform-provider-hca/internal/workload"
)

// TestBurstStrategySameInRuntimeAndSimulator runs one SLO with a Burst
// strategy through the simulator, then feeds every output the simulation
// acted on, with the total it was measured at, to the burst controller's
// burstTotals.fromSLO as the SLO controller would (a new strategy generation
// per output): every decision must be the simulator's. Before they shared
// slo.BurstTotal, the simulator decided without windows or history and
// flapped where the runtime held.
func TestBurstStrategySameInRuntimeAndSimulator(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile("../../examples/traces/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	model, err := simulate.ParseClusterModel(read("cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	trace, err := appmodel.ParseTrace(bytesReader(read("flash-crowd.csv")))
	if err != nil {
		t.Fatal(err)
	}
	const head = "apiVersion: hca.dev/v1alpha1\nkind: ServiceLevelObjective\nmetadata: {name: web-latency}\nspec:\n  target: {name: web}\n" +
		"  slo: {type: latency, latency: {percentile: \"90\", threshold: 200ms}}\n  stabilization: {scaleUp: 0s, scaleDown: 2m}\n" +
		"  elasticityStrategy: {kind: Burst, burst: {burstPolicyName: web}}\n---\n"
	policy, err := simulate.ParseInput(append([]byte(head), read("policy.yaml")...))
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulate.Run(policy, model, trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ticks) < 10 {
		t.Fatalf("%d decisions: the case wants a run with many SLO outputs", len(res.Ticks))
	}

	totals := newBurstTotals(nil, 0)
	tol := resource.MustParse("0.1")
	up, down := metav1.Duration{}, metav1.Duration{Duration: 2 * time.Minute}
	strategy := &hcav1.BurstElasticityStrategy{ObjectMeta: metav1.ObjectMeta{Name: "web-latency", UID: "uid-1"},
		Spec: hcav1.BurstElasticityStrategySpec{BurstPolicyName: "web", Stabilization: &hcav1.StabilizationWindows{ScaleUp: &up, ScaleDown: &down}}}
	dep := &appsv1.Deployment{}
	minR, maxR := max(policy.Min, 1), max(policy.Max, max(policy.Min, 1))
	held, reversals, last := 0, 0, 0
	for i, tick := range res.Ticks {
		strategy.Generation = int64(i + 1)
		strategy.Spec.SLOOutput = hcav1.SLOOutput{CompliancePercent: tick.Compliance, Tolerance: &tol}
		now := simulate.Epoch.Add(time.Duration(tick.Second) * time.Second)
		out, applied := totals.fromSLO("shop/web/web", strategy, dep, tick.Current, minR, maxR, now)
		if applied == "" || out.source != burstTotalFromAlgorithm {
			t.Fatalf("second %d: the runtime did not decide: %+v", tick.Second, out)
		}
		if out.total != tick.Desired {
			t.Fatalf("second %d, compliance %d%% at %d replicas: runtime decides %d, simulator %d (%s)", tick.Second, tick.Compliance, tick.Current, out.total, tick.Desired, tick.Reason)
		}
		dir := 0
		switch {
		case tick.Desired > tick.Current:
			dir = 1
		case tick.Desired < tick.Current:
			dir = -1
		case tick.Compliance > 110 || tick.Compliance < 90:
			held++
		}
		if dir != 0 && last != 0 && dir != last {
			reversals++
		}
		if dir != 0 {
			last = dir
		}
	}
	t.Logf("%d decisions, %d held by the window, %d direction reversals", len(res.Ticks), held, reversals)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
