package provider

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
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
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

var (
	_ resource.Resource                   = (*burstPolicyResource)(nil)
	_ resource.ResourceWithConfigure      = (*burstPolicyResource)(nil)
	_ resource.ResourceWithImportState    = (*burstPolicyResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*burstPolicyResource)(nil)
	_ resource.ResourceWithValidateConfig = (*burstPolicyResource)(nil)
)

// NewBurstPolicyResource returns the hca_burst_policy resource.
func NewBurstPolicyResource() resource.Resource {
	return &burstPolicyResource{}
}

type burstPolicyResource struct {
	clients *Clients
}

type burstPolicyModel struct {
	ID               types.String    `tfsdk:"id"`
	Name             types.String    `tfsdk:"name"`
	Namespace        types.String    `tfsdk:"namespace"`
	Target           *bpTarget       `tfsdk:"target"`
	PrimaryCluster   types.String    `tfsdk:"primary_cluster"`
	BurstTargets     []bpBurstTarget `tfsdk:"burst_targets"`
	Placement        types.String    `tfsdk:"placement"`
	MinReplicas      types.Int64     `tfsdk:"min_replicas"`
	MaxReplicas      types.Int64     `tfsdk:"max_replicas"`
	Metrics          []bpMetric      `tfsdk:"metrics"`
	Algorithm        *bpAlgorithm    `tfsdk:"algorithm"`
	Propagate        *bpPropagate    `tfsdk:"propagate"`
	Consul           *bpConsul       `tfsdk:"consul"`
	PendingThreshold durationString  `tfsdk:"pending_threshold"`
	FailoverAfter    durationString  `tfsdk:"failover_after"`
	Schedules        []scheduleModel `tfsdk:"schedules"`
	Capacity         *bpCapacity     `tfsdk:"capacity"`
	Phase            types.String    `tfsdk:"phase"`
	Replicas         types.List      `tfsdk:"replicas"`
}

// bpCapacity is spec.capacity: the policy's say in the burst clusters' node
// groups.
type bpCapacity struct {
	AllowSpot      types.Bool     `tfsdk:"allow_spot"`
	ScaleDownDelay durationString `tfsdk:"scale_down_delay"`
}

type bpTarget struct {
	DeploymentName types.String `tfsdk:"deployment_name"`
	MatchLabels    types.Map    `tfsdk:"match_labels"`
}

type bpBurstTarget struct {
	Cluster     types.String `tfsdk:"cluster"`
	Weight      types.Int64  `tfsdk:"weight"`
	MaxReplicas types.Int64  `tfsdk:"max_replicas"`
}

type bpMetric struct {
	Type     types.String      `tfsdk:"type"`
	Resource *bpResourceMetric `tfsdk:"resource"`
	PromQL   *bpPromQLMetric   `tfsdk:"promql"`
}

type bpResourceMetric struct {
	Name                     types.String `tfsdk:"name"`
	TargetAverageUtilization types.Int64  `tfsdk:"target_average_utilization"`
}

type bpPromQLMetric struct {
	Query       types.String `tfsdk:"query"`
	TargetValue types.String `tfsdk:"target_value"`
	TargetType  types.String `tfsdk:"target_type"`
}

type bpAlgorithm struct {
	Name       types.String  `tfsdk:"name"`
	Adaptive   *bpAdaptive   `tfsdk:"adaptive"`
	Kubernetes *bpKubernetes `tfsdk:"kubernetes"`
	FRSS       *bpFRSS       `tfsdk:"frss"`
	Panic      *bpPanic      `tfsdk:"panic"`
}

// implied is the algorithm an unnamed algorithm block means: the one whose
// parameters are set (so that a kubernetes block written when kubernetes
// was the default keeps its meaning), else the API's default, adaptive.
func (a *bpAlgorithm) implied() string {
	if a == nil {
		return "adaptive"
	}
	return impliedAlgorithm(a.Kubernetes != nil, a.FRSS != nil, a.Panic != nil, a.Adaptive != nil)
}

// impliedAlgorithm names the algorithm whose parameter block alone is set,
// else adaptive.
func impliedAlgorithm(kubernetes, frss, panic, adaptive bool) string {
	switch {
	case kubernetes && !frss && !panic && !adaptive:
		return "kubernetes"
	case frss && !kubernetes && !panic && !adaptive:
		return "frss"
	case panic && !kubernetes && !frss && !adaptive:
		return "panic"
	}
	return "adaptive"
}

type bpAdaptive struct {
	ScaleDownStabilizationWindow durationString `tfsdk:"scale_down_stabilization_window"`
	ForecastHorizon              durationString `tfsdk:"forecast_horizon"`
	SeasonalPeriod               durationString `tfsdk:"seasonal_period"`
	HeadroomPercent              types.Int64    `tfsdk:"headroom_percent"`
	HeadroomReplicas             types.Int64    `tfsdk:"headroom_replicas"`
}

type bpKubernetes struct {
	Tolerance types.String    `tfsdk:"tolerance"`
	ScaleUp   *bpScalingRules `tfsdk:"scale_up"`
	ScaleDown *bpScalingRules `tfsdk:"scale_down"`
}

type bpScalingRules struct {
	StabilizationWindow durationString    `tfsdk:"stabilization_window"`
	Tolerance           types.String      `tfsdk:"tolerance"`
	SelectPolicy        types.String      `tfsdk:"select_policy"`
	Policies            []bpScalingPolicy `tfsdk:"policies"`
}

type bpScalingPolicy struct {
	Type   types.String   `tfsdk:"type"`
	Value  types.Int64    `tfsdk:"value"`
	Period durationString `tfsdk:"period"`
}

type bpFRSS struct {
	Tolerance   types.String   `tfsdk:"tolerance"`
	ScaleUpRate types.Int64    `tfsdk:"scale_up_rate"`
	UpWindow    durationString `tfsdk:"up_window"`
	DownWindow  durationString `tfsdk:"down_window"`
	ShrinkStep  types.Int64    `tfsdk:"shrink_step"`
}

type bpPanic struct {
	StableWindow          durationString `tfsdk:"stable_window"`
	PanicWindow           durationString `tfsdk:"panic_window"`
	PanicThresholdPercent types.Int64    `tfsdk:"panic_threshold_percent"`
	MaxScaleUpRate        types.String   `tfsdk:"max_scale_up_rate"`
	MaxScaleDownRate      types.String   `tfsdk:"max_scale_down_rate"`
}

type bpPropagate struct {
	ConfigMaps *bpObjectSelector `tfsdk:"config_maps"`
	Secrets    *bpObjectSelector `tfsdk:"secrets"`
	Services   *bpObjectSelector `tfsdk:"services"`
}

type bpObjectSelector struct {
	Names       types.Set `tfsdk:"names"`
	MatchLabels types.Map `tfsdk:"match_labels"`
}

type bpConsul struct {
	ServiceName types.String `tfsdk:"service_name"`
	Port        types.Int64  `tfsdk:"port"`
	Tags        types.Set    `tfsdk:"tags"`
}

var (
	durationRE    = regexp.MustCompile(`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`)
	replicasAttrs = map[string]attr.Type{"cluster": types.StringType, "desired": types.Int64Type, "ready": types.Int64Type, "pending": types.Int64Type,
		"nodes_ready": types.Int64Type, "nodes_requested": types.Int64Type}
)

func (r *burstPolicyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_burst_policy"
}

// durationAttr is an optional Go duration argument (durationType: equal
// durations are equal values, whatever their spelling).
func durationAttr(desc string, extra ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:      true,
		CustomType:    durationType{},
		Description:   desc,
		Validators:    append([]validator.String{stringvalidator.RegexMatches(durationRE, "must be a Go duration such as \"30s\", \"5m\" or \"1h30m\"")}, extra...),
		PlanModifiers: []planmodifier.String{keepDurationSpelling{}},
	}
}

// forecastHorizonAttr is algorithm.adaptive.forecast_horizon: unset, the
// runtime derives the horizon. It is Computed for the policies created
// while the API defaulted it to 30s: the object holds 30s, which a
// configuration without the attribute keeps (keepLegacyHorizon), so that
// neither a plan nor an unrelated update changes their horizon.
func forecastHorizonAttr() schema.StringAttribute {
	a := durationAttr("Time needed to make capacity ready; the count covers the load forecast this far ahead; `0s` turns forecasting off. "+
		"A Go duration in [0s, 1h]. Unset, the runtime derives it: the metric's age (15s) plus the start-up it measures on the target's pods "+
		"(creation to Ready, 90th percentile; 10s until one is Ready), in whole 15s steps, and, when a burst target has node groups, the replicas "+
		"that do not fit where they start without a new node are forecast further by the node boot the capacity controller observed "+
		"(75s until it timed one) and its 10s round; the policy's `MetricsAvailable` condition says the horizons used. "+
		"A policy created while the API defaulted it to `30s` keeps that value, which the state shows and an unset attribute keeps; "+
		"to have it derived, set another value once and then remove it.", durationMax{max: time.Hour})
	a.Computed = true
	a.PlanModifiers = append(a.PlanModifiers, keepLegacyHorizon{})
	return a
}

// keepLegacyHorizon plans an unset forecast_horizon: the state's 30s (the
// value the API defaulted before the runtime derived it) is kept, anything
// else is removed (the runtime derives the horizon).
type keepLegacyHorizon struct{}

func (keepLegacyHorizon) Description(context.Context) string {
	return "Keeps a 30s horizon the API defaulted; otherwise unset is derived."
}
func (m keepLegacyHorizon) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }
func (keepLegacyHorizon) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	if !req.StateValue.IsNull() && !req.StateValue.IsUnknown() && sameDuration(req.StateValue, durationOf("30s").StringValue) {
		resp.PlanValue = req.StateValue
		return
	}
	resp.PlanValue = types.StringNull()
}

func toleranceAttr(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:    true,
		Description: desc + " A decimal in [0, 1), such as `0.1` for 10 %.",
		Validators:  []validator.String{quantityRange{min: "0", max: "1", minIncl: true}},
	}
}

func selectorAttr(what string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:    true,
		Description: what + " to copy, by name or labels (an object matching either is copied); set `names` or `match_labels` or both.",
		Attributes: map[string]schema.Attribute{
			"names": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Names of the objects, 1 to 64 DNS subdomains.",
				Validators: []validator.Set{setvalidator.SizeBetween(1, 64), setvalidator.ValueStringsAre(
					stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain"))},
			},
			"match_labels": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Labels the objects must all carry, 1 to 32 valid Kubernetes labels.",
				Validators:  []validator.Map{mapvalidator.SizeBetween(1, 32), labelsValidator},
			},
		},
	}
}

func scalingRulesAttr(dir string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:    true,
		Description: "Rules for " + dir + " the replica count, as autoscaling/v2's HPAScalingRules.",
		Attributes: map[string]schema.Attribute{
			"stabilization_window": durationAttr("How far back proposals are considered, a Go duration of at most 1h.", durationMax{max: time.Hour}),
			"tolerance":            toleranceAttr("Overrides `algorithm.kubernetes.tolerance` in this direction."),
			"select_policy": schema.StringAttribute{
				Optional:    true,
				Description: "`Max` (the policy allowing the largest change), `Min` or `Disabled` (no change in this direction). The API's default is `Max`.",
				Validators:  []validator.String{stringvalidator.OneOf("Max", "Min", "Disabled")},
			},
			"policies": schema.ListNestedAttribute{
				Optional:    true,
				Description: "At most 10 limits on the change per period.",
				Validators:  []validator.List{listvalidator.SizeAtMost(10)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type": schema.StringAttribute{Required: true, Description: "`Pods` or `Percent`.",
						Validators: []validator.String{stringvalidator.OneOf("Pods", "Percent")}},
					"value": schema.Int64Attribute{CustomType: intType{}, Required: true, Description: "Allowed change, in pods or percent; at least 1.",
						Validators: []validator.Int64{int64validator.Between(1, 2147483647)}},
					"period": schema.StringAttribute{Required: true, CustomType: durationType{}, PlanModifiers: []planmodifier.String{keepDurationSpelling{}},
						Description: "Window the change is measured over, a Go duration in (0s, 30m].",
						Validators:  []validator.String{stringvalidator.RegexMatches(durationRE, "must be a Go duration such as \"15s\""), durationMax{max: 30 * time.Minute, positive: true}}},
				}},
			},
		},
	}
}

// metricsAttr is the schema of a list of MetricSpecs, shared by the
// resources whose API has one; desc and typeDesc say what the list and the
// type accept there.
func metricsAttr(desc, typeDesc string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:    true,
		Description: desc,
		Validators:  []validator.List{listvalidator.SizeBetween(1, 10)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"type": schema.StringAttribute{Required: true, Description: typeDesc,
				Validators: []validator.String{stringvalidator.OneOf("Resource", "PromQL")}},
			"resource": schema.SingleNestedAttribute{Optional: true, Description: "Pod resource utilisation target; only with type `Resource`.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, Description: "`cpu` or `memory`.", Validators: []validator.String{stringvalidator.OneOf("cpu", "memory")}},
					"target_average_utilization": schema.Int64Attribute{CustomType: intType{}, Required: true, Description: "Wanted mean utilisation in percent of requests, 1 to 1000.",
						Validators: []validator.Int64{int64validator.Between(1, 1000)}},
				}},
			"promql": schema.SingleNestedAttribute{Optional: true, Description: "Prometheus query and target; only with type `PromQL`.",
				Attributes: map[string]schema.Attribute{
					"query": schema.StringAttribute{Required: true, Description: "PromQL expression returning one sample, 1 to 4096 characters, checked at plan time with Prometheus' parser (an instant vector or a scalar, not a range vector).",
						Validators: []validator.String{stringvalidator.LengthBetween(1, 4096), promQLQuery{}}},
					"target_value": schema.StringAttribute{Required: true, Description: "Value the query should have (per replica with target_type `AverageValue`), a quantity greater than 0 such as `100` or `250m`.",
						Validators: []validator.String{positiveQuantity{}}},
					"target_type": schema.StringAttribute{Optional: true, Description: "`AverageValue` (the query returns a total that replicas share) or `Value`. The API's default is `AverageValue`.",
						Validators: []validator.String{stringvalidator.OneOf("AverageValue", "Value")}},
				}},
		}},
	}
}

func (r *burstPolicyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "Manages a BurstPolicy (hca.dev/v1alpha1) in the control cluster: the runtime scales a workload in " +
			"its primary cluster with the chosen algorithm and, when pods stay Unschedulable there, bursts the " +
			"deficit into the burst target clusters. Every field of the API is an argument, checked at plan time " +
			"with the API's own rules. Optional arguments left unset take the API's defaults (shown in their " +
			"descriptions) and stay unset in the state. Import with `<namespace>/<name>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "`<namespace>/<name>`; the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the BurstPolicy, a DNS subdomain of 1 to 253 characters. Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")},
			},
			"namespace": schema.StringAttribute{
				Required:      true,
				Description:   "Namespace of the BurstPolicy and its workload, a DNS label (it must exist). Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit")},
			},
			"target": schema.SingleNestedAttribute{
				Required:    true,
				Description: "The workload: a Deployment by name (`deployment_name`), or the Deployments carrying labels (`match_labels`); exactly one of the two.",
				Attributes: map[string]schema.Attribute{
					"deployment_name": schema.StringAttribute{Optional: true, Description: "Name of the Deployment, a DNS subdomain.",
						Validators: []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain")}},
					"match_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						Description: "Labels (1 to 32 valid Kubernetes labels) the Deployments must all carry; each is scaled and burst on its own.",
						Validators:  []validator.Map{mapvalidator.SizeBetween(1, 32), labelsValidator}},
				},
			},
			"primary_cluster": schema.StringAttribute{
				Required:    true,
				Description: "Name of the HybridCluster where the workload runs and is scaled first (a DNS subdomain).",
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain")},
			},
			"burst_targets": schema.ListNestedAttribute{
				Required:    true,
				Description: "1 to 32 clusters that receive the replicas the primary cannot schedule, in order of preference; each at most once, and not `primary_cluster`.",
				Validators:  []validator.List{listvalidator.SizeBetween(1, 32)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cluster": schema.StringAttribute{Required: true, Description: "Name of the HybridCluster.",
						Validators: []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain")}},
					"weight": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Share under placement `weighted`, 0 to 1000 (0: never used by weighted placement). The API's default is 1.",
						Validators: []validator.Int64{int64validator.Between(0, 1000)}},
					"max_replicas": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Most replicas placed in this cluster, 0 or more. Unset: its free capacity and limits cap them.",
						Validators: []validator.Int64{int64validator.Between(0, 2147483647)}},
				}},
			},
			"placement": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("priority"),
				Description: "How a replica deficit is spread over the burst targets: `priority`, `cheapest`, `weighted` (needs a target with weight > 0) or `capacity`. Defaults to `priority`. `priority`, `cheapest` and `capacity` fill room on running nodes first, in their order, and only then room the targets' node groups must buy (a node boot is a minute or more); `weighted` keeps its split.",
				Validators:  []validator.String{stringvalidator.OneOf("priority", "cheapest", "weighted", "capacity")},
			},
			"min_replicas": schema.Int64Attribute{
				CustomType: intType{},
				Optional:   true, Computed: true, Default: int64default.StaticInt64(1),
				Description: "Fewest replicas of the workload (all clusters), 1 or more and at most `max_replicas`. Defaults to 1.",
				Validators:  []validator.Int64{int64validator.Between(1, 2147483647)},
			},
			"max_replicas": schema.Int64Attribute{
				CustomType:  intType{},
				Required:    true,
				Description: "Most replicas of the workload (all clusters), 1 or more.",
				Validators:  []validator.Int64{int64validator.Between(1, 2147483647)},
			},
			"metrics": metricsAttr("1 to 10 metrics the replica count is computed from; the largest proposal wins. Unset: CPU at 80 % of requests (the API's default).",
				"`Resource` (set `resource`) or `PromQL` (set `promql`)."),
			"algorithm": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "Scaling algorithm and its parameters; only the chosen algorithm's block may be set. Unset: `adaptive` with its defaults.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Optional: true, Description: "`adaptive`, `kubernetes`, `frss` or `panic`. Unset: the algorithm whose parameter block is set, else the API's default `adaptive` (panic mode's speed on steps, the HPA's scale-down stabilisation and a load forecast).",
						Validators: []validator.String{stringvalidator.OneOf("adaptive", "kubernetes", "frss", "panic")}},
					"adaptive": schema.SingleNestedAttribute{Optional: true, Description: "Adaptive algorithm parameters.",
						Attributes: map[string]schema.Attribute{
							"scale_down_stabilization_window": durationAttr("The count never drops below the highest recommendation of this trailing window, unless the load fell by a step (to half or less for a minute); a Go duration in [0s, 1h] (API default `5m`).", durationMax{max: time.Hour}),
							"forecast_horizon":                forecastHorizonAttr(),
							"seasonal_period":                 durationAttr("Period of the seasonal forecast (`24h` daily, `168h` weekly); `0s` turns it off. A Go duration in [0s, 192h] (API default `24h`).", durationMax{max: 192 * time.Hour}),
							"headroom_percent": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Spare replicas kept ready on top of the count the load needs, in percent of that count, rounded up; 0 to 1000 (API default 0: none). With `headroom_replicas` the larger wins. Spare replicas are kept where they are cheapest: in the primary while it has room, then, after the load's burst replicas (placed by `placement`), on the burst target cheapest per pod-hour with room; the policy's `status.headroom` shows them and their cost per hour.",
								Validators: []validator.Int64{int64validator.Between(0, 1000)}},
							"headroom_replicas": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Spare replicas kept ready on top of the count the load needs; 0 to 10000 (API default 0: none). With `headroom_percent` the larger wins. Spare replicas are kept where they are cheapest, as with `headroom_percent`.",
								Validators: []validator.Int64{int64validator.Between(0, 10000)}},
						}},
					"kubernetes": schema.SingleNestedAttribute{Optional: true, Description: "Horizontal Pod Autoscaler parameters (Kubernetes' defaults when unset).",
						Attributes: map[string]schema.Attribute{
							"tolerance":  toleranceAttr("Relative distance from the target within which nothing changes (default 0.1)."),
							"scale_up":   scalingRulesAttr("increasing"),
							"scale_down": scalingRulesAttr("decreasing"),
						}},
					"frss": schema.SingleNestedAttribute{Optional: true, Description: "Fast-Response/Slow-Shrinkage parameters.",
						Attributes: map[string]schema.Attribute{
							"tolerance": toleranceAttr("Relative distance from the target within which nothing changes (API default 0.2)."),
							"scale_up_rate": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "One scale-up step reaches at most current x (1 + rate) replicas, 1 to 1000 (API default 9).",
								Validators: []validator.Int64{int64validator.Between(1, 1000)}},
							"up_window":   durationAttr("Scale-up stabilisation window, a Go duration (API default `0s`)."),
							"down_window": durationAttr("How long load must stay low before each shrink step, a Go duration (API default `9m`)."),
							"shrink_step": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Pods removed per down window, 1 or more (API default 1).",
								Validators: []validator.Int64{int64validator.Between(1, 2147483647)}},
						}},
					"panic": schema.SingleNestedAttribute{Optional: true, Description: "Knative KPA parameters.",
						Attributes: map[string]schema.Attribute{
							"stable_window": durationAttr("Averaging window in normal mode, a Go duration in [6s, 1h] (API default `60s`).", durationMax{min: 6 * time.Second, max: time.Hour}),
							"panic_window":  durationAttr("Averaging window that detects bursts, a Go duration of at least 1s, shorter than `stable_window` (API default `6s`).", durationMax{min: time.Second}),
							"panic_threshold_percent": schema.Int64Attribute{CustomType: intType{}, Optional: true, Description: "Panic window load, in percent of current capacity, that starts panic mode; 110 to 1000 (API default 200).",
								Validators: []validator.Int64{int64validator.Between(110, 1000)}},
							"max_scale_up_rate": schema.StringAttribute{Optional: true, Description: "One step reaches at most current x rate replicas; a decimal greater than 1 (API default 1000).",
								Validators: []validator.String{quantityRange{min: "1"}}},
							"max_scale_down_rate": schema.StringAttribute{Optional: true, Description: "One step goes down to at least current / rate replicas; a decimal greater than 1 (API default 2).",
								Validators: []validator.String{quantityRange{min: "1"}}},
						}},
				},
			},
			"propagate": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "Objects of the policy's namespace copied with the workload into each burst cluster it reaches (and deleted there when it leaves).",
				Attributes: map[string]schema.Attribute{
					"config_maps": selectorAttr("ConfigMaps"),
					"secrets":     selectorAttr("Secrets"),
					"services":    selectorAttr("Services (without cluster IPs and node ports)"),
				},
			},
			"consul": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "Registers the replicas of every cluster in Consul (one instance per cluster, tagged with the cluster and its weight). Unset: no registration.",
				Attributes: map[string]schema.Attribute{
					"service_name": schema.StringAttribute{Required: true, Description: "Consul service, a DNS label of 1 to 63 characters.",
						Validators: []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label")}},
					"port": schema.Int64Attribute{CustomType: intType{}, Required: true, Description: "Port the load balancer sends traffic to, 1 to 65535.",
						Validators: []validator.Int64{int64validator.Between(1, 65535)}},
					"tags": schema.SetAttribute{Optional: true, ElementType: types.StringType, Description: "At most 32 tags of 1 to 255 characters, added to every instance.",
						Validators: []validator.Set{setvalidator.SizeAtMost(32), setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, 255))}},
				},
			},
			"schedules": schedulesAttr("the floor of the total replica count (all clusters) to its `min_replicas`; it is in force from each `start`, less the adaptive algorithm's `forecast_horizon` so that the replicas are ready when it opens, for `duration`"),
			"pending_threshold": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("5s"), CustomType: durationType{},
				PlanModifiers: []planmodifier.String{keepDurationSpelling{}},
				Description:   "How long a pod must stay Unschedulable before the deficit bursts, a Go duration (`0s` bursts at once). Defaults to `5s`.",
				Validators:    []validator.String{stringvalidator.RegexMatches(durationRE, "must be a Go duration such as \"5s\" or \"1m\"")},
			},
			"failover_after": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("90s"), CustomType: durationType{},
				PlanModifiers: []planmodifier.String{keepDurationSpelling{}},
				Description: "How long a burst cluster holding replicas may stay unreachable before its replicas are written off and " +
					"placed again elsewhere (the primary first if it has room, then the other `burst_targets` in placement order); " +
					"its stale replicas there are removed when it answers again. A Go duration in [0s, 1h]; `0s` never fails over " +
					"(the replicas are held until the cluster answers). Defaults to `90s`.",
				Validators: []validator.String{stringvalidator.RegexMatches(durationRE, "must be a Go duration such as \"90s\" or \"2m\""), durationMax{max: time.Hour}},
			},
			"capacity": schema.SingleNestedAttribute{
				Optional: true,
				Description: "Which nodes the runtime may buy for this policy in the burst clusters' node groups " +
					"(`hca_cluster.node_groups`). Unset: on-demand groups only, nodes released after `2m` empty.",
				Attributes: map[string]schema.Attribute{
					"allow_spot": schema.BoolAttribute{
						Optional: true,
						Description: "Whether the runtime may buy spot nodes (cheaper, interruptible) for the policy's " +
							"replicas; spot groups are then used first. Defaults to `false`.",
					},
					"scale_down_delay": durationAttr("How long a node the policy grew must be empty before it is "+
						"released, a Go duration in [0s, 24h] (API default `2m`, about the time a replacement node takes to serve: boot plus pod start-up; Cluster Autoscaler's is `10m`).", durationMax{max: 24 * time.Hour}),
				},
			},
			"phase": schema.StringAttribute{
				Computed:      true,
				Description:   "What the policy is doing, as the runtime last reported: `Watching`, `Bursting`, `ScalingBack`, `Degraded`, or empty before the runtime acts.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"replicas": schema.ListNestedAttribute{
				Computed:    true,
				Description: "Replicas of the workload per cluster as the runtime last reported: `cluster`, `desired`, `ready`, `pending` (Unschedulable), and the cluster's node-group nodes `nodes_ready` and `nodes_requested` (booting).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cluster":         schema.StringAttribute{Computed: true, Description: "HybridCluster name."},
					"desired":         schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Replica count set there."},
					"ready":           schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Ready pods there."},
					"pending":         schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Unschedulable pods there."},
					"nodes_ready":     schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Ready nodes of the cluster's node groups (0 without node groups)."},
					"nodes_requested": schema.Int64Attribute{CustomType: intType{}, Computed: true, Description: "Nodes the runtime asked the cloud for that are not Ready yet (booting)."},
				}},
			},
		},
	}
	addQuantitySpelling(resp.Schema.Attributes)
}

func (r *burstPolicyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

// burstPolicies does the hca_burst_policy's API calls.
var burstPolicies = customResource[hcav1.BurstPolicy, *hcav1.BurstPolicy]{
	kind: "BurstPolicy", what: "burst policy", importExample: "terraform import hca_burst_policy.web shop/web",
	setSpec: func(dst, src *hcav1.BurstPolicy) { dst.Spec = src.Spec },
}

func (r *burstPolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan burstPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	bp, ok := burstPolicies.create(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = types.StringValue(bp.Namespace + "/" + bp.Name)
	plan.setStatus(bp, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *burstPolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state burstPolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	bp, ok := burstPolicies.read(ctx, r.clients, state.ID.ValueString(), &resp.State, &resp.Diagnostics)
	if !ok {
		return
	}
	next := burstPolicyFromAPI(bp, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &next)...)
}

func (r *burstPolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan burstPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	bp, ok := burstPolicies.update(ctx, r.clients, plan.toAPI, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.setStatus(bp, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *burstPolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state burstPolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	burstPolicies.delete(ctx, r.clients, state.ID.ValueString(), 2*time.Minute, &resp.Diagnostics)
}

func (r *burstPolicyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	burstPolicies.importState(ctx, req, resp)
}

// ModifyPlan plans no change when only values left unknown differ from the
// state (planUnchangedAsState).
func (r *burstPolicyResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	planUnchangedAsState(req, resp)
}

// ValidateConfig checks the BurstPolicy's cross-field (CEL) rules at plan time.
func (r *burstPolicyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m burstPolicyModel
	if diags := req.Config.Get(ctx, &m); diags.HasError() {
		// A nested object not known yet: the API checks it at apply.
		return
	}
	resp.Diagnostics.Append(validateBurstPolicy(&m)...)
}

// validateBurstPolicy mirrors the CEL rules of the BurstPolicy CRD, for the
// values known at plan time.
func validateBurstPolicy(m *burstPolicyModel) diag.Diagnostics {
	var d diag.Diagnostics
	known := func(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
	if known(m.MinReplicas) && known(m.MaxReplicas) && m.MinReplicas.ValueInt64() > m.MaxReplicas.ValueInt64() {
		d.AddAttributeError(path.Root("min_replicas"), "Invalid min_replicas",
			fmt.Sprintf("min_replicas (%d) must be <= max_replicas (%d).", m.MinReplicas.ValueInt64(), m.MaxReplicas.ValueInt64()))
	}
	if t := m.Target; t != nil && !t.DeploymentName.IsUnknown() && !t.MatchLabels.IsUnknown() && t.DeploymentName.IsNull() == t.MatchLabels.IsNull() {
		d.AddAttributeError(path.Root("target"), "Invalid target", "target: set exactly one of deployment_name or match_labels.")
	}
	if p := m.Propagate; p != nil {
		for _, sel := range []struct {
			name string
			s    *bpObjectSelector
		}{{"config_maps", p.ConfigMaps}, {"secrets", p.Secrets}, {"services", p.Services}} {
			if sel.s != nil && sel.s.Names.IsNull() && sel.s.MatchLabels.IsNull() {
				d.AddAttributeError(path.Root("propagate").AtName(sel.name), "Invalid propagate",
					"propagate."+sel.name+": set names or match_labels (or both) to select objects to propagate.")
			}
		}
	}
	seen := map[string]int{}
	weighted := false
	for i, t := range m.BurstTargets {
		// Unset weights default to 1; an unknown one may be > 0. The
		// weight counts whether or not the cluster's name is known yet.
		if !known(t.Weight) || t.Weight.ValueInt64() > 0 {
			weighted = true
		}
		if !known(t.Cluster) {
			continue
		}
		c := t.Cluster.ValueString()
		if known(m.PrimaryCluster) && c == m.PrimaryCluster.ValueString() {
			d.AddAttributeError(path.Root("burst_targets").AtListIndex(i).AtName("cluster"), "Invalid burst_targets",
				fmt.Sprintf("burst_targets must not list primary_cluster %q: list only the clusters to burst into.", c))
		}
		if j, dup := seen[c]; dup {
			d.AddAttributeError(path.Root("burst_targets").AtListIndex(i).AtName("cluster"), "Invalid burst_targets",
				fmt.Sprintf("burst_targets[%d] and burst_targets[%d] both name cluster %q: list each cluster once.", j, i, c))
		}
		seen[c] = i
	}
	if known(m.Placement) && m.Placement.ValueString() == "weighted" && !weighted {
		d.AddAttributeError(path.Root("burst_targets"), "Invalid burst_targets",
			"placement weighted needs at least one burst_targets entry with weight > 0.")
	}
	d.Append(validateMetrics(m.Metrics)...)
	d.Append(validateSchedules(m.Schedules, m.MaxReplicas)...)
	if a := m.Algorithm; a != nil && !a.Name.IsUnknown() {
		name := a.Name.ValueString()
		if name == "" {
			name = a.implied()
		}
		for _, b := range []struct {
			n   string
			set bool
		}{{"adaptive", a.Adaptive != nil}, {"kubernetes", a.Kubernetes != nil}, {"frss", a.FRSS != nil}, {"panic", a.Panic != nil}} {
			if b.set && b.n != name {
				d.AddAttributeError(path.Root("algorithm").AtName(b.n), "Invalid algorithm",
					fmt.Sprintf("algorithm.%s is set but algorithm.name is %s: set name to %s or remove %s.", b.n, name, b.n, b.n))
			}
		}
		if p := a.Panic; p != nil {
			stable, panicW := 60*time.Second, 6*time.Second
			ok := true
			if known(p.StableWindow) {
				v, err := time.ParseDuration(p.StableWindow.ValueString())
				stable, ok = v, ok && err == nil
			} else if p.StableWindow.IsUnknown() {
				ok = false
			}
			if known(p.PanicWindow) {
				v, err := time.ParseDuration(p.PanicWindow.ValueString())
				panicW, ok = v, ok && err == nil
			} else if p.PanicWindow.IsUnknown() {
				ok = false
			}
			if ok && panicW >= stable {
				d.AddAttributeError(path.Root("algorithm").AtName("panic").AtName("panic_window"), "Invalid algorithm",
					fmt.Sprintf("algorithm.panic.panic_window (%s) must be shorter than stable_window (%s).", panicW, stable))
			}
		}
	}
	return d
}

// validateMetrics mirrors the CEL rules of MetricSpec.
func validateMetrics(ms []bpMetric) diag.Diagnostics {
	var d diag.Diagnostics
	for i, mt := range ms {
		p := path.Root("metrics").AtListIndex(i)
		switch mt.Type.ValueString() {
		case "Resource":
			if mt.Resource == nil || mt.PromQL != nil {
				d.AddAttributeError(p, "Invalid metrics", fmt.Sprintf("metrics[%d]: type Resource requires resource (name and target_average_utilization) and no promql.", i))
			}
		case "PromQL":
			if mt.PromQL == nil || mt.Resource != nil {
				d.AddAttributeError(p, "Invalid metrics", fmt.Sprintf("metrics[%d]: type PromQL requires promql (query and target_value) and no resource.", i))
			}
		}
	}
	return d
}

// toAPI converts the model to a BurstPolicy; unset optional fields stay unset
// so that the API server applies its defaults.
func (m *burstPolicyModel) toAPI() (*hcav1.BurstPolicy, error) {
	bp := &hcav1.BurstPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: hcav1.GroupVersion.String(), Kind: "BurstPolicy"},
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()},
	}
	s := &bp.Spec
	if m.Target != nil {
		s.Target.DeploymentName = hcav1.ObjectName(m.Target.DeploymentName.ValueString())
		s.Target.MatchLabels = stringMap(m.Target.MatchLabels)
	}
	s.PrimaryCluster = hcav1.ClusterName(m.PrimaryCluster.ValueString())
	for _, t := range m.BurstTargets {
		s.BurstTargets = append(s.BurstTargets, hcav1.BurstTargetCluster{Cluster: hcav1.ClusterName(t.Cluster.ValueString()),
			Weight: int32Ptr(t.Weight), MaxReplicas: int32Ptr(t.MaxReplicas)})
	}
	s.Placement = hcav1.Placement(m.Placement.ValueString())
	s.MinReplicas = int32(m.MinReplicas.ValueInt64())
	s.MaxReplicas = int32(m.MaxReplicas.ValueInt64())
	var err error
	if s.Metrics, err = metricsToAPI(m.Metrics); err != nil {
		return nil, err
	}
	if a := m.Algorithm; a != nil {
		s.Algorithm.Name = hcav1.AlgorithmName(a.Name.ValueString())
		if s.Algorithm.Name == "" && a.implied() != "adaptive" {
			s.Algorithm.Name = hcav1.AlgorithmName(a.implied())
		}
		if ad := a.Adaptive; ad != nil {
			aa := &hcav1.AdaptiveAlgorithm{}
			if aa.ScaleDownStabilizationWindow, err = durationPtr(ad.ScaleDownStabilizationWindow, "algorithm.adaptive.scale_down_stabilization_window"); err != nil {
				return nil, err
			}
			if aa.ForecastHorizon, err = durationPtr(ad.ForecastHorizon, "algorithm.adaptive.forecast_horizon"); err != nil {
				return nil, err
			}
			if aa.SeasonalPeriod, err = durationPtr(ad.SeasonalPeriod, "algorithm.adaptive.seasonal_period"); err != nil {
				return nil, err
			}
			aa.HeadroomPercent, aa.HeadroomReplicas = int32(ad.HeadroomPercent.ValueInt64()), int32(ad.HeadroomReplicas.ValueInt64())
			s.Algorithm.Adaptive = aa
		}
		if k := a.Kubernetes; k != nil {
			ka := &hcav1.KubernetesAlgorithm{}
			if ka.Tolerance, err = quantityPtr(k.Tolerance, "algorithm.kubernetes.tolerance"); err != nil {
				return nil, err
			}
			if ka.ScaleUp, err = k.ScaleUp.toAPI("algorithm.kubernetes.scale_up"); err != nil {
				return nil, err
			}
			if ka.ScaleDown, err = k.ScaleDown.toAPI("algorithm.kubernetes.scale_down"); err != nil {
				return nil, err
			}
			s.Algorithm.Kubernetes = ka
		}
		if f := a.FRSS; f != nil {
			fa := &hcav1.FRSSAlgorithm{ScaleUpRate: int32(f.ScaleUpRate.ValueInt64()), ShrinkStep: int32(f.ShrinkStep.ValueInt64())}
			if fa.Tolerance, err = quantityPtr(f.Tolerance, "algorithm.frss.tolerance"); err != nil {
				return nil, err
			}
			if fa.UpWindow, err = durationPtr(f.UpWindow, "algorithm.frss.up_window"); err != nil {
				return nil, err
			}
			if fa.DownWindow, err = durationPtr(f.DownWindow, "algorithm.frss.down_window"); err != nil {
				return nil, err
			}
			s.Algorithm.FRSS = fa
		}
		if p := a.Panic; p != nil {
			pa := &hcav1.PanicAlgorithm{PanicThresholdPercent: int32(p.PanicThresholdPercent.ValueInt64())}
			if pa.StableWindow, err = durationPtr(p.StableWindow, "algorithm.panic.stable_window"); err != nil {
				return nil, err
			}
			if pa.PanicWindow, err = durationPtr(p.PanicWindow, "algorithm.panic.panic_window"); err != nil {
				return nil, err
			}
			if pa.MaxScaleUpRate, err = quantityPtr(p.MaxScaleUpRate, "algorithm.panic.max_scale_up_rate"); err != nil {
				return nil, err
			}
			if pa.MaxScaleDownRate, err = quantityPtr(p.MaxScaleDownRate, "algorithm.panic.max_scale_down_rate"); err != nil {
				return nil, err
			}
			s.Algorithm.Panic = pa
		}
	}
	if p := m.Propagate; p != nil {
		s.Propagate = &hcav1.Propagation{ConfigMaps: p.ConfigMaps.toAPI(), Secrets: p.Secrets.toAPI(), Services: p.Services.toAPI()}
	}
	if c := m.Consul; c != nil {
		s.Consul = &hcav1.ConsulRegistration{ServiceName: c.ServiceName.ValueString(), Port: int32(c.Port.ValueInt64()), Tags: stringSet(c.Tags)}
	}
	if s.PendingThreshold, err = durationPtr(m.PendingThreshold, "pending_threshold"); err != nil {
		return nil, err
	}
	if s.FailoverAfter, err = durationPtr(m.FailoverAfter, "failover_after"); err != nil {
		return nil, err
	}
	if s.Schedules, err = schedulesToAPI(m.Schedules); err != nil {
		return nil, err
	}
	if c := m.Capacity; c != nil {
		s.Capacity = &hcav1.BurstCapacity{AllowSpot: c.AllowSpot.ValueBool()}
		if s.Capacity.ScaleDownDelay, err = durationPtr(c.ScaleDownDelay, "capacity.scale_down_delay"); err != nil {
			return nil, err
		}
	}
	return bp, nil
}

// metricsToAPI converts metrics; an unset list stays unset (the API's
// default).
func metricsToAPI(ms []bpMetric) ([]hcav1.MetricSpec, error) {
	var out []hcav1.MetricSpec
	for i, mt := range ms {
		spec := hcav1.MetricSpec{Type: hcav1.MetricSourceType(mt.Type.ValueString())}
		if r := mt.Resource; r != nil {
			spec.Resource = &hcav1.ResourceMetric{Name: hcav1.ResourceName(r.Name.ValueString()), TargetAverageUtilization: int32(r.TargetAverageUtilization.ValueInt64())}
		}
		if p := mt.PromQL; p != nil {
			q, err := kresource.ParseQuantity(p.TargetValue.ValueString())
			if err != nil {
				return nil, fmt.Errorf("metrics[%d].promql.target_value %q is not a quantity: %w", i, p.TargetValue.ValueString(), err)
			}
			spec.PromQL = &hcav1.PromQLMetric{Query: p.Query.ValueString(), TargetValue: q, TargetType: hcav1.PromQLTargetType(p.TargetType.ValueString())}
		}
		out = append(out, spec)
	}
	return out, nil
}

func (r *bpScalingRules) toAPI(where string) (*hcav1.ScalingRules, error) {
	if r == nil {
		return nil, nil
	}
	out := &hcav1.ScalingRules{SelectPolicy: hcav1.SelectPolicy(r.SelectPolicy.ValueString())}
	var err error
	if out.StabilizationWindow, err = durationPtr(r.StabilizationWindow, where+".stabilization_window"); err != nil {
		return nil, err
	}
	if out.Tolerance, err = quantityPtr(r.Tolerance, where+".tolerance"); err != nil {
		return nil, err
	}
	for i, p := range r.Policies {
		d, err := time.ParseDuration(p.Period.ValueString())
		if err != nil {
			return nil, fmt.Errorf("%s.policies[%d].period %q is not a duration: %w", where, i, p.Period.ValueString(), err)
		}
		out.Policies = append(out.Policies, hcav1.ScalingPolicy{Type: hcav1.ScalingPolicyType(p.Type.ValueString()), Value: int32(p.Value.ValueInt64()), Period: metav1.Duration{Duration: d}})
	}
	return out, nil
}

func (o *bpObjectSelector) toAPI() *hcav1.ObjectSelector {
	if o == nil {
		return nil
	}
	out := &hcav1.ObjectSelector{MatchLabels: stringMap(o.MatchLabels)}
	for _, n := range stringSet(o.Names) {
		out.Names = append(out.Names, hcav1.ObjectName(n))
	}
	return out
}

// burstPolicyFromAPI converts a BurstPolicy to the model. prior is the state
// (or the plan) it refreshes: an argument unset there stays unset when the
// API holds its default, and durations and quantities keep prior's spelling
// when they are equal ("1m" and "60s").
func burstPolicyFromAPI(bp *hcav1.BurstPolicy, prior *burstPolicyModel) burstPolicyModel {
	if prior == nil {
		prior = &burstPolicyModel{}
	}
	s := bp.Spec
	m := burstPolicyModel{
		ID:               types.StringValue(bp.Namespace + "/" + bp.Name),
		Name:             types.StringValue(bp.Name),
		Namespace:        types.StringValue(bp.Namespace),
		PrimaryCluster:   types.StringValue(string(s.PrimaryCluster)),
		Placement:        types.StringValue(string(s.Placement)),
		MinReplicas:      types.Int64Value(int64(s.MinReplicas)),
		MaxReplicas:      types.Int64Value(int64(s.MaxReplicas)),
		PendingThreshold: keepDuration(prior.PendingThreshold, s.PendingThreshold, ""),
		FailoverAfter:    keepDuration(prior.FailoverAfter, s.FailoverAfter, ""),
	}
	if m.Placement.ValueString() == "" {
		m.Placement = types.StringValue("priority")
	}
	if s.MinReplicas == 0 {
		m.MinReplicas = types.Int64Value(1)
	}
	if m.PendingThreshold.IsNull() {
		m.PendingThreshold = durationOf("5s")
	}
	if m.FailoverAfter.IsNull() || (prior.FailoverAfter.IsNull() || prior.FailoverAfter.IsUnknown()) && sameDuration(m.FailoverAfter.StringValue, durationOf("90s").StringValue) {
		m.FailoverAfter = durationOf("90s") // the schema default's spelling (import has no prior)
	}
	if c := s.Capacity; c != nil {
		pc := prior.Capacity
		if pc == nil {
			pc = &bpCapacity{}
		}
		capacity := &bpCapacity{AllowSpot: types.BoolNull(), ScaleDownDelay: keepDuration(pc.ScaleDownDelay, c.ScaleDownDelay, "2m")}
		if c.AllowSpot || (!pc.AllowSpot.IsNull() && !pc.AllowSpot.IsUnknown()) {
			capacity.AllowSpot = types.BoolValue(c.AllowSpot)
		}
		if prior.Capacity != nil || !capacity.AllowSpot.IsNull() || !capacity.ScaleDownDelay.IsNull() {
			m.Capacity = capacity
		}
	}
	m.Target = &bpTarget{DeploymentName: optString(types.StringNull(), string(s.Target.DeploymentName), ""), MatchLabels: mapValue(s.Target.MatchLabels)}
	for i, t := range s.BurstTargets {
		var pt bpBurstTarget
		if i < len(prior.BurstTargets) {
			pt = prior.BurstTargets[i]
		}
		m.BurstTargets = append(m.BurstTargets, bpBurstTarget{
			Cluster:     types.StringValue(string(t.Cluster)),
			Weight:      optInt(pt.Weight, t.Weight, 1),
			MaxReplicas: optInt(types.Int64Null(), t.MaxReplicas, -1),
		})
	}
	m.Metrics = metricsFromAPI(s.Metrics, prior.Metrics)
	m.Schedules = schedulesFromAPI(s.Schedules, prior.Schedules)
	a := s.Algorithm
	pa := prior.Algorithm
	if pa == nil {
		pa = &bpAlgorithm{}
	}
	alg := &bpAlgorithm{Name: optString(pa.Name, string(a.Name), pa.implied())}
	if ad := a.Adaptive; ad != nil {
		pad := pa.Adaptive
		if pad == nil {
			pad = &bpAdaptive{}
		}
		alg.Adaptive = &bpAdaptive{
			ScaleDownStabilizationWindow: keepDuration(pad.ScaleDownStabilizationWindow, ad.ScaleDownStabilizationWindow, "5m"),
			ForecastHorizon:              keepDuration(pad.ForecastHorizon, ad.ForecastHorizon, ""), // no default: unset is derived
			SeasonalPeriod:               keepDuration(pad.SeasonalPeriod, ad.SeasonalPeriod, "24h"),
			HeadroomPercent:              optInt(pad.HeadroomPercent, &ad.HeadroomPercent, 0),
			HeadroomReplicas:             optInt(pad.HeadroomReplicas, &ad.HeadroomReplicas, 0),
		}
	}
	if k := a.Kubernetes; k != nil {
		pk := pa.Kubernetes
		if pk == nil {
			pk = &bpKubernetes{}
		}
		alg.Kubernetes = &bpKubernetes{Tolerance: keepQuantity(pk.Tolerance, k.Tolerance),
			ScaleUp: scalingRulesFromAPI(k.ScaleUp, pk.ScaleUp), ScaleDown: scalingRulesFromAPI(k.ScaleDown, pk.ScaleDown)}
	}
	if f := a.FRSS; f != nil {
		pf := pa.FRSS
		if pf == nil {
			pf = &bpFRSS{}
		}
		sur, ss := f.ScaleUpRate, f.ShrinkStep
		alg.FRSS = &bpFRSS{
			Tolerance:   keepDefaultQuantity(pf.Tolerance, f.Tolerance, "0.2"),
			ScaleUpRate: optInt(pf.ScaleUpRate, &sur, 9),
			UpWindow:    keepDuration(pf.UpWindow, f.UpWindow, "0s"),
			DownWindow:  keepDuration(pf.DownWindow, f.DownWindow, "9m"),
			ShrinkStep:  optInt(pf.ShrinkStep, &ss, 1),
		}
	}
	if p := a.Panic; p != nil {
		pp := pa.Panic
		if pp == nil {
			pp = &bpPanic{}
		}
		pt := p.PanicThresholdPercent
		alg.Panic = &bpPanic{
			StableWindow:          keepDuration(pp.StableWindow, p.StableWindow, "60s"),
			PanicWindow:           keepDuration(pp.PanicWindow, p.PanicWindow, "6s"),
			PanicThresholdPercent: optInt(pp.PanicThresholdPercent, &pt, 200),
			MaxScaleUpRate:        keepDefaultQuantity(pp.MaxScaleUpRate, p.MaxScaleUpRate, "1000"),
			MaxScaleDownRate:      keepDefaultQuantity(pp.MaxScaleDownRate, p.MaxScaleDownRate, "2"),
		}
	}
	if !(prior.Algorithm == nil && alg.Name.IsNull() && alg.Adaptive == nil && alg.Kubernetes == nil && alg.FRSS == nil && alg.Panic == nil) {
		m.Algorithm = alg
	}
	if p := s.Propagate; p != nil {
		m.Propagate = &bpPropagate{ConfigMaps: selectorFromAPI(p.ConfigMaps), Secrets: selectorFromAPI(p.Secrets), Services: selectorFromAPI(p.Services)}
	}
	if c := s.Consul; c != nil {
		m.Consul = &bpConsul{ServiceName: types.StringValue(c.ServiceName), Port: types.Int64Value(int64(c.Port)), Tags: setValue(c.Tags)}
	}
	m.setStatus(bp, false)
	return m
}

// metricsFromAPI converts metrics to the model: unset in prior stays unset
// while the API holds its default (CPU at 80 %), and target values keep
// prior's spelling when equal.
func metricsFromAPI(ms []hcav1.MetricSpec, prior []bpMetric) []bpMetric {
	if prior == nil && isDefaultMetrics(ms) {
		return nil
	}
	var out []bpMetric
	for i, mt := range ms {
		var pm bpMetric
		if i < len(prior) {
			pm = prior[i]
		}
		m := bpMetric{Type: types.StringValue(string(mt.Type))}
		if r := mt.Resource; r != nil {
			m.Resource = &bpResourceMetric{Name: types.StringValue(string(r.Name)), TargetAverageUtilization: types.Int64Value(int64(r.TargetAverageUtilization))}
		}
		if p := mt.PromQL; p != nil {
			var pp bpPromQLMetric
			if pm.PromQL != nil {
				pp = *pm.PromQL
			}
			q := p.TargetValue
			m.PromQL = &bpPromQLMetric{Query: types.StringValue(p.Query), TargetValue: keepQuantity(pp.TargetValue, &q),
				TargetType: optString(pp.TargetType, string(p.TargetType), "AverageValue")}
		}
		out = append(out, m)
	}
	return out
}

func scalingRulesFromAPI(r *hcav1.ScalingRules, prior *bpScalingRules) *bpScalingRules {
	if r == nil {
		return nil
	}
	if prior == nil {
		prior = &bpScalingRules{}
	}
	out := &bpScalingRules{
		StabilizationWindow: keepDuration(prior.StabilizationWindow, r.StabilizationWindow, ""),
		Tolerance:           keepQuantity(prior.Tolerance, r.Tolerance),
		SelectPolicy:        optString(prior.SelectPolicy, string(r.SelectPolicy), "Max"),
	}
	for i, p := range r.Policies {
		var pp durationString
		if i < len(prior.Policies) {
			pp = prior.Policies[i].Period
		}
		d := p.Period
		out.Policies = append(out.Policies, bpScalingPolicy{Type: types.StringValue(string(p.Type)), Value: types.Int64Value(int64(p.Value)),
			Period: keepDuration(pp, &d, "")})
	}
	return out
}

func selectorFromAPI(o *hcav1.ObjectSelector) *bpObjectSelector {
	if o == nil {
		return nil
	}
	names := make([]string, len(o.Names))
	for i, n := range o.Names {
		names[i] = string(n)
	}
	if o.Names == nil {
		names = nil
	}
	return &bpObjectSelector{Names: setValue(names), MatchLabels: mapValue(o.MatchLabels)}
}

// setStatus sets phase and replicas; with onlyUnknown, only when the plan
// left them unknown.
func (m *burstPolicyModel) setStatus(bp *hcav1.BurstPolicy, onlyUnknown bool) {
	if !onlyUnknown || m.Phase.IsUnknown() {
		m.Phase = types.StringValue(string(bp.Status.Phase))
	}
	if onlyUnknown && !m.Replicas.IsUnknown() {
		return
	}
	m.Replicas = replicasList(bp.Status.Replicas)
}

// replicasList renders a status' replicas per cluster, sorted by cluster.
func replicasList(replicas []hcav1.ClusterReplicas) types.List {
	rs := append([]hcav1.ClusterReplicas(nil), replicas...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Cluster < rs[j].Cluster })
	elems := make([]attr.Value, len(rs))
	for i, r := range rs {
		elems[i] = types.ObjectValueMust(replicasAttrs, map[string]attr.Value{"cluster": types.StringValue(string(r.Cluster)),
			"desired": types.Int64Value(int64(r.Desired)), "ready": types.Int64Value(int64(r.Ready)), "pending": types.Int64Value(int64(r.Pending)),
			"nodes_ready": types.Int64Value(int64(r.NodesReady)), "nodes_requested": types.Int64Value(int64(r.NodesRequested))})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: replicasAttrs}, elems)
}

func isDefaultMetrics(ms []hcav1.MetricSpec) bool {
	return len(ms) == 0 || (len(ms) == 1 && ms[0].Type == hcav1.MetricResource && ms[0].Resource != nil && ms[0].PromQL == nil &&
		ms[0].Resource.Name == hcav1.ResourceCPU && ms[0].Resource.TargetAverageUtilization == 80)
}

// optString is v, except that an unset prior stays unset when v is empty or
// the API's default def.
func optString(prior types.String, v, def string) types.String {
	if (prior.IsNull() || prior.IsUnknown()) && (v == "" || v == def) {
		return types.StringNull()
	}
	return types.StringValue(v)
}

// optInt is *v, except that an unset prior stays unset when v is nil or the
// API's default def (-1: no default).
func optInt(prior types.Int64, v *int32, def int64) types.Int64 {
	if v == nil {
		return types.Int64Null()
	}
	if (prior.IsNull() || prior.IsUnknown()) && (int64(*v) == def || (def != -1 && *v == 0)) {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*v))
}

// keepDuration returns the duration, in prior's spelling when equal; an unset
// prior stays unset when d is nil or the API's default def.
func keepDuration(prior durationString, d *metav1.Duration, def string) durationString {
	if d == nil {
		return durationNull()
	}
	v := durationOf(shortDuration(d.Duration))
	switch {
	case sameDuration(prior.StringValue, v.StringValue):
		return prior
	case (prior.IsNull() || prior.IsUnknown()) && def != "" && sameDuration(durationOf(def).StringValue, v.StringValue):
		return durationNull()
	}
	return v
}

// shortDuration formats d as people write it: "1m" rather than "1m0s", "1h"
// rather than "1h0m0s" (an import has no configured spelling to keep).
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func keepDefaultQuantity(prior types.String, q *kresource.Quantity, def string) types.String {
	if q != nil && (prior.IsNull() || prior.IsUnknown()) && q.Cmp(kresource.MustParse(def)) == 0 {
		return types.StringNull()
	}
	return keepQuantity(prior, q)
}

func int32Ptr(v types.Int64) *int32 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	i := int32(v.ValueInt64())
	return &i
}

func quantityPtr(v types.String, where string) (*kresource.Quantity, error) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}
	q, err := kresource.ParseQuantity(v.ValueString())
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a decimal: %w", where, v.ValueString(), err)
	}
	return &q, nil
}

func durationPtr(v durationString, where string) (*metav1.Duration, error) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}
	d, err := time.ParseDuration(v.ValueString())
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a duration: %w", where, v.ValueString(), err)
	}
	return &metav1.Duration{Duration: d}, nil
}

func stringMap(v types.Map) map[string]string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	for k, e := range v.Elements() {
		if s, ok := e.(types.String); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

func stringSet(v types.Set) []string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	var out []string
	for _, e := range v.Elements() {
		if s, ok := e.(types.String); ok {
			out = append(out, s.ValueString())
		}
	}
	sort.Strings(out)
	return out
}

func mapValue(m map[string]string) types.Map {
	if m == nil {
		return types.MapNull(types.StringType)
	}
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func setValue(ss []string) types.Set {
	if ss == nil {
		return types.SetNull(types.StringType)
	}
	elems := make([]attr.Value, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	return types.SetValueMust(types.StringType, elems)
}

// quantityRange checks a decimal in [min, max) (or (min, max) without
// minIncl, and up to max included with maxIncl; no max when empty).
type quantityRange struct {
	min, max         string
	minIncl, maxIncl bool
}

func (v quantityRange) Description(context.Context) string {
	lo := "greater than " + v.min
	if v.minIncl {
		lo = "at least " + v.min
	}
	switch {
	case v.max == "":
		return "must be a decimal " + lo
	case v.maxIncl:
		return "must be a decimal " + lo + " and at most " + v.max
	}
	return "must be a decimal " + lo + " and less than " + v.max
}
func (v quantityRange) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v quantityRange) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	q, err := kresource.ParseQuantity(s)
	bad := err != nil
	if !bad {
		c := q.Cmp(kresource.MustParse(v.min))
		bad = c < 0 || (c == 0 && !v.minIncl)
		if v.max != "" {
			h := q.Cmp(kresource.MustParse(v.max))
			bad = bad || h > 0 || (h == 0 && !v.maxIncl)
		}
	}
	if bad {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s %s, got %q.", req.Path, v.Description(ctx), s))
	}
}

// durationMax checks a Go duration's bounds: at least min, at most max (when
// set), and greater than 0 with positive (with or without max).
type durationMax struct {
	min, max time.Duration
	positive bool
}

func (v durationMax) Description(context.Context) string {
	switch {
	case v.positive && v.max == 0:
		return "must be greater than 0s"
	case v.positive:
		return fmt.Sprintf("must be greater than 0s and at most %s", v.max)
	case v.max == 0:
		return fmt.Sprintf("must be at least %s", v.min)
	case v.min == 0:
		return fmt.Sprintf("must be at most %s", v.max)
	}
	return fmt.Sprintf("must be in [%s, %s]", v.min, v.max)
}
func (v durationMax) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v durationMax) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil {
		return // the pattern validator reports it
	}
	if d < v.min || (v.max != 0 && d > v.max) || (v.positive && d <= 0) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), fmt.Sprintf("%s %s, got %q.", req.Path, v.Description(ctx), req.ConfigValue.ValueString()))
	}
}
