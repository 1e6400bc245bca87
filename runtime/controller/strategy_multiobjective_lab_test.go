package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// mohaQueries are the default queries with 15 s windows (the test's rounds
// are 3 s apart, the default's 1 min windows would lag its load step).
var mohaQueries = func() *hcav1.MultiObjectiveMetrics {
	q := controller.DefaultMultiObjectiveQueries
	for i := range q {
		q[i] = strings.ReplaceAll(q[i], "[1m]", "[15s]")
	}
	return &hcav1.MultiObjectiveMetrics{RequestsPerSecond: q[0], ResponseTimeMillis: q[1], CPUUsagePercent: q[2], MemoryUsagePercent: q[3]}
}()

// mohaModelJSON trains the SVR model on the synthetic dataset of the paper's
// grid (what `hca-runtime moha collect` and `moha train` write).
func mohaModelJSON(t *testing.T) string {
	t.Helper()
	samples, err := moha.Synthesize(moha.DefaultApp, moha.PaperGrid(), 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, _ := moha.Split(samples, 1)
	m, err := moha.Train(moha.KindSVR, train, moha.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// mohaOLSJSON is a least-squares model (trained in milliseconds).
func mohaOLSJSON(t *testing.T) string {
	t.Helper()
	samples, err := moha.Synthesize(moha.DefaultApp, moha.PaperGrid(), 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := moha.Train(moha.KindOLS, samples, moha.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// mohaDeployment creates a Deployment of 1 pod of 300m/400Mi (limits =
// requests) on the test's node pool.
func (l *sloLab) mohaDeployment(t *testing.T, ctx context.Context, ns, name string) {
	labels := map[string]string{"app.kubernetes.io/name": name}
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m"), corev1.ResourceMemory: resource.MustParse("400Mi")}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"hca.dev/node-pool": l.pool},
					Tolerations:  []corev1.Toleration{{Key: "hca.dev/test", Operator: corev1.TolerationOpEqual, Value: l.taint, Effect: corev1.TaintEffectNoSchedule}},
					Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
						Resources: corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()}}},
				},
			},
		},
	}
	if err := l.c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
}

// mohaLoad offers rps to ns/name with the synthetic service's CPU cost and
// memory model (moha.DefaultApp), so the lab measures what the model learned.
func (l *sloLab) mohaLoad(t *testing.T, ns, name string, rps float64) {
	t.Helper()
	a := moha.DefaultApp
	url := fmt.Sprintf("%s/v1/apps/%s/%s", l.loadsi, ns, name)
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
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
}

// startMOHAManager runs only the MultiObjective strategy controller, seeing ns.
func (l *sloLab) startMOHAManager(t *testing.T, ctx context.Context, ns string, src metrics.Source) *telemetry.Metrics {
	mgr, err := ctrl.NewManager(l.cfg, ctrl.Options{
		Scheme: testScheme(t), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	tm := telemetry.New(prometheus.NewRegistry())
	r := &controller.MultiObjectiveStrategyReconciler{Client: mgr.GetClient(), Source: src, Recorder: mgr.GetEventRecorder("hca-runtime-test"), Telemetry: tm, Class: sloClass}
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
	return tm
}

// mohaUsage are the lab tests' desired usages (the paper's 80 %).
var mohaUsage = hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: 80, MemoryUsagePercent: 80}

// mohaStatic is the lab tests' static configuration: the paper's ranges,
// rounds every 3 s, a 30 s cooldown and the 15 s query windows.
func mohaStatic(configMap string) hcav1.MultiObjectiveStaticConfig {
	return hcav1.MultiObjectiveStaticConfig{
		Model: hcav1.MultiObjectiveModelRef{ConfigMapName: hcav1.ObjectName(configMap), Key: "model.json"},
		Ranges: hcav1.MultiObjectiveRanges{MinCPU: resource.MustParse("300m"), MaxCPU: resource.MustParse("500m"),
			MinMemory: resource.MustParse("400Mi"), MaxMemory: resource.MustParse("600Mi"), MinReplicas: 1, MaxReplicas: 10},
		WeightPreset:     hcav1.WeightsBalanced,
		TolerancePercent: 10,
		Interval:         &metav1.Duration{Duration: 3 * time.Second},
		Cooldown:         &metav1.Duration{Duration: 30 * time.Second},
		Metrics:          mohaQueries,
	}
}

// decisionsTotal sums hca_decisions_total of one policy, algorithm and
// direction over its reasons.
func decisionsTotal(t *testing.T, tm *telemetry.Metrics, policy, algorithm, direction string) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 64)
	go func() { tm.Decisions.Collect(ch); close(ch) }()
	sum := 0.0
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range d.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["policy"] == policy && labels["algorithm"] == algorithm && labels["direction"] == direction {
			sum += d.GetCounter().GetValue()
		}
	}
	return sum
}

func mohaStrategy(ns, name, target, configMap string) *hcav1.MultiObjectiveElasticityStrategy {
	return &hcav1.MultiObjectiveElasticityStrategy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{controller.ClassLabel: sloClass}},
		Spec: hcav1.MultiObjectiveElasticityStrategySpec{
			Target:                     hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: hcav1.ObjectName(target)},
			Desired:                    hcav1.MultiObjectiveDesired{ResponseTimeMillis: 100, MultiObjectiveDesiredUsage: mohaUsage},
			MultiObjectiveStaticConfig: mohaStatic(configMap),
		},
	}
}

func getMOHA(t *testing.T, l *sloLab, ns, name string) *hcav1.MultiObjectiveElasticityStrategy {
	t.Helper()
	var s hcav1.MultiObjectiveElasticityStrategy
	if err := l.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func describeMOHA(s *hcav1.MultiObjectiveElasticityStrategy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "measured=%v replicas=%d cpu=%v memory=%v", s.Status.Measured, s.Status.Replicas, s.Status.CPU, s.Status.Memory)
	for _, c := range s.Status.Conditions {
		fmt.Fprintf(&b, " %s=%s(%s: %s)", c.Type, c.Status, c.Reason, c.Message)
	}
	return b.String()
}

// podConfig is a Deployment's replicas and its first container's limits.
func podConfig(d *appsv1.Deployment) string {
	c := d.Spec.Template.Spec.Containers[0]
	return fmt.Sprintf("%d x %s/%s", *d.Spec.Replicas, c.Resources.Limits.Cpu(), c.Resources.Limits.Memory())
}

func measured(s *hcav1.MultiObjectiveElasticityStrategy, key string) float64 {
	v, err := strconv.ParseFloat(s.Status.Measured[key], 64)
	if err != nil {
		return -1
	}
	return v
}

// TestMultiObjectiveLab: the MultiObjective strategy acting on a real
// Deployment in the lab, measured through Prometheus scraping loadsim (with
// the memory model), deciding with an SVR model from a ConfigMap.
//
// 60 req/s on 1 pod of 300m/400Mi: 47 % CPU, 78 % memory, 15 ms; every
// variation clamps to the ranges' minimum, the current configuration, so
// nothing changes. At 200 req/s the pod saturates (its working set, 450 MiB,
// exceeds its limit: GC pressure nearly halves its capacity); the strategy
// must change replicas and pod resources in one patch and bring the average
// response time back under 100 ms.
func TestMultiObjectiveLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	l := newSLOLab(t, ctx)
	prom, err := metrics.NewPrometheus(l.prom, metrics.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ns := l.namespace(t, ctx, "moha")
	tm := l.startMOHAManager(t, ctx, ns, prom)

	t.Run("missing model: degraded, nothing applied", func(t *testing.T) {
		l.mohaDeployment(t, ctx, ns, "nomodel")
		if err := l.c.Create(ctx, mohaStrategy(ns, "nomodel", "nomodel", "absent")); err != nil {
			t.Fatal(err)
		}
		sloEventually(t, 30*time.Second, "Degraded ModelInvalid", func() (bool, string) {
			s := getMOHA(t, l, ns, "nomodel")
			c := meta.FindStatusCondition(s.Status.Conditions, hcav1.ConditionDegraded)
			return c != nil && c.Status == metav1.ConditionTrue && c.Reason == "ModelInvalid" &&
				strings.Contains(c.Message, "ConfigMap "+ns+"/absent of spec.model not found"), describeMOHA(s)
		})
		if _, d := sloReplicas(t, l.c, ns, "nomodel"); podConfig(d) != "1 x 300m/400Mi" || d.Generation != 1 {
			t.Errorf("Deployment changed to %s (generation %d) without a model", podConfig(d), d.Generation)
		}
	})

	t.Run("broken query: degraded, nothing applied", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ols-model"}, Data: map[string]string{"model.json": mohaOLSJSON(t)}}
		if err := l.c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		l.mohaDeployment(t, ctx, ns, "badquery")
		s := mohaStrategy(ns, "badquery", "badquery", "ols-model")
		m := *mohaQueries
		m.RequestsPerSecond = `sum(rate(http_requests_total[`
		s.Spec.Metrics = &m
		if err := l.c.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		sloEventually(t, 30*time.Second, "Degraded MetricsUnavailable", func() (bool, string) {
			s := getMOHA(t, l, ns, "badquery")
			c := meta.FindStatusCondition(s.Status.Conditions, hcav1.ConditionDegraded)
			return c != nil && c.Status == metav1.ConditionTrue && c.Reason == "MetricsUnavailable" &&
				strings.Contains(c.Message, "spec.metrics.requestsPerSecond: "), describeMOHA(s)
		})
		if _, d := sloReplicas(t, l.c, ns, "badquery"); podConfig(d) != "1 x 300m/400Mi" || d.Generation != 1 {
			t.Errorf("Deployment changed to %s (generation %d) without metrics", podConfig(d), d.Generation)
		}
	})

	t.Run("load step changes replicas and resources together", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-model"}, Data: map[string]string{"model.json": mohaModelJSON(t)}}
		if err := l.c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		l.mohaDeployment(t, ctx, ns, "web")
		l.mohaLoad(t, ns, "web", 60)
		if err := l.c.Create(ctx, mohaStrategy(ns, "web", "web", "web-model")); err != nil {
			t.Fatal(err)
		}
		// Three rounds at 60 req/s measured (the 15 s windows filled).
		var rounds []time.Time
		sloEventually(t, 90*time.Second, "three decisions at 60 req/s", func() (bool, string) {
			s := getMOHA(t, l, ns, "web")
			c := meta.FindStatusCondition(s.Status.Conditions, hcav1.ConditionReady)
			if c == nil || c.Status != metav1.ConditionTrue || s.Status.LastDecisionTime == nil {
				return false, describeMOHA(s)
			}
			if rps := measured(s, "requestsPerSecond"); rps < 55 || rps > 65 {
				return false, describeMOHA(s)
			}
			if len(rounds) == 0 || !s.Status.LastDecisionTime.Time.Equal(rounds[len(rounds)-1]) {
				rounds = append(rounds, s.Status.LastDecisionTime.Time)
			}
			return len(rounds) >= 3, describeMOHA(s)
		})
		if _, d := sloReplicas(t, l.c, ns, "web"); podConfig(d) != "1 x 300m/400Mi" || d.Generation != 1 {
			t.Fatalf("at 60 req/s the Deployment changed to %s (generation %d); want 1 x 300m/400Mi: %s", podConfig(d), d.Generation, describeMOHA(getMOHA(t, l, ns, "web")))
		}

		l.mohaLoad(t, ns, "web", 200)
		var first *appsv1.Deployment
		sloEventually(t, 90*time.Second, "the first change after the load step", func() (bool, string) {
			_, d := sloReplicas(t, l.c, ns, "web")
			first = d
			return d.Generation > 1, podConfig(d) + "; " + describeMOHA(getMOHA(t, l, ns, "web"))
		})
		c := first.Spec.Template.Spec.Containers[0]
		if *first.Spec.Replicas < 2 || (c.Resources.Limits.Cpu().Cmp(resource.MustParse("300m")) == 0 && c.Resources.Limits.Memory().Cmp(resource.MustParse("400Mi")) == 0) {
			t.Errorf("first change %s: want more replicas and other pod resources in one patch", podConfig(first))
		}
		if !c.Resources.Requests.Cpu().Equal(*c.Resources.Limits.Cpu()) || !c.Resources.Requests.Memory().Equal(*c.Resources.Limits.Memory()) {
			t.Errorf("requests %v differ from limits %v", c.Resources.Requests, c.Resources.Limits)
		}
		s := getMOHA(t, l, ns, "web")
		if s.Status.Chosen == nil || len(s.Status.Candidates) < 2 || s.Status.Chosen.Replicas != *first.Spec.Replicas {
			t.Errorf("status does not show the applied choice and its candidates: chosen %+v, %d candidates, Deployment %s", s.Status.Chosen, len(s.Status.Candidates), podConfig(first))
		}
		t.Logf("first change: %s (chosen from %s, closeness %s)", podConfig(first), s.Status.Chosen.From, s.Status.Chosen.Closeness)

		// The response-time target is met again at the full load, and the
		// loop settles: a round outside the cooldown keeps the
		// configuration (every configuration applied is logged).
		applied := []string{podConfig(first)}
		sloEventually(t, 4*time.Minute, "200 req/s served within 100 ms, the configuration kept outside the cooldown", func() (bool, string) {
			s := getMOHA(t, l, ns, "web")
			_, d := sloReplicas(t, l.c, ns, "web")
			if c := podConfig(d); c != applied[len(applied)-1] {
				applied = append(applied, c)
			}
			rps, rt := measured(s, "requestsPerSecond"), measured(s, "responseTimeMillis")
			ready := meta.FindStatusCondition(s.Status.Conditions, hcav1.ConditionReady)
			kept := ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == s.Generation && slices.Contains(
				[]string{string(moha.ReasonWithinTargets), string(moha.ReasonBestIsCurrent), string(moha.ReasonNoIncreaseNeeded), string(moha.ReasonSmallGain), string(moha.ReasonOverLimit)}, ready.Reason)
			return rps > 190 && rt >= 0 && rt <= 100 && kept, podConfig(d) + "; " + describeMOHA(s)
		})
		_, d := sloReplicas(t, l.c, ns, "web")
		s = getMOHA(t, l, ns, "web")
		t.Logf("settled: %s (applied %s); %s", podConfig(d), strings.Join(applied, " -> "), describeMOHA(s))
		// Sane: the CPU limits in all are at most 3 times what the load
		// needs at the desired 80 % (200 req/s × 2m = 400m, 500m at 80 %),
		// 1.5 cores. 3 × 333m/600Mi (1 core) or 2 × 500m (1 core) are;
		// 4 × 500m/600Mi at 28 % and 10 × 500m/600Mi at 8 % CPU, where
		// increase followed increase on measurements of the saturated pod
		// (moha.TestStepSettling), are not.
		c = d.Spec.Template.Spec.Containers[0]
		need := measured(s, "requestsPerSecond") * moha.DefaultApp.CPUPerRequest / (float64(mohaUsage.CPUUsagePercent) / 100)
		if total := float64(*d.Spec.Replicas) * c.Resources.Limits.Cpu().AsApproximateFloat64(); total > 3*need {
			t.Errorf("settled at %s: %.2f cores of CPU limits for a load needing %.2f at %d %% (more than 3 times; applied %s)", podConfig(d), total, need, mohaUsage.CPUUsagePercent, strings.Join(applied, " -> "))
		}
		key := ns + "/web"
		if changes := decisionsTotal(t, tm, key, "moha", "change"); changes < 1 {
			t.Errorf("hca_decisions_total{direction=change} = %v, want at least the first change", changes)
		}
		if holds := decisionsTotal(t, tm, key, "moha", "hold"); holds < 3 {
			t.Errorf("hca_decisions_total{direction=hold} = %v, want at least the 3 rounds at 60 req/s", holds)
		}
	})
}
