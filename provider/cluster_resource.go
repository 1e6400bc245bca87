package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

var (
	_ resource.Resource                   = (*clusterResource)(nil)
	_ resource.ResourceWithConfigure      = (*clusterResource)(nil)
	_ resource.ResourceWithImportState    = (*clusterResource)(nil)
	_ resource.ResourceWithValidateConfig = (*clusterResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*clusterResource)(nil)
)

// NewClusterResource returns the hca_cluster resource.
func NewClusterResource() resource.Resource {
	return &clusterResource{}
}

type clusterResource struct {
	clients *Clients
}

type clusterModel struct {
	ID                   types.String `tfsdk:"id"`
	Name                 types.String `tfsdk:"name"`
	Role                 types.String `tfsdk:"role"`
	Provider             types.String `tfsdk:"provider_type"`
	Priority             types.Int64  `tfsdk:"priority"`
	CredentialsNamespace types.String `tfsdk:"credentials_namespace"`
	Kubeconfig           types.String `tfsdk:"kubeconfig"`
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	EKSClusterName       types.String `tfsdk:"eks_cluster_name"`
	Region               types.String `tfsdk:"region"`
	RoleARN              types.String `tfsdk:"role_arn"`
	PricePerVCPUHour     types.String `tfsdk:"price_per_vcpu_hour"`
	PricePerGiBHour      types.String `tfsdk:"price_per_gib_hour"`
	MaxCPU               types.String `tfsdk:"max_cpu"`
	MaxPods              types.Int64  `tfsdk:"max_pods"`
	CredentialsSecret    types.String `tfsdk:"credentials_secret"`
	CredentialsSHA256    types.String `tfsdk:"credentials_sha256"`
	Reachable            types.Bool   `tfsdk:"reachable"`
	KubernetesVersion    types.String `tfsdk:"kubernetes_version"`
	Allocatable          types.Map    `tfsdk:"allocatable"`
	NodeGroups           types.List   `tfsdk:"node_groups"`
}

// The patterns of the hca.dev API (internal/api/v1alpha1), checked at plan time.
var (
	clusterNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	dnsLabelRE    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	eksNameRE     = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]*$`)
	awsRegionRE   = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	roleARNRE     = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:iam::[0-9]{12}:role/.+$`)
	priceRE       = regexp.MustCompile(`^(0|[1-9][0-9]{0,15})(\.[0-9]{1,9})?$`)
)

const (
	// clusterSecretPrefix prefixes the credentials Secret's name (then the
	// cluster's name); it leaves 241 characters of the 253 for the name.
	clusterSecretPrefix = "hca-cluster-"
	clusterSecretKey    = "kubeconfig"
	defaultHCANamespace = "hca-system"
)

func (r *clusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (r *clusterResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "Registers a cluster into the hybrid cloud: writes a cluster-scoped `HybridCluster` object " +
			"(hca.dev/v1alpha1) and, for provider_type `private` and `ack`, a Secret holding the kubeconfig the runtime " +
			"uses to reach it, into the control cluster. `node_groups` lists the cluster's node groups (EKS managed " +
			"node groups, ACK node pools) that the runtime grows for bursts and releases afterwards. Connection details are arguments of this resource, not " +
			"provider configuration, so one apply can create a cluster and register it. Import with the " +
			"HybridCluster's name: `terraform import hca_cluster.burst <name>` (the connection arguments, which " +
			"are secrets, are not read back).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The HybridCluster's name (same as `name`); the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true,
				Description: "Name of the HybridCluster: 1 to 241 characters, a DNS subdomain (lowercase letters, " +
					"digits, `-` and `.`, starting and ending with a letter or digit). Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 253-len(clusterSecretPrefix)),
					stringvalidator.RegexMatches(clusterNameRE, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"),
				},
			},
			"role": schema.StringAttribute{
				Required:    true,
				Description: "What the cluster is for: `primary` (runs workloads normally) or `burst` (receives overflow).",
				Validators:  []validator.String{stringvalidator.OneOf(string(hcav1.RolePrimary), string(hcav1.RoleBurst))},
			},
			"provider_type": schema.StringAttribute{
				Required: true,
				Description: "Who runs the cluster: `private` or `ack` (reached with a kubeconfig: set `kubeconfig`, or " +
					"`host` with credentials) or `eks` (set `eks_cluster_name` and `region`; the runtime mints tokens " +
					"itself). The HybridCluster's `spec.provider` (`provider` is a Terraform meta-argument, hence the name). " +
					"Changing it replaces the resource (the API makes it immutable).",
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.OneOf(string(hcav1.ProviderPrivate), string(hcav1.ProviderEKS), string(hcav1.ProviderACK))},
			},
			"priority": schema.Int64Attribute{
				CustomType:  intType{},
				Optional:    true,
				Computed:    true,
				Default:     int64default.StaticInt64(0),
				Description: "Rank for placement `priority`: higher values are used first. 0 to 1000000; defaults to 0.",
				Validators:  []validator.Int64{int64validator.Between(0, 1000000)},
			},
			"credentials_namespace": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(defaultHCANamespace),
				Description: "Namespace of the control cluster where the credentials Secret (named `hca-cluster-<name>`) " +
					"is written; it must exist (when `hca_runtime` creates it in the same configuration, add `depends_on = [hca_runtime.this]`). A DNS label; defaults to `hca-system`. Not used with provider_type `eks`. " +
					"Changing it replaces the resource.",
				PlanModifiers: replace,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"kubeconfig": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "Content (not path) of a kubeconfig for the cluster, stored as is in the credentials Secret; " +
					"its current-context is used. Only with provider_type `private` and `ack`; conflicts with `host`.",
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRoot("host"), path.MatchRoot("cluster_ca_certificate"), path.MatchRoot("token"),
						path.MatchRoot("client_certificate"), path.MatchRoot("client_key")),
				},
			},
			"host": schema.StringAttribute{
				Optional: true,
				Description: "URL of the cluster's API server, an absolute `https://` (or `http://`) URL. Requires `token`, " +
					"or `client_certificate` and `client_key`; the provider writes a kubeconfig from them into the " +
					"credentials Secret. Only with provider_type `private` and `ack`.",
			},
			"cluster_ca_certificate": schema.StringAttribute{
				Optional:    true,
				Description: "PEM-encoded CA certificate of the API server (the PEM text). Only with `host`; unset: the system's trusted CAs.",
				Validators:  []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("host"))},
			},
			"token": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "Bearer token for the API server. Only with `host`; conflicts with `client_certificate` and `client_key`.",
				Validators: []validator.String{
					stringvalidator.AlsoRequires(path.MatchRoot("host")),
					stringvalidator.ConflictsWith(path.MatchRoot("client_certificate"), path.MatchRoot("client_key")),
				},
			},
			"client_certificate": schema.StringAttribute{
				Optional:    true,
				Description: "PEM-encoded client certificate. Only with `host`; requires `client_key`.",
				Validators:  []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("host"), path.MatchRoot("client_key"))},
			},
			"client_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "PEM-encoded private key of `client_certificate`. Only with `host`; requires `client_certificate`.",
				Validators:  []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("host"), path.MatchRoot("client_certificate"))},
			},
			"eks_cluster_name": schema.StringAttribute{
				Optional: true,
				Description: "Name of the EKS cluster: 1 to 100 characters, letters, digits, `-` and `_`, starting with " +
					"a letter or digit. Required with provider_type `eks`, not allowed otherwise.",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 100),
					stringvalidator.RegexMatches(eksNameRE, "must start with a letter or digit and contain only letters, digits, '-' and '_'"),
				},
			},
			"region": schema.StringAttribute{
				Optional:    true,
				Description: "AWS region of the EKS cluster, such as `eu-west-1` (at most 32 characters). Required with provider_type `eks`, not allowed otherwise.",
				Validators: []validator.String{
					stringvalidator.LengthAtMost(32),
					stringvalidator.RegexMatches(awsRegionRE, "must be an AWS region such as \"eu-west-1\""),
				},
			},
			"role_arn": schema.StringAttribute{
				Optional: true,
				Description: "IAM role the runtime assumes before minting EKS tokens, such as " +
					"`arn:aws:iam::123456789012:role/hca` (at most 2048 characters). Only with provider_type `eks`.",
				Validators: []validator.String{
					stringvalidator.LengthAtMost(2048),
					stringvalidator.RegexMatches(roleARNRE, "must be an IAM role ARN such as \"arn:aws:iam::123456789012:role/hca\""),
				},
			},
			"price_per_vcpu_hour": schema.StringAttribute{
				Optional: true,
				Description: "Price of one vCPU for one hour, a non-negative decimal with at most 9 fractional digits " +
					"such as `0.0464`. Requires `price_per_gib_hour`; unset: the cluster's capacity is free.",
				Validators: []validator.String{
					stringvalidator.LengthAtMost(32),
					stringvalidator.RegexMatches(priceRE, "must be a non-negative decimal with at most 9 fractional digits, such as \"0.0464\""),
					stringvalidator.AlsoRequires(path.MatchRoot("price_per_gib_hour")),
				},
			},
			"price_per_gib_hour": schema.StringAttribute{
				Optional: true,
				Description: "Price of one GiB of memory for one hour, a non-negative decimal with at most 9 fractional " +
					"digits such as `0.0058`. Requires `price_per_vcpu_hour`.",
				Validators: []validator.String{
					stringvalidator.LengthAtMost(32),
					stringvalidator.RegexMatches(priceRE, "must be a non-negative decimal with at most 9 fractional digits, such as \"0.0058\""),
					stringvalidator.AlsoRequires(path.MatchRoot("price_per_vcpu_hour")),
				},
			},
			"max_cpu": schema.StringAttribute{
				Optional: true,
				Description: "Most CPU (sum of requests) HCA may place in the cluster, a Kubernetes quantity greater " +
					"than 0 such as `64` or `500m`. Unset: no limit.",
				Validators: []validator.String{positiveQuantity{}},
			},
			"max_pods": schema.Int64Attribute{
				CustomType:  intType{},
				Optional:    true,
				Description: "Most pods HCA may place in the cluster, 1 to 2147483647. Unset: no limit.",
				Validators:  []validator.Int64{int64validator.Between(1, 2147483647)},
			},
			"node_groups": clusterNodeGroupsAttr(),
			"credentials_secret": schema.StringAttribute{
				Computed:      true,
				Description:   "`<namespace>/<name>` of the credentials Secret; empty for provider_type `eks`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"credentials_sha256": schema.StringAttribute{
				Computed: true,
				Description: "SHA-256 of the kubeconfig in the credentials Secret (empty for provider_type `eks`), so that a " +
					"Secret changed or deleted out of band shows as a change to apply.",
			},
			"reachable": schema.BoolAttribute{
				Computed:      true,
				Description:   "Whether the runtime's last probe reached the cluster's API server (false until a runtime probes it).",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"kubernetes_version": schema.StringAttribute{
				Computed:      true,
				Description:   "Kubernetes version the runtime last observed (empty until a runtime probes the cluster).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"allocatable": schema.MapAttribute{
				Computed:      true,
				ElementType:   types.StringType,
				Description:   "Sum of the Ready nodes' allocatable resources (`cpu`, `memory`, `pods`, ...) as the runtime last observed; empty until a runtime probes the cluster.",
				PlanModifiers: []planmodifier.Map{mapplanmodifier.UseStateForUnknown()},
			},
		},
	}
	addQuantitySpelling(resp.Schema.Attributes)
}

func (r *clusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

func (r *clusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	hc, secret, err := plan.toAPI()
	if err != nil {
		resp.Diagnostics.AddError("Invalid cluster connection", err.Error())
		return
	}
	if secret != nil {
		if err := createOrAdoptSecret(ctx, c, secret, name); err != nil {
			resp.Diagnostics.AddError("Error creating cluster credentials",
				fmt.Sprintf("Could not create the Secret %s/%s: %v. %s", secret.Namespace, secret.Name, err, createHint(err, secret.Namespace, "credentials_namespace")))
			return
		}
	}
	if err := c.Create(ctx, hc); err != nil {
		detail := fmt.Sprintf("Could not create the HybridCluster %q: %v. %s", name, err, createHint(err, "", ""))
		if secret != nil {
			// No orphans: the Secret was only for this HybridCluster.
			if derr := c.Delete(ctx, secret); derr != nil && !apierrors.IsNotFound(derr) {
				detail += fmt.Sprintf(" Deleting the Secret %s/%s created for it also failed: %v; delete it by hand.", secret.Namespace, secret.Name, derr)
			}
		}
		resp.Diagnostics.AddError("Error creating cluster", detail)
		return
	}
	plan.ID = types.StringValue(name)
	plan.fromStatus(hc, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *clusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	var hc hcav1.HybridCluster
	if err := c.Get(ctx, client.ObjectKey{Name: state.ID.ValueString()}, &hc); err != nil {
		if apierrors.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Error reading cluster", fmt.Sprintf("Could not read the HybridCluster %q: %v.", state.ID.ValueString(), err))
		return
	}
	state.fromAPI(&hc)
	state.CredentialsSHA256 = types.StringValue("")
	if ref := hc.Spec.Credentials.SecretRef; ref != nil {
		var s corev1.Secret
		err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: string(ref.Name)}, &s)
		switch {
		case apierrors.IsNotFound(err):
			state.CredentialsSHA256 = types.StringValue("")
		case err != nil:
			resp.Diagnostics.AddError("Error reading cluster credentials", fmt.Sprintf("Could not read the Secret %s/%s: %v.", ref.Namespace, ref.Name, err))
			return
		default:
			key := ref.Key
			if key == "" {
				key = clusterSecretKey
			}
			state.CredentialsSHA256 = types.StringValue(sha256Hex(s.Data[key]))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *clusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	want, secret, err := plan.toAPI()
	if err != nil {
		resp.Diagnostics.AddError("Invalid cluster connection", err.Error())
		return
	}
	if secret != nil {
		var cur corev1.Secret
		err := c.Get(ctx, client.ObjectKeyFromObject(secret), &cur)
		switch {
		case apierrors.IsNotFound(err):
			err = c.Create(ctx, secret)
		case err == nil:
			cur.Data, cur.Type, cur.Labels = secret.Data, secret.Type, secret.Labels
			err = c.Update(ctx, &cur)
		}
		if err != nil {
			resp.Diagnostics.AddError("Error updating cluster credentials", fmt.Sprintf("Could not write the Secret %s/%s: %v.", secret.Namespace, secret.Name, err))
			return
		}
	}
	var hc hcav1.HybridCluster
	if err := c.Get(ctx, client.ObjectKey{Name: plan.ID.ValueString()}, &hc); err != nil {
		resp.Diagnostics.AddError("Error updating cluster", fmt.Sprintf("Could not read the HybridCluster %q: %v.", plan.ID.ValueString(), err))
		return
	}
	hc.Spec = want.Spec
	if err := c.Update(ctx, &hc); err != nil {
		resp.Diagnostics.AddError("Error updating cluster", fmt.Sprintf("Could not update the HybridCluster %q: %v.", plan.ID.ValueString(), err))
		return
	}
	plan.fromStatus(&hc, true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *clusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	name := state.ID.ValueString()
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := deleteAndWait(ctx, c, hc, 2*time.Minute); err != nil {
		resp.Diagnostics.AddError("Error deleting cluster", fmt.Sprintf("Could not delete the HybridCluster %q: %v.", name, err))
		return
	}
	if state.Provider.ValueString() != string(hcav1.ProviderEKS) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: state.CredentialsNamespace.ValueString(), Name: clusterSecretPrefix + name}}
		if err := c.Delete(ctx, s); err != nil && !apierrors.IsNotFound(err) {
			resp.Diagnostics.AddError("Error deleting cluster credentials", fmt.Sprintf("Could not delete the Secret %s/%s: %v.", s.Namespace, s.Name, err))
		}
	}
}

func (r *clusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !clusterNameRE.MatchString(req.ID) {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("The import ID %q is not a HybridCluster name. Use the name of the HybridCluster, such as `terraform import hca_cluster.burst eks-burst`.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// ValidateConfig checks the rules of the HybridCluster's CEL validation (and
// the connection's shape) at plan time.
func (r *clusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m clusterModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(validateCluster(&m)...)
	resp.Diagnostics.Append(validateNodeGroups(ctx, m.NodeGroups)...)
}

// validateCluster checks the connection's shape for provider_type. A value
// unknown at plan time may be set or not: it is neither refused where it is
// not allowed nor missing where it is required.
func validateCluster(m *clusterModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if m.Provider.IsUnknown() || m.Provider.IsNull() {
		return diags
	}
	set := func(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
	maybeSet := func(v attr.Value) bool { return !v.IsNull() }
	if m.Provider.ValueString() == string(hcav1.ProviderEKS) {
		for _, a := range []struct {
			name string
			v    attr.Value
		}{{"kubeconfig", m.Kubeconfig}, {"host", m.Host}, {"cluster_ca_certificate", m.ClusterCACertificate}, {"token", m.Token},
			{"client_certificate", m.ClientCertificate}, {"client_key", m.ClientKey}} {
			if set(a.v) {
				diags.AddAttributeError(path.Root(a.name), "Invalid "+a.name,
					a.name+" is not used with provider_type eks (the runtime mints EKS tokens with its own AWS identity): remove it, and set eks_cluster_name and region.")
			}
		}
		for _, a := range []struct {
			name string
			v    attr.Value
		}{{"eks_cluster_name", m.EKSClusterName}, {"region", m.Region}} {
			if !maybeSet(a.v) {
				diags.AddAttributeError(path.Root(a.name), "Missing "+a.name,
					a.name+" is required when provider_type is eks: set eks_cluster_name and region.")
			}
		}
		return diags
	}
	for _, a := range []struct {
		name string
		v    attr.Value
	}{{"eks_cluster_name", m.EKSClusterName}, {"region", m.Region}, {"role_arn", m.RoleARN}} {
		if set(a.v) {
			diags.AddAttributeError(path.Root(a.name), "Invalid "+a.name,
				a.name+" is only valid with provider_type eks: remove it or set provider_type to eks.")
		}
	}
	if !maybeSet(m.Kubeconfig) && !maybeSet(m.Host) {
		diags.AddAttributeError(path.Root("kubeconfig"), "Missing cluster connection",
			"provider_type "+m.Provider.ValueString()+" needs a kubeconfig for the runtime: set kubeconfig (its content), or host with "+
				"token, or host with client_certificate and client_key.")
	}
	if set(m.Host) {
		if msg := checkURL(m.Host.ValueString(), "https://10.0.0.1:6443"); msg != "" {
			diags.AddAttributeError(path.Root("host"), "Invalid host", "host "+msg)
		}
	}
	if set(m.Host) && !maybeSet(m.Token) && !maybeSet(m.ClientCertificate) {
		diags.AddAttributeError(path.Root("host"), "Missing cluster credentials",
			"host is set without credentials: set token, or client_certificate and client_key.")
	}
	if set(m.Kubeconfig) {
		kc, err := clientcmd.Load([]byte(m.Kubeconfig.ValueString()))
		switch {
		case err != nil:
			// The decoder's message may quote the content: not repeated.
			diags.AddAttributeError(path.Root("kubeconfig"), "Invalid kubeconfig",
				"kubeconfig does not parse as a kubeconfig (YAML or JSON with \"apiVersion: v1\" and \"kind: Config\"). Pass the file's content, e.g. file(\"~/.kube/burst.yaml\"), not its path.")
		case kc.CurrentContext == "":
			diags.AddAttributeError(path.Root("kubeconfig"), "Invalid kubeconfig",
				fmt.Sprintf("kubeconfig has no current-context, which the runtime uses: set current-context to one of: %s.", quoteList(slices.Sorted(maps.Keys(kc.Contexts)))))
		case kc.Contexts[kc.CurrentContext] == nil:
			diags.AddAttributeError(path.Root("kubeconfig"), "Invalid kubeconfig",
				fmt.Sprintf("kubeconfig's current-context %q is not one of its contexts: set current-context to one of: %s.", kc.CurrentContext, quoteList(slices.Sorted(maps.Keys(kc.Contexts)))))
		}
	}
	return diags
}

// ModifyPlan plans credentials_sha256 from the configured connection, so that
// a credentials Secret deleted or edited out of band is planned as an update.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Provider.ValueString() == string(hcav1.ProviderEKS) && !plan.Provider.IsUnknown() {
		plan.CredentialsSHA256 = types.StringValue("")
		plan.CredentialsSecret = types.StringValue("")
	} else {
		kc, known, err := plan.kubeconfig()
		switch {
		case !known || err != nil:
			plan.CredentialsSHA256 = types.StringUnknown()
		default:
			plan.CredentialsSHA256 = types.StringValue(sha256Hex(kc))
		}
		if !plan.Name.IsUnknown() && !plan.CredentialsNamespace.IsUnknown() {
			plan.CredentialsSecret = types.StringValue(plan.CredentialsNamespace.ValueString() + "/" + clusterSecretPrefix + plan.Name.ValueString())
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// kubeconfig returns the kubeconfig to store: the kubeconfig attribute as is,
// or one built from host and credentials. known is false while a value is
// unknown at plan time.
func (m clusterModel) kubeconfig() (kc []byte, known bool, err error) {
	for _, v := range []types.String{m.Kubeconfig, m.Host, m.ClusterCACertificate, m.Token, m.ClientCertificate, m.ClientKey, m.Name} {
		if v.IsUnknown() {
			return nil, false, nil
		}
	}
	if !m.Kubeconfig.IsNull() {
		return []byte(m.Kubeconfig.ValueString()), true, nil
	}
	if m.Host.IsNull() {
		return nil, true, errors.New("no connection: set kubeconfig, or host with token or client_certificate and client_key")
	}
	kc, err = buildKubeconfig(m.Name.ValueString(), m.Host.ValueString(), m.ClusterCACertificate.ValueString(),
		m.Token.ValueString(), m.ClientCertificate.ValueString(), m.ClientKey.ValueString())
	return kc, true, err
}

// buildKubeconfig writes a one-context kubeconfig; the same inputs give the
// same bytes.
func buildKubeconfig(name, host, ca, token, cert, key string) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = host
	cluster.CertificateAuthorityData = []byte(ca)
	user := clientcmdapi.NewAuthInfo()
	user.Token = token
	user.ClientCertificateData = []byte(cert)
	user.ClientKeyData = []byte(key)
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo = name, name
	cfg.Clusters[name] = cluster
	cfg.AuthInfos[name] = user
	cfg.Contexts[name] = kctx
	cfg.CurrentContext = name
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("write kubeconfig: %w", err)
	}
	return out, nil
}

// toAPI converts the model to the HybridCluster and its credentials Secret
// (nil for eks).
func (m clusterModel) toAPI() (*hcav1.HybridCluster, *corev1.Secret, error) {
	name := m.Name.ValueString()
	hc := &hcav1.HybridCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app.kubernetes.io/managed-by": "terraform"}},
		Spec: hcav1.HybridClusterSpec{
			Role:     hcav1.ClusterRole(m.Role.ValueString()),
			Provider: hcav1.ClusterProvider(m.Provider.ValueString()),
			Priority: int32(m.Priority.ValueInt64()),
		},
	}
	if !m.PricePerVCPUHour.IsNull() {
		hc.Spec.Prices = &hcav1.ClusterPrices{PerVCPUHour: hcav1.Price(m.PricePerVCPUHour.ValueString()), PerGiBHour: hcav1.Price(m.PricePerGiBHour.ValueString())}
	}
	if !m.MaxCPU.IsNull() || !m.MaxPods.IsNull() {
		hc.Spec.Limits = &hcav1.ClusterLimits{}
		if !m.MaxCPU.IsNull() {
			q, err := kresource.ParseQuantity(m.MaxCPU.ValueString())
			if err != nil {
				return nil, nil, fmt.Errorf("max_cpu %q is not a quantity: %w", m.MaxCPU.ValueString(), err)
			}
			hc.Spec.Limits.MaxCPU = &q
		}
		if !m.MaxPods.IsNull() {
			p := int32(m.MaxPods.ValueInt64())
			hc.Spec.Limits.MaxPods = &p
		}
	}
	groups, err := nodeGroupsToAPI(m.NodeGroups)
	if err != nil {
		return nil, nil, err
	}
	hc.Spec.NodeGroups = groups
	if hc.Spec.Provider == hcav1.ProviderEKS {
		hc.Spec.Credentials.EKS = &hcav1.EKSCredentials{ClusterName: m.EKSClusterName.ValueString(), Region: m.Region.ValueString(), RoleARN: m.RoleARN.ValueString()}
		return hc, nil, nil
	}
	kc, _, err := m.kubeconfig()
	if err != nil {
		return nil, nil, err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: m.CredentialsNamespace.ValueString(), Name: clusterSecretPrefix + name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "terraform", "app.kubernetes.io/part-of": "hca", "hca.dev/cluster": name}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{clusterSecretKey: kc},
	}
	hc.Spec.Credentials.SecretRef = &hcav1.SecretKeyRef{Namespace: secret.Namespace, Name: hcav1.ObjectName(secret.Name), Key: clusterSecretKey}
	return hc, secret, nil
}

// fromAPI sets the model's spec and status attributes from the object; the
// connection secrets are left as they are (they cannot be read back).
func (m *clusterModel) fromAPI(hc *hcav1.HybridCluster) {
	s := hc.Spec
	m.ID = types.StringValue(hc.Name)
	m.Name = types.StringValue(hc.Name)
	m.Role = types.StringValue(string(s.Role))
	m.Provider = types.StringValue(string(s.Provider))
	m.Priority = types.Int64Value(int64(s.Priority))
	m.PricePerVCPUHour, m.PricePerGiBHour = types.StringNull(), types.StringNull()
	if s.Prices != nil {
		m.PricePerVCPUHour = types.StringValue(string(s.Prices.PerVCPUHour))
		m.PricePerGiBHour = types.StringValue(string(s.Prices.PerGiBHour))
	}
	m.MaxCPU, m.MaxPods = keepQuantity(m.MaxCPU, nil), types.Int64Null()
	if l := s.Limits; l != nil {
		m.MaxCPU = keepQuantity(m.MaxCPU, l.MaxCPU)
		if l.MaxPods != nil {
			m.MaxPods = types.Int64Value(int64(*l.MaxPods))
		}
	}
	m.NodeGroups = nodeGroupsFromAPI(s.NodeGroups, m.NodeGroups)
	m.EKSClusterName, m.Region, m.RoleARN = types.StringNull(), types.StringNull(), types.StringNull()
	m.CredentialsSecret = types.StringValue("")
	if e := s.Credentials.EKS; e != nil {
		m.EKSClusterName, m.Region = types.StringValue(e.ClusterName), types.StringValue(e.Region)
		if e.RoleARN != "" {
			m.RoleARN = types.StringValue(e.RoleARN)
		}
	}
	if ref := s.Credentials.SecretRef; ref != nil {
		m.CredentialsNamespace = types.StringValue(ref.Namespace)
		m.CredentialsSecret = types.StringValue(ref.Namespace + "/" + string(ref.Name))
	} else if m.CredentialsNamespace.IsNull() || m.CredentialsNamespace.IsUnknown() {
		m.CredentialsNamespace = types.StringValue(defaultHCANamespace)
	}
	m.fromStatus(hc, false)
}

// keepQuantity keeps the configured spelling of a quantity ("0.5" and "500m"
// are the same) and takes the API's otherwise.
func keepQuantity(cur types.String, q *kresource.Quantity) types.String {
	if q == nil {
		return types.StringNull()
	}
	if !cur.IsNull() && !cur.IsUnknown() {
		if c, err := kresource.ParseQuantity(cur.ValueString()); err == nil && c.Cmp(*q) == 0 {
			return cur
		}
	}
	return types.StringValue(q.String())
}

// fromStatus sets the status attributes from the object; with onlyUnknown,
// only those the plan left unknown (a planned value must be kept).
func (m *clusterModel) fromStatus(hc *hcav1.HybridCluster, onlyUnknown bool) {
	st := hc.Status
	if !onlyUnknown || m.Reachable.IsUnknown() {
		m.Reachable = types.BoolValue(st.Reachable)
	}
	if !onlyUnknown || m.KubernetesVersion.IsUnknown() {
		m.KubernetesVersion = types.StringValue(st.KubernetesVersion)
	}
	if onlyUnknown && !m.Allocatable.IsUnknown() {
		m.fromStatusCredentials(hc)
		return
	}
	keys := make([]string, 0, len(st.Allocatable))
	for k := range st.Allocatable {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	elems := make(map[string]attr.Value, len(keys))
	for _, k := range keys {
		q := st.Allocatable[corev1.ResourceName(k)]
		elems[k] = types.StringValue(q.String())
	}
	m.Allocatable = types.MapValueMust(types.StringType, elems)
	m.fromStatusCredentials(hc)
}

func (m *clusterModel) fromStatusCredentials(hc *hcav1.HybridCluster) {
	if m.CredentialsSecret.IsUnknown() {
		m.CredentialsSecret = types.StringValue("")
		if ref := hc.Spec.Credentials.SecretRef; ref != nil {
			m.CredentialsSecret = types.StringValue(ref.Namespace + "/" + string(ref.Name))
		}
	}
	if m.CredentialsSHA256.IsUnknown() {
		m.CredentialsSHA256 = types.StringValue("")
		if kc, _, err := m.kubeconfig(); err == nil && hc.Spec.Credentials.SecretRef != nil {
			m.CredentialsSHA256 = types.StringValue(sha256Hex(kc))
		}
	}
}

// positiveQuantity checks that a string is a Kubernetes quantity greater than 0.
// With example, the error suggests a value rather than removing the argument
// (for arguments that are not limits).
type positiveQuantity struct {
	example string
}

func (positiveQuantity) Description(context.Context) string {
	return "must be a Kubernetes quantity greater than 0, such as \"64\" or \"500m\""
}
func (v positiveQuantity) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v positiveQuantity) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	q, err := kresource.ParseQuantity(s)
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s %q is not a Kubernetes quantity: use a number with an optional suffix, such as \"64\", \"500m\" or \"1Gi\".", req.Path, s))
		return
	}
	switch {
	case q.Sign() > 0:
	case v.example != "":
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s must be greater than 0, got %q: use a quantity such as %q.", req.Path, s, v.example))
	default:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s must be greater than 0, got %q: remove it for no limit.", req.Path, s))
	}
}

// createOrAdoptSecret creates the credentials Secret, or takes over the one a
// previous registration of the same cluster left (its HybridCluster deleted
// out of band); a Secret of anything else is left alone.
func createOrAdoptSecret(ctx context.Context, c client.Client, s *corev1.Secret, cluster string) error {
	err := c.Create(ctx, s)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	var cur corev1.Secret
	if gerr := c.Get(ctx, client.ObjectKeyFromObject(s), &cur); gerr != nil {
		return err
	}
	if cur.Labels["hca.dev/cluster"] != cluster || cur.Labels["app.kubernetes.io/managed-by"] != "terraform" {
		return err
	}
	cur.Data, cur.Type, cur.Labels = s.Data, s.Type, s.Labels
	return c.Update(ctx, &cur)
}

func sha256Hex(b []byte) string {
	if b == nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// unauthorizedHint says what to do when the control cluster's API server
// refuses the provider's credentials (401): they are not valid for it, which
// with HCP Terraform's Kubernetes dynamic credentials means an OIDC token the
// API server's authentication configuration does not accept.
const unauthorizedHint = "The control cluster's API server refused the provider's credentials (401 Unauthorized): the token " +
	"is expired, malformed or not valid for this cluster. For HCP Terraform's Kubernetes dynamic credentials (token read " +
	"from tfc_kubernetes_dynamic_credentials' token_path), check that the API server's authentication configuration " +
	"(--authentication-config) trusts the token's issuer and lists the workspace's TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE " +
	"among its audiences, and that the token file is the current run's."

// createHint says what to do about err, the API server's refusal to create
// an object in namespace, which the attribute nsAttr sets ("" for a
// cluster-scoped object).
func createHint(err error, namespace, nsAttr string) string {
	switch {
	case apierrors.IsAlreadyExists(err):
		return "It already exists: import it (terraform import) or choose another name."
	case namespace != "" && namespaceNotFound(err):
		return fmt.Sprintf("The namespace %q does not exist: create it first, or set %s to an existing namespace.", namespace, nsAttr)
	case meta.IsNoMatchError(err):
		return "The hca.dev CRDs are not installed in the control cluster: install them with hca_runtime (and add depends_on = [hca_runtime.this])."
	case apierrors.IsUnauthorized(err):
		return unauthorizedHint
	case apierrors.IsForbidden(err):
		return "The provider's credentials may not create it: grant them create on it."
	}
	return "Check that the provider's credentials may write it and that the hca CRDs are installed (hca_runtime)."
}

// namespaceNotFound tells the API server's answer to a create in a namespace
// that does not exist.
func namespaceNotFound(err error) bool {
	var st apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &st) {
		return false
	}
	d := st.Status().Details
	return d != nil && d.Kind == "namespaces"
}

// controlScheme knows the core, apps, RBAC, apiextensions and hca.dev kinds.
var controlScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = hcav1.AddToScheme(s)
	_ = apiextensionsv1.AddToScheme(s)
	return s
}()

// controlClient builds a client of the control cluster, or reports why not.
func controlClient(c *Clients, diags interface {
	AddError(string, string)
}) (client.Client, bool) {
	cfg, err := c.ControlCluster()
	if err != nil {
		diags.AddError("Control cluster not configured", ControlClusterNotConfiguredDetail)
		return nil, false
	}
	cl, err := client.New(cfg, client.Options{Scheme: controlScheme})
	if err != nil {
		diags.AddError("Error connecting to control cluster", fmt.Sprintf("Could not create a Kubernetes client for %s: %v.", cfg.Host, err))
		return nil, false
	}
	return cl, true
}

// deleteAndWait deletes obj and waits until it is gone (finalizers done).
func deleteAndWait(ctx context.Context, c client.Client, obj client.Object, timeout time.Duration) error {
	if err := c.Delete(ctx, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	return pollUntil(ctx, 200*time.Millisecond, timeout, "deletion to finish", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		switch {
		case apierrors.IsNotFound(err):
			return true, "", nil
		case err != nil:
			return false, apiErrorState(err), nil
		}
		return false, fmt.Sprintf("finalizers %v", obj.GetFinalizers()), nil
	})
}
