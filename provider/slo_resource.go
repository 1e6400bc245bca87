package provider

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

var (
	_ resource.Resource                   = (*sloResource)(nil)
	_ resource.ResourceWithConfigure      = (*sloResource)(nil)
	_ resource.ResourceWithImportState    = (*sloResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*sloResource)(nil)
	_ resource.ResourceWithValidateConfig = (*sloResource)(nil)
)

// NewSLOResource returns the hca_slo resource.
func NewSLOResource() resource.Resource {
	return &sloResource{}
}

type sloResource struct {
	clients *Clients
}

type sloModel struct {
	ID                 types.String      `tfsdk:"id"`
	Name               types.String      `tfsdk:"name"`
	Namespace          types.String      `tfsdk:"namespace"`
	Target             *sloTarget        `tfsdk:"target"`
	SLO                *sloObjective     `tfsdk:"slo"`
	Tolerance          types.String      `tfsdk:"tolerance"`
	EvaluationInterval durationString    `tfsdk:"evaluation_interval"`
	Stabilization      *sloStabilization `tfsdk:"stabilization"`
	ElasticityStrategy *sloStrategy      `tfsdk:"elasticity_strategy"`
	CurrentValue       types.String      `tfsdk:"current_value"`
	CompliancePercent  types.Int64       `tfsdk:"compliance_percent"`
	LastEvaluationTime types.String      `tfsdk:"last_evaluation_time"`
	StrategyKind       types.String      `tfsdk:"strategy_kind"`
	StrategyName       types.String      `tfsdk:"strategy_name"`
	Ready              types.Bool        `tfsdk:"ready"`
	Conditions         types.List        `tfsdk:"conditions"`
}

type sloTarget struct {
	Kind types.String `tfsdk:"kind"`
	Name types.String `tfsdk:"name"`
}

type sloObjective struct {
	Type           types.String       `tfsdk:"type"`
	CPUUtilization *sloCPUUtilization `tfsdk:"cpu_utilization"`
	Latency        *sloLatency        `tfsdk:"latency"`
	CostEfficiency *sloCostEfficiency `tfsdk:"cost_efficiency"`
	Availability   *sloAvailability   `tfsdk:"availability"`
	Custom         *sloCustom         `tfsdk:"custom"`
}

type sloCPUUtilization struct {
	TargetAverageUtilization types.Int64 `tfsdk:"target_average_utilization"`
}

type sloLatency struct {
	Percentile      types.String   `tfsdk:"percentile"`
	Threshold       durationString `tfsdk:"threshold"`
	HistogramMetric types.String   `tfsdk:"histogram_metric"`
}

type sloCostEfficiency struct {
	ResponseTimeThreshold durationString `tfsdk:"response_time_threshold"`
	TargetCostEfficiency  types.String   `tfsdk:"target_cost_efficiency"`
	MinRequestsPercentile types.Int64    `tfsdk:"min_requests_percentile"`
	HistogramMetric       types.String   `tfsdk:"histogram_metric"`
}

type sloAvailability struct {
	TargetPercent  types.String `tfsdk:"target_percent"`
	RequestsMetric types.String `tfsdk:"requests_metric"`
	ErrorCodes     types.String `tfsdk:"error_codes"`
}

type sloCustom struct {
	Query       types.String `tfsdk:"query"`
	TargetValue types.String `tfsdk:"target_value"`
	Direction   types.String `tfsdk:"direction"`
}

type sloStabilization struct {
	ScaleUp   durationString `tfsdk:"scale_up"`
	ScaleDown durationString `tfsdk:"scale_down"`
}

type sloStrategy struct {
	Kind           types.String       `tfsdk:"kind"`
	Horizontal     *sloHorizontal     `tfsdk:"horizontal"`
	Vertical       *sloVertical       `tfsdk:"vertical"`
	Burst          *sloBurst          `tfsdk:"burst"`
	MultiObjective *sloMultiObjective `tfsdk:"multi_objective"`
}

// sloMultiObjective is elasticity_strategy.multi_objective: the
// MultiObjective strategy's static configuration (its ranges, weights and
// metrics share the hca_multi_objective_strategy's shapes).
type sloMultiObjective struct {
	Model            *sloMOModel     `tfsdk:"model"`
	Desired          *sloMODesired   `tfsdk:"desired"`
	Ranges           *moRanges       `tfsdk:"ranges"`
	WeightPreset     types.String    `tfsdk:"weight_preset"`
	Weights          *moWeights      `tfsdk:"weights"`
	TolerancePercent types.Int64     `tfsdk:"tolerance_percent"`
	Interval         durationString  `tfsdk:"interval"`
	Cooldown         durationString  `tfsdk:"cooldown"`
	Container        types.String    `tfsdk:"container"`
	ResizePolicy     types.String    `tfsdk:"resize_policy"`
	Metrics          *moMetricsModel `tfsdk:"metrics"`
}

type sloMOModel struct {
	ConfigMapName types.String `tfsdk:"config_map_name"`
	Key           types.String `tfsdk:"key"`
}

type sloMODesired struct {
	CPUUsagePercent    types.Int64 `tfsdk:"cpu_usage_percent"`
	MemoryUsagePercent types.Int64 `tfsdk:"memory_usage_percent"`
}

type sloHorizontal struct {
	MinReplicas types.Int64 `tfsdk:"min_replicas"`
	MaxReplicas types.Int64 `tfsdk:"max_replicas"`
}

type sloVertical struct {
	Container  types.String `tfsdk:"container"`
	MinCPU     types.String `tfsdk:"min_cpu"`
	MaxCPU     types.String `tfsdk:"max_cpu"`
	MinMemory  types.String `tfsdk:"min_memory"`
	MaxMemory  types.String `tfsdk:"max_memory"`
	CPUStep    types.String `tfsdk:"cpu_step"`
	MemoryStep types.String `tfsdk:"memory_step"`
	// ResizePolicy: Recreate or InPlaceOrRecreate.
	ResizePolicy types.String `tfsdk:"resize_policy"`
}

type sloBurst struct {
	BurstPolicyName types.String `tfsdk:"burst_policy_name"`
}

// The API's defaults (internal/api/v1alpha1), which unset arguments take.
const (
	sloDefaultTolerance          = "0.1"
	sloDefaultEvaluationInterval = "20s"
	sloDefaultHistogramMetric    = "http_request_duration_seconds"
	sloDefaultRequestsMetric     = "http_requests_total"
	sloDefaultErrorCodes         = "5.."
	sloDefaultModelKey           = "model.json"
	sloDefaultMOTolerance        = 10
	sloDefaultMOInterval         = "30s"
	sloDefaultMOCooldown         = "2m"
)

var (
	promMetricRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
)

func (r *sloResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_slo"
}

func metricNameAttr(desc, def string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:    true,
		Description: desc + " A Prometheus metric name of at most 200 characters. The API's default is `" + def + "`.",
		Validators: []validator.String{stringvalidator.LengthBetween(1, 200),
			stringvalidator.RegexMatches(promMetricRE, "must be a Prometheus metric name: letters, digits, '_' and ':', not starting with a digit")},
	}
}

func positiveDurationAttr(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Required:      true,
		CustomType:    durationType{},
		PlanModifiers: []planmodifier.String{keepDurationSpelling{}},
		Description:   desc + " A Go duration greater than 0, such as `200ms` or `1.5s`.",
		Validators: []validator.String{stringvalidator.RegexMatches(durationRE, "must be a Go duration such as \"200ms\" or \"1.5s\""),
			durationMax{positive: true}},
	}
}

func (r *sloResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	subdomain := []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")}
	tolerance := toleranceAttr("Relative distance of compliance from 100 % within which the strategy changes nothing (`0.1`: 90 to 110 % is compliant). Defaults to `0.1`.")
	tolerance.Computed, tolerance.Default = true, stringdefault.StaticString(sloDefaultTolerance)
	evaluationInterval := durationAttr("How often the runtime evaluates the SLO, a Go duration of at least 1s. Defaults to `20s`.", durationMax{min: time.Second})
	evaluationInterval.Computed, evaluationInterval.Default = true, stringdefault.StaticString(sloDefaultEvaluationInterval)
	resp.Schema = schema.Schema{
		Description: "Manages a ServiceLevelObjective (hca.dev/v1alpha1) in the control cluster: the runtime evaluates " +
			"an objective on a workload (CPU utilisation, latency, cost efficiency, availability or a custom PromQL " +
			"query) every `evaluation_interval` and hands the compliance to the elasticity strategy that enforces it " +
			"(Horizontal replicas, Vertical requests, a BurstPolicy's replicas, or MultiObjective: replicas and pod size together from a model). Every field of the API is an " +
			"argument, checked at plan time with the API's own rules. Optional arguments left unset take the API's " +
			"defaults (shown in their descriptions) and, in nested objects, stay unset in the state. Import with " +
			"`<namespace>/<name>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "`<namespace>/<name>`; the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the ServiceLevelObjective, a DNS subdomain of 1 to 253 characters. Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators:    subdomain,
			},
			"namespace": schema.StringAttribute{
				Required:      true,
				Description:   "Namespace of the ServiceLevelObjective and its workload, a DNS label (it must exist). Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit")},
			},
			"target": schema.SingleNestedAttribute{
				Required:    true,
				Description: "The workload the SLO is about, in `namespace`.",
				Attributes: map[string]schema.Attribute{
					"kind": schema.StringAttribute{Optional: true, Description: "`Deployment` or `StatefulSet`. The API's default is `Deployment`.",
						Validators: []validator.String{stringvalidator.OneOf(string(hcav1.WorkloadDeployment), string(hcav1.WorkloadStatefulSet))}},
					"name": schema.StringAttribute{Required: true, Description: "Name of the workload, a DNS subdomain of 1 to 253 characters.",
						Validators: subdomain},
				},
			},
			"slo": schema.SingleNestedAttribute{
				Required:    true,
				Description: "The objective: its `type` and that type's parameters, in the block of the same name (only that block may be set).",
				Attributes: map[string]schema.Attribute{
					"type": schema.StringAttribute{Required: true,
						Description: "`cpu-utilization` (set `cpu_utilization`), `latency` (set `latency`), `cost-efficiency` (set `cost_efficiency`), `availability` (set `availability`) or `custom` (set `custom`).",
						Validators: []validator.String{stringvalidator.OneOf(string(hcav1.SLOCPUUtilization), string(hcav1.SLOLatency),
							string(hcav1.SLOCostEfficiency), string(hcav1.SLOAvailability), string(hcav1.SLOCustom))}},
					"cpu_utilization": schema.SingleNestedAttribute{Optional: true,
						Description: "Met while the pods' mean CPU utilisation equals the target (compliance = utilisation / target x 100); only with type `cpu-utilization`.",
						Attributes: map[string]schema.Attribute{
							"target_average_utilization": schema.Int64Attribute{CustomType: intType{}, Required: true, Description: "Wanted mean CPU use in percent of the pods' requests, 1 to 100.",
								Validators: []validator.Int64{int64validator.Between(1, 100)}},
						}},
					"latency": schema.SingleNestedAttribute{Optional: true,
						Description: "Met while a percentile of the response time stays under a threshold (compliance = percentile latency / threshold x 100); only with type `latency`.",
						Attributes: map[string]schema.Attribute{
							"percentile": schema.StringAttribute{Required: true, Description: "Percentile of the response time, a decimal in (0, 100) such as `99` or `99.9`.",
								Validators: []validator.String{quantityRange{min: "0", max: "100"}}},
							"threshold":        positiveDurationAttr("Response time the percentile must stay under."),
							"histogram_metric": metricNameAttr("Prometheus histogram of response times in seconds, without the `_bucket` suffix, labelled with the pods' namespace and app.", sloDefaultHistogramMetric),
						}},
					"cost_efficiency": schema.SingleNestedAttribute{Optional: true,
						Description: "Polaris' cost efficiency: requests per second answered faster than `response_time_threshold`, divided by the workload's cost per hour (HybridCluster prices x the pods' requests), met at `target_cost_efficiency`; only with type `cost-efficiency`.",
						Attributes: map[string]schema.Attribute{
							"response_time_threshold": positiveDurationAttr("Response time under which a request counts as fast."),
							"target_cost_efficiency": schema.StringAttribute{Required: true, Description: "Wanted fast requests per second per unit of cost per hour, a decimal greater than 0 such as `50`.",
								Validators: []validator.String{quantityRange{min: "0"}}},
							"min_requests_percentile": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Share of requests, in percent (0 to 100), that must be faster than the threshold whatever the cost: below it the SLO is violated. Unset: no floor.",
								Validators: []validator.Int64{int64validator.Between(0, 100)}},
							"histogram_metric": metricNameAttr("Prometheus histogram of response times in seconds, without the `_bucket` suffix.", sloDefaultHistogramMetric),
						}},
					"availability": schema.SingleNestedAttribute{Optional: true,
						Description: "Met while the share of requests answered without a server error reaches `target_percent`; only with type `availability`.",
						Attributes: map[string]schema.Attribute{
							"target_percent": schema.StringAttribute{Required: true, Description: "Wanted share of successful requests, a decimal in (0, 100] such as `99.9`.",
								Validators: []validator.String{quantityRange{min: "0", max: "100", maxIncl: true}}},
							"requests_metric": metricNameAttr("Prometheus counter of requests, with a `code` label.", sloDefaultRequestsMetric),
							"error_codes": schema.StringAttribute{Optional: true, Description: "Regular expression (PromQL `=~`) of the `code` label values that count as failures, 1 to 200 characters, matching at least one status code (`5..`, not `5xx`). The API's default is `5..`.",
								Validators: []validator.String{stringvalidator.LengthBetween(1, 200), statusCodePattern{}}},
						}},
					"custom": schema.SingleNestedAttribute{Optional: true,
						Description: "Compares a PromQL query's value with a target; only with type `custom`.",
						Attributes: map[string]schema.Attribute{
							"query": schema.StringAttribute{Required: true, Description: "PromQL expression returning a single sample, 1 to 4096 characters, checked at plan time with Prometheus' parser (an instant vector or a scalar, not a range vector).",
								Validators: []validator.String{stringvalidator.LengthBetween(1, 4096), promQLQuery{}}},
							"target_value": schema.StringAttribute{Required: true, Description: "Value at which the SLO is exactly met, a decimal greater than 0 (compliance divides by it) such as `0.5` or `100`.",
								Validators: []validator.String{quantityRange{min: "0"}}},
							"direction": schema.StringAttribute{Optional: true, Description: "`below` (met while value <= target: latency, errors) or `above` (met while value >= target: throughput). The API's default is `below`.",
								Validators: []validator.String{stringvalidator.OneOf(string(hcav1.DirectionBelow), string(hcav1.DirectionAbove))}},
						}},
				},
			},
			"tolerance":           tolerance,
			"evaluation_interval": evaluationInterval,
			"stabilization": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "Stabilisation windows the strategy applies: a change waits until every proposal in the window agrees. Unset: scale up at once, scale down after 5m.",
				Attributes: map[string]schema.Attribute{
					"scale_up":   durationAttr("Scale-up window, a Go duration such as `30s`. The API's default is `0s`."),
					"scale_down": durationAttr("Scale-down window, a Go duration such as `5m`. The API's default is `5m`."),
				},
			},
			"elasticity_strategy": schema.SingleNestedAttribute{
				Required: true,
				Description: "The strategy enforcing the SLO (`kind`) and the static configuration of each strategy. The block of `kind` is required; " +
					"the others may stay set, so that swapping strategy is an edit of `kind` alone.",
				Attributes: map[string]schema.Attribute{
					"kind": schema.StringAttribute{Required: true,
						Description: "`Horizontal` (changes the replica count; set `horizontal`), `Vertical` (changes the pods' CPU and memory requests; set `vertical`), `Burst` (drives a BurstPolicy's replica count so that the overflow runs in burst clusters; set `burst`) or `MultiObjective` (changes replicas and the container's CPU and memory limits together from a performance model, MOHA; set `multi_objective`; only with `slo.type` `latency` and a Deployment target).",
						Validators:  []validator.String{stringvalidator.OneOf(string(hcav1.StrategyHorizontal), string(hcav1.StrategyVertical), string(hcav1.StrategyBurst), string(hcav1.StrategyMultiObjective))}},
					"horizontal": schema.SingleNestedAttribute{Optional: true, Description: "Bounds of the Horizontal strategy.",
						Attributes: map[string]schema.Attribute{
							"min_replicas": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Fewest replicas the strategy sets, 1 or more and at most `max_replicas`. The API's default is 1.",
								Validators: []validator.Int64{int64validator.Between(1, 2147483647)}},
							"max_replicas": schema.Int64Attribute{CustomType: intType{}, Required: true, Description: "Most replicas the strategy sets, 1 or more.",
								Validators: []validator.Int64{int64validator.Between(1, 2147483647)}},
						}},
					"vertical": schema.SingleNestedAttribute{Optional: true, Description: "Bounds and steps of the Vertical strategy, which moves the pods' CPU and memory requests in steps.",
						Attributes: map[string]schema.Attribute{
							"container": schema.StringAttribute{Optional: true, Description: "Container whose requests change, a DNS label. Unset: every container, in proportion.",
								Validators: []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit")}},
							"min_cpu": schema.StringAttribute{Required: true, Description: "Smallest CPU request, a quantity greater than 0 and at most `max_cpu`, such as `100m`.",
								Validators: []validator.String{positiveQuantity{example: "100m"}}},
							"max_cpu": schema.StringAttribute{Required: true, Description: "Largest CPU request, a quantity such as `2`.",
								Validators: []validator.String{positiveQuantity{example: "2"}}},
							"min_memory": schema.StringAttribute{Required: true, Description: "Smallest memory request, a quantity greater than 0 and at most `max_memory`, such as `64Mi`.",
								Validators: []validator.String{positiveQuantity{example: "64Mi"}}},
							"max_memory": schema.StringAttribute{Required: true, Description: "Largest memory request, a quantity such as `2Gi`.",
								Validators: []validator.String{positiveQuantity{example: "2Gi"}}},
							"cpu_step": schema.StringAttribute{Optional: true, Description: "CPU added or removed per step, a quantity greater than 0. The API's default is `100m`.",
								Validators: []validator.String{positiveQuantity{example: "100m"}}},
							"memory_step": schema.StringAttribute{Optional: true, Description: "Memory added or removed per step, a quantity greater than 0. The API's default is `64Mi`.",
								Validators: []validator.String{positiveQuantity{example: "64Mi"}}},
							"resize_policy": schema.StringAttribute{Optional: true, Description: "How a new size reaches the pods: `Recreate` (the API's default) patches the pod template, which rolls the pods; `InPlaceOrRecreate` resizes the running pods of a Deployment in place (the `pods/resize` subresource, Kubernetes 1.33 or later) without changing the template, resizes each new pod after it starts, and falls back to the rolling update where the cluster has no `pods/resize`, the target is a StatefulSet, or a pod's resize is refused, Infeasible, Deferred for more than 5 minutes or in progress for more than an hour.",
								Validators: []validator.String{stringvalidator.OneOf(string(scaling.ResizeRecreate), string(scaling.ResizeInPlaceOrRecreate))}},
						}},
					"burst": schema.SingleNestedAttribute{Optional: true, Description: "Configuration of the Burst strategy.",
						Attributes: map[string]schema.Attribute{
							"burst_policy_name": schema.StringAttribute{Required: true, Description: "The BurstPolicy, in `namespace`, whose replica count the strategy drives (a DNS subdomain).",
								Validators: subdomain},
						}},
					"multi_objective": sloMultiObjectiveAttr(subdomain),
				},
			},
			"current_value": schema.StringAttribute{
				Computed:      true,
				Description:   "The SLO metric's latest value with its unit (`183ms`, `62%`), as the runtime last reported; empty before the first evaluation.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"compliance_percent": schema.Int64Attribute{
				CustomType:    intType{},
				Computed:      true,
				Description:   "Latest compliance: 100 = met exactly, above 100 violated, below 100 outperformed; null before the first evaluation.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"last_evaluation_time": schema.StringAttribute{
				Computed:      true,
				Description:   "When the evaluation the status holds was made (RFC 3339, UTC); empty before the first evaluation. A change of compliance or conditions is written at once; while only the current value changes, the runtime writes the status at least every --slo-status-heartbeat (default 5m), so it may be up to that old.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"strategy_kind": schema.StringAttribute{
				Computed:      true,
				Description:   "Kind of the strategy object the SLO currently writes (`HorizontalElasticityStrategy`, `VerticalElasticityStrategy`, `BurstElasticityStrategy` or `MultiObjectiveElasticityStrategy`, each named after the SLO); empty before the first evaluation.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"strategy_name": schema.StringAttribute{
				Computed:      true,
				Description:   "Name of that strategy object, in `namespace`; empty before the first evaluation.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"ready": schema.BoolAttribute{
				Computed:      true,
				Description:   "Whether the SLO's Ready condition is True: the runtime evaluated it and wrote the compliance to the strategy. False before the first evaluation.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"conditions": conditionsResourceAttr("`Degraded`, `MetricsAvailable`, `Ready`", listplanmodifier.UseStateForUnknown()),
		},
	}
	addQuantitySpelling(resp.Schema.Attributes)
}

func (r *sloResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

// slos does the hca_slo's API calls.
var slos = customResource[hcav1.ServiceLevelObjective, *hcav1.ServiceLevelObjective]{
	kind: "ServiceLevelObjective", what: "SLO", importExample: "terraform import hca_slo.web_latency shop/web-latency",
	setSpec: func(dst, src *hcav1.ServiceLevelObjective) { dst.Spec = src.Spec },
}

func (r *sloResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan sloModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	slo, ok := slos.create(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = types.StringValue(slo.Namespace + "/" + slo.Name)
	plan.setStatus(slo, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *sloResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state sloModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	slo, ok := slos.read(ctx, r.clients, state.ID.ValueString(), &resp.State, &resp.Diagnostics)
	if !ok {
		return
	}
	next := sloFromAPI(slo, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

func (r *sloResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan sloModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	slo, ok := slos.update(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.setStatus(slo, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *sloResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state sloModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	slos.delete(ctx, r.clients, state.ID.ValueString(), 2*time.Minute, &resp.Diagnostics)
}

func (r *sloResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	slos.importState(ctx, req, resp)
}

// ModifyPlan plans no change when only values left unknown differ from the
// state (planUnchangedAsState).
func (r *sloResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	planUnchangedAsState(req, resp)
}

// ValidateConfig checks the ServiceLevelObjective's cross-field (CEL) rules
// at plan time.
func (r *sloResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m sloModel
	if diags := req.Config.Get(ctx, &m); diags.HasError() {
		// A nested object not known yet: the API checks it at apply.
		return
	}
	resp.Diagnostics.Append(validateSLO(&m)...)
}

// sloBlock is one SLO type, its block in the model, and what the block needs.
type sloBlock struct {
	typ, attr, needs string
	set              bool
}

func (o *sloObjective) blocks() []sloBlock {
	return []sloBlock{
		{string(hcav1.SLOCPUUtilization), "cpu_utilization", "target_average_utilization", o.CPUUtilization != nil},
		{string(hcav1.SLOLatency), "latency", "percentile and threshold", o.Latency != nil},
		{string(hcav1.SLOCostEfficiency), "cost_efficiency", "response_time_threshold and target_cost_efficiency", o.CostEfficiency != nil},
		{string(hcav1.SLOAvailability), "availability", "target_percent", o.Availability != nil},
		{string(hcav1.SLOCustom), "custom", "query and target_value", o.Custom != nil},
	}
}

// validateSLO mirrors the CEL rules of the ServiceLevelObjective CRD, for the
// values known at plan time.
func validateSLO(m *sloModel) diag.Diagnostics {
	var d diag.Diagnostics
	known := func(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
	if o := m.SLO; o != nil && known(o.Type) {
		typ := o.Type.ValueString()
		for _, b := range o.blocks() {
			p := path.Root("slo").AtName(b.attr)
			switch {
			case b.typ == typ && !b.set:
				d.AddAttributeError(path.Root("slo"), "Missing slo."+b.attr,
					fmt.Sprintf("slo.%s (%s) is required when slo.type is %s.", b.attr, b.needs, b.typ))
			case b.typ != typ && b.set:
				d.AddAttributeError(p, "Invalid slo."+b.attr,
					fmt.Sprintf("slo.%s is set but slo.type is %s: remove %s or set type to %s.", b.attr, typ, b.attr, b.typ))
			}
		}
	}
	s := m.ElasticityStrategy
	if s == nil {
		return d
	}
	root := path.Root("elasticity_strategy")
	if known(s.Kind) {
		for _, b := range []struct {
			kind, attr, needs string
			set               bool
		}{
			{string(hcav1.StrategyHorizontal), "horizontal", "max_replicas, and min_replicas if not 1", s.Horizontal != nil},
			{string(hcav1.StrategyVertical), "vertical", "min_cpu, max_cpu, min_memory and max_memory", s.Vertical != nil},
			{string(hcav1.StrategyBurst), "burst", "burst_policy_name", s.Burst != nil},
			{string(hcav1.StrategyMultiObjective), "multi_objective", "model and ranges", s.MultiObjective != nil},
		} {
			if s.Kind.ValueString() == b.kind && !b.set {
				d.AddAttributeError(root, "Missing elasticity_strategy."+b.attr,
					fmt.Sprintf("elasticity_strategy.%s (%s) is required when kind is %s.", b.attr, b.needs, b.kind))
			}
		}
	}
	if known(s.Kind) && s.Kind.ValueString() == string(hcav1.StrategyMultiObjective) {
		if o := m.SLO; o != nil && known(o.Type) && o.Type.ValueString() != string(hcav1.SLOLatency) {
			d.AddAttributeError(root.AtName("kind"), "Invalid elasticity_strategy.kind",
				fmt.Sprintf("elasticity_strategy.kind MultiObjective needs an objective on the response time: slo.type latency, whose threshold is the desired response time (slo.type is %s).", o.Type.ValueString()))
		}
		if t := m.Target; t != nil && known(t.Kind) && t.Kind.ValueString() != string(hcav1.WorkloadDeployment) {
			d.AddAttributeError(path.Root("target").AtName("kind"), "Invalid target.kind",
				fmt.Sprintf("elasticity_strategy.kind MultiObjective scales a Deployment: set target.kind to Deployment (got %s).", t.Kind.ValueString()))
		}
	}
	if mo := s.MultiObjective; mo != nil {
		d.Append(validateMOStatic(root.AtName("multi_objective"), "elasticity_strategy.multi_objective.", mo.Ranges, mo.WeightPreset, mo.Weights)...)
	}
	if h := s.Horizontal; h != nil && known(h.MaxReplicas) && !h.MinReplicas.IsUnknown() {
		lo := int64(1)
		if known(h.MinReplicas) {
			lo = h.MinReplicas.ValueInt64()
		}
		if lo > h.MaxReplicas.ValueInt64() {
			d.AddAttributeError(root.AtName("horizontal").AtName("min_replicas"), "Invalid elasticity_strategy.horizontal.min_replicas",
				fmt.Sprintf("elasticity_strategy.horizontal.min_replicas (%d) must be <= max_replicas (%d).", lo, h.MaxReplicas.ValueInt64()))
		}
	}
	if v := s.Vertical; v != nil {
		for _, pair := range []struct {
			lo, hi       string
			loVal, hiVal types.String
		}{{"min_cpu", "max_cpu", v.MinCPU, v.MaxCPU}, {"min_memory", "max_memory", v.MinMemory, v.MaxMemory}} {
			if !known(pair.loVal) || !known(pair.hiVal) {
				continue
			}
			lo, err1 := kresource.ParseQuantity(pair.loVal.ValueString())
			hi, err2 := kresource.ParseQuantity(pair.hiVal.ValueString())
			if err1 == nil && err2 == nil && lo.Cmp(hi) > 0 {
				d.AddAttributeError(root.AtName("vertical").AtName(pair.lo), "Invalid elasticity_strategy.vertical."+pair.lo,
					fmt.Sprintf("elasticity_strategy.vertical.%s (%s) must be <= %s (%s).", pair.lo, pair.loVal.ValueString(), pair.hi, pair.hiVal.ValueString()))
			}
		}
	}
	return d
}

// toAPI converts the model to a ServiceLevelObjective; unset optional fields
// stay unset so that the API server applies its defaults.
func (m *sloModel) toAPI() (*hcav1.ServiceLevelObjective, error) {
	slo := &hcav1.ServiceLevelObjective{
		TypeMeta:   metav1.TypeMeta{APIVersion: hcav1.GroupVersion.String(), Kind: "ServiceLevelObjective"},
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()},
	}
	s := &slo.Spec
	if t := m.Target; t != nil {
		s.Target = hcav1.TargetRef{Kind: hcav1.WorkloadKind(t.Kind.ValueString()), Name: hcav1.ObjectName(t.Name.ValueString())}
	}
	var err error
	if o := m.SLO; o != nil {
		s.SLO.Type = hcav1.SLOType(o.Type.ValueString())
		if c := o.CPUUtilization; c != nil {
			s.SLO.CPUUtilization = &hcav1.CPUUtilizationSLO{TargetAverageUtilization: int32(c.TargetAverageUtilization.ValueInt64())}
		}
		if l := o.Latency; l != nil {
			out := &hcav1.LatencySLO{HistogramMetric: l.HistogramMetric.ValueString()}
			if out.Percentile, err = quantityValue(l.Percentile, "slo.latency.percentile"); err != nil {
				return nil, err
			}
			if out.Threshold, err = durationValue(l.Threshold, "slo.latency.threshold"); err != nil {
				return nil, err
			}
			s.SLO.Latency = out
		}
		if c := o.CostEfficiency; c != nil {
			out := &hcav1.CostEfficiencySLO{MinRequestsPercentile: int32Ptr(c.MinRequestsPercentile), HistogramMetric: c.HistogramMetric.ValueString()}
			if out.ResponseTimeThreshold, err = durationValue(c.ResponseTimeThreshold, "slo.cost_efficiency.response_time_threshold"); err != nil {
				return nil, err
			}
			if out.TargetCostEfficiency, err = quantityValue(c.TargetCostEfficiency, "slo.cost_efficiency.target_cost_efficiency"); err != nil {
				return nil, err
			}
			s.SLO.CostEfficiency = out
		}
		if a := o.Availability; a != nil {
			out := &hcav1.AvailabilitySLO{RequestsMetric: a.RequestsMetric.ValueString(), ErrorCodes: a.ErrorCodes.ValueString()}
			if out.TargetPercent, err = quantityValue(a.TargetPercent, "slo.availability.target_percent"); err != nil {
				return nil, err
			}
			s.SLO.Availability = out
		}
		if c := o.Custom; c != nil {
			out := &hcav1.CustomSLO{Query: c.Query.ValueString(), Direction: hcav1.Direction(c.Direction.ValueString())}
			if out.TargetValue, err = quantityValue(c.TargetValue, "slo.custom.target_value"); err != nil {
				return nil, err
			}
			s.SLO.Custom = out
		}
	}
	if s.Tolerance, err = quantityPtr(m.Tolerance, "tolerance"); err != nil {
		return nil, err
	}
	if s.EvaluationInterval, err = durationPtr(m.EvaluationInterval, "evaluation_interval"); err != nil {
		return nil, err
	}
	if st := m.Stabilization; st != nil {
		s.Stabilization = &hcav1.StabilizationWindows{}
		if s.Stabilization.ScaleUp, err = durationPtr(st.ScaleUp, "stabilization.scale_up"); err != nil {
			return nil, err
		}
		if s.Stabilization.ScaleDown, err = durationPtr(st.ScaleDown, "stabilization.scale_down"); err != nil {
			return nil, err
		}
	}
	if e := m.ElasticityStrategy; e != nil {
		s.ElasticityStrategy.Kind = hcav1.StrategyKind(e.Kind.ValueString())
		if h := e.Horizontal; h != nil {
			s.ElasticityStrategy.Horizontal = &hcav1.HorizontalStaticConfig{MinReplicas: int32(h.MinReplicas.ValueInt64()), MaxReplicas: int32(h.MaxReplicas.ValueInt64())}
		}
		if v := e.Vertical; v != nil {
			out := &hcav1.VerticalStaticConfig{Container: v.Container.ValueString(), ResizePolicy: v.ResizePolicy.ValueString()}
			for _, q := range []struct {
				dst  *kresource.Quantity
				v    types.String
				name string
			}{{&out.MinCPU, v.MinCPU, "min_cpu"}, {&out.MaxCPU, v.MaxCPU, "max_cpu"}, {&out.MinMemory, v.MinMemory, "min_memory"}, {&out.MaxMemory, v.MaxMemory, "max_memory"}} {
				if *q.dst, err = quantityValue(q.v, "elasticity_strategy.vertical."+q.name); err != nil {
					return nil, err
				}
			}
			if out.CPUStep, err = quantityPtr(v.CPUStep, "elasticity_strategy.vertical.cpu_step"); err != nil {
				return nil, err
			}
			if out.MemoryStep, err = quantityPtr(v.MemoryStep, "elasticity_strategy.vertical.memory_step"); err != nil {
				return nil, err
			}
			s.ElasticityStrategy.Vertical = out
		}
		if b := e.Burst; b != nil {
			s.ElasticityStrategy.Burst = &hcav1.BurstStaticConfig{BurstPolicyName: hcav1.ObjectName(b.BurstPolicyName.ValueString())}
		}
		if mo := e.MultiObjective; mo != nil {
			if s.ElasticityStrategy.MultiObjective, err = mo.toAPI(); err != nil {
				return nil, err
			}
		}
	}
	return slo, nil
}

// quantityValue is quantityPtr for a required quantity.
func quantityValue(v types.String, where string) (kresource.Quantity, error) {
	q, err := quantityPtr(v, where)
	if err != nil || q == nil {
		return kresource.Quantity{}, err
	}
	return *q, nil
}

// durationValue is durationPtr for a required duration.
func durationValue(v durationString, where string) (metav1.Duration, error) {
	d, err := durationPtr(v, where)
	if err != nil || d == nil {
		return metav1.Duration{}, err
	}
	return *d, nil
}

// sloFromAPI converts a ServiceLevelObjective to the model. prior is the
// state (or the plan) it refreshes: a nested argument unset there stays unset
// when the API holds its default, and durations and quantities keep prior's
// spelling when they are equal ("1m" and "60s", "0.1" and "100m").
func sloFromAPI(slo *hcav1.ServiceLevelObjective, prior *sloModel) sloModel {
	if prior == nil {
		prior = &sloModel{}
	}
	s := slo.Spec
	m := sloModel{
		ID:                 types.StringValue(slo.Namespace + "/" + slo.Name),
		Name:               types.StringValue(slo.Name),
		Namespace:          types.StringValue(slo.Namespace),
		Tolerance:          keepDecimal(prior.Tolerance, s.Tolerance),
		EvaluationInterval: keepDuration(prior.EvaluationInterval, s.EvaluationInterval, ""),
	}
	if m.Tolerance.IsNull() {
		m.Tolerance = types.StringValue(sloDefaultTolerance)
	}
	if m.EvaluationInterval.IsNull() {
		m.EvaluationInterval = durationOf(sloDefaultEvaluationInterval)
	}
	pt := prior.Target
	if pt == nil {
		pt = &sloTarget{}
	}
	m.Target = &sloTarget{Kind: optString(pt.Kind, string(s.Target.Kind), string(hcav1.WorkloadDeployment)), Name: types.StringValue(string(s.Target.Name))}

	po := prior.SLO
	if po == nil {
		po = &sloObjective{}
	}
	o := &sloObjective{Type: types.StringValue(string(s.SLO.Type))}
	if c := s.SLO.CPUUtilization; c != nil {
		o.CPUUtilization = &sloCPUUtilization{TargetAverageUtilization: types.Int64Value(int64(c.TargetAverageUtilization))}
	}
	if l := s.SLO.Latency; l != nil {
		pl := po.Latency
		if pl == nil {
			pl = &sloLatency{}
		}
		o.Latency = &sloLatency{
			Percentile:      keepDecimal(pl.Percentile, &l.Percentile),
			Threshold:       keepDuration(pl.Threshold, &l.Threshold, ""),
			HistogramMetric: optString(pl.HistogramMetric, l.HistogramMetric, sloDefaultHistogramMetric),
		}
	}
	if c := s.SLO.CostEfficiency; c != nil {
		pc := po.CostEfficiency
		if pc == nil {
			pc = &sloCostEfficiency{}
		}
		o.CostEfficiency = &sloCostEfficiency{
			ResponseTimeThreshold: keepDuration(pc.ResponseTimeThreshold, &c.ResponseTimeThreshold, ""),
			TargetCostEfficiency:  keepDecimal(pc.TargetCostEfficiency, &c.TargetCostEfficiency),
			MinRequestsPercentile: optInt(pc.MinRequestsPercentile, c.MinRequestsPercentile, -1),
			HistogramMetric:       optString(pc.HistogramMetric, c.HistogramMetric, sloDefaultHistogramMetric),
		}
	}
	if a := s.SLO.Availability; a != nil {
		pa := po.Availability
		if pa == nil {
			pa = &sloAvailability{}
		}
		o.Availability = &sloAvailability{
			TargetPercent:  keepDecimal(pa.TargetPercent, &a.TargetPercent),
			RequestsMetric: optString(pa.RequestsMetric, a.RequestsMetric, sloDefaultRequestsMetric),
			ErrorCodes:     optString(pa.ErrorCodes, a.ErrorCodes, sloDefaultErrorCodes),
		}
	}
	if c := s.SLO.Custom; c != nil {
		pc := po.Custom
		if pc == nil {
			pc = &sloCustom{}
		}
		o.Custom = &sloCustom{
			Query:       types.StringValue(c.Query),
			TargetValue: keepDecimal(pc.TargetValue, &c.TargetValue),
			Direction:   optString(pc.Direction, string(c.Direction), string(hcav1.DirectionBelow)),
		}
	}
	m.SLO = o

	if st := s.Stabilization; st != nil {
		ps := prior.Stabilization
		if ps == nil {
			ps = &sloStabilization{}
		}
		m.Stabilization = &sloStabilization{ScaleUp: keepDuration(ps.ScaleUp, st.ScaleUp, "0s"), ScaleDown: keepDuration(ps.ScaleDown, st.ScaleDown, "5m")}
	}

	e := s.ElasticityStrategy
	pe := prior.ElasticityStrategy
	if pe == nil {
		pe = &sloStrategy{}
	}
	m.ElasticityStrategy = &sloStrategy{Kind: types.StringValue(string(e.Kind))}
	if h := e.Horizontal; h != nil {
		var pmin types.Int64
		if pe.Horizontal != nil {
			pmin = pe.Horizontal.MinReplicas
		}
		lo := h.MinReplicas
		m.ElasticityStrategy.Horizontal = &sloHorizontal{MinReplicas: optInt(pmin, &lo, 1), MaxReplicas: types.Int64Value(int64(h.MaxReplicas))}
	}
	if v := e.Vertical; v != nil {
		pv := pe.Vertical
		if pv == nil {
			pv = &sloVertical{}
		}
		m.ElasticityStrategy.Vertical = &sloVertical{
			Container:    optString(pv.Container, v.Container, ""),
			MinCPU:       keepQuantity(pv.MinCPU, &v.MinCPU),
			MaxCPU:       keepQuantity(pv.MaxCPU, &v.MaxCPU),
			MinMemory:    keepQuantity(pv.MinMemory, &v.MinMemory),
			MaxMemory:    keepQuantity(pv.MaxMemory, &v.MaxMemory),
			CPUStep:      keepDefaultQuantity(pv.CPUStep, v.CPUStep, "100m"),
			MemoryStep:   keepDefaultQuantity(pv.MemoryStep, v.MemoryStep, "64Mi"),
			ResizePolicy: optString(pv.ResizePolicy, v.ResizePolicy, string(scaling.ResizeRecreate)),
		}
	}
	if b := e.Burst; b != nil {
		m.ElasticityStrategy.Burst = &sloBurst{BurstPolicyName: types.StringValue(string(b.BurstPolicyName))}
	}
	if mo := e.MultiObjective; mo != nil {
		m.ElasticityStrategy.MultiObjective = sloMultiObjectiveFromAPI(mo, pe.MultiObjective)
	}
	m.setStatus(slo, false)
	return m
}

// keepDecimal is keepQuantity for plain numbers (percentiles, ratios,
// targets): without an equal prior spelling to keep, it spells the value as a
// plain decimal ("99.9", where the API server stores "99900m").
func keepDecimal(prior types.String, q *kresource.Quantity) types.String {
	v := keepQuantity(prior, q)
	if q == nil || v.Equal(prior) {
		return v
	}
	return types.StringValue(decimalString(*q))
}

// decimalString spells a decimal quantity without SI suffix or exponent
// ("100m" -> "0.1", "1k" -> "1000"); binary quantities keep their form.
func decimalString(q kresource.Quantity) string {
	if q.Format == kresource.BinarySI {
		return q.String()
	}
	s := q.AsDec().String()
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// setStatus sets the status attributes; with onlyUnknown, only those the plan
// left unknown (a planned value must be kept).
func (m *sloModel) setStatus(slo *hcav1.ServiceLevelObjective, onlyUnknown bool) {
	st := slo.Status
	set := func(cur attr.Value) bool { return !onlyUnknown || cur.IsUnknown() }
	if set(m.CurrentValue) {
		m.CurrentValue = types.StringValue(st.CurrentValue)
	}
	if set(m.CompliancePercent) {
		m.CompliancePercent = types.Int64Null()
		if st.CompliancePercent != nil {
			m.CompliancePercent = types.Int64Value(int64(*st.CompliancePercent))
		}
	}
	if set(m.LastEvaluationTime) {
		m.LastEvaluationTime = types.StringValue("")
		if st.LastEvaluationTime != nil {
			m.LastEvaluationTime = types.StringValue(st.LastEvaluationTime.UTC().Format(time.RFC3339))
		}
	}
	var kind, name string
	if st.Strategy != nil {
		kind, name = st.Strategy.Kind, string(st.Strategy.Name)
	}
	if set(m.StrategyKind) {
		m.StrategyKind = types.StringValue(kind)
	}
	if set(m.StrategyName) {
		m.StrategyName = types.StringValue(name)
	}
	conds := append([]metav1.Condition(nil), st.Conditions...)
	sort.Slice(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	if set(m.Ready) {
		ready := false
		for _, c := range conds {
			ready = ready || (c.Type == hcav1.ConditionReady && c.Status == metav1.ConditionTrue)
		}
		m.Ready = types.BoolValue(ready)
	}
	if set(m.Conditions) {
		m.Conditions = conditionsList(conds)
	}
}
