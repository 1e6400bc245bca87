package provider

// hca_cluster's node_groups: the HybridCluster's spec.nodeGroups, the node
// groups the runtime grows and releases (hca_eks_cluster's node_groups and
// hca_ack_cluster's node_pools export the identifiers they reference).

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// clusterMaxNodeGroups is spec.nodeGroups' MaxItems.
const clusterMaxNodeGroups = 8

// clusterNodeGroup is one element of hca_cluster's node_groups.
type clusterNodeGroup struct {
	Name         types.String `tfsdk:"name"`
	EKS          types.Object `tfsdk:"eks"`
	ACK          types.Object `tfsdk:"ack"`
	InstanceType types.String `tfsdk:"instance_type"`
	CapacityType types.String `tfsdk:"capacity_type"`
	Allocatable  types.Object `tfsdk:"allocatable"`
	PricePerHour types.String `tfsdk:"price_per_hour"`
	MinNodes     types.Int64  `tfsdk:"min_nodes"`
	MaxNodes     types.Int64  `tfsdk:"max_nodes"`
	Labels       types.Map    `tfsdk:"labels"`
	Taints       types.List   `tfsdk:"taints"`
}

type clusterNodeAllocatable struct {
	CPU    types.String `tfsdk:"cpu"`
	Memory types.String `tfsdk:"memory"`
	Pods   types.Int64  `tfsdk:"pods"`
}

type clusterTaint struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

var (
	clusterAllocatableTypes = map[string]attr.Type{"cpu": types.StringType, "memory": types.StringType, "pods": intType{}}
	clusterTaintTypes       = map[string]attr.Type{"key": types.StringType, "value": types.StringType, "effect": types.StringType}
	clusterNodeGroupTypes   = map[string]attr.Type{
		"name":           types.StringType,
		"eks":            types.ObjectType{AttrTypes: eksGroupRefTypes},
		"ack":            types.ObjectType{AttrTypes: ackPoolRefTypes},
		"instance_type":  types.StringType,
		"capacity_type":  types.StringType,
		"allocatable":    types.ObjectType{AttrTypes: clusterAllocatableTypes},
		"price_per_hour": types.StringType,
		"min_nodes":      intType{},
		"max_nodes":      intType{},
		"labels":         types.MapType{ElemType: types.StringType},
		"taints":         types.ListType{ElemType: types.ObjectType{AttrTypes: clusterTaintTypes}},
	}
)

// clusterNodeGroupsAttr is hca_cluster's node_groups attribute.
func clusterNodeGroupsAttr() schema.ListNestedAttribute {
	required := func(desc string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Required: true, Description: desc, Validators: append([]validator.String{stringvalidator.LengthBetween(1, 100)}, v...)}
	}
	return schema.ListNestedAttribute{
		Optional: true,
		Description: "Node groups of the cluster that the HCA runtime grows for bursts and releases afterwards " +
			"(scale from zero): the HybridCluster's `spec.nodeGroups`, at most 8, each name once. Each is an EKS " +
			"managed node group (`eks`) or an ACK node pool (`ack`), exactly one; reference " +
			"`hca_eks_cluster.<label>.node_groups[i].eks` or `hca_ack_cluster.<label>.node_pools[i].ack`, and leave " +
			"that group's `desired_size` unset there so that Terraform does not fight the runtime. Unset: the " +
			"cluster's nodes are fixed and placement uses its free capacity only.",
		Validators: []validator.List{listvalidator.SizeBetween(1, clusterMaxNodeGroups)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required:    true,
				Description: "Name of the group in statuses, such as `burst-spot`: a DNS label (1 to 63 lowercase letters, digits and `-`, starting and ending with a letter or digit).",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"eks": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "The EKS managed node group the group is (exactly one of `eks` and `ack`); `hca_eks_cluster.<label>.node_groups[i].eks` has this shape.",
				Attributes: map[string]schema.Attribute{
					"cluster_name": required("Name of the EKS cluster (1 to 100 characters).",
						stringvalidator.RegexMatches(eksNameRE, "must start with a letter or digit and contain only letters, digits, '-' and '_'")),
					"region": required("AWS region of the cluster, such as `eu-west-1`.",
						stringvalidator.RegexMatches(awsRegionRE, "must be an AWS region such as \"eu-west-1\"")),
					"nodegroup_name": required("Name of the managed node group (1 to 63 characters).", stringvalidator.LengthAtMost(63)),
				},
			},
			"ack": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "The ACK node pool the group is (exactly one of `eks` and `ack`); `hca_ack_cluster.<label>.node_pools[i].ack` has this shape.",
				Attributes: map[string]schema.Attribute{
					"cluster_id":   required("ID of the ACK cluster (1 to 64 characters).", stringvalidator.LengthAtMost(64)),
					"region":       required("Region of the cluster, such as `cn-hangzhou` (1 to 32 characters).", stringvalidator.LengthAtMost(32)),
					"node_pool_id": required("ID of the node pool (1 to 64 characters).", stringvalidator.LengthAtMost(64)),
				},
			},
			"instance_type": schema.StringAttribute{
				Optional:    true,
				Description: "Instance type of the nodes, such as `m5.xlarge`, for statuses and events: at most 64 characters.",
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 64)},
			},
			"capacity_type": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(string(hcav1.CapacityOnDemand)),
				Description: "`OnDemand` (the default) or `Spot`: spot groups are used only for burst policies that " +
					"allow spot (`hca_burst_policy.capacity.allow_spot`), and first then, being cheaper.",
				Validators: []validator.String{stringvalidator.OneOf(string(hcav1.CapacityOnDemand), string(hcav1.CapacitySpot))},
			},
			"allocatable": schema.SingleNestedAttribute{
				Required:    true,
				Description: "What one node offers pods (what the runtime plans with).",
				Attributes: map[string]schema.Attribute{
					"cpu": schema.StringAttribute{
						Required:    true,
						Description: "CPU per node, a Kubernetes quantity greater than 0 such as `3920m`.",
						Validators:  []validator.String{positiveQuantity{example: "3920m"}},
					},
					"memory": schema.StringAttribute{
						Required:    true,
						Description: "Memory per node, a Kubernetes quantity greater than 0 such as `15Gi`.",
						Validators:  []validator.String{positiveQuantity{example: "15Gi"}},
					},
					"pods": schema.Int64Attribute{
						CustomType:  intType{},
						Optional:    true,
						Computed:    true,
						Default:     int64default.StaticInt64(110),
						Description: "Pods per node, 1 or more; defaults to 110.",
						Validators:  []validator.Int64{int64validator.Between(1, 2147483647)},
					},
				},
			},
			"price_per_hour": schema.StringAttribute{
				Required: true,
				Description: "One node's price per hour, a non-negative decimal with at most 9 fractional digits such " +
					"as `0.192` (on-demand list price, or the expected spot price).",
				Validators: []validator.String{
					stringvalidator.LengthAtMost(32),
					stringvalidator.RegexMatches(priceRE, "must be a non-negative decimal with at most 9 fractional digits, such as \"0.192\""),
				},
			},
			"min_nodes": schema.Int64Attribute{
				CustomType:  intType{},
				Optional:    true,
				Computed:    true,
				Default:     int64default.StaticInt64(0),
				Description: "Fewest nodes the runtime leaves, 0 (the default: scale to zero) or more and at most max_nodes.",
				Validators:  []validator.Int64{int64validator.Between(0, 1000)},
			},
			"max_nodes": schema.Int64Attribute{
				CustomType:  intType{},
				Required:    true,
				Description: "Most nodes the runtime asks for, 1 to 1000; keep it at most the cloud group's max_size.",
				Validators:  []validator.Int64{int64validator.Between(1, 1000)},
			},
			"labels": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Labels the group's nodes carry (matched against pods' node selectors), at most 64 valid Kubernetes labels.",
				Validators:  []validator.Map{mapvalidator.SizeAtMost(64), labelsValidator},
			},
			"taints": schema.ListNestedAttribute{
				Optional:    true,
				Description: "Taints the group's nodes carry (pods must tolerate them), at most 50.",
				Validators:  []validator.List{listvalidator.SizeAtMost(50)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key": schema.StringAttribute{
						Required:    true,
						Description: "Key of the taint, a qualified name such as `hca.dev/spot`.",
						Validators:  []validator.String{stringvalidator.LengthBetween(1, 316)},
					},
					"value": schema.StringAttribute{
						Optional:    true,
						Description: "Value of the taint, at most 63 characters; omit it for none.",
						Validators:  []validator.String{stringvalidator.LengthBetween(1, 63)},
					},
					"effect": schema.StringAttribute{
						Required:    true,
						Description: "Effect of the taint, in Kubernetes' spelling: `NoSchedule`, `PreferNoSchedule` or `NoExecute`.",
						Validators: []validator.String{stringvalidator.OneOf(string(corev1.TaintEffectNoSchedule),
							string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute))},
					},
				}},
			},
		}},
	}
}

// validateNodeGroups checks the rules of spec.nodeGroups' CEL validation and
// list map (exactly one of eks and ack, min_nodes <= max_nodes, names
// unique) at plan time; values unknown yet are not judged.
func validateNodeGroups(ctx context.Context, list types.List) diag.Diagnostics {
	var diags diag.Diagnostics
	if list.IsNull() || list.IsUnknown() {
		return diags
	}
	seen := map[string]int{}
	for i, e := range list.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsNull() || obj.IsUnknown() {
			continue
		}
		var g clusterNodeGroup
		if d := obj.As(ctx, &g, basetypes.ObjectAsOptions{}); d.HasError() {
			continue
		}
		at := path.Root("node_groups").AtListIndex(i)
		prefix := fmt.Sprintf("node_groups[%d]", i)
		for _, msg := range nodeGroupProblems(prefix, g) {
			diags.AddAttributeError(at, "Invalid node_groups", msg)
		}
		if allKnown(g.Name) {
			if j, dup := seen[g.Name.ValueString()]; dup {
				diags.AddAttributeError(at.AtName("name"), "Invalid node_groups",
					fmt.Sprintf("node_groups[%d] and node_groups[%d] are both named %q: give each node group its own name.", j, i, g.Name.ValueString()))
			}
			seen[g.Name.ValueString()] = i
		}
	}
	return diags
}

// nodeGroupProblems says what is wrong with one group, as the CRD's CEL
// rules would; prefix names it ("node_groups[0]").
func nodeGroupProblems(prefix string, g clusterNodeGroup) []string {
	var out []string
	// A reference unknown at plan time will be set: it counts as set.
	eks, ack := !g.EKS.IsNull(), !g.ACK.IsNull()
	switch {
	case eks && ack:
		out = append(out, prefix+" sets both eks and ack: a group is either an EKS managed node group (eks) or an ACK node pool (ack); remove one.")
	case !eks && !ack:
		out = append(out, prefix+" sets neither eks nor ack: set eks = hca_eks_cluster.<label>.node_groups[i].eks or ack = hca_ack_cluster.<label>.node_pools[i].ack.")
	}
	if allKnown(g.MinNodes, g.MaxNodes) && g.MinNodes.ValueInt64() > g.MaxNodes.ValueInt64() {
		out = append(out, fmt.Sprintf("%s.min_nodes (%d) is greater than %s.max_nodes (%d): set min_nodes to at most max_nodes.",
			prefix, g.MinNodes.ValueInt64(), prefix, g.MaxNodes.ValueInt64()))
	}
	return out
}

// nodeGroupsToAPI converts node_groups to spec.nodeGroups.
func nodeGroupsToAPI(list types.List) ([]hcav1.NodeGroup, error) {
	if list.IsNull() || list.IsUnknown() {
		return nil, nil
	}
	ctx := context.Background()
	var groups []clusterNodeGroup
	if d := list.ElementsAs(ctx, &groups, false); d.HasError() {
		return nil, fmt.Errorf("node_groups cannot be read: %s", diagText(d))
	}
	out := make([]hcav1.NodeGroup, 0, len(groups))
	for i, g := range groups {
		ng := hcav1.NodeGroup{
			Name:         g.Name.ValueString(),
			InstanceType: g.InstanceType.ValueString(),
			CapacityType: hcav1.CapacityType(g.CapacityType.ValueString()),
			PricePerHour: hcav1.Price(g.PricePerHour.ValueString()),
			MinNodes:     int32(g.MinNodes.ValueInt64()),
			MaxNodes:     int32(g.MaxNodes.ValueInt64()),
		}
		if ng.CapacityType == "" {
			ng.CapacityType = hcav1.CapacityOnDemand
		}
		if !g.EKS.IsNull() {
			a := g.EKS.Attributes()
			ng.EKS = &hcav1.EKSNodeGroupRef{ClusterName: strAttr(a, "cluster_name"), Region: strAttr(a, "region"), NodegroupName: strAttr(a, "nodegroup_name")}
		}
		if !g.ACK.IsNull() {
			a := g.ACK.Attributes()
			ng.ACK = &hcav1.ACKNodePoolRef{ClusterID: strAttr(a, "cluster_id"), Region: strAttr(a, "region"), NodePoolID: strAttr(a, "node_pool_id")}
		}
		var alloc clusterNodeAllocatable
		if d := g.Allocatable.As(ctx, &alloc, basetypes.ObjectAsOptions{}); d.HasError() {
			return nil, fmt.Errorf("node_groups[%d].allocatable cannot be read: %s", i, diagText(d))
		}
		for _, q := range []struct {
			field string
			v     types.String
			out   *kresource.Quantity
		}{{"cpu", alloc.CPU, &ng.Allocatable.CPU}, {"memory", alloc.Memory, &ng.Allocatable.Memory}} {
			parsed, err := kresource.ParseQuantity(q.v.ValueString())
			if err != nil {
				return nil, fmt.Errorf("node_groups[%d].allocatable.%s %q is not a quantity: %w", i, q.field, q.v.ValueString(), err)
			}
			*q.out = parsed
		}
		ng.Allocatable.Pods = int32(alloc.Pods.ValueInt64())
		if ng.Allocatable.Pods == 0 {
			ng.Allocatable.Pods = 110
		}
		if !g.Labels.IsNull() {
			ng.Labels = map[string]string{}
			if d := g.Labels.ElementsAs(ctx, &ng.Labels, false); d.HasError() {
				return nil, fmt.Errorf("node_groups[%d].labels cannot be read: %s", i, diagText(d))
			}
		}
		if !g.Taints.IsNull() {
			var taints []clusterTaint
			if d := g.Taints.ElementsAs(ctx, &taints, false); d.HasError() {
				return nil, fmt.Errorf("node_groups[%d].taints cannot be read: %s", i, diagText(d))
			}
			ng.Taints = []corev1.Taint{}
			for _, t := range taints {
				ng.Taints = append(ng.Taints, corev1.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: corev1.TaintEffect(t.Effect.ValueString())})
			}
		}
		out = append(out, ng)
	}
	return out, nil
}

// nodeGroupsFromAPI converts spec.nodeGroups to node_groups, keeping prior's
// spelling of equal quantities ("4" and "4000m") and its null labels, taints
// and list when the API has none.
func nodeGroupsFromAPI(groups []hcav1.NodeGroup, prior types.List) types.List {
	objType := types.ObjectType{AttrTypes: clusterNodeGroupTypes}
	if len(groups) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.ListNull(objType)
	}
	var priorGroups []clusterNodeGroup
	if !prior.IsNull() && !prior.IsUnknown() {
		_ = prior.ElementsAs(context.Background(), &priorGroups, false) // best effort: spelling only
	}
	elems := make([]attr.Value, 0, len(groups))
	for i, ng := range groups {
		var p clusterNodeGroup
		var pAlloc clusterNodeAllocatable
		if i < len(priorGroups) {
			p = priorGroups[i]
			if !p.Allocatable.IsNull() && !p.Allocatable.IsUnknown() {
				_ = p.Allocatable.As(context.Background(), &pAlloc, basetypes.ObjectAsOptions{})
			}
		}
		cpu, mem := ng.Allocatable.CPU, ng.Allocatable.Memory
		pods := ng.Allocatable.Pods
		if pods == 0 {
			pods = 110
		}
		g := map[string]attr.Value{
			"name":          types.StringValue(ng.Name),
			"eks":           types.ObjectNull(eksGroupRefTypes),
			"ack":           types.ObjectNull(ackPoolRefTypes),
			"instance_type": types.StringNull(),
			"capacity_type": types.StringValue(string(ng.CapacityType)),
			"allocatable": types.ObjectValueMust(clusterAllocatableTypes, map[string]attr.Value{
				"cpu":    keepQuantity(pAlloc.CPU, &cpu),
				"memory": keepQuantity(pAlloc.Memory, &mem),
				"pods":   types.Int64Value(int64(pods)),
			}),
			"price_per_hour": types.StringValue(string(ng.PricePerHour)),
			"min_nodes":      types.Int64Value(int64(ng.MinNodes)),
			"max_nodes":      types.Int64Value(int64(ng.MaxNodes)),
			"labels":         types.MapNull(types.StringType),
			"taints":         types.ListNull(types.ObjectType{AttrTypes: clusterTaintTypes}),
		}
		if ng.CapacityType == "" {
			g["capacity_type"] = types.StringValue(string(hcav1.CapacityOnDemand))
		}
		if ng.InstanceType != "" {
			g["instance_type"] = types.StringValue(ng.InstanceType)
		}
		if e := ng.EKS; e != nil {
			g["eks"] = types.ObjectValueMust(eksGroupRefTypes, map[string]attr.Value{
				"cluster_name": types.StringValue(e.ClusterName), "region": types.StringValue(e.Region), "nodegroup_name": types.StringValue(e.NodegroupName)})
		}
		if a := ng.ACK; a != nil {
			g["ack"] = types.ObjectValueMust(ackPoolRefTypes, map[string]attr.Value{
				"cluster_id": types.StringValue(a.ClusterID), "region": types.StringValue(a.Region), "node_pool_id": types.StringValue(a.NodePoolID)})
		}
		if len(ng.Labels) > 0 || (!p.Labels.IsNull() && !p.Labels.IsUnknown()) {
			labels := map[string]attr.Value{}
			keys := make([]string, 0, len(ng.Labels))
			for k := range ng.Labels {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				labels[k] = types.StringValue(ng.Labels[k])
			}
			g["labels"] = types.MapValueMust(types.StringType, labels)
		}
		if len(ng.Taints) > 0 || (!p.Taints.IsNull() && !p.Taints.IsUnknown()) {
			taints := make([]attr.Value, 0, len(ng.Taints))
			for _, t := range ng.Taints {
				v := types.StringNull()
				if t.Value != "" {
					v = types.StringValue(t.Value)
				}
				taints = append(taints, types.ObjectValueMust(clusterTaintTypes, map[string]attr.Value{
					"key": types.StringValue(t.Key), "value": v, "effect": types.StringValue(string(t.Effect))}))
			}
			g["taints"] = types.ListValueMust(types.ObjectType{AttrTypes: clusterTaintTypes}, taints)
		}
		elems = append(elems, types.ObjectValueMust(clusterNodeGroupTypes, g))
	}
	return types.ListValueMust(objType, elems)
}

func strAttr(a map[string]attr.Value, k string) string {
	if s, ok := a[k].(types.String); ok {
		return s.ValueString()
	}
	return ""
}

// diagText is the diagnostics' summaries and details on one line.
func diagText(d diag.Diagnostics) string {
	s := ""
	for _, e := range d.Errors() {
		if s != "" {
			s += "; "
		}
		s += e.Summary() + ": " + e.Detail()
	}
	return s
}
