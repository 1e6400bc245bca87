package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/prometheus/prometheus/promql/parser"
	"k8s.io/apimachinery/pkg/util/validation"
)

// mapEntries checks each entry of a map of strings: key and value say what is
// wrong with a key or a value, or "". The diagnostics name the attribute and
// the entry.
type mapEntries struct {
	desc  string
	key   func(k string) string
	value func(v string) string
}

func (v mapEntries) Description(context.Context) string             { return v.desc }
func (v mapEntries) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v mapEntries) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(req.ConfigValue.Elements())) {
		if msg := v.key(k); msg != "" {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s has the key %q: %s", req.Path, k, msg))
		}
		s, ok := req.ConfigValue.Elements()[k].(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if msg := v.value(s.ValueString()); msg != "" {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s[%q] = %q: %s", req.Path, k, s.ValueString(), msg))
		}
	}
}

// labelsValidator checks a map of Kubernetes labels: each key a qualified
// name (an optional DNS subdomain prefix and '/', then up to 63 letters,
// digits, '-', '_' or '.'), each value at most 63 of those, starting and
// ending with a letter or digit, or empty.
var labelsValidator = mapEntries{
	desc: "keys and values must be valid Kubernetes labels",
	key: func(k string) string {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return "not a Kubernetes label key: " + strings.Join(errs, "; ") + "."
		}
		return ""
	},
	value: func(v string) string {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return "not a Kubernetes label value: " + strings.Join(errs, "; ") + "."
		}
		return ""
	},
}

// awsTagsValidator checks AWS resource tags against the limits AWS applies:
// keys of 1 to 128 characters not starting with the reserved `aws:`, values
// of at most 256 characters, both of letters, digits and spaces (any
// script's, as UTF-8 allows) and _ . : / = + - @ only.
var awsTagsValidator = mapEntries{
	desc: "keys must have 1 to 128 characters and not start with \"aws:\"; values at most 256 characters; both only letters, digits, spaces and _ . : / = + - @",
	key: func(k string) string {
		switch n := len([]rune(k)); {
		case n == 0 || n > 128:
			return fmt.Sprintf("AWS tag keys have 1 to 128 characters, not %d.", n)
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return "the prefix \"aws:\" is reserved for AWS; choose another key."
		}
		return awsTagCharacters("keys", k)
	},
	value: func(v string) string {
		if n := len([]rune(v)); n > 256 {
			return fmt.Sprintf("AWS tag values have at most 256 characters, not %d.", n)
		}
		return awsTagCharacters("values", v)
	},
}

// awsTagCharacters says which character of an AWS tag key or value (what)
// AWS refuses, or "": AWS allows letters, digits and spaces representable in
// UTF-8 and _ . : / = + - @.
func awsTagCharacters(what, s string) string {
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Zs, r) || strings.ContainsRune("_.:/=+-@", r) {
			continue
		}
		if r == utf8.RuneError {
			return fmt.Sprintf("AWS tag %s must be UTF-8: the byte at %d is not.", what, i)
		}
		return fmt.Sprintf("AWS tag %s may hold only letters, digits, spaces and _ . : / = + - @, not %q (U+%04X): remove it or replace it with one of those, such as \"-\".", what, r, r)
	}
	return ""
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

// promQLParser is Prometheus' own PromQL parser, with the features a default
// Prometheus server enables (no experimental functions).
var promQLParser = parser.NewParser(parser.Options{})

// promQLQuery checks a PromQL expression with Prometheus' parser at plan
// time: it must parse, and an instant query of it must give samples (an
// instant vector or a scalar), not a range vector or a string.
type promQLQuery struct {
	// placeholders: the runtime replaces `$namespace` and `$name` with the
	// target's (DNS names) before querying; the check does the same.
	placeholders bool
}

func (promQLQuery) Description(context.Context) string {
	return "must be a PromQL expression that Prometheus parses, giving an instant vector or a scalar"
}
func (v promQLQuery) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v promQLQuery) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	q := req.ConfigValue.ValueString()
	if v.placeholders {
		q = strings.NewReplacer("$namespace", "default", "$name", "web").Replace(q)
	}
	if msg := checkPromQL(q); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s %s", req.Path, msg))
	}
}

// checkPromQL says what is wrong with a PromQL query, or "".
func checkPromQL(q string) string {
	expr, err := promQLParser.ParseExpr(q)
	if err != nil {
		return fmt.Sprintf("is not valid PromQL (Prometheus' parser: %v). Fix the expression; `promtool` or Prometheus' query page shows the same error.", err)
	}
	switch t := expr.Type(); t {
	case parser.ValueTypeVector, parser.ValueTypeScalar:
		return ""
	case parser.ValueTypeMatrix:
		return "is a range vector (such as `x[5m]`), which gives no single value: wrap it in a function such as rate() or avg_over_time()."
	default:
		return fmt.Sprintf("gives a %s, not a number: write an expression that gives an instant vector or a scalar.", t)
	}
}
