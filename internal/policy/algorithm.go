package policy

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// NewAlgorithm builds the algorithm a's name selects, from a's parameters over
// the algorithm's defaults; no name is adaptive (the CRD's default).
// utilization is true for Resource metrics (values are percent of the pods'
// requests).
func NewAlgorithm(a hcav1.Algorithm, utilization bool) (scaling.Algorithm, error) {
	switch a.Name {
	case "", hcav1.AlgorithmAdaptive:
		c, err := AdaptiveConfig(a.Adaptive)
		if err != nil {
			return nil, err
		}
		return scaling.NewAdaptive(c)
	case hcav1.AlgorithmKubernetes:
		c, err := KubernetesConfig(a.Kubernetes, utilization)
		if err != nil {
			return nil, err
		}
		return scaling.NewKubernetes(c)
	case hcav1.AlgorithmFRSS:
		c, err := FRSSConfig(a.FRSS)
		if err != nil {
			return nil, err
		}
		return scaling.NewFRSS(c)
	case hcav1.AlgorithmPanic:
		c, err := PanicConfig(a.Panic)
		if err != nil {
			return nil, err
		}
		return scaling.NewPanic(c)
	default:
		return nil, fmt.Errorf("spec.algorithm.name %q is unknown: use adaptive, kubernetes, frss or panic", a.Name)
	}
}

// DecisionInterval is how often algorithm name decides: the HPA's sync
// period (15 s) for kubernetes and frss (which runs in the same loop), the
// KPA's tick (2 s) for panic and for adaptive (no name), which follows steps
// at panic mode's speed. The simulator decides this often; the runtime's
// burst controller must evaluate a policy's metrics this often for its
// decisions to match the simulator's figures.
func DecisionInterval(name hcav1.AlgorithmName) time.Duration {
	switch name {
	case hcav1.AlgorithmKubernetes, hcav1.AlgorithmFRSS:
		return 15 * time.Second
	}
	return 2 * time.Second
}

// NewAlgorithmForMetrics is NewAlgorithm for all the metrics of a policy:
// one instance per target, which decides over every metric at once
// (scaling.Algorithm.DecideMetrics: the highest metric's recommendation is
// stabilised once, as the HPA's computeReplicasForMetrics). Resource
// metrics are utilisation; the callers set each metric's
// Input.IgnoreReadiness from IgnoreReadiness.
func NewAlgorithmForMetrics(a hcav1.Algorithm, ms []hcav1.MetricSpec) (scaling.Algorithm, error) {
	return NewAlgorithmForMetricsWith(a, ms, DeriveHorizons(a.Adaptive, ReadyFigures{}))
}

// NewAlgorithmForMetricsWith is NewAlgorithmForMetrics with the adaptive
// algorithm's horizons h (DeriveHorizons from what the runtime measured);
// the other algorithms ignore h.
func NewAlgorithmForMetricsWith(a hcav1.Algorithm, ms []hcav1.MetricSpec, h Horizons) (scaling.Algorithm, error) {
	utilization := false
	for _, m := range ms {
		utilization = utilization || m.Type == hcav1.MetricResource
	}
	if a.Name == "" || a.Name == hcav1.AlgorithmAdaptive {
		c, err := AdaptiveConfigFor(a.Adaptive, h)
		if err != nil {
			return nil, err
		}
		return scaling.NewAdaptive(c)
	}
	return NewAlgorithm(a, utilization)
}

// IgnoreReadiness reports whether the samples of pods that run but are not
// Ready count for metric m: for every metric but the CPU resource
// (Kubernetes' groupPods checks readiness for CPU only), so memory samples
// of running pods that are not Ready count. It is scaling.Input's
// IgnoreReadiness, which the kubernetes algorithm reads.
func IgnoreReadiness(m hcav1.MetricSpec) bool {
	return !(m.Type == hcav1.MetricResource && m.Resource != nil && m.Resource.Name == hcav1.ResourceCPU)
}

func quantityIn01(q *resource.Quantity, field string) (float64, error) {
	v := q.AsApproximateFloat64()
	if v < 0 || v >= 1 {
		return 0, fmt.Errorf("%s is %s: use a value in [0, 1), e.g. \"0.1\" for 10 %%", field, q.String())
	}
	return v, nil
}

func dur(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.Duration
}

// KubernetesConfig is the HPA configuration of k over scaling's defaults.
// Neither scaleUp nor scaleDown set (or no algorithm.kubernetes at all) is an
// HPA without a behavior block: scaling.KubernetesConfig.Legacy, the
// max(2 x current, 4) scale-up cap per sync, as Kubernetes does when
// spec.behavior is unset (autoscaling/v2 defaulting fills the behavior's
// missing parts only when a behavior is given).
func KubernetesConfig(k *hcav1.KubernetesAlgorithm, utilization bool) (scaling.KubernetesConfig, error) {
	c := scaling.DefaultKubernetesConfig()
	c.Utilization = utilization
	c.Legacy = k == nil || (k.ScaleUp == nil && k.ScaleDown == nil)
	if k == nil {
		return c, nil
	}
	if k.Tolerance != nil {
		t, err := quantityIn01(k.Tolerance, "spec.algorithm.kubernetes.tolerance")
		if err != nil {
			return c, err
		}
		c.ScaleUp.Tolerance, c.ScaleDown.Tolerance = t, t
	}
	for _, d := range []struct {
		in    *hcav1.ScalingRules
		out   *scaling.HPARules
		field string
	}{{k.ScaleUp, &c.ScaleUp, "spec.algorithm.kubernetes.scaleUp"}, {k.ScaleDown, &c.ScaleDown, "spec.algorithm.kubernetes.scaleDown"}} {
		if d.in == nil {
			continue
		}
		if d.in.StabilizationWindow != nil {
			d.out.StabilizationWindow = d.in.StabilizationWindow.Duration
		}
		if d.in.Tolerance != nil {
			t, err := quantityIn01(d.in.Tolerance, d.field+".tolerance")
			if err != nil {
				return c, err
			}
			d.out.Tolerance = t
		}
		if d.in.SelectPolicy != "" {
			d.out.SelectPolicy = scaling.SelectPolicy(d.in.SelectPolicy)
		}
		if len(d.in.Policies) > 0 {
			d.out.Policies = nil
			for _, pol := range d.in.Policies {
				d.out.Policies = append(d.out.Policies, scaling.HPAPolicy{Type: scaling.HPAPolicyType(pol.Type), Value: pol.Value, Period: pol.Period.Duration})
			}
		}
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("spec.algorithm.kubernetes: %w", err)
	}
	return c, nil
}

// FRSSConfig is the Fast-Response/Slow-Shrinkage configuration of f over
// scaling's defaults.
func FRSSConfig(f *hcav1.FRSSAlgorithm) (scaling.FRSSConfig, error) {
	c := scaling.DefaultFRSSConfig()
	if f == nil {
		return c, nil
	}
	if f.Tolerance != nil {
		t, err := quantityIn01(f.Tolerance, "spec.algorithm.frss.tolerance")
		if err != nil {
			return c, err
		}
		c.Tolerance = t
	}
	if f.ScaleUpRate != 0 {
		c.ScaleUpRate = float64(f.ScaleUpRate)
	}
	c.UpWindow = dur(f.UpWindow, c.UpWindow)
	c.DownWindow = dur(f.DownWindow, c.DownWindow)
	if f.ShrinkStep != 0 {
		c.ShrinkStep = f.ShrinkStep
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("spec.algorithm.frss: %w", err)
	}
	return c, nil
}

// PanicConfig is the KPA configuration of p over scaling's defaults; the panic
// window is 6 s unless set (the CRD's default).
func PanicConfig(p *hcav1.PanicAlgorithm) (scaling.PanicConfig, error) {
	c := scaling.DefaultPanicConfig()
	if p == nil {
		return c, nil
	}
	c.StableWindow = dur(p.StableWindow, c.StableWindow)
	panicWindow := dur(p.PanicWindow, 6*time.Second)
	if panicWindow >= c.StableWindow {
		return c, fmt.Errorf("spec.algorithm.panic.panicWindow (%v) is not shorter than stableWindow (%v): shorten it", panicWindow, c.StableWindow)
	}
	c.PanicWindowPercentage = float64(panicWindow) / float64(c.StableWindow) * 100
	if p.PanicThresholdPercent != 0 {
		c.PanicThreshold = float64(p.PanicThresholdPercent)
	}
	if p.MaxScaleUpRate != nil {
		c.MaxScaleUpRate = p.MaxScaleUpRate.AsApproximateFloat64()
	}
	if p.MaxScaleDownRate != nil {
		c.MaxScaleDownRate = p.MaxScaleDownRate.AsApproximateFloat64()
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("spec.algorithm.panic: %w", err)
	}
	return c, nil
}

// AdaptiveConfig is the adaptive algorithm's configuration of ad over
// scaling's defaults.
func AdaptiveConfig(ad *hcav1.AdaptiveAlgorithm) (scaling.AdaptiveConfig, error) {
	c := scaling.DefaultAdaptiveConfig()
	if ad == nil {
		return c, nil
	}
	c.ScaleDownWindow = dur(ad.ScaleDownStabilizationWindow, c.ScaleDownWindow)
	c.Horizon = dur(ad.ForecastHorizon, c.Horizon)
	c.SeasonalPeriod = dur(ad.SeasonalPeriod, c.SeasonalPeriod)
	c.HeadroomPercent, c.HeadroomReplicas = float64(ad.HeadroomPercent), ad.HeadroomReplicas
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("spec.algorithm.adaptive: %w", err)
	}
	return c, nil
}
