package scaling

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// FRSSConfig configures [NewFRSS]. Start from [DefaultFRSSConfig]: the zero
// value is invalid (no scale-up rate, no shrink step).
type FRSSConfig struct {
	// Tolerance: a usage ratio (average per pod / target) within
	// [1-Tolerance, 1+Tolerance] holds the current count. Finite, >= 0.
	Tolerance float64
	// ScaleUpRate bounds one decision's growth to Current x (1 +
	// ScaleUpRate) (9: up to ten times). From 0 replicas it applies to 1.
	ScaleUpRate float64
	// UpWindow: a scale-up takes the lowest recommendation made within it
	// (0: at once).
	UpWindow time.Duration
	// DownWindow: a scale-down takes the highest recommendation made within
	// it, and removes at most ShrinkStep pods per DownWindow.
	DownWindow time.Duration
	// ShrinkStep is the number of pods one DownWindow may remove (>= 1).
	ShrinkStep int32
}

// DefaultFRSSConfig returns the paper's parameters: tolerance 0.2, scale-up
// rate 9, up window 0 s, down window 9 min, shrink by 1 pod per window.
func DefaultFRSSConfig() FRSSConfig {
	return FRSSConfig{Tolerance: 0.2, ScaleUpRate: 9, UpWindow: 0, DownWindow: 9 * time.Minute, ShrinkStep: 1}
}

// maxFRSSWindow bounds FRSS windows (history is kept for the longest one).
const maxFRSSWindow = 24 * time.Hour

// Validate reports the first invalid field of c.
func (c FRSSConfig) Validate() error {
	switch {
	case math.IsNaN(c.Tolerance) || math.IsInf(c.Tolerance, 0) || c.Tolerance < 0:
		return fmt.Errorf("frss algorithm: Tolerance is %v: set a finite value of 0 or more (0.2 is the default)", c.Tolerance)
	case math.IsNaN(c.ScaleUpRate) || math.IsInf(c.ScaleUpRate, 0) || c.ScaleUpRate <= 0:
		return fmt.Errorf("frss algorithm: ScaleUpRate is %v: set a finite value above 0 (9 is the default: up to x10 per decision)", c.ScaleUpRate)
	case c.UpWindow < 0 || c.UpWindow > maxFRSSWindow:
		return fmt.Errorf("frss algorithm: UpWindow is %v: set it between 0s and 24h", c.UpWindow)
	case c.DownWindow < 0 || c.DownWindow > maxFRSSWindow:
		return fmt.Errorf("frss algorithm: DownWindow is %v: set it between 0s and 24h (9m is the default)", c.DownWindow)
	case c.ShrinkStep < 1:
		return fmt.Errorf("frss algorithm: ShrinkStep is %d: set it to 1 or more pods per DownWindow", c.ShrinkStep)
	}
	return nil
}

// FRSS is Fast-Response/Slow-Shrinkage: it grows at once to what the load
// needs and shrinks one pod per long window.
//
// The replica count the load needs is ceil(sum of the pods' values /
// Target) (with Input.External: ceil(External / Target)). It applies when
// the usage ratio, the average of the Ready pods' samples over Target (with
// External: External / (Target x Current)), is outside [1-Tolerance,
// 1+Tolerance]; otherwise the current count holds.
//
// Paper vectors (target 60 %): six pods at 48, 46, 42, 50, 41 and 43 % (sum
// 270, average 45 %, ratio 0.75) need ceil(270/60) = 5 pods, reached after
// the down window; at five pods the average is 54 %, within tolerance. Six
// pods at 74, 78, 80, 82, 85 and 87 % (sum 486, ratio 1.35) need
// ceil(486/60) = ceil(8.1) = 9 pods. The paper's text says "8 pods,
// 60.75 %" there, which contradicts its own equation (486/8 = 60.75 % is
// above the 60 % target); this implementation follows the equation: 9.
//
// Pods are grouped as the HPA groups them for CPU (Kubernetes' groupPods):
// Pending pods and pods that are not Ready but have a sample are unready;
// running pods without a usable sample are missing, Ready or not. Both add
// nothing to the sum, so a scale-up counts them at 0. A scale-down never
// trusts missing data: pods without a sample count as using exactly
// Target, and if the ratio is then within tolerance nothing shrinks. A
// result that would reverse the direction the ratio shows (fewer pods on a
// ratio above 1, more on one below 1, possible when pods are not ready or
// missing) holds the current count. No Ready pod with a sample: hold.
//
// Windows work as the HPA's stabilisation: a scale-up goes no higher than
// the lowest recommendation within UpWindow, a scale-down no lower than the
// highest within DownWindow. The first Decide records Current as a
// recommendation, so the first shrink comes one DownWindow after it. A
// scale-up is bounded by Current x (1 + ScaleUpRate); a scale-down removes
// at most ShrinkStep pods per DownWindow, counting the pods Decide removed
// in the last DownWindow (it assumes its decisions are applied). Current
// outside [Min, Max] gives Min or Max at once.
type FRSS struct {
	cfg    FRSSConfig
	seeded bool
	recs   []stamped // recommendations
	downs  []stamped // scale-downs (n = pods removed)
}

// NewFRSS returns the FRSS algorithm for one target.
func NewFRSS(cfg FRSSConfig) (*FRSS, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &FRSS{cfg: cfg}, nil
}

// Name returns "frss".
func (f *FRSS) Name() string { return "frss" }

// Decide returns the FRSS decision for in; see [FRSS].
func (f *FRSS) Decide(in Input) Decision { return f.DecideMetrics([]Input{in}) }

// DecideMetrics is Decide over several metrics: the highest metric's need
// is stabilised and limited once; see [Algorithm.DecideMetrics].
func (f *FRSS) DecideMetrics(ins []Input) Decision {
	in, err := validateMetrics(ins)
	if err != nil {
		return invalid(in, err)
	}
	now, cur := in.Now, in.Current
	f.recs = pruneStamped(f.recs, now.Add(-max(f.cfg.UpWindow, f.cfg.DownWindow)), now)
	f.downs = pruneStamped(f.downs, now.Add(-f.cfg.DownWindow), now)
	if !f.seeded {
		f.seeded = true
		f.recs = pushStamped(f.recs, stamped{at: now, n: cur})
	}
	switch {
	case cur > in.Max:
		f.recordDown(now, cur-in.Max)
		return Decision{Desired: in.Max, Limited: true, Reason: "current replicas " + itoa(cur) + " above max " + itoa(in.Max)}
	case cur < in.Min:
		return Decision{Desired: in.Min, Limited: true, Reason: "current replicas " + itoa(cur) + " below min " + itoa(in.Min)}
	}

	var b strings.Builder
	b.Grow(256)
	proposed, ok, noData := int32(0), false, 0
	for i := range ins {
		writeMetric(&b, i, len(ins))
		n, got := f.need(ins[i], &b)
		if !got {
			noData++
		}
		if got && (!ok || n > proposed) {
			proposed, ok = n, true
		}
	}
	if len(ins) > 1 && ok && (noData == 0 || proposed >= cur) {
		b.WriteString("; highest need ")
		writeInt(&b, proposed)
	}
	if !ok || (noData > 0 && proposed < cur) {
		b.WriteString(": holding ")
		writeInt(&b, cur)
		return Decision{Desired: cur, Reason: b.String()}
	}

	// Stabilise as the HPA does.
	stable := stabilize(&f.recs, now, f.cfg.UpWindow, f.cfg.DownWindow, cur, proposed)
	downCut := now.Add(-f.cfg.DownWindow)
	if stable != proposed {
		if proposed > cur {
			b.WriteString("; lowest recommendation in the ")
			b.WriteString(f.cfg.UpWindow.String())
			b.WriteString(" up window is ")
		} else {
			b.WriteString("; highest recommendation in the ")
			b.WriteString(f.cfg.DownWindow.String())
			b.WriteString(" down window is ")
		}
		writeInt(&b, stable)
	}

	final := stable
	switch {
	case stable > cur:
		lim := ceilInt64(float64(max(cur, 1)) * (1 + f.cfg.ScaleUpRate))
		allowed, byRate := int64(in.Max), false
		if lim < allowed {
			allowed, byRate = lim, true
		}
		if int64(stable) > allowed {
			final = int32(allowed)
			b.WriteString("; limited to ")
			writeInt(&b, final)
			if byRate {
				b.WriteString(" by scale-up rate ")
				writeNum(&b, f.cfg.ScaleUpRate)
			} else {
				b.WriteString(" by max replicas")
			}
		}
	case stable < cur:
		removed := sumAfter(f.downs, downCut)
		lim := int64(cur) - (int64(f.cfg.ShrinkStep) - removed)
		lim = min(lim, int64(cur))
		allowed, byStep := int64(in.Min), false
		if lim > allowed {
			allowed, byStep = lim, true
		}
		if int64(stable) < allowed {
			final = int32(allowed)
			b.WriteString("; limited to ")
			writeInt(&b, final)
			if byStep {
				b.WriteString(" by shrinkage of ")
				writeInt(&b, f.cfg.ShrinkStep)
				b.WriteString(" pods per ")
				b.WriteString(f.cfg.DownWindow.String())
			} else {
				b.WriteString(" by min replicas")
			}
		}
	}
	if final < cur {
		f.recordDown(now, cur-final)
	}
	return Decision{Desired: final, Reason: b.String(), Limited: final != proposed}
}

func (f *FRSS) recordDown(now time.Time, n int32) {
	f.downs = pushStamped(f.downs, stamped{at: now, n: n})
}

// need is the pod count the load needs, or the current one when the ratio
// is within tolerance or the data does not support the change.
func (f *FRSS) need(in Input, b *strings.Builder) (int32, bool) {
	cur, target := in.Current, in.Target
	var sum float64
	var count, missing int
	if in.External != nil {
		sum = *in.External
		b.WriteString("external total ")
		writeNum(b, sum)
		b.WriteString(" for target ")
		writeNum(b, target)
		b.WriteString(" per pod")
		if cur == 0 {
			n := ceilReplicas(sum / target)
			b.WriteString(" from 0 replicas: need ")
			writeInt(b, n)
			return n, true
		}
		count = int(cur)
	} else {
		g := groupPods(in.Pods, true)
		sum, count, missing = g.sum, g.counted, g.missing
		if count == 0 {
			g.writeNoMetrics(b, len(in.Pods))
			return 0, false
		}
		b.WriteString("sum ")
		writeNum(b, sum)
		b.WriteString(" over ")
		writeInt(b, int32(count))
		b.WriteString(" ready pods for target ")
		writeNum(b, target)
	}
	ratio := sum / (float64(count) * target)
	b.WriteString(" (ratio ")
	writeNum(b, ratio)
	b.WriteString(")")
	tol := f.cfg.Tolerance
	if math.Abs(ratio-1) <= tol {
		b.WriteString(" within tolerance ")
		writeNum(b, tol)
		b.WriteString(": need ")
		writeInt(b, cur)
		return cur, true
	}
	if ratio < 1 && missing > 0 {
		sum += target * float64(missing)
		count += missing
		ratio = sum / (float64(count) * target)
		b.WriteString("; ")
		writeInt(b, int32(missing))
		b.WriteString(" pods without a sample counted at target (ratio ")
		writeNum(b, ratio)
		b.WriteString(")")
		if ratio >= 1-tol {
			b.WriteString(": need ")
			writeInt(b, cur)
			return cur, true
		}
	}
	return unlessReversed(b, ratio, ceilReplicas(sum/target), cur, "need"), true
}
