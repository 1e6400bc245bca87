package demo

import (
	"fmt"
	"strings"
	"time"
)

// Row renders a sample as one terminal line: time, load, ready/desired per
// cluster, pending replicas, the burst node groups' Ready/desired nodes per
// cluster (when it has any), SLO compliance, phase and a bar with one letter
// per ready replica (the cluster's initial; a dot per replica desired but not
// ready yet).
func Row(s Sample, clusters []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%6s  load %4.0f req/s", fmtClock(s.At), s.OfferedRPS)
	if s.ErrorRPS >= 0.05 {
		fmt.Fprintf(&b, " (refused %5.1f)", s.ErrorRPS)
	} else {
		b.WriteString("                ")
	}
	for _, c := range clusters {
		fmt.Fprintf(&b, "  %s %2d/%-2d", c, s.Ready[c], s.Desired[c])
	}
	fmt.Fprintf(&b, "  pending %2d", s.Pending)
	if len(s.Nodes) > 0 {
		b.WriteString("  nodes")
		for _, c := range clusters {
			if n, ok := s.Nodes[c]; ok {
				fmt.Fprintf(&b, " %s %d/%d", c, n.Ready, n.Desired)
			}
		}
	}
	if s.Compliance != nil {
		fmt.Fprintf(&b, "  SLO %4d%%", *s.Compliance)
	} else {
		b.WriteString("  SLO     –")
	}
	fmt.Fprintf(&b, "  %-9s %s", s.Phase, Bar(s, clusters))
	return b.String()
}

// Bar draws the replicas: per cluster in order, its initial (upper case) per
// ready replica and '.' per desired replica not ready yet.
func Bar(s Sample, clusters []string) string {
	var b strings.Builder
	for _, c := range clusters {
		letter := "?"
		if c != "" {
			letter = strings.ToUpper(c[:1])
		}
		ready := max(s.Ready[c], 0)
		b.WriteString(strings.Repeat(letter, int(ready)))
		if d := s.Desired[c] - ready; d > 0 {
			b.WriteString(strings.Repeat(".", int(d)))
		}
	}
	return b.String()
}

// fmtClock renders d as m:ss.
func fmtClock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
