package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func TestScheduleConverters(t *testing.T) {
	berlin := scheduleModel{Name: types.StringValue("rush"), Start: types.StringValue("45 7 * * MON-FRI"), Duration: durationOf("3h"),
		TimeZone: types.StringValue("Europe/Berlin"), MinReplicas: types.Int64Value(10)}
	// time_zone defaults to UTC in the schema: a plan never holds null.
	utc := scheduleModel{Name: types.StringValue("batch"), Start: types.StringValue("0 22 * * *"), Duration: durationOf("90m"),
		TimeZone: types.StringValue("UTC"), MinReplicas: types.Int64Value(4)}
	tests := []struct {
		name  string
		in    []scheduleModel
		want  []hcav1.ScheduleWindow
		back  []scheduleModel // what the API's answer (with its defaults) reads back as
		apied []hcav1.ScheduleWindow
	}{
		{"none stays unset", nil, nil, nil, nil},
		{"a zone and a duration in hours", []scheduleModel{berlin},
			[]hcav1.ScheduleWindow{{Name: "rush", Start: "45 7 * * MON-FRI", Duration: metav1.Duration{Duration: 3 * time.Hour}, TimeZone: "Europe/Berlin", MinReplicas: 10}},
			[]scheduleModel{berlin}, nil},
		{"the default zone is written as UTC; 90m keeps its spelling", []scheduleModel{utc},
			[]hcav1.ScheduleWindow{{Name: "batch", Start: "0 22 * * *", Duration: metav1.Duration{Duration: 90 * time.Minute}, TimeZone: "UTC", MinReplicas: 4}},
			[]scheduleModel{utc}, nil},
		{"a zone the API leaves empty reads as its default, UTC", []scheduleModel{utc},
			[]hcav1.ScheduleWindow{{Name: "batch", Start: "0 22 * * *", Duration: metav1.Duration{Duration: 90 * time.Minute}, TimeZone: "UTC", MinReplicas: 4}},
			[]scheduleModel{utc},
			[]hcav1.ScheduleWindow{{Name: "batch", Start: "0 22 * * *", Duration: metav1.Duration{Duration: 90 * time.Minute}, MinReplicas: 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schedulesToAPI(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("toAPI = %+v, want %+v", got, tt.want)
			}
			api := got
			if tt.apied != nil {
				api = tt.apied
			}
			if back := schedulesFromAPI(api, tt.in); !reflect.DeepEqual(back, tt.back) {
				t.Fatalf("fromAPI = %+v, want %+v", back, tt.back)
			}
		})
	}
	// Import (no prior): the zone the API holds is shown, durations in
	// the short form.
	imp := schedulesFromAPI([]hcav1.ScheduleWindow{{Name: "x", Start: "0 8 * * *", Duration: metav1.Duration{Duration: 90 * time.Minute}, TimeZone: "Asia/Tokyo", MinReplicas: 2}}, nil)
	if imp[0].TimeZone.ValueString() != "Asia/Tokyo" || imp[0].Duration.ValueString() != "1h30m" {
		t.Fatalf("import = %+v", imp[0])
	}
}

func TestValidateSchedules(t *testing.T) {
	w := func(name string, min int64) scheduleModel {
		return scheduleModel{Name: types.StringValue(name), Start: types.StringValue("0 8 * * *"), Duration: durationOf("1h"), MinReplicas: types.Int64Value(min)}
	}
	tests := []struct {
		name string
		ss   []scheduleModel
		max  types.Int64
		want []string
	}{
		{"fine", []scheduleModel{w("a", 5), w("b", 10)}, types.Int64Value(10), nil},
		{"floor above max", []scheduleModel{w("a", 11)}, types.Int64Value(10),
			[]string{"schedules[0].min_replicas (11) must be <= max_replicas (10): lower the window's floor or raise max_replicas."}},
		{"max unknown at plan time: no judgement", []scheduleModel{w("a", 11)}, types.Int64Unknown(), nil},
		{"duplicate names", []scheduleModel{w("a", 1), w("a", 2)}, types.Int64Value(10),
			[]string{`schedules[0] and schedules[1] are both named "a": give each window its own name.`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validateSchedules(tt.ss, tt.max)
			var got []string
			for _, e := range d.Errors() {
				got = append(got, e.Detail())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("errors %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCronAndTimeZoneValidators(t *testing.T) {
	tests := []struct {
		name, cron, zone string
		want             string // "" for valid
	}{
		{"valid", "0 8 * * MON-FRI", "Europe/Berlin", ""},
		{"six fields", "0 0 8 * * *", "UTC", `has 6 fields, want 5`},
		{"descriptor", "@daily", "UTC", `has 1 fields, want 5`},
		{"hour 24", "0 24 * * *", "UTC", "not a 5-field cron expression"},
		{"zone typo", "0 8 * * *", "Europe/Berlinn", `"Europe/Berlinn" is not an IANA time zone name`},
		{"Local", "0 8 * * *", "Local", "name an IANA zone"},
		{"empty zone", "0 8 * * *", "", "leave time_zone out for UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []string
			if d := validateStringWith(cronValidator{}, tt.cron); d != "" {
				msgs = append(msgs, d)
			}
			if d := validateStringWith(timeZoneValidator{}, tt.zone); d != "" {
				msgs = append(msgs, d)
			}
			got := strings.Join(msgs, "; ")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// validateStringWith runs a string validator on v at schedules[0] and
// returns its first error's detail ("" when valid).
func validateStringWith(v validator.String, s string) string {
	var resp validator.StringResponse
	v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("schedules").AtListIndex(0), ConfigValue: types.StringValue(s)}, &resp)
	if errs := resp.Diagnostics.Errors(); len(errs) > 0 {
		return errs[0].Detail()
	}
	return ""
}
