package dashboards

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"github.com/prometheus/common/model"
)

//go:embed hca-runtime.json
var file []byte

// File is the committed dashboard JSON (hca-runtime.json).
func File() []byte { return file }

// FileName is the dashboard's file name in this directory.
const FileName = "hca-runtime.json"

// UID is the dashboard's Grafana UID (stable, so re-imports replace it).
const UID = "hca-runtime"

// Kind of panel.
type Kind int

const (
	// TimeSeries draws each series over time.
	TimeSeries Kind = iota
	// Stat shows the last value, large.
	Stat
)

// Target is one PromQL query of a panel; $policy and $__rate_interval are
// Grafana variables (Expand replaces them for a plain Prometheus).
type Target struct {
	Expr, Legend string
}

// Panel is one panel.
type Panel struct {
	Title, Description string
	Kind               Kind
	// Unit is a Grafana unit id ("short", "s", "percentunit", "currencyUSD").
	Unit    string
	Targets []Target
}

// Row is a titled group of panels.
type Row struct {
	Title  string
	Panels []Panel
}

const (
	policySel = `policy=~"$policy"`
	rate      = `[$__rate_interval]`
)

// Panels is the dashboard: bursting overview, per-policy detail, SLOs, cloud
// capacity and cost, and the runtime itself.
func Panels() []Row {
	return []Row{
		{"Bursting overview", []Panel{
			{"Policies bursting", "Burst policies in phase Bursting.", Stat, "short",
				[]Target{{`sum(hca_burst_phase{phase="Bursting",` + policySel + `})`, "bursting"}}},
			{"Replicas outside the primary cluster", "Ready replicas the burst policies run in burst clusters.", Stat, "short",
				[]Target{{`sum(hca_burst_ready_replicas{` + policySel + `})`, "burst replicas"}}},
			{"Desired replicas per cluster", "Replicas the burst controller set in each cluster (hca_replicas).", TimeSeries, "short",
				[]Target{{`sum by (cluster) (hca_replicas{` + policySel + `})`, "{{cluster}}"}}},
			{"Ready replicas per cluster", "Ready pods of the policies' workloads in each cluster.", TimeSeries, "short",
				[]Target{{`sum by (cluster) (hca_ready_replicas{` + policySel + `})`, "{{cluster}}"}}},
			{"Cluster reachability", "1 while the hybrid cluster answers the runtime's probes.", TimeSeries, "short",
				[]Target{{`min by (cluster) (hca_cluster_reachable)`, "{{cluster}}"}}},
			{"Scaling decisions", "Decisions per second by direction (the action: scale-up, burst, ...; up, down, hold for SLO strategies) and algorithm.", TimeSeries, "ops",
				[]Target{{`sum by (direction, algorithm) (rate(hca_decisions_total{` + policySel + `}` + rate + `))`, "{{algorithm}} {{direction}}"}}},
			{"Decisions by reason", "Decisions per second by what caused them: metrics, min-max (bounds and schedules), unschedulable, unreachable, requested-total, deployment-scaled, slo-compliance, ...", TimeSeries, "ops",
				[]Target{{`sum by (direction, reason) (rate(hca_decisions_total{` + policySel + `}` + rate + `))`, "{{direction}}: {{reason}}"}}},
		}},
		{"Per policy", []Panel{
			{"Phase", "The policy's phase (1 while in it): Watching, Bursting, ScalingBack, Degraded.", TimeSeries, "short",
				[]Target{{`max by (policy, phase) (hca_burst_phase{` + policySel + `}) == 1`, "{{policy}} {{phase}}"}}},
			{"Desired and ready replicas", "Per policy and cluster: desired (set by the controller) and ready.", TimeSeries, "short",
				[]Target{{`max by (policy, cluster) (hca_replicas{` + policySel + `})`, "{{policy}} {{cluster}} desired"},
					{`max by (policy, cluster) (hca_ready_replicas{` + policySel + `})`, "{{policy}} {{cluster}} ready"}}},
			{"Pending replicas", "Unschedulable pods per policy and cluster: what makes a policy burst.", TimeSeries, "short",
				[]Target{{`max by (policy, cluster) (hca_pending_replicas{` + policySel + `})`, "{{policy}} {{cluster}}"}}},
			{"Failovers", "Failovers away from an unreachable burst cluster per policy and cluster: its replicas written off after the policy's failoverAfter and placed elsewhere (each pairs with a Warning FailedOver Event). 0 while none.", TimeSeries, "short",
				[]Target{{`sum by (policy, cluster) (increase(hca_burst_failovers_total{` + policySel + `}` + rate + `))`, "{{policy}} {{cluster}}"}}},
		}},
		{"SLOs", []Panel{
			{"SLO compliance", "1 = met exactly, above 1 violated, below 1 outperformed.", TimeSeries, "percentunit",
				[]Target{{`max by (slo, type) (hca_slo_compliance_ratio)`, "{{slo}} ({{type}})"}}},
			{"SLO value", "The SLO metric's latest value (seconds for latency, ratio for utilisation and availability).", TimeSeries, "short",
				[]Target{{`max by (slo, type) (hca_slo_current_value)`, "{{slo}} ({{type}})"}}},
			{"SLO evaluation time (p95)", "95th percentile of one SLO evaluation's duration.", TimeSeries, "s",
				[]Target{{`histogram_quantile(0.95, sum by (le, type) (rate(hca_slo_evaluation_duration_seconds_bucket` + rate + `)))`, "{{type}}"}}},
			{"Metric queries", "Workload metric queries per second by result (no_data, unavailable, ... make controllers hold).", TimeSeries, "ops",
				[]Target{{`sum by (result) (rate(hca_metric_queries_total` + rate + `))`, "{{result}}"}}},
		}},
		{"Cloud capacity and cost", []Panel{
			{"Node group nodes", "Desired, ready and requested (booting) nodes of the burst clusters' node groups.", TimeSeries, "short",
				[]Target{{`sum by (cluster, node_group) (hca_node_group_desired_nodes)`, "{{cluster}}/{{node_group}} desired"},
					{`sum by (cluster, node_group) (hca_node_group_ready_nodes)`, "{{cluster}}/{{node_group}} ready"},
					{`sum by (cluster, node_group) (hca_node_group_requested_nodes)`, "{{cluster}}/{{node_group}} requested"}}},
			{"Node requests and releases", "Orders to grow and shrink node groups per second, by result.", TimeSeries, "ops",
				[]Target{{`sum by (cluster, node_group, result) (rate(hca_node_requests_total` + rate + `))`, "request {{cluster}}/{{node_group}} {{result}}"},
					{`sum by (cluster, node_group, result) (rate(hca_node_releases_total` + rate + `))`, "release {{cluster}}/{{node_group}} {{result}}"}}},
			{"Node time to Ready", "Time from the runtime's order of a burst node to its Ready condition: median and 95th percentile of the nodes Ready in the last hour.", TimeSeries, "s",
				[]Target{{`histogram_quantile(0.5, sum by (le, cluster, node_group) (increase(hca_node_ready_duration_seconds_bucket[1h])))`, "{{cluster}}/{{node_group}} p50"},
					{`histogram_quantile(0.95, sum by (le, cluster, node_group) (increase(hca_node_ready_duration_seconds_bucket[1h])))`, "{{cluster}}/{{node_group}} p95"}}},
			{"Burst node spend", "Ready node-group nodes times their price: US dollars per hour.", TimeSeries, "currencyUSD",
				[]Target{{`sum by (cluster) (hca_node_group_ready_nodes * on (cluster, node_group) hca_node_group_node_hourly_price_dollars)`, "{{cluster}}"}}},
			{"Cloud API calls", "Cloud API calls, errors (by code) and throttled attempts per second.", TimeSeries, "ops",
				[]Target{{`sum by (service, operation) (rate(hca_cloud_api_calls_total` + rate + `))`, "{{service}} {{operation}}"},
					{`sum by (service, operation, code) (rate(hca_cloud_api_errors_total` + rate + `))`, "{{service}} {{operation}} error {{code}}"},
					{`sum by (service, operation) (rate(hca_cloud_api_throttles_total` + rate + `))`, "{{service}} {{operation}} throttled"}}},
		}},
		{"Runtime", []Panel{
			{"Reconciles", "Reconciles per second by controller and result (controller-runtime).", TimeSeries, "ops",
				[]Target{{`sum by (controller, result) (rate(controller_runtime_reconcile_total` + rate + `))`, "{{controller}} {{result}}"}}},
			{"Reconcile time (p95)", "95th percentile of a reconcile's duration by controller.", TimeSeries, "s",
				[]Target{{`histogram_quantile(0.95, sum by (le, controller) (rate(controller_runtime_reconcile_time_seconds_bucket` + rate + `)))`, "{{controller}}"}}},
			{"Errors", "Runtime errors per second by controller and kind.", TimeSeries, "ops",
				[]Target{{`sum by (controller, kind) (rate(hca_errors_total` + rate + `))`, "{{controller}} {{kind}}"}}},
			{"Consul sync", "Consul catalog calls publishing burst replicas per second, and failures, by operation.", TimeSeries, "ops",
				[]Target{{`sum by (operation) (rate(hca_consul_requests_total` + rate + `))`, "{{operation}}"},
					{`sum by (operation) (rate(hca_consul_errors_total` + rate + `))`, "{{operation}} failed"}}},
			{"Work queue depth", "Items waiting in each controller's work queue.", TimeSeries, "short",
				[]Target{{`sum by (name) (workqueue_depth)`, "{{name}}"}}},
			{"Version", "The runtime's version (hca_build_info).", Stat, "short",
				[]Target{{`max by (version) (hca_build_info)`, "{{version}}"}}},
		}},
	}
}

// MainPanels are the titles of the panels the demo report draws from the
// lab's Prometheus (internal/lab/demo): what an operator looks at first
// while a policy bursts. (The demo's quickstart has no SLO by default, so
// the SLO row is left to the runtime's lab test, which checks every query.)
var MainPanels = []string{
	"Replicas outside the primary cluster",
	"Desired replicas per cluster",
	"Ready replicas per cluster",
	"Pending replicas",
	"Scaling decisions",
	"Node group nodes",
	"Burst node spend",
}

// Main returns the panels MainPanels names, in that order, with their rows.
func Main() []Located {
	var out []Located
	for _, title := range MainPanels {
		for _, r := range Panels() {
			for _, p := range r.Panels {
				if p.Title == title {
					out = append(out, Located{Row: r.Title, Panel: p})
				}
			}
		}
	}
	return out
}

// Located is a panel with the title of its row.
type Located struct {
	Row string
	Panel
}

// Expand replaces the dashboard's Grafana variables in a query as Grafana
// would for a plain Prometheus query: $policy by the policy regular
// expression (".*" for Grafana's "All") and $__rate_interval by the given
// window (Grafana uses at least four scrape intervals).
func Expand(expr, policy string, rateInterval time.Duration) string {
	return strings.NewReplacer("$policy", policy, "$__rate_interval", model.Duration(rateInterval).String()).Replace(expr)
}

// Query is one query of the dashboard, for tests.
type Query struct {
	Row, Panel, Expr string
}

// Queries lists every query of Panels.
func Queries() []Query {
	var out []Query
	for _, r := range Panels() {
		for _, p := range r.Panels {
			for _, t := range p.Targets {
				out = append(out, Query{r.Title, p.Title, t.Expr})
			}
		}
	}
	return out
}

func datasource() common.DataSourceRef {
	typ, uid := "prometheus", "${datasource}"
	return common.DataSourceRef{Type: &typ, Uid: &uid}
}

// Build returns the dashboard: a Prometheus data source variable, a policy
// variable (all by default), one row per Row.
func Build() (dashboard.Dashboard, error) {
	ds := datasource()
	policies := "label_values(hca_burst_phase, policy)"
	all := "$__all"
	b := dashboard.NewDashboardBuilder("HCA runtime").
		Uid(UID).
		Description("hca-runtime: bursting, policies, SLOs, cloud capacity and the controllers. Generated by tools/monitoring; do not edit.").
		Tags([]string{"hca", "autoscaling"}).
		Refresh("30s").
		Time("now-1h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus")).
		WithVariable(dashboard.NewQueryVariableBuilder("policy").Label("Policy").Datasource(ds).
			Query(dashboard.StringOrMap{String: &policies}).Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Multi(true).IncludeAll(true).AllValue(".*").Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: &all}, Value: dashboard.StringOrArrayOfString{String: &all}}))
	// Panel ids are stable (1, 2, ... in order) so that links to a panel
	// survive regeneration; queries are A, B, C within a panel.
	id := uint32(0)
	for _, r := range Panels() {
		id++
		b = b.WithRow(dashboard.NewRowBuilder(r.Title).Id(id))
		for _, p := range r.Panels {
			id++
			var pb cog.Builder[dashboard.Panel]
			switch p.Kind {
			case Stat:
				s := stat.NewPanelBuilder().Id(id).Title(p.Title).Description(p.Description).Unit(p.Unit).Datasource(ds).Height(4).Span(6)
				for i, t := range p.Targets {
					s = s.WithTarget(target(t, i))
				}
				pb = s
			default:
				s := timeseries.NewPanelBuilder().Id(id).Title(p.Title).Description(p.Description).Unit(p.Unit).Datasource(ds).Height(8).Span(12)
				for i, t := range p.Targets {
					s = s.WithTarget(target(t, i))
				}
				pb = s
			}
			b = b.WithPanel(pb)
		}
	}
	d, err := b.Build()
	if err != nil {
		return dashboard.Dashboard{}, fmt.Errorf("build dashboard: %w", err)
	}
	return d, nil
}

func target(t Target, i int) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().RefId(string(rune('A' + i))).Expr(t.Expr).LegendFormat(t.Legend).Datasource(datasource())
}

// JSON is the dashboard as written to hca-runtime.json (indented, with a
// final newline).
func JSON() ([]byte, error) {
	d, err := Build()
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode dashboard: %w", err)
	}
	return append(b, '\n'), nil
}
