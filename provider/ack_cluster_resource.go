package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"time"

	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/requests"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

var (
	_ resource.Resource                = (*ackClusterResource)(nil)
	_ resource.ResourceWithConfigure   = (*ackClusterResource)(nil)
	_ resource.ResourceWithImportState = (*ackClusterResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*ackClusterResource)(nil)

	_ resource.ResourceWithValidateConfig = (*ackClusterResource)(nil)
)

// NewACKClusterResource returns the hca_ack_cluster resource.
func NewACKClusterResource() resource.Resource {
	return &ackClusterResource{}
}

const (
	ackDefaultCreateTimeout = 30 * time.Minute
	ackDefaultDeleteTimeout = 20 * time.Minute
	ackClusterType          = "ManagedKubernetes"
	// ACK's service errors carry these codes (in the JSON of the message).
	ackCodeClusterNotFound = "ErrorClusterNotFound"
)

var (
	ackNameRE         = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_-]{0,62}$`)
	ackRegionRE       = regexp.MustCompile(`^[a-z]{2}-[a-z0-9-]+$`)
	ackVersionRE      = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+-aliyun\.[0-9]+$`)
	ackVSwitchRE      = regexp.MustCompile(`^vsw-[0-9a-z]+$`)
	ackInstanceTypeRE = regexp.MustCompile(`^ecs\.[a-z0-9-]+\.[a-z0-9]+$`)
)

type ackClusterResource struct {
	clients *Clients
}

type ackClusterModel struct {
	ID                  types.String   `tfsdk:"id"`
	Name                types.String   `tfsdk:"name"`
	Region              types.String   `tfsdk:"region"`
	KubernetesVersion   types.String   `tfsdk:"kubernetes_version"`
	VSwitchIDs          types.List     `tfsdk:"vswitch_ids"`
	ClusterSpec         types.String   `tfsdk:"cluster_spec"`
	WorkerInstanceTypes types.List     `tfsdk:"worker_instance_types"`
	WorkerCount         types.Int64    `tfsdk:"worker_count"`
	NodePools           []ackNodePool  `tfsdk:"node_pools"`
	ClusterID           types.String   `tfsdk:"cluster_id"`
	State               types.String   `tfsdk:"state"`
	APIServerEndpoint   types.String   `tfsdk:"api_server_endpoint"`
	Kubeconfig          types.String   `tfsdk:"kubeconfig"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

// ackNodePool is one element of node_pools: an ACK node pool whose desired
// size is the runtime's when desired_size is null.
type ackNodePool struct {
	Name          types.String `tfsdk:"name"`
	InstanceTypes types.List   `tfsdk:"instance_types"`
	CapacityType  types.String `tfsdk:"capacity_type"`
	DesiredSize   types.Int64  `tfsdk:"desired_size"`
	NodePoolID    types.String `tfsdk:"node_pool_id"`
	ACK           types.Object `tfsdk:"ack"`
}

// ackPoolRefTypes are the attributes of node_pools[*].ack, the shape of
// hca_cluster's node_groups[*].ack.
var ackPoolRefTypes = map[string]attr.Type{
	"cluster_id":   types.StringType,
	"region":       types.StringType,
	"node_pool_id": types.StringType,
}

// ACK's spot strategies for capacity_type.
const (
	ackNoSpot       = "NoSpot"
	ackSpotAsPrice  = "SpotAsPriceGo"
	ackPoolNameHint = "1 to 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit"
)

var ackPoolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (r *ackClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ack_cluster"
}

func (r *ackClusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Provisions an Alibaba Cloud ACK managed Kubernetes cluster (ManagedKubernetes) with its " +
			"workers and node pools, through the Container Service (CS) API, to use as a burst target. Create waits for the " +
			"creation task to succeed and the cluster to be `running`, then reads its kubeconfig and node pools. A node " +
			"pool's desired_size changes in place, or is left to the HCA runtime when unset; the CS API operations this " +
			"provider uses cannot otherwise change a cluster, so every other argument replaces the cluster. Delete " +
			"waits for the deletion task and until the cluster is gone. Import with the cluster ID " +
			"(`c0123456789abcdef0123456789abcdef`); `worker_instance_types` is not readable and is taken from the " +
			"configuration after import.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The cluster ID (the import ID).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true,
				Description: "Name of the cluster: 1 to 63 letters, digits, `_` or `-`, starting with a letter or " +
					"digit; unique in the account. Changing it replaces the cluster.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(ackNameRE, "must be 1 to 63 letters, digits, '_' or '-', starting with a letter or digit"),
				},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"region": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Description: "Alibaba Cloud region of the cluster, such as `cn-hangzhou`. Defaults to the provider's " +
					"`alicloud.region` (or `ALICLOUD_REGION`); one of them must be set. Changing it replaces the cluster.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(ackRegionRE, "must be an Alibaba Cloud region ID such as \"cn-hangzhou\""),
				},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"kubernetes_version": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Description: "Kubernetes version, as ACK names it (such as `1.36.3-aliyun.1`); it must be a version " +
					"ACK offers (`<major>.<minor>.<patch>-aliyun.<n>`, checked at plan time). Defaults to ACK's current default. Changing it replaces the cluster.",
				Validators:    []validator.String{stringvalidator.RegexMatches(ackVersionRE, "must be an ACK Kubernetes version such as \"1.36.3-aliyun.1\"")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"vswitch_ids": schema.ListAttribute{
				Required:    true,
				ElementType: types.StringType,
				Description: "IDs of the vSwitches (`vsw-...`) of the cluster's VPC, for the control plane and the " +
					"workers: 1 to 5 distinct IDs. Changing them replaces the cluster.",
				Validators: []validator.List{
					listvalidator.SizeBetween(1, 5),
					uniqueStrings{},
					listvalidator.ValueStringsAre(stringvalidator.RegexMatches(ackVSwitchRE, "must be a vSwitch ID such as \"vsw-bp1a2b3c\"")),
				},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"cluster_spec": schema.StringAttribute{
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString("ack.pro.small"),
				Description:   "Edition of the managed cluster: `ack.pro.small` (Pro, the default) or `ack.standard`. Changing it replaces the cluster.",
				Validators:    []validator.String{stringvalidator.OneOf("ack.pro.small", "ack.standard")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"worker_instance_types": schema.ListAttribute{
				Required:    true,
				ElementType: types.StringType,
				Description: "ECS instance types of the workers, such as `[\"ecs.g6.large\"]`, in order of preference: " +
					"1 to 10 distinct types; ACK rejects types it does not offer. Changing them replaces the cluster.",
				Validators: []validator.List{
					listvalidator.SizeBetween(1, 10),
					uniqueStrings{},
					listvalidator.ValueStringsAre(stringvalidator.RegexMatches(ackInstanceTypeRE, "must be an ECS instance type such as \"ecs.g6.large\"")),
				},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = !req.StateValue.IsNull()
				}, "Changing the worker instance types replaces the cluster (not after import, where they are unknown).",
					"Changing the worker instance types replaces the cluster (not after import, where they are unknown).")},
			},
			"worker_count": schema.Int64Attribute{
				CustomType:    intType{},
				Required:      true,
				Description:   "Number of worker nodes, from 0 to 100. Changing it replaces the cluster.",
				Validators:    []validator.Int64{int64validator.Between(0, 100)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"node_pools": schema.ListNestedAttribute{
				Optional: true,
				Description: "Node pools created with the cluster, besides its workers: up to 10, each name once " +
					"(not `default-nodepool`, the workers' pool). A pool without desired_size is created with 0 " +
					"nodes and its size is then the HCA runtime's (list it in `hca_cluster.node_groups`): Terraform " +
					"never changes it and reads no drift. desired_size changes in place (ModifyClusterNodePool, not " +
					"waiting for the nodes); adding, removing or otherwise changing a pool replaces the cluster.",
				Validators: []validator.List{listvalidator.SizeBetween(1, 10)},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(ackPoolsReplaced,
					"Adding, removing or changing a node pool (other than its desired_size) replaces the cluster.",
					"Adding, removing or changing a node pool (other than its desired_size) replaces the cluster.")},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Required:    true,
						Description: "Name of the node pool: " + ackPoolNameHint + "; unique in the cluster.",
						Validators: []validator.String{
							stringvalidator.RegexMatches(ackPoolNameRE, "must be "+ackPoolNameHint),
							stringvalidator.NoneOf("default-nodepool"),
						},
					},
					"instance_types": schema.ListAttribute{
						Required:    true,
						ElementType: types.StringType,
						Description: "ECS instance types of the pool's nodes, such as `[\"ecs.g6.xlarge\"]`, in order of preference: 1 to 10 distinct types.",
						Validators: []validator.List{
							listvalidator.SizeBetween(1, 10),
							uniqueStrings{},
							listvalidator.ValueStringsAre(stringvalidator.RegexMatches(ackInstanceTypeRE, "must be an ECS instance type such as \"ecs.g6.large\"")),
						},
					},
					"capacity_type": schema.StringAttribute{
						Optional:    true,
						Computed:    true,
						Default:     stringdefault.StaticString("ON_DEMAND"),
						Description: "`ON_DEMAND` (the default; ACK's spot_strategy `NoSpot`) or `SPOT` (preemptible instances at the market price, `SpotAsPriceGo`).",
						Validators:  []validator.String{stringvalidator.OneOf("ON_DEMAND", "SPOT")},
					},
					"desired_size": schema.Int64Attribute{
						CustomType: intType{},
						Optional:   true,
						Description: "Number of nodes, 0 to 100, changed in place. Unset: the pool is created with 0 nodes " +
							"and its size is handed to the HCA runtime; Terraform then never changes it and reads no " +
							"drift. Setting it later takes the size back; unsetting it hands it over again.",
						Validators: []validator.Int64{int64validator.Between(0, 100)},
					},
					"node_pool_id": schema.StringAttribute{
						Computed:    true,
						Description: "ID of the node pool, such as `np0123456789abcdef`.",
					},
					"ack": schema.SingleNestedAttribute{
						Computed: true,
						Description: "The pool's identifiers as `hca_cluster`'s `node_groups[*].ack` takes them: " +
							"`cluster_id`, `region` and `node_pool_id`.",
						Attributes: map[string]schema.Attribute{
							"cluster_id":   schema.StringAttribute{Computed: true, Description: "ID of the ACK cluster."},
							"region":       schema.StringAttribute{Computed: true, Description: "Region of the cluster."},
							"node_pool_id": schema.StringAttribute{Computed: true, Description: "ID of the node pool."},
						},
					},
				}},
			},
			"cluster_id": schema.StringAttribute{
				Computed:      true,
				Description:   "ID of the cluster, such as `c0123456789abcdef0123456789abcdef`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"state": schema.StringAttribute{
				Computed:      true,
				Description:   "State of the cluster (`running` once created).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"api_server_endpoint": schema.StringAttribute{
				Computed:      true,
				Description:   "URL of the cluster's Kubernetes API server.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"kubeconfig": schema.StringAttribute{
				Computed:      true,
				Sensitive:     true,
				Description:   "Kubeconfig of the cluster (DescribeClusterUserKubeconfig), with the credentials of the provider's AccessKey user. A secret.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": timeoutsAttr(ctx, map[string]string{
				"create": "the creation task and the cluster to be running (default `30m`)",
				"delete": "the deletion task and the cluster to be gone (default `20m`)",
			}),
		},
	}
}

// ValidateConfig checks that each node pool has its own name.
func (r *ackClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var list types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_pools"), &list)...)
	if resp.Diagnostics.HasError() || list.IsNull() || list.IsUnknown() {
		return
	}
	var pools []ackNodePool
	if diags := list.ElementsAs(ctx, &pools, true); diags.HasError() {
		return
	}
	seen := map[string]int{}
	for i, p := range pools {
		if !allKnown(p.Name) {
			continue
		}
		if j, dup := seen[p.Name.ValueString()]; dup {
			resp.Diagnostics.AddAttributeError(path.Root("node_pools").AtListIndex(i).AtName("name"), "Invalid node_pools",
				fmt.Sprintf("node_pools[%d] and node_pools[%d] are both named %q: give each node pool its own name.", j, i, p.Name.ValueString()))
		}
		seen[p.Name.ValueString()] = i
	}
}

// ModifyPlan keeps the node pools' IDs when the cluster is kept (only a
// desired_size changes): the framework would plan them unknown.
func (r *ackClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() || len(resp.RequiresReplace) > 0 {
		return
	}
	var list types.List
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("node_pools"), &list)...)
	if resp.Diagnostics.HasError() || list.IsNull() || list.IsUnknown() {
		return
	}
	var plan, prior []ackNodePool
	if diags := list.ElementsAs(ctx, &plan, false); diags.HasError() {
		return
	}
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("node_pools"), &prior)...)
	if resp.Diagnostics.HasError() || len(prior) != len(plan) {
		return
	}
	for i := range plan {
		plan[i].NodePoolID, plan[i].ACK = prior[i].NodePoolID, prior[i].ACK
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("node_pools"), plan)...)
}

// ackPoolsReplaced replaces the cluster when node pools are added, removed
// or changed other than in desired_size (the CS operations this provider
// uses create node pools with the cluster only).
func ackPoolsReplaced(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	var prior, plan []ackNodePool
	if req.StateValue.IsNull() != req.PlanValue.IsNull() {
		resp.RequiresReplace = true
		return
	}
	resp.Diagnostics.Append(req.StateValue.ElementsAs(ctx, &prior, false)...)
	if d := req.PlanValue.ElementsAs(ctx, &plan, false); d.HasError() {
		resp.RequiresReplace = true
		return
	}
	resp.RequiresReplace = ackPoolsDiffer(prior, plan)
}

// ackPoolsDiffer reports whether two node_pools lists differ in anything but
// desired_size and the computed attributes.
func ackPoolsDiffer(a, b []ackNodePool) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if !a[i].Name.Equal(b[i].Name) || !a[i].InstanceTypes.Equal(b[i].InstanceTypes) ||
			a[i].CapacityType.ValueString() != b[i].CapacityType.ValueString() {
			return true
		}
	}
	return false
}

func (r *ackClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

// ackAPI is a CS client and the endpoint every request is sent to.
type ackAPI struct {
	client   *cs.Client
	endpoint *url.URL // nil: the SDK's endpoint for the region
}

func (r *ackClusterResource) api(region string, diags *diag.Diagnostics, summary string) *ackAPI {
	a := r.clients.Alicloud
	if a.AccessKey == "" || a.SecretKey == "" {
		diags.AddError(summary, "The provider has no Alibaba Cloud credentials: set alicloud.access_key and alicloud.secret_key "+
			"in the provider \"hca\" block, or the ALICLOUD_ACCESS_KEY and ALICLOUD_SECRET_KEY environment variables, or "+
			"an alicloud.assume_role_with_oidc block (temporary credentials from an OIDC token).")
		return nil
	}
	var client *cs.Client
	var err error
	if a.SecurityToken != "" {
		client, err = cs.NewClientWithStsToken(region, a.AccessKey, a.SecretKey, a.SecurityToken)
	} else {
		client, err = cs.NewClientWithAccessKey(region, a.AccessKey, a.SecretKey)
	}
	if err != nil {
		diags.AddError(summary, "Could not create the Alibaba Cloud CS client: "+err.Error())
		return nil
	}
	out := &ackAPI{client: client}
	if r.clients.Endpoints.ACK != "" {
		u, err := url.Parse(r.clients.Endpoints.ACK)
		if err != nil {
			diags.AddError(summary, "endpoints.ack is not a URL: "+err.Error())
			return nil
		}
		out.endpoint = u
	}
	return out
}

// target points one request at the configured endpoint: the SDK builds ROA
// URLs as scheme://Domain:Port/path, so the port cannot go in the domain.
func (a *ackAPI) target(req *requests.RoaRequest) {
	if a.endpoint != nil {
		req.Scheme, req.Domain, req.Port = a.endpoint.Scheme, a.endpoint.Hostname(), a.endpoint.Port()
	}
}

func (r *ackClusterResource) region(m ackClusterModel) string {
	if !m.Region.IsNull() && !m.Region.IsUnknown() {
		return m.Region.ValueString()
	}
	return r.clients.Alicloud.Region
}

func (r *ackClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan ackClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	region := r.region(plan)
	if region == "" {
		resp.Diagnostics.AddAttributeError(path.Root("region"), "Missing ACK region",
			"hca_ack_cluster needs a region: set region, or alicloud.region in the provider \"hca\" block, or the ALICLOUD_REGION environment variable.")
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, ackDefaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	api := r.api(region, &resp.Diagnostics, "Error creating ACK cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	body, diags := ackCreateBody(ctx, plan, region)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	raw, err := json.Marshal(body)
	if err != nil {
		resp.Diagnostics.AddError("Error creating ACK cluster", "Could not encode the CreateCluster request: "+err.Error())
		return
	}
	creq := cs.CreateCreateClusterRequest()
	api.target(creq.RoaRequest)
	creq.SetContent(raw)
	creq.SetContentType("application/json")
	name := plan.Name.ValueString()
	tflog.Info(ctx, "creating ACK cluster", map[string]any{"name": name, "region": region})
	cresp, err := api.client.CreateCluster(creq)
	if err != nil {
		resp.Diagnostics.AddError("Error creating ACK cluster", fmt.Sprintf("CreateCluster %q: %s", name, ackErrorText(err)))
		return
	}
	id := cresp.ClusterId
	// The cluster exists from here on: save it so that a failure below leaves
	// it in state (tainted) for the next apply or destroy, without unknowns.
	plan.ID, plan.ClusterID, plan.Region = types.StringValue(id), types.StringValue(id), types.StringValue(region)
	resp.Diagnostics.Append(setPartialState(ctx, &resp.State, &plan)...)

	if err := ackWaitTask(ctx, api, cresp.TaskId); err != nil {
		resp.Diagnostics.AddError("Error creating ACK cluster", fmt.Sprintf("Cluster %q (%s): creation task %s: %s", name, id, cresp.TaskId, err))
		return
	}
	var detail ackDetail
	err = pollUntil(ctx, 2*time.Second, timeout, "the cluster to be running", func(context.Context) (bool, string, error) {
		d, err := ackDescribe(api, id)
		if err != nil {
			return false, "", err
		}
		detail = d
		switch d.State {
		case "running":
			return true, d.State, nil
		case "initial", "updating", "scaling", "upgrading":
			return false, d.State, nil
		}
		return false, d.State, fmt.Errorf("cluster state is %s", d.State)
	})
	if err != nil {
		resp.Diagnostics.AddError("Error creating ACK cluster", fmt.Sprintf("Cluster %q (%s): %s", name, id, err))
		return
	}
	kc, err := ackKubeconfig(api, id)
	if err != nil {
		resp.Diagnostics.AddError("Error reading ACK cluster kubeconfig", fmt.Sprintf("DescribeClusterUserKubeconfig %s: %s", id, err))
		return
	}
	resp.Diagnostics.Append(ackFlatten(ctx, detail, kc, &plan)...)
	if plan.NodePools != nil {
		pools, err := ackDescribePools(api, id)
		if err != nil {
			saved := plan
			saved.NodePools = nil
			resp.Diagnostics.Append(setPartialState(ctx, &resp.State, &saved)...)
			resp.Diagnostics.AddError("Error reading ACK node pools", fmt.Sprintf("DescribeClusterNodePools %s: %s", id, err))
			return
		}
		flat, diags := ackPoolsFlatten(ctx, pools, plan.NodePools, id, region)
		resp.Diagnostics.Append(diags...)
		plan.NodePools = flat
		plan.WorkerCount = types.Int64Value(ackWorkerCount(detail.Size, pools))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *ackClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state ackClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	api := r.api(r.region(state), &resp.Diagnostics, "Error reading ACK cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	d, err := ackDescribe(api, id)
	if ackNotFound(err) || (err == nil && d.State == "deleting") {
		tflog.Warn(ctx, "ACK cluster not found, removing it from state", map[string]any{"cluster_id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Error reading ACK cluster", fmt.Sprintf("DescribeClusterDetail %s: %s", id, err))
		return
	}
	kc := state.Kubeconfig.ValueString()
	if d.State == "running" {
		if kc, err = ackKubeconfig(api, id); err != nil {
			resp.Diagnostics.AddError("Error reading ACK cluster kubeconfig", fmt.Sprintf("DescribeClusterUserKubeconfig %s: %s", id, err))
			return
		}
	}
	resp.Diagnostics.Append(ackFlatten(ctx, d, kc, &state)...)
	if state.NodePools != nil && d.State == "running" {
		pools, err := ackDescribePools(api, id)
		if err != nil {
			resp.Diagnostics.AddError("Error reading ACK node pools", fmt.Sprintf("DescribeClusterNodePools %s: %s", id, err))
			return
		}
		flat, diags := ackPoolsFlatten(ctx, pools, state.NodePools, id, d.RegionID)
		resp.Diagnostics.Append(diags...)
		state.NodePools = flat
		state.WorkerCount = types.Int64Value(ackWorkerCount(d.Size, pools))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update sets the node pools' planned desired sizes (ModifyClusterNodePool)
// and stores the new timeouts: every other argument replaces the cluster.
func (r *ackClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state ackClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.Timeouts = plan.Timeouts
	state.WorkerInstanceTypes = plan.WorkerInstanceTypes
	if len(plan.NodePools) == 0 {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	api := r.api(r.region(state), &resp.Diagnostics, "Error updating ACK node pool")
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	for i, p := range plan.NodePools {
		if p.DesiredSize.IsNull() || (i < len(state.NodePools) && state.NodePools[i].DesiredSize.Equal(p.DesiredSize)) {
			continue // the runtime's, or unchanged
		}
		poolID := p.NodePoolID.ValueString()
		if i < len(state.NodePools) {
			poolID = state.NodePools[i].NodePoolID.ValueString()
		}
		if err := ackModifyPoolSize(api, id, poolID, p.DesiredSize.ValueInt64()); err != nil {
			resp.Diagnostics.AddError("Error updating ACK node pool", fmt.Sprintf("ModifyClusterNodePool %s of cluster %s (node pool %q): %s", poolID, id, p.Name.ValueString(), err))
			break
		}
	}
	pools, err := ackDescribePools(api, id)
	if err != nil {
		resp.Diagnostics.AddError("Error reading ACK node pools", fmt.Sprintf("DescribeClusterNodePools %s: %s", id, err))
		return
	}
	flat, diags := ackPoolsFlatten(ctx, pools, plan.NodePools, id, state.Region.ValueString())
	resp.Diagnostics.Append(diags...)
	state.NodePools = flat
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *ackClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state ackClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, ackDefaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	api := r.api(r.region(state), &resp.Diagnostics, "Error deleting ACK cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := state.ID.ValueString()
	if err := ackDeleteAndWait(ctx, api, id); err != nil {
		resp.Diagnostics.AddError("Error deleting ACK cluster", fmt.Sprintf("Cluster %s: %s", id, err))
	}
}

func (r *ackClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !regexp.MustCompile(`^c[0-9a-z]{8,}$`).MatchString(req.ID) {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("The import ID %q is not an ACK cluster ID: use the cluster's ID, such as \"c0123456789abcdef0123456789abcdef\" (the console's or DescribeClustersV1's cluster_id).", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	// The cluster's node pools other than the workers' go into node_pools,
	// their sizes left to the runtime.
	api := r.api(r.clients.Alicloud.Region, &resp.Diagnostics, "Error importing ACK cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	pools, err := ackDescribePools(api, req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Error importing ACK cluster", fmt.Sprintf("DescribeClusterNodePools %s: %s", req.ID, err))
		return
	}
	var imported []ackNodePool
	for _, p := range pools {
		if p.NodepoolInfo.Name == "default-nodepool" {
			continue
		}
		imported = append(imported, ackNodePool{Name: types.StringValue(p.NodepoolInfo.Name), InstanceTypes: types.ListNull(types.StringType),
			CapacityType: types.StringNull(), DesiredSize: types.Int64Null(), NodePoolID: types.StringNull(), ACK: types.ObjectNull(ackPoolRefTypes)})
	}
	if imported != nil {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_pools"), imported)...)
	}
}

// ackDeleteAndWait deletes the cluster (gone already is fine), waits for the
// deletion task, then until DescribeClusterDetail answers not found.
func ackDeleteAndWait(ctx context.Context, api *ackAPI, id string) error {
	dreq := cs.CreateDeleteClusterRequest()
	api.target(dreq.RoaRequest)
	dreq.ClusterId = id
	dresp, err := api.client.DeleteCluster(dreq)
	if ackNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("DeleteCluster: %s", ackErrorText(err))
	}
	var body struct {
		TaskID string `json:"task_id"`
	}
	if json.Unmarshal(dresp.GetHttpContentBytes(), &body) == nil && body.TaskID != "" {
		if err := ackWaitTask(ctx, api, body.TaskID); err != nil {
			return fmt.Errorf("deletion task %s: %w", body.TaskID, err)
		}
	}
	return pollUntil(ctx, 2*time.Second, untilDeadline(ctx, ackDefaultDeleteTimeout), "the cluster to be deleted", func(context.Context) (bool, string, error) {
		d, err := ackDescribe(api, id)
		switch {
		case ackNotFound(err):
			return true, "", nil
		case err != nil:
			return false, "", err
		case d.State == "delete_failed":
			return false, d.State, errors.New("cluster state is delete_failed")
		}
		return false, d.State, nil
	})
}

// ackCreateBodyJSON is the part of CreateCluster's body this resource sets.
type ackCreateBodyJSON struct {
	Name                string              `json:"name"`
	RegionID            string              `json:"region_id"`
	ClusterType         string              `json:"cluster_type"`
	ClusterSpec         string              `json:"cluster_spec"`
	KubernetesVersion   string              `json:"kubernetes_version,omitempty"`
	VSwitchIDs          []string            `json:"vswitch_ids"`
	WorkerInstanceTypes []string            `json:"worker_instance_types"`
	NumOfNodes          int64               `json:"num_of_nodes"`
	Nodepools           []ackCreatePoolJSON `json:"nodepools,omitempty"`
}

// ackCreatePoolJSON is a node pool in CreateCluster's body.
type ackCreatePoolJSON struct {
	NodepoolInfo struct {
		Name string `json:"name"`
	} `json:"nodepool_info"`
	ScalingGroup struct {
		InstanceTypes []string `json:"instance_types"`
		DesiredSize   int64    `json:"desired_size"`
		VSwitchIDs    []string `json:"vswitch_ids"`
		SpotStrategy  string   `json:"spot_strategy"`
	} `json:"scaling_group"`
}

func ackCreateBody(ctx context.Context, m ackClusterModel, region string) (ackCreateBodyJSON, diag.Diagnostics) {
	var diags diag.Diagnostics
	b := ackCreateBodyJSON{
		Name:        m.Name.ValueString(),
		RegionID:    region,
		ClusterType: ackClusterType,
		ClusterSpec: m.ClusterSpec.ValueString(),
		NumOfNodes:  m.WorkerCount.ValueInt64(),
	}
	if v := m.KubernetesVersion; !v.IsNull() && !v.IsUnknown() {
		b.KubernetesVersion = v.ValueString()
	}
	diags.Append(m.VSwitchIDs.ElementsAs(ctx, &b.VSwitchIDs, false)...)
	diags.Append(m.WorkerInstanceTypes.ElementsAs(ctx, &b.WorkerInstanceTypes, false)...)
	for _, p := range m.NodePools {
		var jp ackCreatePoolJSON
		jp.NodepoolInfo.Name = p.Name.ValueString()
		diags.Append(p.InstanceTypes.ElementsAs(ctx, &jp.ScalingGroup.InstanceTypes, false)...)
		if !p.DesiredSize.IsNull() && !p.DesiredSize.IsUnknown() {
			jp.ScalingGroup.DesiredSize = p.DesiredSize.ValueInt64()
		}
		jp.ScalingGroup.VSwitchIDs = b.VSwitchIDs
		jp.ScalingGroup.SpotStrategy = ackNoSpot
		if p.CapacityType.ValueString() == "SPOT" {
			jp.ScalingGroup.SpotStrategy = ackSpotAsPrice
		}
		b.Nodepools = append(b.Nodepools, jp)
	}
	return b, diags
}

// ackPoolJSON is the part of a DescribeClusterNodePools element this
// resource reads.
type ackPoolJSON struct {
	NodepoolInfo struct {
		NodepoolID string `json:"nodepool_id"`
		Name       string `json:"name"`
	} `json:"nodepool_info"`
	ScalingGroup struct {
		InstanceTypes []string `json:"instance_types"`
		DesiredSize   int64    `json:"desired_size"`
		SpotStrategy  string   `json:"spot_strategy"`
	} `json:"scaling_group"`
}

func ackDescribePools(api *ackAPI, id string) ([]ackPoolJSON, error) {
	req := cs.CreateDescribeClusterNodePoolsRequest()
	api.target(req.RoaRequest)
	req.ClusterId = id
	resp, err := api.client.DescribeClusterNodePools(req)
	if err != nil {
		return nil, ackError{err}
	}
	var body struct {
		Nodepools []ackPoolJSON `json:"nodepools"`
	}
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &body); err != nil {
		return nil, fmt.Errorf("decode DescribeClusterNodePools: %w", err)
	}
	return body.Nodepools, nil
}

// ackWorkerCount is the workers' count from the cluster's size, which ACK
// reports for all its node pools: the size less the other pools' sizes.
func ackWorkerCount(size int64, pools []ackPoolJSON) int64 {
	for _, p := range pools {
		if p.NodepoolInfo.Name != "default-nodepool" {
			size -= p.ScalingGroup.DesiredSize
		}
	}
	return max(size, 0)
}

// ackModifyPoolSize sets a node pool's desired size (ModifyClusterNodePool).
// It does not wait for the nodes: the scaling task runs until they are Ready.
func ackModifyPoolSize(api *ackAPI, clusterID, poolID string, desired int64) error {
	req := cs.CreateModifyClusterNodePoolRequest()
	api.target(req.RoaRequest)
	req.ClusterId, req.NodepoolId = clusterID, poolID
	body, err := json.Marshal(map[string]any{"scaling_group": map[string]int64{"desired_size": desired}})
	if err != nil {
		return fmt.Errorf("encode ModifyClusterNodePool: %w", err)
	}
	req.SetContent(body)
	req.SetContentType("application/json")
	if _, err := api.client.ModifyClusterNodePool(req); err != nil {
		return ackError{err}
	}
	return nil
}

// ackPoolsFlatten is node_pools from what ACK reports, in prior's order and
// for prior's pools (one no longer there is left out): a null desired_size
// (the runtime's) stays null.
func ackPoolsFlatten(ctx context.Context, pools []ackPoolJSON, prior []ackNodePool, clusterID, region string) ([]ackNodePool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if prior == nil {
		return nil, diags
	}
	out := []ackNodePool{}
	for _, p := range prior {
		i := slices.IndexFunc(pools, func(a ackPoolJSON) bool { return a.NodepoolInfo.Name == p.Name.ValueString() })
		if i < 0 {
			continue
		}
		a := pools[i]
		n := ackNodePool{
			Name:         types.StringValue(a.NodepoolInfo.Name),
			CapacityType: types.StringValue("ON_DEMAND"),
			DesiredSize:  types.Int64Null(),
			NodePoolID:   types.StringValue(a.NodepoolInfo.NodepoolID),
			ACK: types.ObjectValueMust(ackPoolRefTypes, map[string]attr.Value{
				"cluster_id": types.StringValue(clusterID), "region": types.StringValue(region), "node_pool_id": types.StringValue(a.NodepoolInfo.NodepoolID),
			}),
		}
		if s := a.ScalingGroup.SpotStrategy; s != "" && s != ackNoSpot {
			n.CapacityType = types.StringValue("SPOT")
		}
		var d diag.Diagnostics
		n.InstanceTypes, d = types.ListValueFrom(ctx, types.StringType, nonNil(a.ScalingGroup.InstanceTypes))
		diags.Append(d...)
		if !p.DesiredSize.IsNull() {
			n.DesiredSize = types.Int64Value(a.ScalingGroup.DesiredSize)
		}
		out = append(out, n)
	}
	return out, diags
}

// ackDetail is the part of DescribeClusterDetail's body this resource reads.
type ackDetail struct {
	ClusterID      string   `json:"cluster_id"`
	Name           string   `json:"name"`
	RegionID       string   `json:"region_id"`
	ClusterSpec    string   `json:"cluster_spec"`
	State          string   `json:"state"`
	Size           int64    `json:"size"`
	CurrentVersion string   `json:"current_version"`
	MasterURL      string   `json:"master_url"`
	VSwitchIDs     []string `json:"vswitch_ids"`
}

func ackDescribe(api *ackAPI, id string) (ackDetail, error) {
	req := cs.CreateDescribeClusterDetailRequest()
	api.target(req.RoaRequest)
	req.ClusterId = id
	resp, err := api.client.DescribeClusterDetail(req)
	if err != nil {
		return ackDetail{}, ackError{err}
	}
	var d ackDetail
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &d); err != nil {
		return ackDetail{}, fmt.Errorf("decode DescribeClusterDetail: %w", err)
	}
	return d, nil
}

func ackKubeconfig(api *ackAPI, id string) (string, error) {
	req := cs.CreateDescribeClusterUserKubeconfigRequest()
	api.target(req.RoaRequest)
	req.ClusterId = id
	resp, err := api.client.DescribeClusterUserKubeconfig(req)
	if err != nil {
		return "", ackError{err}
	}
	return resp.Config, nil
}

// ackWaitTask waits until the CS task succeeds.
func ackWaitTask(ctx context.Context, api *ackAPI, taskID string) error {
	return pollUntil(ctx, 2*time.Second, untilDeadline(ctx, ackDefaultCreateTimeout), "task "+taskID+" to succeed", func(context.Context) (bool, string, error) {
		req := cs.CreateDescribeTaskInfoRequest()
		api.target(req.RoaRequest)
		req.TaskId = taskID
		resp, err := api.client.DescribeTaskInfo(req)
		if err != nil {
			return false, "", ackError{err}
		}
		var t struct {
			State string `json:"state"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(resp.GetHttpContentBytes(), &t); err != nil {
			return false, "", fmt.Errorf("decode DescribeTaskInfo: %w", err)
		}
		switch t.State {
		case "success":
			return true, t.State, nil
		case "fail", "failed":
			if t.Error != nil {
				return false, t.State, fmt.Errorf("task failed: %s: %s", t.Error.Code, t.Error.Message)
			}
			return false, t.State, errors.New("task failed")
		}
		return false, t.State, nil
	})
}

// ackFlatten writes what ACK reports about the cluster into m.
func ackFlatten(ctx context.Context, d ackDetail, kubeconfig string, m *ackClusterModel) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.StringValue(d.ClusterID)
	m.ClusterID = types.StringValue(d.ClusterID)
	m.Name = types.StringValue(d.Name)
	m.Region = types.StringValue(d.RegionID)
	m.ClusterSpec = types.StringValue(d.ClusterSpec)
	m.KubernetesVersion = types.StringValue(d.CurrentVersion)
	m.State = types.StringValue(d.State)
	m.WorkerCount = types.Int64Value(d.Size)
	var vsw types.List
	vsw, diags = types.ListValueFrom(ctx, types.StringType, nonNil(d.VSwitchIDs))
	m.VSwitchIDs = vsw
	var master struct {
		APIServerEndpoint string `json:"api_server_endpoint"`
	}
	_ = json.Unmarshal([]byte(d.MasterURL), &master) // empty until running
	m.APIServerEndpoint = types.StringValue(master.APIServerEndpoint)
	m.Kubeconfig = types.StringValue(kubeconfig)
	if m.WorkerInstanceTypes.IsUnknown() {
		m.WorkerInstanceTypes = types.ListNull(types.StringType)
	}
	return diags
}

// ackError is a CS API error shown as "code: message (request ID)". ACK's
// service errors are JSON with lowercase keys, which the SDK does not decode
// (ErrorCode() is empty): the code and message are read from Message().
type ackError struct{ err error }

func (e ackError) Error() string { return ackErrorText(e.err) }
func (e ackError) Unwrap() error { return e.err }

// ackErrorParts returns the HTTP status, code and message of a CS error.
func ackErrorParts(err error) (status int, code, msg, requestID string, ok bool) {
	var se *sdkerrors.ServerError
	if !errors.As(err, &se) {
		return 0, "", "", "", false
	}
	if se.ErrorCode() != "" {
		return se.HttpStatus(), se.ErrorCode(), se.Message(), se.RequestId(), true
	}
	var body struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"requestId"`
	}
	if json.Unmarshal([]byte(se.Message()), &body) != nil || body.Code == "" {
		return se.HttpStatus(), "", se.Message(), se.RequestId(), true
	}
	return se.HttpStatus(), body.Code, body.Message, body.RequestID, true
}

func ackErrorText(err error) string {
	status, code, msg, reqID, ok := ackErrorParts(err)
	if !ok {
		return err.Error()
	}
	s := fmt.Sprintf("%s: %s (HTTP %d", code, msg, status)
	if reqID != "" {
		s += ", request ID " + reqID
	}
	return s + ")"
}

func ackNotFound(err error) bool {
	status, code, _, _, ok := ackErrorParts(err)
	return ok && (code == ackCodeClusterNotFound || (code == "" && status == 404))
}
