package controller_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// mohaBurstView is one sample of the shared Deployment: the total the burst
// controller keeps (its annotation, spec.replicas before it wrote one), the
// primary's share, the copy's replicas and both templates' container limits.
type mohaBurstView struct {
	at                time.Time
	total, primary    int32
	copyReplicas      int32
	primaryRes        string // "cpu/memory" of the primary's template
	copyRes           string // of the copy's template ("" no copy)
	requestedPending  bool
	rolledOut         bool     // both Deployments' rollouts complete, every replica Ready
	copyPodsResources []string // of the copy's running pods
}

func (v mohaBurstView) String() string {
	return fmt.Sprintf("total=%d primary=%d copy=%d primary-res=%s copy-res=%s requested-pending=%v rolled-out=%v copy-pods=%v",
		v.total, v.primary, v.copyReplicas, v.primaryRes, v.copyRes, v.requestedPending, v.rolledOut, v.copyPodsResources)
}

func limitsOf(spec *corev1.PodSpec) string {
	c := spec.Containers[0]
	return c.Resources.Limits.Cpu().String() + "/" + c.Resources.Limits.Memory().String()
}

func (bl *burstLab) mohaBurstView(t *testing.T, ctx context.Context, ns string) (mohaBurstView, error) {
	v := mohaBurstView{at: time.Now()}
	var d appsv1.Deployment
	if err := bl.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
		return v, err
	}
	v.primary = ptr.Deref(d.Spec.Replicas, 1)
	v.total = v.primary
	if s, ok := d.Annotations[controller.BurstTotalAnnotation]; ok {
		n, err := strconv.Atoi(s)
		if err != nil {
			return v, err
		}
		v.total = int32(n)
	}
	_, v.requestedPending = d.Annotations[controller.BurstRequestedTotalAnnotation]
	v.primaryRes = limitsOf(&d.Spec.Template.Spec)
	done := func(d *appsv1.Deployment) bool {
		n := ptr.Deref(d.Spec.Replicas, 1)
		return d.Status.ObservedGeneration >= d.Generation && d.Status.Replicas == n && d.Status.UpdatedReplicas == n && d.Status.ReadyReplicas == n
	}
	v.rolledOut = done(&d)
	var c appsv1.Deployment
	err := bl.member.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &c)
	if err == nil && c.DeletionTimestamp == nil {
		v.copyReplicas = ptr.Deref(c.Spec.Replicas, 1)
		v.copyRes = limitsOf(&c.Spec.Template.Spec)
		v.rolledOut = v.rolledOut && done(&c)
		var pods corev1.PodList
		if err := bl.member.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return v, err
		}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				v.copyPodsResources = append(v.copyPodsResources, limitsOf(&p.Spec))
			}
		}
	}
	return v, nil
}

// putLoad offers rps to ns/name through loadsim with the synthetic service's
// CPU cost and memory model (what the model learned).
func putLoad(t *testing.T, loadsim, ns, name string, rps float64) {
	t.Helper()
	a := moha.DefaultApp
	url := fmt.Sprintf("%s/v1/apps/%s/%s", loadsim, ns, name)
	body := fmt.Sprintf(`{"rps": %v, "cpuPerRequest": %v, "memory": {"baseMiB": %v, "perRequestMiB": %v, "gcCost": %v}}`,
		rps, a.CPUPerRequest, a.Memory.BaseMiB, a.Memory.PerRequestMiB, a.Memory.GCCost)
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT %s: %v", url, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("PUT %s: %d %s", url, resp.StatusCode, b)
	}
}

// startMOHAManagerFor runs the MultiObjective strategy controller for class
// on cfg.
func startMOHAManagerFor(t *testing.T, ctx context.Context, bl *burstLab, src metrics.Source) {
	mgr, err := ctrl.NewManager(bl.cfg, ctrl.Options{
		Scheme: bl.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &controller.MultiObjectiveStrategyReconciler{Client: mgr.GetClient(), Source: src, Recorder: mgr.GetEventRecorder("hca-runtime-test"), Class: bl.class()}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { stop(); <-done })
}

// reversals counts the changes of direction in a sequence of totals
// (repeats ignored): 3 4 6 5 is one, 3 6 3 6 two.
func reversals(totals []int32) int {
	n, dir := 0, 0
	for i := 1; i < len(totals); i++ {
		d := 0
		switch {
		case totals[i] > totals[i-1]:
			d = 1
		case totals[i] < totals[i-1]:
			d = -1
		}
		if d == 0 {
			continue
		}
		if dir != 0 && d != dir {
			n++
		}
		dir = d
	}
	return n
}

// TestMultiObjectiveBurstLab: a MultiObjective strategy and a BurstPolicy
// (no metrics) on one Deployment whose private pool (900m CPU) holds three
// pods of 300m but one of 500m, a burst cluster with room, lab Prometheus and
// loadsim.
//
// At 60 req/s one pod of 300m/400Mi meets every target: nothing changes. At
// 300 req/s the strategy wants more replicas and larger pods than the pool
// holds: the overflow runs in the burst cluster, its copy (and its pods) with
// the pod resources the strategy chose, and 300 req/s are served within
// 100 ms. The strategy's view of the replicas is the policy's total, not the
// primary's share: a strategy reading spec.replicas sees fewer replicas than
// serve the load (it reported 1 of 3 when tried: the settling check fails),
// and a total swinging up and down at constant load (two controllers
// fighting) fails the reversal check. When the load falls to 60 req/s the strategy goes back
// to 300m/400Mi pods, which the private cluster holds: the replicas come back.
func TestMultiObjectiveBurstLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_LOADSIM_URL")
	bl := newBurstLab(t, ctx)
	prom, err := metrics.NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"], metrics.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	loadsim := strings.TrimRight(env["HCA_LAB_LOADSIM_URL"], "/")

	pool := fmt.Sprintf("mb-%d", bl.id)
	bl.pool(t, ctx, pool, "900m")
	ns := bl.namespace(t, ctx, "moha-burst")
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m"), corev1.ResourceMemory: resource.MustParse("400Mi")}
	bl.deploy(t, ctx, ns, pool, 1, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10"
		d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()}
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-model"}, Data: map[string]string{"model.json": mohaModelJSON(t)}}
	if err := bl.control.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	putLoad(t, loadsim, ns, "web", 60)
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, fmt.Sprintf("%s/v1/apps/%s/web", loadsim, ns), nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})

	bl.startManager(t, ctx, clock.RealClock{})
	startMOHAManagerFor(t, ctx, bl, prom)
	p := bl.policy(ns, 5*time.Second, hcav1.ClusterName(bl.burst))
	p.Spec.MaxReplicas = 10
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	s := mohaStrategy(ns, "web", "web", "web-model")
	s.Labels[controller.ClassLabel] = bl.class()
	// The test is about the composition, not the model's accuracy, so the
	// strategy is kept from the model's known weak spots: usages within 50 %
	// of 80 % hold (at 300 req/s the chosen 500m pods run at 40-70 % CPU; a
	// narrower band resizes them at constant load to 300m pods, which the SVR
	// predicts fast enough and are not: 470 ms measured), and at most 3
	// replicas (at 60 req/s it keeps every replica it has, predicting 378 ms
	// for one), which the private pool holds again once the pods are 300m.
	s.Spec.TolerancePercent = 50
	s.Spec.Ranges.MaxReplicas = 3
	if err := bl.control.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	getStrategy := func() *hcav1.MultiObjectiveElasticityStrategy {
		var got hcav1.MultiObjectiveElasticityStrategy
		if err := bl.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &got); err != nil {
			t.Fatal(err)
		}
		return &got
	}

	// The sampler records the totals (every change) for the whole test.
	var (
		mu     sync.Mutex
		phase  = "60 req/s"
		totals = map[string][]int32{}
		last   mohaBurstView
	)
	sctx, stopSampler := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for sctx.Err() == nil {
			if v, err := bl.mohaBurstView(t, sctx, ns); err == nil {
				mu.Lock()
				seq := totals[phase]
				if len(seq) == 0 || seq[len(seq)-1] != v.total {
					totals[phase] = append(seq, v.total)
				}
				last = v
				mu.Unlock()
			}
			select {
			case <-sctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	defer func() { stopSampler(); <-sampled }()
	setPhase := func(p string) {
		mu.Lock()
		defer mu.Unlock()
		phase = p
		totals[p] = []int32{last.total}
	}
	view := func() mohaBurstView {
		v, err := bl.mohaBurstView(t, ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	describe := func() string { return view().String() + "; " + describeMOHA(getStrategy()) }

	// 60 req/s: three decisions, nothing changes, nothing bursts.
	var rounds []time.Time
	sloEventually(t, 2*time.Minute, "three decisions at 60 req/s", func() (bool, string) {
		got := getStrategy()
		if rps := measured(got, "requestsPerSecond"); rps < 55 || rps > 65 || got.Status.LastDecisionTime == nil {
			return false, describe()
		}
		if len(rounds) == 0 || !got.Status.LastDecisionTime.Time.Equal(rounds[len(rounds)-1]) {
			rounds = append(rounds, got.Status.LastDecisionTime.Time)
		}
		return len(rounds) >= 3, describe()
	})
	if v := view(); v.total != 1 || v.copyReplicas != 0 || v.primaryRes != "300m/400Mi" {
		t.Fatalf("at 60 req/s: %s; want 1 x 300m/400Mi, nothing burst", v)
	}

	// 300 req/s: more than the private pool holds.
	setPhase("300 req/s")
	putLoad(t, loadsim, ns, "web", 300)
	sloEventually(t, 4*time.Minute, "the overflow runs in the burst cluster with the chosen pod resources", func() (bool, string) {
		v := view()
		return v.copyReplicas > 0 && v.copyRes == v.primaryRes && v.primaryRes != "300m/400Mi" &&
			len(v.copyPodsResources) > 0 && v.copyPodsResources[0] == v.copyRes, v.String() + "; " + describeMOHA(getStrategy())
	})
	t.Logf("bursting: %s", view())

	// Settled: the target met at the full load across both clusters, and the
	// strategy's view of the replicas is the policy's total.
	sloEventually(t, 6*time.Minute, "300 req/s served within 100 ms, the strategy seeing the total", func() (bool, string) {
		got := getStrategy()
		v := view()
		rps, rt := measured(got, "requestsPerSecond"), measured(got, "responseTimeMillis")
		return rps > 285 && rt >= 0 && rt <= 100 && got.Status.Replicas == v.total && !v.requestedPending &&
			v.total > v.primary && v.rolledOut, v.String() + "; " + describeMOHA(got)
	})
	settled := view()
	t.Logf("settled: %s; %s", settled, describeMOHA(getStrategy()))
	// Held: 30 s more at the same load (10 rounds of the strategy, the
	// burst controller acting on every Deployment change), the total stays.
	time.Sleep(30 * time.Second)
	if v := view(); v.total != settled.total {
		t.Errorf("the total moved from %d to %d at constant load after settling: %s", settled.total, v.total, v)
	}
	if got := getStrategy(); got.Status.Replicas != view().total {
		t.Errorf("the strategy sees %d replicas, the policy's total is %d", got.Status.Replicas, view().total)
	}
	if v := view(); v.copyReplicas == 0 {
		t.Fatalf("nothing bursts any more at 300 req/s: %s; %s", v, describeMOHA(getStrategy()))
	}

	// The load falls: the strategy shrinks the pods (and with this model
	// keeps 3 replicas: it predicts 378 ms for one), the private cluster holds
	// them again and the burst replicas come back.
	setPhase("60 req/s again")
	putLoad(t, loadsim, ns, "web", 60)
	sloEventually(t, 6*time.Minute, "the replicas back in the private cluster", func() (bool, string) {
		v := view()
		got := getStrategy()
		return measured(got, "requestsPerSecond") < 70 && v.copyReplicas == 0 && v.total == v.primary && !v.requestedPending, v.String() + "; " + describeMOHA(got)
	})
	t.Logf("back: %s; %s", view(), describeMOHA(getStrategy()))

	stopSampler()
	<-sampled
	mu.Lock()
	defer mu.Unlock()
	for _, ph := range []string{"60 req/s", "300 req/s", "60 req/s again"} {
		t.Logf("totals at %s: %v", ph, totals[ph])
	}
	// No fight: at 300 req/s the total rises (and may correct once), at
	// 60 req/s it falls (and may correct once); a swing up and down again is
	// two controllers disagreeing.
	if r := reversals(totals["300 req/s"]); r > 1 {
		t.Errorf("the total reversed direction %d times at constant load (300 req/s): %v", r, totals["300 req/s"])
	}
	if r := reversals(totals["60 req/s again"]); r > 1 {
		t.Errorf("the total reversed direction %d times after the load fell: %v", r, totals["60 req/s again"])
	}
	if seq := totals["60 req/s"]; len(seq) != 1 {
		t.Errorf("the total changed at 60 req/s before the step: %v", seq)
	}
}

func TestReversals(t *testing.T) {
	for _, tc := range []struct {
		in   []int32
		want int
	}{
		{nil, 0}, {[]int32{3}, 0}, {[]int32{1, 3, 4, 6}, 0}, {[]int32{3, 4, 6, 5}, 1}, {[]int32{3, 6, 3, 6}, 2}, {[]int32{6, 4, 4, 2}, 0},
	} {
		if got := reversals(tc.in); got != tc.want {
			t.Errorf("reversals(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
