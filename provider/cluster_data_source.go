package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

var (
	_ datasource.DataSource              = (*clusterDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*clusterDataSource)(nil)
)

// NewClusterDataSource returns the hca_cluster data source.
func NewClusterDataSource() datasource.DataSource {
	return &clusterDataSource{}
}

type clusterDataSource struct {
	clients *Clients
}

// clusterDataModel is a HybridCluster without its credentials: the attribute
// names are those of the hca_cluster resource.
type clusterDataModel struct {
	Name               types.String `tfsdk:"name"`
	Role               types.String `tfsdk:"role"`
	Provider           types.String `tfsdk:"provider_type"`
	Priority           types.Int64  `tfsdk:"priority"`
	PricePerVCPUHour   types.String `tfsdk:"price_per_vcpu_hour"`
	PricePerGiBHour    types.String `tfsdk:"price_per_gib_hour"`
	MaxCPU             types.String `tfsdk:"max_cpu"`
	MaxPods            types.Int64  `tfsdk:"max_pods"`
	EKSClusterName     types.String `tfsdk:"eks_cluster_name"`
	Region             types.String `tfsdk:"region"`
	RoleARN            types.String `tfsdk:"role_arn"`
	CredentialsSecret  types.String `tfsdk:"credentials_secret"`
	Generation         types.Int64  `tfsdk:"generation"`
	ObservedGeneration types.Int64  `tfsdk:"observed_generation"`
	Reachable          types.Bool   `tfsdk:"reachable"`
	KubernetesVersion  types.String `tfsdk:"kubernetes_version"`
	Allocatable        types.Map    `tfsdk:"allocatable"`
	Free               types.Map    `tfsdk:"free"`
	LastProbeTime      types.String `tfsdk:"last_probe_time"`
	Conditions         types.List   `tfsdk:"conditions"`
	NodeGroups         types.List   `tfsdk:"node_groups"`
}

// clusterDataNodeGroup is a node group of spec.nodeGroups with what the
// runtime last saw of it (status.nodeGroups).
type clusterDataNodeGroup struct {
	Name           types.String `tfsdk:"name"`
	Cloud          types.String `tfsdk:"cloud"`
	InstanceType   types.String `tfsdk:"instance_type"`
	CapacityType   types.String `tfsdk:"capacity_type"`
	PricePerHour   types.String `tfsdk:"price_per_hour"`
	MinNodes       types.Int64  `tfsdk:"min_nodes"`
	MaxNodes       types.Int64  `tfsdk:"max_nodes"`
	DesiredNodes   types.Int64  `tfsdk:"desired_nodes"`
	ReadyNodes     types.Int64  `tfsdk:"ready_nodes"`
	RequestedNodes types.Int64  `tfsdk:"requested_nodes"`
	LastScaleTime  types.String `tfsdk:"last_scale_time"`
	Reason         types.String `tfsdk:"reason"`
	Message        types.String `tfsdk:"message"`
}

func (d *clusterDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (d *clusterDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reads a cluster registered into the hybrid cloud (a cluster-scoped `HybridCluster`, " +
			"hca.dev/v1alpha1, in the control cluster): its role, priority, prices and limits, and its status and " +
			"capacity as the runtime's prober last observed them. Credentials are never read: neither the " +
			"kubeconfig Secret's content nor any token. Fails with \"Error reading cluster\" when no HybridCluster " +
			"has that name; when an `hca_cluster` resource of the same configuration registers it, set `name = " +
			"hca_cluster.<label>.name` so that it is read after the registration.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required: true,
				Description: "Name of the HybridCluster, 1 to 253 characters, a DNS subdomain (lowercase letters, " +
					"digits, `-` and `.`, starting and ending with a letter or digit).",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 253),
					stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"),
				},
			},
			"role": schema.StringAttribute{
				Computed:    true,
				Description: "What the cluster is for: `primary` (runs workloads normally) or `burst` (receives overflow).",
			},
			"provider_type": schema.StringAttribute{
				Computed:    true,
				Description: "Who runs the cluster: `private`, `eks` or `ack` (the HybridCluster's `spec.provider`).",
			},
			"priority": schema.Int64Attribute{
				Computed:    true,
				Description: "Rank for placement `priority`, 0 to 1000000: higher values are used first.",
			},
			"price_per_vcpu_hour": schema.StringAttribute{
				Computed:    true,
				Description: "Price of one vCPU for one hour, a decimal such as `0.0464`; null when the cluster has no prices (its capacity is free).",
			},
			"price_per_gib_hour": schema.StringAttribute{
				Computed:    true,
				Description: "Price of one GiB of memory for one hour, a decimal such as `0.0058`; null when the cluster has no prices.",
			},
			"max_cpu": schema.StringAttribute{
				Computed:    true,
				Description: "Most CPU (sum of requests) HCA may place in the cluster, a Kubernetes quantity as the API server prints it (such as `64` or `500m`); null for no limit.",
			},
			"max_pods": schema.Int64Attribute{
				Computed:    true,
				Description: "Most pods HCA may place in the cluster; null for no limit.",
			},
			"eks_cluster_name": schema.StringAttribute{
				Computed:    true,
				Description: "Name of the EKS cluster with provider_type `eks`; null otherwise.",
			},
			"region": schema.StringAttribute{
				Computed:    true,
				Description: "AWS region of the EKS cluster with provider_type `eks`, such as `eu-west-1`; null otherwise.",
			},
			"role_arn": schema.StringAttribute{
				Computed:    true,
				Description: "IAM role the runtime assumes before minting EKS tokens; null when none (or provider_type is not `eks`).",
			},
			"credentials_secret": schema.StringAttribute{
				Computed: true,
				Description: "`<namespace>/<name>` of the Secret holding the cluster's kubeconfig (provider_type `private` " +
					"and `ack`); empty for `eks`. Only the reference: the Secret's content is never read.",
			},
			"generation": schema.Int64Attribute{
				Computed:    true,
				Description: "The HybridCluster's `metadata.generation`, incremented at each change of its spec.",
			},
			"observed_generation": schema.Int64Attribute{
				Computed:    true,
				Description: "The generation the runtime last probed; the status describes the current spec when it equals `generation`. 0 until a runtime probes the cluster.",
			},
			"reachable": schema.BoolAttribute{
				Computed:    true,
				Description: "Whether the runtime's last probe reached the cluster's API server (false until a runtime probes it).",
			},
			"kubernetes_version": schema.StringAttribute{
				Computed:    true,
				Description: "Kubernetes version the runtime last observed, such as `v1.36.3` (empty until a runtime reaches the cluster).",
			},
			"allocatable": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "Sum of the Ready nodes' allocatable resources (`cpu`, `memory`, `pods`, ...) as Kubernetes quantities, as the runtime last observed; empty until a runtime reaches the cluster.",
			},
			"free": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "Capacity still free for HCA per resource (`cpu`, `memory`, `pods`, ...), as Kubernetes quantities: allocatable minus the requests of scheduled pods, capped by the limits minus what HCA already placed there. Empty until a runtime reaches the cluster.",
			},
			"last_probe_time": schema.StringAttribute{
				Computed:    true,
				Description: "When the runtime last probed the cluster, in RFC 3339 (UTC), such as `2026-05-01T12:00:00Z`; null until a runtime probes it.",
			},
			"conditions": conditionsDataSourceAttr("`Reachable`, `Ready`"),
			"node_groups": schema.ListNestedAttribute{
				Computed: true,
				Description: "The cluster's node groups (`spec.nodeGroups`, in order) with the node counts the runtime " +
					"last saw (`status.nodeGroups`); counts are 0 and reason empty until a runtime reports the group. " +
					"Empty when the cluster has no node groups.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":            schema.StringAttribute{Computed: true, Description: "Name of the group."},
					"cloud":           schema.StringAttribute{Computed: true, Description: "`eks` (an EKS managed node group) or `ack` (an ACK node pool)."},
					"instance_type":   schema.StringAttribute{Computed: true, Description: "Instance type of the nodes; empty when not declared."},
					"capacity_type":   schema.StringAttribute{Computed: true, Description: "`OnDemand` or `Spot`."},
					"price_per_hour":  schema.StringAttribute{Computed: true, Description: "One node's price per hour, as declared."},
					"min_nodes":       schema.Int64Attribute{Computed: true, Description: "Fewest nodes the runtime leaves."},
					"max_nodes":       schema.Int64Attribute{Computed: true, Description: "Most nodes the runtime asks for."},
					"desired_nodes":   schema.Int64Attribute{Computed: true, Description: "The cloud's desired size as the runtime last read it."},
					"ready_nodes":     schema.Int64Attribute{Computed: true, Description: "The group's Ready nodes in the cluster."},
					"requested_nodes": schema.Int64Attribute{Computed: true, Description: "Nodes asked for and not Ready yet (booting)."},
					"last_scale_time": schema.StringAttribute{Computed: true, Description: "When the runtime last changed the desired size, in RFC 3339 (UTC); null if never."},
					"reason": schema.StringAttribute{Computed: true, Description: "Why the group cannot grow now (`NotFound`, `NotActive`, " +
						"`LaunchFailures`, `MaxReached`, `Throttled`, `CloudError`, ...); empty when it can."},
					"message": schema.StringAttribute{Computed: true, Description: "More about reason; empty when it is."},
				}},
			},
		},
	}
}

func (d *clusterDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.clients = c
}

func (d *clusterDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg clusterDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(d.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	name := cfg.Name.ValueString()
	var hc hcav1.HybridCluster
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &hc); err != nil {
		if apierrors.IsNotFound(err) {
			resp.Diagnostics.AddError("Error reading cluster", fmt.Sprintf("No HybridCluster named %q is registered in the "+
				"control cluster. Check the name (kubectl get hybridclusters lists them) or register the cluster with an "+
				"hca_cluster resource; when that resource is in this configuration, set name = hca_cluster.<label>.name so "+
				"that the cluster is read after it is registered.", name))
			return
		}
		resp.Diagnostics.AddError("Error reading cluster", fmt.Sprintf("Could not read the HybridCluster %q: %v. %s", name, err, readHint(err)))
		return
	}
	state := clusterDataFromAPI(&hc)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// readHint says what to check when reading an hca object failed for another
// reason than its absence.
func readHint(err error) string {
	switch {
	case meta.IsNoMatchError(err):
		return "The hca CRDs are not installed in the control cluster: install them with an hca_runtime resource."
	case apierrors.IsUnauthorized(err):
		return unauthorizedHint
	case apierrors.IsForbidden(err):
		return "The provider's credentials may not read it: grant get on hca.dev resources to its user."
	}
	return "Check that the control cluster's API server is reachable from where Terraform runs."
}

// clusterDataFromAPI converts a HybridCluster to the data source's model,
// leaving its credentials out.
func clusterDataFromAPI(hc *hcav1.HybridCluster) clusterDataModel {
	s, st := hc.Spec, hc.Status
	m := clusterDataModel{
		Name:               types.StringValue(hc.Name),
		Role:               types.StringValue(string(s.Role)),
		Provider:           types.StringValue(string(s.Provider)),
		Priority:           types.Int64Value(int64(s.Priority)),
		PricePerVCPUHour:   types.StringNull(),
		PricePerGiBHour:    types.StringNull(),
		MaxCPU:             types.StringNull(),
		MaxPods:            types.Int64Null(),
		EKSClusterName:     types.StringNull(),
		Region:             types.StringNull(),
		RoleARN:            types.StringNull(),
		CredentialsSecret:  types.StringValue(""),
		Generation:         types.Int64Value(hc.Generation),
		ObservedGeneration: types.Int64Value(st.ObservedGeneration),
		Reachable:          types.BoolValue(st.Reachable),
		KubernetesVersion:  types.StringValue(st.KubernetesVersion),
		Allocatable:        quantityMap(st.Allocatable),
		Free:               quantityMap(st.Free),
		LastProbeTime:      timeValue(st.LastProbeTime),
		Conditions:         conditionsList(st.Conditions),
	}
	m.NodeGroups = nodeGroupsStatus(s.NodeGroups, st.NodeGroups)
	if p := s.Prices; p != nil {
		m.PricePerVCPUHour, m.PricePerGiBHour = types.StringValue(string(p.PerVCPUHour)), types.StringValue(string(p.PerGiBHour))
	}
	if l := s.Limits; l != nil {
		if l.MaxCPU != nil {
			m.MaxCPU = types.StringValue(l.MaxCPU.String())
		}
		if l.MaxPods != nil {
			m.MaxPods = types.Int64Value(int64(*l.MaxPods))
		}
	}
	if e := s.Credentials.EKS; e != nil {
		m.EKSClusterName, m.Region = types.StringValue(e.ClusterName), types.StringValue(e.Region)
		if e.RoleARN != "" {
			m.RoleARN = types.StringValue(e.RoleARN)
		}
	}
	if ref := s.Credentials.SecretRef; ref != nil {
		m.CredentialsSecret = types.StringValue(ref.Namespace + "/" + string(ref.Name))
	}
	return m
}

// quantityMap renders a resource list as quantities in the API server's
// canonical form; an absent list is an empty map.
func quantityMap(rl corev1.ResourceList) types.Map {
	elems := make(map[string]attr.Value, len(rl))
	for k, q := range rl {
		elems[string(k)] = types.StringValue(q.String())
	}
	return types.MapValueMust(types.StringType, elems)
}

// timeValue renders t in RFC 3339 (UTC); null when unset.
func timeValue(t *metav1.Time) types.String {
	if t == nil || t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// clusterDataNodeGroupType is the object type of node_groups' elements.
var clusterDataNodeGroupType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name": types.StringType, "cloud": types.StringType, "instance_type": types.StringType, "capacity_type": types.StringType,
	"price_per_hour": types.StringType, "min_nodes": types.Int64Type, "max_nodes": types.Int64Type, "desired_nodes": types.Int64Type,
	"ready_nodes": types.Int64Type, "requested_nodes": types.Int64Type, "last_scale_time": types.StringType, "reason": types.StringType,
	"message": types.StringType,
}}

// nodeGroupsStatus joins spec.nodeGroups with status.nodeGroups by name, in
// the spec's order; a status of a group no longer in the spec is left out.
func nodeGroupsStatus(spec []hcav1.NodeGroup, status []hcav1.NodeGroupStatus) types.List {
	l, _ := types.ListValueFrom(context.Background(), clusterDataNodeGroupType, nodeGroupsStatusElems(spec, status))
	return l // plain values of the element type: no conversion error
}

func nodeGroupsStatusElems(spec []hcav1.NodeGroup, status []hcav1.NodeGroupStatus) []clusterDataNodeGroup {
	out := []clusterDataNodeGroup{}
	for _, g := range spec {
		var st hcav1.NodeGroupStatus
		for _, s := range status {
			if s.Name == g.Name {
				st = s
			}
		}
		cloud := "eks"
		if g.ACK != nil {
			cloud = "ack"
		}
		capacity := g.CapacityType
		if capacity == "" {
			capacity = hcav1.CapacityOnDemand
		}
		out = append(out, clusterDataNodeGroup{
			Name:           types.StringValue(g.Name),
			Cloud:          types.StringValue(cloud),
			InstanceType:   types.StringValue(g.InstanceType),
			CapacityType:   types.StringValue(string(capacity)),
			PricePerHour:   types.StringValue(string(g.PricePerHour)),
			MinNodes:       types.Int64Value(int64(g.MinNodes)),
			MaxNodes:       types.Int64Value(int64(g.MaxNodes)),
			DesiredNodes:   types.Int64Value(int64(st.DesiredNodes)),
			ReadyNodes:     types.Int64Value(int64(st.ReadyNodes)),
			RequestedNodes: types.Int64Value(int64(st.RequestedNodes)),
			LastScaleTime:  timeValue(st.LastScaleTime),
			Reason:         types.StringValue(st.Reason),
			Message:        types.StringValue(st.Message),
		})
	}
	return out
}
