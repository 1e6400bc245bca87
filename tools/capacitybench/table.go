package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// sample is what the bench saw of one scenario at one instant.
type sample struct {
	// At is the time since the scenario's surge.
	At time.Duration
	// Ready counts the burst replicas Ready in the burst cluster.
	Ready int
	// Nodes counts the node group's Ready nodes; Desired is the group's
	// desired size in the cloud (what is billed: nodes booting included).
	Nodes, Desired int
}

// scenario is one measured run: a primary with no room, a burst target
// whose node group starts at 0 nodes and boots nodes after BootDelay.
type scenario struct {
	BootDelay, PodStartup, Interval, ScaleDownDelay time.Duration
	// Need is the number of burst replicas the surge needs.
	Need int
	// FallAt is when the load fell (the Deployment scaled back), since the
	// surge; zero: it never did.
	FallAt time.Duration
	// PricePerHour is the node group's price per node-hour, in dollars.
	PricePerHour float64
	Samples      []sample
	// Err is why the run stopped early, if it did.
	Err error
}

// result is a scenario's line of the table. A duration of -1 means the
// instant was not reached.
type result struct {
	// Ideal is boot delay + pod start-up + one control interval.
	Ideal time.Duration
	// First and All are when the first and all needed burst replicas were
	// Ready, since the surge.
	First, All time.Duration
	// PeakNodes is the most nodes Ready at once.
	PeakNodes int
	// Back is when no burst replica was Ready any more after the fall;
	// Zero when the group was back at 0 desired and 0 Ready nodes after it.
	Back, Zero time.Duration
	// NodeHoursDelay are the node-hours billed (desired nodes) between Back
	// and Back + the scale-down delay: what the delay costs by design.
	NodeHoursDelay float64
	// NodeHoursAfter are the node-hours billed after Back + the scale-down
	// delay, while the burst was over (goal: 0).
	NodeHoursAfter float64
}

// summarize reads a scenario's samples. Between two samples the earlier
// sample's desired size holds (a step function).
func summarize(s scenario) result {
	r := result{Ideal: s.BootDelay + s.PodStartup + s.Interval, First: -1, All: -1, Back: -1, Zero: -1}
	for i, x := range s.Samples {
		r.PeakNodes = max(r.PeakNodes, x.Nodes)
		if r.First < 0 && x.Ready > 0 {
			r.First = x.At
		}
		if r.All < 0 && s.Need > 0 && x.Ready >= s.Need {
			r.All = x.At
		}
		fallen := s.FallAt > 0 && x.At >= s.FallAt
		if fallen && r.Back < 0 && x.Ready == 0 {
			r.Back = x.At
		}
		if r.Back >= 0 && r.Zero < 0 && x.Desired == 0 && x.Nodes == 0 {
			r.Zero = x.At
		}
		if r.Back < 0 || i+1 == len(s.Samples) {
			continue
		}
		from, to := x.At, s.Samples[i+1].At
		limit := r.Back + s.ScaleDownDelay
		hours := func(a, b time.Duration) float64 {
			if b <= a {
				return 0
			}
			return float64(x.Desired) * (b - a).Hours()
		}
		r.NodeHoursDelay += hours(max(from, r.Back), min(to, limit))
		r.NodeHoursAfter += hours(max(from, limit), to)
	}
	return r
}

// writeTable writes the results as a Markdown table, one line per scenario.
func writeTable(w io.Writer, scenarios []scenario) error {
	var b strings.Builder
	b.WriteString("| node boot delay | pod start-up | ideal (boot + start-up + interval) | first burst replica Ready | all needed Ready | all − ideal | nodes bought (peak) | burst back → group at 0 | node-hours in the delay | node-hours after the delay (goal 0) | cost after the delay |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range scenarios {
		r := summarize(s)
		over := "–"
		if r.All >= 0 {
			over = signed(r.All - r.Ideal)
		}
		zero := "not reached"
		if r.Zero >= 0 {
			zero = dur(r.Zero - r.Back)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s (%d) | %s | %d | %s | %.4f | %.4f | $%.4f |\n",
			dur(s.BootDelay), dur(s.PodStartup), dur(r.Ideal), at(r.First), at(r.All), s.Need, over, r.PeakNodes, zero,
			r.NodeHoursDelay, r.NodeHoursAfter, r.NodeHoursAfter*s.PricePerHour)
	}
	for _, s := range scenarios {
		if s.Err != nil {
			fmt.Fprintf(&b, "\nboot delay %s: %v\n", dur(s.BootDelay), s.Err)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func at(d time.Duration) string {
	if d < 0 {
		return "not reached"
	}
	return dur(d)
}

func dur(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func signed(d time.Duration) string { return fmt.Sprintf("%+.1f s", d.Seconds()) }
