package loadsim

import (
	"math"

	"github.com/hca-project/terraform-provider-hca/internal/workload"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	podLabels = []string{"cluster", "namespace", "pod", "app"}

	descCPU = prometheus.NewDesc("container_cpu_usage_seconds_total",
		"Simulated cumulative CPU time consumed by the app's container, in CPU-seconds.",
		append(append([]string{}, podLabels...), "container"), nil)
	descRequest = prometheus.NewDesc("loadsim_cpu_request_cores",
		"CPU request of the pod (sum over its containers), in cores.", podLabels, nil)
	descLimit = prometheus.NewDesc("loadsim_cpu_limit_cores",
		"CPU limit of the pod (sum over its containers; a container without a limit counts its request), in cores.", podLabels, nil)
	descRequests = prometheus.NewDesc("http_requests_total",
		`Simulated requests by status code: "200" served, "503" beyond the pod's capacity. Load offered while no pod is ready is counted as "503" with empty cluster and pod labels.`,
		append(append([]string{}, podLabels...), "code"), nil)
	descLatency = prometheus.NewDesc("http_request_duration_seconds",
		"Simulated response time of served requests (M/M/1 model; bucket counts are expected values, rounded down).", podLabels, nil)
	descMemory = prometheus.NewDesc("container_memory_working_set_bytes",
		"Simulated working set of the app's container, in bytes (only for pods with a memory limit of an app with a memory model).",
		append(append([]string{}, podLabels...), "container"), nil)
	descMemLimit = prometheus.NewDesc("loadsim_memory_limit_bytes",
		"Memory limit of the pod (sum over its containers), in bytes; absent when no container has one.", podLabels, nil)
	descOffered = prometheus.NewDesc("loadsim_offered_load_rps",
		"Load currently offered to the app across all clusters, in requests per second.", []string{"namespace", "app"}, nil)
	descReady = prometheus.NewDesc("loadsim_ready_pods",
		"Ready pods sharing the app's load across all clusters at the last tick.", []string{"namespace", "app"}, nil)
)

// collector exports the Sim's state. Series exist only for apps still
// registered and pods seen at the last tick, so vanished pods' series go away.
type collector struct{ s *Sim }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCPU, descMemory, descMemLimit, descRequest, descLimit, descRequests, descLatency, descOffered, descReady} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Counters are read as of now, not as of the last tick, as a real
	// counter grows between two looks: a tick that runs late (the lab under
	// load) must not make a rate over a few scrapes read low.
	now := s.clk.Now()
	for _, a := range s.apps {
		ns, name := a.key.namespace, a.key.name
		ch <- prometheus.MustNewConstMetric(descOffered, prometheus.GaugeValue, a.offered, ns, name)
		ch <- prometheus.MustNewConstMetric(descReady, prometheus.GaugeValue, float64(len(a.pods)), ns, name)
		ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, a.unservedAt(now), "", ns, "", name, "503")
		for _, ps := range a.pods {
			p := *ps
			p.integrate(now)
			cl, pod := p.key.cluster, p.key.pod
			ch <- prometheus.MustNewConstMetric(descCPU, prometheus.CounterValue, p.cpuSeconds, cl, ns, pod, name, "app")
			ch <- prometheus.MustNewConstMetric(descRequest, prometheus.GaugeValue, p.res.Request, cl, ns, pod, name)
			ch <- prometheus.MustNewConstMetric(descLimit, prometheus.GaugeValue, p.res.EffectiveLimit(), cl, ns, pod, name)
			if p.res.MemoryLimit > 0 {
				ch <- prometheus.MustNewConstMetric(descMemLimit, prometheus.GaugeValue, p.res.MemoryLimit*(1<<20), cl, ns, pod, name)
				if p.load.Memory > 0 {
					ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, p.load.Memory*(1<<20), cl, ns, pod, name, "app")
				}
			}
			ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, p.served, cl, ns, pod, name, "200")
			ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, p.errors, cl, ns, pod, name, "503")
			buckets := make(map[float64]uint64, workload.NumBuckets)
			for i, le := range workload.Buckets {
				buckets[le] = floorCount(p.bucketSum[i])
			}
			ch <- prometheus.MustNewConstHistogram(descLatency, floorCount(p.count), p.latencySum, buckets, cl, ns, pod, name)
		}
	}
}

// floorCount turns an integrated expected count into the integer a classic
// histogram needs. Flooring keeps buckets cumulative and within the count.
func floorCount(v float64) uint64 {
	if v <= 0 || math.IsNaN(v) {
		return 0
	}
	return uint64(v)
}
