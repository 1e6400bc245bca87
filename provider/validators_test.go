package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func firstError(d interface {
	HasError() bool
}, detail func() string) string {
	if !d.HasError() {
		return ""
	}
	return detail()
}

func TestLabelsAndTagsValidators(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("a", 64)
	cases := []struct {
		name string
		v    validator.Map
		m    map[string]string
		want string
	}{
		{"labels ok", labelsValidator, map[string]string{"app": "web", "hca.dev/tier": "front-1", "empty": ""}, ""},
		{"label key with space", labelsValidator, map[string]string{"my app": "web"}, `target.match_labels has the key "my app": not a Kubernetes label key:`},
		{"label value too long", labelsValidator, map[string]string{"app": long}, `target.match_labels["app"] = "` + long + `": not a Kubernetes label value: must be no more than 63 bytes`},
		{"label value with slash", labelsValidator, map[string]string{"app": "a/b"}, `target.match_labels["app"] = "a/b": not a Kubernetes label value:`},
		{"tags ok", awsTagsValidator, map[string]string{"team": "hca", "cost-center": strings.Repeat("v", 256)}, ""},
		{"tag key empty", awsTagsValidator, map[string]string{"": "x"}, `target.match_labels has the key "": AWS tag keys have 1 to 128 characters, not 0.`},
		{"tag key too long", awsTagsValidator, map[string]string{strings.Repeat("k", 129): "x"}, "target.match_labels has the key \"kkk"},
		{"tag key reserved", awsTagsValidator, map[string]string{"aws:owner": "x"}, `target.match_labels has the key "aws:owner": the prefix "aws:" is reserved for AWS; choose another key.`},
		{"tag value too long", awsTagsValidator, map[string]string{"team": strings.Repeat("v", 257)}, `target.match_labels["team"] = "` + strings.Repeat("v", 257) + `": AWS tag values have at most 256 characters, not 257.`},
		{"tags of every allowed character", awsTagsValidator, map[string]string{"Cost Center_1.a:b/c=d+e-f@g": "Équipe Données 東京 _.:/=+-@ ٣"}, ""},
		{"tag key with an exclamation mark", awsTagsValidator, map[string]string{"team!": "x"},
			`target.match_labels has the key "team!": AWS tag keys may hold only letters, digits, spaces and _ . : / = + - @, not '!' (U+0021): remove it or replace it with one of those, such as "-".`},
		{"tag key with a comma", awsTagsValidator, map[string]string{"a,b": "x"}, `target.match_labels has the key "a,b": AWS tag keys may hold only letters, digits, spaces and _ . : / = + - @, not ','`},
		{"tag key with a tab", awsTagsValidator, map[string]string{"a\tb": "x"}, `target.match_labels has the key "a\tb": AWS tag keys may hold only letters, digits, spaces and _ . : / = + - @, not '\t' (U+0009)`},
		{"tag key with an emoji", awsTagsValidator, map[string]string{"team🚀": "x"}, `target.match_labels has the key "team🚀": AWS tag keys may hold only letters, digits, spaces and _ . : / = + - @, not '🚀' (U+1F680)`},
		{"tag value with a star", awsTagsValidator, map[string]string{"team": "a*"}, `target.match_labels["team"] = "a*": AWS tag values may hold only letters, digits, spaces and _ . : / = + - @, not '*' (U+002A)`},
		{"tag value with invalid UTF-8", awsTagsValidator, map[string]string{"team": "a\xffb"}, `target.match_labels["team"] = "a\xffb": AWS tag values must be UTF-8: the byte at 1 is not.`},
		{"tag value empty", awsTagsValidator, map[string]string{"team": ""}, ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			mv, _ := types.MapValueFrom(ctx, types.StringType, tt.m)
			var resp validator.MapResponse
			tt.v.ValidateMap(ctx, validator.MapRequest{Path: path.Root("target").AtName("match_labels"), ConfigValue: mv}, &resp)
			got := firstError(resp.Diagnostics, func() string { return resp.Diagnostics.Errors()[0].Detail() })
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("got %q, want a detail starting with %q", got, tt.want)
			}
		})
	}
}

func TestStatusCodePattern(t *testing.T) {
	tests := []struct{ in, want string }{
		{"5..", ""},
		{"5[0-9]{2}|429", ""},
		{"503", ""},
		{"5xx", `slo.availability.error_codes "5xx" matches no HTTP status code (100 to 599): the code label holds numbers, so write "5.." rather than "5xx".`},
		{"[5", `slo.availability.error_codes "[5" is not a regular expression (RE2, as PromQL's =~ reads it):`},
		{"a(?=b)", `slo.availability.error_codes "a(?=b)" is not a regular expression`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var resp validator.StringResponse
			statusCodePattern{}.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("slo").AtName("availability").AtName("error_codes"), ConfigValue: types.StringValue(tt.in)}, &resp)
			got := firstError(resp.Diagnostics, func() string { return resp.Diagnostics.Errors()[0].Detail() })
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("got %q, want a detail starting with %q", got, tt.want)
			}
		})
	}
}

func TestUniqueStrings(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"m5.large", "c5.xlarge"}, ""},
		{[]string{"m5.large", "c5.xlarge", "m5.large"}, `node_group.instance_types[0] and node_group.instance_types[2] are both "m5.large": list each value once.`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.in, ","), func(t *testing.T) {
			lv, _ := types.ListValueFrom(ctx, types.StringType, tt.in)
			var resp validator.ListResponse
			uniqueStrings{}.ValidateList(ctx, validator.ListRequest{Path: path.Root("node_group").AtName("instance_types"), ConfigValue: lv}, &resp)
			got := firstError(resp.Diagnostics, func() string { return resp.Diagnostics.Errors()[0].Detail() })
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckPromQL(t *testing.T) {
	tests := []struct{ in, want string }{
		{`sum(rate(http_requests_total{app="web"}[1m]))`, ""},
		{`histogram_quantile(0.9, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))`, ""},
		{`42`, ""},
		{`up == 1`, ""},
		{`sum(rate(http_requests_total[1m])`, "is not valid PromQL (Prometheus' parser: 1:34: parse error: unclosed left parenthesis)"},
		{`rate(http_requests_total[1m]`, "is not valid PromQL (Prometheus' parser:"},
		{`sum(rate(x[5q]))`, "is not valid PromQL (Prometheus' parser:"},
		{`foo{app="web"`, "is not valid PromQL (Prometheus' parser:"},
		{`nosuchfunction(up)`, "is not valid PromQL (Prometheus' parser: 1:1: parse error: unknown function with name \"nosuchfunction\")"},
		{`http_requests_total[5m]`, "is a range vector (such as `x[5m]`), which gives no single value"},
		{`"text"`, "gives a string, not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := checkPromQL(tt.in)
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("checkPromQL(%q) = %q, want a message starting with %q", tt.in, got, tt.want)
			}
		})
	}
}
