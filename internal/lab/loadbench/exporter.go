package loadbench

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The exporter's steady load per pod: every SLO met and every policy calm.
const (
	// cpuUsage is each pod's CPU use in cores: 50 % of its 10m request
	// (cpu-utilization SLOs target 70 %, policies 70 %).
	cpuUsage = 0.005
	// requestRate is each pod's requests per second; errorShare of them
	// answer 500 (availability 99.9 % against 99.5 %).
	requestRate = 10.0
	errorShare  = 0.001
)

// latencyBuckets are the response-time histogram's bounds and the share of
// requests at or under each: p99 is about 0.23 s (latency SLOs: 250 ms), 95 %
// are under 100 ms (cost-efficiency SLOs' threshold).
var latencyBuckets = []struct {
	le    string
	share float64
}{{"0.05", 0.80}, {"0.1", 0.95}, {"0.25", 0.995}, {"0.5", 1}, {"+Inf", 1}}

// Exporter serves the benchmark's series in the Prometheus text format: for
// every pod of every namespace, cAdvisor's container_cpu_usage_seconds_total,
// loadsim's loadsim_cpu_request_cores, http_requests_total by code and the
// http_request_duration_seconds histogram, labelled namespace, pod and app
// (the series the SLO and burst queries read; see SLOQueries). Counters grow
// at constant rates from the exporter's start, so every rate is steady.
type Exporter struct {
	start time.Time
	now   func() time.Time

	mu   sync.RWMutex
	pods map[string][]string // namespace -> pod names
}

// NewExporter returns an exporter whose counters start at now().
func NewExporter(now func() time.Time) *Exporter {
	return &Exporter{start: now(), now: now, pods: map[string][]string{}}
}

// SetPods replaces the pods exported for each namespace (a namespace absent
// from pods keeps its pods).
func (e *Exporter) SetPods(pods map[string][]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ns, names := range pods {
		e.pods[ns] = slices.Clone(names)
	}
}

// ServeHTTP writes the exposition.
func (e *Exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	bw := bufio.NewWriterSize(w, 256<<10)
	_ = e.write(bw)
	_ = bw.Flush()
}

// write writes every family, namespaces in name order.
func (e *Exporter) write(w io.Writer) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := e.now().Sub(e.start).Seconds()
	nss := make([]string, 0, len(e.pods))
	for ns := range e.pods {
		nss = append(nss, ns)
	}
	slices.Sort(nss)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	each := func(fn func(ns, pod, lbl string)) {
		for _, ns := range nss {
			for _, pod := range e.pods[ns] {
				fn(ns, pod, fmt.Sprintf(`namespace=%q,pod=%q,app=%q`, ns, pod, workloadName))
			}
		}
	}
	var err error
	p := func(format string, a ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, a...)
		}
	}
	p("# TYPE container_cpu_usage_seconds_total counter\n")
	each(func(_, _, l string) {
		p("container_cpu_usage_seconds_total{%s,container=\"app\"} %s\n", l, num(cpuUsage*t))
	})
	p("# TYPE loadsim_cpu_request_cores gauge\n")
	each(func(_, _, l string) { p("loadsim_cpu_request_cores{%s} %s\n", l, num(podCPUMilli/1000.0)) })
	p("# TYPE http_requests_total counter\n")
	each(func(_, _, l string) {
		p("http_requests_total{%s,code=\"200\"} %s\n", l, num(requestRate*(1-errorShare)*t))
		p("http_requests_total{%s,code=\"500\"} %s\n", l, num(requestRate*errorShare*t))
	})
	p("# TYPE http_request_duration_seconds histogram\n")
	each(func(_, _, l string) {
		for _, b := range latencyBuckets {
			p("http_request_duration_seconds_bucket{%s,le=%q} %s\n", l, b.le, num(requestRate*b.share*t))
		}
		p("http_request_duration_seconds_sum{%s} %s\n", l, num(requestRate*0.05*t))
		p("http_request_duration_seconds_count{%s} %s\n", l, num(requestRate*t))
	})
	return err
}
