package scaling

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// PanicConfig configures [NewPanic]. Start from [DefaultPanicConfig]: the
// zero value is invalid. Names and bounds follow Knative's config-autoscaler.
type PanicConfig struct {
	// StableWindow is the window the stable average covers (6 s to 1 h).
	StableWindow time.Duration
	// PanicWindowPercentage sizes the panic window as a percentage of the
	// stable window (1 to 100; 10 gives 6 s for 60 s).
	PanicWindowPercentage float64
	// PanicThreshold, in percent (110 to 1000): panic starts when the pods
	// the panic window asks for reach PanicThreshold/100 times the ready
	// pods.
	PanicThreshold float64
	// MaxScaleUpRate bounds one decision to ceil(ready x rate) pods (> 1).
	MaxScaleUpRate float64
	// MaxScaleDownRate bounds one decision to floor(ready / rate) pods
	// (> 1).
	MaxScaleDownRate float64
	// TargetUtilization scales Input.Target (in (0, 1]). Knative multiplies
	// its per-pod concurrency target by container-concurrency-target-
	// percentage (70 %) to keep headroom; Input.Target is already the
	// per-pod value wanted, so the default here is 1.
	TargetUtilization float64
	// ScaleDownDelay keeps the highest decision of this trailing window (0
	// to 1 h; 0 disables it), as Knative's scale-down-delay.
	ScaleDownDelay time.Duration
}

// DefaultPanicConfig returns Knative's KPA defaults: stable window 60 s,
// panic window 10 % of it (6 s), panic threshold 200 %, max scale-up rate
// 1000, max scale-down rate 2, no scale-down delay; TargetUtilization 1 (see
// the field).
func DefaultPanicConfig() PanicConfig {
	return PanicConfig{
		StableWindow:          60 * time.Second,
		PanicWindowPercentage: 10,
		PanicThreshold:        200,
		MaxScaleUpRate:        1000,
		MaxScaleDownRate:      2,
		TargetUtilization:     1,
	}
}

func badFloat(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// Validate reports the first invalid field of c.
func (c PanicConfig) Validate() error {
	switch {
	case c.StableWindow < 6*time.Second || c.StableWindow > time.Hour:
		return fmt.Errorf("panic algorithm: StableWindow is %v: set it between 6s and 1h (60s is the default)", c.StableWindow)
	case badFloat(c.PanicWindowPercentage) || c.PanicWindowPercentage < 1 || c.PanicWindowPercentage > 100:
		return fmt.Errorf("panic algorithm: PanicWindowPercentage is %v: set it between 1 and 100 (10 is the default)", c.PanicWindowPercentage)
	case badFloat(c.PanicThreshold) || c.PanicThreshold < 110 || c.PanicThreshold > 1000:
		return fmt.Errorf("panic algorithm: PanicThreshold is %v: set it between 110 and 1000 percent (200 is the default)", c.PanicThreshold)
	case badFloat(c.MaxScaleUpRate) || c.MaxScaleUpRate <= 1:
		return fmt.Errorf("panic algorithm: MaxScaleUpRate is %v: set a finite value above 1 (1000 is the default)", c.MaxScaleUpRate)
	case badFloat(c.MaxScaleDownRate) || c.MaxScaleDownRate <= 1:
		return fmt.Errorf("panic algorithm: MaxScaleDownRate is %v: set a finite value above 1 (2 is the default)", c.MaxScaleDownRate)
	case badFloat(c.TargetUtilization) || c.TargetUtilization <= 0 || c.TargetUtilization > 1:
		return fmt.Errorf("panic algorithm: TargetUtilization is %v: set it above 0 and at most 1", c.TargetUtilization)
	case c.ScaleDownDelay < 0 || c.ScaleDownDelay > time.Hour:
		return fmt.Errorf("panic algorithm: ScaleDownDelay is %v: set it between 0s and 1h", c.ScaleDownDelay)
	}
	return nil
}

// Panic is Knative's KPA (pkg/autoscaler/scaling/autoscaler.go): a stable
// mode that follows the average over a stable window, and a panic mode for
// bursts, judged over a short panic window, in which the count only grows.
//
// Each Decide is one KPA tick. It observes the target's total: with
// Input.External that total; otherwise the average of the Ready pods'
// usable samples times the number of Ready pods (the KPA's collector
// extrapolates from the pods it scraped to all ready pods; not-ready pods
// are not scraped). It keeps every observation of the last StableWindow and
// averages those of the stable and of the panic window. A tick with no
// usable sample observes nothing; with no observation in the stable window
// Decide holds (the KPA's "no data"). With no observation in the panic
// window the stable average stands in.
//
// With ready = max(1, Ready pods) (Current when Input.Pods is empty) and
// target = Target x TargetUtilization:
//
//   - stable pods = ceil(stable average / target), panic pods =
//     ceil(panic average / target), each kept within [floor(ready /
//     MaxScaleDownRate), ceil(ready x MaxScaleUpRate)];
//   - panic starts, or is extended, whenever panic pods / ready >=
//     PanicThreshold/100; it ends at a tick below the threshold more than
//     StableWindow after the last tick above it;
//   - in panic the decision is the highest of max(stable pods, panic pods)
//     since panic began (the ratchet: it never decreases); otherwise it is
//     the stable pods;
//   - as the KPA after a restart, the first Decide with more than one Ready
//     pod starts in panic at that count, so nothing scales down before a
//     stable window of data exists;
//   - with ScaleDownDelay, the highest decision within it is used;
//   - the result is clamped to [Min, Max] (the KPA's min-scale and
//     max-scale). Min 0 allows scale to zero, from one pod at once (floor(1
//     / 2) = 0), as the KPA without its scale-to-zero grace period, which is
//     the caller's.
//
// Differences from Knative: averages are over the observations fed in, one
// per Decide, not over one-second buckets (Knative counts empty seconds as
// zero); the KPA's activation scale and excess burst capacity are not part
// of the replica decision here.
type Panic struct {
	cfg         PanicConfig
	panicWindow time.Duration

	started   bool
	panicTime time.Time // zero: not panicking
	maxPanic  int32
	obs       [][]stamped // observed totals (v), per metric
	delay     []stamped   // decisions within ScaleDownDelay (n)
}

// NewPanic returns the KPA algorithm for one target.
func NewPanic(cfg PanicConfig) (*Panic, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pw := time.Duration(float64(cfg.StableWindow) * cfg.PanicWindowPercentage / 100)
	return &Panic{cfg: cfg, panicWindow: pw}, nil
}

// Name returns "panic".
func (p *Panic) Name() string { return "panic" }

// Panicking reports whether the last decision was made in panic mode.
func (p *Panic) Panicking() bool { return !p.panicTime.IsZero() }

// Decide returns the KPA decision for in; see [Panic].
func (p *Panic) Decide(in Input) Decision { return p.DecideMetrics([]Input{in}) }

// DecideMetrics is Decide over several metrics: each metric keeps its own
// stable and panic windows, the highest metric's desired pod counts (stable
// and panic) are taken, and the panic mode, the rates and the scale-down
// delay apply to them once; see [Algorithm.DecideMetrics]. The Ready pods
// are those of the first metric with pods (Current when no metric has
// any).
func (p *Panic) DecideMetrics(ins []Input) Decision {
	in, err := validateMetrics(ins)
	if err != nil {
		return invalid(in, err)
	}
	now := in.Now
	if len(p.obs) != len(ins) {
		p.obs = make([][]stamped, len(ins))
	}
	for i := range p.obs {
		p.obs[i] = pruneStamped(p.obs[i], now.Add(-p.cfg.StableWindow), now)
	}
	p.delay = pruneStamped(p.delay, now.Add(-p.cfg.ScaleDownDelay), now)
	if !p.panicTime.IsZero() && p.panicTime.After(now) {
		// The clock went backwards: restart the panic period from now.
		p.panicTime = now
	}

	ready := int(in.Current)
	for i := range ins {
		if len(ins[i].Pods) > 0 {
			// The KPA scrapes Ready pods only: readiness always counts.
			ready = groupPods(ins[i].Pods, true).ready
			break
		}
	}
	if !p.started {
		p.started = true
		if ready > 1 {
			p.panicTime = now
			p.maxPanic = int32(min(ready, math.MaxInt32))
		}
	}
	var b strings.Builder
	b.Grow(256)
	// Each metric's desired pod counts over its stable and panic windows.
	dspc, dppc, noData := 0.0, 0.0, 0
	for i := range ins {
		mi := ins[i]
		switch {
		case mi.External != nil:
			p.obs[i] = pushStamped(p.obs[i], stamped{at: now, v: *mi.External})
		case len(mi.Pods) > 0:
			g := groupPods(mi.Pods, true)
			if g.counted > 0 {
				total := g.sum / float64(g.counted) * float64(g.ready)
				if !math.IsInf(total, 0) {
					p.obs[i] = pushStamped(p.obs[i], stamped{at: now, v: total})
				}
			}
		}
		var stableSum, panicSum float64
		var stableN, panicN int
		panicCut := now.Add(-p.panicWindow)
		for _, o := range p.obs[i] {
			stableSum += o.v
			stableN++
			if o.at.After(panicCut) {
				panicSum += o.v
				panicN++
			}
		}
		writeMetric(&b, i, len(ins))
		if stableN == 0 {
			noData++
			b.WriteString("no data in the ")
			b.WriteString(p.cfg.StableWindow.String())
			b.WriteString(" stable window")
			continue
		}
		stableAvg := stableSum / float64(stableN)
		panicAvg := stableAvg
		if panicN > 0 {
			panicAvg = panicSum / float64(panicN)
		}
		t := mi.Target * p.cfg.TargetUtilization
		ds, dp := math.Ceil(stableAvg/t), math.Ceil(panicAvg/t)
		if noData == i || ds > dspc {
			dspc = ds
		}
		if noData == i || dp > dppc {
			dppc = dp
		}
		b.WriteString("stable average ")
		writeNum(&b, stableAvg)
		b.WriteString(" and panic average ")
		writeNum(&b, panicAvg)
		b.WriteString(" for target ")
		writeNum(&b, t)
		b.WriteString(" per pod")
	}
	if noData == len(ins) || (noData > 0 && int64(dspc) < int64(in.Current) && int64(dppc) < int64(in.Current)) {
		cur := in.Current
		if cur < in.Min || cur > in.Max {
			cur = clamp(cur, in.Min, in.Max)
		}
		b.WriteString(": holding ")
		writeInt(&b, cur)
		return Decision{Desired: cur, Reason: b.String(), Limited: cur != in.Current}
	}

	readyF := math.Max(1, float64(ready))
	maxUp := math.Ceil(p.cfg.MaxScaleUpRate * readyF)
	maxDown := math.Floor(readyF / p.cfg.MaxScaleDownRate)
	stablePods := ceilReplicas(math.Min(math.Max(dspc, maxDown), maxUp))
	panicPods := ceilReplicas(math.Min(math.Max(dppc, maxDown), maxUp))
	// Knative compares the unbounded panic count with the threshold.
	over := dppc/readyF >= p.cfg.PanicThreshold/100

	b.WriteString(" over ")
	writeInt(&b, int32(min(ready, math.MaxInt32)))
	b.WriteString(" ready pods: stable ")
	writeInt(&b, stablePods)
	b.WriteString(", panic ")
	writeInt(&b, panicPods)

	switch {
	case over && p.panicTime.IsZero():
		p.panicTime = now
		b.WriteString("; panic starts (panic pods at least ")
		writeNum(&b, p.cfg.PanicThreshold)
		b.WriteString("% of ready)")
	case over:
		p.panicTime = now
		b.WriteString("; panic extended")
	case !p.panicTime.IsZero() && p.panicTime.Add(p.cfg.StableWindow).Before(now):
		p.panicTime = time.Time{}
		p.maxPanic = 0
		b.WriteString("; panic ends after a stable window below the threshold")
	}

	desired := stablePods
	unbounded := ceilReplicas(dspc)
	if !p.panicTime.IsZero() {
		desired = max(desired, panicPods)
		unbounded = max(unbounded, ceilReplicas(dppc))
		if desired > p.maxPanic {
			p.maxPanic = desired
		} else if desired < p.maxPanic {
			b.WriteString("; panicking: keeping ")
			writeInt(&b, p.maxPanic)
		}
		desired = p.maxPanic
	}
	if unbounded != desired && (desired == ceilReplicas(maxUp) || desired == ceilReplicas(maxDown)) {
		b.WriteString("; rate-limited to ")
		writeInt(&b, desired)
	}

	if p.cfg.ScaleDownDelay > 0 {
		p.delay = pushStamped(p.delay, stamped{at: now, n: desired})
		delayed := desired
		for _, d := range p.delay {
			delayed = max(delayed, d.n)
		}
		if delayed != desired {
			b.WriteString("; scale-down delay keeps ")
			writeInt(&b, delayed)
			desired = delayed
		}
	}

	final := clampWriting(&b, desired, in.Min, in.Max)
	return Decision{Desired: final, Reason: b.String(), Limited: final != unbounded}
}
