package scaling

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// HPAPolicyType is the kind of an [HPAPolicy]: a number of pods or a
// percentage of the replicas at the start of the period.
type HPAPolicyType string

// Policy types, as autoscaling/v2 spells them.
const (
	PodsPolicy    HPAPolicyType = "Pods"
	PercentPolicy HPAPolicyType = "Percent"
)

// SelectPolicy chooses among the policies of [HPARules], as the HPA's
// selectPolicy: Max (the policy allowing the largest change), Min (the
// smallest) or Disabled (no change in that direction).
type SelectPolicy string

// Select policies, as autoscaling/v2 spells them.
const (
	SelectMax      SelectPolicy = "Max"
	SelectMin      SelectPolicy = "Min"
	SelectDisabled SelectPolicy = "Disabled"
)

// HPAPolicy allows a change of Value pods (Pods) or Value percent (Percent)
// within any Period.
type HPAPolicy struct {
	Type   HPAPolicyType
	Value  int32
	Period time.Duration
}

// HPARules are the scale-up or scale-down rules of an HPA's behavior.
type HPARules struct {
	// StabilizationWindow: scaling up uses the lowest, scaling down the
	// highest recommendation made within the window (0 to 1 h).
	StabilizationWindow time.Duration
	// SelectPolicy picks among Policies; "" means Max.
	SelectPolicy SelectPolicy
	// Policies bound the change per period; at least one.
	Policies []HPAPolicy
	// Tolerance is the relative distance of the usage ratio from 1 below
	// which nothing changes in this direction (0.1: ratios within
	// [0.9, 1.1] hold). Finite and >= 0, as the HPA's configurable
	// tolerance (Kubernetes 1.33+).
	Tolerance float64
}

// KubernetesConfig configures [NewKubernetes]. Start from
// [DefaultKubernetesConfig] and change fields: the zero value is invalid (no
// policies).
type KubernetesConfig struct {
	ScaleUp   HPARules
	ScaleDown HPARules
	// Utilization says PodSample.Value and Input.Target are resource
	// utilisation in percent of the pods' requests, as the HPA's Resource
	// metrics with an averageUtilization target: the average is truncated to
	// a whole percent and, when scaling down, pods without a sample count as
	// max(100, Target) percent. When false the values are plain per-pod
	// metric values (Pods metrics, AverageValue targets): no truncation, and
	// pods without a sample count as exactly Target when scaling down.
	Utilization bool
	// IgnoreReadiness counts a running pod's sample whether the pod is
	// Ready or not, as upstream groupPods does for every metric but the CPU
	// resource (memory, Pods and Object metrics). False: a pod that is not
	// Ready and has a sample is unready (CPU).
	IgnoreReadiness bool
	// Legacy is an HPA without a behavior block (spec.behavior unset):
	// Kubernetes then takes normalizeDesiredReplicas, not the behavior
	// path. A scale-up is capped at max(2 x Current, 4) per decision
	// (horizontal.go's scaleUpLimitFactor and scaleUpLimitMinimum, applied
	// once per sync: 15 s by default); a scale-down is only stabilised by
	// ScaleDown.StabilizationWindow (the controller's
	// --horizontal-pod-autoscaler-downscale-stabilization, 5 m) and not
	// rate-limited. ScaleUp's window and both directions' policies and
	// select policies are not used; the tolerances are.
	Legacy bool
}

// DefaultKubernetesConfig returns the HPA's defaults (autoscaling/v2
// defaulting and the controller's flags): scale up with no stabilisation
// window by at most max(4 pods, 100 %) per 15 s; scale down with a 300 s
// window by at most 100 % per 15 s; tolerance 0.1 both ways.
func DefaultKubernetesConfig() KubernetesConfig {
	return KubernetesConfig{
		ScaleUp: HPARules{
			StabilizationWindow: 0,
			SelectPolicy:        SelectMax,
			Policies: []HPAPolicy{
				{Type: PodsPolicy, Value: 4, Period: 15 * time.Second},
				{Type: PercentPolicy, Value: 100, Period: 15 * time.Second},
			},
			Tolerance: 0.1,
		},
		ScaleDown: HPARules{
			StabilizationWindow: 300 * time.Second,
			SelectPolicy:        SelectMax,
			Policies: []HPAPolicy{
				{Type: PercentPolicy, Value: 100, Period: 15 * time.Second},
			},
			Tolerance: 0.1,
		},
	}
}

// Limits the HPA's API validation applies.
const (
	maxHPAWindow = time.Hour
	maxHPAPeriod = 30 * time.Minute
)

func (r HPARules) validate(field string) error {
	if r.StabilizationWindow < 0 || r.StabilizationWindow > maxHPAWindow {
		return fmt.Errorf("%s.StabilizationWindow is %v: set it between 0s and 1h", field, r.StabilizationWindow)
	}
	switch r.SelectPolicy {
	case "", SelectMax, SelectMin, SelectDisabled:
	default:
		return fmt.Errorf("%s.SelectPolicy is %q: use Max, Min or Disabled", field, r.SelectPolicy)
	}
	if len(r.Policies) == 0 {
		return fmt.Errorf("%s.Policies is empty: give at least one policy (the default is in DefaultKubernetesConfig)", field)
	}
	for i, p := range r.Policies {
		if p.Type != PodsPolicy && p.Type != PercentPolicy {
			return fmt.Errorf("%s.Policies[%d].Type is %q: use Pods or Percent", field, i, p.Type)
		}
		if p.Value <= 0 {
			return fmt.Errorf("%s.Policies[%d].Value is %d: set it greater than 0", field, i, p.Value)
		}
		if p.Period <= 0 || p.Period > maxHPAPeriod {
			return fmt.Errorf("%s.Policies[%d].Period is %v: set it above 0s and at most 30m", field, i, p.Period)
		}
	}
	if math.IsNaN(r.Tolerance) || math.IsInf(r.Tolerance, 0) || r.Tolerance < 0 {
		return fmt.Errorf("%s.Tolerance is %v: set a finite value of 0 or more (0.1 is the default)", field, r.Tolerance)
	}
	return nil
}

// Validate reports the first invalid field of c.
func (c KubernetesConfig) Validate() error {
	if err := c.ScaleUp.validate("ScaleUp"); err != nil {
		return fmt.Errorf("kubernetes algorithm: %w", err)
	}
	if err := c.ScaleDown.validate("ScaleDown"); err != nil {
		return fmt.Errorf("kubernetes algorithm: %w", err)
	}
	return nil
}

// Kubernetes is the HorizontalPodAutoscaler's algorithm as Kubernetes v1.36
// implements it (pkg/controller/podautoscaler: replica_calculator.go for the
// replica count from metrics, horizontal.go for behavior): with a behavior
// (autoscaling/v2 defaults fill the parts not configured), or without one
// ([KubernetesConfig.Legacy]).
//
// One Decide is one HPA sync. Decide assumes its decision is applied: when
// Desired differs from Current it records a scale event, which later
// decisions count against the policies (as the HPA does after a successful
// rescale). The first Decide records Current as a recommendation, so a
// scale-down waits for the scale-down stabilisation window, as after an HPA
// controller start.
//
// From the pods' samples (Input.Pods), as GetResourceReplicas and
// GetMetricReplicas:
//
//   - a Pending pod, and a pod that is not Ready but has a sample (unless
//     [KubernetesConfig.IgnoreReadiness]), is "unready": ignored, except
//     when the usage ratio of the counted pods is above 1, where it counts
//     as using 0;
//   - a pod that runs with no usable sample (Missing, or a NaN, infinite or
//     negative Value), Ready or not, is "missing": it counts as using the
//     target (see [KubernetesConfig.Utilization]) when the ratio is below 1
//     and 0 when above;
//   - if nothing is unready or missing, a ratio within the tolerance holds
//     the current count, and otherwise the result is ceil(ratio x ready
//     pods);
//   - else the ratio is recomputed with those substitutions; if it is within
//     tolerance, or it or the resulting count would reverse the direction of
//     the change, the current count holds; otherwise ceil(new ratio x pods
//     counted);
//   - no Ready pod with a sample: no decision (hold).
//
// With Input.External (GetExternalPerPodMetricReplicas, an AverageValue
// target): ratio = External / (Target x Current); outside tolerance the
// count is ceil(External / Target).
//
// Then, as normalizeDesiredReplicasWithBehaviors: the recommendation is
// stabilised (not above the current count unless every recommendation in the
// scale-up window is; not below it unless every one in the scale-down window
// is), then limited by the direction's policies, counting the replicas
// added and removed within each policy's period, and by Min and Max.
//
// Without a behavior ([KubernetesConfig.Legacy]), as normalizeDesiredReplicas:
// the recommendation is stabilised downwards only, then capped at
// max(2 x Current, 4) and by Min and Max.
//
// With several metrics, [Kubernetes.DecideMetrics] takes the highest of the
// metrics' recommendations and stabilises and limits it once, as
// computeReplicasForMetrics followed by the normalisation.
//
// As the HPA, when Current is 0 and Min is above 0 the target was scaled to
// 0 by hand: scaling is disabled (Decision.ScalingDisabled, Desired 0).
// When Current is above Max the decision is Max, and when below Min it is
// Min, without reading metrics. Differences from Kubernetes:
//
//   - Current 0 with Min 0 (the HPA's HPAScaleToZero): External scales from
//     zero to ceil(External / Target) within the policies; with pods there
//     is nothing to measure and Decide holds at 0.
//   - The CPU-specific readiness rules (cpuInitializationPeriod, the
//     readiness transition time of a pod) are the caller's: it reports such
//     pods as not Ready.
//   - Arithmetic is in float64, not in milli-units; Utilization truncates
//     the average to a whole percent as the HPA does, assuming pods with
//     equal requests (the HPA weights pods by their requests).
//   - Scale events are kept for the longest policy period of either
//     direction and counted exactly; the HPA drops outdated events only
//     when it stores a new one of the same direction and keeps them by that
//     direction's longest period, which can forget events the other
//     direction's longer period would count.
type Kubernetes struct {
	cfg     KubernetesConfig
	tolUp   float64
	tolDown float64
	keep    time.Duration // longest policy period, both directions

	seeded bool
	recs   []stamped // unstabilised recommendations
	ups    []stamped // scale-up events (n = replicas added)
	downs  []stamped // scale-down events (n = replicas removed)
}

// NewKubernetes returns the HPA algorithm for one target.
func NewKubernetes(cfg KubernetesConfig) (*Kubernetes, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cp := cfg
	cp.ScaleUp.Policies = append([]HPAPolicy(nil), cfg.ScaleUp.Policies...)
	cp.ScaleDown.Policies = append([]HPAPolicy(nil), cfg.ScaleDown.Policies...)
	if cp.ScaleUp.SelectPolicy == "" {
		cp.ScaleUp.SelectPolicy = SelectMax
	}
	if cp.ScaleDown.SelectPolicy == "" {
		cp.ScaleDown.SelectPolicy = SelectMax
	}
	k := &Kubernetes{cfg: cp, tolUp: cp.ScaleUp.Tolerance, tolDown: cp.ScaleDown.Tolerance}
	for _, p := range append(append([]HPAPolicy(nil), cp.ScaleUp.Policies...), cp.ScaleDown.Policies...) {
		k.keep = max(k.keep, p.Period)
	}
	return k, nil
}

// Name returns "kubernetes".
func (k *Kubernetes) Name() string { return "kubernetes" }

// within reports whether ratio is inside the tolerances.
func (k *Kubernetes) within(ratio float64) bool {
	return 1-k.tolDown <= ratio && ratio <= 1+k.tolUp
}

// Decide returns the HPA's decision for in; see [Kubernetes].
func (k *Kubernetes) Decide(in Input) Decision {
	return k.DecideMetrics([]Input{in})
}

// DecideMetrics is one HPA sync over several metrics, one Input each, as
// computeReplicasForMetrics: each metric's replica calculator proposes a
// count, the highest proposal wins, and it is stabilised and limited once;
// see [Algorithm.DecideMetrics].
func (k *Kubernetes) DecideMetrics(ins []Input) Decision {
	in, err := validateMetrics(ins)
	if err != nil {
		return invalid(in, err)
	}
	now := in.Now
	k.recs = pruneStamped(k.recs, now.Add(-max(k.cfg.ScaleUp.StabilizationWindow, k.cfg.ScaleDown.StabilizationWindow)), now)
	k.ups = pruneStamped(k.ups, now.Add(-k.keep), now)
	k.downs = pruneStamped(k.downs, now.Add(-k.keep), now)
	cur := in.Current
	if !k.seeded {
		// recordInitialRecommendation
		k.seeded = true
		k.recs = pushStamped(k.recs, stamped{at: now, n: cur})
	}

	switch {
	case cur == 0 && in.Min > 0:
		// horizontal.go: "scaling is disabled since the replica count of
		// the target is zero" (condition ScalingActive false, reason
		// ScalingDisabled); no rescale.
		return Decision{Desired: 0, Limited: true, ScalingDisabled: true, Reason: "scaling is disabled since the replica count of the target is zero (min replicas " +
			itoa(in.Min) + "): scale the target up to enable it"}
	case cur > in.Max:
		k.record(now, cur, in.Max)
		return Decision{Desired: in.Max, Limited: true, Reason: "current replicas " + itoa(cur) + " above max " + itoa(in.Max)}
	case cur < in.Min:
		k.record(now, cur, in.Min)
		return Decision{Desired: in.Min, Limited: true, Reason: "current replicas " + itoa(cur) + " below min " + itoa(in.Min)}
	}

	var b strings.Builder
	b.Grow(256)
	proposed, ok, invalidN := int32(0), false, 0
	for i := range ins {
		writeMetric(&b, i, len(ins))
		n, got := k.metricReplicas(ins[i], &b)
		if !got {
			invalidN++
		}
		if got && (!ok || n > proposed) {
			proposed, ok = n, true
		}
	}
	if !ok || (invalidN > 0 && proposed < cur) {
		b.WriteString(": holding ")
		writeInt(&b, cur)
		return Decision{Desired: cur, Reason: b.String()}
	}
	if len(ins) > 1 {
		b.WriteString("; highest proposal ")
		writeInt(&b, proposed)
	}
	stable := k.stabilize(now, cur, proposed)
	if stable != proposed {
		if proposed > cur && !k.cfg.Legacy {
			b.WriteString("; lowest recommendation in the ")
			b.WriteString(k.cfg.ScaleUp.StabilizationWindow.String())
			b.WriteString(" scale-up window is ")
		} else {
			b.WriteString("; highest recommendation in the ")
			b.WriteString(k.cfg.ScaleDown.StabilizationWindow.String())
			b.WriteString(" scale-down window is ")
		}
		writeInt(&b, stable)
	}
	final := k.limit(in, now, cur, stable, &b)
	k.record(now, cur, final)
	return Decision{Desired: final, Reason: b.String(), Limited: final != proposed}
}

// metricReplicas is the replica calculator: the count the metrics ask for,
// with the current count when the change would be too small. ok is false
// when there is nothing to decide on; b then says why.
func (k *Kubernetes) metricReplicas(in Input, b *strings.Builder) (int32, bool) {
	cur := in.Current
	if in.External != nil {
		total := *in.External
		b.WriteString("external total ")
		writeNum(b, total)
		b.WriteString(" for target ")
		writeNum(b, in.Target)
		b.WriteString(" per pod")
		if cur == 0 {
			n := ceilReplicas(total / in.Target)
			b.WriteString(" from 0 replicas: recommend ")
			writeInt(b, n)
			return n, true
		}
		ratio := total / (in.Target * float64(cur))
		b.WriteString(" (ratio ")
		writeNum(b, ratio)
		b.WriteString(")")
		if k.within(ratio) {
			k.writeWithin(b, cur)
			return cur, true
		}
		n := ceilReplicas(total / in.Target)
		b.WriteString(": recommend ")
		writeInt(b, n)
		return n, true
	}

	g := groupPods(in.Pods, !(k.cfg.IgnoreReadiness || in.IgnoreReadiness))
	sum, ready, missing, unready := g.sum, g.counted, g.missing, g.unready
	if ready == 0 {
		g.writeNoMetrics(b, len(in.Pods))
		return 0, false
	}
	avg := k.average(sum, ready)
	ratio := avg / in.Target
	b.WriteString("average ")
	writeNum(b, avg)
	b.WriteString(" for target ")
	writeNum(b, in.Target)
	b.WriteString(" over ")
	writeInt(b, int32(ready))
	b.WriteString(" ready pods (ratio ")
	writeNum(b, ratio)
	b.WriteString(")")

	upWithUnready := unready > 0 && ratio > 1
	if !upWithUnready && missing == 0 {
		if k.within(ratio) {
			k.writeWithin(b, cur)
			return cur, true
		}
		n := ceilReplicas(ratio * float64(ready))
		b.WriteString(": recommend ")
		writeInt(b, n)
		return n, true
	}

	newSum, count := sum, ready
	if missing > 0 {
		switch {
		case ratio < 1:
			fill := in.Target
			if k.cfg.Utilization {
				fill = max(100, in.Target)
			}
			newSum += fill * float64(missing)
			count += missing
			b.WriteString("; ")
			writeInt(b, int32(missing))
			b.WriteString(" pods without a sample counted at ")
			writeNum(b, fill)
		case ratio > 1:
			count += missing
			b.WriteString("; ")
			writeInt(b, int32(missing))
			b.WriteString(" pods without a sample counted at 0")
		}
	}
	if upWithUnready {
		count += unready
		b.WriteString("; ")
		writeInt(b, int32(unready))
		b.WriteString(" not-ready pods counted at 0")
	}
	newRatio := k.average(newSum, count) / in.Target
	b.WriteString(" (new ratio ")
	writeNum(b, newRatio)
	b.WriteString(")")
	if k.within(newRatio) {
		k.writeWithin(b, cur)
		return cur, true
	}
	if (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1) {
		b.WriteString(": would reverse the direction, recommend ")
		writeInt(b, cur)
		return cur, true
	}
	return unlessReversed(b, newRatio, ceilReplicas(newRatio*float64(count)), cur, "recommend"), true
}

// average is the mean of n values summing to sum; for utilisation truncated
// to a whole percent as the HPA's integer arithmetic does.
func (k *Kubernetes) average(sum float64, n int) float64 {
	avg := sum / float64(n)
	if k.cfg.Utilization && !math.IsInf(avg, 0) {
		avg = math.Floor(avg + 1e-9)
	}
	return avg
}

func (k *Kubernetes) writeWithin(b *strings.Builder, cur int32) {
	b.WriteString(" within tolerance [-")
	writeNum(b, k.tolDown*100)
	b.WriteString("%, +")
	writeNum(b, k.tolUp*100)
	b.WriteString("%]: recommend ")
	writeInt(b, cur)
}

// stabilize is stabilizeRecommendationWithBehaviors: it records proposed and
// returns the current count moved towards it only as far as every
// recommendation in the windows agrees.
//
// Without a behavior (Legacy) it is stabilizeRecommendation instead: the
// highest of proposed and the recommendations in the scale-down window.
func (k *Kubernetes) stabilize(now time.Time, cur, proposed int32) int32 {
	if k.cfg.Legacy {
		downCut := now.Add(-k.cfg.ScaleDown.StabilizationWindow)
		rec := proposed
		for _, r := range k.recs {
			if r.at.After(downCut) {
				rec = max(rec, r.n)
			}
		}
		k.recs = pushStamped(k.recs, stamped{at: now, n: proposed})
		return rec
	}
	return stabilize(&k.recs, now, k.cfg.ScaleUp.StabilizationWindow, k.cfg.ScaleDown.StabilizationWindow, cur, proposed)
}

// limit is convertDesiredReplicasWithBehaviorRate: the policies' bound for
// the direction of the change, and Max or Min.
func (k *Kubernetes) limit(in Input, now time.Time, cur, desired int32, b *strings.Builder) int32 {
	switch {
	case desired > cur:
		lim := k.upLimit(now, cur)
		if lim < int64(cur) {
			lim = int64(cur)
		}
		allowed, byPolicy := int64(in.Max), false
		if allowed > lim {
			allowed, byPolicy = lim, true
		}
		if int64(desired) > allowed {
			b.WriteString("; limited to ")
			writeInt(b, int32(allowed))
			if byPolicy {
				b.WriteString(" by ")
				k.writeRules(b, "scale-up", k.cfg.ScaleUp)
			} else {
				b.WriteString(" by max replicas")
			}
			return int32(allowed)
		}
	case desired < cur:
		lim := k.downLimit(now, cur)
		if lim > int64(cur) {
			lim = int64(cur)
		}
		allowed, byPolicy := int64(in.Min), false
		if allowed < lim {
			allowed, byPolicy = lim, true
		}
		if int64(desired) < allowed {
			b.WriteString("; limited to ")
			writeInt(b, int32(allowed))
			if byPolicy {
				b.WriteString(" by ")
				k.writeRules(b, "scale-down", k.cfg.ScaleDown)
			} else {
				b.WriteString(" by min replicas")
			}
			return int32(allowed)
		}
	}
	return desired
}

func (k *Kubernetes) writeRules(b *strings.Builder, dir string, r HPARules) {
	if k.cfg.Legacy {
		b.WriteString("the scale-up limit max(2 x current, 4) (no behavior)")
		return
	}
	b.WriteString(dir)
	if r.SelectPolicy == SelectDisabled {
		b.WriteString(" disabled")
		return
	}
	b.WriteString(" policies (")
	b.WriteString(string(r.SelectPolicy))
	b.WriteString(" of")
	for i, p := range r.Policies {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" ")
		writeInt(b, p.Value)
		if p.Type == PercentPolicy {
			b.WriteString("%")
		} else {
			b.WriteString(" pods")
		}
		b.WriteString(" per ")
		b.WriteString(p.Period.String())
	}
	b.WriteString(")")
}

// periodStart is the replica count at the start of a policy period: the
// current count less what was added and plus what was removed within it.
func (k *Kubernetes) periodStart(now time.Time, cur int32, period time.Duration) int64 {
	cut := now.Add(-period)
	return int64(cur) - sumAfter(k.ups, cut) + sumAfter(k.downs, cut)
}

// upLimit is calculateScaleUpLimitWithScalingRules, or without a behavior
// calculateScaleUpLimit: max(2 x current, 4).
func (k *Kubernetes) upLimit(now time.Time, cur int32) int64 {
	if k.cfg.Legacy {
		return max(2*int64(cur), 4)
	}
	r := k.cfg.ScaleUp
	if r.SelectPolicy == SelectDisabled {
		return int64(cur)
	}
	var result int64 = math.MinInt64
	if r.SelectPolicy == SelectMin {
		result = math.MaxInt64
	}
	for _, p := range r.Policies {
		start := k.periodStart(now, cur, p.Period)
		var proposed int64
		if p.Type == PodsPolicy {
			proposed = start + int64(p.Value)
		} else {
			// Rounded up so that a percentage always adds a pod.
			proposed = ceilInt64(float64(start) * (1 + float64(p.Value)/100))
		}
		if r.SelectPolicy == SelectMin {
			result = min(result, proposed)
		} else {
			result = max(result, proposed)
		}
	}
	return result
}

// downLimit is calculateScaleDownLimitWithBehaviors; without a behavior
// nothing but Min limits a scale-down.
func (k *Kubernetes) downLimit(now time.Time, cur int32) int64 {
	if k.cfg.Legacy {
		return math.MinInt64
	}
	r := k.cfg.ScaleDown
	if r.SelectPolicy == SelectDisabled {
		return int64(cur)
	}
	var result int64 = math.MaxInt64
	if r.SelectPolicy == SelectMin {
		result = math.MinInt64
	}
	for _, p := range r.Policies {
		start := k.periodStart(now, cur, p.Period)
		var proposed int64
		if p.Type == PodsPolicy {
			proposed = start - int64(p.Value)
		} else {
			// Truncated toward zero, as the HPA's int32 conversion.
			proposed = int64(float64(start) * (1 - float64(p.Value)/100))
		}
		if r.SelectPolicy == SelectMin {
			result = max(result, proposed)
		} else {
			result = min(result, proposed)
		}
	}
	return result
}

// record stores the scale event of moving from cur to desired.
func (k *Kubernetes) record(now time.Time, cur, desired int32) {
	switch {
	case desired > cur:
		k.ups = pushStamped(k.ups, stamped{at: now, n: desired - cur})
	case desired < cur:
		k.downs = pushStamped(k.downs, stamped{at: now, n: cur - desired})
	}
}

// ceilInt64 is math.Ceil within int32 range (policies bound replica counts,
// which are int32).
func ceilInt64(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int64(math.Ceil(x))
}
