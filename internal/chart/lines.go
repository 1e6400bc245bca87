package chart

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Series is one line of a panel: its legend name and its points, X in
// seconds from the chart's start. A NaN Y is a gap (no sample there): the
// line stops and starts again after it.
type Series struct {
	Name string
	X, Y []float64
}

// LinePanel is one frame of a line chart: a title, the unit of its values
// (said after the title) and its series.
type LinePanel struct {
	Title, Unit string
	Series      []Series
}

// Geometry of WriteLines: the same frame sizes and colours as the demo's
// chart.
const (
	linesW       = 960
	linesLeft    = 60
	linesRight   = 220
	linesTop     = 80
	linesPanel   = 150
	linesGap     = 50
	linesPlotW   = linesW - linesLeft - linesRight
	linesLegends = 7
)

// Palette is the colours of the project's charts, in order of use.
var Palette = []string{"#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#eeca3b", "#9d755d"}

// WriteLines draws panels one under another over a shared time axis from 0
// to end seconds: one polyline per series (gaps where Y is NaN), grid lines
// from [Ticks] of the panel's highest value, minute ticks, and a legend on
// the right (the first seven series, then "+N more"). A panel without any
// point says "no data". The output is a standalone SVG document.
func WriteLines(w io.Writer, title, subtitle string, panels []LinePanel, end float64) error {
	if !(end > 0) {
		end = 1
	}
	n := max(1, len(panels))
	H := linesTop + n*linesPanel + (n-1)*linesGap + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", linesW, H, linesW, H)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", linesLeft, Esc(title))
	if subtitle != "" {
		fmt.Fprintf(&b, `<text x="%d" y="42" fill="#444">%s</text>`+"\n", linesLeft, Esc(subtitle))
	}
	x := func(s float64) float64 { return linesLeft + math.Min(math.Max(s, 0), end)/end*linesPlotW }
	for k, p := range panels {
		top := float64(linesTop + k*(linesPanel+linesGap))
		peak, points := 0.0, 0
		for _, s := range p.Series {
			for _, v := range s.Y {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					peak = math.Max(peak, v)
					points++
				}
			}
		}
		ymax, ticks := Ticks(peak)
		name := p.Title
		if p.Unit != "" {
			name += " (" + p.Unit + ")"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", linesLeft, top, linesPlotW, linesPanel)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", linesLeft, top-8, Esc(name))
		y := func(v float64) float64 { return top + linesPanel - math.Min(math.Max(v, 0), ymax)/ymax*linesPanel }
		for _, t := range ticks {
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
				linesLeft, y(t.Value), linesLeft+linesPlotW, y(t.Value), linesLeft-5, y(t.Value)+4, t.Label)
		}
		tick := timeTick(end)
		for s := 0.0; s <= end+1e-9; s += tick {
			label := fmt.Sprintf("%dm", int(s/60))
			if tick >= 3600 {
				label = fmt.Sprintf("%dh", int(s/3600))
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%s</text>`, x(s), top+linesPanel+14, label)
		}
		b.WriteString("\n")
		if points == 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="middle" fill="#999">no data</text>`+"\n", linesLeft+linesPlotW/2, top+linesPanel/2)
		}
		for i, s := range p.Series {
			color := Palette[i%len(Palette)]
			var seg []string
			flush := func() {
				if len(seg) > 0 {
					fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", color, strings.Join(seg, " "))
				}
				seg = seg[:0]
			}
			for j := range min(len(s.X), len(s.Y)) {
				if math.IsNaN(s.Y[j]) || math.IsInf(s.Y[j], 0) {
					flush()
					continue
				}
				seg = append(seg, fmt.Sprintf("%.1f,%.1f", x(s.X[j]), y(s.Y[j])))
			}
			flush()
			if i < linesLegends {
				yy := top + 10 + float64(i)*18
				fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="%s" stroke-width="3"/><text x="%d" y="%.0f">%s</text>`+"\n",
					linesLeft+linesPlotW+10, yy, linesLeft+linesPlotW+28, yy, color, linesLeft+linesPlotW+33, yy+4, Esc(s.Name))
			}
		}
		if more := len(p.Series) - linesLegends; more > 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%.0f" fill="#555">+%d more</text>`+"\n", linesLeft+linesPlotW+33, top+14+float64(linesLegends)*18, more)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// timeTick is the time axis' step for a chart of end seconds: a minute up to
// 15 minutes, 5 minutes up to 80, then the first of 15 and 30 minutes, 1, 2,
// 3, 6 and 12 hours and a day that keeps the labels at 16 or fewer.
func timeTick(end float64) float64 {
	switch {
	case end <= 900:
		return 60
	case end <= 16*300:
		return 300
	}
	for _, t := range []float64{900, 1800, 3600, 7200, 10800, 21600, 43200} {
		if end/t <= 16 {
			return t
		}
	}
	return 86400
}
