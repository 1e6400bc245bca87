package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestDecideScrape(t *testing.T) {
	tests := []struct {
		name       string
		want       types.Bool
		crdPresent bool
		wantMode   string
		wantOK     bool
	}{
		{"auto, Operator installed", types.BoolNull(), true, scrapeServiceMonitor, true},
		{"auto, no Operator", types.BoolNull(), false, scrapeAnnotations, true},
		{"forced on, Operator installed", types.BoolValue(true), true, scrapeServiceMonitor, true},
		{"forced on, no Operator: refused", types.BoolValue(true), false, scrapeServiceMonitor, false},
		{"off, Operator installed", types.BoolValue(false), true, scrapeAnnotations, true},
		{"off, no Operator", types.BoolValue(false), false, scrapeAnnotations, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode, ok := decideScrape(tt.want, tt.crdPresent)
			if mode != tt.wantMode || ok != tt.wantOK {
				t.Errorf("decideScrape(%v, %v) = %q, %v; want %q, %v", tt.want, tt.crdPresent, mode, ok, tt.wantMode, tt.wantOK)
			}
		})
	}
}

func TestValidateRuntimeMonitoring(t *testing.T) {
	labels := func(kv ...string) types.Map {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return mapValue(m)
	}
	mon := func(sm types.Bool, l types.Map, interval types.String) *runtimeMonitoring {
		return &runtimeMonitoring{ServiceMonitor: sm, Labels: l, Interval: interval}
	}
	noLabels, noInterval := types.MapNull(types.StringType), types.StringNull()
	tests := []struct {
		name string
		m    *runtimeMonitoring
		want []string // detail substrings, one per diagnostic
	}{
		{"unset block", nil, nil},
		{"auto with labels and interval", mon(types.BoolNull(), labels("release", "prom"), types.StringValue("30s")), nil},
		{"on with labels", mon(types.BoolValue(true), labels("release", "prom"), noInterval), nil},
		{"off alone", mon(types.BoolValue(false), noLabels, noInterval), nil},
		{"off with labels", mon(types.BoolValue(false), labels("release", "prom"), noInterval),
			[]string{"monitoring.labels applies to the ServiceMonitor, and monitoring.service_monitor is false"}},
		{"off with interval", mon(types.BoolValue(false), noLabels, types.StringValue("1m")),
			[]string{"Remove monitoring.interval, or set monitoring.service_monitor to true or leave it unset."}},
		{"the install's own label", mon(types.BoolNull(), labels("app.kubernetes.io/name", "x", "team", "a"), noInterval),
			[]string{`monitoring.labels sets "app.kubernetes.io/name", which the install sets itself ("hca-runtime")`}},
		{"unknown service_monitor", mon(types.BoolUnknown(), labels("release", "prom"), noInterval), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validateRuntimeMonitoring(tt.m)
			if len(d) != len(tt.want) {
				t.Fatalf("got %d diagnostics %v, want %d", len(d), d, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(d[i].Detail(), w) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, d[i].Detail(), w)
				}
			}
		})
	}
}

func TestPromDurationValidator(t *testing.T) {
	tests := []struct {
		in    string
		valid bool
	}{
		{"30s", true}, {"1m30s", true}, {"500ms", true}, {"2h", true},
		{"", false}, {"0", false}, {"30", false}, {"1.5m", false}, {"30s1m", false}, {"-1s", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			req := validator.StringRequest{Path: path.Root("monitoring").AtName("interval"), ConfigValue: types.StringValue(tt.in)}
			var resp validator.StringResponse
			promDurationValidator{}.ValidateString(context.Background(), req, &resp)
			if got := !resp.Diagnostics.HasError(); got != tt.valid {
				t.Errorf("%q valid = %v, want %v (%v)", tt.in, got, tt.valid, resp.Diagnostics)
			}
		})
	}
}

func TestServiceMonitorFor(t *testing.T) {
	sm, err := serviceMonitorFor("team-a", &runtimeMonitoring{ServiceMonitor: types.BoolNull(),
		Labels: mapValue(map[string]string{"release": "kube-prometheus-stack"}), Interval: types.StringValue("15s")})
	if err != nil {
		t.Fatal(err)
	}
	l := sm.GetLabels()
	if l["release"] != "kube-prometheus-stack" || l["app.kubernetes.io/name"] != "hca-runtime" || len(l) != 3 {
		t.Errorf("labels %v: want release plus the install's two", l)
	}
	if sm.GetNamespace() != "team-a" || sm.GetName() != "hca-runtime" {
		t.Errorf("ServiceMonitor %s/%s", sm.GetNamespace(), sm.GetName())
	}
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(eps) != 1 || eps[0].(map[string]any)["interval"] != "15s" {
		t.Errorf("endpoints %v, want one with interval 15s", eps)
	}
}
