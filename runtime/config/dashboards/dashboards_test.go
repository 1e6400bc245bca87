package dashboards

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// TestFileIsGenerated fails when hca-runtime.json is not what the generator
// writes: run `make generate` (or go run ./tools/monitoring) and commit it.
func TestFileIsGenerated(t *testing.T) {
	want, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(File(), want) {
		t.Fatalf("%s is stale: run `make generate` and commit it", FileName)
	}
}

// metricName finds the metric names a PromQL expression selects (the
// families this project and controller-runtime export).
var metricName = regexp.MustCompile(`\b(hca|controller_runtime|workqueue)_[a-z0-9_]+\b`)

// controllerRuntime are the controller-runtime families the dashboard uses;
// they exist as soon as a controller is registered.
var controllerRuntime = []string{"controller_runtime_reconcile_total", "controller_runtime_reconcile_time_seconds", "workqueue_depth"}

// TestQueriesUseExportedMetrics fails when a panel queries a metric nobody
// exports (a typo, a renamed series), even for metrics that have no series
// until something happens (the lab test checks the rest against Prometheus).
func TestQueriesUseExportedMetrics(t *testing.T) {
	known := append(telemetry.Names(), controllerRuntime...)
	for _, q := range Queries() {
		names := metricName.FindAllString(q.Expr, -1)
		if len(names) == 0 {
			t.Errorf("%s / %s: %q selects no known metric", q.Row, q.Panel, q.Expr)
		}
		for _, n := range names {
			family := strings.TrimSuffix(n, "_bucket")
			if !slices.Contains(known, family) {
				t.Errorf("%s / %s: %q queries %s, which the runtime does not export", q.Row, q.Panel, q.Expr, n)
			}
		}
	}
}

// TestQueriesParse runs every query, with its Grafana variables expanded as
// Grafana expands them, through Prometheus' own PromQL parser (issue 13: "every
// PromQL expression in it parses"), so a syntax error fails without the lab.
// Panels draw series over time: an expression must be an instant vector or a
// scalar, never a range vector or a string.
func TestQueriesParse(t *testing.T) {
	for _, policy := range []string{".*", "web"} {
		for _, q := range Queries() {
			t.Run(q.Row+"/"+q.Panel+"/"+policy, func(t *testing.T) {
				expr := Expand(q.Expr, policy, time.Minute)
				if strings.Contains(expr, "$") {
					t.Fatalf("%q keeps a variable Expand does not know", expr)
				}
				e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
				if err != nil {
					t.Fatalf("%q does not parse: %v", expr, err)
				}
				if ty := e.Type(); ty != parser.ValueTypeVector && ty != parser.ValueTypeScalar {
					t.Fatalf("%q is a %s, not an instant vector or a scalar", expr, ty)
				}
			})
		}
	}
}

// TestDashboardShape checks what Grafana's import relies on: a stable UID, a
// Prometheus data source variable every query uses, unique panel ids, and a
// row for each part the issue asks for.
func TestDashboardShape(t *testing.T) {
	var d struct {
		UID        string `json:"uid"`
		Templating struct {
			List []struct{ Name, Type string } `json:"list"`
		} `json:"templating"`
		Panels []struct {
			ID      int    `json:"id"`
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				RefID      string `json:"refId"`
				Expr       string `json:"expr"`
				Datasource struct{ Type, UID string }
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(File(), &d); err != nil {
		t.Fatal(err)
	}
	if d.UID != UID {
		t.Errorf("uid = %q, want %q", d.UID, UID)
	}
	if len(d.Templating.List) < 2 || d.Templating.List[0].Type != "datasource" || d.Templating.List[1].Name != "policy" {
		t.Errorf("variables = %+v, want datasource then policy", d.Templating.List)
	}
	ids := map[int]bool{}
	var rows []string
	queries := 0
	for _, p := range d.Panels {
		if ids[p.ID] || p.ID == 0 {
			t.Errorf("panel %q has id %d, used before or zero", p.Title, p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			rows = append(rows, p.Title)
		}
		for _, tg := range p.Targets {
			queries++
			if tg.Datasource.Type != "prometheus" || tg.Datasource.UID != "${datasource}" || tg.RefID == "" || tg.Expr == "" {
				t.Errorf("panel %q: target %+v, want a prometheus query on ${datasource} with a refId", p.Title, tg)
			}
		}
	}
	if want := []string{"Bursting overview", "Per policy", "SLOs", "Cloud capacity and cost", "Runtime"}; !slices.Equal(rows, want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}
	if queries != len(Queries()) {
		t.Errorf("the file has %d queries, Queries() %d", queries, len(Queries()))
	}
}

// TestMainPanels: every title MainPanels names is a panel of the dashboard,
// once, so the demo report draws what the dashboard shows.
func TestMainPanels(t *testing.T) {
	main := Main()
	if len(main) != len(MainPanels) {
		t.Fatalf("Main() found %d panels for %d titles: a title names no panel, or two", len(main), len(MainPanels))
	}
	for i, p := range main {
		if p.Title != MainPanels[i] || len(p.Targets) == 0 || p.Row == "" {
			t.Errorf("panel %d = %q in row %q with %d queries, want %q with queries", i, p.Title, p.Row, len(p.Targets), MainPanels[i])
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		expr, policy string
		window       time.Duration
		want         string
	}{
		{`sum(rate(hca_decisions_total{policy=~"$policy"}[$__rate_interval]))`, ".*", 30 * time.Second, `sum(rate(hca_decisions_total{policy=~".*"}[30s]))`},
		{`rate(x[$__rate_interval])`, "", 2 * time.Minute, `rate(x[2m])`},
		{`max(hca_replicas{policy=~"$policy"})`, "shop/web", time.Minute, `max(hca_replicas{policy=~"shop/web"})`},
	}
	for _, tt := range tests {
		if got := Expand(tt.expr, tt.policy, tt.window); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

// TestFaultMetricsHavePanels: each counter the operating guide's fault table
// gives as how a fault is reported is drawn by a panel of the dashboard.
func TestFaultMetricsHavePanels(t *testing.T) {
	tests := []struct{ metric, panel string }{
		{"hca_burst_failovers_total", "Failovers"},
		{"hca_consul_errors_total", "Consul sync"},
		{"hca_cloud_api_throttles_total", "Cloud API calls"},
		{"hca_metric_queries_total", "Metric queries"},
	}
	for _, tt := range tests {
		t.Run(tt.metric, func(t *testing.T) {
			var panels []string
			for _, q := range Queries() {
				if slices.Contains(metricName.FindAllString(q.Expr, -1), tt.metric) {
					panels = append(panels, q.Panel)
				}
			}
			if !slices.Contains(panels, tt.panel) {
				t.Errorf("%s is drawn by panels %v, want %q", tt.metric, panels, tt.panel)
			}
		})
	}
}
