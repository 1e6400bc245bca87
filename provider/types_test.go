package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestDurationString(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		a, b durationString
		want bool
	}{
		{durationOf("90s"), durationOf("1m30s"), true},
		{durationOf("1h"), durationOf("60m"), true},
		{durationOf("0s"), durationOf("0"), true},
		{durationOf("90s"), durationOf("91s"), false},
		{durationOf("90s"), durationNull(), false},
		{durationUnknown(), durationOf("90s"), false},
		{durationOf("soon"), durationOf("soon"), false},
	}
	for _, tt := range tests {
		t.Run(tt.a.String()+"="+tt.b.String(), func(t *testing.T) {
			got, diags := tt.a.StringSemanticEquals(ctx, tt.b)
			if diags.HasError() || got != tt.want {
				t.Errorf("StringSemanticEquals = %v (%v), want %v", got, diags, tt.want)
			}
		})
	}
}

func TestKeepDurationSpelling(t *testing.T) {
	tests := []struct {
		name          string
		config, state types.String
		want          types.String
	}{
		{"imported spelling kept", types.StringValue("90s"), types.StringValue("1m30s"), types.StringValue("1m30s")},
		{"changed value planned", types.StringValue("2m"), types.StringValue("1m30s"), types.StringValue("2m")},
		{"same spelling", types.StringValue("90s"), types.StringValue("90s"), types.StringValue("90s")},
		{"create", types.StringValue("90s"), types.StringNull(), types.StringValue("90s")},
		{"removed", types.StringNull(), types.StringValue("90s"), types.StringNull()},
		{"unknown", types.StringUnknown(), types.StringValue("90s"), types.StringUnknown()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := planmodifier.StringRequest{Path: path.Root("d"), ConfigValue: tt.config, StateValue: tt.state, PlanValue: tt.config}
			resp := planmodifier.StringResponse{PlanValue: req.PlanValue}
			keepDurationSpelling{}.PlanModifyString(context.Background(), req, &resp)
			if !resp.PlanValue.Equal(tt.want) {
				t.Errorf("plan %s, want %s", resp.PlanValue, tt.want)
			}
		})
	}
}

func TestIntType(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		in       tftypes.Value
		wantErr  string
		wantNull bool
	}{
		{tftypes.NewValue(tftypes.Number, 3), "", false},
		{tftypes.NewValue(tftypes.Number, 2.5), "max_replicas must be a whole number, got 2.5.", false},
		{tftypes.NewValue(tftypes.Number, 1e20), "max_replicas must be a whole number from -9223372036854775808 to 9223372036854775807, got 1e+20.", false},
		{tftypes.NewValue(tftypes.Number, nil), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in.String(), func(t *testing.T) {
			diags := intType{}.Validate(ctx, tt.in, path.Root("max_replicas"))
			got := ""
			if diags.HasError() {
				got = diags.Errors()[0].Detail()
			}
			if got != tt.wantErr {
				t.Errorf("Validate: %q, want %q", got, tt.wantErr)
			}
			v, err := intType{}.ValueFromTerraform(ctx, tt.in)
			if err != nil {
				t.Fatalf("ValueFromTerraform: %v", err)
			}
			iv := v.(types.Int64)
			switch {
			case tt.wantErr != "" && !iv.IsUnknown():
				t.Errorf("an invalid number gave %s, want unknown (no validator judges it)", iv)
			case tt.wantNull != iv.IsNull():
				t.Errorf("null = %v, want %v", iv.IsNull(), tt.wantNull)
			}
		})
	}
}

func TestKeepQuantitySpelling(t *testing.T) {
	s, n, u := types.StringValue, types.StringNull(), types.StringUnknown()
	tests := []struct {
		name                string
		config, state, want types.String
	}{
		{"same decimal, other spelling: the state's", s("0.10"), s("0.1"), s("0.1")},
		{"milli form of a decimal: the state's", s("0.1"), s("100m"), s("100m")},
		{"binary and decimal suffixes of one amount: the state's", s("1024Mi"), s("1Gi"), s("1Gi")},
		{"another amount: the configuration's", s("0.2"), s("0.1"), s("0.2")},
		{"not a quantity: the configuration's", s("lots"), s("0.1"), s("lots")},
		{"no state (create): the configuration's", s("0.10"), n, s("0.10")},
		{"unknown configuration: unknown", u, s("0.1"), u},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := planmodifier.StringResponse{PlanValue: tt.config}
			keepQuantitySpelling{}.PlanModifyString(context.Background(), planmodifier.StringRequest{ConfigValue: tt.config, StateValue: tt.state, PlanValue: tt.config}, &resp)
			if !resp.PlanValue.Equal(tt.want) {
				t.Errorf("plan %v, want %v", resp.PlanValue, tt.want)
			}
		})
	}
}

// TestQuantityAttributesKeepSpelling checks that the quantity arguments
// import reads in canonical form carry keepQuantitySpelling.
func TestQuantityAttributesKeepSpelling(t *testing.T) {
	ctx := context.Background()
	want := map[string][]string{
		"hca_slo":                      {"tolerance", "slo.latency.percentile", "slo.availability.target_percent", "slo.custom.target_value", "elasticity_strategy.vertical.min_cpu"},
		"hca_burst_policy":             {"metrics[].promql.target_value", "algorithm.frss.tolerance", "algorithm.panic.max_scale_down_rate"},
		"hca_federated_autoscaler":     {"metrics[].promql.target_value"},
		"hca_runtime":                  {"resources.cpu_request", "resources.memory_limit"},
		"hca_cluster":                  {"max_cpu", "node_groups[].allocatable.cpu"},
		"hca_multi_objective_strategy": {"ranges.min_cpu", "ranges.max_memory"},
	}
	p := New("test")()
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "hca"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		has := map[string]bool{}
		walkResourceAttributes("", resp.Schema.Attributes, func(name string, a rschema.Attribute) {
			if sa, ok := a.(rschema.StringAttribute); ok {
				for _, m := range sa.PlanModifiers {
					if _, ok := m.(keepQuantitySpelling); ok {
						has[name] = true
					}
				}
			}
		})
		for _, name := range want[meta.TypeName] {
			if !has[name] {
				t.Errorf("%s.%s does not keep the state's spelling of an equal quantity", meta.TypeName, name)
			}
		}
	}
}
