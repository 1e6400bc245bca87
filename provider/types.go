package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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
