package provider

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

var (
	_ resource.Resource                   = (*multiObjectiveStrategyResource)(nil)
	_ resource.ResourceWithConfigure      = (*multiObjectiveStrategyResource)(nil)
	_ resource.ResourceWithImportState    = (*multiObjectiveStrategyResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*multiObjectiveStrategyResource)(nil)
	_ resource.ResourceWithValidateConfig = (*multiObjectiveStrategyResource)(nil)
)

// NewMultiObjectiveStrategyResource returns the hca_multi_objective_strategy
// resource.
func NewMultiObjectiveStrategyResource() resource.Resource {
	return &multiObjectiveStrategyResource{}
}

type multiObjectiveStrategyResource struct {
	clients *Clients
}

type multiObjectiveModel struct {
	ID               types.String    `tfsdk:"id"`
	Name             types.String    `tfsdk:"name"`
	Namespace        types.String    `tfsdk:"namespace"`
	Target           *moTarget       `tfsdk:"target"`
	Container        types.String    `tfsdk:"container"`
	ModelFile        types.String    `tfsdk:"model_file"`
	ModelConfigMap   types.String    `tfsdk:"model_config_map"`
	ModelSHA256      types.String    `tfsdk:"model_sha256"`
	Desired          *moDesired      `tfsdk:"desired"`
	Ranges           *moRanges       `tfsdk:"ranges"`
	WeightPreset     types.String    `tfsdk:"weight_preset"`
	Weights          *moWeights      `tfsdk:"weights"`
	TolerancePercent types.Int64     `tfsdk:"tolerance_percent"`
	Interval         durationString  `tfsdk:"interval"`
	Cooldown         durationString  `tfsdk:"cooldown"`
	ResizePolicy     types.String    `tfsdk:"resize_policy"`
	Metrics          *moMetricsModel `tfsdk:"metrics"`
	Replicas         types.Int64     `tfsdk:"replicas"`
	CPU              types.String    `tfsdk:"cpu"`
	Memory           types.String    `tfsdk:"memory"`
	Chosen           types.Object    `tfsdk:"chosen"`
	Ready            types.Bool      `tfsdk:"ready"`
	Conditions       types.List      `tfsdk:"conditions"`
}

type moTarget struct {
	Name types.String `tfsdk:"name"`
}

type moDesired struct {
	ResponseTimeMs     types.Int64 `tfsdk:"response_time_ms"`
	CPUUsagePercent    types.Int64 `tfsdk:"cpu_usage_percent"`
	MemoryUsagePercent types.Int64 `tfsdk:"memory_usage_percent"`
}

type moRanges struct {
	MinCPU      types.String `tfsdk:"min_cpu"`
	MaxCPU      types.String `tfsdk:"max_cpu"`
	MinMemory   types.String `tfsdk:"min_memory"`
	MaxMemory   types.String `tfsdk:"max_memory"`
	MinReplicas types.Int64  `tfsdk:"min_replicas"`
	MaxReplicas types.Int64  `tfsdk:"max_replicas"`
}

type moWeights struct {
	ResponseTime types.Float64 `tfsdk:"response_time"`
	CPUUsage     types.Float64 `tfsdk:"cpu_usage"`
	MemoryUsage  types.Float64 `tfsdk:"memory_usage"`
	CPULimit     types.Float64 `tfsdk:"cpu_limit"`
	MemoryLimit  types.Float64 `tfsdk:"memory_limit"`
	Replicas     types.Float64 `tfsdk:"replicas"`
}

type moMetricsModel struct {
	RequestsPerSecond  types.String `tfsdk:"requests_per_second"`
	ResponseTimeMs     types.String `tfsdk:"response_time_ms"`
	CPUUsagePercent    types.String `tfsdk:"cpu_usage_percent"`
	MemoryUsagePercent types.String `tfsdk:"memory_usage_percent"`
}

// modelKey is the ConfigMap key the resource writes the model under.
const modelKey = "model.json"

// maxModelBytes keeps the model within a ConfigMap (1 MiB of data in all).
const maxModelBytes = 1 << 20

var moChosenAttrs = map[string]attr.Type{
	"cpu": types.StringType, "memory": types.StringType, "replicas": types.Int64Type,
	"from": types.StringType, "closeness": types.StringType, "predicted_response_time_ms": types.StringType,
}

func (r *multiObjectiveStrategyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_multi_objective_strategy"
}

func (r *multiObjectiveStrategyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	subdomain := []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE,
		"must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")}
	pct := func(desc string, def int64, why string) schema.Int64Attribute {
		return schema.Int64Attribute{CustomType: intType{}, Optional: true, Computed: true, Default: int64default.StaticInt64(def),
			Description: fmt.Sprintf("%s, 1 to 100. Defaults to %d (%s).", desc, def, why), Validators: []validator.Int64{int64validator.Between(1, 100)}}
	}
	weight := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Required: true, Description: "Weight of " + desc + ", >= 0.", Validators: []validator.Float64{float64validator.AtLeast(0)}}
	}
	query := func(what string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: "PromQL giving " + what + " as one sample; `$namespace` and `$name` stand for the target's (checked at plan time with Prometheus' parser, with them replaced). Unset: the lab's metric names (see the concepts guide).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1), promQLQuery{placeholders: true}}}
	}
	interval := durationAttr("Time between decisions, a Go duration. Defaults to `30s`.")
	interval.Computed, interval.Default = true, stringdefault.StaticString("30s")
	cooldown := durationAttr("Scale-down stabilisation: how long after a change no change lowers the capacity (the pods roll and the metrics settle); increases are made at once. A Go duration. Defaults to `2m`.")
	cooldown.Computed, cooldown.Default = true, stringdefault.StaticString("2m")
	resp.Schema = schema.Schema{
		Description: "Manages a MultiObjectiveElasticityStrategy (hca.dev/v1alpha1, MOHA) and the ConfigMap holding its performance model. " +
			"Every `interval` the runtime measures the target's request rate, response time and CPU and memory usage, builds the 12 " +
			"parameter variations of the MOHA paper around the current configuration, predicts each one's targets with the model " +
			"(`hca-runtime moha train`) and applies the TOPSIS winner: replicas and the container's CPU and memory together. " +
			"Import with `<namespace>/<name>` (then set `model_file`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "`<namespace>/<name>`; the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: subdomain,
				Description: "Name of the strategy, a DNS subdomain of 1 to 253 characters. Changing it replaces the resource."},
			"namespace": schema.StringAttribute{Required: true, PlanModifiers: replace,
				Description: "Namespace of the strategy, its target and its model ConfigMap in the control cluster; a DNS label (it must exist). Changing it replaces the resource.",
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit")}},
			"target": schema.SingleNestedAttribute{Required: true, Description: "The Deployment whose replicas and container resources change. With an `hca_burst_policy` (without `metrics`) on it, the replicas are the total across clusters: the strategy reads the policy's total and hands its decision to the policy, which bursts what the private cluster cannot hold (see \"MultiObjective with bursting\" in the concepts guide).",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, Validators: subdomain, Description: "Name of the Deployment, a DNS subdomain."},
				}},
			"container": schema.StringAttribute{Optional: true,
				Description: "Container whose CPU and memory limits (and requests, set equal) change, a DNS label. Unset: the first container.",
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label")}},
			"model_file": schema.StringAttribute{Required: true,
				Description: "Path of the model file written by `hca-runtime moha train` (JSON, at most 1 MiB). Checked at plan time; its content goes into the ConfigMap `model_config_map`, and a change of the content (`model_sha256`) updates it."},
			"model_config_map": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:  subdomain,
				Description: "Name of the ConfigMap the resource creates for the model (key `model.json`); it must not exist yet. Defaults to `<name>-moha-model`. Changing it replaces the resource."},
			"model_sha256": schema.StringAttribute{Computed: true,
				Description: "SHA-256 of the model in the ConfigMap (hex); a different `model_file` content, or a ConfigMap edited out of band, plans an update."},
			"desired": schema.SingleNestedAttribute{Required: true, Description: "The targets of the paper's eq. 1.",
				Attributes: map[string]schema.Attribute{
					"response_time_ms": schema.Int64Attribute{CustomType: intType{}, Required: true, Validators: []validator.Int64{int64validator.Between(1, math.MaxInt32)},
						Description: "Desired average response time in milliseconds, 1 or more."},
					"cpu_usage_percent":    pct("Desired CPU usage of a pod in % of its CPU limit", 85, "the paper's is 80; the strategy also keeps the predicted response time 20 % under the desired one"),
					"memory_usage_percent": pct("Desired memory usage of a pod in % of its memory limit", 80, "the paper's"),
				}},
			"ranges": schema.SingleNestedAttribute{Required: true, Description: "Bounds of the three parameters; each minimum at most its maximum.",
				Attributes: map[string]schema.Attribute{
					"min_cpu":    schema.StringAttribute{Required: true, Validators: []validator.String{positiveQuantity{}}, Description: "Smallest CPU limit, a quantity > 0 such as `300m`; at most `max_cpu`."},
					"max_cpu":    schema.StringAttribute{Required: true, Validators: []validator.String{positiveQuantity{}}, Description: "Largest CPU limit, a quantity such as `2`."},
					"min_memory": schema.StringAttribute{Required: true, Validators: []validator.String{positiveQuantity{}}, Description: "Smallest memory limit, a quantity > 0 such as `400Mi`; at most `max_memory`."},
					"max_memory": schema.StringAttribute{Required: true, Validators: []validator.String{positiveQuantity{}}, Description: "Largest memory limit, a quantity such as `2Gi`."},
					"min_replicas": schema.Int64Attribute{CustomType: intType{}, Optional: true, Computed: true, Default: int64default.StaticInt64(1),
						Validators: []validator.Int64{int64validator.Between(1, 1_000_000)}, Description: "Fewest replicas, 1 or more and at most `max_replicas`. Defaults to 1."},
					"max_replicas": schema.Int64Attribute{CustomType: intType{}, Required: true,
						Validators: []validator.Int64{int64validator.Between(1, 1_000_000)}, Description: "Most replicas, 1 to 1,000,000."},
				}},
			"weight_preset": schema.StringAttribute{Optional: true,
				Description: "One of the paper's TOPSIS weight sets: `Balanced` (response time 0.5, the five resource criteria 0.1 each), `ResponseTimeFirst` (0.9/0.02) or `ResourcesFirst` (0.1/0.18). Conflicts with `weights`; neither set: `Balanced`.",
				Validators:  []validator.String{stringvalidator.OneOf(string(hcav1.WeightsBalanced), string(hcav1.WeightsResponseTimeFirst), string(hcav1.WeightsResourcesFirst))}},
			"weights": schema.SingleNestedAttribute{Optional: true,
				Description: "Explicit TOPSIS weights, each >= 0, summing to exactly 1 as decimals (0.5 + 5 × 0.1). Conflicts with `weight_preset`.",
				Attributes: map[string]schema.Attribute{
					"response_time": weight("minimising the response time"),
					"cpu_usage":     weight("maximising the pods' CPU usage"),
					"memory_usage":  weight("maximising the pods' memory usage"),
					"cpu_limit":     weight("minimising the CPU limit; added to `memory_limit` as the weight of one criterion, the configuration's cost per hour (replicas × the pod's CPU and memory limits at the MOHA paper's prices)"),
					"memory_limit":  weight("minimising the memory limit; added to `cpu_limit` as the weight of the configuration's cost per hour"),
					"replicas":      weight("minimising the replicas"),
				}},
			"tolerance_percent": schema.Int64Attribute{CustomType: intType{}, Optional: true, Computed: true, Default: int64default.StaticInt64(10),
				Validators:  []validator.Int64{int64validator.Between(0, 100)},
				Description: "Band in percentage points around the desired usages within which, with the response time at most the desired one, nothing changes; 0 to 100. Defaults to 10 (the paper's 70-90 %)."},
			"interval": interval,
			"cooldown": cooldown,
			"resize_policy": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(string(scaling.ResizeRecreate)),
				Validators:  []validator.String{stringvalidator.OneOf(string(scaling.ResizeRecreate), string(scaling.ResizeInPlaceOrRecreate))},
				Description: "How a new pod size reaches the pods: `Recreate` (the default) patches the pod template, which rolls the pods; `InPlaceOrRecreate` resizes the running pods in place (the `pods/resize` subresource, Kubernetes 1.33 or later) without changing the template, resizes each new pod after it starts, and falls back to the rolling update where the cluster has no `pods/resize`, a BurstPolicy distributes the Deployment, or a pod's resize is refused, Infeasible, Deferred for more than 5 minutes or in progress for more than an hour."},
			"metrics": schema.SingleNestedAttribute{Optional: true, Description: "PromQL queries of the four measured inputs; each unset one uses the default.",
				Attributes: map[string]schema.Attribute{
					"requests_per_second":  query("the request rate"),
					"response_time_ms":     query("the average response time in milliseconds"),
					"cpu_usage_percent":    query("the pods' CPU usage in % of their CPU limit"),
					"memory_usage_percent": query("the pods' memory usage in % of their memory limit"),
				}},
			"replicas": schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Replicas after the runtime's last decision (0 before it decides)."},
			"cpu":      schema.StringAttribute{Computed: true, Description: "CPU limit after the runtime's last decision, or null."},
			"memory":   schema.StringAttribute{Computed: true, Description: "Memory limit after the runtime's last decision, or null."},
			"chosen": schema.SingleNestedAttribute{Computed: true, Description: "The best-ranked variation of the last ranking decision, or null.",
				Attributes: map[string]schema.Attribute{
					"cpu":                        schema.StringAttribute{Computed: true, Description: "Its CPU limit."},
					"memory":                     schema.StringAttribute{Computed: true, Description: "Its memory limit."},
					"replicas":                   schema.Int64Attribute{Computed: true, Description: "Its replicas."},
					"from":                       schema.StringAttribute{Computed: true, Description: "Which target eq. 1 computed CPU, memory and replicas from, e.g. `response_time/memory_usage/cpu_usage`; `load/load/load` for the fewest replicas the model predicts within the response-time limit, `range/range/load` for a pod size of the ranges' grid (each range's min, midpoint and max) with those replicas."},
					"closeness":                  schema.StringAttribute{Computed: true, Description: "Its TOPSIS closeness in [0, 1], a decimal."},
					"predicted_response_time_ms": schema.StringAttribute{Computed: true, Description: "The model's response time for it at the measured load."},
				}},
			"ready":      schema.BoolAttribute{Computed: true, Description: "Whether the runtime's `Ready` condition is True for the current spec; false before it decides."},
			"conditions": conditionsResourceAttr("`Ready` (reason: `Scaled`, `BestIsCurrent`, `WithinTargets`, `NoIncreaseNeeded`, `Settling`, `Cooldown`, `SmallGain`, `OverLimit`), `Degraded` (`TargetNotFound`, `ModelInvalid`, `MetricsUnavailable`, `InvalidState`)"),
		},
	}
	addQuantitySpelling(resp.Schema.Attributes)
}

func (r *multiObjectiveStrategyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

var multiObjectiveStrategies = customResource[hcav1.MultiObjectiveElasticityStrategy, *hcav1.MultiObjectiveElasticityStrategy]{
	kind: "MultiObjectiveElasticityStrategy", what: "multi-objective strategy", importExample: "terraform import hca_multi_objective_strategy.web shop/web",
	setSpec: func(dst, src *hcav1.MultiObjectiveElasticityStrategy) { dst.Spec = src.Spec },
}

func (r *multiObjectiveStrategyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan multiObjectiveModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	data, sum, err := readModelFile(plan.ModelFile.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("model_file"), "Error creating multi-objective strategy", err.Error())
		return
	}
	plan.ModelConfigMap = types.StringValue(plan.configMapName())
	cm := modelConfigMap(plan.Namespace.ValueString(), plan.ModelConfigMap.ValueString(), data)
	if err := c.Create(ctx, cm); err != nil {
		detail := fmt.Sprintf("Could not create the model ConfigMap %s/%s: %v.", cm.Namespace, cm.Name, err)
		if apierrors.IsAlreadyExists(err) {
			detail += " Set model_config_map to a name not in use, or delete that ConfigMap."
		} else {
			detail += " " + createHint(err, cm.Namespace, "namespace")
		}
		resp.Diagnostics.AddError("Error creating multi-objective strategy", detail)
		return
	}
	s, ok := multiObjectiveStrategies.create(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		// No orphan: the ConfigMap goes with the failed strategy.
		if err := c.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
			resp.Diagnostics.AddError("Error deleting model ConfigMap", fmt.Sprintf("The strategy was not created and the ConfigMap %s/%s could not be removed: %v. Delete it by hand.", cm.Namespace, cm.Name, err))
		}
		return
	}
	plan.ID = types.StringValue(s.Namespace + "/" + s.Name)
	plan.ModelSHA256 = types.StringValue(sum)
	plan.setStatus(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *multiObjectiveStrategyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state multiObjectiveModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, ok := multiObjectiveStrategies.read(ctx, r.clients, state.ID.ValueString(), &resp.State, &resp.Diagnostics)
	if !ok {
		return
	}
	next := multiObjectiveFromAPI(s, &state)
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	next.ModelSHA256 = types.StringValue("")
	var cm corev1.ConfigMap
	switch err := c.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: next.ModelConfigMap.ValueString()}, &cm); {
	case err == nil:
		if d, ok := cm.Data[modelKey]; ok {
			next.ModelSHA256 = types.StringValue(sha256Hex([]byte(d)))
		}
	case !apierrors.IsNotFound(err):
		resp.Diagnostics.AddError("Error reading multi-objective strategy", fmt.Sprintf("Could not read the model ConfigMap %s/%s: %v.", s.Namespace, next.ModelConfigMap.ValueString(), err))
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

func (r *multiObjectiveStrategyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan multiObjectiveModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	data, sum, err := readModelFile(plan.ModelFile.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("model_file"), "Error updating multi-objective strategy", err.Error())
		return
	}
	want := modelConfigMap(plan.Namespace.ValueString(), plan.configMapName(), data)
	var cm corev1.ConfigMap
	switch err := c.Get(ctx, client.ObjectKeyFromObject(want), &cm); {
	case apierrors.IsNotFound(err):
		err = c.Create(ctx, want)
		if err != nil {
			resp.Diagnostics.AddError("Error updating multi-objective strategy", fmt.Sprintf("Could not create the model ConfigMap %s/%s: %v.", want.Namespace, want.Name, err))
			return
		}
	case err != nil:
		resp.Diagnostics.AddError("Error updating multi-objective strategy", fmt.Sprintf("Could not read the model ConfigMap %s/%s: %v.", want.Namespace, want.Name, err))
		return
	default:
		cm.Data = want.Data
		if err := c.Update(ctx, &cm); err != nil {
			resp.Diagnostics.AddError("Error updating multi-objective strategy", fmt.Sprintf("Could not update the model ConfigMap %s/%s: %v.", want.Namespace, want.Name, err))
			return
		}
	}
	s, ok := multiObjectiveStrategies.update(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ModelSHA256 = types.StringValue(sum)
	plan.setStatus(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *multiObjectiveStrategyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state multiObjectiveModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	multiObjectiveStrategies.delete(ctx, r.clients, state.ID.ValueString(), time.Minute, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: state.Namespace.ValueString(), Name: state.configMapName()}}
	if err := c.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
		resp.Diagnostics.AddError("Error deleting multi-objective strategy", fmt.Sprintf("The strategy is gone but its model ConfigMap %s/%s could not be deleted: %v.", cm.Namespace, cm.Name, err))
	}
}

func (r *multiObjectiveStrategyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	multiObjectiveStrategies.importState(ctx, req, resp)
}

// ModifyPlan plans the model's hash from model_file, so that a new model
// content is an update, and no change when nothing else differs.
func (r *multiObjectiveStrategyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var file types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("model_file"), &file)...)
	if file.IsNull() || file.IsUnknown() {
		return
	}
	if _, sum, err := readModelFile(file.ValueString()); err == nil {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("model_sha256"), types.StringValue(sum))...)
	}
	planUnchangedAsState(req, resp)
}

// ValidateConfig checks at plan time what the CRD's CEL rules check, and the
// model file.
func (r *multiObjectiveStrategyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m multiObjectiveModel
	if diags := req.Config.Get(ctx, &m); diags.HasError() {
		return
	}
	resp.Diagnostics.Append(validateMultiObjective(&m)...)
	if isKnown(m.ModelFile) {
		if _, _, err := readModelFile(m.ModelFile.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("model_file"), "Invalid model_file", err.Error())
		}
	}
}

func isKnown(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// validateMultiObjective mirrors the MultiObjectiveElasticityStrategy's CEL
// rules for the values known at plan time.
func validateMultiObjective(m *multiObjectiveModel) diag.Diagnostics {
	return validateMOStatic(path.Empty(), "", m.Ranges, m.WeightPreset, m.Weights)
}

// validateMOStatic checks the MultiObjective strategy's cross-field rules
// (ranges min <= max, weights summing to 1, weights or a preset) under root,
// whose attributes the messages name with prefix ("" for the resource's own,
// "elasticity_strategy.multi_objective." in an hca_slo).
func validateMOStatic(root path.Path, prefix string, rg *moRanges, preset types.String, weights *moWeights) diag.Diagnostics {
	var d diag.Diagnostics
	at := func(name string) path.Path {
		if prefix == "" {
			return path.Root(name)
		}
		return root.AtName(name)
	}
	if rg != nil {
		for _, p := range []struct {
			lo, hi         types.String
			loName, hiName string
		}{
			{rg.MinCPU, rg.MaxCPU, "min_cpu", "max_cpu"}, {rg.MinMemory, rg.MaxMemory, "min_memory", "max_memory"},
		} {
			if !isKnown(p.lo) || !isKnown(p.hi) {
				continue
			}
			lo, err1 := kresource.ParseQuantity(p.lo.ValueString())
			hi, err2 := kresource.ParseQuantity(p.hi.ValueString())
			if err1 == nil && err2 == nil && lo.Cmp(hi) > 0 {
				d.AddAttributeError(at("ranges").AtName(p.loName), "Invalid "+prefix+"ranges",
					fmt.Sprintf("%sranges.%s (%s) must be <= %sranges.%s (%s).", prefix, p.loName, p.lo.ValueString(), prefix, p.hiName, p.hi.ValueString()))
			}
		}
		if isKnown(rg.MaxReplicas) && !rg.MinReplicas.IsUnknown() {
			lo := int64(1)
			if isKnown(rg.MinReplicas) {
				lo = rg.MinReplicas.ValueInt64()
			}
			if lo > rg.MaxReplicas.ValueInt64() {
				d.AddAttributeError(at("ranges").AtName("min_replicas"), "Invalid "+prefix+"ranges",
					fmt.Sprintf("%sranges.min_replicas (%d) must be <= %sranges.max_replicas (%d).", prefix, lo, prefix, rg.MaxReplicas.ValueInt64()))
			}
		}
	}
	if weights != nil && isKnown(preset) {
		d.AddAttributeError(at("weight_preset"), "Conflicting weights", fmt.Sprintf("Set %sweights or %sweight_preset, not both.", prefix, prefix))
	}
	if w := weights; w != nil {
		vals := []types.Float64{w.ResponseTime, w.CPUUsage, w.MemoryUsage, w.CPULimit, w.MemoryLimit, w.Replicas}
		sum, all := kresource.MustParse("0"), true
		var parts []string
		for _, v := range vals {
			if !isKnown(v) {
				all = false
				break
			}
			s := strconv.FormatFloat(v.ValueFloat64(), 'f', -1, 64)
			q, err := kresource.ParseQuantity(s)
			if err != nil {
				all = false
				break
			}
			sum.Add(q)
			parts = append(parts, s)
		}
		if all && sum.Cmp(kresource.MustParse("1")) != 0 {
			d.AddAttributeError(at("weights"), "Invalid "+prefix+"weights",
				fmt.Sprintf("The %sweights must sum to exactly 1; response_time + cpu_usage + memory_usage + cpu_limit + memory_limit + replicas = %v = %s. Adjust them, or use %sweight_preset.", prefix,
					joinPlus(parts), sum.AsDec().String(), prefix))
		}
	}
	return d
}

func joinPlus(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// readModelFile reads and checks a model file; it returns its content and
// SHA-256.
func readModelFile(p string) (data []byte, sum string, err error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read the model file: %w; write it with `hca-runtime moha train --out %s`", err, p)
	}
	if fi.Size() > maxModelBytes {
		return nil, "", fmt.Errorf("the model file %s has %d bytes, more than a ConfigMap holds (%d): train a smaller model (fewer samples for svr, or mlp)", p, fi.Size(), maxModelBytes)
	}
	data, err = os.ReadFile(p)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read the model file: %w", err)
	}
	if _, err := moha.Load(bytes.NewReader(data)); err != nil {
		return nil, "", fmt.Errorf("%s is not a model file of `hca-runtime moha train`: %w", p, err)
	}
	return data, sha256Hex(data), nil
}

func modelConfigMap(ns, name string, data []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app.kubernetes.io/managed-by": "terraform-provider-hca"}},
		Data:       map[string]string{modelKey: string(data)},
	}
}

// configMapName is model_config_map or its default.
func (m *multiObjectiveModel) configMapName() string {
	if isKnown(m.ModelConfigMap) {
		return m.ModelConfigMap.ValueString()
	}
	return m.Name.ValueString() + "-moha-model"
}

// toAPI converts the model to a MultiObjectiveElasticityStrategy; unset
// optional fields stay unset for the API server's defaults.
func (m *multiObjectiveModel) toAPI() (*hcav1.MultiObjectiveElasticityStrategy, error) {
	s := &hcav1.MultiObjectiveElasticityStrategy{
		TypeMeta:   metav1.TypeMeta{APIVersion: hcav1.GroupVersion.String(), Kind: "MultiObjectiveElasticityStrategy"},
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()},
	}
	sp := &s.Spec
	if m.Target != nil {
		sp.Target = hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: hcav1.ObjectName(m.Target.Name.ValueString())}
	}
	sp.Container = m.Container.ValueString()
	sp.Model = hcav1.MultiObjectiveModelRef{ConfigMapName: hcav1.ObjectName(m.configMapName()), Key: modelKey}
	if d := m.Desired; d != nil {
		sp.Desired = hcav1.MultiObjectiveDesired{ResponseTimeMillis: int32(d.ResponseTimeMs.ValueInt64()),
			MultiObjectiveDesiredUsage: hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: int32(d.CPUUsagePercent.ValueInt64()), MemoryUsagePercent: int32(d.MemoryUsagePercent.ValueInt64())}}
	}
	if rg := m.Ranges; rg != nil {
		var err error
		q := func(v types.String, name string) kresource.Quantity {
			if err != nil {
				return kresource.Quantity{}
			}
			var p *kresource.Quantity
			if p, err = quantityPtr(v, "ranges."+name); err != nil || p == nil {
				return kresource.Quantity{}
			}
			return *p
		}
		sp.Ranges = hcav1.MultiObjectiveRanges{MinCPU: q(rg.MinCPU, "min_cpu"), MaxCPU: q(rg.MaxCPU, "max_cpu"),
			MinMemory: q(rg.MinMemory, "min_memory"), MaxMemory: q(rg.MaxMemory, "max_memory"),
			MinReplicas: int32(rg.MinReplicas.ValueInt64()), MaxReplicas: int32(rg.MaxReplicas.ValueInt64())}
		if err != nil {
			return nil, err
		}
	}
	sp.WeightPreset = hcav1.WeightPreset(m.WeightPreset.ValueString())
	if w := m.Weights; w != nil {
		q := func(v types.Float64) kresource.Quantity {
			return kresource.MustParse(strconv.FormatFloat(v.ValueFloat64(), 'f', -1, 64))
		}
		sp.Weights = &hcav1.MultiObjectiveWeights{ResponseTime: q(w.ResponseTime), CPUUsage: q(w.CPUUsage), MemoryUsage: q(w.MemoryUsage),
			CPULimit: q(w.CPULimit), MemoryLimit: q(w.MemoryLimit), Replicas: q(w.Replicas)}
	}
	sp.TolerancePercent = int32(m.TolerancePercent.ValueInt64())
	var err error
	if sp.Interval, err = durationPtr(m.Interval, "interval"); err != nil {
		return nil, err
	}
	if sp.Cooldown, err = durationPtr(m.Cooldown, "cooldown"); err != nil {
		return nil, err
	}
	sp.ResizePolicy = m.ResizePolicy.ValueString()
	if mt := m.Metrics; mt != nil {
		sp.Metrics = &hcav1.MultiObjectiveMetrics{RequestsPerSecond: mt.RequestsPerSecond.ValueString(), ResponseTimeMillis: mt.ResponseTimeMs.ValueString(),
			CPUUsagePercent: mt.CPUUsagePercent.ValueString(), MemoryUsagePercent: mt.MemoryUsagePercent.ValueString()}
	}
	return s, nil
}

// multiObjectiveFromAPI converts a strategy to the model; prior is the state
// it refreshes (model_file and the spelling of quantities and durations are
// kept from it).
func multiObjectiveFromAPI(s *hcav1.MultiObjectiveElasticityStrategy, prior *multiObjectiveModel) multiObjectiveModel {
	if prior == nil {
		prior = &multiObjectiveModel{}
	}
	sp := s.Spec
	m := multiObjectiveModel{
		ID: types.StringValue(s.Namespace + "/" + s.Name), Name: types.StringValue(s.Name), Namespace: types.StringValue(s.Namespace),
		Target:           &moTarget{Name: types.StringValue(string(sp.Target.Name))},
		Container:        types.StringNull(),
		ModelFile:        prior.ModelFile,
		ModelConfigMap:   types.StringValue(string(sp.Model.ConfigMapName)),
		ModelSHA256:      prior.ModelSHA256,
		WeightPreset:     types.StringNull(),
		TolerancePercent: types.Int64Value(int64(sp.TolerancePercent)),
		Interval:         keepDuration(prior.Interval, sp.Interval, ""),
		Cooldown:         keepDuration(prior.Cooldown, sp.Cooldown, ""),
		ResizePolicy:     types.StringValue(string(scaling.ResizeRecreate)),
	}
	if sp.ResizePolicy != "" {
		m.ResizePolicy = types.StringValue(sp.ResizePolicy)
	}
	if sp.Container != "" {
		m.Container = types.StringValue(sp.Container)
	}
	if sp.WeightPreset != "" {
		m.WeightPreset = types.StringValue(string(sp.WeightPreset))
	}
	pct := func(v int32) types.Int64 {
		if v == 0 {
			v = 80
		}
		return types.Int64Value(int64(v))
	}
	m.Desired = &moDesired{ResponseTimeMs: types.Int64Value(int64(sp.Desired.ResponseTimeMillis)), CPUUsagePercent: pct(sp.Desired.CPUUsagePercent), MemoryUsagePercent: pct(sp.Desired.MemoryUsagePercent)}
	var pr moRanges
	if prior.Ranges != nil {
		pr = *prior.Ranges
	}
	rg := sp.Ranges
	m.Ranges = &moRanges{MinCPU: keepQuantity(pr.MinCPU, &rg.MinCPU), MaxCPU: keepQuantity(pr.MaxCPU, &rg.MaxCPU),
		MinMemory: keepQuantity(pr.MinMemory, &rg.MinMemory), MaxMemory: keepQuantity(pr.MaxMemory, &rg.MaxMemory),
		MinReplicas: types.Int64Value(int64(max(rg.MinReplicas, 1))), MaxReplicas: types.Int64Value(int64(rg.MaxReplicas))}
	if w := sp.Weights; w != nil {
		m.Weights = moWeightsFrom(w)
	}
	if mt := sp.Metrics; mt != nil {
		m.Metrics = moMetricsFrom(mt)
	}
	m.setStatus(s)
	return m
}

// setStatus sets the computed status attributes from the strategy.
func (m *multiObjectiveModel) setStatus(s *hcav1.MultiObjectiveElasticityStrategy) {
	st := s.Status
	m.Replicas = types.Int64Value(int64(st.Replicas))
	m.CPU, m.Memory = types.StringNull(), types.StringNull()
	if st.CPU != nil {
		m.CPU = types.StringValue(st.CPU.String())
	}
	if st.Memory != nil {
		m.Memory = types.StringValue(st.Memory.String())
	}
	m.Chosen = types.ObjectNull(moChosenAttrs)
	if c := st.Chosen; c != nil {
		m.Chosen = types.ObjectValueMust(moChosenAttrs, map[string]attr.Value{
			"cpu": types.StringValue(c.CPU.String()), "memory": types.StringValue(c.Memory.String()), "replicas": types.Int64Value(int64(c.Replicas)),
			"from": types.StringValue(c.From), "closeness": types.StringValue(c.Closeness), "predicted_response_time_ms": types.StringValue(c.PredictedResponseTimeMillis),
		})
	}
	ready := meta.FindStatusCondition(st.Conditions, hcav1.ConditionReady)
	m.Ready = types.BoolValue(ready != nil && ready.Status == metav1.ConditionTrue && (ready.ObservedGeneration == 0 || ready.ObservedGeneration == s.Generation))
	m.Conditions = conditionsList(st.Conditions)
}

// moWeightsFrom is the Terraform form of the API's TOPSIS weights (each
// quantity as the float it spells, approximated only when it does not parse).
func moWeightsFrom(w *hcav1.MultiObjectiveWeights) *moWeights {
	f := func(q kresource.Quantity) types.Float64 {
		v, err := strconv.ParseFloat(q.AsDec().String(), 64)
		if err != nil {
			v = q.AsApproximateFloat64()
		}
		return types.Float64Value(v)
	}
	return &moWeights{ResponseTime: f(w.ResponseTime), CPUUsage: f(w.CPUUsage), MemoryUsage: f(w.MemoryUsage),
		CPULimit: f(w.CPULimit), MemoryLimit: f(w.MemoryLimit), Replicas: f(w.Replicas)}
}

// moMetricsFrom is the Terraform form of the API's metric queries (an empty
// query: null, the runtime's default).
func moMetricsFrom(mt *hcav1.MultiObjectiveMetrics) *moMetricsModel {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	return &moMetricsModel{RequestsPerSecond: str(mt.RequestsPerSecond), ResponseTimeMs: str(mt.ResponseTimeMillis),
		CPUUsagePercent: str(mt.CPUUsagePercent), MemoryUsagePercent: str(mt.MemoryUsagePercent)}
}
