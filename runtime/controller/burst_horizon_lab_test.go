package controller_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestBurstDerivedHorizonLab: a policy without forecastHorizon forecasts as
// far ahead as its replicas take to become ready. Its pods start in 35 s
// (kwok's pod-ready delay): before any is Ready the horizon is the default
// (15 s metric age + 10 s start-up, 30 s in whole steps); once they are,
// it is the metric age plus the start-up measured on them (creation to
// Ready), and when the burst target gets a node group, the replicas that
// wait for a node are forecast a node boot (the default, no boot observed)
// and a capacity round further.
func TestBurstDerivedHorizonLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	src := labPrometheus(t)
	pool := fmt.Sprintf("bp-h-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	ns := bl.namespace(t, ctx, "burst-h")
	bl.deploy(t, ctx, ns, pool, 2, func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{"pod-ready.stage.kwok.x-k8s.io/delay": "35s"}
	})
	bl.startManager(t, ctx, clock.RealClock{}, func(o *controller.BurstOptions) {
		// Every evaluation's message is written: the horizon changes
		// only its figures.
		o.Metrics, o.MetricsInterval, o.StatusHeartbeat = src, 500*time.Millisecond, time.Millisecond
	})
	p := bl.policy(ns, 0, hcav1.ClusterName(bl.burst))
	// 200 requests/s at 100 per replica: the 2 replicas there are.
	p.Spec.Metrics = []hcav1.MetricSpec{{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "vector(200)", TargetValue: resource.MustParse("100")}}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	message := func() string { return bl.metricsMessage(t, ctx, ns) }
	burstEventually(t, ctx, "the default horizon while no pod is Ready", func() (bool, string) {
		m := message()
		return strings.Contains(m, "forecast horizon 30s (derived: metric age 15s + pod start-up 10s default)"), m
	})

	// The start-up the pods took, as the controller measures it.
	var startups []time.Duration
	burstEventually(t, ctx, "both pods Ready", func() (bool, string) {
		var pods corev1.PodList
		if err := bl.control.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		startups = startups[:0]
		for _, pod := range pods.Items {
			for _, c := range pod.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					startups = append(startups, c.LastTransitionTime.Sub(pod.CreationTimestamp.Time))
				}
			}
		}
		return len(startups) == 2, fmt.Sprintf("%d Ready of %d", len(startups), len(pods.Items))
	})
	startup := slices.Max(startups) // the 90th percentile of two
	if startup < 35*time.Second {
		t.Fatalf("pods Ready after %v, want the 35 s kwok delay", startups)
	}
	step := 15 * time.Second
	pods := (15*time.Second + startup + step - 1) / step * step
	want := fmt.Sprintf("forecast horizon %v (derived: metric age 15s + pod start-up %v measured, p90 of 2 pods)", pods, startup)
	// The controller reads the pods' Ready times within a few rounds.
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	burstEventually(t, wctx, "the horizon includes the measured start-up", func() (bool, string) {
		m := message()
		return strings.Contains(m, want) && !strings.Contains(m, "wait for a node"), fmt.Sprintf("%q, want %q", m, want)
	})

	// The burst target gets a node group: replicas beyond the room wait
	// for a node to boot.
	bl.burstNodeGroup(t, ctx, 3)
	nodes := (15*time.Second + startup + 75*time.Second + 10*time.Second + step - 1) / step * step
	want = fmt.Sprintf("; %v for replicas that wait for a node (+ node boot 1m15s default + capacity round 10s)", nodes)
	wctx, wcancel = context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	burstEventually(t, wctx, "the node horizon adds the node boot", func() (bool, string) {
		m := message()
		return strings.Contains(m, want), fmt.Sprintf("%q, want %q", m, want)
	})
}

// TestBurstRoomLab: a decision the room changes. The load ramps (20 more
// requests/s every second, from Prometheus: history read back at the start)
// and the burst target has a node group, so the replicas that would wait for
// a node are forecast a node boot further (2 min here) than the others
// (30 s). While the target's probed free capacity holds the forecast, no
// replica waits for a node and the count follows the 30 s forecast only;
// once its room is unknown (no probe: a group at 0 nodes), the count is
// raised to what the load needs 2 min ahead ("beyond the room").
func TestBurstRoomLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	src := labPrometheus(t)
	pool := fmt.Sprintf("bp-r-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	ns := bl.namespace(t, ctx, "burst-r")
	bl.deploy(t, ctx, ns, pool, 2)

	// The burst target: a node group (never grown: no capacity controller
	// runs) and, first, the probe's free capacity: room for 200 replicas.
	bl.burstNodeGroup(t, ctx, 20)
	setFree := func(free corev1.ResourceList) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var hc hcav1.HybridCluster
			if err := bl.control.Get(ctx, client.ObjectKey{Name: bl.burst}, &hc); err != nil {
				return err
			}
			hc.Status.Free = free // what the prober would write
			return bl.control.Status().Update(ctx, &hc)
		}); err != nil {
			t.Fatal(err)
		}
	}
	setFree(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200"), corev1.ResourceMemory: resource.MustParse("800Gi")})
	t.Cleanup(func() {
		var hc hcav1.HybridCluster
		if err := bl.control.Get(context.Background(), client.ObjectKey{Name: bl.burst}, &hc); err == nil {
			hc.Spec.NodeGroups = nil
			_ = bl.control.Update(context.Background(), &hc)
		}
	})

	bl.startManager(t, ctx, clock.RealClock{}, func(o *controller.BurstOptions) {
		o.Metrics, o.MetricsInterval, o.StatusHeartbeat = src, 500*time.Millisecond, time.Millisecond
	})
	// 3,000 requests/s now (30 replicas at 100 each), 20 more every second:
	// 600 more in 30 s (6 replicas), 2,400 more in 2 minutes (24).
	t0 := time.Now().Unix()
	p := bl.policy(ns, 0, hcav1.ClusterName(bl.burst))
	p.Spec.MaxReplicas = 200
	p.Spec.Metrics = []hcav1.MetricSpec{{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{
		Query: fmt.Sprintf("clamp_min(vector(3000 + 20 * (time() - %d)), 0)", t0), TargetValue: resource.MustParse("100")}}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	message := func() string { return bl.metricsMessage(t, ctx, ns) }
	total := func() int32 {
		var d appsv1.Deployment
		if err := bl.control.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &d); err != nil {
			return -1
		}
		n, err := strconv.Atoi(d.Annotations[controller.BurstTotalAnnotation])
		if err != nil {
			return -1
		}
		return int32(n)
	}
	const beyond = "(beyond the room: nodes must boot)"
	// The first wait has its own budget: a policy's first decisions took
	// minutes on a busy CI machine (TestBurstPolicyLab), seconds here.
	wctx, wcancel := context.WithTimeout(ctx, 4*time.Minute)
	defer wcancel()
	var before int32
	need := regexp.MustCompile(`: need ([0-9]+)`)
	burstEventually(t, wctx, "with room for the forecast, the count follows the load and its 30 s forecast", func() (bool, string) {
		m := message()
		before = total()
		sm := need.FindStringSubmatch(m)
		if sm == nil {
			return false, fmt.Sprintf("total %d: %q", before, m)
		}
		n, _ := strconv.Atoi(sm[1])
		// The load's need, or about 6 more for its 30 s forecast: not
		// the 24 more of the load 2 min ahead.
		return before >= 30 && before <= int32(n)+12 && strings.Contains(m, "for replicas that wait for a node") && !strings.Contains(m, beyond),
			fmt.Sprintf("total %d, the load needs %d: %q", before, n, m)
	})
	// And so it stays, evaluation after evaluation (the forecast is made
	// at each one; the first ones may lack the history it needs).
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		m := message()
		sm := need.FindStringSubmatch(m)
		got := total()
		if sm == nil || strings.Contains(m, beyond) {
			t.Fatalf("with room for the forecast: total %d: %q", got, m)
		}
		if n, _ := strconv.Atoi(sm[1]); got > int32(n)+12 {
			t.Fatalf("with room for the forecast: total %d, the load needs %d: %q", got, n, m)
		}
		before = got
	}

	// No probe any more: nothing is known to run there, every added
	// replica waits for a node.
	setFree(nil)
	wctx, wcancel = context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	needs := regexp.MustCompile(`forecast [0-9.]+ in [0-9hms.]+ needs ([0-9]+) \(beyond the room`)
	burstEventually(t, wctx, "without room, the count is raised to the load a node boot ahead", func() (bool, string) {
		m := message()
		got := total()
		sm := needs.FindStringSubmatch(m)
		if sm == nil {
			return false, fmt.Sprintf("total %d: %q", got, m)
		}
		n, _ := strconv.Atoi(sm[1])
		// 2,400 requests/s more in 2 min: about 24 replicas above the
		// load's need, 18 above the count with room.
		return got == int32(n) && got >= before+12, fmt.Sprintf("total %d (before %d), the message needs %d: %q", got, before, n, m)
	})
	t.Logf("with room: %d replicas; without: %d (%s)", before, total(), message())
}

// labPrometheus is a metric source on the lab's Prometheus (the test is
// skipped without a lab).
func labPrometheus(t *testing.T) *metrics.Prometheus {
	t.Helper()
	src, err := metrics.NewPrometheus(labtest.Require(t, "HCA_LAB_PROMETHEUS_URL")["HCA_LAB_PROMETHEUS_URL"])
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// metricsMessage is the message of the MetricsAvailable condition of the
// policy in ns ("" none yet).
func (bl *burstLab) metricsMessage(t *testing.T, ctx context.Context, ns string) string {
	c := meta.FindStatusCondition(bl.getPolicy(t, ctx, ns).Status.Conditions, hcav1.ConditionMetricsAvailable)
	if c == nil {
		return ""
	}
	return c.Message
}

// burstNodeGroup gives bl.burst an ACK node group of up to maxNodes 4-CPU
// nodes (no capacity controller runs in these tests: it never grows).
func (bl *burstLab) burstNodeGroup(t *testing.T, ctx context.Context, maxNodes int32) {
	t.Helper()
	var hc hcav1.HybridCluster
	if err := bl.control.Get(ctx, client.ObjectKey{Name: bl.burst}, &hc); err != nil {
		t.Fatal(err)
	}
	hc.Spec.NodeGroups = []hcav1.NodeGroup{{Name: "burst", ACK: &hcav1.ACKNodePoolRef{ClusterID: "c0", Region: "cn-hangzhou", NodePoolID: "np0"},
		InstanceType: "ecs.g7.xlarge", PricePerHour: "0.2", MinNodes: 0, MaxNodes: maxNodes,
		Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}}}
	if err := bl.control.Update(ctx, &hc); err != nil {
		t.Fatal(err)
	}
}
