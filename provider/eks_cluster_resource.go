package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/util/wait"
)

var (
	_ resource.Resource                   = (*eksClusterResource)(nil)
	_ resource.ResourceWithConfigure      = (*eksClusterResource)(nil)
	_ resource.ResourceWithImportState    = (*eksClusterResource)(nil)
	_ resource.ResourceWithValidateConfig = (*eksClusterResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*eksClusterResource)(nil)
)

// NewEKSClusterResource returns the hca_eks_cluster resource.
func NewEKSClusterResource() resource.Resource {
	return &eksClusterResource{}
}

const (
	eksDefaultCreateTimeout = 30 * time.Minute
	eksDefaultUpdateTimeout = 60 * time.Minute
	eksDefaultDeleteTimeout = 15 * time.Minute
	// eksPropagationTimeout bounds the retries of CreateCluster while IAM
	// changes propagate, as terraform-provider-aws does (propagationTimeout).
	eksPropagationTimeout = 2 * time.Minute
)

var (
	eksClusterNameRE  = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9_-]*$`)
	eksRoleARNRE      = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+$`)
	eksVersionRE      = regexp.MustCompile(`^1\.[0-9]{1,2}$`)
	eksSubnetIDRE     = regexp.MustCompile(`^subnet-[0-9a-z]+$`)
	eksSGIDRE         = regexp.MustCompile(`^sg-[0-9a-z]+$`)
	eksInstanceTypeRE = regexp.MustCompile(`^[a-z][a-z0-9-]*\.[a-z0-9]+$`)
)

type eksClusterResource struct {
	clients *Clients
}

type eksClusterModel struct {
	ID                    types.String   `tfsdk:"id"`
	Name                  types.String   `tfsdk:"name"`
	Version               types.String   `tfsdk:"version"`
	RoleARN               types.String   `tfsdk:"role_arn"`
	SubnetIDs             types.Set      `tfsdk:"subnet_ids"`
	SecurityGroupIDs      types.Set      `tfsdk:"security_group_ids"`
	EndpointPublicAccess  types.Bool     `tfsdk:"endpoint_public_access"`
	EndpointPrivateAccess types.Bool     `tfsdk:"endpoint_private_access"`
	Tags                  types.Map      `tfsdk:"tags"`
	NodeGroup             *eksNodeGroup  `tfsdk:"node_group"`
	NodeGroups            []eksGroup     `tfsdk:"node_groups"`
	ARN                   types.String   `tfsdk:"arn"`
	Endpoint              types.String   `tfsdk:"endpoint"`
	CertificateAuthority  types.String   `tfsdk:"certificate_authority"`
	Status                types.String   `tfsdk:"status"`
	PlatformVersion       types.String   `tfsdk:"platform_version"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

// eksGroup is one element of node_groups: a managed node group whose
// desired size is the runtime's when desired_size is null.
type eksGroup struct {
	Name          types.String `tfsdk:"name"`
	NodeRoleARN   types.String `tfsdk:"node_role_arn"`
	InstanceTypes types.List   `tfsdk:"instance_types"`
	CapacityType  types.String `tfsdk:"capacity_type"`
	MinSize       types.Int64  `tfsdk:"min_size"`
	MaxSize       types.Int64  `tfsdk:"max_size"`
	DesiredSize   types.Int64  `tfsdk:"desired_size"`
	Labels        types.Map    `tfsdk:"labels"`
	Taints        []eksTaint   `tfsdk:"taints"`
	Tags          types.Map    `tfsdk:"tags"`
	ARN           types.String `tfsdk:"arn"`
	Status        types.String `tfsdk:"status"`
	EKS           types.Object `tfsdk:"eks"`
}

// eksTaint is a taint of a node group's nodes, in EKS's spelling.
type eksTaint struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

// eksGroupRefTypes are the attributes of node_groups[*].eks, the shape of
// hca_cluster's node_groups[*].eks.
var eksGroupRefTypes = map[string]attr.Type{
	"cluster_name":   types.StringType,
	"region":         types.StringType,
	"nodegroup_name": types.StringType,
}

type eksNodeGroup struct {
	Name          types.String `tfsdk:"name"`
	NodeRoleARN   types.String `tfsdk:"node_role_arn"`
	InstanceTypes types.List   `tfsdk:"instance_types"`
	MinSize       types.Int64  `tfsdk:"min_size"`
	MaxSize       types.Int64  `tfsdk:"max_size"`
	DesiredSize   types.Int64  `tfsdk:"desired_size"`
	ARN           types.String `tfsdk:"arn"`
	Status        types.String `tfsdk:"status"`
}

func (r *eksClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_eks_cluster"
}

// requiresReplaceOnceSet replaces the resource when a node_group attribute
// changes from one value to another, but not when the node group was gone
// (null in state after an out-of-band deletion): Update creates it again.
func requiresReplaceOnceSet() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = !req.StateValue.IsNull()
	}, "Changing this value replaces the cluster, unless the node group no longer exists.",
		"Changing this value replaces the cluster, unless the node group no longer exists.")
}

func (r *eksClusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Provisions an Amazon EKS cluster and its managed node groups with the AWS SDK, to use as a burst " +
			"target. Create waits until the cluster is ACTIVE (retrying the IAM propagation errors of a role created " +
			"in the same apply), then creates each node group and waits until it is ACTIVE. Node groups' sizes, " +
			"labels and taints change in place (UpdateNodegroupConfig, waiting on DescribeUpdate), groups are added " +
			"and removed in place, and a node group without desired_size is sized by the HCA runtime (Terraform " +
			"leaves its size alone); the cluster's own arguments replace the cluster. Delete removes the node " +
			"groups, then the cluster, and waits until all are gone. Import with the cluster name (`my-cluster`: " +
			"every node group into node_groups), or `cluster:node_group` for the deprecated node_group.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The cluster name (the import ID).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true,
				Description: "Name of the EKS cluster: 1 to 100 characters, letters, digits, hyphens and underscores, " +
					"starting with a letter or digit. Unique in the account and region. Changing it replaces the cluster.",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 100),
					stringvalidator.RegexMatches(eksClusterNameRE, "must start with a letter or digit and contain only letters, digits, hyphens and underscores"),
				},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"version": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Description: "Kubernetes minor version, such as `1.34`. Defaults to EKS's default version. Changing it " +
					"replaces the cluster: the EKS API this provider targets (and its lab emulator) has no " +
					"UpdateClusterVersion, so upgrades are not done in place.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(eksVersionRE, "must be a Kubernetes minor version such as \"1.34\""),
				},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"role_arn": schema.StringAttribute{
				Required: true,
				Description: "ARN of the IAM role EKS uses to manage the cluster, such as " +
					"`arn:aws:iam::123456789012:role/eks-cluster`. Changing it replaces the cluster.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(eksRoleARNRE, "must be an IAM role ARN such as \"arn:aws:iam::123456789012:role/eks-cluster\""),
				},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"subnet_ids": schema.SetAttribute{
				Required:    true,
				ElementType: types.StringType,
				Description: "IDs of the subnets (`subnet-...`) of the cluster and its node group: at least 2, in at " +
					"least two Availability Zones. Changing them replaces the cluster.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(2),
					setvalidator.ValueStringsAre(stringvalidator.RegexMatches(eksSubnetIDRE, "must be a subnet ID such as \"subnet-0a1b2c3d\"")),
				},
				PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			},
			"security_group_ids": schema.SetAttribute{
				Optional:    true,
				Computed:    true,
				ElementType: types.StringType,
				Description: "IDs of additional security groups (`sg-...`) for the cluster's network interfaces. " +
					"Defaults to none (EKS still creates its cluster security group). Changing them replaces the cluster.",
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(stringvalidator.RegexMatches(eksSGIDRE, "must be a security group ID such as \"sg-0a1b2c3d\"")),
				},
				PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown(), setplanmodifier.RequiresReplace()},
			},
			"endpoint_public_access": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				Default:       booldefault.StaticBool(true),
				Description:   "Whether the API server endpoint is reachable from the internet. Defaults to `true`. Changing it replaces the cluster.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"endpoint_private_access": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				Default:       booldefault.StaticBool(false),
				Description:   "Whether the API server endpoint is reachable from the cluster's VPC. Defaults to `false`. Changing it replaces the cluster.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"tags": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Tags of the cluster, at most 50: keys of 1 to 128 characters, not starting with `aws:`, values of " +
					"at most 256, both of letters, digits, spaces and `_ . : / = + - @` only. Changing them replaces the cluster " +
					"(tags are set at creation only).",
				Validators:    []validator.Map{mapvalidator.SizeAtMost(50), awsTagsValidator},
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"node_groups": schema.ListNestedAttribute{
				Optional: true,
				Description: "The cluster's managed node groups, in the cluster's subnets: 1 to 30, each name once " +
					"(exactly one of node_groups or the deprecated node_group). Groups are created, deleted and " +
					"updated in place by name; a group whose node_role_arn, instance_types or capacity_type changes is " +
					"deleted and created again (the cluster is kept). A group without desired_size is created at " +
					"min_size and its size is then the HCA runtime's: Terraform never sets it and shows no drift when " +
					"it changes.",
				Validators: []validator.List{listvalidator.SizeBetween(1, 30)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Required: true,
						Description: "Name of the node group: 1 to 63 characters, letters, digits, hyphens and " +
							"underscores, starting with a letter or digit; unique in the cluster.",
						Validators: []validator.String{
							stringvalidator.LengthBetween(1, 63),
							stringvalidator.RegexMatches(eksClusterNameRE, "must start with a letter or digit and contain only letters, digits, hyphens and underscores"),
						},
					},
					"node_role_arn": schema.StringAttribute{
						Required:    true,
						Description: "ARN of the IAM role of the nodes, such as `arn:aws:iam::123456789012:role/eks-node`. Changing it recreates the group.",
						Validators: []validator.String{
							stringvalidator.RegexMatches(eksRoleARNRE, "must be an IAM role ARN such as \"arn:aws:iam::123456789012:role/eks-node\""),
						},
					},
					"instance_types": schema.ListAttribute{
						Required:    true,
						ElementType: types.StringType,
						Description: "EC2 instance types of the nodes, such as `[\"m5.large\"]`: 1 to 20 distinct types; " +
							"EKS rejects types it does not offer in the region. Changing them recreates the group.",
						Validators: []validator.List{
							listvalidator.SizeBetween(1, 20),
							uniqueStrings{},
							listvalidator.ValueStringsAre(stringvalidator.RegexMatches(eksInstanceTypeRE, "must be an EC2 instance type such as \"m5.large\"")),
						},
					},
					"capacity_type": schema.StringAttribute{
						Optional: true,
						Computed: true,
						Default:  stringdefault.StaticString(string(ekstypes.CapacityTypesOnDemand)),
						Description: "`ON_DEMAND` (the default) or `SPOT` (interruptible, cheaper nodes). Changing it " +
							"recreates the group.",
						Validators: []validator.String{stringvalidator.OneOf(string(ekstypes.CapacityTypesOnDemand), string(ekstypes.CapacityTypesSpot))},
					},
					"min_size": schema.Int64Attribute{
						CustomType:  intType{},
						Required:    true,
						Description: "Minimum number of nodes, 0 or more and at most max_size (0: the group can scale to zero). Updated in place.",
						Validators:  []validator.Int64{int64validator.AtLeast(0)},
					},
					"max_size": schema.Int64Attribute{
						CustomType:  intType{},
						Required:    true,
						Description: "Maximum number of nodes, 1 or more and at least min_size. Updated in place.",
						Validators:  []validator.Int64{int64validator.AtLeast(1)},
					},
					"desired_size": schema.Int64Attribute{
						CustomType: intType{},
						Optional:   true,
						Description: "Number of nodes to run, from min_size to max_size, updated in place. Unset: the " +
							"group is created at min_size and its size is handed to the HCA runtime (list the group in " +
							"`hca_cluster.node_groups`); Terraform then never changes it and reads no drift. Setting it " +
							"later takes the size back; unsetting it hands it over again.",
						Validators: []validator.Int64{int64validator.AtLeast(0)},
					},
					"labels": schema.MapAttribute{
						Optional:    true,
						ElementType: types.StringType,
						Description: "Kubernetes labels of the group's nodes (valid label keys and values, at most 50). Updated in place; they apply to nodes launched afterwards.",
						Validators:  []validator.Map{mapvalidator.SizeAtMost(50), labelsValidator},
					},
					"taints": schema.ListNestedAttribute{
						Optional:    true,
						Description: "Kubernetes taints of the group's nodes, at most 50. Updated in place; they apply to nodes launched afterwards.",
						Validators:  []validator.List{listvalidator.SizeAtMost(50)},
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key": schema.StringAttribute{
								Required:    true,
								Description: "Key of the taint: 1 to 63 characters.",
								Validators:  []validator.String{stringvalidator.LengthBetween(1, 63)},
							},
							"value": schema.StringAttribute{
								Optional:    true,
								Description: "Value of the taint: 1 to 63 characters; omit it for a taint without value.",
								Validators:  []validator.String{stringvalidator.LengthBetween(1, 63)},
							},
							"effect": schema.StringAttribute{
								Required:    true,
								Description: "Effect of the taint, in EKS's spelling: `NO_SCHEDULE`, `NO_EXECUTE` or `PREFER_NO_SCHEDULE`.",
								Validators: []validator.String{stringvalidator.OneOf(string(ekstypes.TaintEffectNoSchedule),
									string(ekstypes.TaintEffectNoExecute), string(ekstypes.TaintEffectPreferNoSchedule))},
							},
						}},
					},
					"tags": schema.MapAttribute{
						Optional:    true,
						ElementType: types.StringType,
						Description: "Tags of the node group, at most 50 (keys of 1 to 128 characters, not starting with `aws:`, values " +
							"of at most 256, both of letters, digits, spaces and `_ . : / = + - @` only), set at creation: changing them " +
							"recreates the group. In the lab, " +
							"`hca.dev/lab-node-boot-delay` (a Go duration) sets the group's node boot delay.",
						Validators: []validator.Map{mapvalidator.SizeAtMost(50), awsTagsValidator},
					},
					"arn": schema.StringAttribute{
						Computed:    true,
						Description: "ARN of the node group.",
					},
					"status": schema.StringAttribute{
						Computed:    true,
						Description: "Status of the node group (`ACTIVE` once created or updated).",
					},
					"eks": schema.SingleNestedAttribute{
						Computed: true,
						Description: "The group's identifiers as `hca_cluster`'s `node_groups[*].eks` takes them: " +
							"`cluster_name`, `region` (the provider's AWS region) and `nodegroup_name`. Known at plan time.",
						Attributes: map[string]schema.Attribute{
							"cluster_name":   schema.StringAttribute{Computed: true, Description: "Name of the EKS cluster."},
							"region":         schema.StringAttribute{Computed: true, Description: "AWS region of the cluster."},
							"nodegroup_name": schema.StringAttribute{Computed: true, Description: "Name of the managed node group."},
						},
					},
				}},
			},
			"node_group": schema.SingleNestedAttribute{
				Optional: true,
				DeprecationMessage: "node_group is deprecated: use node_groups (a list of node groups, whose desired_size " +
					"may be left to the HCA runtime). Move the block into node_groups = [{ ... }] with the same name: the " +
					"node group is kept. node_group will be removed in a future major version.",
				Description: "Deprecated: use `node_groups`. The cluster's single managed node group, in the cluster's " +
					"subnets (exactly one of node_group or node_groups).",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Required: true,
						Description: "Name of the node group: 1 to 63 characters, letters, digits, hyphens and " +
							"underscores, starting with a letter or digit. Changing it replaces the cluster.",
						Validators: []validator.String{
							stringvalidator.LengthBetween(1, 63),
							stringvalidator.RegexMatches(eksClusterNameRE, "must start with a letter or digit and contain only letters, digits, hyphens and underscores"),
						},
						PlanModifiers: []planmodifier.String{requiresReplaceOnceSet()},
					},
					"node_role_arn": schema.StringAttribute{
						Required:    true,
						Description: "ARN of the IAM role of the nodes, such as `arn:aws:iam::123456789012:role/eks-node`. Changing it replaces the cluster.",
						Validators: []validator.String{
							stringvalidator.RegexMatches(eksRoleARNRE, "must be an IAM role ARN such as \"arn:aws:iam::123456789012:role/eks-node\""),
						},
						PlanModifiers: []planmodifier.String{requiresReplaceOnceSet()},
					},
					"instance_types": schema.ListAttribute{
						Required:    true,
						ElementType: types.StringType,
						Description: "EC2 instance types of the nodes, such as `[\"m5.large\"]`: 1 to 20 distinct types; " +
							"EKS rejects types it does not offer in the region. Changing them replaces the cluster.",
						Validators: []validator.List{
							listvalidator.SizeBetween(1, 20),
							uniqueStrings{},
							listvalidator.ValueStringsAre(stringvalidator.RegexMatches(eksInstanceTypeRE, "must be an EC2 instance type such as \"m5.large\"")),
						},
						PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
							resp.RequiresReplace = !req.StateValue.IsNull()
						}, "Changing the instance types replaces the cluster.", "Changing the instance types replaces the cluster.")},
					},
					"min_size": schema.Int64Attribute{
						CustomType:  intType{},
						Required:    true,
						Description: "Minimum number of nodes, 0 or more and at most max_size. Updated in place.",
						Validators:  []validator.Int64{int64validator.AtLeast(0)},
					},
					"max_size": schema.Int64Attribute{
						CustomType:  intType{},
						Required:    true,
						Description: "Maximum number of nodes, 1 or more and at least min_size. Updated in place.",
						Validators:  []validator.Int64{int64validator.AtLeast(1)},
					},
					"desired_size": schema.Int64Attribute{
						CustomType:  intType{},
						Required:    true,
						Description: "Number of nodes to run, from min_size to max_size. Updated in place.",
						Validators:  []validator.Int64{int64validator.AtLeast(0)},
					},
					"arn": schema.StringAttribute{
						// No UseStateForUnknown: after an out-of-band deletion the
						// state's value is null and the new node group gets a new ARN.
						Computed:    true,
						Description: "ARN of the node group.",
					},
					"status": schema.StringAttribute{
						Computed:    true,
						Description: "Status of the node group (`ACTIVE` once created or updated).",
					},
				},
			},
			"arn": schema.StringAttribute{
				Computed:      true,
				Description:   "ARN of the cluster.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"endpoint": schema.StringAttribute{
				Computed:      true,
				Description:   "URL of the cluster's Kubernetes API server.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"certificate_authority": schema.StringAttribute{
				Computed: true,
				Description: "Base64-encoded PEM certificate of the cluster's CA (EKS's `certificateAuthority.data`); " +
					"`base64decode()` it for a kubeconfig or `hca_cluster`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"status": schema.StringAttribute{
				Computed:      true,
				Description:   "Status of the cluster (`ACTIVE` once created).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"platform_version": schema.StringAttribute{
				Computed:      true,
				Description:   "EKS platform version of the cluster, such as `eks.1`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": timeoutsAttr(ctx, map[string]string{
				"create": "the cluster and then its node groups to become ACTIVE (default `30m`)",
				"update": "the node groups to be created, deleted and updated (default `60m`)",
				"delete": "the node groups and the cluster to be deleted (default `15m`)",
			}),
		},
	}
}

// ValidateConfig checks that exactly one of node_group and node_groups is
// set, and each group's sizes against each other and the names' uniqueness,
// so that plan fails before EKS does.
func (r *eksClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var obj types.Object
	var list types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_group"), &obj)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_groups"), &list)...)
	if resp.Diagnostics.HasError() {
		return
	}
	switch {
	case obj.IsNull() && list.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("node_groups"), "Missing node_groups",
			"hca_eks_cluster needs its node groups: set node_groups = [{ name, node_role_arn, instance_types, min_size, max_size }].")
	case !obj.IsNull() && !list.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("node_group"), "Invalid node_group",
			"node_group and node_groups are both set: move node_group into node_groups (node_group is deprecated).")
	}
	if !obj.IsNull() && !obj.IsUnknown() {
		var ng eksNodeGroup
		resp.Diagnostics.Append(obj.As(ctx, &ng, basetypes.ObjectAsOptions{})...)
		if resp.Diagnostics.HasError() {
			return
		}
		if allKnown(ng.MinSize, ng.MaxSize, ng.DesiredSize) {
			if msg := eksScalingProblem("node_group", ng.MinSize.ValueInt64(), ng.MaxSize.ValueInt64(), &[]int64{ng.DesiredSize.ValueInt64()}[0]); msg != "" {
				resp.Diagnostics.AddAttributeError(path.Root("node_group"), "Invalid node_group scaling", msg)
			}
		}
	}
	if list.IsNull() || list.IsUnknown() {
		return
	}
	var groups []eksGroup
	resp.Diagnostics.Append(list.ElementsAs(ctx, &groups, true)...)
	if resp.Diagnostics.HasError() {
		return
	}
	seen := map[string]int{}
	for i, g := range groups {
		at := path.Root("node_groups").AtListIndex(i)
		prefix := fmt.Sprintf("node_groups[%d]", i)
		if allKnown(g.Name) {
			if j, dup := seen[g.Name.ValueString()]; dup {
				resp.Diagnostics.AddAttributeError(at.AtName("name"), "Invalid node_groups",
					fmt.Sprintf("node_groups[%d] and node_groups[%d] are both named %q: give each node group its own name.", j, i, g.Name.ValueString()))
			}
			seen[g.Name.ValueString()] = i
		}
		if !allKnown(g.MinSize, g.MaxSize) || g.DesiredSize.IsUnknown() {
			continue
		}
		var desired *int64
		if !g.DesiredSize.IsNull() {
			desired = g.DesiredSize.ValueInt64Pointer()
		}
		if msg := eksScalingProblem(prefix, g.MinSize.ValueInt64(), g.MaxSize.ValueInt64(), desired); msg != "" {
			resp.Diagnostics.AddAttributeError(at, "Invalid node_groups scaling", msg)
		}
	}
}

// ModifyPlan plans node_groups[*].eks (known from the cluster's name, the
// provider's region and the group's name, so that hca_cluster's plan is
// known too) and keeps the arn and status of groups changed in place.
func (r *eksClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var list types.List
	var name types.String
	var legacy types.Object
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("node_groups"), &list)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("node_group"), &legacy)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !legacy.IsNull() && !req.State.Raw.IsNull() {
		var prior types.List
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("node_groups"), &prior)...)
		if !prior.IsNull() && len(prior.Elements()) > 0 && len(resp.RequiresReplace) == 0 {
			resp.Diagnostics.AddAttributeError(path.Root("node_group"), "Invalid node_group",
				"The cluster's node groups are in node_groups: moving them back into the deprecated node_group is not supported. Keep node_groups.")
			return
		}
	}
	if list.IsNull() || list.IsUnknown() {
		return
	}
	var groups []eksGroup
	if diags := list.ElementsAs(ctx, &groups, false); diags.HasError() {
		return // unknown parts: planned as they are
	}
	prior := map[string]eksGroup{}
	if !req.State.Raw.IsNull() && len(resp.RequiresReplace) == 0 {
		var state eksClusterModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		for _, g := range eksGroupsOf(&state) {
			prior[g.Name.ValueString()] = g
		}
	}
	region := ""
	if r.clients != nil {
		region = r.clients.AWS.Region
	}
	for i := range groups {
		g := &groups[i]
		g.EKS = types.ObjectUnknown(eksGroupRefTypes)
		if !name.IsUnknown() && !g.Name.IsUnknown() {
			g.EKS = eksGroupRef(name.ValueString(), region, g.Name.ValueString())
		}
		if s, ok := prior[g.Name.ValueString()]; ok && !g.Name.IsUnknown() && !s.ARN.IsNull() && !eksGroupRecreated(s, *g) {
			g.ARN, g.Status = s.ARN, s.Status
			if !s.EKS.IsNull() && !s.EKS.IsUnknown() {
				g.EKS = s.EKS // the group stays where it is
			}
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("node_groups"), groups)...)
}

// allKnown reports whether every value is known and not null.
func allKnown(vs ...attr.Value) bool {
	for _, v := range vs {
		if v.IsNull() || v.IsUnknown() {
			return false
		}
	}
	return true
}

// eksScalingProblem says what is wrong with a node group's sizes, or "";
// prefix names the group ("node_groups[1]"), desired is nil when unset.
func eksScalingProblem(prefix string, minSize, maxSize int64, desired *int64) string {
	switch {
	case minSize > maxSize:
		return fmt.Sprintf("%s.min_size (%d) is greater than %s.max_size (%d): set min_size to at most max_size.", prefix, minSize, prefix, maxSize)
	case desired != nil && (*desired < minSize || *desired > maxSize):
		return fmt.Sprintf("%s.desired_size (%d) is outside [min_size, max_size] = [%d, %d]: set desired_size from min_size to max_size, or remove it to hand the size to the HCA runtime.", prefix, *desired, minSize, maxSize)
	}
	return ""
}

func (r *eksClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

func (r *eksClusterResource) eks(diags *diag.Diagnostics, summary string) *eks.Client {
	client, err := r.clients.EKS()
	if err != nil {
		diags.AddError(summary, "The AWS SDK configuration could not be loaded: "+err.Error()+
			". Configure AWS credentials and region (the aws block, AWS_* environment variables or shared files).")
		return nil
	}
	return client
}

func (r *eksClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan eksClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, eksDefaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	client := r.eks(&resp.Diagnostics, "Error creating EKS cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	in, diags := eksCreateClusterInput(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	tflog.Info(ctx, "creating EKS cluster", map[string]any{"name": name})
	if err := eksCreateClusterRetrying(ctx, client, in); err != nil {
		resp.Diagnostics.AddError("Error creating EKS cluster", fmt.Sprintf("CreateCluster %q: %s", name, err))
		return
	}
	// The cluster exists from here on: save it, so that a failure below
	// leaves it in state (tainted) for the next apply or destroy, with what
	// is known of it and no unknown values.
	plan.ID = types.StringValue(name)
	saved := plan
	saved.NodeGroup = nil
	resp.Diagnostics.Append(setPartialState(ctx, &resp.State, &saved)...)

	cluster, err := eksWaitCluster(ctx, client, name)
	if err != nil {
		resp.Diagnostics.AddError("Error creating EKS cluster", fmt.Sprintf("Cluster %q: %s", name, err))
		return
	}
	resp.Diagnostics.Append(eksFlatten(ctx, cluster, nil, &saved)...)
	resp.Diagnostics.Append(setPartialState(ctx, &resp.State, &saved)...)
	if plan.NodeGroup == nil {
		// Each group is saved once ACTIVE, so that a failure leaves the
		// created ones in state (tainted) and none orphaned.
		var subnets []string
		resp.Diagnostics.Append(plan.SubnetIDs.ElementsAs(ctx, &subnets, false)...)
		region := r.clients.AWS.Region
		saved.NodeGroups = []eksGroup{}
		for _, g := range plan.NodeGroups {
			ngIn, diags := eksGroupCreateInput(ctx, name, subnets, g)
			resp.Diagnostics.Append(diags...)
			if resp.Diagnostics.HasError() {
				return
			}
			ng, err := eksCreateNodegroupAndWait(ctx, client, ngIn)
			if err != nil {
				resp.Diagnostics.AddError("Error creating EKS node group", fmt.Sprintf("Node group %q of cluster %q: %s", g.Name.ValueString(), name, err))
				return
			}
			flat, diags := eksGroupFlatten(ctx, ng, g, region)
			resp.Diagnostics.Append(diags...)
			saved.NodeGroups = append(saved.NodeGroups, flat)
			resp.Diagnostics.Append(setPartialState(ctx, &resp.State, &saved)...)
		}
		plan.NodeGroups = saved.NodeGroups
		resp.Diagnostics.Append(eksFlatten(ctx, cluster, nil, &plan)...)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ngIn, diags := eksCreateNodegroupInput(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ng, err := eksCreateNodegroupAndWait(ctx, client, ngIn)
	if err != nil {
		resp.Diagnostics.AddError("Error creating EKS node group", fmt.Sprintf("Node group %q of cluster %q: %s", aws.ToString(ngIn.NodegroupName), name, err))
		return
	}
	resp.Diagnostics.Append(eksFlatten(ctx, cluster, ng, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *eksClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state eksClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	client := r.eks(&resp.Diagnostics, "Error reading EKS cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	out, err := client.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if eksNotFound(err) {
		tflog.Warn(ctx, "EKS cluster not found, removing it from state", map[string]any{"name": name})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Error reading EKS cluster", fmt.Sprintf("DescribeCluster %q: %s", name, err))
		return
	}
	if out.Cluster.Status == ekstypes.ClusterStatusDeleting {
		resp.State.RemoveResource(ctx)
		return
	}
	var ng *ekstypes.Nodegroup
	if state.NodeGroup != nil && state.NodeGroup.Name.ValueString() != "" {
		ngOut, err := client.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: state.NodeGroup.Name.ValueStringPointer()})
		switch {
		case eksNotFound(err):
			// Gone out of band: the next apply creates it again.
		case err != nil:
			resp.Diagnostics.AddError("Error reading EKS node group", fmt.Sprintf("DescribeNodegroup %q of cluster %q: %s", state.NodeGroup.Name.ValueString(), name, err))
			return
		case ngOut.Nodegroup.Status != ekstypes.NodegroupStatusDeleting:
			ng = ngOut.Nodegroup
		}
	}
	if state.NodeGroup == nil && state.NodeGroups != nil {
		groups, diags := r.readGroups(ctx, client, name, state.NodeGroups)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		state.NodeGroups = groups
		resp.Diagnostics.Append(eksFlatten(ctx, out.Cluster, nil, &state)...)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	resp.Diagnostics.Append(eksFlatten(ctx, out.Cluster, ng, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// readGroups describes each group of prior; a group gone out of band (or
// being deleted) is left out, so that the next apply creates it again.
func (r *eksClusterResource) readGroups(ctx context.Context, client *eks.Client, cluster string, prior []eksGroup) ([]eksGroup, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := []eksGroup{}
	for _, g := range prior {
		ngOut, err := client.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: g.Name.ValueStringPointer()})
		switch {
		case eksNotFound(err):
			tflog.Warn(ctx, "EKS node group not found, removing it from state", map[string]any{"cluster": cluster, "node_group": g.Name.ValueString()})
			continue
		case err != nil:
			diags.AddError("Error reading EKS node group", fmt.Sprintf("DescribeNodegroup %q of cluster %q: %s", g.Name.ValueString(), cluster, err))
			return nil, diags
		case ngOut.Nodegroup.Status == ekstypes.NodegroupStatusDeleting:
			continue
		}
		flat, d := eksGroupFlatten(ctx, ngOut.Nodegroup, g, r.clients.AWS.Region)
		diags.Append(d...)
		out = append(out, flat)
	}
	return out, diags
}

func (r *eksClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state eksClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, eksDefaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	client := r.eks(&resp.Diagnostics, "Error updating EKS cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := state.ID.ValueString()
	if plan.NodeGroup == nil {
		r.updateGroups(ctx, client, &state, &plan, resp)
		return
	}
	ngName := plan.NodeGroup.Name.ValueString()
	if state.NodeGroup == nil && len(state.NodeGroups) > 0 {
		resp.Diagnostics.AddAttributeError(path.Root("node_group"), "Error updating EKS cluster",
			"The node groups are in node_groups: moving them back into the deprecated node_group is not supported. Keep node_groups.")
		return
	}

	if state.NodeGroup == nil {
		ngIn, diags := eksCreateNodegroupInput(ctx, plan)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if _, err := eksCreateNodegroupAndWait(ctx, client, ngIn); err != nil {
			resp.Diagnostics.AddError("Error creating EKS node group", fmt.Sprintf("Node group %q of cluster %q: %s", ngName, name, err))
			return
		}
	} else if sc := eksScalingUpdate(state.NodeGroup, plan.NodeGroup); sc != nil {
		out, err := client.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{
			ClusterName: aws.String(name), NodegroupName: aws.String(ngName), ScalingConfig: sc,
		})
		if err != nil {
			resp.Diagnostics.AddError("Error updating EKS node group", fmt.Sprintf("UpdateNodegroupConfig %q of cluster %q: %s", ngName, name, err))
			return
		}
		if err := eksWaitUpdate(ctx, client, name, ngName, aws.ToString(out.Update.Id)); err != nil {
			resp.Diagnostics.AddError("Error updating EKS node group", fmt.Sprintf("Update %s of node group %q of cluster %q: %s", aws.ToString(out.Update.Id), ngName, name, err))
			return
		}
	}

	cl, err := client.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		resp.Diagnostics.AddError("Error reading EKS cluster", fmt.Sprintf("DescribeCluster %q: %s", name, err))
		return
	}
	ng, err := client.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ngName)})
	if err != nil {
		resp.Diagnostics.AddError("Error reading EKS node group", fmt.Sprintf("DescribeNodegroup %q of cluster %q: %s", ngName, name, err))
		return
	}
	resp.Diagnostics.Append(eksFlatten(ctx, cl.Cluster, ng.Nodegroup, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// updateGroups takes the cluster's node groups from state (node_groups, or
// the deprecated node_group) to plan's node_groups: deletes the groups no
// longer planned and those that cannot change in place, creates the new
// ones, updates the others (UpdateNodegroupConfig). Whatever happens, the
// state saved is what EKS then has, so that no node group is orphaned.
func (r *eksClusterResource) updateGroups(ctx context.Context, client *eks.Client, state, plan *eksClusterModel, resp *resource.UpdateResponse) {
	name := state.ID.ValueString()
	prior := eksGroupsOf(state)
	byName := map[string]eksGroup{}
	for _, g := range prior {
		byName[g.Name.ValueString()] = g
	}
	planned := map[string]bool{}
	for _, g := range plan.NodeGroups {
		planned[g.Name.ValueString()] = true
	}
	// What exists afterwards, as far as this apply knows: read back at the end.
	tracked := append([]eksGroup{}, plan.NodeGroups...)
	for _, g := range prior {
		if !planned[g.Name.ValueString()] {
			tracked = append(tracked, g)
		}
	}
	save := func() {
		groups, diags := r.readGroups(ctx, client, name, tracked)
		resp.Diagnostics.Append(diags...)
		plan.NodeGroups = groups
		plan.NodeGroup = nil
		cl, err := client.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
		if err != nil {
			resp.Diagnostics.AddError("Error reading EKS cluster", fmt.Sprintf("DescribeCluster %q: %s", name, err))
			return
		}
		resp.Diagnostics.Append(eksFlatten(ctx, cl.Cluster, nil, plan)...)
		plan.NodeGroups = groups // eksFlatten leaves node_groups alone
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
	var subnets []string
	resp.Diagnostics.Append(plan.SubnetIDs.ElementsAs(ctx, &subnets, false)...)
	if resp.Diagnostics.HasError() {
		return
	}

	for _, g := range prior {
		n := g.Name.ValueString()
		next, keep := byName[n], planned[n]
		if keep {
			for _, p := range plan.NodeGroups {
				if p.Name.ValueString() == n {
					next = p
				}
			}
		}
		if keep && !eksGroupRecreated(g, next) {
			continue
		}
		tflog.Info(ctx, "deleting EKS node group", map[string]any{"cluster": name, "node_group": n})
		if err := eksDeleteNodegroupAndWait(ctx, client, name, n); err != nil {
			resp.Diagnostics.AddError("Error deleting EKS node group", fmt.Sprintf("Node group %q of cluster %q: %s", n, name, err))
			save()
			return
		}
		delete(byName, n)
	}
	for _, g := range plan.NodeGroups {
		n := g.Name.ValueString()
		old, exists := byName[n]
		if !exists {
			in, diags := eksGroupCreateInput(ctx, name, subnets, g)
			resp.Diagnostics.Append(diags...)
			if diags.HasError() {
				save()
				return
			}
			tflog.Info(ctx, "creating EKS node group", map[string]any{"cluster": name, "node_group": n})
			if _, err := eksCreateNodegroupAndWait(ctx, client, in); err != nil {
				resp.Diagnostics.AddError("Error creating EKS node group", fmt.Sprintf("Node group %q of cluster %q: %s", n, name, err))
				save()
				return
			}
			continue
		}
		current := int32(0)
		if g.DesiredSize.IsNull() {
			out, err := client.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(n)})
			if err != nil {
				resp.Diagnostics.AddError("Error reading EKS node group", fmt.Sprintf("DescribeNodegroup %q of cluster %q: %s", n, name, err))
				save()
				return
			}
			if sc := out.Nodegroup.ScalingConfig; sc != nil {
				current = aws.ToInt32(sc.DesiredSize)
			}
		}
		in, diags := eksGroupUpdate(ctx, name, old, g, current)
		resp.Diagnostics.Append(diags...)
		if in == nil || diags.HasError() {
			continue
		}
		out, err := client.UpdateNodegroupConfig(ctx, in)
		if err != nil {
			resp.Diagnostics.AddError("Error updating EKS node group", fmt.Sprintf("UpdateNodegroupConfig %q of cluster %q: %s", n, name, err))
			save()
			return
		}
		if err := eksWaitUpdate(ctx, client, name, n, aws.ToString(out.Update.Id)); err != nil {
			resp.Diagnostics.AddError("Error updating EKS node group", fmt.Sprintf("Update %s of node group %q of cluster %q: %s", aws.ToString(out.Update.Id), n, name, err))
			save()
			return
		}
	}
	save()
}

func (r *eksClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state eksClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, eksDefaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	client := r.eks(&resp.Diagnostics, "Error deleting EKS cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := state.ID.ValueString()

	// Every node group goes first (the configured one, and any left from a
	// failed create): EKS refuses to delete a cluster that has node groups.
	var ngs []string
	p := eks.NewListNodegroupsPaginator(client, &eks.ListNodegroupsInput{ClusterName: aws.String(name)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if eksNotFound(err) {
			return
		}
		if err != nil {
			resp.Diagnostics.AddError("Error deleting EKS cluster", fmt.Sprintf("ListNodegroups of cluster %q: %s", name, err))
			return
		}
		ngs = append(ngs, page.Nodegroups...)
	}
	for _, ng := range ngs {
		if err := eksDeleteNodegroupAndWait(ctx, client, name, ng); err != nil {
			resp.Diagnostics.AddError("Error deleting EKS node group", fmt.Sprintf("Node group %q of cluster %q: %s", ng, name, err))
			return
		}
	}
	if err := eksDeleteClusterAndWait(ctx, client, name); err != nil {
		resp.Diagnostics.AddError("Error deleting EKS cluster", fmt.Sprintf("Cluster %q: %s", name, err))
	}
}

// ImportState takes "cluster" (every node group of the cluster goes into
// node_groups, their desired sizes left to the runtime) or
// "cluster:node_group" (the deprecated node_group).
func (r *eksClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name, ngName, _ := strings.Cut(req.ID, ":")
	if name == "" || !eksClusterNameRE.MatchString(name) || (ngName != "" && !eksClusterNameRE.MatchString(ngName)) {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("The import ID %q is not an EKS cluster name or \"cluster:node_group\": use the cluster's name, such as \"burst-1\" (node_groups), or \"burst-1:workers\" (the deprecated node_group).", req.ID))
		return
	}
	client := r.eks(&resp.Diagnostics, "Error importing EKS cluster")
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	if ngName != "" {
		if _, err := client.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ngName)}); err != nil {
			resp.Diagnostics.AddError("Error importing EKS cluster", fmt.Sprintf("DescribeNodegroup %q of cluster %q: %s", ngName, name, err))
			return
		}
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_group"), eksNodeGroup{
			Name:          types.StringValue(ngName),
			NodeRoleARN:   types.StringNull(),
			InstanceTypes: types.ListNull(types.StringType),
			MinSize:       types.Int64Null(),
			MaxSize:       types.Int64Null(),
			DesiredSize:   types.Int64Null(),
			ARN:           types.StringNull(),
			Status:        types.StringNull(),
		})...)
		return
	}
	groups := []eksGroup{}
	p := eks.NewListNodegroupsPaginator(client, &eks.ListNodegroupsInput{ClusterName: aws.String(name)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			resp.Diagnostics.AddError("Error importing EKS cluster", fmt.Sprintf("ListNodegroups of cluster %q: %s", name, err))
			return
		}
		for _, n := range page.Nodegroups {
			groups = append(groups, eksGroup{
				Name: types.StringValue(n), NodeRoleARN: types.StringNull(), InstanceTypes: types.ListNull(types.StringType),
				CapacityType: types.StringNull(), MinSize: types.Int64Null(), MaxSize: types.Int64Null(), DesiredSize: types.Int64Null(),
				Labels: types.MapNull(types.StringType), Tags: types.MapNull(types.StringType), ARN: types.StringNull(), Status: types.StringNull(),
				EKS: types.ObjectNull(eksGroupRefTypes),
			})
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_groups"), groups)...)
}

// eksCreateClusterInput builds CreateCluster's input from the plan.
func eksCreateClusterInput(ctx context.Context, m eksClusterModel) (*eks.CreateClusterInput, diag.Diagnostics) {
	var diags diag.Diagnostics
	var subnets, sgs []string
	diags.Append(m.SubnetIDs.ElementsAs(ctx, &subnets, false)...)
	if !m.SecurityGroupIDs.IsUnknown() && !m.SecurityGroupIDs.IsNull() {
		diags.Append(m.SecurityGroupIDs.ElementsAs(ctx, &sgs, false)...)
	}
	var tags map[string]string
	if !m.Tags.IsNull() {
		diags.Append(m.Tags.ElementsAs(ctx, &tags, false)...)
	}
	sort.Strings(subnets)
	sort.Strings(sgs)
	in := &eks.CreateClusterInput{
		Name:    m.Name.ValueStringPointer(),
		RoleArn: m.RoleARN.ValueStringPointer(),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{
			SubnetIds:             subnets,
			SecurityGroupIds:      sgs,
			EndpointPublicAccess:  m.EndpointPublicAccess.ValueBoolPointer(),
			EndpointPrivateAccess: m.EndpointPrivateAccess.ValueBoolPointer(),
		},
		Tags: tags,
	}
	if v := m.Version; !v.IsNull() && !v.IsUnknown() {
		in.Version = v.ValueStringPointer()
	}
	return in, diags
}

// eksCreateNodegroupInput builds CreateNodegroup's input from the plan.
func eksCreateNodegroupInput(ctx context.Context, m eksClusterModel) (*eks.CreateNodegroupInput, diag.Diagnostics) {
	var diags diag.Diagnostics
	var subnets, instanceTypes []string
	diags.Append(m.SubnetIDs.ElementsAs(ctx, &subnets, false)...)
	diags.Append(m.NodeGroup.InstanceTypes.ElementsAs(ctx, &instanceTypes, false)...)
	sort.Strings(subnets)
	ng := m.NodeGroup
	return &eks.CreateNodegroupInput{
		ClusterName:   m.Name.ValueStringPointer(),
		NodegroupName: ng.Name.ValueStringPointer(),
		NodeRole:      ng.NodeRoleARN.ValueStringPointer(),
		Subnets:       subnets,
		InstanceTypes: instanceTypes,
		ScalingConfig: &ekstypes.NodegroupScalingConfig{
			MinSize:     aws.Int32(int32(ng.MinSize.ValueInt64())),
			MaxSize:     aws.Int32(int32(ng.MaxSize.ValueInt64())),
			DesiredSize: aws.Int32(int32(ng.DesiredSize.ValueInt64())),
		},
	}, diags
}

// eksScalingUpdate is the scaling config to send when the sizes changed, or nil.
func eksScalingUpdate(state, plan *eksNodeGroup) *ekstypes.NodegroupScalingConfig {
	if state.MinSize.Equal(plan.MinSize) && state.MaxSize.Equal(plan.MaxSize) && state.DesiredSize.Equal(plan.DesiredSize) {
		return nil
	}
	return &ekstypes.NodegroupScalingConfig{
		MinSize:     aws.Int32(int32(plan.MinSize.ValueInt64())),
		MaxSize:     aws.Int32(int32(plan.MaxSize.ValueInt64())),
		DesiredSize: aws.Int32(int32(plan.DesiredSize.ValueInt64())),
	}
}

// eksFlatten writes what EKS reports about the cluster and its node group
// (nil when it does not exist) into m.
func eksFlatten(ctx context.Context, c *ekstypes.Cluster, ng *ekstypes.Nodegroup, m *eksClusterModel) diag.Diagnostics {
	var diags, d diag.Diagnostics
	m.ID = types.StringValue(aws.ToString(c.Name))
	m.Name = types.StringValue(aws.ToString(c.Name))
	m.Version = types.StringValue(aws.ToString(c.Version))
	m.RoleARN = types.StringValue(aws.ToString(c.RoleArn))
	m.ARN = types.StringValue(aws.ToString(c.Arn))
	m.Endpoint = types.StringValue(aws.ToString(c.Endpoint))
	m.Status = types.StringValue(string(c.Status))
	m.PlatformVersion = types.StringValue(aws.ToString(c.PlatformVersion))
	m.CertificateAuthority = types.StringValue("")
	if c.CertificateAuthority != nil {
		m.CertificateAuthority = types.StringValue(aws.ToString(c.CertificateAuthority.Data))
	}
	if v := c.ResourcesVpcConfig; v != nil {
		m.SubnetIDs, d = types.SetValueFrom(ctx, types.StringType, nonNil(v.SubnetIds))
		diags.Append(d...)
		m.SecurityGroupIDs, d = types.SetValueFrom(ctx, types.StringType, nonNil(v.SecurityGroupIds))
		diags.Append(d...)
		m.EndpointPublicAccess = types.BoolValue(v.EndpointPublicAccess)
		m.EndpointPrivateAccess = types.BoolValue(v.EndpointPrivateAccess)
	}
	if len(c.Tags) == 0 && (m.Tags.IsNull() || m.Tags.IsUnknown()) {
		m.Tags = types.MapNull(types.StringType)
	} else {
		m.Tags, d = types.MapValueFrom(ctx, types.StringType, nonNilMap(c.Tags))
		diags.Append(d...)
	}
	if ng == nil {
		m.NodeGroup = nil
		return diags
	}
	out := &eksNodeGroup{
		Name:        types.StringValue(aws.ToString(ng.NodegroupName)),
		NodeRoleARN: types.StringValue(aws.ToString(ng.NodeRole)),
		ARN:         types.StringValue(aws.ToString(ng.NodegroupArn)),
		Status:      types.StringValue(string(ng.Status)),
	}
	out.InstanceTypes, d = types.ListValueFrom(ctx, types.StringType, nonNil(ng.InstanceTypes))
	diags.Append(d...)
	if s := ng.ScalingConfig; s != nil {
		out.MinSize = types.Int64Value(int64(aws.ToInt32(s.MinSize)))
		out.MaxSize = types.Int64Value(int64(aws.ToInt32(s.MaxSize)))
		out.DesiredSize = types.Int64Value(int64(aws.ToInt32(s.DesiredSize)))
	}
	m.NodeGroup = out
	return diags
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func eksNotFound(err error) bool {
	var nf *ekstypes.ResourceNotFoundException
	return errors.As(err, &nf)
}

// eksIAMPropagationError reports whether CreateCluster failed because an IAM
// role created moments ago is not visible to EKS yet, which terraform-provider-aws
// retries. A missing role is only retried when the message is about the role,
// not about a subnet or security group that does not exist.
func eksIAMPropagationError(err error) bool {
	var ipe *ekstypes.InvalidParameterException
	if !errors.As(err, &ipe) {
		return false
	}
	msg := ipe.ErrorMessage()
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(msg, "does not exist") && strings.Contains(lower, "role"),
		strings.Contains(msg, "Error in role params"),
		strings.Contains(msg, "Role could not be assumed because the trusted entity is not correct"),
		strings.Contains(msg, "The provided role doesn't have the Amazon EKS Managed Policies associated with it"),
		strings.Contains(msg, "IAM role's policy must include"):
		return true
	}
	return false
}

// eksCreateClusterRetrying calls CreateCluster, again every few seconds while
// it fails because an IAM role is not visible to EKS yet, for at most
// eksPropagationTimeout.
func eksCreateClusterRetrying(ctx context.Context, client *eks.Client, in *eks.CreateClusterInput) error {
	in.ClientRequestToken = aws.String(fmt.Sprintf("hca-%d", time.Now().UnixNano()))
	var iamErr error
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, eksPropagationTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := client.CreateCluster(ctx, in)
		if err != nil && eksIAMPropagationError(err) {
			iamErr = err
			tflog.Debug(ctx, "retrying CreateCluster while IAM changes propagate", map[string]any{"error": err.Error()})
			return false, nil
		}
		return true, err
	})
	if wait.Interrupted(err) && iamErr != nil {
		return fmt.Errorf("the IAM role was still refused after retrying for %s: %w", eksPropagationTimeout, iamErr)
	}
	return err
}

// eksWaiterDelays are the AWS SDK waiters' delays between attempts: from 1s,
// doubling (with jitter) up to 15s, so that the lab's emulator answers in
// seconds and a real EKS is not polled every second for 15 minutes.
func eksWaiterDelays(minDelay, maxDelay *time.Duration) {
	*minDelay, *maxDelay = time.Second, 15*time.Second
}

// eksWaitCluster waits until the cluster is ACTIVE (eks.ClusterActiveWaiter);
// it returns the cluster as last described.
func eksWaitCluster(ctx context.Context, client *eks.Client, name string) (*ekstypes.Cluster, error) {
	var last *ekstypes.Cluster
	w := eks.NewClusterActiveWaiter(client, func(o *eks.ClusterActiveWaiterOptions) {
		eksWaiterDelays(&o.MinDelay, &o.MaxDelay)
		o.Retryable = func(_ context.Context, _ *eks.DescribeClusterInput, out *eks.DescribeClusterOutput, err error) (bool, error) {
			if err != nil {
				return false, err
			}
			last = out.Cluster
			switch last.Status {
			case ekstypes.ClusterStatusActive:
				return false, nil
			case ekstypes.ClusterStatusCreating, ekstypes.ClusterStatusUpdating, ekstypes.ClusterStatusPending:
				return true, nil
			}
			return false, fmt.Errorf("cluster status is %s%s", last.Status, eksIssues(last.Health))
		}
	})
	_, err := w.WaitForOutput(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, untilDeadline(ctx, eksDefaultCreateTimeout))
	if err != nil {
		state := ""
		if last != nil {
			state = string(last.Status)
		}
		return last, waitError(ctx, "the cluster to become ACTIVE", state, err, sdkWaitMaxExceeded(err))
	}
	return last, nil
}

func eksIssues(h *ekstypes.ClusterHealth) string {
	if h == nil || len(h.Issues) == 0 {
		return ""
	}
	var s []string
	for _, i := range h.Issues {
		s = append(s, string(i.Code)+": "+aws.ToString(i.Message))
	}
	return " (" + strings.Join(s, "; ") + ")"
}

func eksCreateNodegroupAndWait(ctx context.Context, client *eks.Client, in *eks.CreateNodegroupInput) (*ekstypes.Nodegroup, error) {
	in.ClientRequestToken = aws.String(fmt.Sprintf("hca-%d", time.Now().UnixNano()))
	if _, err := client.CreateNodegroup(ctx, in); err != nil {
		return nil, fmt.Errorf("CreateNodegroup: %w", err)
	}
	var last *ekstypes.Nodegroup
	w := eks.NewNodegroupActiveWaiter(client, func(o *eks.NodegroupActiveWaiterOptions) {
		eksWaiterDelays(&o.MinDelay, &o.MaxDelay)
		o.Retryable = func(_ context.Context, _ *eks.DescribeNodegroupInput, out *eks.DescribeNodegroupOutput, err error) (bool, error) {
			if err != nil {
				return false, err
			}
			last = out.Nodegroup
			switch last.Status {
			case ekstypes.NodegroupStatusActive:
				return false, nil
			case ekstypes.NodegroupStatusCreating, ekstypes.NodegroupStatusUpdating:
				return true, nil
			}
			var issues []string
			if last.Health != nil {
				for _, i := range last.Health.Issues {
					issues = append(issues, string(i.Code)+": "+aws.ToString(i.Message))
				}
			}
			return false, fmt.Errorf("node group status is %s (%s)", last.Status, strings.Join(issues, "; "))
		}
	})
	_, err := w.WaitForOutput(ctx, &eks.DescribeNodegroupInput{ClusterName: in.ClusterName, NodegroupName: in.NodegroupName},
		untilDeadline(ctx, eksDefaultCreateTimeout))
	if err != nil {
		state := ""
		if last != nil {
			state = string(last.Status)
		}
		return nil, waitError(ctx, "the node group to become ACTIVE", state, err, sdkWaitMaxExceeded(err))
	}
	return last, nil
}

// eksWaitUpdate waits until the node group update is Successful (the SDK has
// no waiter for DescribeUpdate).
func eksWaitUpdate(ctx context.Context, client *eks.Client, cluster, ng, id string) error {
	return pollUntil(ctx, 2*time.Second, untilDeadline(ctx, eksDefaultUpdateTimeout), "update "+id+" to be Successful", func(ctx context.Context) (bool, string, error) {
		out, err := client.DescribeUpdate(ctx, &eks.DescribeUpdateInput{Name: aws.String(cluster), NodegroupName: aws.String(ng), UpdateId: aws.String(id)})
		if err != nil {
			return false, "", err
		}
		st := string(out.Update.Status)
		switch out.Update.Status {
		case ekstypes.UpdateStatusSuccessful:
			return true, st, nil
		case ekstypes.UpdateStatusInProgress:
			return false, st, nil
		}
		var errs []string
		for _, e := range out.Update.Errors {
			errs = append(errs, string(e.ErrorCode)+": "+aws.ToString(e.ErrorMessage))
		}
		return false, st, fmt.Errorf("update status is %s (%s)", out.Update.Status, strings.Join(errs, "; "))
	})
}

// eksDeleteWhenNotInUse calls del, again every few seconds while EKS refuses
// it because the object is still being created or updated
// (ResourceInUseException); a missing object is deleted already.
func eksDeleteWhenNotInUse(ctx context.Context, what string, del func(context.Context) error) (gone bool, err error) {
	err = pollUntil(ctx, 2*time.Second, untilDeadline(ctx, eksDefaultDeleteTimeout), what+" to accept deletion", func(ctx context.Context) (bool, string, error) {
		err := del(ctx)
		var inUse *ekstypes.ResourceInUseException
		switch {
		case eksNotFound(err):
			gone = true
			return true, "", nil
		case errors.As(err, &inUse):
			return false, "in use: " + inUse.ErrorMessage(), nil
		}
		return true, "", err
	})
	return gone, err
}

func eksDeleteNodegroupAndWait(ctx context.Context, client *eks.Client, cluster, ng string) error {
	in := &eks.DeleteNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(ng)}
	gone, err := eksDeleteWhenNotInUse(ctx, "the node group", func(ctx context.Context) error {
		_, err := client.DeleteNodegroup(ctx, in)
		return err
	})
	if err != nil || gone {
		return err
	}
	last := ""
	w := eks.NewNodegroupDeletedWaiter(client, func(o *eks.NodegroupDeletedWaiterOptions) {
		eksWaiterDelays(&o.MinDelay, &o.MaxDelay)
		o.Retryable = func(_ context.Context, _ *eks.DescribeNodegroupInput, out *eks.DescribeNodegroupOutput, err error) (bool, error) {
			switch {
			case eksNotFound(err):
				return false, nil
			case err != nil:
				return false, err
			}
			last = string(out.Nodegroup.Status)
			if out.Nodegroup.Status == ekstypes.NodegroupStatusDeleteFailed {
				return false, fmt.Errorf("node group status is %s", last)
			}
			return true, nil
		}
	})
	if err := w.Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(ng)}, untilDeadline(ctx, eksDefaultDeleteTimeout)); err != nil {
		return waitError(ctx, "the node group to be deleted", last, err, sdkWaitMaxExceeded(err))
	}
	return nil
}

func eksDeleteClusterAndWait(ctx context.Context, client *eks.Client, name string) error {
	gone, err := eksDeleteWhenNotInUse(ctx, "the cluster", func(ctx context.Context) error {
		_, err := client.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(name)})
		return err
	})
	if err != nil || gone {
		return err
	}
	last := ""
	w := eks.NewClusterDeletedWaiter(client, func(o *eks.ClusterDeletedWaiterOptions) {
		eksWaiterDelays(&o.MinDelay, &o.MaxDelay)
		o.Retryable = func(_ context.Context, _ *eks.DescribeClusterInput, out *eks.DescribeClusterOutput, err error) (bool, error) {
			switch {
			case eksNotFound(err):
				return false, nil
			case err != nil:
				return false, err
			}
			last = string(out.Cluster.Status)
			if out.Cluster.Status == ekstypes.ClusterStatusFailed {
				return false, fmt.Errorf("cluster status is %s%s", last, eksIssues(out.Cluster.Health))
			}
			return true, nil
		}
	})
	if err := w.Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, untilDeadline(ctx, eksDefaultDeleteTimeout)); err != nil {
		return waitError(ctx, "the cluster to be deleted", last, err, sdkWaitMaxExceeded(err))
	}
	return nil
}

// eksGroupRef is node_groups[*].eks: the group's identifiers for hca_cluster.
func eksGroupRef(cluster, region, nodegroup string) types.Object {
	if cluster == "" || region == "" || nodegroup == "" {
		return types.ObjectUnknown(eksGroupRefTypes)
	}
	return types.ObjectValueMust(eksGroupRefTypes, map[string]attr.Value{
		"cluster_name":   types.StringValue(cluster),
		"region":         types.StringValue(region),
		"nodegroup_name": types.StringValue(nodegroup),
	})
}

// eksLegacyGroup is the deprecated node_group as an element of node_groups,
// so that moving it into node_groups keeps the node group.
func eksLegacyGroup(ng *eksNodeGroup) eksGroup {
	return eksGroup{
		Name: ng.Name, NodeRoleARN: ng.NodeRoleARN, InstanceTypes: ng.InstanceTypes,
		CapacityType: types.StringValue(string(ekstypes.CapacityTypesOnDemand)),
		MinSize:      ng.MinSize, MaxSize: ng.MaxSize, DesiredSize: ng.DesiredSize,
		Labels: types.MapNull(types.StringType), Tags: types.MapNull(types.StringType), ARN: ng.ARN, Status: ng.Status,
		EKS: types.ObjectNull(eksGroupRefTypes),
	}
}

// eksGroupsOf returns a model's node groups: node_groups, or the deprecated
// node_group as a list of one.
func eksGroupsOf(m *eksClusterModel) []eksGroup {
	if m.NodeGroup != nil {
		return []eksGroup{eksLegacyGroup(m.NodeGroup)}
	}
	return m.NodeGroups
}

// eksGroupCreateInput builds CreateNodegroup's input for a node_groups
// element: a group without desired_size starts at min_size.
func eksGroupCreateInput(ctx context.Context, cluster string, subnets []string, g eksGroup) (*eks.CreateNodegroupInput, diag.Diagnostics) {
	var diags diag.Diagnostics
	var instanceTypes []string
	diags.Append(g.InstanceTypes.ElementsAs(ctx, &instanceTypes, false)...)
	desired := g.MinSize.ValueInt64()
	if !g.DesiredSize.IsNull() && !g.DesiredSize.IsUnknown() {
		desired = g.DesiredSize.ValueInt64()
	}
	in := &eks.CreateNodegroupInput{
		ClusterName:   aws.String(cluster),
		NodegroupName: g.Name.ValueStringPointer(),
		NodeRole:      g.NodeRoleARN.ValueStringPointer(),
		Subnets:       slices.Sorted(slices.Values(subnets)),
		InstanceTypes: instanceTypes,
		CapacityType:  ekstypes.CapacityTypes(g.CapacityType.ValueString()),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{
			MinSize:     aws.Int32(int32(g.MinSize.ValueInt64())),
			MaxSize:     aws.Int32(int32(g.MaxSize.ValueInt64())),
			DesiredSize: aws.Int32(int32(desired)),
		},
		Taints: eksTaintsToAPI(g.Taints),
	}
	if in.CapacityType == "" {
		in.CapacityType = ekstypes.CapacityTypesOnDemand
	}
	if !g.Labels.IsNull() && !g.Labels.IsUnknown() {
		diags.Append(g.Labels.ElementsAs(ctx, &in.Labels, false)...)
	}
	if !g.Tags.IsNull() && !g.Tags.IsUnknown() {
		diags.Append(g.Tags.ElementsAs(ctx, &in.Tags, false)...)
	}
	return in, diags
}

func eksTaintsToAPI(ts []eksTaint) []ekstypes.Taint {
	var out []ekstypes.Taint
	for _, t := range ts {
		out = append(out, ekstypes.Taint{Key: t.Key.ValueStringPointer(), Value: t.Value.ValueStringPointer(), Effect: ekstypes.TaintEffect(t.Effect.ValueString())})
	}
	return out
}

// eksGroupRecreated reports whether a group's change cannot be made in place
// (EKS cannot change a node group's role, instance types or capacity type;
// tags are set at creation by this resource).
func eksGroupRecreated(state, plan eksGroup) bool {
	return !state.NodeRoleARN.Equal(plan.NodeRoleARN) || !state.InstanceTypes.Equal(plan.InstanceTypes) ||
		state.CapacityType.ValueString() != plan.CapacityType.ValueString() || !eksSameTags(state.Tags, plan.Tags)
}

// eksSameTags compares tags, null and empty being the same.
func eksSameTags(a, b types.Map) bool {
	if len(a.Elements()) == 0 && len(b.Elements()) == 0 {
		return true
	}
	return a.Equal(b)
}

// eksGroupUpdate is the UpdateNodegroupConfig input that takes a group from
// state to plan, or nil when nothing changes. current is the group's
// desired size in EKS: when desired_size is the runtime's (null in plan) it
// is only sent, clamped, if the new min_size or max_size would exclude it.
func eksGroupUpdate(ctx context.Context, cluster string, state, plan eksGroup, current int32) (*eks.UpdateNodegroupConfigInput, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(cluster), NodegroupName: plan.Name.ValueStringPointer()}
	changed := false
	minS, maxS := int32(plan.MinSize.ValueInt64()), int32(plan.MaxSize.ValueInt64())
	sc := &ekstypes.NodegroupScalingConfig{}
	if !state.MinSize.Equal(plan.MinSize) || !state.MaxSize.Equal(plan.MaxSize) {
		sc.MinSize, sc.MaxSize = aws.Int32(minS), aws.Int32(maxS)
	}
	switch {
	case !plan.DesiredSize.IsNull():
		if !state.DesiredSize.Equal(plan.DesiredSize) {
			sc.DesiredSize = aws.Int32(int32(plan.DesiredSize.ValueInt64()))
		}
	case current < minS:
		sc.DesiredSize = aws.Int32(minS)
	case current > maxS:
		sc.DesiredSize = aws.Int32(maxS)
	}
	if sc.MinSize != nil || sc.DesiredSize != nil {
		if sc.MinSize == nil { // EKS wants min and max with the desired size
			sc.MinSize, sc.MaxSize = aws.Int32(minS), aws.Int32(maxS)
		}
		in.ScalingConfig, changed = sc, true
	}

	var oldLabels, newLabels map[string]string
	if !state.Labels.IsNull() && !state.Labels.IsUnknown() {
		diags.Append(state.Labels.ElementsAs(ctx, &oldLabels, false)...)
	}
	if !plan.Labels.IsNull() && !plan.Labels.IsUnknown() {
		diags.Append(plan.Labels.ElementsAs(ctx, &newLabels, false)...)
	}
	if lu := eksLabelsUpdate(oldLabels, newLabels); lu != nil {
		in.Labels, changed = lu, true
	}
	if tu := eksTaintsUpdate(eksTaintsToAPI(state.Taints), eksTaintsToAPI(plan.Taints)); tu != nil {
		in.Taints, changed = tu, true
	}
	if !changed {
		return nil, diags
	}
	return in, diags
}

func eksLabelsUpdate(old, next map[string]string) *ekstypes.UpdateLabelsPayload {
	u := &ekstypes.UpdateLabelsPayload{}
	for _, k := range slices.Sorted(maps.Keys(next)) {
		if v, ok := old[k]; !ok || v != next[k] {
			if u.AddOrUpdateLabels == nil {
				u.AddOrUpdateLabels = map[string]string{}
			}
			u.AddOrUpdateLabels[k] = next[k]
		}
	}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if _, ok := next[k]; !ok {
			u.RemoveLabels = append(u.RemoveLabels, k)
		}
	}
	if u.AddOrUpdateLabels == nil && u.RemoveLabels == nil {
		return nil
	}
	return u
}

func eksTaintsUpdate(old, next []ekstypes.Taint) *ekstypes.UpdateTaintsPayload {
	same := func(a, b ekstypes.Taint) bool {
		return aws.ToString(a.Key) == aws.ToString(b.Key) && a.Effect == b.Effect
	}
	u := &ekstypes.UpdateTaintsPayload{}
	for _, t := range next {
		i := slices.IndexFunc(old, func(o ekstypes.Taint) bool { return same(o, t) })
		if i < 0 || aws.ToString(old[i].Value) != aws.ToString(t.Value) {
			u.AddOrUpdateTaints = append(u.AddOrUpdateTaints, t)
		}
	}
	for _, o := range old {
		if !slices.ContainsFunc(next, func(t ekstypes.Taint) bool { return same(o, t) }) {
			u.RemoveTaints = append(u.RemoveTaints, o)
		}
	}
	if u.AddOrUpdateTaints == nil && u.RemoveTaints == nil {
		return nil
	}
	return u
}

// eksGroupFlatten is a node_groups element from what EKS reports, keeping
// prior's spelling where EKS's means the same: a null desired_size (the
// runtime's) stays null, and null or empty labels and taints stay so.
func eksGroupFlatten(ctx context.Context, ng *ekstypes.Nodegroup, prior eksGroup, region string) (eksGroup, diag.Diagnostics) {
	var diags, d diag.Diagnostics
	out := eksGroup{
		Name:         types.StringValue(aws.ToString(ng.NodegroupName)),
		NodeRoleARN:  types.StringValue(aws.ToString(ng.NodeRole)),
		CapacityType: types.StringValue(string(ng.CapacityType)),
		ARN:          types.StringValue(aws.ToString(ng.NodegroupArn)),
		Status:       types.StringValue(string(ng.Status)),
		DesiredSize:  types.Int64Null(),
	}
	// The region of the group's ARN (arn:aws:eks:<region>:...) is where it is,
	// whatever the provider's configuration says.
	if parts := strings.Split(aws.ToString(ng.NodegroupArn), ":"); len(parts) > 3 && parts[3] != "" {
		region = parts[3]
	}
	out.EKS = types.ObjectValueMust(eksGroupRefTypes, map[string]attr.Value{
		"cluster_name":   types.StringValue(aws.ToString(ng.ClusterName)),
		"region":         types.StringValue(region),
		"nodegroup_name": types.StringValue(aws.ToString(ng.NodegroupName)),
	})
	if ng.CapacityType == "" {
		out.CapacityType = types.StringValue(string(ekstypes.CapacityTypesOnDemand))
	}
	out.InstanceTypes, d = types.ListValueFrom(ctx, types.StringType, nonNil(ng.InstanceTypes))
	diags.Append(d...)
	if s := ng.ScalingConfig; s != nil {
		out.MinSize = types.Int64Value(int64(aws.ToInt32(s.MinSize)))
		out.MaxSize = types.Int64Value(int64(aws.ToInt32(s.MaxSize)))
		if !prior.DesiredSize.IsNull() {
			out.DesiredSize = types.Int64Value(int64(aws.ToInt32(s.DesiredSize)))
		}
	}
	switch {
	case len(ng.Labels) == 0 && (prior.Labels.IsNull() || prior.Labels.IsUnknown()):
		out.Labels = types.MapNull(types.StringType)
	default:
		out.Labels, d = types.MapValueFrom(ctx, types.StringType, nonNilMap(ng.Labels))
		diags.Append(d...)
	}
	switch {
	case len(ng.Tags) == 0 && (prior.Tags.IsNull() || prior.Tags.IsUnknown()):
		out.Tags = types.MapNull(types.StringType)
	default:
		out.Tags, d = types.MapValueFrom(ctx, types.StringType, nonNilMap(ng.Tags))
		diags.Append(d...)
	}
	if len(ng.Taints) > 0 || prior.Taints != nil {
		out.Taints = []eksTaint{}
	}
	for _, t := range ng.Taints {
		v := types.StringNull()
		if t.Value != nil && *t.Value != "" {
			v = types.StringValue(*t.Value)
		}
		out.Taints = append(out.Taints, eksTaint{Key: types.StringValue(aws.ToString(t.Key)), Value: v, Effect: types.StringValue(string(t.Effect))})
	}
	return out, diags
}
