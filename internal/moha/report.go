package moha

import (
	"fmt"
	"io"
	"strings"
)

// Result is one model's accuracy on held-out samples.
type Result struct {
	Name     string // the kind, or the kind and a variant ("svr (tuned)")
	Accuracy Accuracy
}

// WriteAccuracyTable writes a Markdown table of MAE and R² per target and
// model, the paper's Table 2 (which reports MSE on scaled targets; MAE here
// is in the targets' own units).
func WriteAccuracyTable(w io.Writer, results []Result) error {
	var b strings.Builder
	b.WriteString("| model |")
	for _, t := range Targets {
		fmt.Fprintf(&b, " %s MAE | %s R² |", t, t)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" ---: | ---: |", NumTargets) + "\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s |", r.Name)
		for t := range Targets {
			fmt.Fprintf(&b, " %.2f | %.3f |", r.Accuracy.MAE[t], r.Accuracy.R2[t])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDecisionTable writes a Markdown table of a decision's ranked
// variations: parameters, the target each parameter's eq. 1 came from,
// predicted targets and TOPSIS closeness.
func WriteDecisionTable(w io.Writer, d Decision) error {
	var b strings.Builder
	b.WriteString("| rank | CPU limit (m) | memory limit (Mi) | replicas | from (CPU, memory, replicas) | response time (ms) | CPU usage (%) | memory usage (%) | closeness |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n")
	for i, v := range d.Ranked {
		fmt.Fprintf(&b, "| %d | %.0f | %.0f | %d | %s, %s, %s | %.1f | %.1f | %.1f | %.4f |\n",
			i+1, v.CPULimitMilli, v.MemoryLimitMiB, v.Replicas, v.From[0], v.From[1], v.From[2],
			v.Predicted[0], v.Predicted[1], v.Predicted[2], v.Closeness)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
