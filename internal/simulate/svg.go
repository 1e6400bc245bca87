package simulate

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Chart geometry.
const (
	chartW    = 960
	panelH    = 170
	marginL   = 70
	marginR   = 130
	marginT   = 40
	panelGap  = 45
	plotW     = chartW - marginL - marginR
	maxPoints = plotW
)

var clusterColours = []string{"#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2"}

// WriteSVG writes a self-contained SVG chart of r: the load, the demand and
// the ready pods per cluster (stacked), and the p95 latency against the
// SLO threshold. title heads the chart.
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
			p95[i] = math.Max(p95[i], s.P95Latency[t]*1000)
		}
		for c := range ready {
			ready[c][i] = float64(s.Ready[c][hi-1])
		}
	}
	x := func(i int) float64 { return marginL + float64(i)*float64(plotW)/float64(max(n-1, 1)) }
	H := marginT + 3*panelH + 2*panelGap + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartW, H, chartW, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", marginL, esc(title))

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
		ymax = niceCeil(ymax)
		y = func(v float64) float64 { return top + panelH - math.Min(v, ymax)/ymax*panelH }
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", marginL, top, plotW, panelH)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", marginL, top-6, esc(name))
		for j := 0; j <= 4; j++ {
			v := ymax * float64(j) / 4
			yy := y(v)
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`, marginL, yy, marginL+plotW, yy)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", marginL-5, yy+4, fmtNum(v))
		}
		for sec := 0; sec < T; sec += tickEvery {
			xx := marginL + float64(sec)/float64(max(T-1, 1))*float64(plotW)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%s</text>`, xx, top+panelH+14, xlabel(sec))
		}
		b.WriteString("\n")
		return top, y
	}
	line := func(vals []float64, y func(float64) float64, colour, extra string) {
		b.WriteString(`<polyline fill="none" stroke="` + colour + `" stroke-width="1.5"` + extra + ` points="`)
		for i, v := range vals {
			if math.IsInf(v, 1) {
				v = math.MaxFloat64
			}
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(v))
		}
		b.WriteString(`"/>` + "\n")
	}
	legend := func(top float64, k int, colour, name string, dashed bool) {
		yy := top + 14 + float64(k)*16
		dash := ""
		if dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="3"%s/><text x="%d" y="%.1f">%s</text>`+"\n",
			marginL+plotW+8, yy, marginL+plotW+24, yy, colour, dash, marginL+plotW+28, yy+4, esc(name))
	}

	// 1. Load.
	top, y := panel(0, "load (requests/s)", maxOf(load))
	line(load, y, "#333", "")
	legend(top, 0, "#333", "load", false)

	// 2. Pods: ready per cluster, stacked; demand; desired.
	var podMax float64
	stackTop := make([]float64, n)
	for c := range ready {
		for i := range stackTop {
			stackTop[i] += ready[c][i]
		}
	}
	podMax = math.Max(maxOf(stackTop), math.Max(maxOf(demand), maxOf(desired)))
	top, y = panel(1, "pods: ready per cluster (stacked), demand, decided", podMax)
	base := make([]float64, n)
	for c := range ready {
		colour := clusterColours[c%len(clusterColours)]
		b.WriteString(`<polygon fill="` + colour + `" fill-opacity="0.6" stroke="none" points="`)
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
		legend(top, c, colour, "ready in "+r.Clusters[c], false)
	}
	line(demand, y, "#000", "")
	legend(top, len(ready), "#000", "demand", false)
	line(desired, y, "#d62728", ` stroke-dasharray="4 3"`)
	legend(top, len(ready)+1, "#d62728", "decided", true)

	// 3. Latency.
	slo := r.Model.SLOThreshold.Seconds() * 1000
	top, y = panel(2, "p95 latency (ms, clipped at 3x the SLO)", 3*slo)
	line(p95, y, "#4c78a8", "")
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d62728" stroke-dasharray="6 3"/>`+"\n", marginL, y(slo), marginL+plotW, y(slo))
	legend(top, 0, "#4c78a8", "p95 latency", false)
	legend(top, 1, "#d62728", fmt.Sprintf("SLO %v", r.Model.SLOThreshold), true)

	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if !math.IsInf(x, 0) {
			m = math.Max(m, x)
		}
	}
	return m
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*p >= v-1e-9 {
			return f * p
		}
	}
	return 10 * p
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func esc(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}
