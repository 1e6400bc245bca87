package provider

import (
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The one shape of a status' conditions, in every resource and data source:
// a list sorted by type of {type, status, reason, message,
// last_transition_time}.

// conditionAttrs are the attributes of one element of a conditions list.
var conditionAttrs = map[string]attr.Type{
	"type": types.StringType, "status": types.StringType, "reason": types.StringType,
	"message": types.StringType, "last_transition_time": types.StringType,
}

// conditionDescriptions describe the attributes of one condition.
var conditionDescriptions = map[string]string{
	"type":                 "Condition type, such as `Ready`.",
	"status":               "`True`, `False` or `Unknown`.",
	"reason":               "Machine-readable reason of the last transition, in CamelCase.",
	"message":              "Human-readable details of the last transition.",
	"last_transition_time": "When the status last changed, in RFC 3339 (UTC), such as `2026-05-01T12:00:00Z`.",
}

// conditionsDescription describes a status' conditions; what lists their
// types (and what they tell).
func conditionsDescription(what string) string {
	return "Conditions of the status (" + what + "), sorted by `type`: `type`, `status` (`True`, " +
		"`False` or `Unknown`), `reason`, `message` and `last_transition_time` (RFC 3339). Empty until the runtime reports."
}

// conditionsDataSourceAttr is a data source's conditions attribute.
func conditionsDataSourceAttr(what string) dsschema.ListNestedAttribute {
	attrs := map[string]dsschema.Attribute{}
	for name, desc := range conditionDescriptions {
		attrs[name] = dsschema.StringAttribute{Computed: true, Description: desc}
	}
	return dsschema.ListNestedAttribute{Computed: true, Description: conditionsDescription(what),
		NestedObject: dsschema.NestedAttributeObject{Attributes: attrs}}
}

// conditionsResourceAttr is a resource's conditions attribute, with the
// resource's plan modifiers.
func conditionsResourceAttr(what string, mods ...planmodifier.List) schema.ListNestedAttribute {
	attrs := map[string]schema.Attribute{}
	for name, desc := range conditionDescriptions {
		attrs[name] = schema.StringAttribute{Computed: true, Description: desc}
	}
	return schema.ListNestedAttribute{Computed: true, Description: conditionsDescription(what),
		PlanModifiers: mods, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

// conditionsList renders conditions sorted by type.
func conditionsList(cs []metav1.Condition) types.List {
	sorted := append([]metav1.Condition(nil), cs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Type < sorted[j].Type })
	elems := make([]attr.Value, len(sorted))
	for i, c := range sorted {
		lt := types.StringValue("")
		if !c.LastTransitionTime.IsZero() {
			lt = types.StringValue(c.LastTransitionTime.UTC().Format(time.RFC3339))
		}
		elems[i] = types.ObjectValueMust(conditionAttrs, map[string]attr.Value{
			"type": types.StringValue(c.Type), "status": types.StringValue(string(c.Status)), "reason": types.StringValue(c.Reason),
			"message": types.StringValue(c.Message), "last_transition_time": lt,
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: conditionAttrs}, elems)
}
