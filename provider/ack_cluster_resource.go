package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"time"

	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/requests"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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
	ClusterID           types.String   `tfsdk:"cluster_id"`
	State               types.String   `tfsdk:"state"`
	APIServerEndpoint   types.String   `tfsdk:"api_server_endpoint"`
	Kubeconfig          types.String   `tfsdk:"kubeconfig"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

func (r *ackClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ack_cluster"
}

func (r *ackClusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Provisions an Alibaba Cloud ACK managed Kubernetes cluster (ManagedKubernetes) with its " +
			"workers, through the Container Service (CS) API, to use as a burst target. Create waits for the " +
			"creation task to succeed and the cluster to be `running`, then reads its kubeconfig. The CS API " +
			"operations this provider uses cannot change a cluster, so every argument replaces the cluster. Delete " +
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
					"ACK offers. Defaults to ACK's current default. Changing it replaces the cluster.",
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
		diags.AddError(summary, "The provider has no Alibaba Cloud AccessKey: set alicloud.access_key and alicloud.secret_key "+
			"in the provider \"hca\" block, or the ALICLOUD_ACCESS_KEY and ALICLOUD_SECRET_KEY environment variables.")
		return nil
	}
	client, err := cs.NewClientWithAccessKey(region, a.AccessKey, a.SecretKey)
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
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update only stores the new timeouts: every other argument replaces the cluster.
func (r *ackClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state ackClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.Timeouts = plan.Timeouts
	state.WorkerInstanceTypes = plan.WorkerInstanceTypes
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
	Name                string   `json:"name"`
	RegionID            string   `json:"region_id"`
	ClusterType         string   `json:"cluster_type"`
	ClusterSpec         string   `json:"cluster_spec"`
	KubernetesVersion   string   `json:"kubernetes_version,omitempty"`
	VSwitchIDs          []string `json:"vswitch_ids"`
	WorkerInstanceTypes []string `json:"worker_instance_types"`
	NumOfNodes          int64    `json:"num_of_nodes"`
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
	return b, diags
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
