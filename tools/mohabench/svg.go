package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// writeSVG draws four panels over the trace's seconds under title: the
// offered load, each run's pods, each run's total CPU limit (pods × CPU limit,
// cores) and each run's mean response time (capped at twice the desired).
func writeSVG(w io.Writer, title string, runs []loopResult) error {
	const width, panelH, left, top, gap = 760, 150, 60, 30, 40
	colours := []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#7f7f7f", "#9467bd", "#d62728", "#17becf"}
	panels := []struct {
		title string
		value func(r loopResult, t int) float64
		runs  []loopResult
	}{
		{"offered load (req/s)", func(r loopResult, t int) float64 { return r.load[t] }, runs[:1]},
		{"pods", func(r loopResult, t int) float64 { return float64(r.series[t].Replicas) }, runs},
		{"total CPU limit (cores)", func(r loopResult, t int) float64 {
			return float64(r.series[t].Replicas) * r.series[t].CPULimitMilli / 1000
		}, runs},
		{fmt.Sprintf("response time (ms, capped at %.0f)", 2*desired.ResponseTimeMs), func(r loopResult, t int) float64 {
			return min(r.rts[t], 2*desired.ResponseTimeMs)
		}, runs},
	}
	legendH := 20 * ((len(runs) + 2) / 3)
	height := top + len(panels)*(panelH+gap) + legendH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13">%s</text>`+"\n", left, title)
	T := len(runs[0].series)
	plotW := float64(width - left - 20)
	for p, panel := range panels {
		y0 := float64(top + p*(panelH+gap))
		maxV := 0.0
		for _, r := range panel.runs {
			for t := 0; t < T; t++ {
				maxV = max(maxV, panel.value(r, t))
			}
		}
		if maxV == 0 {
			maxV = 1
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.0f">%s</text>`+"\n", left, y0+12, panel.title)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="black"/>`+"\n", left, y0+panelH, width-20, y0+panelH)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="black"/>`+"\n", left, y0+20, left, y0+panelH)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">%.4g</text>`+"\n", left-4, y0+24, maxV)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">0</text>`+"\n", left-4, y0+panelH)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">%d s</text>`+"\n", width-20, y0+panelH+14, T)
		for i, r := range panel.runs {
			// Step lines: a point where the value changes (and at the ends).
			var pts strings.Builder
			prevY := math.NaN()
			for t := 0; t < T; t++ {
				x := float64(left) + plotW*float64(t)/float64(T-1)
				y := y0 + panelH - (panelH-20)*panel.value(r, t)/maxV
				switch {
				case t == 0 || t == T-1:
					fmt.Fprintf(&pts, "%.1f,%.1f ", x, y)
				case y != prevY:
					fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", x, prevY, x, y)
				}
				prevY = y
			}
			colour := colours[i%len(colours)]
			if p == 0 {
				colour = "black"
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", colour, strings.TrimSpace(pts.String()))
		}
	}
	ly := top + len(panels)*(panelH+gap)
	for i, r := range runs {
		x := left + (i%3)*230
		y := ly + (i/3)*20
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="3" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y-4, colours[i%len(colours)], x+16, y, r.name)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
