package controller

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/loadbench"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
)

// timingRT records each query's duration, by kind: merged (a regex
// alternation of batch values) or single.
type timingRT struct {
	mu             sync.Mutex
	merged, single []time.Duration
}

func (t *timingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := http.DefaultTransport.RoundTrip(r)
	d := time.Since(start)
	q := r.URL.Query().Get("query")
	if q == "" && r.Body != nil && r.GetBody != nil {
		if b, gerr := r.GetBody(); gerr == nil {
			var sb strings.Builder
			_, _ = bufio.NewReader(b).WriteTo(&sb)
			if v, perr := url.ParseQuery(sb.String()); perr == nil {
				q = v.Get("query")
			}
		}
	}
	t.mu.Lock()
	if strings.Contains(q, "|") {
		t.merged = append(t.merged, d)
	} else {
		t.single = append(t.single, d)
	}
	t.mu.Unlock()
	return resp, err
}

func (t *timingRT) take() (merged, single []time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	merged, single, t.merged, t.single = t.merged, t.single, nil, nil
	return merged, single
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// promCPU returns Prometheus' own process_cpu_seconds_total.
func promCPU(tb testing.TB, base string) float64 {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "process_cpu_seconds_total" {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	tb.Fatal("prometheus exposes no process_cpu_seconds_total")
	return 0
}

// BenchmarkSLOEvaluatePlatformLab is one SLO cycle of make bench-load's
// platform against the lab Prometheus alone (no API server, no runtime
// process, no policies): loadbench's exporter serves its series for
// HCA_BENCH_NAMESPACES namespaces (default 5,000, one pod each, about 12
// series a pod) scraped every 10 s, and the evaluator plans and reads the
// platform's SLOs (two per namespace, loadbench's mix) in one batch at
// HCA_BENCH_CONCURRENCY queries in flight (default the Prometheus source's).
// One op is one cycle. Reported: wall time, HTTP requests per cycle, the
// merged and single queries' median and p99 durations, and Prometheus' own
// CPU per cycle.
func BenchmarkSLOEvaluatePlatformLab(b *testing.B) {
	env := labtest.Require(b, "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR")
	n := 5000
	if v := os.Getenv("HCA_BENCH_NAMESPACES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("HCA_BENCH_NAMESPACES=%q: %v", v, err)
		}
	}
	opts := []metrics.Option{}
	if v := os.Getenv("HCA_BENCH_CONCURRENCY"); v != "" {
		c, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("HCA_BENCH_CONCURRENCY=%q: %v", v, err)
		}
		opts = append(opts, metrics.WithConcurrency(c))
	}
	class := fmt.Sprintf("plat%d", n)
	exp := loadbench.NewExporter(time.Now)
	exp.SetPods(loadbench.PlatformPods(class, n))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: exp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	dir, base := env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], env["HCA_LAB_PROMETHEUS_URL"]
	if err := lab.WriteScrapeTarget(dir, "bench-"+class, ln.Addr().String(), map[string]string{
		"job": "loadbench", "__scrape_interval__": "10s", "__scrape_timeout__": "8s"}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.Remove(dir + "/bench-" + class + ".json") })

	rt := &timingRT{}
	prom, err := metrics.NewPrometheus(base, append(opts, metrics.WithRoundTripper(rt))...)
	if err != nil {
		b.Fatal(err)
	}
	slos := loadbench.PlatformSLOs(class, n, 0)
	// Cost-efficiency SLOs read their Deployment's requests from the
	// runtime's cache; an in-memory client stands for it (the API server is
	// not what is measured).
	objs := make([]client.Object, 0, n)
	for _, s := range slos {
		if s.Spec.SLO.Type == hcav1.SLOCostEfficiency {
			objs = append(objs, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: string(s.Spec.Target.Name)},
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}}}}}}}})
		}
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	if err := hcav1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	e := newSLOEvaluator(prom, reader, clock.RealClock{}, SLOQueries{Window: time.Minute}, nil)
	ctx := context.Background()
	// Wait for every SLO to read data: the 1m rate windows need two scrapes.
	for deadline := time.Now().Add(3 * time.Minute); ; {
		ok, firstErr := 0, ""
		for i, r := range e.evaluateBatch(ctx, slos) {
			if r.err == nil {
				ok++
			} else if firstErr == "" {
				firstErr = fmt.Sprintf("%s (%s): %v", slos[i].Name, slos[i].Spec.SLO.Type, r.err)
			}
		}
		rt.take()
		if ok == len(slos) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d SLOs read data after 3 minutes; first error: %s", ok, len(slos), firstErr)
		}
		time.Sleep(5 * time.Second)
	}
	b.Run("slo-cycle", func(b *testing.B) {
		cpu0 := promCPU(b, base)
		var merged, single []time.Duration
		errs, ops := 0, 0
		for b.Loop() {
			for _, r := range e.evaluateBatch(ctx, slos) {
				if r.err != nil {
					errs++
				}
			}
			m, s := rt.take()
			merged, single = append(merged, m...), append(single, s...)
			ops++
		}
		reportPlatform(b, base, cpu0, ops, merged, single)
		if errs > 0 {
			b.Fatalf("%d SLO evaluations failed", errs)
		}
	})
	// A policy round's CPU query (burstTotals.metricInput) for 1,000
	// namespaces' Deployments, 8 at a time: pods selected by the name
	// pattern of the Deployment's pods (burstPodFilter without pods, as
	// before), or by their names (burstPodFilter with the listed pods).
	pods := loadbench.PlatformPods(class, n)
	for _, sel := range []string{"pattern", "names"} {
		b.Run("policy-round-"+sel, func(b *testing.B) {
			qs := make([]metrics.Query, 0, 1000)
			for i := range min(n, 1000) {
				ns := fmt.Sprintf("%s-%05d", class, i)
				var listed []corev1.Pod
				if sel == "names" {
					for _, name := range pods[ns] {
						listed = append(listed, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
					}
				}
				qs = append(qs, metrics.Query{Metric: "container_cpu_usage_seconds_total", Func: metrics.Rate, Range: time.Minute,
					Filters:     []metrics.LabelFilter{metrics.Eq("namespace", ns), burstPodFilter("web", listed), metrics.Ne("container", ""), metrics.Ne("container", "POD")},
					Aggregation: metrics.Sum, By: []string{"pod"}})
			}
			cpu0 := promCPU(b, base)
			var errs atomic.Int64
			ops := 0
			var single []time.Duration
			for b.Loop() {
				work := make(chan metrics.Query)
				var wg sync.WaitGroup
				for range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for q := range work {
							if v, err := prom.Instant(ctx, q, time.Time{}); err != nil || len(v) != 1 {
								errs.Add(1)
							}
						}
					}()
				}
				for _, q := range qs {
					work <- q
				}
				close(work)
				wg.Wait()
				_, s := rt.take()
				single = append(single, s...)
				ops++
			}
			reportPlatform(b, base, cpu0, ops, nil, single)
			if errs.Load() > 0 {
				b.Fatalf("%d policy queries failed or did not return the pod", errs.Load())
			}
		})
	}
}

func reportPlatform(b *testing.B, base string, cpu0 float64, ops int, merged, single []time.Duration) {
	b.StopTimer()
	b.ReportMetric((promCPU(b, base)-cpu0)/float64(ops), "prom-cpu-s/op")
	b.ReportMetric(float64(len(merged)+len(single))/float64(ops), "http/op")
	if len(merged) > 0 {
		b.ReportMetric(float64(len(merged))/float64(ops), "merged/op")
		b.ReportMetric(float64(quantile(merged, 0.5).Milliseconds()), "merged-p50-ms")
		b.ReportMetric(float64(quantile(merged, 0.99).Milliseconds()), "merged-p99-ms")
	}
	b.ReportMetric(float64(quantile(single, 0.5).Microseconds())/1000, "single-p50-ms")
	b.ReportMetric(float64(quantile(single, 0.99).Microseconds())/1000, "single-p99-ms")
}
