package controller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

func TestBurstHistoryQuery(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	req := scaling.PodRequests{CPUMilli: 250, MemoryBytes: 512 << 20}
	cpu := hcav1.MetricSpec{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: hcav1.ResourceCPU, TargetAverageUtilization: 70}}
	mem := hcav1.MetricSpec{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: hcav1.ResourceMemory, TargetAverageUtilization: 70}}
	avg := hcav1.MetricSpec{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: `sum(rate(http_requests_total{app="web"}[1m]))`, TargetType: hcav1.PromQLAverageValue}}
	val := hcav1.MetricSpec{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "x", TargetType: hcav1.PromQLValue}}
	sel := `{namespace="shop", pod=~"web-[a-z0-9]+-[a-z0-9]+", container!="", container!="POD"}`
	tests := []struct {
		name       string
		m          hcav1.MetricSpec
		req        scaling.PodRequests
		wantQuery  string
		wantFactor float64
		wantOK     bool
	}{
		// 0.25 cores per pod: a core of usage is 400 % of one pod's request.
		{"cpu", cpu, req, `sum(rate(container_cpu_usage_seconds_total` + sel + `[1m]))`, 400, true},
		{"memory", mem, req, `sum(container_memory_working_set_bytes` + sel + `)`, 100.0 / (512 << 20), true},
		{"cpu without a request", cpu, scaling.PodRequests{MemoryBytes: 1}, "", 0, false},
		{"PromQL AverageValue: the query", avg, req, avg.PromQL.Query, 1, true},
		{"PromQL Value: the past replica count is unknown", val, req, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, factor, ok := burstHistoryQuery(d, tt.m, tt.req)
			if ok != tt.wantOK || factor != tt.wantFactor {
				t.Fatalf("factor %v ok %v, want %v %v", factor, ok, tt.wantFactor, tt.wantOK)
			}
			if !ok {
				return
			}
			s, err := q.PromQL()
			if err != nil || s != tt.wantQuery {
				t.Fatalf("query %q (%v), want %q", s, err, tt.wantQuery)
			}
		})
	}
}

// TestBurstWarmLab: a runtime that starts while the load ramps up reads
// the ramp back from the lab's Prometheus (query_range) and forecasts it
// at its first decision, where a cold algorithm can only repeat the last
// value.
func TestBurstWarmLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := fmt.Sprintf("hcat_warm_%06d_load", rand.IntN(1e6))
	start := time.Now()
	// The load: 10 per second since start, a ramp.
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: "A ramp."}, func() float64 { return 10 * time.Since(start).Seconds() }))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	job := name
	if err := lab.WriteScrapeTarget(env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], job, ln.Addr().String(), map[string]string{"job": job}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(filepath.Join(env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], job+".json")) })
	prom, err := metrics.NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"])
	if err != nil {
		t.Fatal(err)
	}
	// Wait for 12 s of 1 s scrapes.
	for {
		v, err := prom.Instant(ctx, metrics.Raw(fmt.Sprintf("count_over_time(%s[20s])", name)), time.Time{})
		if err == nil && len(v) == 1 && v[0].Value >= 12 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("waiting for samples of %s: %v %v", name, v, err)
		}
		time.Sleep(500 * time.Millisecond)
	}

	cfg := scaling.DefaultAdaptiveConfig()
	cfg.Step, cfg.TrendWindow, cfg.Horizon, cfg.Backtest, cfg.SeasonalPeriod = time.Second, 8*time.Second, 5*time.Second, 2*time.Second, 0
	newAlg := func() *scaling.Adaptive {
		a, err := scaling.NewAdaptive(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	warmAlg, coldAlg := newAlg(), newAlg()
	p := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: hcav1.BurstPolicySpec{
		Metrics: []hcav1.MetricSpec{{Type: hcav1.MetricPromQL, PromQL: &hcav1.PromQLMetric{Query: "sum(" + name + ")", TargetValue: resource.MustParse("10"), TargetType: hcav1.PromQLAverageValue}}}}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{}}}
	totals := newBurstTotals(prom, 0)
	now := time.Now()
	if n := totals.warm(ctx, &burstAlgoState{alg: warmAlg}, p, d, now); n != 1 {
		t.Fatalf("warmed %d metrics, want 1", n)
	}
	load, err := metrics.Scalar(ctx, prom, metrics.Raw("sum("+name+")"), now)
	if err != nil {
		t.Fatal(err)
	}
	in := scaling.Input{Now: now, Current: 1, Min: 1, Max: 1000, Target: 10, External: &load}
	warmAlg.Decide(in)
	coldAlg.Decide(in)
	wf, cf := warmAlg.LastForecast(), coldAlg.LastForecast()
	// The ramp adds 10 a second: 5 s ahead is about 50 more.
	if wf.Model != "trend" || wf.Load < load+30 {
		t.Errorf("warmed forecast %+v at load %.0f, want a trend about 50 above", wf, load)
	}
	if cf.Model != "naive" || cf.Load != load {
		t.Errorf("cold forecast %+v, want the naive last value %.0f", cf, load)
	}
	t.Logf("load %.1f: warmed forecast %.1f (%s), cold %.1f (%s)", load, wf.Load, wf.Model, cf.Load, cf.Model)

	// A source without query_range leaves the algorithm cold.
	instantOnly := struct{ metrics.Source }{prom}
	if n := newBurstTotals(instantOnly, 0).warm(ctx, &burstAlgoState{alg: newAlg()}, p, d, now); n != 0 {
		t.Errorf("an Instant-only source warmed %d metrics, want 0", n)
	}
}
