package demo

// Before and after: a demo run beside a recorded run of an earlier
// quickstart (issue 11: "the demo's refused requests and time to all
// replicas Ready, before and after, in the demo report"). The recorded run
// is a real one: the samples.json a run of `go run ./tools/demo` wrote,
// wrapped with what ran and when, and committed; its figures are computed
// here from its samples by the same Summarize as the run's own, never
// typed in.

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Baseline is a recorded demo run.
type Baseline struct {
	// Label says what ran (the quickstart's commit and its policy).
	Label string `json:"label"`
	// Run is when it started (RFC 3339).
	Run string `json:"run"`
	// Source says how the samples were recorded.
	Source string `json:"source"`
	// Samples are the run's samples.json.
	Samples []Sample `json:"samples"`
}

// baselineFRSS is the quickstart's run before the default policy: FRSS
// named, the SLO's Burst strategy deciding the total.
//
//go:embed baseline-frss.json
var baselineFRSS []byte

// BaselineFRSS returns the recorded run of the quickstart before it used
// the default policy.
func BaselineFRSS() (Baseline, error) { return ParseBaseline(baselineFRSS) }

// ParseBaseline decodes a recorded run; it must hold samples.
func ParseBaseline(data []byte) (Baseline, error) {
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return Baseline{}, fmt.Errorf("baseline: %w", err)
	}
	if len(b.Samples) == 0 {
		return Baseline{}, fmt.Errorf("baseline %q: no samples: record one with the samples.json of a demo run", b.Label)
	}
	return b, nil
}

// WriteBeforeAfter writes the "Before and after" section of the report:
// the recorded run (before) and this run (after, described by afterLabel),
// each summarised by Summarize over its own samples.
func WriteBeforeAfter(w io.Writer, before Baseline, afterLabel string, after Summary) error {
	bs := Summarize(before.Samples, Clusters[0], RequestsPerPod)
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	p("\n## Before and after\n\n")
	p("- before: %s; run %s (%s)\n", before.Label, before.Run, before.Source)
	p("- after: %s; this run\n\n", afterLabel)
	p("| | before | after |\n|---|---:|---:|\n")
	for _, r := range compareRows(bs, after) {
		p("| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	return err
}

// compareRows are the rows of the before/after table: label, before, after.
func compareRows(b, a Summary) [][3]string {
	since := func(s Summary, seen bool, at time.Duration) string {
		if !s.SurgeSeen || !seen {
			return "not reached"
		}
		return (at - s.SurgeAt).Round(time.Second).String()
	}
	back := func(s Summary) string {
		if !s.FallSeen || !s.BackSeen {
			return "not reached"
		}
		return (s.BackAt - s.FallAt).Round(time.Second).String()
	}
	peak := func(s Summary) string {
		return fmt.Sprintf("%d (needed %d)", s.PeakReady, s.Needed)
	}
	return [][3]string{
		{"refused requests", fmt.Sprintf("%.2f %%", b.ErrorShare*100), fmt.Sprintf("%.2f %%", a.ErrorShare*100)},
		{"all replicas needed Ready, after the surge", since(b, b.FullSeen, b.FullAt), since(a, a.FullSeen, a.FullAt)},
		{"first replica Ready outside private, after the surge", since(b, b.BurstSeen, b.FirstBurstAt), since(a, a.BurstSeen, a.FirstBurstAt)},
		{"most ready replicas", peak(b), peak(a)},
		{"burst back in private, after the load fell", back(b), back(a)},
		{"burst node-hours", fmt.Sprintf("%.3f", b.NodeHours), fmt.Sprintf("%.3f", a.NodeHours)},
		{"burst node cost", fmt.Sprintf("$%.4f", b.BurstCost), fmt.Sprintf("$%.4f", a.BurstCost)},
	}
}
