package provider

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	kresource "k8s.io/apimachinery/pkg/api/resource"
)

// intType is the schema type of every configurable integer: types.Int64Type,
// except that a number that is not a whole 64-bit integer (`2.5`) is reported
// at validation as an invalid value of the attribute, naming it. The
// framework's own conversion reports it as a provider error ("Configuration
// Read Error ... Value %!s(*big.Float=2.5) is not an integer", a formatting
// bug of its message). Values stay types.Int64 in the models.
type intType struct {
	basetypes.Int64Type
}

var _ basetypes.Int64Typable = intType{}

// Equal accepts types.Int64Type too: the values are types.Int64 (nested
// objects compare their attributes' types with their values').
func (t intType) Equal(o attr.Type) bool {
	switch o.(type) {
	case intType, basetypes.Int64Type:
		return true
	}
	return false
}

func (t intType) String() string { return "provider.intType" }

// ValueFromTerraform converts like types.Int64Type; a number that is not a
// whole int64 becomes unknown, so that no validator or ValidateConfig judges
// it, and Validate reports it.
func (t intType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	if f := knownNumber(in); f != nil && wholeNumberProblem(f) != "" {
		return basetypes.NewInt64Unknown(), nil
	}
	return t.Int64Type.ValueFromTerraform(ctx, in)
}

// Validate reports a number that is not a whole int64, naming the attribute.
func (t intType) Validate(_ context.Context, in tftypes.Value, p path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if f := knownNumber(in); f != nil {
		if msg := wholeNumberProblem(f); msg != "" {
			diags.AddAttributeError(p, "Invalid "+p.String(), p.String()+" "+msg)
		}
	}
	return diags
}

// knownNumber is in's number, or nil when in is null, unknown or not a number.
func knownNumber(in tftypes.Value) *big.Float {
	if !in.IsKnown() || in.IsNull() || !in.Type().Is(tftypes.Number) {
		return nil
	}
	var f *big.Float
	if err := in.As(&f); err != nil || f == nil {
		return nil
	}
	return f
}

// wholeNumberProblem says what is wrong with f as an int64, or "".
func wholeNumberProblem(f *big.Float) string {
	if !f.IsInt() {
		return fmt.Sprintf("must be a whole number, got %s.", f.Text('g', -1))
	}
	if _, acc := f.Int64(); acc != big.Exact {
		return fmt.Sprintf("must be a whole number from %d to %d, got %s.", int64(-1<<63), int64(1<<63-1), f.Text('g', -1))
	}
	return ""
}

// durationType is the schema type of every Go duration argument: a string
// whose values are equal when they are the same duration ("90s", "1m30s").
// The framework keeps the configured spelling when the API answers another
// (semantic equality on read and apply); keepDurationSpelling keeps the
// state's spelling at plan, so that an import (which reads the API's
// spelling) followed by a plan of a configuration spelling it otherwise is
// empty.
type durationType struct {
	basetypes.StringType
}

var _ basetypes.StringTypable = durationType{}

func (t durationType) Equal(o attr.Type) bool {
	_, ok := o.(durationType)
	return ok
}

func (t durationType) String() string { return "provider.durationType" }

func (t durationType) ValueType(context.Context) attr.Value { return durationString{} }

func (t durationType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return durationString{StringValue: in}, nil
}

func (t durationType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return durationString{StringValue: s}, nil
}

// durationString is a value of durationType.
type durationString struct {
	basetypes.StringValue
}

var _ basetypes.StringValuableWithSemanticEquals = durationString{}

func durationOf(s string) durationString {
	return durationString{StringValue: basetypes.NewStringValue(s)}
}
func durationNull() durationString { return durationString{StringValue: basetypes.NewStringNull()} }
func durationUnknown() durationString {
	return durationString{StringValue: basetypes.NewStringUnknown()}
}

func (v durationString) Type(context.Context) attr.Type { return durationType{} }

func (v durationString) Equal(o attr.Value) bool {
	other, ok := o.(durationString)
	return ok && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals reports whether both are the same duration.
func (v durationString) StringSemanticEquals(_ context.Context, o basetypes.StringValuable) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	other, d := o.ToStringValue(context.Background())
	diags.Append(d...)
	return sameDuration(v.StringValue, other), diags
}

// sameDuration reports whether a and b are known durations and equal.
func sameDuration(a, b basetypes.StringValue) bool {
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return false
	}
	da, err1 := time.ParseDuration(a.ValueString())
	db, err2 := time.ParseDuration(b.ValueString())
	return err1 == nil && err2 == nil && da == db
}

// keepDurationSpelling plans the state's spelling of a duration the
// configuration spells otherwise ("1m30s" in state, "90s" configured):
// Terraform accepts the prior value as the plan of an equivalent
// configuration, and the plan is empty.
type keepDurationSpelling struct{}

func (keepDurationSpelling) Description(context.Context) string {
	return "Keeps the state's spelling of an equal duration."
}
func (m keepDurationSpelling) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}
func (keepDurationSpelling) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.Equal(req.StateValue) && sameDuration(req.ConfigValue, req.StateValue) {
		resp.PlanValue = req.StateValue
	}
}

// keepQuantitySpelling plans the state's spelling of a quantity or decimal
// the configuration spells otherwise ("0.1" in state, "0.10" configured;
// "100m" and "0.1"), as keepDurationSpelling does for durations, so that an
// import (which reads the API's canonical form) followed by a plan is empty.
type keepQuantitySpelling struct{}

func (keepQuantitySpelling) Description(context.Context) string {
	return "Keeps the state's spelling of an equal quantity."
}
func (m keepQuantitySpelling) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}
func (keepQuantitySpelling) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.ConfigValue.Equal(req.StateValue) || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() ||
		req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	a, err1 := kresource.ParseQuantity(req.ConfigValue.ValueString())
	b, err2 := kresource.ParseQuantity(req.StateValue.ValueString())
	if err1 == nil && err2 == nil && a.Cmp(b) == 0 {
		resp.PlanValue = req.StateValue
	}
}

// addQuantitySpelling gives every string attribute validated as a quantity
// (quantityRange, positiveQuantity), nested ones included, the
// keepQuantitySpelling plan modifier.
func addQuantitySpelling(attrs map[string]schema.Attribute) {
	for name, a := range attrs {
		switch at := a.(type) {
		case schema.StringAttribute:
			if slices.ContainsFunc(at.Validators, isQuantityValidator) {
				at.PlanModifiers = append(at.PlanModifiers, keepQuantitySpelling{})
				attrs[name] = at
			}
		case schema.SingleNestedAttribute:
			addQuantitySpelling(at.Attributes)
		case schema.ListNestedAttribute:
			addQuantitySpelling(at.NestedObject.Attributes)
		case schema.SetNestedAttribute:
			addQuantitySpelling(at.NestedObject.Attributes)
		case schema.MapNestedAttribute:
			addQuantitySpelling(at.NestedObject.Attributes)
		}
	}
}

func isQuantityValidator(v validator.String) bool {
	switch v.(type) {
	case quantityRange, positiveQuantity, *quantityRange, *positiveQuantity:
		return true
	}
	return false
}
