package demo

import (
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/hca-project/terraform-provider-hca/internal/chart"
	"github.com/hca-project/terraform-provider-hca/runtime/config/dashboards"
)

// The dashboard's variables as the report expands them: every policy, and a
// rate window of 30 s (Grafana's $__rate_interval is at least four scrape
// intervals; the lab scrapes every second, a cluster typically every 15-30 s).
const (
	dashboardPolicy = ".*"
	dashboardRate   = 30 * time.Second
	// DashboardStep is the resolution of the report's panels.
	DashboardStep = 5 * time.Second
)

// PanelResult is one of the Grafana dashboard's main panels
// (dashboards.MainPanels) as the lab's Prometheus answered its queries over
// the replay.
type PanelResult struct {
	Row, Title string
	// Unit is the panel's unit in words ("" for plain counts).
	Unit string
	// Queries are the panel's queries with the variables expanded.
	Queries []string
	// Series counts the series with at least one point; Points all points.
	Series, Points int
	// Err is why Prometheus refused a query ("" when it did not).
	Err   string
	lines chart.LinePanel
}

// DashboardPanels runs the queries of the dashboard's main panels
// (dashboards.Main) against the Prometheus at promURL over [start, end]
// every step, as Grafana would draw them. A refused query is reported in its
// panel's Err; only an unusable URL is an error.
func DashboardPanels(ctx context.Context, promURL string, start, end time.Time, step time.Duration) ([]PanelResult, error) {
	c, err := promapi.NewClient(promapi.Config{Address: promURL})
	if err != nil {
		return nil, fmt.Errorf("prometheus client for %s: %w", promURL, err)
	}
	api := promv1.NewAPI(c)
	var out []PanelResult
	for _, p := range dashboards.Main() {
		unit, scale := panelUnit(p.Unit)
		r := PanelResult{Row: p.Row, Title: p.Title, Unit: unit, lines: chart.LinePanel{Title: p.Title, Unit: unit}}
		for _, t := range p.Targets {
			q := dashboards.Expand(t.Expr, dashboardPolicy, dashboardRate)
			r.Queries = append(r.Queries, q)
			qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			val, _, _, err := api.QueryRange(qctx, q, promv1.Range{Start: start, End: end, Step: step})
			cancel()
			if err != nil {
				r.Err = fmt.Sprintf("%s: %v", q, err)
				continue
			}
			m, ok := val.(model.Matrix)
			if !ok {
				r.Err = fmt.Sprintf("%s: returned %s, want a matrix", q, val.Type())
				continue
			}
			for _, s := range gridSeries(m, t.Legend, start, end, step, scale) {
				n := 0
				for _, v := range s.Y {
					if !math.IsNaN(v) {
						n++
					}
				}
				if n > 0 {
					r.Series++
					r.Points += n
				}
				r.lines.Series = append(r.lines.Series, s)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// panelUnit turns a Grafana unit id into words and a factor for the values.
func panelUnit(grafana string) (string, float64) {
	switch grafana {
	case "ops":
		return "per second", 1
	case "percentunit":
		return "%", 100
	case "currencyUSD":
		return "US$", 1
	case "s":
		return "seconds", 1
	default:
		return "", 1
	}
}

var legendVar = regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)

// gridSeries puts a range result on the grid start, start+step, ..., end
// (seconds from start; NaN where a series has no point), named by Grafana's
// legend format ({{label}} replaced by the series' label), in name order.
func gridSeries(m model.Matrix, legend string, start, end time.Time, step time.Duration, scale float64) []chart.Series {
	n := int(end.Sub(start)/step) + 1
	out := make([]chart.Series, 0, len(m))
	for _, ss := range m {
		name := legendVar.ReplaceAllStringFunc(legend, func(v string) string {
			return string(ss.Metric[model.LabelName(legendVar.FindStringSubmatch(v)[1])])
		})
		if strings.TrimSpace(name) == "" {
			name = ss.Metric.String()
		}
		s := chart.Series{Name: name, X: make([]float64, n), Y: make([]float64, n)}
		for i := range n {
			s.X[i] = (time.Duration(i) * step).Seconds()
			s.Y[i] = math.NaN()
		}
		for _, p := range ss.Values {
			i := int(math.Round(float64(p.Timestamp.Time().Sub(start)) / float64(step)))
			if i >= 0 && i < n {
				s.Y[i] = float64(p.Value) * scale
			}
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WriteDashboardSVG draws the panels with the project's chart code over the
// seconds of the replay.
func WriteDashboardSVG(w io.Writer, panels []PanelResult, replay time.Duration) error {
	lp := make([]chart.LinePanel, 0, len(panels))
	for _, p := range panels {
		lp = append(lp, p.lines)
	}
	return chart.WriteLines(w, "HCA demo: the Grafana dashboard's main panels, from the lab's Prometheus",
		"the dashboard's own queries (all policies, rate window 30s); x axis: time since the load replay started", lp, replay.Seconds())
}

// WriteDashboardMarkdown is the report's section on the dashboard: the chart
// and, per panel, its queries and how many series and points Prometheus
// returned.
func WriteDashboardMarkdown(w io.Writer, panels []PanelResult, svgName string, step time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## The dashboard's main panels\n\n")
	fmt.Fprintf(&b, "The Grafana dashboard `runtime/config/dashboards/%s` (import it as the operating guide says) has %d panels; these are the main ones, drawn by the project's own chart code from the same queries run against the lab's Prometheus over the replay (every %s; `$policy` = all, `$__rate_interval` = %s), which scraped the runtime every second.\n\n",
		dashboards.FileName, panelCount(), step, model.Duration(dashboardRate))
	fmt.Fprintf(&b, "![the dashboard's main panels](%s)\n\n| row | panel | query | series | points |\n|---|---|---|---:|---:|\n", svgName)
	for _, p := range panels {
		q := "`" + strings.Join(p.Queries, "`<br>`") + "`"
		if p.Err != "" {
			q += " (refused: " + p.Err + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d |\n", p.Row, p.Title, strings.ReplaceAll(q, "|", `\|`), p.Series, p.Points)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// panelCount is the number of panels of the dashboard (rows not counted).
func panelCount() int {
	n := 0
	for _, r := range dashboards.Panels() {
		n += len(r.Panels)
	}
	return n
}

// EmptyPanels names the panels that showed nothing (no series, or a refused
// query): a query of a metric nobody exports shows here.
func EmptyPanels(panels []PanelResult) []string {
	var out []string
	for _, p := range panels {
		if p.Series == 0 || p.Err != "" {
			why := "no data"
			if p.Err != "" {
				why = p.Err
			}
			out = append(out, fmt.Sprintf("%s / %s (%s)", p.Row, p.Title, why))
		}
	}
	return out
}
