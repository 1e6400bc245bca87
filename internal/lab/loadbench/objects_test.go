package loadbench

import (
	"math"
	"strings"
	"testing"
	"time"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func TestSLOTypes(t *testing.T) {
	// 10 namespaces fill the 20 slots once: 6 cpu, 6 latency, 5
	// availability, 2 cost efficiency, 1 custom.
	want := map[hcav1.SLOType]int{hcav1.SLOCPUUtilization: 6, hcav1.SLOLatency: 6, hcav1.SLOAvailability: 5, hcav1.SLOCostEfficiency: 2, hcav1.SLOCustom: 1}
	got := map[hcav1.SLOType]int{}
	for i := range 10 {
		ts := sloTypes(i)
		got[ts[0]]++
		got[ts[1]]++
	}
	for typ, n := range want {
		if got[typ] != n {
			t.Errorf("%s: %d SLOs in 10 namespaces, want %d (all: %v)", typ, got[typ], n, got)
		}
	}
	for i := range 5000 {
		if ts := sloTypes(i); ts[0] == ts[1] {
			t.Fatalf("namespace %d has two %s SLOs: their names would clash", i, ts[0])
		}
	}
}

func TestSLOSpecs(t *testing.T) {
	for _, typ := range []hcav1.SLOType{hcav1.SLOCPUUtilization, hcav1.SLOLatency, hcav1.SLOAvailability, hcav1.SLOCostEfficiency, hcav1.SLOCustom} {
		for _, withPolicy := range []bool{false, true} {
			s := slo("lb1", "lb1-00001", typ, withPolicy)
			sp := s.Spec.SLO
			set := map[hcav1.SLOType]bool{hcav1.SLOCPUUtilization: sp.CPUUtilization != nil, hcav1.SLOLatency: sp.Latency != nil,
				hcav1.SLOAvailability: sp.Availability != nil, hcav1.SLOCostEfficiency: sp.CostEfficiency != nil, hcav1.SLOCustom: sp.Custom != nil}
			for k, v := range set {
				if v != (k == typ) {
					t.Errorf("%s SLO: %s configuration set = %v", typ, k, v)
				}
			}
			if s.Labels[ClassLabel] != "lb1" || s.Labels[BenchLabel] != "lb1" {
				t.Errorf("%s SLO labels %v: want the class and the bench label", typ, s.Labels)
			}
			if max := s.Spec.ElasticityStrategy.Horizontal.MaxReplicas; withPolicy && max != 1 {
				t.Errorf("%s SLO beside a policy may scale to %d: the policy owns the replicas", typ, max)
			}
		}
	}
	if q := slo("lb1", "lb1-00007", hcav1.SLOCustom, false).Spec.SLO.Custom.Query; !strings.Contains(q, `namespace="lb1-00007"`) {
		t.Errorf("custom query %q does not select its namespace", q)
	}
}

func TestExporterSeries(t *testing.T) {
	now := time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	clock := now
	e := NewExporter(func() time.Time { return clock })
	e.SetPods(map[string][]string{"ns-b": {"web-1-b"}, "ns-a": {"web-1-a", "web-2-a"}})
	clock = now.Add(100 * time.Second)
	rec := &strings.Builder{}
	if err := e.write(rec); err != nil {
		t.Fatal(err)
	}
	s, err := parseScrape(strings.NewReader(rec.String()))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, rec.String())
	}
	pod := map[string]string{"namespace": "ns-a", "pod": "web-2-a", "app": "web"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range pod {
			m[a] = b
		}
		return m
	}
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		// 100 s at 0.005 cores: 0.5 CPU-seconds.
		{"cpu seconds", s.sum("container_cpu_usage_seconds_total", with("container", "app")), 0.5},
		{"cpu request", s.sum("loadsim_cpu_request_cores", pod), 0.01},
		// 100 s at 10 requests/s, 0.1 % of them 500.
		{"200s", s.sum("http_requests_total", with("code", "200")), 999},
		{"500s", s.sum("http_requests_total", with("code", "500")), 1},
		{"namespace a: 2 pods of 1000 requests", s.sum("http_requests_total", map[string]string{"namespace": "ns-a"}), 2000},
		{"every pod's cpu series", float64(len(s["container_cpu_usage_seconds_total"].GetMetric())), 3},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	h := s.histogram("http_request_duration_seconds", pod)
	// 95 % of the 1000 requests within 100 ms; all within 500 ms.
	if h.count() != 1000 || h.upperBound(0.95) != 0.1 || h.upperBound(0.99) != 0.25 || h.upperBound(1) != 0.5 {
		t.Errorf("latency histogram count %v, p95 <= %v, p99 <= %v, max <= %v; want 1000, 0.1, 0.25, 0.5", h.count(), h.upperBound(0.95), h.upperBound(0.99), h.upperBound(1))
	}
}

// TestExporterChurn: a churning namespace's counters never go down, its
// CPU rate over each SLO cycle alternates between 1.3 and 0.7 times the
// steady one, and a steady namespace's stays steady; the share picks
// namespaces by name, none at 0 and all at 1.
func TestExporterChurn(t *testing.T) {
	now := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	clock := now
	e := NewExporter(func() time.Time { return clock })
	e.SetPods(map[string][]string{"ns-a": {"web-a"}})
	e.SetChurn(1)
	cpu := func(at time.Duration) float64 {
		clock = now.Add(at)
		rec := &strings.Builder{}
		if err := e.write(rec); err != nil {
			t.Fatal(err)
		}
		s, err := parseScrape(strings.NewReader(rec.String()))
		if err != nil {
			t.Fatal(err)
		}
		return s.sum("container_cpu_usage_seconds_total", map[string]string{"namespace": "ns-a"})
	}
	tests := []struct {
		name     string
		from, to time.Duration
		want     float64 // mean CPU cores over [from, to]
	}{
		{"first cycle: 1.3 x", 0, 20 * time.Second, cpuUsage * 1.3},
		{"second cycle: 0.7 x", 20 * time.Second, 40 * time.Second, cpuUsage * 0.7},
		{"third cycle: 1.3 x", 40 * time.Second, 60 * time.Second, cpuUsage * 1.3},
		{"across a period: steady mean", 10 * time.Second, 50 * time.Second, cpuUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (cpu(tt.to) - cpu(tt.from)) / (tt.to - tt.from).Seconds()
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("mean CPU %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("never goes down", func(t *testing.T) {
		last := -1.0
		for at := time.Duration(0); at <= 90*time.Second; at += 500 * time.Millisecond {
			if v := cpu(at); v < last {
				t.Fatalf("CPU counter %v at %s after %v", v, at, last)
			} else {
				last = v
			}
		}
	})
	t.Run("share", func(t *testing.T) {
		n := 0
		for i := range 1000 {
			if churns(namespaceName("lb0001", i), 0.1) {
				n++
			}
			if churns(namespaceName("lb0001", i), 0) || !churns(namespaceName("lb0001", i), 1) {
				t.Fatalf("namespace %d: churns at share 0 or not at share 1", i)
			}
		}
		if n < 70 || n > 130 {
			t.Errorf("%d of 1000 namespaces churn at 10 %%, want about 100", n)
		}
	})
	e.SetChurn(0)
	if got := (cpu(40*time.Second) - cpu(20*time.Second)) / 20; math.Abs(got-cpuUsage) > 1e-12 {
		t.Errorf("steady namespace: mean CPU %v over the second cycle, want %v", got, cpuUsage)
	}
}
