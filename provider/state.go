package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
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

// planUnchangedAsState plans no change when the plan differs from the prior
// state only in values it left unknown. The framework marks computed values
// unknown as soon as the configuration differs from the state, also when a
// plan modifier then keeps the state's value (keepDurationSpelling after an
// import): that would plan an update that changes nothing.
func planUnchangedAsState(req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() {
		return
	}
	filled, err := tftypes.Transform(resp.Plan.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if s, _, err := tftypes.WalkAttributePath(req.State.Raw, p); err == nil {
			if sv, ok := s.(tftypes.Value); ok {
				return sv, nil
			}
		}
		return v, nil
	})
	if err == nil && filled.Equal(req.State.Raw) {
		resp.Plan.Raw = req.State.Raw
	}
}
