package simulate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// row is one line of the comparison table.
type row struct {
	name string
	val  func(*Result) string
}

func pct(v float64) string { return fmt.Sprintf("%.2f %%", v) }

func secs(v float64, ctrl float64) string {
	switch {
	case math.IsNaN(v):
		return "no rise"
	case math.IsInf(v, 1):
		return "not reached"
	}
	return fmt.Sprintf("%.0f s (%.1f intervals)", v, v/ctrl)
}

var rows = []row{
	{"decided by", func(r *Result) string {
		if s := r.Policy.SLO; s != nil {
			return fmt.Sprintf("SLO %s, %s strategy", s, s.Strategy)
		}
		return r.Algorithm
	}},
	{"demand (pods) from", func(r *Result) string {
		if s := r.Policy.SLO; s != nil {
			return "SLO " + s.String()
		}
		if r.Policy.Metric == MetricRequestRate {
			return fmt.Sprintf("%g req/s per pod", r.Policy.Target)
		}
		return fmt.Sprintf("CPU at %g %%", r.Policy.Target)
	}},
	{"control interval", func(r *Result) string { return r.ControlInterval.String() }},
	{"under-provisioning accuracy θU", func(r *Result) string { return pct(r.Metrics.UnderAccuracy) }},
	{"over-provisioning accuracy θO", func(r *Result) string { return pct(r.Metrics.OverAccuracy) }},
	{"under-provisioning timeshare τU", func(r *Result) string { return pct(r.Metrics.UnderTimeshare) }},
	{"over-provisioning timeshare τO", func(r *Result) string { return pct(r.Metrics.OverTimeshare) }},
	{"instability υ", func(r *Result) string { return pct(r.Metrics.Instability) }},
	{"jitter (pod adaptations/h)", func(r *Result) string { return fmt.Sprintf("%.1f", r.Metrics.JitterPerHour) }},
	{"under-provisioned pod-minutes", func(r *Result) string { return fmt.Sprintf("%.1f", r.Metrics.UnderPodMinutes) }},
	{"over-provisioned pod-minutes", func(r *Result) string { return fmt.Sprintf("%.1f", r.Metrics.OverPodMinutes) }},
	{"SLA violation rate", func(r *Result) string {
		return fmt.Sprintf("%.3f %% (> %v)", r.Metrics.SLAViolationRate*100, r.Model.SLOThreshold)
	}},
	{"timed-out requests", func(r *Result) string {
		return fmt.Sprintf("%.3f %% (> %v)", r.Metrics.ErrorRate*100, r.requestTimeout())
	}},
	{"mean latency", func(r *Result) string { return fmt.Sprintf("%.1f ms", r.Metrics.MeanLatency*1000) }},
	{"demand rises", func(r *Result) string { return fmt.Sprint(r.Metrics.Rises) }},
	{"time to required replicas (decided, within 10 %)", func(r *Result) string {
		return secs(r.Metrics.TimeToDecide, r.ControlInterval.Seconds())
	}},
	{"time to required replicas (ready, within 10 %)", func(r *Result) string {
		return secs(r.Metrics.TimeToReady, r.ControlInterval.Seconds())
	}},
	{"scaling actions", func(r *Result) string { return fmt.Sprint(r.Metrics.ScalingActions) }},
	{"direction reversals", func(r *Result) string { return fmt.Sprint(r.Metrics.Reversals) }},
	{"re-expansions (up after down)", func(r *Result) string { return fmt.Sprint(r.Metrics.ReExpansions) }},
	{"max replicas decided", func(r *Result) string { return fmt.Sprint(r.Metrics.MaxDesired) }},
	{"pod-hours", func(r *Result) string { return fmt.Sprintf("%.2f", r.Metrics.PodHours) }},
	{"cost ($/day)", func(r *Result) string { return fmt.Sprintf("%.2f", r.Metrics.CostPerDay) }},
	{"of which headroom ($/day)", func(r *Result) string {
		if r.Metrics.HeadroomCost == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f", r.Metrics.HeadroomCostPerDay)
	}},
	{"pod-hours in burst clusters", func(r *Result) string { return fmt.Sprintf("%.1f %%", r.Metrics.BurstShare*100) }},
	{"burst node-hours (node groups; spot notices)", func(r *Result) string {
		if !r.Model.hasNodeGroups() {
			return "—"
		}
		return fmt.Sprintf("%.2f (%d)", r.Metrics.NodeHours, r.Metrics.Interruptions)
	}},
	{"load forecast MAPE at the horizon (naive: no change)", func(r *Result) string {
		if r.Metrics.Forecasts == 0 {
			return "—"
		}
		return fmt.Sprintf("%.1f %% (naive %.1f %%)", r.Metrics.ForecastMAPE, r.Metrics.NaiveMAPE)
	}},
}

// Label names a run in tables and file names: Name if set, else the
// algorithm.
func (r *Result) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Algorithm
}

func (r *Result) requestTimeout() time.Duration {
	if r.Model.RequestTimeout > 0 {
		return r.Model.RequestTimeout
	}
	return DefaultRequestTimeout
}

// WriteTable writes a Markdown table, one column per run, and, for
// burst-policy runs, a last column with the reactive floor of the first
// run's policy and trace at the shortest of their control intervals (see
// [ReactiveFloor]).
func WriteTable(w io.Writer, results []*Result) error {
	results, err := withFloor(results)
	if err != nil {
		return fmt.Errorf("reactive floor: %w", err)
	}
	var b strings.Builder
	b.WriteString("| metric |")
	for _, r := range results {
		b.WriteString(" " + r.Label() + " |")
	}
	b.WriteString("\n|---|")
	for range results {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + row.name + " |")
		for _, r := range results {
			b.WriteString(" " + row.val(r) + " |")
		}
		b.WriteString("\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}
