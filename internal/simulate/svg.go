package simulate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/chart"
)

// Chart geometry.
const (
	chartW    = 1000
	panelH    = 170
	marginL   = 70
	marginR   = 170
	marginT   = 78
	panelGap  = 45
	plotW     = chartW - marginL - marginR
	maxPoints = plotW
)

var clusterColours = []string{"#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2"}

// WriteSVG writes a self-contained SVG chart of r: the load (and, for the
// adaptive algorithm, its forecast, drawn at the second it was made for), the
// demand and the ready pods per cluster (stacked), the p95 latency against
// the SLO threshold and, when burst clusters have node groups, their nodes
// (ordered and Ready) and the pods waiting for one. title heads the chart.
func WriteSVG(w io.Writer, r *Result, title string) error {
	s := &r.Series
	T := len(s.Load)
	bucket := (T + maxPoints - 1) / maxPoints
	n := (T + bucket - 1) / bucket
	// Per bucket: max load, max demand, ready per cluster at the bucket's
	// end, max desired, max p95.
	load := make([]float64, n)
	demand := make([]float64, n)
	desired := make([]float64, n)
	p95 := make([]float64, n)
	ready := make([][]float64, len(s.Ready))
	for c := range ready {
		ready[c] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		lo, hi := i*bucket, min((i+1)*bucket, T)
		for t := lo; t < hi; t++ {
			load[i] = math.Max(load[i], s.Load[t])
			demand[i] = math.Max(demand[i], float64(s.Demand[t]))
			desired[i] = math.Max(desired[i], float64(s.Desired[t]))
			p95[i] = math.Max(p95[i], s.Latency[t]*1000)
		}
		for c := range ready {
			ready[c][i] = float64(s.Ready[c][hi-1])
		}
	}
	// The adaptive algorithm's forecasts, at the second forecast: per
	// bucket the highest (NaN: none).
	forecastAt := make([]float64, n)
	hasForecast := false
	for i := range forecastAt {
		forecastAt[i] = math.NaN()
	}
	for _, tk := range r.Ticks {
		if tk.ForecastAt < 0 || tk.ForecastAt >= T {
			continue
		}
		i := tk.ForecastAt / bucket
		if math.IsNaN(forecastAt[i]) || tk.Forecast > forecastAt[i] {
			forecastAt[i] = tk.Forecast
		}
		hasForecast = true
	}
	// Node groups: per cluster with nodes, ordered and Ready nodes and the
	// pods waiting for a node at each bucket's end.
	var nodeClusters []int
	for c := range s.Nodes {
		if s.Nodes[c] != nil {
			nodeClusters = append(nodeClusters, c)
		}
	}
	x := func(i int) float64 { return marginL + float64(i)*float64(plotW)/float64(max(n-1, 1)) }
	panels := 3
	if r.Policy.SLO != nil {
		panels = 4
	}
	if len(nodeClusters) > 0 {
		panels++
	}
	H := marginT + panels*panelH + (panels-1)*panelGap + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartW, H, chartW, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", marginL, chart.Esc(title))
	sub := "algorithm " + r.Algorithm
	if sl := r.Policy.SLO; sl != nil {
		sub = fmt.Sprintf("SLO %s, %s strategy, evaluated every %v", sl, sl.Strategy, sl.Interval)
	}
	fmt.Fprintf(&b, `<text x="%d" y="44" fill="#444">%s; decision interval %v; x axis: time since the trace's start</text>`+"\n", marginL, chart.Esc(sub), r.ControlInterval)

	hours := T > 3*3600
	xlabel := func(sec int) string {
		if hours {
			return fmt.Sprintf("%dh", sec/3600)
		}
		return fmt.Sprintf("%dm", sec/60)
	}
	tickEvery := 300
	switch {
	case hours:
		tickEvery = 3 * 3600
	case T > 3600:
		tickEvery = 900
	}

	panel := func(k int, name string, ymax float64) (top float64, y func(float64) float64) {
		top = float64(marginT + k*(panelH+panelGap))
		if ymax <= 0 {
			ymax = 1
		}
		ymax, ticks := chart.Ticks(ymax)
		y = func(v float64) float64 { return top + panelH - math.Min(v, ymax)/ymax*panelH }
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", marginL, top, plotW, panelH)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", marginL, top-8, chart.Esc(name))
		for _, tk := range ticks {
			yy := y(tk.Value)
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`, marginL, yy, marginL+plotW, yy)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", marginL-5, yy+4, tk.Label)
		}
		for sec := 0; sec < T; sec += tickEvery {
			xx := marginL + float64(sec)/float64(max(T-1, 1))*float64(plotW)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%s</text>`, xx, top+panelH+14, xlabel(sec))
		}
		b.WriteString("\n")
		return top, y
	}
	// line draws vals, broken where a value is NaN (no data).
	line := func(vals []float64, y func(float64) float64, colour, extra string) {
		open := false
		for i, v := range vals {
			if math.IsNaN(v) {
				if open {
					b.WriteString(`"/>` + "\n")
					open = false
				}
				continue
			}
			if !open {
				b.WriteString(`<polyline fill="none" stroke="` + colour + `" stroke-width="1.8"` + extra + ` points="`)
				open = true
			}
			if math.IsInf(v, 1) {
				v = math.MaxFloat64
			}
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(v))
		}
		if open {
			b.WriteString(`"/>` + "\n")
		}
	}
	legend := func(top float64, k int, colour, name string, dashed bool) {
		yy := top + 14 + float64(k)*16
		dash := ""
		if dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="3"%s/><text x="%d" y="%.1f">%s</text>`+"\n",
			marginL+plotW+8, yy, marginL+plotW+24, yy, colour, dash, marginL+plotW+28, yy+4, chart.Esc(name))
	}
	// swatch is the legend entry of a filled area.
	swatch := func(top float64, k int, colour, name string) {
		yy := top + 14 + float64(k)*16
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="16" height="10" fill="%s" fill-opacity="0.75"/><text x="%d" y="%.1f">%s</text>`+"\n",
			marginL+plotW+8, yy-5, colour, marginL+plotW+28, yy+4, chart.Esc(name))
	}

	// 1. Load.
	top, y := panel(0, "load (requests/s)", math.Max(maxOf(load), maxOf(forecastAt))*1.05)
	line(load, y, "#333", "")
	legend(top, 0, "#333", "load", false)
	if hasForecast {
		line(forecastAt, y, "#9467bd", ` stroke-dasharray="3 2"`)
		legend(top, 1, "#9467bd", "forecast (for then)", true)
	}

	// 2. Pods: ready per cluster, stacked; demand; desired.
	var podMax float64
	stackTop := make([]float64, n)
	for c := range ready {
		for i := range stackTop {
			stackTop[i] += ready[c][i]
		}
	}
	// Headroom, so that lines at the maximum do not vanish into the frame.
	podMax = math.Max(maxOf(stackTop), math.Max(maxOf(demand), maxOf(desired))) * 1.08
	top, y = panel(1, "pods: ready per cluster (stacked), demand, decided", podMax)
	base := make([]float64, n)
	for c := range ready {
		colour := clusterColours[c%len(clusterColours)]
		b.WriteString(`<polygon fill="` + colour + `" fill-opacity="0.75" stroke="none" points="`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(base[i]+ready[c][i]))
		}
		for i := n - 1; i >= 0; i-- {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(base[i]))
		}
		b.WriteString(`"/>` + "\n")
		for i := range base {
			base[i] += ready[c][i]
		}
		swatch(top, c, colour, "ready in "+r.Clusters[c])
	}
	line(demand, y, "#000", "")
	legend(top, len(ready), "#000", "demand", false)
	line(desired, y, "#d62728", ` stroke-dasharray="4 3"`)
	legend(top, len(ready)+1, "#d62728", "decided", true)

	// 3. Latency.
	thrD := r.Model.SLOThreshold
	if sl := r.Policy.SLO; sl != nil && sl.Type == hcav1.SLOLatency {
		thrD = time.Duration(sl.Objective.ThresholdSeconds * float64(time.Second))
	}
	slo := thrD.Seconds() * 1000
	pname := fmt.Sprintf("p%g latency", r.LatencyPercentile)
	top, y = panel(2, pname+" (ms; above the frame: clipped at 3x the SLO)", 3*slo)
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6 3"/>`+"\n", marginL, y(slo), marginL+plotW, y(slo))
	line(p95, y, "#1f5fa0", "")
	legend(top, 0, "#1f5fa0", pname, false)
	legend(top, 1, "#d62728", fmt.Sprintf("SLO %v", thrD), true)

	// 4. SLO runs: the compliance the strategy acted on, and the
	// tolerance band.
	if sl := r.Policy.SLO; sl != nil {
		comp := make([]float64, n)
		for i := 0; i < n; i++ {
			comp[i] = s.Compliance[min((i+1)*bucket, T)-1]
		}
		top, y = panel(3, "SLO compliance (%; 100 = met, above = violated; clipped at 300)", 300)
		lo, hi := 100*(1-sl.Tolerance), 100*(1+sl.Tolerance)
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#54a24b" fill-opacity="0.2"/>`+"\n", marginL, y(hi), plotW, y(lo)-y(hi))
		line(comp, y, "#6a3d9a", "")
		legend(top, 0, "#6a3d9a", "compliance", false)
		swatch(top, 1, "#54a24b", fmt.Sprintf("tolerance %g-%g", lo, hi))
	}

	// 5. Node groups of burst clusters.
	if len(nodeClusters) > 0 {
		k := panels - 1
		nodes := make([][]float64, len(nodeClusters))
		readyN := make([][]float64, len(nodeClusters))
		waiting := make([][]float64, len(nodeClusters))
		var ymax float64
		for j, c := range nodeClusters {
			nodes[j], readyN[j], waiting[j] = make([]float64, n), make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				lo, hi := i*bucket, min((i+1)*bucket, T)
				for t := lo; t < hi; t++ {
					nodes[j][i] = math.Max(nodes[j][i], float64(s.Nodes[c][t]))
					waiting[j][i] = math.Max(waiting[j][i], float64(s.Waiting[c][t]))
				}
				readyN[j][i] = float64(s.NodesReady[c][hi-1])
			}
			ymax = math.Max(ymax, math.Max(maxOf(nodes[j]), maxOf(waiting[j])))
		}
		top, y = panel(k, "burst nodes: ordered (dashed), Ready (solid); pods waiting for a node (dotted)", ymax*1.08)
		for j, c := range nodeClusters {
			colour := clusterColours[c%len(clusterColours)]
			line(nodes[j], y, colour, ` stroke-dasharray="5 3"`)
			line(readyN[j], y, colour, "")
			line(waiting[j], y, colour, ` stroke-dasharray="1 2" stroke-opacity="0.7"`)
			legend(top, j, colour, "nodes in "+r.Clusters[c], false)
		}
	}

	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// maxOf is the highest finite value of v (0 if none): infinities and NaN
// (no forecast) are left out.
func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			m = math.Max(m, x)
		}
	}
	return m
}
