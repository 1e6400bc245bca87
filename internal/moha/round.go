package moha

import "time"

// Configuration is what the MultiObjective strategy sets: the pods' CPU and
// memory limits and how many pods run.
type Configuration struct {
	CPULimitMilli  float64
	MemoryLimitMiB float64
	Replicas       int
}

// Configuration is the state's configuration.
func (s State) Configuration() Configuration {
	return Configuration{CPULimitMilli: s.CPULimitMilli, MemoryLimitMiB: s.MemoryLimitMiB, Replicas: s.Replicas}
}

// Configuration is the configuration the step leaves (the current one when
// it held).
func (r StepResult) Configuration() Configuration {
	return Configuration{CPULimitMilli: r.CPULimitMilli, MemoryLimitMiB: r.MemoryLimitMiB, Replicas: r.Replicas}
}

// History is what the MultiObjective strategy carries from one round to the
// next; the controller keeps it in the strategy's status (lastDecisionTime,
// replicas, cpu and memory, lastScaleTime, remembered).
type History struct {
	// DecidedAt is when a round last ran (zero: none yet); Decided is the
	// configuration the last round that decided left.
	DecidedAt time.Time
	Decided   Configuration
	// LastScale is when a round last changed the configuration (zero:
	// never).
	LastScale time.Time
	// Memory holds the measurements of configurations that served the
	// settle time unchanged ([Loop.SettleTime], [Memory]); with Capacity 0
	// nothing is remembered.
	Memory Memory
}

// Settled reports whether a measurement of s, taken at now, describes its
// configuration alone: the configuration is the one the last round left
// and has not changed for settle ([Loop.SettleTime]).
func (h History) Settled(s State, now time.Time, settle time.Duration) bool {
	if h.DecidedAt.IsZero() || s.Replicas < 1 || h.Decided != s.Configuration() {
		return false
	}
	return h.LastScale.IsZero() || now.Sub(h.LastScale) >= settle
}

// SettleTime is how long after a change a measurement describes the new
// configuration alone, for rounds every interval: two intervals (the
// measurement's window and a rollout's) or the cooldown, whichever is
// longer. A query's window may outlast the interval (the lab's rounds are 3
// s apart over 15 s windows; the defaults, 30 s over 1 min), and new pods
// take their start-up time: the cooldown, which holds decreases until a
// change has settled, bounds both. A measurement remembered earlier
// ([Memory]) mixed the configuration before: in TestMultiObjectiveLab 2
// pods of 500m/500Mi were remembered at 877 ms, their predecessor's, where
// they serve in 6.
func (l Loop) SettleTime(interval time.Duration) time.Duration {
	return max(2*interval, l.Cooldown)
}

// RoundResult is one round of the strategy: the step and the history to
// carry into the next round.
type RoundResult struct {
	StepResult
	// Remembered reports that the round added its measurement to the
	// history's memory (the configuration had settled).
	Remembered bool
	History    History
}

// Round is one round of the MultiObjective strategy as the runtime runs it
// every interval: s is the configuration in force with the past interval's
// mean measurements and h what earlier rounds left. When the configuration
// has settled ([History.Settled] for [Loop.SettleTime]) its measurement is
// remembered first; then
// [Step] decides with p's predictions, the response time replaced by a
// remembered one where the memory has it ([Remembered]). The returned
// history records the round: its time, its configuration and, when it
// changed the configuration, the time of the change. On an error nothing is
// decided: the history keeps the earlier configuration and times, with the
// round's measurement remembered.
func Round(p Predictor, s State, l Loop, h History, interval time.Duration, now time.Time) (RoundResult, error) {
	out := RoundResult{History: h}
	if h.Settled(s, now, l.SettleTime(interval)) {
		out.History.Memory = h.Memory.Remember(Measured{CPULimitMilli: s.CPULimitMilli, MemoryLimitMiB: s.MemoryLimitMiB,
			RequestsPerSecondPerPod: s.RequestsPerSecond / float64(s.Replicas), ResponseTimeMs: s.ResponseTimeMs})
		out.Remembered = true
	}
	step, err := Step(Remembered{P: p, Memory: out.History.Memory}, s, l, h.LastScale, now)
	if err != nil {
		return out, err
	}
	out.StepResult = step
	out.History.DecidedAt = now
	out.History.Decided = step.Configuration()
	if step.Changed() {
		out.History.LastScale = now
	}
	return out, nil
}
