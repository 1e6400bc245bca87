package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// scheduleModel is one scheduled window of hca_burst_policy and
// hca_federated_autoscaler (spec.schedules[]).
type scheduleModel struct {
	Name        types.String   `tfsdk:"name"`
	Start       types.String   `tfsdk:"start"`
	Duration    durationString `tfsdk:"duration"`
	TimeZone    types.String   `tfsdk:"time_zone"`
	MinReplicas types.Int64    `tfsdk:"min_replicas"`
}

var scheduleNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// schedulesAttr is the schedules argument; floor says what min_replicas
// raises.
func schedulesAttr(floor string) schema.ListNestedAttribute {
	duration := durationAttr("How long the window lasts from each start, in elapsed time: a Go duration greater than 0s and at most 168h, such as `8h`.",
		durationMax{max: scaling.MaxWindowDuration, positive: true})
	duration.Optional, duration.Required = false, true
	return schema.ListNestedAttribute{
		Optional: true,
		Description: "Scheduled windows (at most 20) for load whose time is known, such as a Monday-morning rush. While a window is in force it raises " + floor + ". " +
			"A start whose wall-clock time a daylight-saving jump skips happens at the end of the jump; one that occurs twice happens once, at the first occurrence. Overlapping windows keep the highest floor.",
		Validators: []validator.List{listvalidator.SizeAtMost(20)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true, Description: "Names the window in status and events: 1 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit; unique in the list.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(scheduleNameRE, "must be 1 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit")}},
			"start": schema.StringAttribute{Required: true, Description: "When the window opens: a standard 5-field cron expression (minute hour day-of-month month day-of-week) read in `time_zone`, such as `0 8 * * MON-FRI`; no seconds field, no `@` descriptors, no `CRON_TZ=` prefix.",
				Validators: []validator.String{cronValidator{}}},
			"duration": duration,
			"time_zone": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("UTC"),
				Description: "IANA time zone `start` is read in, such as `Europe/Berlin`. Defaults to `UTC` (the API's default, so that an import reads the same value whether or not the configuration spells it); `Local` is refused.",
				Validators:  []validator.String{timeZoneValidator{}}},
			"min_replicas": schema.Int64Attribute{CustomType: intType{}, Required: true, Description: "The floor while the window is in force: 1 or more, at most `max_replicas`.",
				Validators: []validator.Int64{int64validator.Between(1, 2147483647)}},
		}},
	}
}

// cronValidator checks a 5-field cron expression with the runtime's parser.
type cronValidator struct{}

func (cronValidator) Description(context.Context) string {
	return "must be a 5-field cron expression such as \"0 8 * * MON-FRI\""
}
func (v cronValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (cronValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := scaling.ParseCron(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s: %v.", req.Path, err))
	}
}

// timeZoneValidator checks an IANA zone name with time.LoadLocation, as the
// runtime does.
type timeZoneValidator struct{}

func (timeZoneValidator) Description(context.Context) string {
	return "must be an IANA time zone name such as \"Europe/Berlin\" or \"UTC\""
}
func (v timeZoneValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (timeZoneValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := scaling.LoadTimeZone(req.ConfigValue.ValueString()); err != nil || req.ConfigValue.ValueString() == "" {
		msg := "set a zone name or leave time_zone out for UTC"
		if err != nil {
			msg = err.Error()
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s: %s.", req.Path, msg))
	}
}

// validateSchedules checks what the attribute validators cannot see: unique
// names and floors within maxReplicas.
func validateSchedules(ss []scheduleModel, maxReplicas types.Int64) diag.Diagnostics {
	var d diag.Diagnostics
	seen := map[string]int{}
	for i, s := range ss {
		at := path.Root("schedules").AtListIndex(i)
		if !s.Name.IsNull() && !s.Name.IsUnknown() {
			if j, ok := seen[s.Name.ValueString()]; ok {
				d.AddAttributeError(at.AtName("name"), "Invalid schedules",
					fmt.Sprintf("schedules[%d] and schedules[%d] are both named %q: give each window its own name.", j, i, s.Name.ValueString()))
			}
			seen[s.Name.ValueString()] = i
		}
		if !s.MinReplicas.IsNull() && !s.MinReplicas.IsUnknown() && !maxReplicas.IsNull() && !maxReplicas.IsUnknown() &&
			s.MinReplicas.ValueInt64() > maxReplicas.ValueInt64() {
			d.AddAttributeError(at.AtName("min_replicas"), "Invalid schedules",
				fmt.Sprintf("schedules[%d].min_replicas (%d) must be <= max_replicas (%d): lower the window's floor or raise max_replicas.", i, s.MinReplicas.ValueInt64(), maxReplicas.ValueInt64()))
		}
	}
	return d
}

// schedulesToAPI converts the windows; none stays unset.
func schedulesToAPI(ss []scheduleModel) ([]hcav1.ScheduleWindow, error) {
	var out []hcav1.ScheduleWindow
	for i, s := range ss {
		d, err := time.ParseDuration(s.Duration.ValueString())
		if err != nil {
			return nil, fmt.Errorf("schedules[%d].duration: %w", i, err)
		}
		out = append(out, hcav1.ScheduleWindow{Name: s.Name.ValueString(), Start: s.Start.ValueString(), Duration: metav1.Duration{Duration: d},
			TimeZone: s.TimeZone.ValueString(), MinReplicas: int32(s.MinReplicas.ValueInt64())})
	}
	return out, nil
}

// schedulesFromAPI converts the windows back, keeping prior's spelling of
// durations; a time zone the API leaves empty is its default, UTC.
func schedulesFromAPI(ws []hcav1.ScheduleWindow, prior []scheduleModel) []scheduleModel {
	var out []scheduleModel
	for i, w := range ws {
		var p scheduleModel
		if i < len(prior) {
			p = prior[i]
		}
		tz := types.StringValue(w.TimeZone)
		if w.TimeZone == "" {
			tz = types.StringValue("UTC") // the API's default, and the attribute's
		}
		d := w.Duration
		out = append(out, scheduleModel{Name: types.StringValue(w.Name), Start: types.StringValue(w.Start),
			Duration: keepDuration(p.Duration, &d, ""), TimeZone: tz, MinReplicas: types.Int64Value(int64(w.MinReplicas))})
	}
	return out
}
