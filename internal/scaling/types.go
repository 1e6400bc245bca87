package scaling

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// PodSample is one pod's metric sample as an algorithm sees it.
type PodSample struct {
	// Name identifies the pod (used in reasons and for determinism only).
	Name string
	// Value is the pod's utilisation or metric value, in the same unit as
	// [Input.Target] (for CPU utilisation both are percent of the request, e.g.
	// 48 for 48 %). Ignored when Missing is true.
	Value float64
	// Ready reports whether the pod is Ready. Algorithms treat not-ready pods
	// as Kubernetes does (see each algorithm).
	Ready bool
	// Missing reports that the pod exists but has no sample.
	Missing bool
	// Pending reports that the pod is not running yet (phase Pending:
	// unscheduled, or pulling its image). Its sample, if any, never counts,
	// as Kubernetes' groupPods. A pod that runs but is not Ready has Pending
	// false.
	Pending bool
	// StartedAt is the pod's start time (zero when unknown).
	StartedAt time.Time
}

// Input is everything an algorithm needs for one decision.
type Input struct {
	// Now is the decision time. Algorithms read time only from here.
	Now time.Time
	// Current is the current replica count of the target.
	Current int32
	// Min and Max bound the decision: 0 <= Min <= Max. Min may be 0 (scale to
	// zero); see each algorithm for what it does from 0 replicas.
	Min, Max int32
	// Target is the desired value per pod, in the unit of PodSample.Value
	// (utilisation percent, or a metric value per pod). Must be > 0.
	Target float64
	// Pods are the target's pods and their samples. Ignored when External is
	// set.
	Pods []PodSample
	// External, when non-nil, is a total metric for the whole target (for
	// example a PromQL sum of requests per second) used instead of Pods: the
	// desired count is then about External / Target.
	External *float64
	// IgnoreReadiness counts the sample of a running pod that is not Ready,
	// as upstream groupPods does for every metric but the CPU resource
	// (memory, Pods and Object metrics). Only the kubernetes algorithm
	// reads it (as [KubernetesConfig.IgnoreReadiness], per metric); the
	// others count Ready pods' samples only.
	IgnoreReadiness bool
	// Room, when non-nil, is how many replicas beyond Current can start
	// without waiting for a node to boot: free room in the primary cluster,
	// on Ready burst nodes and in burst clusters without node groups, less
	// the pods already waiting for it. Only the adaptive algorithm reads
	// it, with [AdaptiveConfig.NodeHorizon] (give every metric the same); nil is
	// unknown: every added replica may wait for a node.
	Room *int32
}

// Decision is an algorithm's answer.
type Decision struct {
	// Desired is the recommended replica count, always within [Min, Max] of a
	// valid Input.
	Desired int32
	// Reason explains the decision for humans (events, status). It is
	// deterministic: the same inputs and history give the same text.
	Reason string
	// Limited reports that Desired was clamped by Min/Max or by a rate,
	// policy or stabilisation rule.
	Limited bool
	// ScalingDisabled is the HPA's ScalingDisabled condition: the target
	// was scaled to 0 by hand while Min > 0, which turns autoscaling off
	// until someone scales it up again. Desired is then 0, the current
	// count (outside [Min, Max]): the caller leaves the target alone. Only
	// the kubernetes algorithm reports it.
	ScalingDisabled bool
	// Headroom is how many of Desired are spare replicas kept on top of
	// the load's need (the adaptive algorithm's HeadroomReplicas and
	// HeadroomPercent), 0 to Desired; 0 for the other algorithms. They are
	// the last replicas of the count: [PlaceWithHeadroom] puts them where
	// they are cheapest and [HeadroomCost] prices them.
	Headroom int32
}

// Algorithm decides replica counts. Implementations that need history keep it
// in their own struct: use one instance per scaled target, and do not call it
// from several goroutines at once.
type Algorithm interface {
	// Name is the algorithm's kind as written in a BurstPolicy:
	// "adaptive", "kubernetes", "frss" or "panic".
	Name() string
	// Decide returns the replica count for in, within [Min, Max] unless
	// Decision.ScalingDisabled. It never panics. For an input
	// that fails [Validate] it holds: Desired is Current clamped into
	// [Min, Max] (or Current itself when Min > Max or Current < 0 gives no
	// sane bound), Limited is true and Reason starts with "invalid input: ".
	// Callers should run Validate first and surface its error. It is
	// DecideMetrics of one metric.
	Decide(in Input) Decision
	// DecideMetrics decides over several metrics of the target at once,
	// one Input per metric (the same Now, Current, Min and Max; Target,
	// Pods, External and IgnoreReadiness per metric), as the HPA's
	// computeReplicasForMetrics: each metric proposes a count from its own
	// samples (and its own history, where the algorithm keeps one: load
	// windows, forecasts), the highest proposal wins, and it is stabilised
	// and limited once, so one instance serves all the metrics of a target
	// and its history holds the scale events that really happened. A
	// metric with no data is skipped; if every metric has none, or the
	// highest proposal of the others would scale down, the current count
	// holds (upstream refuses to scale down on partial data). Pass the
	// metrics in the same order at every call: per-metric history is kept
	// by position (a different number of inputs restarts it). An empty
	// ins, or inputs that disagree on Now, Current, Min or Max, are
	// invalid (hold).
	DecideMetrics(ins []Input) Decision
}

var (
	_ Algorithm = (*Kubernetes)(nil)
	_ Algorithm = (*Adaptive)(nil)
	_ Algorithm = (*FRSS)(nil)
	_ Algorithm = (*Panic)(nil)
)

// validateMetrics checks the inputs of one DecideMetrics call: each one
// valid, and all with one sync's Now, Current, Min and Max.
func validateMetrics(ins []Input) (Input, error) {
	if len(ins) == 0 {
		return Input{}, fmt.Errorf("%w: no metric input", ErrInvalidInput)
	}
	in := ins[0]
	for i := range ins {
		if err := Validate(ins[i]); err != nil {
			return in, err
		}
		if o := ins[i]; !o.Now.Equal(in.Now) || o.Current != in.Current || o.Min != in.Min || o.Max != in.Max {
			return in, fmt.Errorf("%w: metric %d has other Now, Current, Min or Max than metric 0: pass one sync's values to every metric", ErrInvalidInput, i)
		}
	}
	return in, nil
}

// writeMetric starts metric i's part of a reason when there are several.
func writeMetric(b *strings.Builder, i, n int) {
	if n < 2 {
		return
	}
	if i > 0 {
		b.WriteString("; ")
	}
	b.WriteString("metric ")
	writeInt(b, int32(i))
	b.WriteString(": ")
}

// ErrInvalidInput is wrapped by every error [Validate] returns.
var ErrInvalidInput = errors.New("invalid scaling input")

// Validate reports the first problem with in, naming the field and the fix.
// Pod values that are NaN, infinite or negative are not errors: algorithms
// treat such samples as missing.
func Validate(in Input) error {
	switch {
	case in.Min < 0:
		return fmt.Errorf("%w: Min is %d: set it to 0 or more", ErrInvalidInput, in.Min)
	case in.Max < 1:
		return fmt.Errorf("%w: Max is %d: set it to 1 or more", ErrInvalidInput, in.Max)
	case in.Min > in.Max:
		return fmt.Errorf("%w: Min (%d) is greater than Max (%d): lower Min or raise Max", ErrInvalidInput, in.Min, in.Max)
	case in.Current < 0:
		return fmt.Errorf("%w: Current is %d: pass the target's replica count, 0 or more", ErrInvalidInput, in.Current)
	case math.IsNaN(in.Target) || math.IsInf(in.Target, 0) || in.Target <= 0:
		return fmt.Errorf("%w: Target is %v: set a finite value greater than 0", ErrInvalidInput, in.Target)
	case in.Now.IsZero():
		return fmt.Errorf("%w: Now is the zero time: pass the decision time", ErrInvalidInput)
	case in.External != nil && (math.IsNaN(*in.External) || math.IsInf(*in.External, 0) || *in.External < 0):
		return fmt.Errorf("%w: External is %v: pass a finite total of 0 or more, or nil to use Pods", ErrInvalidInput, *in.External)
	}
	return nil
}

// invalid is the hold decision Decide returns for an input that fails
// Validate.
func invalid(in Input, err error) Decision {
	d := in.Current
	if in.Min <= in.Max && in.Min >= 0 {
		d = clamp(d, in.Min, in.Max)
	} else if d < 0 {
		d = 0
	}
	return Decision{Desired: d, Reason: "invalid input: " + err.Error(), Limited: true}
}

// clampWriting returns v limited to [lo, hi] (lo <= hi) and, when that
// changed it, says so in b ("; min replicas N" or "; max replicas N").
func clampWriting(b *strings.Builder, v, lo, hi int32) int32 {
	c := clamp(v, lo, hi)
	if c != v {
		if c == lo {
			b.WriteString("; min replicas ")
		} else {
			b.WriteString("; max replicas ")
		}
		writeInt(b, c)
	}
	return c
}

// clamp returns v limited to [lo, hi] (lo <= hi).
func clamp(v, lo, hi int32) int32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
