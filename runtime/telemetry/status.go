package telemetry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// Sample is one gauge value computed from an object's status.
type Sample struct {
	Name   string
	Labels []string // values, in the order of the metric's label names
	Value  float64
}

// statusMetrics are the gauges StatusCollector exports: help and label names.
var statusMetrics = map[string]struct {
	help   string
	labels []string
}{
	"hca_ready_replicas":                       {"Ready replicas of a burst policy's workload per cluster.", []string{"policy", "cluster"}},
	"hca_pending_replicas":                     {"Unschedulable replicas of a burst policy's workload per cluster.", []string{"policy", "cluster"}},
	"hca_burst_ready_replicas":                 {"Ready replicas of a burst policy's workload outside its primary cluster.", []string{"policy"}},
	"hca_burst_phase":                          {"1 for the burst policy's current phase (Watching, Bursting, ScalingBack, Degraded), 0 for the others.", []string{"policy", "phase"}},
	"hca_slo_compliance_ratio":                 {"SLO compliance: 1 = met exactly, above 1 violated, below 1 outperformed.", []string{"slo", "type"}},
	"hca_slo_current_value":                    {"SLO metric's latest value in base units (seconds for latency, a 0..1 ratio for utilisation and availability).", []string{"slo", "type"}},
	"hca_node_group_desired_nodes":             {"Desired size of a burst cluster's node group.", []string{"cluster", "node_group"}},
	"hca_node_group_ready_nodes":               {"Ready nodes of a burst cluster's node group.", []string{"cluster", "node_group"}},
	"hca_node_group_requested_nodes":           {"Nodes of a burst cluster's node group ordered and not Ready yet.", []string{"cluster", "node_group"}},
	"hca_node_group_node_hourly_price_dollars": {"Price of one node of a burst cluster's node group per hour, in US dollars (spec.nodeGroups[].pricePerHour).", []string{"cluster", "node_group"}},
}

// statusListErrors is the collector's own counter.
const statusListErrors = "hca_status_list_errors_total"

var phases = []hcav1.BurstPhase{hcav1.PhaseWatching, hcav1.PhaseBursting, hcav1.PhaseScalingBack, hcav1.PhaseDegraded}

// PolicySamples are the gauges of one BurstPolicy's status. A policy with no
// phase yet (never reconciled) has no phase series.
func PolicySamples(p *hcav1.BurstPolicy) []Sample {
	key := p.Namespace + "/" + p.Name
	var out []Sample
	outside := 0.0
	for _, c := range p.Status.Replicas {
		if c.Cluster != p.Spec.PrimaryCluster {
			outside += float64(c.Ready)
		}
		out = append(out,
			Sample{"hca_ready_replicas", []string{key, string(c.Cluster)}, float64(c.Ready)},
			Sample{"hca_pending_replicas", []string{key, string(c.Cluster)}, float64(c.Pending)})
	}
	if len(p.Status.Replicas) > 0 {
		out = append(out, Sample{"hca_burst_ready_replicas", []string{key}, outside})
	}
	if p.Status.Phase != "" {
		for _, ph := range phases {
			v := 0.0
			if ph == p.Status.Phase {
				v = 1
			}
			out = append(out, Sample{"hca_burst_phase", []string{key, string(ph)}, v})
		}
	}
	return out
}

// SLOSamples are the gauges of one ServiceLevelObjective's status: nothing
// before its first evaluation, no value when it cannot be read as a number.
func SLOSamples(s *hcav1.ServiceLevelObjective) []Sample {
	key, typ := s.Namespace+"/"+s.Name, string(s.Spec.SLO.Type)
	var out []Sample
	if c := s.Status.CompliancePercent; c != nil {
		out = append(out, Sample{"hca_slo_compliance_ratio", []string{key, typ}, float64(*c) / 100})
	}
	if v, ok := ParseSLOValue(s.Status.CurrentValue); ok {
		out = append(out, Sample{"hca_slo_current_value", []string{key, typ}, v})
	}
	return out
}

// ParseSLOValue reads status.currentValue ("183.0ms", "1m2.5s", "62.0%",
// "0.5") in base units: seconds, a ratio for percentages. Values with text
// beside the number (cost efficiency's "0.12/h (fast 90.0%)") are not read.
func ParseSLOValue(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return 0, false
	case strings.HasSuffix(v, "%"):
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		return f / 100, err == nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, true
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), true
	}
	return 0, false
}

// ClusterSamples are the gauges of one HybridCluster's node groups: their
// status and the price of their nodes.
func ClusterSamples(hc *hcav1.HybridCluster) []Sample {
	var out []Sample
	for _, g := range hc.Status.NodeGroups {
		l := []string{hc.Name, g.Name}
		out = append(out,
			Sample{"hca_node_group_desired_nodes", l, float64(g.DesiredNodes)},
			Sample{"hca_node_group_ready_nodes", l, float64(g.ReadyNodes)},
			Sample{"hca_node_group_requested_nodes", l, float64(g.RequestedNodes)})
	}
	for _, g := range hc.Spec.NodeGroups {
		if p, err := strconv.ParseFloat(string(g.PricePerHour), 64); err == nil && g.PricePerHour != "" {
			out = append(out, Sample{"hca_node_group_node_hourly_price_dollars", []string{hc.Name, g.Name}, p})
		}
	}
	return out
}

// lister is what StatusCollector reads: the manager's cache.
type lister interface {
	List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error
}

// StatusCollector is a prometheus.Collector that, at each scrape, lists the
// BurstPolicies, ServiceLevelObjectives and HybridClusters from Reader (the
// manager's cache) and exports the gauges of their status (PolicySamples,
// SLOSamples, ClusterSamples). Active, when set, gates it: a standby replica
// (not the leader) exports none, so that only the acting replica's view is
// summed in dashboards. A failed list is skipped and counted in
// hca_status_list_errors_total.
type StatusCollector struct {
	Reader lister
	Active func() bool
	descs  map[string]*prometheus.Desc
	errs   prometheus.Counter
}

// NewStatusCollector returns the collector; register it with
// controller-runtime's registry (RegisterStatusCollector).
func NewStatusCollector(r lister, active func() bool) *StatusCollector {
	c := &StatusCollector{Reader: r, Active: active, descs: map[string]*prometheus.Desc{},
		errs: prometheus.NewCounter(prometheus.CounterOpts{Name: statusListErrors, Help: "Scrapes at which the status of HCA objects could not be listed from the cache."})}
	for name, m := range statusMetrics {
		c.descs[name] = prometheus.NewDesc(name, m.help, m.labels, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *StatusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
	c.errs.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c *StatusCollector) Collect(ch chan<- prometheus.Metric) {
	defer c.errs.Collect(ch)
	if c.Active != nil && !c.Active() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The objects are only read: the cache's own, not a copy of each of
	// 10,000 SLOs per scrape.
	var samples []Sample
	var policies hcav1.BurstPolicyList
	if err := c.Reader.List(ctx, &policies, client.UnsafeDisableDeepCopy); err != nil {
		c.errs.Inc()
	}
	for i := range policies.Items {
		samples = append(samples, PolicySamples(&policies.Items[i])...)
	}
	var slos hcav1.ServiceLevelObjectiveList
	if err := c.Reader.List(ctx, &slos, client.UnsafeDisableDeepCopy); err != nil {
		c.errs.Inc()
	}
	for i := range slos.Items {
		samples = append(samples, SLOSamples(&slos.Items[i])...)
	}
	var clusters hcav1.HybridClusterList
	if err := c.Reader.List(ctx, &clusters, client.UnsafeDisableDeepCopy); err != nil {
		c.errs.Inc()
	}
	for i := range clusters.Items {
		samples = append(samples, ClusterSamples(&clusters.Items[i])...)
	}
	for _, s := range samples {
		ch <- prometheus.MustNewConstMetric(c.descs[s.Name], prometheus.GaugeValue, s.Value, s.Labels...)
	}
}

// RegisterStatusCollector registers a StatusCollector reading r with reg
// (nil: controller-runtime's registry), replacing one registered before.
func RegisterStatusCollector(reg prometheus.Registerer, r lister, active func() bool) error {
	if reg == nil {
		reg = ctrlmetrics.Registry
	}
	c := NewStatusCollector(r, active)
	err := reg.Register(c)
	if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
		// A second manager in one process (tests): the new cache replaces the old.
		reg.Unregister(are.ExistingCollector)
		err = reg.Register(c)
	}
	if err != nil {
		return fmt.Errorf("register status metrics: %w", err)
	}
	return nil
}
