package demo

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/chart"
)

// Sample is what the demo saw at one instant of the replay.
type Sample struct {
	// At is the time since the load replay started.
	At time.Duration
	// OfferedRPS is the load offered to the app; ServedRPS and ErrorRPS how
	// much of it the ready pods served and refused (loadsim).
	OfferedRPS, ServedRPS, ErrorRPS float64
	// Ready and Desired are the replicas per registered cluster, as the
	// burst policy's status reports them.
	Ready, Desired map[string]int32
	// Pending counts the replicas waiting to be scheduled, over all clusters.
	Pending int32
	// Compliance is the SLO's compliance in percent (nil: not evaluated yet).
	Compliance *int32
	// Phase is the burst policy's phase.
	Phase string
	// Nodes are the node-group nodes per burst cluster (HybridCluster
	// status.nodeGroups, summed over the cluster's groups); absent for a
	// cluster without node groups.
	Nodes map[string]NodeCount `json:",omitempty"`
}

// NodeCount is what a burst cluster's node groups held at one instant.
type NodeCount struct {
	// Ready nodes, and Desired: the groups' desired size in the cloud (Ready
	// nodes plus those booting), which is what the cloud bills.
	Ready, Desired int32
	// DollarsPerHour is what the desired nodes cost per hour (each group's
	// desired size times its spec.nodeGroups pricePerHour).
	DollarsPerHour float64
	// Reasons are the groups' status reasons (why a group cannot grow now),
	// by group name; groups that can grow are left out.
	Reasons map[string]string `json:",omitempty"`
}

// nodes sums the node counts of the clusters other than primary.
func nodes(s Sample, primary string) NodeCount {
	var n NodeCount
	for c, v := range s.Nodes {
		if c == primary {
			continue
		}
		n.Ready += v.Ready
		n.Desired += v.Desired
		n.DollarsPerHour += v.DollarsPerHour
	}
	return n
}

// total sums the values of m.
func total(m map[string]int32) int32 {
	var n int32
	for _, v := range m {
		n += v
	}
	return n
}

// Summary is what the report states about a replay.
type Summary struct {
	Duration      time.Duration
	BaselineRPS   float64
	PeakRPS       float64
	PeakReady     int32
	PeakByCluster map[string]int32
	// SurgeAt is when the load first exceeded twice the baseline; FirstBurstAt
	// when a replica was first ready outside the primary; FullAt when the
	// ready replicas first reached Needed.
	SurgeAt, FirstBurstAt, FullAt time.Duration
	// Needed is ceil(peak load / requests per pod).
	Needed int32
	// FallAt is when the load fell back under twice the baseline after the
	// peak; BackAt when no replica remained outside the primary after it.
	FallAt, BackAt time.Duration
	// SurgeSeen, BurstSeen, FullSeen, FallSeen, BackSeen tell which of the
	// instants above happened.
	SurgeSeen, BurstSeen, FullSeen, FallSeen, BackSeen bool
	// ErrorShare is refused / offered requests over the replay.
	ErrorShare float64
	// ComplianceMin and ComplianceMean summarise the SLO (when evaluated).
	ComplianceMin  int32
	ComplianceMean float64
	ComplianceSeen bool
	// Phases lists the phases in the order they appeared.
	Phases []string

	// NodeGroups tells whether any sample showed burst node groups; the
	// node fields below are zero without them.
	NodeGroups bool
	// StartNodes are the burst clusters' desired nodes in the first sample
	// (scale from zero: 0).
	StartNodes int32
	// NodesRequestedAt is when burst nodes were first asked for after the
	// surge (desired size above 0); NodesReadyAt when a burst node was first
	// Ready after it; NodesZeroAt when, after the burst was brought back, the
	// burst clusters' node groups were at 0 desired and 0 Ready nodes.
	NodesRequestedAt, NodesReadyAt, NodesZeroAt       time.Duration
	NodesRequestedSeen, NodesReadySeen, NodesZeroSeen bool
	// PeakNodes are the most desired nodes per burst cluster.
	PeakNodes map[string]int32
	// NodeHours are the burst clusters' desired node-hours over the replay;
	// BurstCost what they cost in dollars (each sample's rate held until the
	// next sample).
	NodeHours, BurstCost float64
	// PeakDollarsPerHour is the highest cost rate of the burst nodes;
	// AlwaysOnCost is one hour of it: what the hour would have cost with the
	// burst's nodes running all the time, as when a burst target is a fixed
	// node group sized for the peak.
	PeakDollarsPerHour, AlwaysOnCost float64
}

// Summarize reads the milestones of a replay. primary names the primary
// cluster; perPod is the load one replica should serve.
func Summarize(samples []Sample, primary string, perPod float64) Summary {
	s := Summary{PeakByCluster: map[string]int32{}, PeakNodes: map[string]int32{}}
	if len(samples) == 0 {
		return s
	}
	s.StartNodes = nodes(samples[0], primary).Desired
	s.Duration = samples[len(samples)-1].At
	s.BaselineRPS = samples[0].OfferedRPS
	var offered, refused, compSum float64
	var compN int
	peakIdx := 0
	for i, x := range samples {
		if x.OfferedRPS > s.PeakRPS {
			s.PeakRPS, peakIdx = x.OfferedRPS, i
		}
		if t := total(x.Ready); t > s.PeakReady {
			s.PeakReady = t
		}
		for c, n := range x.Ready {
			s.PeakByCluster[c] = max(s.PeakByCluster[c], n)
		}
		if i > 0 {
			dt := (x.At - samples[i-1].At).Seconds()
			offered += x.OfferedRPS * dt
			refused += x.ErrorRPS * dt
			prev := nodes(samples[i-1], primary)
			s.NodeHours += float64(prev.Desired) * dt / 3600
			s.BurstCost += prev.DollarsPerHour * dt / 3600
		}
		for c, n := range x.Nodes {
			if c != primary {
				s.NodeGroups = true
				s.PeakNodes[c] = max(s.PeakNodes[c], n.Desired)
			}
		}
		s.PeakDollarsPerHour = math.Max(s.PeakDollarsPerHour, nodes(x, primary).DollarsPerHour)
		if x.Compliance != nil {
			if !s.ComplianceSeen || *x.Compliance < s.ComplianceMin {
				s.ComplianceMin = *x.Compliance
			}
			s.ComplianceSeen = true
			compSum += float64(*x.Compliance)
			compN++
		}
		if x.Phase != "" && (len(s.Phases) == 0 || s.Phases[len(s.Phases)-1] != x.Phase) {
			s.Phases = append(s.Phases, x.Phase)
		}
	}
	if offered > 0 {
		s.ErrorShare = refused / offered
	}
	if compN > 0 {
		s.ComplianceMean = compSum / float64(compN)
	}
	s.AlwaysOnCost = s.PeakDollarsPerHour
	if perPod > 0 {
		s.Needed = int32(math.Ceil(s.PeakRPS/perPod - 1e-9))
	}
	threshold := 2 * s.BaselineRPS
	burst := func(x Sample) int32 {
		var n int32
		for c, v := range x.Ready {
			if c != primary {
				n += v
			}
		}
		return n
	}
	for i, x := range samples {
		if !s.SurgeSeen && x.OfferedRPS > threshold {
			s.SurgeAt, s.SurgeSeen = x.At, true
		}
		if s.SurgeSeen && !s.BurstSeen && burst(x) > 0 {
			s.FirstBurstAt, s.BurstSeen = x.At, true
		}
		if s.SurgeSeen && !s.FullSeen && s.Needed > 0 && total(x.Ready) >= s.Needed {
			s.FullAt, s.FullSeen = x.At, true
		}
		if i > peakIdx && !s.FallSeen && x.OfferedRPS <= threshold {
			s.FallAt, s.FallSeen = x.At, true
		}
		if s.FallSeen && !s.BackSeen && burst(x) == 0 && total(x.Desired)-x.Desired[primary] == 0 {
			s.BackAt, s.BackSeen = x.At, true
		}
		n := nodes(x, primary)
		if s.SurgeSeen && !s.NodesRequestedSeen && n.Desired > 0 {
			s.NodesRequestedAt, s.NodesRequestedSeen = x.At, true
		}
		if s.SurgeSeen && !s.NodesReadySeen && n.Ready > 0 {
			s.NodesReadyAt, s.NodesReadySeen = x.At, true
		}
		if s.BackSeen && s.NodeGroups && !s.NodesZeroSeen && n.Desired == 0 && n.Ready == 0 {
			s.NodesZeroAt, s.NodesZeroSeen = x.At, true
		}
	}
	return s
}

// WriteMarkdown writes the report: what ran, the milestones and a table of
// the samples every step.
func WriteMarkdown(w io.Writer, title string, setup []string, clusters []string, primary string, s Summary, samples []Sample, svgName string, step time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for _, l := range setup {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	fmt.Fprintf(&b, "\n![load and replicas per cluster](%s)\n\n## What happened\n\n", svgName)
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| replay | %s |\n", s.Duration.Round(time.Second))
	fmt.Fprintf(&b, "| load | %.0f req/s baseline, %.0f req/s peak |\n", s.BaselineRPS, s.PeakRPS)
	fmt.Fprintf(&b, "| replicas needed at the peak | %d |\n", s.Needed)
	var peaks []string
	for _, c := range clusters {
		peaks = append(peaks, fmt.Sprintf("%s %d", c, s.PeakByCluster[c]))
	}
	fmt.Fprintf(&b, "| most ready replicas | %d (%s) |\n", s.PeakReady, strings.Join(peaks, ", "))
	milestone := func(seen bool, at, from time.Duration, fromSeen bool) string {
		if !seen {
			return "not reached"
		}
		if fromSeen {
			return fmt.Sprintf("%s (%s after)", at.Round(time.Second), (at - from).Round(time.Second))
		}
		return at.Round(time.Second).String()
	}
	fmt.Fprintf(&b, "| load surge | %s |\n", milestone(s.SurgeSeen, s.SurgeAt, 0, false))
	fmt.Fprintf(&b, "| first replica ready outside %s | %s |\n", primary, milestone(s.BurstSeen, s.FirstBurstAt, s.SurgeAt, s.SurgeSeen))
	fmt.Fprintf(&b, "| replicas needed all ready | %s |\n", milestone(s.FullSeen, s.FullAt, s.SurgeAt, s.SurgeSeen))
	fmt.Fprintf(&b, "| load falls | %s |\n", milestone(s.FallSeen, s.FallAt, 0, false))
	fmt.Fprintf(&b, "| burst brought back (no replica outside %s) | %s |\n", primary, milestone(s.BackSeen, s.BackAt, s.FallAt, s.FallSeen))
	if s.NodeGroups {
		fmt.Fprintf(&b, "| burst nodes at the start | %d |\n", s.StartNodes)
		fmt.Fprintf(&b, "| burst nodes requested | %s |\n", milestone(s.NodesRequestedSeen, s.NodesRequestedAt, s.SurgeAt, s.SurgeSeen))
		fmt.Fprintf(&b, "| first burst node Ready | %s |\n", milestone(s.NodesReadySeen, s.NodesReadyAt, s.SurgeAt, s.SurgeSeen))
		fmt.Fprintf(&b, "| burst nodes released to 0 | %s |\n", milestone(s.NodesZeroSeen, s.NodesZeroAt, s.BackAt, s.BackSeen))
		var most []string
		for _, c := range clusters {
			if n, ok := s.PeakNodes[c]; ok {
				most = append(most, fmt.Sprintf("%s %d", c, n))
			}
		}
		fmt.Fprintf(&b, "| most burst nodes | %s |\n", strings.Join(most, ", "))
		fmt.Fprintf(&b, "| burst node-hours | %.3f |\n", s.NodeHours)
		fmt.Fprintf(&b, "| burst cost | $%.4f for the burst; $%.4f for the same hour with the burst's peak nodes always on ($%.3f per hour) |\n", s.BurstCost, s.AlwaysOnCost, s.PeakDollarsPerHour)
	}
	fmt.Fprintf(&b, "| refused requests | %.2f %% of the offered load |\n", 100*s.ErrorShare)
	if s.ComplianceSeen {
		fmt.Fprintf(&b, "| SLO compliance | min %d %%, mean %.0f %% (100 %% = exactly on target) |\n", s.ComplianceMin, s.ComplianceMean)
	} else {
		fmt.Fprintf(&b, "| SLO compliance | not evaluated |\n")
	}
	fmt.Fprintf(&b, "| phases | %s |\n", strings.Join(s.Phases, " → "))

	fmt.Fprintf(&b, "\n## Samples (every %s)\n\n| t | load (req/s) | refused (req/s) |", step)
	for _, c := range clusters {
		fmt.Fprintf(&b, " %s ready/desired |", c)
	}
	var nodeCols []string
	if s.NodeGroups {
		for _, c := range clusters {
			if _, ok := s.PeakNodes[c]; ok {
				nodeCols = append(nodeCols, c)
				fmt.Fprintf(&b, " %s nodes ready/desired |", c)
			}
		}
	}
	b.WriteString(" pending | SLO compliance | phase |\n|---:|---:|---:|")
	for range len(clusters) + len(nodeCols) {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|---|\n")
	next := time.Duration(-1)
	for i, x := range samples {
		if x.At < next && i != len(samples)-1 {
			continue
		}
		next = x.At + step
		fmt.Fprintf(&b, "| %s | %.0f | %.1f |", x.At.Round(time.Second), x.OfferedRPS, x.ErrorRPS)
		for _, c := range clusters {
			fmt.Fprintf(&b, " %d/%d |", x.Ready[c], x.Desired[c])
		}
		for _, c := range nodeCols {
			fmt.Fprintf(&b, " %d/%d |", x.Nodes[c].Ready, x.Nodes[c].Desired)
		}
		comp := "–"
		if x.Compliance != nil {
			comp = fmt.Sprintf("%d %%", *x.Compliance)
		}
		fmt.Fprintf(&b, " %d | %s | %s |\n", x.Pending, comp, x.Phase)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Chart geometry of WriteSVG.
const (
	svgW      = 960
	svgLeft   = 60
	svgRight  = 150
	svgTop    = 80
	svgPanel  = 160
	svgGap    = 50
	svgPlotW  = svgW - svgLeft - svgRight
	svgColors = "#4c78a8 #f58518 #54a24b #b279a2 #e45756 #72b7b2"
)

// WriteSVG draws the replay: the offered load, the ready replicas per cluster
// stacked (in the order of clusters) with the total desired, and the SLO
// compliance when it was evaluated.
func WriteSVG(w io.Writer, title string, clusters []string, samples []Sample) error {
	colors := strings.Fields(svgColors)
	panels := 2
	hasSLO := false
	for _, x := range samples {
		if x.Compliance != nil {
			hasSLO = true
			panels++
			break
		}
	}
	// The burst clusters with node groups, in the order of clusters (the
	// primary's nodes are not bought by the runtime).
	var nodeClusters []string
	for _, c := range clusters[min(1, len(clusters)):] {
		for _, x := range samples {
			if _, ok := x.Nodes[c]; ok {
				nodeClusters = append(nodeClusters, c)
				break
			}
		}
	}
	if len(nodeClusters) > 0 {
		panels++
	}
	H := svgTop + panels*svgPanel + (panels-1)*svgGap + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgW, H, svgW, H)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", svgLeft, chart.Esc(title))
	fmt.Fprintf(&b, `<text x="%d" y="42" fill="#444">x axis: time since the load replay started</text>`+"\n", svgLeft)
	if len(samples) == 0 {
		b.WriteString("</svg>\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	end := samples[len(samples)-1].At.Seconds()
	if end <= 0 {
		end = 1
	}
	x := func(at time.Duration) float64 { return svgLeft + at.Seconds()/end*svgPlotW }
	panel := func(k int, name string, ymax float64) func(float64) float64 {
		top := float64(svgTop + k*(svgPanel+svgGap))
		ymax, step := chart.NiceAxis(ymax)
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", svgLeft, top, svgPlotW, svgPanel)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", svgLeft, top-8, chart.Esc(name))
		y := func(v float64) float64 { return top + svgPanel - math.Min(v, ymax)/ymax*svgPanel }
		for v := 0.0; v <= ymax+1e-9; v += step {
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
				svgLeft, y(v), svgLeft+svgPlotW, y(v), svgLeft-5, y(v)+4, chart.Num(v))
		}
		tick := 60.0
		if end > 900 {
			tick = 300
		}
		for s := 0.0; s <= end; s += tick {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%dm</text>`, svgLeft+s/end*svgPlotW, top+svgPanel+14, int(s/60))
		}
		b.WriteString("\n")
		return y
	}
	legend := func(k, row int, color, label string, dashed bool) {
		top := float64(svgTop + k*(svgPanel+svgGap))
		yy := top + 10 + float64(row)*18
		dash := ""
		if dashed {
			dash = ` stroke-dasharray="5,3"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="%s" stroke-width="3"%s/><text x="%d" y="%.0f">%s</text>`+"\n",
			svgLeft+svgPlotW+10, yy, svgLeft+svgPlotW+28, yy, color, dash, svgLeft+svgPlotW+33, yy+4, chart.Esc(label))
	}
	polyline := func(pts []string, color string, dashed bool) {
		dash := ""
		if dashed {
			dash = ` stroke-dasharray="5,3"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, dash, strings.Join(pts, " "))
	}

	// Load.
	var peak float64
	for _, s := range samples {
		peak = math.Max(peak, s.OfferedRPS)
	}
	y := panel(0, "load (requests/s)", math.Max(peak, 1))
	var load, refused []string
	for _, s := range samples {
		load = append(load, fmt.Sprintf("%.1f,%.1f", x(s.At), y(s.OfferedRPS)))
		refused = append(refused, fmt.Sprintf("%.1f,%.1f", x(s.At), y(s.ErrorRPS)))
	}
	polyline(load, "#222", false)
	polyline(refused, "#e45756", true)
	legend(0, 0, "#222", "offered", false)
	legend(0, 1, "#e45756", "refused", true)

	// Replicas: stacked areas of ready per cluster, desired total.
	var top int32
	for _, s := range samples {
		top = max(top, total(s.Ready), total(s.Desired))
	}
	y = panel(1, "replicas: ready per cluster (stacked), desired", math.Max(float64(top), 1))
	base := make([]float64, len(samples))
	for ci, c := range clusters {
		var up, down []string
		for i, s := range samples {
			up = append(up, fmt.Sprintf("%.1f,%.1f", x(s.At), y(base[i]+float64(s.Ready[c]))))
		}
		for i := len(samples) - 1; i >= 0; i-- {
			down = append(down, fmt.Sprintf("%.1f,%.1f", x(samples[i].At), y(base[i])))
		}
		color := colors[ci%len(colors)]
		fmt.Fprintf(&b, `<polygon fill="%s" fill-opacity="0.75" stroke="none" data-cluster="%s" points="%s"/>`+"\n", color, chart.Esc(c), strings.Join(append(up, down...), " "))
		for i, s := range samples {
			base[i] += float64(s.Ready[c])
		}
		legend(1, ci, color, "ready in "+c, false)
	}
	var desired []string
	for _, s := range samples {
		desired = append(desired, fmt.Sprintf("%.1f,%.1f", x(s.At), y(float64(total(s.Desired)))))
	}
	polyline(desired, "#222", true)
	legend(1, len(clusters), "#222", "desired", true)

	if hasSLO {
		// Clipped at 400 %: a surge's violation would flatten the target line.
		var cmax float64 = 100
		for _, s := range samples {
			if s.Compliance != nil {
				cmax = math.Max(cmax, float64(*s.Compliance))
			}
		}
		title := "SLO compliance (%; 100 = on target, above = violated)"
		if cmax > 400 {
			cmax = 400
			title = "SLO compliance (%; 100 = on target, above = violated; clipped at 400)"
		}
		y = panel(panels-1-min(len(nodeClusters), 1), title, cmax)
		var pts []string
		for _, s := range samples {
			if s.Compliance != nil {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.At), y(float64(*s.Compliance))))
			}
		}
		polyline(pts, "#4c78a8", false)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e45756" stroke-dasharray="5,3"/>`+"\n", svgLeft, y(100), svgLeft+svgPlotW, y(100))
		k := panels - 1 - min(len(nodeClusters), 1)
		legend(k, 0, "#4c78a8", "compliance", false)
		legend(k, 1, "#e45756", "target (100 %)", true)
	}

	if len(nodeClusters) > 0 {
		// Nodes per burst target: Ready (solid) and desired (dashed: Ready
		// plus booting, what the cloud bills).
		var ntop int32
		for _, s := range samples {
			for _, c := range nodeClusters {
				ntop = max(ntop, s.Nodes[c].Ready, s.Nodes[c].Desired)
			}
		}
		// At least 5: whole nodes on the axis, not 0.2 steps.
		y = panel(panels-1, "burst nodes per target: Ready (solid), desired (dashed)", math.Max(float64(ntop), 5))
		for ci, c := range nodeClusters {
			var ready, desired []string
			for _, s := range samples {
				ready = append(ready, fmt.Sprintf("%.1f,%.1f", x(s.At), y(float64(s.Nodes[c].Ready))))
				desired = append(desired, fmt.Sprintf("%.1f,%.1f", x(s.At), y(float64(s.Nodes[c].Desired))))
			}
			// The colour of the cluster in the replicas panel.
			color := colors[(slices.Index(clusters, c))%len(colors)]
			polyline(ready, color, false)
			polyline(desired, color, true)
			legend(panels-1, 2*ci, color, c+" Ready", false)
			legend(panels-1, 2*ci+1, color, c+" desired", true)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
