package metrics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The test workloads' latency histogram: bucket bounds and the cumulative share of
// requests at or below each bound (the rest, 0 %, lies above 1 s).
var (
	testBounds = []float64{0.05, 0.1, 0.25, 0.5, 1}
	testShares = []float64{0.3, 0.6, 0.9, 0.95, 1}
)

// testP50 is histogram_quantile(0.5) of those buckets: the median falls in
// (0.05, 0.1], where the share goes from 0.3 to 0.6.
const testP50 = 0.05 + 0.05*(0.5-0.3)/(0.6-0.3)

type fakePod struct {
	name       string
	cpuRate    float64 // cores used: the rate of the CPU counter
	cpuRequest float64 // gauge
	rps        float64 // requests/s with code 200
	errRPS     float64 // requests/s with code 500
}

type fakeWorkload struct {
	namespace string
	pods      []fakePod
}

// workloadCollector exports fake pods' metrics under a unique prefix: counters grow
// linearly with the time since start, so their rates are known.
type workloadCollector struct {
	start        time.Time
	workloads    []fakeWorkload
	cpu, req     *prometheus.Desc
	requests     *prometheus.Desc
	latency      *prometheus.Desc
	nanGauge     *prometheus.Desc
	nanNamespace string
}

func newWorkloadCollector(prefix string, workloads []fakeWorkload) *workloadCollector {
	l := []string{"namespace", "pod"}
	return &workloadCollector{
		start:     time.Now(),
		workloads: workloads,
		cpu:       prometheus.NewDesc(prefix+"_cpu_seconds_total", "Fake CPU time.", l, nil),
		req:       prometheus.NewDesc(prefix+"_cpu_request_cores", "Fake CPU request.", l, nil),
		requests:  prometheus.NewDesc(prefix+"_requests_total", "Fake requests.", append(l, "code"), nil),
		latency:   prometheus.NewDesc(prefix+"_latency_seconds", "Fake latency.", l, nil),
		nanGauge:  prometheus.NewDesc(prefix+"_ratio", "A gauge that is NaN for one pod.", l, nil),
	}
}

func (c *workloadCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.cpu, c.req, c.requests, c.latency, c.nanGauge} {
		ch <- d
	}
}

func (c *workloadCollector) Collect(ch chan<- prometheus.Metric) {
	secs := time.Since(c.start).Seconds()
	for _, w := range c.workloads {
		for i, p := range w.pods {
			ch <- prometheus.MustNewConstMetric(c.cpu, prometheus.CounterValue, p.cpuRate*secs, w.namespace, p.name)
			ch <- prometheus.MustNewConstMetric(c.req, prometheus.GaugeValue, p.cpuRequest, w.namespace, p.name)
			ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, p.rps*secs, w.namespace, p.name, "200")
			ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, p.errRPS*secs, w.namespace, p.name, "500")
			total := (p.rps + p.errRPS) * secs
			buckets := make(map[float64]uint64, len(testBounds))
			for j, b := range testBounds {
				buckets[b] = uint64(total * testShares[j])
			}
			ch <- prometheus.MustNewConstHistogram(c.latency, uint64(total), total*0.1, buckets, w.namespace, p.name)
			ratio := 0.5
			if i == 1 && w.namespace == c.nanNamespace {
				ratio = math.NaN()
			}
			ch <- prometheus.MustNewConstMetric(c.nanGauge, prometheus.GaugeValue, ratio, w.namespace, p.name)
		}
	}
}

func randHex(t testing.TB) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// exporter is our metrics endpoint on loopback, registered with the lab's Prometheus
// through a file_sd file.
type exporter struct {
	job  string
	file string
	srv  *http.Server
	once sync.Once
}

// serveExporter serves c on 127.0.0.1 and registers it as a scrape target of the lab
// Prometheus under a unique job; it is deregistered when the test ends (or on stop).
func serveExporter(t testing.TB, targetsDir, job string, c prometheus.Collector) *exporter {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	e := &exporter{job: job, srv: &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}}
	go func() { _ = e.srv.Serve(ln) }()
	body, err := json.Marshal([]map[string]any{{"targets": []string{ln.Addr().String()}, "labels": map[string]string{"job": job}}})
	if err != nil {
		t.Fatal(err)
	}
	e.file = filepath.Join(targetsDir, job+".json")
	tmp := filepath.Join(targetsDir, "."+job+".tmp") // not *.json: Prometheus never reads a half-written file
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		t.Fatalf("write scrape target: %v", err)
	}
	if err := os.Rename(tmp, e.file); err != nil {
		t.Fatalf("register scrape target: %v", err)
	}
	t.Cleanup(e.stop)
	return e
}

// stop deregisters the target and closes the endpoint.
func (e *exporter) stop() {
	e.once.Do(func() {
		_ = os.Remove(e.file)
		_ = e.srv.Close()
	})
}

// waitFor polls q until it returns want samples, or fails the test after timeout.
func waitFor(t testing.TB, src Source, q Expr, want int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		v, err := src.Instant(context.Background(), q, time.Time{})
		if err == nil && len(v) == want {
			return
		}
		if time.Now().After(deadline) {
			s, _ := q.PromQL()
			t.Fatalf("waiting %v for %d samples of %s: got %d, error %v", timeout, want, s, len(v), err)
		}
		if err != nil && !errors.Is(err, ErrNoData) {
			t.Logf("waiting: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// benchWorkloads returns n workloads of two pods each.
func benchWorkloads(n int) []fakeWorkload {
	ws := make([]fakeWorkload, n)
	for i := range ws {
		ws[i] = fakeWorkload{namespace: fmt.Sprintf("w%03d", i), pods: []fakePod{
			{name: "p0", cpuRate: 0.05 + 0.001*float64(i), cpuRequest: 0.1, rps: 20 + float64(i), errRPS: 1},
			{name: "p1", cpuRate: 0.07, cpuRequest: 0.2, rps: 30, errRPS: 0.5},
		}}
	}
	return ws
}

const sloWindow = 10 * time.Second

// sloExprs are the SLO queries of n workloads of benchWorkloads, five per workload,
// each of the shape an SLO controller would send: CPU utilisation per pod, p90
// latency, requests faster than 250 ms, all requests, and availability.
func sloExprs(prefix string, n int) []Expr {
	out := make([]Expr, 0, 5*n)
	for i := range n {
		sel := []LabelFilter{Eq("namespace", fmt.Sprintf("w%03d", i))}
		h := Histogram{Metric: prefix + "_latency_seconds", Filters: sel, Range: sloWindow}
		fast, _ := h.FastRequests(0.25)
		out = append(out,
			Ratio(
				Query{Metric: prefix + "_cpu_seconds_total", Filters: sel, Range: sloWindow, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
				Query{Metric: prefix + "_cpu_request_cores", Filters: sel, Aggregation: Sum, By: []string{"pod"}},
				"pod"),
			h.Quantile(0.9),
			fast,
			h.Requests(),
			Ratio(
				Query{Metric: prefix + "_requests_total", Filters: append([]LabelFilter{Nre("code", "5..")}, sel...), Range: sloWindow, Func: Rate, Aggregation: Sum},
				Query{Metric: prefix + "_requests_total", Filters: sel, Range: sloWindow, Func: Rate, Aggregation: Sum}),
		)
	}
	return out
}
