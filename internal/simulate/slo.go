package simulate

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"time"

	"sigs.k8s.io/yaml"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// SLO is a ServiceLevelObjective with the CRD defaults applied, in the
// terms the simulator needs. A [Policy] carries it (Policy.SLO) when the
// input was a ServiceLevelObjective.
type SLO struct {
	// Name is metadata.name.
	Name string
	Type hcav1.SLOType
	// Objective is what slo.Evaluate receives, built as the SLO controller
	// builds it (runtime/controller planSLO).
	Objective slo.Objective
	// Tolerance is spec.tolerance (default 0.1).
	Tolerance float64
	// Interval is spec.evaluationInterval (default 20s).
	Interval time.Duration
	// UpWindow and DownWindow are spec.stabilization (default 0s and 5m).
	UpWindow, DownWindow time.Duration
	// Strategy is spec.elasticityStrategy.kind.
	Strategy hcav1.StrategyKind
	// MinReplicas and MaxReplicas are the Horizontal strategy's bounds.
	MinReplicas, MaxReplicas int32
	// Vertical is the Vertical strategy's configuration as the vertical
	// strategy controller builds it (runtime/controller verticalConfig).
	Vertical slo.VerticalConfig
	// BurstPolicy is the Burst strategy's burstPolicyName.
	BurstPolicy string
	// FastThreshold is costEfficiency.responseTimeThreshold in seconds.
	FastThreshold float64
	// fastBucket is loadsim's bucket whose bound is FastThreshold.
	fastBucket int
}

// Rate window of the SLO controller's queries (runtime/controller
// DefaultSLOWindow): rates and histogram quantiles cover the scrapes of the
// last minute.
const sloWindow = 60 * time.Second

// LatencyPercentile is the response-time percentile the run's charts and
// latency series show: the SLO's for a latency SLO, else 95.
func (p Policy) LatencyPercentile() float64 {
	if p.SLO != nil && p.SLO.Type == hcav1.SLOLatency {
		return p.SLO.Objective.Percentile
	}
	return 95
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// ParseInput decodes a policy file and tells its kind from the YAML's kind:
// a BurstPolicy ([ParsePolicy]), a ServiceLevelObjective ([ParseSLO]), or,
// for an SLO whose strategy is Burst, the ServiceLevelObjective and the
// BurstPolicy it names, as two YAML documents separated by a --- line (the
// way kubectl apply takes them).
func ParseInput(data []byte) (Policy, error) {
	var docs [][]byte
	for _, d := range docSeparator.Split(string(data), -1) {
		if len(bytes.TrimSpace(stripComments([]byte(d)))) > 0 {
			docs = append(docs, []byte(d))
		}
	}
	if len(docs) == 0 {
		return Policy{}, inputErr("policy: the file is empty: give a BurstPolicy or a ServiceLevelObjective (apiVersion hca.dev/v1alpha1)")
	}
	var (
		sloDoc, bpDoc []byte
	)
	for i, d := range docs {
		var tm struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(d, &tm); err != nil {
			return Policy{}, inputErr("policy: document %d: %v", i+1, cleanYAMLError(err))
		}
		switch tm.Kind {
		case "ServiceLevelObjective":
			if sloDoc != nil {
				return Policy{}, inputErr("policy: document %d is a second ServiceLevelObjective: simulate one SLO per file", i+1)
			}
			sloDoc = d
		case "BurstPolicy":
			if bpDoc != nil {
				return Policy{}, inputErr("policy: document %d is a second BurstPolicy: give one", i+1)
			}
			bpDoc = d
		default:
			return Policy{}, inputErr("policy: document %d has kind %q: want BurstPolicy or ServiceLevelObjective", i+1, tm.Kind)
		}
	}
	if sloDoc == nil {
		return ParsePolicy(bpDoc)
	}
	s, err := ParseSLO(sloDoc)
	if err != nil {
		return Policy{}, err
	}
	if s.Strategy != hcav1.StrategyBurst {
		if bpDoc != nil {
			return Policy{}, inputErr("policy: a BurstPolicy is given with an SLO whose spec.elasticityStrategy.kind is %s: remove the BurstPolicy, or use kind Burst", s.Strategy)
		}
		return sloPolicy(s), nil
	}
	if bpDoc == nil {
		return Policy{}, inputErr("policy: spec.elasticityStrategy.kind is Burst but the file has no BurstPolicy: add BurstPolicy %q after a --- line", s.BurstPolicy)
	}
	p, err := ParsePolicy(bpDoc)
	if err != nil {
		return Policy{}, err
	}
	if p.Name != s.BurstPolicy {
		return Policy{}, inputErr("policy: spec.elasticityStrategy.burst.burstPolicyName is %q but the BurstPolicy is named %q: use the same name", s.BurstPolicy, p.Name)
	}
	p.SLO = &s
	p.Algorithm = "slo-burst"
	return p, nil
}

// stripComments drops YAML comment lines, so that a document of comments
// only counts as empty.
func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			out = append(out, l...)
			out = append(out, '\n')
		}
	}
	return out
}

// sloPolicy is the engine's view of a Horizontal or Vertical SLO: the
// target runs in the primary cluster only (neither strategy bursts; pods
// the primary cannot schedule stay pending).
func sloPolicy(s SLO) Policy {
	p := Policy{Name: s.Name, SLO: &s, Metric: MetricCPU, Target: 80, Placement: scaling.PlacementPriority, PendingThreshold: 5 * time.Second, ScaleDownDelay: capacity.DefaultScaleDownDelay}
	switch s.Strategy {
	case hcav1.StrategyHorizontal:
		p.Algorithm, p.Min, p.Max = "slo-horizontal", s.MinReplicas, s.MaxReplicas
	default:
		p.Algorithm, p.Min, p.Max = "slo-vertical", 1, math.MaxInt32
	}
	return p
}

// ParseSLO decodes a ServiceLevelObjective (apiVersion hca.dev/v1alpha1)
// strictly — unknown or duplicate fields are errors — applies the defaults
// of the CRD's kubebuilder markers and checks what the CRD's validation
// rules check. Types custom (a PromQL query the simulator cannot run) is
// rejected. Fields the simulation does not use (target, histogramMetric,
// requestsMetric, errorCodes, vertical.container) are accepted and ignored.
func ParseSLO(data []byte) (SLO, error) {
	var o hcav1.ServiceLevelObjective
	if len(bytes.TrimSpace(data)) == 0 {
		return SLO{}, inputErr("slo: the file is empty: give a ServiceLevelObjective (apiVersion hca.dev/v1alpha1)")
	}
	if err := yaml.UnmarshalStrict(data, &o); err != nil {
		return SLO{}, inputErr("slo: %v", cleanYAMLError(err))
	}
	if o.APIVersion != hcav1.GroupVersion.String() || o.Kind != "ServiceLevelObjective" {
		return SLO{}, inputErr("slo: apiVersion %q and kind %q: want apiVersion %s and kind ServiceLevelObjective", o.APIVersion, o.Kind, hcav1.GroupVersion.String())
	}
	sp := o.Spec
	s := SLO{Name: o.Name, Type: sp.SLO.Type, Tolerance: slo.DefaultTolerance, Interval: 20 * time.Second, DownWindow: 5 * time.Minute}
	if sp.Tolerance != nil {
		t, err := quantityIn01(sp.Tolerance, "spec.tolerance")
		if err != nil {
			return SLO{}, err
		}
		s.Tolerance = t
	}
	if d := sp.EvaluationInterval; d != nil {
		if d.Duration < time.Second || d.Duration%time.Second != 0 {
			return SLO{}, inputErr("slo: spec.evaluationInterval is %v: use whole seconds, at least 1s (the simulation steps by 1s)", d.Duration)
		}
		s.Interval = d.Duration
	}
	if st := sp.Stabilization; st != nil {
		s.UpWindow, s.DownWindow = dur(st.ScaleUp, s.UpWindow), dur(st.ScaleDown, s.DownWindow)
		if s.UpWindow < 0 || s.DownWindow < 0 {
			return SLO{}, inputErr("slo: spec.stabilization is %v up, %v down: use 0s or more", s.UpWindow, s.DownWindow)
		}
	}
	if err := s.setObjective(sp.SLO); err != nil {
		return SLO{}, err
	}
	if err := s.Objective.Validate(); err != nil {
		return SLO{}, inputErr("slo: spec.slo: %v", err)
	}
	es := sp.ElasticityStrategy
	s.Strategy = es.Kind
	switch es.Kind {
	case hcav1.StrategyHorizontal:
		h := es.Horizontal
		if h == nil {
			return SLO{}, inputErr("slo: spec.elasticityStrategy.horizontal is missing: kind Horizontal needs horizontal.maxReplicas (and minReplicas, default 1)")
		}
		if h.MaxReplicas < 1 {
			return SLO{}, inputErr("slo: spec.elasticityStrategy.horizontal.maxReplicas is missing or below 1: set the most replicas the strategy may set")
		}
		s.MinReplicas = h.MinReplicas
		if s.MinReplicas == 0 {
			s.MinReplicas = 1
		}
		if s.MinReplicas < 1 || s.MinReplicas > h.MaxReplicas {
			return SLO{}, inputErr("slo: spec.elasticityStrategy.horizontal.minReplicas is %d: use 1 to maxReplicas (%d)", h.MinReplicas, h.MaxReplicas)
		}
		s.MaxReplicas = h.MaxReplicas
	case hcav1.StrategyVertical:
		v := es.Vertical
		if v == nil {
			return SLO{}, inputErr("slo: spec.elasticityStrategy.vertical is missing: kind Vertical needs vertical.minCPU, maxCPU, minMemory and maxMemory")
		}
		for _, q := range []struct {
			zero  bool
			field string
		}{{v.MinCPU.IsZero(), "minCPU"}, {v.MaxCPU.IsZero(), "maxCPU"}, {v.MinMemory.IsZero(), "minMemory"}, {v.MaxMemory.IsZero(), "maxMemory"}} {
			if q.zero {
				return SLO{}, inputErr("slo: spec.elasticityStrategy.vertical.%s is missing: set it above 0 (e.g. \"250m\" CPU, \"256Mi\" memory)", q.field)
			}
		}
		// As runtime/controller verticalConfig.
		s.Vertical = slo.VerticalConfig{
			Min:            slo.Resources{CPUMilli: v.MinCPU.MilliValue(), MemoryBytes: v.MinMemory.Value()},
			Max:            slo.Resources{CPUMilli: v.MaxCPU.MilliValue(), MemoryBytes: v.MaxMemory.Value()},
			ScaleUpPercent: slo.DefaultStepPercent, ScaleDownPercent: slo.DefaultStepPercent,
			CPUStepMilli: 100, MemoryStepBytes: 64 << 20,
			Tolerance: s.Tolerance, ScaleUpWindow: s.UpWindow, ScaleDownWindow: s.DownWindow,
		}
		if v.CPUStep != nil {
			s.Vertical.CPUStepMilli = v.CPUStep.MilliValue()
		}
		if v.MemoryStep != nil {
			s.Vertical.MemoryStepBytes = v.MemoryStep.Value()
		}
		if _, err := slo.Vertical(Epoch, s.Vertical.Min, 100, time.Time{}, s.Vertical); err != nil {
			return SLO{}, inputErr("slo: spec.elasticityStrategy.vertical: %v", err)
		}
	case hcav1.StrategyBurst:
		if es.Burst == nil || es.Burst.BurstPolicyName == "" {
			return SLO{}, inputErr("slo: spec.elasticityStrategy.burst.burstPolicyName is missing: name the BurstPolicy the SLO drives")
		}
		s.BurstPolicy = string(es.Burst.BurstPolicyName)
	case hcav1.StrategyMultiObjective:
		return SLO{}, inputErr("slo: spec.elasticityStrategy.kind MultiObjective is not simulated from the SLO: simulate the MultiObjectiveElasticityStrategy the runtime writes for it (kubectl get multiobjectiveelasticitystrategy %s -o yaml, and its model's ConfigMap after a --- line)", s.Name)
	case "":
		return SLO{}, inputErr("slo: spec.elasticityStrategy.kind is missing: use Horizontal, Vertical, Burst or MultiObjective")
	default:
		return SLO{}, inputErr("slo: spec.elasticityStrategy.kind %q is unknown: use Horizontal, Vertical or Burst", es.Kind)
	}
	return s, nil
}

// setObjective builds slo.Objective as runtime/controller planSLO does.
func (s *SLO) setObjective(spec hcav1.SLOSpec) error {
	set := map[hcav1.SLOType]bool{
		hcav1.SLOCPUUtilization: spec.CPUUtilization != nil, hcav1.SLOLatency: spec.Latency != nil,
		hcav1.SLOCostEfficiency: spec.CostEfficiency != nil, hcav1.SLOAvailability: spec.Availability != nil, hcav1.SLOCustom: spec.Custom != nil,
	}
	field := map[hcav1.SLOType]string{
		hcav1.SLOCPUUtilization: "cpuUtilization", hcav1.SLOLatency: "latency", hcav1.SLOCostEfficiency: "costEfficiency",
		hcav1.SLOAvailability: "availability", hcav1.SLOCustom: "custom",
	}
	for _, typ := range []hcav1.SLOType{hcav1.SLOCPUUtilization, hcav1.SLOLatency, hcav1.SLOCostEfficiency, hcav1.SLOAvailability, hcav1.SLOCustom} {
		if set[typ] && typ != spec.Type {
			return inputErr("slo: spec.slo.%s is set but spec.slo.type is %q: remove %s or set type to %s", field[typ], spec.Type, field[typ], typ)
		}
	}
	switch spec.Type {
	case hcav1.SLOCPUUtilization:
		c := spec.CPUUtilization
		if c == nil {
			return inputErr("slo: spec.slo.cpuUtilization is missing: type cpu-utilization needs cpuUtilization.targetAverageUtilization")
		}
		if c.TargetAverageUtilization < 1 || c.TargetAverageUtilization > 100 {
			return inputErr("slo: spec.slo.cpuUtilization.targetAverageUtilization is %d: set 1 to 100 (percent of the CPU request)", c.TargetAverageUtilization)
		}
		s.Objective = slo.Objective{Kind: slo.KindCPUUtilization, TargetUtilizationPercent: float64(c.TargetAverageUtilization)}
	case hcav1.SLOLatency:
		l := spec.Latency
		if l == nil {
			return inputErr("slo: spec.slo.latency is missing: type latency needs latency.percentile and latency.threshold")
		}
		pct := l.Percentile.AsApproximateFloat64()
		if !(pct > 0 && pct < 100) {
			return inputErr("slo: spec.slo.latency.percentile is missing or %q: set a value in (0, 100), e.g. \"99\"", l.Percentile.String())
		}
		if l.Threshold.Duration <= 0 {
			return inputErr("slo: spec.slo.latency.threshold is missing or not above 0: set the response time the percentile must stay under, e.g. \"200ms\"")
		}
		s.Objective = slo.Objective{Kind: slo.KindLatency, Percentile: pct, ThresholdSeconds: l.Threshold.Seconds()}
	case hcav1.SLOAvailability:
		a := spec.Availability
		if a == nil {
			return inputErr("slo: spec.slo.availability is missing: type availability needs availability.targetPercent")
		}
		if a.TargetPercent.IsZero() {
			return inputErr("slo: spec.slo.availability.targetPercent is missing: set the share of successful requests, e.g. \"99.9\"")
		}
		s.Objective = slo.Objective{Kind: slo.KindAvailability, TargetAvailabilityPercent: a.TargetPercent.AsApproximateFloat64()}
	case hcav1.SLOCostEfficiency:
		c := spec.CostEfficiency
		if c == nil {
			return inputErr("slo: spec.slo.costEfficiency is missing: type cost-efficiency needs costEfficiency.responseTimeThreshold and targetCostEfficiency")
		}
		if c.ResponseTimeThreshold.Duration <= 0 {
			return inputErr("slo: spec.slo.costEfficiency.responseTimeThreshold is missing or not above 0: set one of loadsim's bucket bounds, e.g. \"250ms\"")
		}
		if c.TargetCostEfficiency.IsZero() {
			return inputErr("slo: spec.slo.costEfficiency.targetCostEfficiency is missing: set the wanted fast requests/s per $/hour, above 0")
		}
		s.FastThreshold = c.ResponseTimeThreshold.Seconds()
		s.fastBucket = -1
		for i, le := range workload.Buckets {
			if math.Abs(le-s.FastThreshold) < 1e-9 {
				s.fastBucket = i
			}
		}
		if s.fastBucket < 0 {
			// The controller queries the bucket le=threshold; a bound the
			// histogram lacks returns no series (no data, never scales).
			return inputErr("slo: spec.slo.costEfficiency.responseTimeThreshold %v is not a bucket bound of the application's histogram: use one of %v (seconds)", c.ResponseTimeThreshold.Duration, workload.Buckets)
		}
		s.Objective = slo.Objective{Kind: slo.KindCostEfficiency, TargetCostEfficiency: c.TargetCostEfficiency.AsApproximateFloat64()}
		if c.MinRequestsPercentile != nil {
			s.Objective.MinFastPercent = float64(*c.MinRequestsPercentile)
		}
	case hcav1.SLOCustom:
		return inputErr("slo: spec.slo.type custom is not simulated (a PromQL query over the application's metrics): use cpu-utilization, latency, cost-efficiency or availability")
	case "":
		return inputErr("slo: spec.slo.type is missing: use cpu-utilization, latency, cost-efficiency or availability")
	default:
		return inputErr("slo: spec.slo.type %q is unknown: use cpu-utilization, latency, cost-efficiency or availability", spec.Type)
	}
	return nil
}

// compliancePercent rounds a compliance to the int32 the API carries, as
// runtime/controller compliancePercent does: the strategies see this
// rounded value, and act once per distinct output.
func compliancePercent(c float64) int32 {
	switch {
	case !(c > 0):
		return 0
	case c >= math.MaxInt32:
		return math.MaxInt32
	}
	return int32(math.Round(c))
}

// retryAfter is how soon the horizontal strategy controller retries a
// decision a window held back (runtime/controller retryAfter).
func retryAfter(up, down time.Duration) time.Duration {
	w := max(up, down) / 10
	return min(max(w, time.Second), 30*time.Second)
}

// sloString describes the SLO for tables and charts.
func (s *SLO) String() string {
	switch s.Type {
	case hcav1.SLOLatency:
		return fmt.Sprintf("latency p%g < %v", s.Objective.Percentile, time.Duration(s.Objective.ThresholdSeconds*float64(time.Second)))
	case hcav1.SLOCPUUtilization:
		return fmt.Sprintf("CPU at %g %%", s.Objective.TargetUtilizationPercent)
	case hcav1.SLOAvailability:
		return fmt.Sprintf("availability %g %%", s.Objective.TargetAvailabilityPercent)
	default:
		return fmt.Sprintf("cost efficiency %g", s.Objective.TargetCostEfficiency)
	}
}
