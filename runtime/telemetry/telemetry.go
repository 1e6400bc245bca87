package telemetry

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics are the runtime's own event series. Every method is safe on a nil
// *Metrics (it does nothing), so that a hook in a controller is one line.
type Metrics struct {
	// Decisions counts scaling decisions by policy, algorithm, direction (the
	// action: scale-up, burst, ...; up, down or hold for SLO strategies) and
	// reason (what caused it, from a bounded set).
	Decisions *prometheus.CounterVec
	// Replicas is the desired replica count per policy and cluster, as the
	// burst controller last set it.
	Replicas *prometheus.GaugeVec
	// EvaluationSeconds is how long one SLO evaluation took.
	EvaluationSeconds *prometheus.HistogramVec
	// ScheduleLateness is how long after it was due a scheduled evaluation
	// started, by loop: "slo" (an SLO's evaluationInterval) and "burst" (a
	// BurstPolicy's metrics control interval). Its count is the evaluations
	// run; tools/loadbench reads both to check the schedule at scale.
	ScheduleLateness *prometheus.HistogramVec
	// Errors counts reconcile errors by controller and kind.
	Errors *prometheus.CounterVec
	// ClusterReachable is 1 while a hybrid cluster answers probes.
	ClusterReachable *prometheus.GaugeVec
	// NodeRequests counts orders to grow a node group, by cluster, node group
	// and result (ok, error).
	NodeRequests *prometheus.CounterVec
	// NodeReleases counts orders to shrink a node group, by cluster, node group
	// and result (ok, error).
	NodeReleases *prometheus.CounterVec
	// NodesRequested counts the nodes ordered by successful requests.
	NodesRequested *prometheus.CounterVec
	// NodeReadySeconds is the time from a node's order to its Ready
	// condition, by cluster and node group (the runtime's own orders only).
	NodeReadySeconds *prometheus.HistogramVec
	// CloudCalls, CloudErrors and CloudThrottles count cloud API calls by
	// service and operation; errors carry the API's error code.
	CloudCalls, CloudErrors, CloudThrottles *prometheus.CounterVec
	// MetricQueries counts metric queries by result (ok, no_data, nan,
	// bad_query, unavailable, error).
	MetricQueries *prometheus.CounterVec
	// ConsulRequests and ConsulErrors count the Consul catalog calls that
	// publish burst replicas, by operation.
	ConsulRequests, ConsulErrors *prometheus.CounterVec
	// Failovers counts failovers by policy and burst cluster: the cluster
	// stayed unreachable for the policy's failoverAfter and its replicas
	// were written off and placed again elsewhere.
	Failovers *prometheus.CounterVec
	// BuildInfo is 1, labelled with the runtime's version.
	BuildInfo *prometheus.GaugeVec
}

// The result label values.
const (
	ResultOK    = "ok"
	ResultError = "error"
)

// New creates the metrics and registers them with reg (nil: controller-runtime's
// registry). Registering twice in one registry returns the existing collectors.
func New(reg prometheus.Registerer) *Metrics {
	if reg == nil {
		reg = ctrlmetrics.Registry
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		addName(name)
		return register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels))
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		addName(name)
		return register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels))
	}
	return &Metrics{
		Decisions: counter("hca_decisions_total", "Scaling decisions taken, by policy, algorithm, direction and reason.", "policy", "algorithm", "direction", "reason"),
		Replicas:  gauge("hca_replicas", "Desired replicas per policy and cluster, as last set by the burst controller.", "policy", "cluster"),
		EvaluationSeconds: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hca_slo_evaluation_duration_seconds",
			Help: "Duration of one SLO evaluation.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}, []string{"type"})),
		ScheduleLateness: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hca_schedule_lateness_seconds",
			Help: "How long after it was due a scheduled evaluation started, by loop (slo, burst).", Buckets: latenessBuckets}, []string{"loop"})),
		Errors:           counter("hca_errors_total", "Errors by controller and kind.", "controller", "kind"),
		ClusterReachable: gauge("hca_cluster_reachable", "1 while the hybrid cluster answers probes, else 0.", "cluster"),
		NodeRequests:     counter("hca_node_requests_total", "Orders to grow a burst cluster's node group, by cluster, node group and result.", "cluster", "node_group", "result"),
		NodeReleases:     counter("hca_node_releases_total", "Orders to shrink a burst cluster's node group, by cluster, node group and result.", "cluster", "node_group", "result"),
		NodesRequested:   counter("hca_nodes_requested_total", "Nodes ordered by successful node group requests, by cluster and node group.", "cluster", "node_group"),
		NodeReadySeconds: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hca_node_ready_duration_seconds",
			Help: "Time from the runtime's order of a burst node to the node's Ready condition, by cluster and node group.", Buckets: nodeReadyBuckets}, []string{"cluster", "node_group"})),
		CloudCalls:     counter("hca_cloud_api_calls_total", "Cloud API calls, by service and operation.", "service", "operation"),
		CloudErrors:    counter("hca_cloud_api_errors_total", "Cloud API calls that failed, by service, operation and error code.", "service", "operation", "code"),
		CloudThrottles: counter("hca_cloud_api_throttles_total", "Cloud API calls refused by throttling, by service and operation.", "service", "operation"),
		MetricQueries:  counter("hca_metric_queries_total", "Workload metric queries, by result (ok, no_data, nan, bad_query, unavailable, error).", "result"),
		Failovers:      counter("hca_burst_failovers_total", "Failovers away from an unreachable burst cluster (its replicas written off and placed elsewhere), by policy and cluster.", "policy", "cluster"),
		ConsulRequests: counter("hca_consul_requests_total", "Consul catalog calls that publish burst replicas, by operation (register, deregister, node).", "operation"),
		ConsulErrors:   counter("hca_consul_errors_total", "Consul catalog calls that failed, by operation.", "operation"),
		BuildInfo:      gauge("hca_build_info", "Always 1, labelled with the runtime's version.", "version"),
	}
}

// names are the metric families New registers (histograms by family name).
var (
	namesMu sync.Mutex
	names   = map[string]bool{"hca_slo_evaluation_duration_seconds": true, "hca_schedule_lateness_seconds": true, "hca_node_ready_duration_seconds": true}
)

// nodeReadyBuckets of NodeReadySeconds: 5 s to 20 min, finest around the
// one to three minutes clouds take (the lab's default boot is 75 s).
var nodeReadyBuckets = []float64{5, 15, 30, 45, 60, 75, 90, 120, 150, 180, 240, 300, 450, 600, 900, 1200}

// latenessBuckets of ScheduleLateness: 10 ms to about 82 s (a 20 s SLO
// interval missed several times over is still in a bucket of its own).
var latenessBuckets = prometheus.ExponentialBuckets(0.01, 2, 14)

// The loop label values of ScheduleLateness.
const (
	LoopSLO   = "slo"
	LoopBurst = "burst"
)

// Late records that an evaluation of loop started late after it was due (a
// negative late, an evaluation started early by a change, counts as 0).
func (m *Metrics) Late(loop string, late time.Duration) {
	if m == nil {
		return
	}
	m.ScheduleLateness.WithLabelValues(loop).Observe(max(late, 0).Seconds())
}

func addName(n string) {
	namesMu.Lock()
	defer namesMu.Unlock()
	names[n] = true
}

// Names lists every metric family the runtime's telemetry exports, including
// those that have no series until something happens (a vector without
// children is absent from a scrape): dashboards and alerts may only use
// these (and controller-runtime's own).
func Names() []string {
	New(prometheus.NewRegistry())
	out := []string{statusListErrors}
	namesMu.Lock()
	defer namesMu.Unlock()
	for n := range names {
		out = append(out, n)
	}
	for n := range statusMetrics {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// NodeRequest records an order to grow a node group by nodes (err: its failure).
func (m *Metrics) NodeRequest(cluster, group string, nodes int32, err error) {
	if m == nil {
		return
	}
	initResults(m.NodeRequests, cluster, group)
	m.NodeRequests.WithLabelValues(cluster, group, result(err)).Inc()
	if err == nil {
		m.NodesRequested.WithLabelValues(cluster, group).Add(float64(nodes))
	}
}

// NodeReady records that a node ordered for a node group became Ready d
// after the order.
func (m *Metrics) NodeReady(cluster, group string, d time.Duration) {
	if m == nil {
		return
	}
	m.NodeReadySeconds.WithLabelValues(cluster, group).Observe(d.Seconds())
}

// NodeRelease records an order to shrink a node group (err: its failure).
func (m *Metrics) NodeRelease(cluster, group string, err error) {
	if m == nil {
		return
	}
	initResults(m.NodeReleases, cluster, group)
	m.NodeReleases.WithLabelValues(cluster, group, result(err)).Inc()
}

// initResults exports both results of a group at 0 before the first of
// each, so that a failure ratio has a series from the first order on.
func initResults(v *prometheus.CounterVec, cluster, group string) {
	v.WithLabelValues(cluster, group, ResultOK)
	v.WithLabelValues(cluster, group, ResultError)
}

func result(err error) string {
	if err != nil {
		return ResultError
	}
	return ResultOK
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}
