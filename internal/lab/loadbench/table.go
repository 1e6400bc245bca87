package loadbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Bounds the issue sets for the runtime at this scale.
const (
	MaxCPU    = 0.25 // vCPU
	MaxRSSMiB = 300
)

// WriteTable writes r as a Markdown table: one row per figure, with the
// bound it is held to where there is one.
func WriteTable(w io.Writer, r *Result) error {
	secs := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "n/a (none)"
		case math.IsInf(v, 1):
			return "beyond the last bucket"
		case v < 1:
			return fmt.Sprintf("<= %.0f ms", v*1000)
		}
		return fmt.Sprintf("<= %.1f s", v)
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	var writes []string
	methods := make([]string, 0, len(r.RuntimeWritesPerSec))
	total := 0.0
	for m := range r.RuntimeWritesPerSec {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	for _, m := range methods {
		writes = append(writes, fmt.Sprintf("%s %.1f", m, r.RuntimeWritesPerSec[m]))
		total += r.RuntimeWritesPerSec[m]
	}
	rows := [][3]string{
		{"Objects", fmt.Sprintf("%d namespaces, %d Deployments (1 pod each), %d SLOs, %d BurstPolicies", r.Namespaces, r.Namespaces, r.SLOs, r.Policies), ""},
		{"Runtime GOMEMLIMIT (as hca_runtime sets it for the container memory limit it stands for)", memLimit(r.GoMemLimitMiB), ""},
		{"Load churn: share of namespaces whose load alternates +-30 % every SLO cycle", fmt.Sprintf("%.0f %%", 100*r.Churn), ""},
		{"Setup (objects created, every pod Running)", r.SetupTime.Round(time.Second).String(), ""},
		{"Runtime start to every SLO evaluated, every policy reconciled and every strategy decided", r.ReadyTime.Round(time.Second).String(), ""},
		{"Measured window", fmt.Sprintf("%s (%d SLO cycles of 20 s)", r.Window, r.Cycles), ""},
		{"Runtime CPU (utime+stime over the window)", fmt.Sprintf("%.3f vCPU", r.CPU), fmt.Sprintf("<= %.2f: %s", MaxCPU, verdict(r.CPU <= MaxCPU))},
		{"Runtime RSS (max VmRSS sampled each second / VmHWM)", fmt.Sprintf("%.0f MiB / %.0f MiB", r.RSSMaxMiB, r.HWMMiB), fmt.Sprintf("<= %d MiB: %s", MaxRSSMiB, verdict(r.HWMMiB <= MaxRSSMiB))},
		{"Largest VmRSS sample: Go runtime (RssAnon) / binary's pages (RssFile); VmHWM at the window's start", fmt.Sprintf("%.0f / %.0f MiB; %.0f MiB", r.AnonMiB, r.FileMiB, r.HWMStartMiB), ""},
		{"SLO evaluations in the window (expected SLOs x cycles)", fmt.Sprintf("%.0f (%.0f)", r.SLOEvaluations, r.SLOExpected), verdict(r.SLOEvaluations >= r.SLOExpected)},
		{"SLO evaluation start after due: p99 / max", secs(r.SLOLateP99) + " / " + secs(r.SLOLateMax), ""},
		{"SLO batch duration: mean / max (buckets end at 8.2 s)", fmt.Sprintf("%.1f s / %s", r.SLOBatchMean, secs(r.SLOBatchMax)), fmt.Sprintf("< 20 s: %s", verdict(r.SLOBatchMean < sloInterval.Seconds()))},
		{"Policy metric evaluations (expected policies x window / 15 s)", fmt.Sprintf("%.0f (%.0f)", r.PolicyEvaluations, r.PolicyExpected), verdict(r.PolicyEvaluations >= 0.95*r.PolicyExpected)},
		{"Policy evaluation start after due: p99 / max", secs(r.PolicyLateP99) + " / " + secs(r.PolicyLateMax), ""},
		{"BurstPolicy reconciles in the window: count / mean duration / mean wait in the queue", fmt.Sprintf("%.0f / %.0f ms / %.0f ms", r.PolicyReconciles, r.PolicyReconcileMean*1000, r.PolicyQueueWaitMean*1000), ""},
		{"HorizontalElasticityStrategy reconciles in the window (each new SLO output decided): count / mean duration / mean wait in the queue; queue at the end", fmt.Sprintf("%.0f / %.0f ms / %.0f ms; %.0f", r.StrategyReconciles, r.StrategyReconcileMean*1000, r.StrategyQueueWaitMean*1000, r.StrategyQueueDepth), ""},
		{"Strategy queue wait: p99", secs(r.StrategyQueueWaitP99), fmt.Sprintf("< 20 s (one SLO cycle): %s", verdict(r.StrategyReconciles > 0 && r.StrategyQueueWaitP99 < sloInterval.Seconds()))},
		{"Prometheus queries per SLO cycle (Prometheus' count / the runtime's)", fmt.Sprintf("%.0f / %.0f", r.PromQueriesPerCycle, r.RuntimeQueriesPerCycle), ""},
		{"Runtime writes to the control cluster per second", fmt.Sprintf("%.1f (%s)", total, strings.Join(writes, ", ")), ""},
		{"All clients' writes to the private API server per second (kwok included), largest", fmt.Sprintf("%.1f (%s)", r.APIServerWritesPerSec, top(r.APIServerWrites, 5)), ""},
		{"Runtime requests to the burst cluster per second", fmt.Sprintf("%.1f", r.RuntimeBurstRequestsPerSec), ""},
		{"Runtime errors in the window (hca_errors_total)", fmt.Sprintf("%.0f", r.Errors), ""},
		{"At the end: SLOs Ready with data / policies reconciled with data", fmt.Sprintf("%d / %d", r.SLOsReady, r.PoliciesReconciled), ""},
		{"Machine load average (1 min) at the window's end, 2 cores", fmt.Sprintf("%.1f", r.LoadAverage), ""},
	}
	if _, err := fmt.Fprintln(w, "| Figure | Value | Bound |\n|---|---|---|"); err != nil {
		return err
	}
	for _, row := range rows {
		if _, err := fmt.Fprintf(w, "| %s | %s | %s |\n", row[0], row[1], row[2]); err != nil {
			return err
		}
	}
	return nil
}

// top lists the n largest entries of m as "key value", largest first.
func top(m map[string]float64, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, k := range keys[:min(n, len(keys))] {
		out = append(out, fmt.Sprintf("%s %.1f", k, m[k]))
	}
	return strings.Join(out, ", ")
}

func memLimit(mib int) string {
	if mib == 0 {
		return "none"
	}
	return fmt.Sprintf("%d MiB", mib)
}
