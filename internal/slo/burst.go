package slo

import "time"

// BurstTotal is the Burst strategy for one target of a BurstPolicy: it turns
// each SLO output into the policy's total replica count (all clusters) with
// the Horizontal maths, keeping the recommendations its stabilisation windows
// look back on. The burst controller keeps one per policy target and the
// simulator one per run: the same code decides in both.
type BurstTotal struct {
	history []Recommendation
}

// Apply decides the total for one output: compliance measured while the
// policy ran total replicas, bounded and stabilised by cfg (the policy's
// min/max, the SLO's tolerance and windows).
func (b *BurstTotal) Apply(now time.Time, total int32, compliance float64, cfg HorizontalConfig) (HorizontalDecision, error) {
	d, err := Horizontal(now, total, compliance, cfg, b.history)
	if err != nil {
		return d, err
	}
	b.history = d.History
	return d, nil
}

// EveryEvaluationIsOutput reports whether each evaluation of an SLO with
// these windows is a new output for its strategy even when the compliance is
// unchanged: with a window, so that the window sees every recommendation;
// without one, an unchanged output must not be applied twice (3 -> 5 -> 8 on
// one violation measured at 3).
func EveryEvaluationIsOutput(up, down time.Duration) bool {
	return up > 0 || down > 0
}
