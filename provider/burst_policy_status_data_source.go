package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

var (
	_ datasource.DataSource              = (*burstPolicyStatusDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*burstPolicyStatusDataSource)(nil)
)

// NewBurstPolicyStatusDataSource returns the hca_burst_policy_status data
// source.
func NewBurstPolicyStatusDataSource() datasource.DataSource {
	return &burstPolicyStatusDataSource{}
}

type burstPolicyStatusDataSource struct {
	clients *Clients
}

type burstPolicyStatusModel struct {
	Namespace          types.String `tfsdk:"namespace"`
	Name               types.String `tfsdk:"name"`
	PrimaryCluster     types.String `tfsdk:"primary_cluster"`
	Generation         types.Int64  `tfsdk:"generation"`
	ObservedGeneration types.Int64  `tfsdk:"observed_generation"`
	Phase              types.String `tfsdk:"phase"`
	Ready              types.Bool   `tfsdk:"ready"`
	Replicas           types.List   `tfsdk:"replicas"`
	DesiredReplicas    types.Int64  `tfsdk:"desired_replicas"`
	CurrentReplicas    types.Int64  `tfsdk:"current_replicas"`
	ReadyReplicas      types.Int64  `tfsdk:"ready_replicas"`
	PendingReplicas    types.Int64  `tfsdk:"pending_replicas"`
	BurstReplicas      types.Int64  `tfsdk:"burst_replicas"`
	HeadroomReplicas   types.Int64  `tfsdk:"headroom_replicas"`
	HeadroomCost       types.String `tfsdk:"headroom_cost_per_hour"`
	LastDecisionTime   types.String `tfsdk:"last_decision_time"`
	LastDecisionReason types.String `tfsdk:"last_decision_reason"`
	Conditions         types.List   `tfsdk:"conditions"`
}

func (d *burstPolicyStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_burst_policy_status"
}

func (d *burstPolicyStatusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reads the live status of a BurstPolicy (hca.dev/v1alpha1) in the control cluster, as the " +
			"runtime's burst controller last reported it: the phase, the workload's replicas in each cluster " +
			"(its placement), the last scaling decision and the conditions. It is read again at every plan. Fails " +
			"with \"Error reading burst policy status\" when the BurstPolicy does not exist; when an " +
			"`hca_burst_policy` resource of the same configuration creates it, set `namespace` and `name` from " +
			"that resource so that it is read after the policy is created.",
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{
				Required:    true,
				Description: "Namespace of the BurstPolicy, a DNS label of 1 to 63 characters (lowercase letters, digits and `-`, starting and ending with a letter or digit).",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"name": schema.StringAttribute{
				Required:    true,
				Description: "Name of the BurstPolicy, a DNS subdomain of 1 to 253 characters (lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit).",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 253),
					stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"),
				},
			},
			"primary_cluster": schema.StringAttribute{
				Computed:    true,
				Description: "The policy's primary cluster (`spec.primaryCluster`): every other cluster in `replicas` is a burst target.",
			},
			"generation": schema.Int64Attribute{
				Computed:    true,
				Description: "The BurstPolicy's `metadata.generation`, incremented at each change of its spec.",
			},
			"observed_generation": schema.Int64Attribute{
				Computed:    true,
				Description: "The generation the runtime last acted on; the status describes the current spec when it equals `generation`. 0 before the runtime acts.",
			},
			"phase": schema.StringAttribute{
				Computed: true,
				Description: "What the policy is doing: `Watching` (every replica in the primary cluster), `Bursting` " +
					"(replicas run, or are being placed, in burst clusters), `ScalingBack` (burst replicas are being " +
					"removed), `Degraded` (holding its last decision because an input is missing; see `conditions`), " +
					"or empty before the runtime acts.",
			},
			"ready": schema.BoolAttribute{
				Computed:    true,
				Description: "Whether the `Ready` condition is `True`: the policy is reconciled and every replica is placed. False before the runtime acts.",
			},
			"replicas": schema.ListNestedAttribute{
				Computed: true,
				Description: "Replicas of the workload per cluster (the primary and the burst targets that have some), " +
					"sorted by cluster: `cluster`, `desired`, `ready`, `pending` (Unschedulable), and the cluster's node-group nodes " +
					"`nodes_ready` and `nodes_requested` (booting). Empty before the runtime acts.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cluster":         schema.StringAttribute{Computed: true, Description: "HybridCluster name."},
					"desired":         schema.Int64Attribute{Computed: true, Description: "Replica count set there."},
					"ready":           schema.Int64Attribute{Computed: true, Description: "Ready pods there."},
					"pending":         schema.Int64Attribute{Computed: true, Description: "Unschedulable pods there."},
					"nodes_ready":     schema.Int64Attribute{Computed: true, Description: "Ready nodes of the cluster's node groups (0 without node groups)."},
					"nodes_requested": schema.Int64Attribute{Computed: true, Description: "Nodes the runtime asked the cloud for that are not Ready yet (booting)."},
				}},
			},
			"desired_replicas": schema.Int64Attribute{
				Computed:    true,
				Description: "Total replica count (all clusters) of the runtime's last decision; null before the first decision.",
			},
			"current_replicas": schema.Int64Attribute{
				Computed:    true,
				Description: "Replica count currently set across all clusters, the sum of `replicas[*].desired`; it reaches `desired_replicas` once placement is done.",
			},
			"ready_replicas": schema.Int64Attribute{
				Computed:    true,
				Description: "Ready pods across all clusters, the sum of `replicas[*].ready`.",
			},
			"pending_replicas": schema.Int64Attribute{
				Computed:    true,
				Description: "Unschedulable pods across all clusters, the sum of `replicas[*].pending`.",
			},
			"burst_replicas": schema.Int64Attribute{
				Computed:    true,
				Description: "Replica count set in burst clusters, the sum of `replicas[*].desired` outside `primary_cluster`; 0 while every replica runs in the primary cluster.",
			},
			"headroom_replicas": schema.Int64Attribute{
				Computed:    true,
				Description: "Spare replicas the adaptive algorithm keeps on top of the load's need (`headroom_replicas`, `headroom_percent` of the policy), over all clusters (`status.headroom.replicas`); 0 without.",
			},
			"headroom_cost_per_hour": schema.StringAttribute{
				Computed:    true,
				Description: "What the spare replicas cost per hour, in the prices' currency, such as `0.0928`: each one's CPU and memory requests at the `prices` of the cluster it is counted in (the burst clusters that hold replicas, cheapest first, then the primary; a cluster without prices counts 0). `0` without spare replicas.",
			},
			"last_decision_time": schema.StringAttribute{
				Computed:    true,
				Description: "When the runtime last decided a replica count or a placement, in RFC 3339 (UTC), such as `2026-05-01T12:00:00Z`; null before the first decision.",
			},
			"last_decision_reason": schema.StringAttribute{
				Computed:    true,
				Description: "Why the runtime took its last decision (metric values, deficit, placement), at most 1024 characters; null before the first decision.",
			},
			"conditions": conditionsDataSourceAttr("`Ready`, `Degraded`, `MetricsAvailable`, `Reachable`"),
		},
	}
}

func (d *burstPolicyStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.clients = c
}

func (d *burstPolicyStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg burstPolicyStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(d.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	ns, name := cfg.Namespace.ValueString(), cfg.Name.ValueString()
	var bp hcav1.BurstPolicy
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &bp); err != nil {
		if apierrors.IsNotFound(err) {
			resp.Diagnostics.AddError("Error reading burst policy status", fmt.Sprintf("No BurstPolicy %s/%s exists in the "+
				"control cluster. Check the namespace and name (kubectl get burstpolicies -n %s lists them) or create it "+
				"with an hca_burst_policy resource; when that resource is in this configuration, set namespace and name "+
				"from it (name = hca_burst_policy.<label>.name) so that the status is read after the policy is created.", ns, name, ns))
			return
		}
		resp.Diagnostics.AddError("Error reading burst policy status", fmt.Sprintf("Could not read the BurstPolicy %s/%s: %v. %s", ns, name, err, readHint(err)))
		return
	}
	state := burstPolicyStatusFromAPI(&bp)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// burstPolicyStatusFromAPI converts a BurstPolicy's status, with the totals
// over its clusters, to the data source's model.
func burstPolicyStatusFromAPI(bp *hcav1.BurstPolicy) burstPolicyStatusModel {
	st := bp.Status
	var current, ready, pending, burst int64
	for _, r := range st.Replicas {
		current += int64(r.Desired)
		ready += int64(r.Ready)
		pending += int64(r.Pending)
		if r.Cluster != bp.Spec.PrimaryCluster {
			burst += int64(r.Desired)
		}
	}
	m := burstPolicyStatusModel{
		Namespace:          types.StringValue(bp.Namespace),
		Name:               types.StringValue(bp.Name),
		PrimaryCluster:     types.StringValue(string(bp.Spec.PrimaryCluster)),
		Generation:         types.Int64Value(bp.Generation),
		ObservedGeneration: types.Int64Value(st.ObservedGeneration),
		Phase:              types.StringValue(string(st.Phase)),
		Ready:              types.BoolValue(meta.IsStatusConditionTrue(st.Conditions, hcav1.ConditionReady)),
		Replicas:           replicasList(st.Replicas),
		DesiredReplicas:    types.Int64Null(),
		CurrentReplicas:    types.Int64Value(current),
		ReadyReplicas:      types.Int64Value(ready),
		PendingReplicas:    types.Int64Value(pending),
		BurstReplicas:      types.Int64Value(burst),
		HeadroomReplicas:   types.Int64Value(0),
		HeadroomCost:       types.StringValue("0"),
		LastDecisionTime:   types.StringNull(),
		LastDecisionReason: types.StringNull(),
		Conditions:         conditionsList(st.Conditions),
	}
	if h := st.Headroom; h != nil {
		m.HeadroomReplicas, m.HeadroomCost = types.Int64Value(int64(h.Replicas)), types.StringValue(string(h.CostPerHour))
	}
	if dec := st.LastDecision; dec != nil {
		m.DesiredReplicas = types.Int64Value(int64(dec.Desired))
		m.LastDecisionTime = timeValue(&dec.Time)
		m.LastDecisionReason = types.StringValue(dec.Reason)
	}
	return m
}
