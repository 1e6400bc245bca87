package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

func BenchmarkPromQL(b *testing.B) {
	sel := []LabelFilter{Eq("namespace", "shop"), Eq("app", "web")}
	cases := []struct {
		name string
		expr Expr
	}{
		{"selector", Query{Metric: "loadsim_cpu_request_cores", Filters: sel}},
		{"utilisation-ratio", Ratio(
			Query{Metric: "container_cpu_usage_seconds_total", Filters: sel, Range: time.Minute, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
			Query{Metric: "loadsim_cpu_request_cores", Filters: sel, Aggregation: Sum, By: []string{"pod"}}, "pod")},
		{"p90", Histogram{Metric: "http_request_duration_seconds", Filters: sel, Range: time.Minute}.Quantile(0.9)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.expr.PromQL(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPlanBatches1000(b *testing.B) {
	exprs := sloExprs("bench_x", 200)
	b.ReportAllocs()
	for b.Loop() {
		if p := PlanBatches(exprs, DefaultMaxBatch); len(p.Requests) != 5 {
			b.Fatalf("%d requests", len(p.Requests))
		}
	}
}

// labPrometheusPID reads the lab Prometheus' process id from the lab state (0 if
// unknown), to report its CPU time too.
func labPrometheusPID() int {
	dir := os.Getenv("HCA_LAB_DIR")
	if dir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return 0
	}
	var st struct {
		Procs map[string]struct {
			PID int `json:"pid"`
		} `json:"procs"`
	}
	if json.Unmarshal(b, &st) != nil {
		return 0
	}
	return st.Procs["prometheus"].PID
}

// BenchmarkLabInstantMany evaluates 1,000 SLO queries (5 per workload, 200 workloads
// of 2 pods: 4,800 series) against the lab Prometheus at a fixed instant. One op is
// one evaluation round of all 1,000. Our exporter is stopped before measuring, so
// the process' CPU is the client's only; Prometheus' CPU (prom-cpu-ms/op) also
// includes its scraping of the lab's other targets.
func BenchmarkLabInstantMany(b *testing.B) {
	env := labtest.Require(b, "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR")
	const workloads = 200
	sfx := randHex(b)
	prefix := "hcab_" + sfx
	exp := serveExporter(b, env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], "hca-metrics-bench-"+sfx, newWorkloadCollector(prefix, benchWorkloads(workloads)))
	calls := new(atomic.Int64)
	rt := countingTransport{n: calls, rt: http.DefaultTransport}
	probe, err := NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"])
	if err != nil {
		b.Fatal(err)
	}
	minSamples := int(sloWindow/time.Second) - 1
	waitFor(b, probe, Raw(fmt.Sprintf(`count_over_time(%s_cpu_request_cores[%s]) >= %d`, prefix, sloWindow, minSamples)), 2*workloads, 2*time.Minute)
	time.Sleep(sloWindow) // so that every rate window at at is covered by samples
	at := time.Now().Add(-time.Second)
	exp.stop()

	exprs := sloExprs(prefix, workloads)
	ctx := context.Background()
	check := func(b *testing.B, res []Result) {
		for i, r := range res {
			if r.Err != nil {
				b.Fatalf("SLO query %d: %v", i, r.Err)
			}
		}
	}
	promPID := labPrometheusPID()
	for _, mode := range []struct {
		name string
		opts []Option
	}{
		{"batched", nil},
		{"unbatched", []Option{WithMaxBatch(1)}},
		{"unbatched-concurrency-16", []Option{WithMaxBatch(1), WithConcurrency(16)}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			p, err := NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"], append(mode.opts, WithRoundTripper(rt))...)
			if err != nil {
				b.Fatal(err)
			}
			check(b, p.InstantMany(ctx, exprs, at)) // warm connections, verify data
			runtime.GC()
			calls0, cpu0, prom0 := calls.Load(), cpuTime(), procCPU(promPID)
			n := 0
			for b.Loop() {
				check(b, p.InstantMany(ctx, exprs, at))
				n++
			}
			cpu := (cpuTime() - cpu0) / time.Duration(n)
			b.ReportMetric(float64(calls.Load()-calls0)/float64(n), "requests/op")
			b.ReportMetric(float64(cpu)/1e6, "cpu-ms/op")
			b.ReportMetric(cpu.Seconds()/20, "vCPU@1000SLOs/20s")
			if promPID != 0 {
				b.ReportMetric(float64((procCPU(promPID)-prom0)/time.Duration(n))/1e6, "prom-cpu-ms/op")
			}
			b.ReportMetric(float64(currentRSS())/(1<<20), "RSS-MiB")
			b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
		})
	}
}

// BenchmarkPlanBatches10000 plans 10,000 SLO queries spread two per namespace
// over 5,000 namespaces (TestPlanBatchesAcrossNamespaces): the planning cost
// of one SLO interval on a large platform.
func BenchmarkPlanBatches10000(b *testing.B) {
	exprs := spreadSLOExprs(10000)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(PlanBatches(exprs, DefaultMaxBatch).Requests)
	}
	b.ReportMetric(float64(n), "requests/op")
}

// BenchmarkPlanCache10000 is BenchmarkPlanBatches10000's list asked again, as
// the SLO evaluator does every cycle: the cached plan is reused, at the cost
// of rendering the queries to recognise the list.
func BenchmarkPlanCache10000(b *testing.B) {
	exprs := spreadSLOExprs(10000)
	c := &planCache{}
	c.plan(exprs, DefaultMaxBatch)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(c.plan(exprs, DefaultMaxBatch).Requests)
	}
	b.ReportMetric(float64(n), "requests/op")
}
