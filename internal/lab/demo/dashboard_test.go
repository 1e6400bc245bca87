package demo

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// TestGridSeries: a range result lands on the report's grid (seconds from
// the start, a missing step is NaN, points off the grid are dropped), named
// by the panel's legend format and sorted by name; percentages are scaled.
func TestGridSeries(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(s int64) model.Time { return model.TimeFromUnix(1000 + s) }
	m := model.Matrix{
		{Metric: model.Metric{"cluster": "eks"}, Values: []model.SamplePair{{Timestamp: at(0), Value: 1}, {Timestamp: at(10), Value: 3}, {Timestamp: at(99), Value: 7}}},
		{Metric: model.Metric{"cluster": "ack", "node_group": "burst"}, Values: []model.SamplePair{{Timestamp: at(5), Value: 0.5}}},
	}
	nan := math.NaN()
	tests := []struct {
		name, legend string
		scale        float64
		wantNames    []string
		wantY        [][]float64
	}{
		{"cluster legend", "{{cluster}}", 1, []string{"ack", "eks"}, [][]float64{{nan, 0.5, nan}, {1, nan, 3}}},
		{"two labels, percent", "{{ cluster }}/{{node_group}} ready", 100, []string{"ack/burst ready", "eks/ ready"}, [][]float64{{nan, 50, nan}, {100, nan, 300}}},
		{"empty legend names the series by its labels", "", 1, []string{`{cluster="ack", node_group="burst"}`, `{cluster="eks"}`}, [][]float64{{nan, 0.5, nan}, {1, nan, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gridSeries(m, tt.legend, start, start.Add(10*time.Second), 5*time.Second, tt.scale)
			if len(got) != len(tt.wantNames) {
				t.Fatalf("%d series, want %d", len(got), len(tt.wantNames))
			}
			for i, s := range got {
				if s.Name != tt.wantNames[i] {
					t.Errorf("series %d named %q, want %q", i, s.Name, tt.wantNames[i])
				}
				if len(s.X) != 3 || s.X[0] != 0 || s.X[1] != 5 || s.X[2] != 10 {
					t.Errorf("series %d: x %v, want [0 5 10]", i, s.X)
				}
				for j, w := range tt.wantY[i] {
					if g := s.Y[j]; !(math.IsNaN(w) && math.IsNaN(g)) && g != w {
						t.Errorf("series %q at %d: %v, want %v", s.Name, j, g, w)
					}
				}
			}
		})
	}
}

// TestDashboardMarkdown: one row per panel with its expanded queries (no
// Grafana variable left), its counts, and a refusal said in the row;
// EmptyPanels names the panels without data.
func TestDashboardMarkdown(t *testing.T) {
	panels := []PanelResult{
		{Row: "SLOs", Title: "SLO compliance", Queries: []string{`max by (slo, type) (hca_slo_compliance_ratio)`}, Series: 1, Points: 40},
		{Row: "Cloud capacity and cost", Title: "Node group nodes", Queries: []string{"a", "b"}, Err: "a: bad_data"},
		{Row: "Per policy", Title: "Pending replicas", Queries: []string{`max(x{policy=~".*"} or y)`}},
	}
	var b strings.Builder
	if err := WriteDashboardMarkdown(&b, panels, "dashboard.svg", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, w := range []string{"](dashboard.svg)", "| SLOs | SLO compliance | `max by (slo, type) (hca_slo_compliance_ratio)` | 1 | 40 |", "`a`<br>`b` (refused: a: bad_data)", "every 5s", "`$__rate_interval` = 30s"} {
		if !strings.Contains(md, w) {
			t.Errorf("the section lacks %q:\n%s", w, md)
		}
	}
	if got := EmptyPanels(panels); len(got) != 2 || !strings.Contains(got[0], "Node group nodes (a: bad_data)") || !strings.Contains(got[1], "Pending replicas (no data)") {
		t.Errorf("EmptyPanels = %v, want the node group panel (refused) and the pending panel (no data)", got)
	}
}
