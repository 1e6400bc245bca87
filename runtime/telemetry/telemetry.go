// Package telemetry defines hca-runtime's own Prometheus metrics (prefix hca_),
// registered with controller-runtime's registry so the manager's metrics endpoint
// serves them beside the controller metrics.
package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics are the runtime's own series.
type Metrics struct {
	// Decisions counts scaling decisions by policy, algorithm and direction (up, down, hold).
	Decisions *prometheus.CounterVec
	// Replicas is the desired replica count per policy and cluster.
	Replicas *prometheus.GaugeVec
	// EvaluationSeconds is how long one SLO evaluation took.
	EvaluationSeconds *prometheus.HistogramVec
	// Errors counts reconcile errors by controller and kind.
	Errors *prometheus.CounterVec
	// ClusterReachable is 1 while a hybrid cluster answers probes.
	ClusterReachable *prometheus.GaugeVec
}

// New creates the metrics and registers them with reg (nil: controller-runtime's
// registry). Registering twice in one registry returns the existing collectors.
func New(reg prometheus.Registerer) *Metrics {
	if reg == nil {
		reg = ctrlmetrics.Registry
	}
	m := &Metrics{
		Decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hca_decisions_total",
			Help: "Scaling decisions taken, by policy, algorithm and direction."}, []string{"policy", "algorithm", "direction"}),
		Replicas: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hca_replicas",
			Help: "Desired replicas per policy and cluster."}, []string{"policy", "cluster"}),
		EvaluationSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hca_slo_evaluation_duration_seconds",
			Help: "Duration of one SLO evaluation.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}, []string{"type"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hca_errors_total",
			Help: "Errors by controller and kind."}, []string{"controller", "kind"}),
		ClusterReachable: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hca_cluster_reachable",
			Help: "1 while the hybrid cluster answers probes, else 0."}, []string{"cluster"}),
	}
	m.Decisions = register(reg, m.Decisions)
	m.Replicas = register(reg, m.Replicas)
	m.EvaluationSeconds = register(reg, m.EvaluationSeconds)
	m.Errors = register(reg, m.Errors)
	m.ClusterReachable = register(reg, m.ClusterReachable)
	return m
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
