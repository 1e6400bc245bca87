package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hca-project/terraform-provider-hca/internal/cloud"
)

var (
	_ ephemeral.EphemeralResource              = (*eksTokenEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithConfigure = (*eksTokenEphemeralResource)(nil)
)

// NewEKSTokenEphemeralResource returns the hca_eks_token ephemeral resource.
func NewEKSTokenEphemeralResource() ephemeral.EphemeralResource {
	return &eksTokenEphemeralResource{}
}

var eksTokenRegionRE = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

type eksTokenEphemeralResource struct {
	clients *Clients
}

type eksTokenModel struct {
	ClusterName types.String `tfsdk:"cluster_name"`
	Region      types.String `tfsdk:"region"`
	Token       types.String `tfsdk:"token"`
	Expiration  types.String `tfsdk:"expiration"`
}

func (r *eksTokenEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_eks_token"
}

func (r *eksTokenEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Mints a bearer token for an Amazon EKS cluster's Kubernetes API, as `aws eks get-token` does " +
			"(a presigned STS GetCallerIdentity request, signed with the provider's AWS credentials). Ephemeral " +
			"(Terraform 1.10 or later): the token is never written to the plan or the state; pass it to provider " +
			"configurations or other ephemeral values.",
		Attributes: map[string]schema.Attribute{
			"cluster_name": schema.StringAttribute{
				Required:    true,
				Description: "Name of the EKS cluster the token is for (1 to 100 letters, digits, hyphens and underscores, starting with a letter or digit).",
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 100),
					stringvalidator.RegexMatches(eksClusterNameRE, "must start with a letter or digit and contain only letters, digits, hyphens and underscores"),
				},
			},
			"region": schema.StringAttribute{
				Optional:    true,
				Description: "AWS region of the cluster, such as `us-east-1`. Defaults to the provider's AWS region.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(eksTokenRegionRE, "must be an AWS region such as \"us-east-1\""),
				},
			},
			"token": schema.StringAttribute{
				Computed:    true,
				Sensitive:   true,
				Description: "Bearer token (`k8s-aws-v1.` and a base64url presigned URL). A secret.",
			},
			"expiration": schema.StringAttribute{
				Computed:    true,
				Description: "When to stop using the token (RFC 3339): 14 minutes after it was minted, one minute before STS stops accepting it.",
			},
		},
	}
}

func (r *eksTokenEphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

func (r *eksTokenEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m eksTokenModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, err := r.clients.AWSConfig()
	if err != nil {
		resp.Diagnostics.AddError("Error minting EKS token", "The AWS SDK configuration could not be loaded: "+err.Error()+
			". Configure AWS credentials and region (the aws block, AWS_* environment variables or shared files).")
		return
	}
	if !m.Region.IsNull() {
		cfg.Region = m.Region.ValueString()
	}
	if cfg.Region == "" {
		resp.Diagnostics.AddError("Error minting EKS token", "No AWS region: set region, or aws.region in the provider \"hca\" block, or the AWS_REGION environment variable.")
		return
	}
	tok, err := cloud.EKSToken(ctx, cloud.NewSTSClient(cfg, r.clients.Endpoints.STS), m.ClusterName.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Error minting EKS token", fmt.Sprintf("Cluster %q: %s", m.ClusterName.ValueString(), err))
		return
	}
	m.Token = types.StringValue(tok.Value)
	m.Expiration = types.StringValue(tok.Expiration.UTC().Format(time.RFC3339))
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}
