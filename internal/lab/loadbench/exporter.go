package loadbench

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"
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

// churnSwing is how far a churning namespace's load moves from the steady
// one: +30 % for one SLO cycle, -30 % for the next (Exporter.churn).
const churnSwing = 0.3

// Exporter serves the benchmark's series in the Prometheus text format: for
// every pod of every namespace, cAdvisor's container_cpu_usage_seconds_total,
// loadsim's loadsim_cpu_request_cores, http_requests_total by code and the
// http_request_duration_seconds histogram, labelled namespace, pod and app
// (the series the SLO and burst queries read; see SLOQueries). Counters grow
// at constant rates from the exporter's start, so every rate is steady,
// except in the churning namespaces (SetChurn): there the CPU use and the
// request rate alternate between 1.3 and 0.7 times the steady ones every SLO
// cycle, so that their SLOs' values and compliances change at every
// evaluation (a 1-minute rate averages them to about +-10 %).
type Exporter struct {
	start time.Time
	now   func() time.Time
	churn float64 // share of namespaces whose load alternates, 0 to 1

	mu   sync.RWMutex
	pods map[string][]string // namespace -> pod names
}

// NewExporter returns an exporter whose counters start at now().
func NewExporter(now func() time.Time) *Exporter {
	return &Exporter{start: now(), now: now, pods: map[string][]string{}}
}

// SetChurn sets the share of namespaces (0 to 1) whose load alternates every
// SLO cycle; which ones is fixed by their names (churns).
func (e *Exporter) SetChurn(share float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.churn = share
}

// churns says whether namespace ns is one of the churning share: its name's
// FNV-1a hash, in parts per 10,000, is below the share.
func churns(ns string, share float64) bool {
	if share <= 0 {
		return false
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(ns))
	return float64(h.Sum32()%10000) < share*10000
}

// loadIntegral is the integral over [0, t] s of a churning namespace's load
// factor, which is 1+churnSwing for one SLO cycle and 1-churnSwing for the
// next: t plus churnSwing times a triangle wave. Counters are the steady
// rates times it, so they never go down (the factor stays positive).
func loadIntegral(t float64) float64 {
	h := sloInterval.Seconds()
	u := math.Mod(t, 2*h)
	tri := u
	if u > h {
		tri = 2*h - u
	}
	return t + churnSwing*tri
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
	churned := loadIntegral(t)
	each := func(fn func(ns, pod, lbl string)) {
		for _, ns := range nss {
			for _, pod := range e.pods[ns] {
				fn(ns, pod, fmt.Sprintf(`namespace=%q,pod=%q,app=%q`, ns, pod, workloadName))
			}
		}
	}
	// elapsed is the namespace's load integral: t, or churned.
	elapsed := func(ns string) float64 {
		if churns(ns, e.churn) {
			return churned
		}
		return t
	}
	var err error
	p := func(format string, a ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, a...)
		}
	}
	p("# TYPE container_cpu_usage_seconds_total counter\n")
	each(func(ns, _, l string) {
		p("container_cpu_usage_seconds_total{%s,container=\"app\"} %s\n", l, num(cpuUsage*elapsed(ns)))
	})
	p("# TYPE loadsim_cpu_request_cores gauge\n")
	each(func(_, _, l string) { p("loadsim_cpu_request_cores{%s} %s\n", l, num(podCPUMilli/1000.0)) })
	p("# TYPE http_requests_total counter\n")
	each(func(ns, _, l string) {
		t := elapsed(ns)
		p("http_requests_total{%s,code=\"200\"} %s\n", l, num(requestRate*(1-errorShare)*t))
		p("http_requests_total{%s,code=\"500\"} %s\n", l, num(requestRate*errorShare*t))
	})
	p("# TYPE http_request_duration_seconds histogram\n")
	each(func(ns, _, l string) {
		t := elapsed(ns)
		for _, b := range latencyBuckets {
			p("http_request_duration_seconds_bucket{%s,le=%q} %s\n", l, b.le, num(requestRate*b.share*t))
		}
		p("http_request_duration_seconds_sum{%s} %s\n", l, num(requestRate*0.05*t))
		p("http_request_duration_seconds_count{%s} %s\n", l, num(requestRate*t))
	})
	return err
}
