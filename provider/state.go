package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// setPartialState saves model as the state of a create that made a cloud
// object and then failed: Terraform keeps it (tainted) for the next apply or
// destroy. The plan's values not known yet (the object's ARN, endpoint...)
// are saved as null, since Terraform refuses unknown values after apply
// ("Provider returned invalid result object after apply") and reports that
// before the cloud's error.
func setPartialState(ctx context.Context, state *tfsdk.State, model any) diag.Diagnostics {
	diags := state.Set(ctx, model)
	if diags.HasError() {
		return diags
	}
	known, err := tftypes.Transform(state.Raw, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		diags.AddError("Error saving partial state", "Could not replace the unknown values of the state: "+err.Error())
		return diags
	}
	state.Raw = known
	return diags
}
