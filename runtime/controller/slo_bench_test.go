package controller

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
)

type countingRT struct{ n *atomic.Int64 }

func (c countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func benchCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// benchSLOs returns n SLOs over n distinct workloads in 10 namespaces, cycling
// through latency, cpu-utilization and availability (custom PromQL is sent
// verbatim and never merged, so it is left out of the batching figure).
func benchSLOs(n int) []*hcav1.ServiceLevelObjective {
	out := make([]*hcav1.ServiceLevelObjective, n)
	for i := range out {
		var spec hcav1.SLOSpec
		switch i % 3 {
		case 0:
			spec = hcav1.SLOSpec{Type: hcav1.SLOLatency, Latency: &hcav1.LatencySLO{Percentile: resource.MustParse("90"), Threshold: metav1.Duration{Duration: 100 * time.Millisecond}}}
		case 1:
			spec = hcav1.SLOSpec{Type: hcav1.SLOCPUUtilization, CPUUtilization: &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 70}}
		default:
			spec = hcav1.SLOSpec{Type: hcav1.SLOAvailability, Availability: &hcav1.AvailabilitySLO{TargetPercent: resource.MustParse("99.9")}}
		}
		out[i] = &hcav1.ServiceLevelObjective{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("bench-%d", i%10), Name: fmt.Sprintf("slo-%d", i), UID: types.UID(strconv.Itoa(i)), Generation: 1},
			Spec:       hcav1.ServiceLevelObjectiveSpec{Target: hcav1.TargetRef{Name: hcav1.ObjectName(fmt.Sprintf("app-%d", i))}, SLO: spec},
		}
	}
	return out
}

// BenchmarkSLOEvaluate1000 is one evaluation interval of 1,000 SLOs against the
// lab Prometheus: plan every SLO, read all metrics in one batch
// (InstantManyOf), evaluate compliance. One op is one interval. Reported:
// wall time (ns/op), this process' CPU time per interval (getrusage, user +
// system), HTTP requests per interval, and RSS growth over the run. The status
// and strategy writes to the API server are not included.
func BenchmarkSLOEvaluate1000(b *testing.B) {
	env := labtest.Require(b, "HCA_LAB_PROMETHEUS_URL")
	calls := new(atomic.Int64)
	prom, err := metrics.NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"], metrics.WithRoundTripper(countingRT{calls}))
	if err != nil {
		b.Fatal(err)
	}
	slos := benchSLOs(1000)
	e := newSLOEvaluator(prom, nil, clock.RealClock{}, SLOQueries{Window: time.Minute}, nil)
	ctx := context.Background()
	e.evaluateBatch(ctx, slos) // warm up connections
	runtime.GC()
	rss0, cpu0, calls0 := benchRSS(), benchCPU(), calls.Load()
	b.ResetTimer()
	n := 0
	var evaluated int
	for b.Loop() {
		res := e.evaluateBatch(ctx, slos)
		for _, r := range res {
			if r.err == nil || failureReason(r.err) == ReasonNoData || failureReason(r.err) == ReasonNoTraffic || failureReason(r.err) == ReasonNaN {
				evaluated++
			}
		}
		n++
	}
	b.StopTimer()
	cpu := benchCPU() - cpu0
	b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms/op")
	b.ReportMetric(float64(calls.Load()-calls0)/float64(n), "http/op")
	b.ReportMetric(float64(benchRSS()-rss0)/(1<<20), "rss-growth-MiB")
	b.ReportMetric(float64(benchRSS())/(1<<20), "rss-MiB")
	if evaluated != 1000*n {
		b.Fatalf("%d of %d evaluations reached Prometheus and came back as data or no-data", evaluated, 1000*n)
	}
}
