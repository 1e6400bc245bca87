package policy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
)

// The MultiObjective strategy's defaults where the CRD's markers did not
// apply (a spec decoded without the API server): a decision every 30 s, a
// 2-minute cooldown, 85 % CPU and 80 % memory usage.
const (
	DefaultMultiObjectiveInterval           = 30 * time.Second
	DefaultMultiObjectiveCooldown           = 2 * time.Minute
	DefaultMultiObjectiveCPUUsagePercent    = 85
	DefaultMultiObjectiveMemoryUsagePercent = 80
)

// MultiObjectiveInterval is spec.interval, or the default when unset or not
// above 0.
func MultiObjectiveInterval(spec *hcav1.MultiObjectiveElasticityStrategySpec) time.Duration {
	if spec.Interval != nil && spec.Interval.Duration > 0 {
		return spec.Interval.Duration
	}
	return DefaultMultiObjectiveInterval
}

// MultiObjectiveLoop is the moha.Loop of a MultiObjective strategy's spec:
// the controller decides with it and the simulator replays it. Unset usages,
// cooldown and minimum replicas take the CRD's defaults; the headroom and the
// hysteresis are the moha package's.
func MultiObjectiveLoop(spec *hcav1.MultiObjectiveElasticityStrategySpec) moha.Loop {
	d, rg := spec.Desired, spec.Ranges
	pct := func(v int32, def float64) float64 {
		if v == 0 {
			return def
		}
		return float64(v)
	}
	minReplicas := max(rg.MinReplicas, 1)
	l := moha.Loop{
		Config: moha.Config{
			Desired: moha.Desired{ResponseTimeMs: float64(d.ResponseTimeMillis), CPUUsagePercent: pct(d.CPUUsagePercent, DefaultMultiObjectiveCPUUsagePercent), MemoryUsagePercent: pct(d.MemoryUsagePercent, DefaultMultiObjectiveMemoryUsagePercent)},
			Ranges: moha.Ranges{
				CPULimitMilli:  moha.Range{Min: float64(rg.MinCPU.MilliValue()), Max: float64(rg.MaxCPU.MilliValue())},
				MemoryLimitMiB: moha.Range{Min: MiB(rg.MinMemory), Max: MiB(rg.MaxMemory)},
				Replicas:       moha.Range{Min: float64(minReplicas), Max: float64(rg.MaxReplicas)},
			},
			Weights: MultiObjectiveWeights(spec),
		},
		TolerancePercent:    float64(spec.TolerancePercent),
		Cooldown:            DefaultMultiObjectiveCooldown,
		HeadroomPercent:     moha.DefaultHeadroomPercent,
		LoadHeadroomPercent: moha.DefaultLoadHeadroomPercent,
		MinDecreasePercent:  moha.DefaultMinDecreasePercent,
	}
	if spec.Cooldown != nil {
		l.Cooldown = spec.Cooldown.Duration
	}
	return l
}

// MiB is a memory quantity in MiB.
func MiB(q resource.Quantity) float64 { return float64(q.Value()) / (1 << 20) }

// MultiObjectiveWeights are the spec's explicit weights or its preset's
// (Balanced by default).
func MultiObjectiveWeights(spec *hcav1.MultiObjectiveElasticityStrategySpec) moha.Weights {
	if w := spec.Weights; w != nil {
		// The nearest float to the decimal (AsApproximateFloat64 gives
		// 0.7000000000000001 for 0.7).
		f := func(q resource.Quantity) float64 {
			v, err := strconv.ParseFloat(q.AsDec().String(), 64)
			if err != nil {
				return q.AsApproximateFloat64()
			}
			return v
		}
		return moha.Weights{ResponseTime: f(w.ResponseTime), CPUUsage: f(w.CPUUsage), MemoryUsage: f(w.MemoryUsage),
			CPULimit: f(w.CPULimit), MemoryLimit: f(w.MemoryLimit), Replicas: f(w.Replicas)}
	}
	switch spec.WeightPreset {
	case hcav1.WeightsResponseTimeFirst:
		return moha.ResponseTimeFirst
	case hcav1.WeightsResourcesFirst:
		return moha.ResourcesFirst
	default:
		return moha.Balanced
	}
}

// ErrNotMultiObjective: the SLO cannot be enforced by the MultiObjective
// strategy (see MultiObjectiveFromSLO).
var ErrNotMultiObjective = errors.New("invalid MultiObjective SLO")

// MultiObjectiveFromSLO is the spec of the MultiObjectiveElasticityStrategy
// that enforces an SLO of kind MultiObjective: the SLO's target, its latency
// threshold as the desired response time (in milliseconds, rounded up, at
// least 1) and spec.elasticityStrategy.multiObjective, whose unset usages
// take the defaults (85 % CPU, 80 % memory) so that the spec is the one the
// API server stores. The controller writes it and the simulator replays it.
// An SLO the CRD's rules refuse gives an error wrapping ErrNotMultiObjective
// that names the field.
func MultiObjectiveFromSLO(spec *hcav1.ServiceLevelObjectiveSpec) (hcav1.MultiObjectiveElasticityStrategySpec, error) {
	var out hcav1.MultiObjectiveElasticityStrategySpec
	mo := spec.ElasticityStrategy.MultiObjective
	if mo == nil {
		return out, fmt.Errorf("%w: spec.elasticityStrategy.multiObjective (model and ranges) is required for kind MultiObjective", ErrNotMultiObjective)
	}
	if spec.SLO.Type != hcav1.SLOLatency || spec.SLO.Latency == nil {
		return out, fmt.Errorf("%w: kind MultiObjective needs spec.slo.type latency, whose threshold is the desired response time (slo.type is %q)", ErrNotMultiObjective, spec.SLO.Type)
	}
	if k := spec.Target.Kind; k != "" && k != hcav1.WorkloadDeployment {
		return out, fmt.Errorf("%w: kind MultiObjective scales a Deployment, spec.target.kind is %s", ErrNotMultiObjective, k)
	}
	th := spec.SLO.Latency.Threshold.Duration
	if th <= 0 {
		return out, fmt.Errorf("%w: spec.slo.latency.threshold must be greater than 0, e.g. \"200ms\"", ErrNotMultiObjective)
	}
	ms := math.Ceil(float64(th) / float64(time.Millisecond))
	if ms > math.MaxInt32 {
		ms = math.MaxInt32
	}
	out.Target = hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: spec.Target.Name}
	out.Desired = hcav1.MultiObjectiveDesired{ResponseTimeMillis: int32(ms), MultiObjectiveDesiredUsage: hcav1.MultiObjectiveDesiredUsage{
		CPUUsagePercent: DefaultMultiObjectiveCPUUsagePercent, MemoryUsagePercent: DefaultMultiObjectiveMemoryUsagePercent}}
	if u := mo.Desired; u != nil {
		if u.CPUUsagePercent != 0 {
			out.Desired.CPUUsagePercent = u.CPUUsagePercent
		}
		if u.MemoryUsagePercent != 0 {
			out.Desired.MemoryUsagePercent = u.MemoryUsagePercent
		}
	}
	out.MultiObjectiveStaticConfig = *mo.MultiObjectiveStaticConfig.DeepCopy()
	return out, nil
}
