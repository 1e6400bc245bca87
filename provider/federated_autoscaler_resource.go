package provider

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

var (
	_ resource.Resource                   = (*federatedAutoscalerResource)(nil)
	_ resource.ResourceWithConfigure      = (*federatedAutoscalerResource)(nil)
	_ resource.ResourceWithImportState    = (*federatedAutoscalerResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*federatedAutoscalerResource)(nil)
	_ resource.ResourceWithValidateConfig = (*federatedAutoscalerResource)(nil)
)

// NewFederatedAutoscalerResource returns the hca_federated_autoscaler resource.
func NewFederatedAutoscalerResource() resource.Resource {
	return &federatedAutoscalerResource{}
}

type federatedAutoscalerResource struct {
	clients *Clients
}

type federatedAutoscalerModel struct {
	ID                   types.String    `tfsdk:"id"`
	Name                 types.String    `tfsdk:"name"`
	Namespace            types.String    `tfsdk:"namespace"`
	Target               *faTarget       `tfsdk:"target"`
	Members              []faMember      `tfsdk:"members"`
	MinReplicas          types.Int64     `tfsdk:"min_replicas"`
	MaxReplicas          types.Int64     `tfsdk:"max_replicas"`
	Metrics              []bpMetric      `tfsdk:"metrics"`
	ScaleForbiddenWindow durationString  `tfsdk:"scale_forbidden_window"`
	Schedules            []scheduleModel `tfsdk:"schedules"`
	CurrentReplicas      types.Int64     `tfsdk:"current_replicas"`
	DesiredReplicas      types.Int64     `tfsdk:"desired_replicas"`
	Clusters             types.List      `tfsdk:"clusters"`
	Ready                types.Bool      `tfsdk:"ready"`
	Conditions           types.List      `tfsdk:"conditions"`
	Timeouts             timeouts.Value  `tfsdk:"timeouts"`
}

type faTarget struct {
	Kind types.String `tfsdk:"kind"`
	Name types.String `tfsdk:"name"`
}

type faMember struct {
	Cluster types.String `tfsdk:"cluster"`
}

// defaultFederatedAutoscalerDeleteTimeout bounds the wait for the runtime's
// finalizer, which deletes the member HPAs before the object goes.
const defaultFederatedAutoscalerDeleteTimeout = 5 * time.Minute

var (
	faClusterAttrs = map[string]attr.Type{"cluster": types.StringType, "min_replicas": types.Int64Type, "max_replicas": types.Int64Type,
		"current_replicas": types.Int64Type, "desired_replicas": types.Int64Type, "last_scale_time": types.StringType}
)

func (r *federatedAutoscalerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federated_autoscaler"
}

func (r *federatedAutoscalerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	subdomain := []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE,
		"must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")}
	window := durationAttr("How long after a member's last scale its partition is left alone by rebalancing, a Go duration (`0s`: rebalance at once). Defaults to `1m`.")
	window.Computed = true
	window.Default = stringdefault.StaticString("1m")
	resp.Schema = schema.Schema{
		Description: "Manages a FederatedAutoscaler (hca.dev/v1alpha1) in the control cluster: one replica range over a " +
			"workload deployed under the same name in several member clusters. The runtime partitions `min_replicas` " +
			"and `max_replicas` over the members and keeps an autoscaling/v2 HPA with its partition in each, so that " +
			"scaling goes on in every member while the runtime is down. Every field of the API is an argument, checked " +
			"at plan time with the API's own rules. Import with `<namespace>/<name>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "`<namespace>/<name>`; the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the FederatedAutoscaler, a DNS subdomain of 1 to 253 characters. Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators:    subdomain,
			},
			"namespace": schema.StringAttribute{
				Required:      true,
				Description:   "Namespace of the FederatedAutoscaler in the control cluster, and of the workload and its HPAs in every member; a DNS label (it must exist in the control cluster). Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit")},
			},
			"target": schema.SingleNestedAttribute{
				Required:    true,
				Description: "The workload (apps/v1), deployed under the same name and namespace in every member.",
				Attributes: map[string]schema.Attribute{
					"kind": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString("Deployment"),
						Description: "`Deployment` or `StatefulSet`. Defaults to `Deployment`.",
						Validators:  []validator.String{stringvalidator.OneOf("Deployment", "StatefulSet")},
					},
					"name": schema.StringAttribute{
						Required: true,
						Description: "Name of the workload, a DNS subdomain of 1 to 253 characters; the member HPAs carry it too. Changing it " +
							"replaces the resource, so that the runtime deletes the HPAs of the old name.",
						PlanModifiers: replace,
						Validators:    subdomain,
					},
				},
			},
			"members": schema.ListNestedAttribute{
				Required:    true,
				Description: "1 to 32 HybridClusters the workload runs in, each at most once; at most `max_replicas` of them. Removing a member deletes its HPA.",
				Validators:  []validator.List{listvalidator.SizeBetween(1, 32)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cluster": schema.StringAttribute{Required: true, Description: "Name of the HybridCluster, a DNS subdomain.", Validators: subdomain},
				}},
			},
			"min_replicas": schema.Int64Attribute{
				CustomType: intType{},
				Optional:   true, Computed: true, Default: int64default.StaticInt64(1),
				Description: "Fewest replicas over all members, 1 or more and at most `max_replicas`. Defaults to 1.",
				Validators:  []validator.Int64{int64validator.Between(1, math.MaxInt32)},
			},
			"max_replicas": schema.Int64Attribute{
				CustomType:  intType{},
				Required:    true,
				Description: "Most replicas over all members, 1 or more and at least the number of members (each member's HPA needs a maximum of 1 or more).",
				Validators:  []validator.Int64{int64validator.Between(1, math.MaxInt32)},
			},
			"metrics": metricsAttr("1 to 10 metrics of the members' HPAs; the largest proposal wins. Only type `Resource`: each member's "+
				"autoscaling/v2 HPA evaluates them without Prometheus (use `hca_burst_policy` for PromQL). Unset: CPU at 80 % of requests (the API's default).",
				"`Resource` (set `resource`). `PromQL` has the same shape as in `hca_burst_policy` but is rejected here."),
			"scale_forbidden_window": window,
			"schedules":              schedulesAttr("`min_replicas` over all members to its `min_replicas`; it is in force from each `start` for `duration` (the members' HPAs start the replicas, so no lead time is added)"),
			"current_replicas": schema.Int64Attribute{
				CustomType:    intType{},
				Computed:      true,
				Description:   "Current replicas over all members, as the runtime last reported (0 before it acts).",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"desired_replicas": schema.Int64Attribute{
				CustomType:    intType{},
				Computed:      true,
				Description:   "Desired replicas over all members, as the runtime last reported (0 before it acts).",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"clusters": schema.ListNestedAttribute{
				Computed:    true,
				Description: "Each member's partition and replicas as the runtime last applied them, in the order of `members` (then members being removed); empty before the runtime acts.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cluster":          schema.StringAttribute{Computed: true, Description: "HybridCluster name."},
					"min_replicas":     schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "The member HPA's minReplicas (0: the workload is not placed there)."},
					"max_replicas":     schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "The member HPA's maxReplicas."},
					"current_replicas": schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Current replicas reported by the member HPA."},
					"desired_replicas": schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Desired replicas reported by the member HPA."},
					"last_scale_time":  schema.StringAttribute{Computed: true, Description: "When the member HPA last scaled (RFC 3339), or null."},
				}},
			},
			"ready": schema.BoolAttribute{
				Computed:      true,
				Description:   "Whether the runtime's `Ready` condition is True for the current spec (every member's HPA carries its partition); false before the runtime acts.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"conditions": conditionsResourceAttr("`Ready`, `Degraded`; `Degraded` says which member could not be updated and why"),
			"timeouts": timeoutsAttr(ctx, map[string]string{
				"delete": "the FederatedAutoscaler to be gone (default `5m`): while the runtime is installed its finalizer first deletes the member HPAs, and waits while a member cannot be reached",
			}),
		},
	}
	addQuantitySpelling(resp.Schema.Attributes)
}

func (r *federatedAutoscalerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

// federatedAutoscalers does the hca_federated_autoscaler's API calls.
var federatedAutoscalers = customResource[hcav1.FederatedAutoscaler, *hcav1.FederatedAutoscaler]{
	kind: "FederatedAutoscaler", what: "federated autoscaler", importExample: "terraform import hca_federated_autoscaler.web shop/web",
	setSpec: func(dst, src *hcav1.FederatedAutoscaler) { dst.Spec = src.Spec },
	deleteHint: func(fa *hcav1.FederatedAutoscaler) string {
		hint := ""
		if d := meta.FindStatusCondition(fa.Status.Conditions, hcav1.ConditionDegraded); d != nil && d.Status == metav1.ConditionTrue {
			hint = " The runtime reports: " + d.Message + "."
		}
		return hint + " The runtime deletes the member HPAs before it lets the object go: make the members reachable, or raise timeouts.delete."
	},
}

func (r *federatedAutoscalerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan federatedAutoscalerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fa, ok := federatedAutoscalers.create(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = types.StringValue(fa.Namespace + "/" + fa.Name)
	plan.setStatus(fa, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *federatedAutoscalerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state federatedAutoscalerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fa, ok := federatedAutoscalers.read(ctx, r.clients, state.ID.ValueString(), &resp.State, &resp.Diagnostics)
	if !ok {
		return
	}
	next := federatedAutoscalerFromAPI(fa, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

func (r *federatedAutoscalerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan federatedAutoscalerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fa, ok := federatedAutoscalers.update(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.setStatus(fa, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *federatedAutoscalerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federatedAutoscalerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultFederatedAutoscalerDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	federatedAutoscalers.delete(ctx, r.clients, state.ID.ValueString(), timeout, &resp.Diagnostics)
}

func (r *federatedAutoscalerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	federatedAutoscalers.importState(ctx, req, resp)
}

// ModifyPlan plans no change when only values left unknown differ from the
// state (planUnchangedAsState).
func (r *federatedAutoscalerResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	planUnchangedAsState(req, resp)
}

// ValidateConfig checks the FederatedAutoscaler's cross-field (CEL) rules at
// plan time.
func (r *federatedAutoscalerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m federatedAutoscalerModel
	if diags := req.Config.Get(ctx, &m); diags.HasError() {
		// A list or nested object not known yet: the API checks it at apply.
		return
	}
	resp.Diagnostics.Append(validateFederatedAutoscaler(&m)...)
}

// validateFederatedAutoscaler mirrors the CEL rules of the FederatedAutoscaler
// CRD (and its members' map-list uniqueness), for the values known at plan
// time. A null min_replicas is the default 1.
func validateFederatedAutoscaler(m *federatedAutoscalerModel) diag.Diagnostics {
	var d diag.Diagnostics
	known := func(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
	if known(m.MaxReplicas) {
		maxR := m.MaxReplicas.ValueInt64()
		if known(m.MinReplicas) && m.MinReplicas.ValueInt64() > maxR {
			d.AddAttributeError(path.Root("min_replicas"), "Invalid min_replicas",
				fmt.Sprintf("min_replicas (%d) must be <= max_replicas (%d).", m.MinReplicas.ValueInt64(), maxR))
		}
		if m.Members != nil && int64(len(m.Members)) > maxR {
			d.AddAttributeError(path.Root("max_replicas"), "Invalid max_replicas",
				fmt.Sprintf("max_replicas (%d) must be at least the number of members (%d): each member's HPA needs max_replicas >= 1; raise max_replicas or list fewer members.", maxR, len(m.Members)))
		}
	}
	seen := map[string]int{}
	for i, mb := range m.Members {
		if !known(mb.Cluster) {
			continue
		}
		c := mb.Cluster.ValueString()
		if j, dup := seen[c]; dup {
			d.AddAttributeError(path.Root("members").AtListIndex(i).AtName("cluster"), "Invalid members",
				fmt.Sprintf("members[%d] and members[%d] both name cluster %q: list each cluster once.", j, i, c))
			continue
		}
		seen[c] = i
	}
	d.Append(validateMetrics(m.Metrics)...)
	d.Append(validateSchedules(m.Schedules, m.MaxReplicas)...)
	for i, mt := range m.Metrics {
		if known(mt.Type) && mt.Type.ValueString() != string(hcav1.MetricResource) {
			d.AddAttributeError(path.Root("metrics").AtListIndex(i).AtName("type"), "Invalid metrics",
				fmt.Sprintf("metrics[%d]: only type Resource is supported, because each member's autoscaling/v2 HPA evaluates them without Prometheus; use resource (cpu or memory), or hca_burst_policy for a PromQL metric.", i))
		}
	}
	return d
}

// toAPI converts the model to a FederatedAutoscaler; unset optional fields
// stay unset so that the API server applies its defaults.
func (m *federatedAutoscalerModel) toAPI() (*hcav1.FederatedAutoscaler, error) {
	fa := &hcav1.FederatedAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: hcav1.GroupVersion.String(), Kind: "FederatedAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()},
	}
	s := &fa.Spec
	if m.Target != nil {
		s.Target = hcav1.TargetRef{Kind: hcav1.WorkloadKind(m.Target.Kind.ValueString()), Name: hcav1.ObjectName(m.Target.Name.ValueString())}
	}
	for _, mb := range m.Members {
		s.Members = append(s.Members, hcav1.FederatedMember{Cluster: hcav1.ClusterName(mb.Cluster.ValueString())})
	}
	s.MinReplicas = int32(m.MinReplicas.ValueInt64())
	s.MaxReplicas = int32(m.MaxReplicas.ValueInt64())
	var err error
	if s.Metrics, err = metricsToAPI(m.Metrics); err != nil {
		return nil, err
	}
	if s.Schedules, err = schedulesToAPI(m.Schedules); err != nil {
		return nil, err
	}
	if s.ScaleForbiddenWindow, err = durationPtr(m.ScaleForbiddenWindow, "scale_forbidden_window"); err != nil {
		return nil, err
	}
	return fa, nil
}

// federatedAutoscalerFromAPI converts a FederatedAutoscaler to the model.
// prior is the state (or the plan) it refreshes: metrics unset there stay
// unset while the API holds its default, and the window keeps prior's
// spelling when equal ("1m" and "60s").
func federatedAutoscalerFromAPI(fa *hcav1.FederatedAutoscaler, prior *federatedAutoscalerModel) federatedAutoscalerModel {
	if prior == nil {
		prior = &federatedAutoscalerModel{}
	}
	s := fa.Spec
	m := federatedAutoscalerModel{
		ID:                   types.StringValue(fa.Namespace + "/" + fa.Name),
		Name:                 types.StringValue(fa.Name),
		Namespace:            types.StringValue(fa.Namespace),
		Target:               &faTarget{Kind: types.StringValue(string(s.Target.Kind)), Name: types.StringValue(string(s.Target.Name))},
		MinReplicas:          types.Int64Value(int64(s.MinReplicas)),
		MaxReplicas:          types.Int64Value(int64(s.MaxReplicas)),
		Metrics:              metricsFromAPI(s.Metrics, prior.Metrics),
		ScaleForbiddenWindow: keepDuration(prior.ScaleForbiddenWindow, s.ScaleForbiddenWindow, ""),
		Schedules:            schedulesFromAPI(s.Schedules, prior.Schedules),
		Timeouts:             prior.Timeouts,
	}
	if s.Target.Kind == "" {
		m.Target.Kind = types.StringValue(string(hcav1.WorkloadDeployment))
	}
	if s.MinReplicas == 0 {
		m.MinReplicas = types.Int64Value(1)
	}
	if m.ScaleForbiddenWindow.IsNull() {
		m.ScaleForbiddenWindow = durationOf("1m")
	}
	for _, mb := range s.Members {
		m.Members = append(m.Members, faMember{Cluster: types.StringValue(string(mb.Cluster))})
	}
	m.setStatus(fa, false)
	return m
}

// setStatus sets the status attributes from fa; with onlyUnknown, only those
// the plan left unknown.
func (m *federatedAutoscalerModel) setStatus(fa *hcav1.FederatedAutoscaler, onlyUnknown bool) {
	st := fa.Status
	if !onlyUnknown || m.CurrentReplicas.IsUnknown() {
		m.CurrentReplicas = types.Int64Value(int64(st.CurrentReplicas))
	}
	if !onlyUnknown || m.DesiredReplicas.IsUnknown() {
		m.DesiredReplicas = types.Int64Value(int64(st.DesiredReplicas))
	}
	if !onlyUnknown || m.Ready.IsUnknown() {
		ready := meta.FindStatusCondition(st.Conditions, hcav1.ConditionReady)
		m.Ready = types.BoolValue(ready != nil && ready.Status == metav1.ConditionTrue &&
			(ready.ObservedGeneration == 0 || ready.ObservedGeneration == fa.Generation))
	}
	if !onlyUnknown || m.Clusters.IsUnknown() {
		elems := make([]attr.Value, len(st.Clusters))
		for i, c := range st.Clusters {
			last := types.StringNull()
			if c.LastScaleTime != nil {
				last = types.StringValue(c.LastScaleTime.UTC().Format(time.RFC3339))
			}
			elems[i] = types.ObjectValueMust(faClusterAttrs, map[string]attr.Value{"cluster": types.StringValue(string(c.Cluster)),
				"min_replicas": types.Int64Value(int64(c.MinReplicas)), "max_replicas": types.Int64Value(int64(c.MaxReplicas)),
				"current_replicas": types.Int64Value(int64(c.CurrentReplicas)), "desired_replicas": types.Int64Value(int64(c.DesiredReplicas)),
				"last_scale_time": last})
		}
		m.Clusters = types.ListValueMust(types.ObjectType{AttrTypes: faClusterAttrs}, elems)
	}
	if !onlyUnknown || m.Conditions.IsUnknown() {
		m.Conditions = conditionsList(st.Conditions)
	}
}
