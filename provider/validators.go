package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// labelsValidator checks a map of Kubernetes labels: each key a qualified
// name (an optional DNS subdomain prefix and '/', then up to 63 letters,
// digits, '-', '_' or '.'), each value at most 63 of those, starting and
// ending with a letter or digit, or empty.
type labelsValidator struct{}

func (labelsValidator) Description(context.Context) string {
	return "keys and values must be valid Kubernetes labels"
}
func (v labelsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (labelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(req.ConfigValue.Elements())) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
				fmt.Sprintf("%s has the key %q, which is not a Kubernetes label key: %s.", req.Path, k, strings.Join(errs, "; ")))
		}
		s, ok := req.ConfigValue.Elements()[k].(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if errs := validation.IsValidLabelValue(s.ValueString()); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
				fmt.Sprintf("%s[%q] = %q is not a Kubernetes label value: %s.", req.Path, k, s.ValueString(), strings.Join(errs, "; ")))
		}
	}
}

// awsTagsValidator checks AWS resource tags against the limits AWS applies:
// keys of 1 to 128 characters not starting with the reserved `aws:`, values
// of at most 256 characters.
type awsTagsValidator struct{}

func (awsTagsValidator) Description(context.Context) string {
	return "keys must have 1 to 128 characters and not start with \"aws:\"; values at most 256 characters"
}
func (v awsTagsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (awsTagsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(req.ConfigValue.Elements())) {
		switch n := len([]rune(k)); {
		case n == 0 || n > 128:
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
				fmt.Sprintf("%s has a key of %d characters (%q): AWS tag keys have 1 to 128.", req.Path, n, k))
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
				fmt.Sprintf("%s has the key %q: the prefix \"aws:\" is reserved for AWS; choose another key.", req.Path, k))
		}
		s, ok := req.ConfigValue.Elements()[k].(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if n := len([]rune(s.ValueString())); n > 256 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
				fmt.Sprintf("%s[%q] has %d characters: AWS tag values have at most 256.", req.Path, k, n))
		}
	}
}

// statusCodePattern checks a regular expression of HTTP status codes, as
// PromQL's `=~` matches it (anchored, RE2): it must compile and match at
// least one code from 100 to 599, so that "5xx" (which matches none) is
// caught at plan time.
type statusCodePattern struct{}

func (statusCodePattern) Description(context.Context) string {
	return "must be a regular expression matching HTTP status codes, such as \"5..\" or \"5[0-9]{2}|429\""
}
func (v statusCodePattern) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (statusCodePattern) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	re, err := regexp.Compile("^(?:" + s + ")$")
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s %q is not a regular expression (RE2, as PromQL's =~ reads it): %v. Use one such as \"5..\" or \"5[0-9]{2}|429\".", req.Path, s, err))
		return
	}
	for code := 100; code <= 599; code++ {
		if re.MatchString(strconv.Itoa(code)) {
			return
		}
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
		fmt.Sprintf("%s %q matches no HTTP status code (100 to 599): the code label holds numbers, so write \"5..\" rather than \"5xx\".", req.Path, s))
}

// uniqueStrings checks that a list of strings names each value once,
// naming the attribute and both positions.
type uniqueStrings struct{}

func (uniqueStrings) Description(context.Context) string { return "must list each value once" }
func (v uniqueStrings) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (uniqueStrings) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	seen := map[string]int{}
	for i, e := range req.ConfigValue.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if j, dup := seen[s.ValueString()]; dup {
			resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(i), "Invalid "+req.Path.String(),
				fmt.Sprintf("%s[%d] and %s[%d] are both %q: list each value once.", req.Path, j, req.Path, i, s.ValueString()))
			continue
		}
		seen[s.ValueString()] = i
	}
}
