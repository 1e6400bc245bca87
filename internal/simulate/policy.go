package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// ErrInput is wrapped by every error about bad input (policy, trace,
// cluster model, algorithm name): the command exits 2 on it.
var ErrInput = errors.New("bad simulation input")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)
}

// MetricKind is how the simulated scaling metric is measured.
type MetricKind int

const (
	// MetricCPU is the pods' CPU utilisation in percent of their request
	// (a Resource cpu metric), capped by the CPU limit as in the lab's loadsim.
	MetricCPU MetricKind = iota
	// MetricRequestRate is a PromQL AverageValue metric, which the
	// simulator cannot evaluate: it stands for the target's total request
	// rate (requests/s), compared with a per-replica target.
	MetricRequestRate
)

// Policy is a BurstPolicy with the CRD defaults applied, in the terms the
// simulator needs.
type Policy struct {
	// Name is metadata.name ("" when not set).
	Name string
	// Algorithm is adaptive, kubernetes, frss or panic.
	Algorithm string
	Min, Max  int32
	Metric    MetricKind
	// Target is the metric target: percent of the CPU request for
	// MetricCPU, requests/s per replica for MetricRequestRate.
	Target           float64
	Placement        scaling.PlacementMode
	Primary          string
	BurstTargets     []PolicyBurstTarget
	PendingThreshold time.Duration
	// AllowSpot (spec.capacity.allowSpot) lets burst replicas use spot node
	// groups; ScaleDownDelay (spec.capacity.scaleDownDelay, default
	// capacity.DefaultScaleDownDelay) is how long a node must be empty
	// before it is released. Both matter only with node groups in the model.
	AllowSpot      bool
	ScaleDownDelay time.Duration
	// SLO is set when the input was a ServiceLevelObjective: its control
	// loop decides instead of Algorithm (see [ParseInput]).
	SLO *SLO

	kubernetes scaling.KubernetesConfig
	frss       scaling.FRSSConfig
	panic      scaling.PanicConfig
	adaptive   scaling.AdaptiveConfig
	// spec keeps the algorithm section to rebuild configs per algorithm.
	spec hcav1.Algorithm
	// floor, when above 0, makes the run the reactive floor with this
	// control interval (see [ReactiveFloor]).
	floor time.Duration
	// schedule is spec.schedules (nil: none), read with second 0 of the
	// trace at [ScheduleEpoch].
	schedule *scaling.Schedule
	// horizonSet: spec.algorithm.adaptive.forecastHorizon was given (or
	// WithForecastHorizon called); otherwise the run derives it from the
	// cluster model ([Policy.ReadyHorizon]).
	horizonSet bool
	// history is the load before second 0 (see [Policy.WithHistory]).
	history workload.Trace
}

// PolicyBurstTarget is one entry of spec.burstTargets.
type PolicyBurstTarget struct {
	Cluster     string
	Weight      int32
	MaxReplicas int32 // 0: no cap
}

// Algorithms are the algorithm names a policy may use.
var Algorithms = []string{string(hcav1.AlgorithmAdaptive), string(hcav1.AlgorithmKubernetes), string(hcav1.AlgorithmFRSS), string(hcav1.AlgorithmPanic)}

// DefaultPolicy is the policy used without --policy: the CRD defaults
// (min 1, CPU at 80 %, algorithm adaptive, placement priority, pending
// threshold 5 s), max 100 replicas, primary and burst targets taken from
// the cluster model.
func DefaultPolicy(m ClusterModel) Policy {
	p := Policy{
		Name: "default", Algorithm: "adaptive", Min: 1, Max: 100, Metric: MetricCPU, Target: 80,
		Placement: scaling.PlacementPriority, Primary: m.Primary().Name, PendingThreshold: 5 * time.Second,
		ScaleDownDelay: capacity.DefaultScaleDownDelay,
	}
	for _, c := range m.Clusters {
		if !c.Primary {
			p.BurstTargets = append(p.BurstTargets, PolicyBurstTarget{Cluster: c.Name, Weight: 1})
		}
	}
	p.kubernetes = scaling.DefaultKubernetesConfig()
	p.kubernetes.Utilization = true
	p.frss = scaling.DefaultFRSSConfig()
	p.panic = scaling.DefaultPanicConfig()
	p.adaptive = scaling.DefaultAdaptiveConfig()
	return p
}

// ParsePolicy decodes a BurstPolicy (apiVersion hca.dev/v1alpha1, kind
// BurstPolicy) strictly — unknown or duplicate fields are errors — and
// applies the defaults of the CRD's kubebuilder markers. The fields the
// simulation does not use (target, propagate, consul) are accepted and
// ignored.
func ParsePolicy(data []byte) (Policy, error) {
	var bp hcav1.BurstPolicy
	if len(bytes.TrimSpace(data)) == 0 {
		return Policy{}, inputErr("policy: the file is empty: give a BurstPolicy (apiVersion hca.dev/v1alpha1, kind BurstPolicy)")
	}
	if err := yaml.UnmarshalStrict(data, &bp); err != nil {
		return Policy{}, inputErr("policy: %v", cleanYAMLError(err))
	}
	if bp.APIVersion != hcav1.GroupVersion.String() || bp.Kind != "BurstPolicy" {
		return Policy{}, inputErr("policy: apiVersion %q and kind %q: want apiVersion %s and kind BurstPolicy", bp.APIVersion, bp.Kind, hcav1.GroupVersion.String())
	}
	s := bp.Spec
	p := Policy{Name: bp.Name, ScaleDownDelay: capacity.DefaultScaleDownDelay}
	if c := s.Capacity; c != nil {
		p.AllowSpot = c.AllowSpot
		if c.ScaleDownDelay != nil {
			if c.ScaleDownDelay.Duration < 0 {
				return Policy{}, inputErr("policy: spec.capacity.scaleDownDelay is %v: use 0s or more", c.ScaleDownDelay.Duration)
			}
			p.ScaleDownDelay = c.ScaleDownDelay.Duration
		}
	}
	if s.PrimaryCluster == "" {
		return Policy{}, inputErr("policy: spec.primaryCluster is missing: name the primary cluster of the cluster model")
	}
	p.Primary = string(s.PrimaryCluster)
	if len(s.BurstTargets) == 0 {
		return Policy{}, inputErr("policy: spec.burstTargets is missing: list at least one burst cluster of the cluster model")
	}
	for i, t := range s.BurstTargets {
		if t.Cluster == "" {
			return Policy{}, inputErr("policy: spec.burstTargets[%d].cluster is missing: name a burst cluster", i)
		}
		if t.Cluster == s.PrimaryCluster {
			return Policy{}, inputErr("policy: spec.burstTargets[%d].cluster %q is the primary cluster: list only the clusters to burst into", i, t.Cluster)
		}
		bt := PolicyBurstTarget{Cluster: string(t.Cluster), Weight: 1}
		if t.Weight != nil {
			if *t.Weight < 0 || *t.Weight > 1000 {
				return Policy{}, inputErr("policy: spec.burstTargets[%d].weight is %d: use 0 to 1000", i, *t.Weight)
			}
			bt.Weight = *t.Weight
		}
		if t.MaxReplicas != nil {
			if *t.MaxReplicas < 0 {
				return Policy{}, inputErr("policy: spec.burstTargets[%d].maxReplicas is %d: use 0 or more", i, *t.MaxReplicas)
			}
			bt.MaxReplicas = *t.MaxReplicas
		}
		p.BurstTargets = append(p.BurstTargets, bt)
	}
	p.Placement = scaling.PlacementMode(s.Placement)
	if p.Placement == "" {
		p.Placement = scaling.PlacementPriority
	}
	switch p.Placement {
	case scaling.PlacementPriority, scaling.PlacementCheapest, scaling.PlacementWeighted, scaling.PlacementCapacity:
	default:
		return Policy{}, inputErr("policy: spec.placement %q is unknown: use priority, cheapest, weighted or capacity", s.Placement)
	}
	p.Min = s.MinReplicas
	if p.Min == 0 {
		p.Min = 1
	}
	if p.Min < 1 {
		return Policy{}, inputErr("policy: spec.minReplicas is %d: use 1 or more", s.MinReplicas)
	}
	if s.MaxReplicas == 0 {
		return Policy{}, inputErr("policy: spec.maxReplicas is missing: set the most replicas the target may have (all clusters)")
	}
	if s.MaxReplicas < p.Min {
		return Policy{}, inputErr("policy: spec.maxReplicas (%d) is less than spec.minReplicas (%d): raise maxReplicas", s.MaxReplicas, p.Min)
	}
	p.Max = s.MaxReplicas
	p.PendingThreshold = 5 * time.Second
	if s.PendingThreshold != nil {
		if s.PendingThreshold.Duration < 0 {
			return Policy{}, inputErr("policy: spec.pendingThreshold is %v: use 0s or more", s.PendingThreshold.Duration)
		}
		p.PendingThreshold = s.PendingThreshold.Duration
	}
	if err := p.setMetric(s.Metrics); err != nil {
		return Policy{}, err
	}
	p.spec = s.Algorithm
	if p.spec.Name == "" {
		p.spec.Name = hcav1.AlgorithmAdaptive
	}
	p.Algorithm = string(p.spec.Name)
	if err := checkAlgorithmName(p.Algorithm, "policy: spec.algorithm.name"); err != nil {
		return Policy{}, err
	}
	for _, set := range []struct {
		set  bool
		name hcav1.AlgorithmName
	}{{p.spec.Kubernetes != nil, hcav1.AlgorithmKubernetes}, {p.spec.FRSS != nil, hcav1.AlgorithmFRSS}, {p.spec.Panic != nil, hcav1.AlgorithmPanic}, {p.spec.Adaptive != nil, hcav1.AlgorithmAdaptive}} {
		if set.set && set.name != p.spec.Name {
			return Policy{}, inputErr("policy: spec.algorithm.%s is set but spec.algorithm.name is %s: set name to %s or remove %s", set.name, p.spec.Name, set.name, set.name)
		}
	}
	var err error
	if p.kubernetes, err = policy.KubernetesConfig(p.spec.Kubernetes, p.Metric == MetricCPU); err != nil {
		return Policy{}, inputErr("policy: %v", err)
	}
	if p.frss, err = policy.FRSSConfig(p.spec.FRSS); err != nil {
		return Policy{}, inputErr("policy: %v", err)
	}
	if p.panic, err = policy.PanicConfig(p.spec.Panic); err != nil {
		return Policy{}, inputErr("policy: %v", err)
	}
	if p.adaptive, err = policy.AdaptiveConfig(p.spec.Adaptive); err != nil {
		return Policy{}, inputErr("policy: %v", err)
	}
	p.horizonSet = p.spec.Adaptive != nil && p.spec.Adaptive.ForecastHorizon != nil
	if p.schedule, err = policy.Schedule(s.Schedules); err != nil {
		return Policy{}, inputErr("policy: %v", err)
	}
	return p, nil
}

func checkAlgorithmName(name, field string) error {
	for _, a := range Algorithms {
		if a == name {
			return nil
		}
	}
	return inputErr("%s %q is unknown: use %s", field, name, strings.Join(Algorithms, ", "))
}

// WithAlgorithm returns p using algorithm name: the policy's parameters if
// it configures that algorithm, the algorithm's defaults otherwise.
func (p Policy) WithAlgorithm(name string) (Policy, error) {
	if err := checkAlgorithmName(name, "algorithm"); err != nil {
		return Policy{}, err
	}
	if p.SLO != nil {
		return Policy{}, inputErr("algorithm %q: the policy is ServiceLevelObjective %q, whose strategy decides: compare algorithms with a BurstPolicy as --policy, and list the SLO file in --compare", name, p.SLO.Name)
	}
	p.Algorithm = name
	return p, nil
}

// NewAlgorithm builds the policy's algorithm with the scaling package's
// constructors.
func (p Policy) NewAlgorithm() (scaling.Algorithm, error) {
	var (
		a   scaling.Algorithm
		err error
	)
	switch p.Algorithm {
	case "kubernetes":
		a, err = scaling.NewKubernetes(p.kubernetes)
	case "frss":
		a, err = scaling.NewFRSS(p.frss)
	case "panic":
		a, err = scaling.NewPanic(p.panic)
	case "adaptive":
		a, err = scaling.NewAdaptive(p.adaptive)
	default:
		return nil, checkAlgorithmName(p.Algorithm, "algorithm")
	}
	if err != nil {
		return nil, inputErr("policy: %v", err)
	}
	return a, nil
}

// WithHeadroom returns p with the adaptive algorithm's headroom set:
// the larger of replicas and percent of the needed count kept spare, as
// spec.algorithm.adaptive.headroomReplicas and headroomPercent do.
func (p Policy) WithHeadroom(replicas int32, percent float64) (Policy, error) {
	p.adaptive.HeadroomReplicas, p.adaptive.HeadroomPercent = replicas, percent
	if err := p.adaptive.Validate(); err != nil {
		return Policy{}, inputErr("headroom: %v", err)
	}
	return p, nil
}

// WithStepRatio returns p with the adaptive algorithm's StepRatio set to r
// (0: every rise followed at once; see scaling.AdaptiveConfig), for
// comparing the default with its alternatives.
func (p Policy) WithStepRatio(r float64) (Policy, error) {
	p.adaptive.StepRatio = r
	if err := p.adaptive.Validate(); err != nil {
		return Policy{}, inputErr("step ratio: %v", err)
	}
	return p, nil
}

// WithForecastHorizon returns p with the adaptive algorithm's forecast
// horizon (spec.algorithm.adaptive.forecastHorizon) set to h.
func (p Policy) WithForecastHorizon(h time.Duration) (Policy, error) {
	p.adaptive.Horizon, p.horizonSet = h, true
	if err := p.adaptive.Validate(); err != nil {
		return Policy{}, inputErr("forecast horizon: %v", err)
	}
	return p, nil
}

func (p *Policy) setMetric(ms []hcav1.MetricSpec) error {
	if len(ms) == 0 {
		p.Metric, p.Target = MetricCPU, 80
		return nil
	}
	if len(ms) > 1 {
		return inputErr("policy: spec.metrics has %d entries: the simulator models one metric; keep the one to simulate", len(ms))
	}
	m := ms[0]
	switch m.Type {
	case hcav1.MetricResource:
		if m.Resource == nil {
			return inputErr("policy: spec.metrics[0].resource is missing: type Resource needs resource.name and resource.targetAverageUtilization")
		}
		if m.Resource.Name != hcav1.ResourceCPU {
			return inputErr("policy: spec.metrics[0].resource.name %q is not simulated: use cpu (the application model has no memory use)", m.Resource.Name)
		}
		if m.Resource.TargetAverageUtilization < 1 || m.Resource.TargetAverageUtilization > 1000 {
			return inputErr("policy: spec.metrics[0].resource.targetAverageUtilization is %d: set 1 to 1000 (percent of the CPU request)", m.Resource.TargetAverageUtilization)
		}
		p.Metric, p.Target = MetricCPU, float64(m.Resource.TargetAverageUtilization)
	case hcav1.MetricPromQL:
		if m.PromQL == nil {
			return inputErr("policy: spec.metrics[0].promql is missing: type PromQL needs promql.query and promql.targetValue")
		}
		if m.PromQL.TargetType != "" && m.PromQL.TargetType != hcav1.PromQLAverageValue {
			return inputErr("policy: spec.metrics[0].promql.targetType %q is not simulated: use AverageValue (the query stands for the total request rate)", m.PromQL.TargetType)
		}
		v := m.PromQL.TargetValue.AsApproximateFloat64()
		if !(v > 0) {
			return inputErr("policy: spec.metrics[0].promql.targetValue is missing or not above 0: set the requests/s one replica should serve")
		}
		p.Metric, p.Target = MetricRequestRate, v
	case "":
		return inputErr("policy: spec.metrics[0].type is missing: use Resource or PromQL")
	default:
		return inputErr("policy: spec.metrics[0].type %q is unknown: use Resource or PromQL", m.Type)
	}
	return nil
}

// quantityIn01 reads a fraction in [0, 1) for SLO fields, naming the field.
func quantityIn01(q *resource.Quantity, field string) (float64, error) {
	v := q.AsApproximateFloat64()
	if v < 0 || v >= 1 {
		return 0, inputErr("policy: %s is %s: use a value in [0, 1), e.g. \"0.1\" for 10 %%", field, q.String())
	}
	return v, nil
}

func dur(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.Duration
}

// cleanYAMLError shortens sigs.k8s.io/yaml's wrapping of encoding/json
// errors, keeping the field name.
func cleanYAMLError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "error unmarshaling JSON: ")
	s = strings.TrimPrefix(s, "while decoding JSON: ")
	return s
}

// WithSchedules returns p with spec.schedules replaced by windows (none:
// no schedule), as a policy file would set them.
func (p Policy) WithSchedules(windows []scaling.Window) (Policy, error) {
	if len(windows) == 0 {
		p.schedule = nil
		return p, nil
	}
	s, err := scaling.NewSchedule(windows)
	if err != nil {
		return Policy{}, inputErr("schedules: %v", err)
	}
	p.schedule = s
	return p, nil
}

// WithHistory returns p with the load of the trace's past: history's
// seconds 0 to its end stand for the span just before the run's second 0
// (its last point is the load at second 0). The adaptive algorithm is
// warmed with it at the start of a run, sampled at its step over its
// HistoryWindow, as the runtime warms it from Prometheus' query_range
// (runtime/controller burstTotals.warm); the other algorithms and the
// reactive floor keep no history and ignore it. Nil: none.
func (p Policy) WithHistory(history workload.Trace) Policy {
	p.history = history
	return p
}

// ReadyHorizon is the forecast horizons p's adaptive algorithm uses in
// model m: spec.algorithm.adaptive.forecastHorizon for both when set, else
// the times m takes to make a replica ready (scaling.ReadyHorizon). pods
// is that of a replica that starts where there is room (the primary
// cluster, a Ready node): the metric's age (scrape interval plus
// staleness) and the pod start-up. nodes is that of a replica that waits
// for a node (scaling.AdaptiveConfig.NodeHorizon): pods plus, when p
// bursts into a cluster whose replicas wait for nodes, the longest boot of
// its usable node groups (spot ones only with allowSpot) and the capacity
// round, or the cluster's provisioning delay (pods when none does).
func (p Policy) ReadyHorizon(m ClusterModel) (pods, nodes time.Duration) {
	if p.horizonSet {
		return p.adaptive.Horizon, p.adaptive.Horizon
	}
	var boot, round time.Duration
	for _, bt := range p.BurstTargets {
		c, ok := m.Cluster(bt.Cluster)
		if !ok {
			continue
		}
		boot = max(boot, c.ProvisioningDelay)
		for _, g := range c.NodeGroups {
			if (!g.Spot || p.AllowSpot) && g.Max > g.Min {
				boot, round = max(boot, g.BootDelay), m.CapacityInterval
			}
		}
	}
	age := m.ScrapeInterval + m.MetricStaleness
	return scaling.ReadyHorizon(age, m.Pod.StartupDelay, 0, 0), scaling.ReadyHorizon(age, m.Pod.StartupDelay, boot, round)
}

// scheduleLead is how far ahead of a window's start its floor applies: the
// adaptive algorithm's forecast horizon (the longer one, of replicas that
// wait for nodes), as in the runtime (policy.ScheduleLead); 0 for the
// other algorithms.
func (p Policy) scheduleLead() time.Duration {
	if p.Algorithm == string(hcav1.AlgorithmAdaptive) {
		return max(p.adaptive.Horizon, p.adaptive.NodeHorizon)
	}
	return 0
}
