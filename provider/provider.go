package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	smithy "github.com/aws/smithy-go"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

var (
	_ provider.Provider                       = (*hcaProvider)(nil)
	_ provider.ProviderWithValidateConfig     = (*hcaProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*hcaProvider)(nil)
)

// New returns a constructor of the hca provider; version is the release
// version ("dev" for local builds, "test" in acceptance tests).
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &hcaProvider{version: version, getenv: os.Getenv}
	}
}

type hcaProvider struct {
	version string
	// getenv reads the environment fallbacks (os.Getenv outside tests).
	getenv func(string) string
}

type providerModel struct {
	KubeconfigPath       types.String    `tfsdk:"kubeconfig_path"`
	KubeconfigContext    types.String    `tfsdk:"kubeconfig_context"`
	Host                 types.String    `tfsdk:"host"`
	ClusterCACertificate types.String    `tfsdk:"cluster_ca_certificate"`
	Token                types.String    `tfsdk:"token"`
	ClientCertificate    types.String    `tfsdk:"client_certificate"`
	ClientKey            types.String    `tfsdk:"client_key"`
	AWS                  *awsModel       `tfsdk:"aws"`
	Alicloud             *alicloudModel  `tfsdk:"alicloud"`
	Endpoints            *endpointsModel `tfsdk:"endpoints"`
}

type awsModel struct {
	Region      types.String      `tfsdk:"region"`
	Profile     types.String      `tfsdk:"profile"`
	AssumeRole  *assumeRoleModel  `tfsdk:"assume_role"`
	WebIdentity *webIdentityModel `tfsdk:"assume_role_with_web_identity"`
}

type webIdentityModel struct {
	RoleARN              types.String `tfsdk:"role_arn"`
	SessionName          types.String `tfsdk:"session_name"`
	WebIdentityToken     types.String `tfsdk:"web_identity_token"`
	WebIdentityTokenFile types.String `tfsdk:"web_identity_token_file"`
	Duration             types.String `tfsdk:"duration"`
}

type assumeRoleModel struct {
	RoleARN     types.String `tfsdk:"role_arn"`
	SessionName types.String `tfsdk:"session_name"`
	ExternalID  types.String `tfsdk:"external_id"`
}

type alicloudModel struct {
	Region     types.String  `tfsdk:"region"`
	AccessKey  types.String  `tfsdk:"access_key"`
	SecretKey  types.String  `tfsdk:"secret_key"`
	OIDCAssume *aliOIDCModel `tfsdk:"assume_role_with_oidc"`
}

type aliOIDCModel struct {
	RoleARN         types.String `tfsdk:"role_arn"`
	OIDCProviderARN types.String `tfsdk:"oidc_provider_arn"`
	OIDCToken       types.String `tfsdk:"oidc_token"`
	OIDCTokenFile   types.String `tfsdk:"oidc_token_file"`
	SessionName     types.String `tfsdk:"session_name"`
	Duration        types.String `tfsdk:"duration"`
}

type endpointsModel struct {
	EKS         types.String `tfsdk:"eks"`
	STS         types.String `tfsdk:"sts"`
	ACK         types.String `tfsdk:"ack"`
	AlicloudSTS types.String `tfsdk:"alicloud_sts"`
}

func (p *hcaProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "hca"
	resp.Version = p.version
}

func (p *hcaProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The hca provider manages hybrid-cloud autoscaling (HCA): a private control cluster that bursts " +
			"workloads to Amazon EKS and Alibaba Cloud ACK clusters. It connects to the control cluster through a " +
			"kubeconfig file or directly (host, CA, and a token or client certificate), and to the clouds with the " +
			"AWS SDK's default credential chain and an Alibaba Cloud AccessKey pair.",
		Attributes: map[string]schema.Attribute{
			"kubeconfig_path": schema.StringAttribute{
				Optional: true,
				Description: "Path to a kubeconfig file for the control cluster (`~/` is expanded). Conflicts with `host`, " +
					"`cluster_ca_certificate`, `token`, `client_certificate` and `client_key`. The file must exist when " +
					"the configuration is validated. Falls back to the `KUBE_CONFIG_PATH` environment variable when null.",
			},
			"kubeconfig_context": schema.StringAttribute{
				Optional: true,
				Description: "Context of the kubeconfig file to use; must be one of the file's contexts. Defaults to the " +
					"file's `current-context`. Requires `kubeconfig_path` (or `KUBE_CONFIG_PATH`). Falls back to the " +
					"`KUBE_CTX` environment variable when null.",
			},
			"host": schema.StringAttribute{
				Optional: true,
				Description: "URL of the control cluster's Kubernetes API server, an absolute `https://` (or `http://`) " +
					"URL such as `https://127.0.0.1:6443`. Requires `token`, or `client_certificate` and `client_key`. " +
					"Conflicts with `kubeconfig_path` and `kubeconfig_context`. Falls back to the `KUBE_HOST` " +
					"environment variable when null.",
			},
			"cluster_ca_certificate": schema.StringAttribute{
				Optional: true,
				Description: "PEM-encoded CA certificate(s) that signed the API server's serving certificate (the PEM " +
					"text itself, not a path: use `file()` or `base64decode()`). When unset, the system's trusted CAs " +
					"are used. Only with `host`. Falls back to the `KUBE_CLUSTER_CA_CERT_DATA` environment variable " +
					"when null.",
			},
			"token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "Bearer token for the API server (for example a service account token or an EKS token), " +
					"without whitespace. Only with `host`; conflicts with `client_certificate` and `client_key`. " +
					"Falls back to the `KUBE_TOKEN` environment variable when null.",
			},
			"client_certificate": schema.StringAttribute{
				Optional: true,
				Description: "PEM-encoded client certificate for TLS client authentication to the API server. Only " +
					"with `host`; requires `client_key`; conflicts with `token`. Falls back to the " +
					"`KUBE_CLIENT_CERT_DATA` environment variable when null.",
			},
			"client_key": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "PEM-encoded private key of `client_certificate`. Only with `host`; requires " +
					"`client_certificate`; conflicts with `token`. Falls back to the `KUBE_CLIENT_KEY_DATA` " +
					"environment variable when null.",
			},
		},
		Blocks: map[string]schema.Block{
			"aws": schema.SingleNestedBlock{
				Description: "Amazon Web Services settings, for EKS burst clusters. Credentials always come from the AWS " +
					"SDK's default chain: the `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` " +
					"environment variables, a web identity token (`AWS_WEB_IDENTITY_TOKEN_FILE` with `AWS_ROLE_ARN`), the " +
					"shared config and credentials files, or container and instance metadata.",
				Attributes: map[string]schema.Attribute{
					"region": schema.StringAttribute{
						Optional: true,
						Description: "AWS region, such as `us-east-1` (checked at plan time against the shape of AWS region " +
							"names). Falls back to the `AWS_REGION` (or `AWS_DEFAULT_REGION`) environment variable, then the " +
							"profile's region, when null.",
						Validators: []validator.String{stringvalidator.RegexMatches(eksTokenRegionRE, "must be an AWS region such as \"us-east-1\"")},
					},
					"profile": schema.StringAttribute{
						Optional: true,
						Description: "Named profile of the shared AWS config and credentials files; it must exist " +
							"in those files. Falls back to the `AWS_PROFILE` environment variable when null.",
					},
				},
				Blocks: map[string]schema.Block{
					"assume_role": schema.SingleNestedBlock{
						Description: "Role to assume with STS AssumeRole, using the default-chain credentials as the " +
							"source, or the `assume_role_with_web_identity` credentials when that block is present. " +
							"No environment fallback.",
						Attributes: map[string]schema.Attribute{
							"role_arn": schema.StringAttribute{
								Optional: true,
								Description: "ARN of the IAM role to assume, such as " +
									"`arn:aws:iam::123456789012:role/hca`; required in an `assume_role` block. " +
									"No environment fallback.",
							},
							"session_name": schema.StringAttribute{
								Optional: true,
								Description: "Session name, 2 to 64 characters of letters, digits and `+=,.@_-`. " +
									"Defaults to `terraform-provider-hca`. No environment fallback.",
							},
							"external_id": schema.StringAttribute{
								Optional: true,
								Description: "External ID that the role's trust policy requires, 2 to 1224 characters " +
									"of letters, digits and `+=,.@:/_-`. No environment fallback.",
							},
						},
					},
					"assume_role_with_web_identity": schema.SingleNestedBlock{
						Description: "Role to assume with STS AssumeRoleWithWebIdentity, exchanging an OpenID Connect " +
							"token (such as an HCP Terraform workload identity token) for temporary credentials, so " +
							"that no long-lived AWS key is stored. Replaces the default-chain credentials. The token " +
							"is `web_identity_token`, else the file `web_identity_token_file`, else the " +
							"`TFC_WORKLOAD_IDENTITY_TOKEN` environment variable, else the file named by " +
							"`AWS_WEB_IDENTITY_TOKEN_FILE`.",
						Attributes: map[string]schema.Attribute{
							"role_arn": schema.StringAttribute{
								Optional: true,
								Description: "ARN of the IAM role to assume, such as " +
									"`arn:aws:iam::123456789012:role/hca`; its trust policy must allow the token's " +
									"issuer, audience and subject. Falls back to the `AWS_ROLE_ARN` environment " +
									"variable when null; required one way or the other.",
							},
							"session_name": schema.StringAttribute{
								Optional: true,
								Description: "Session name, 2 to 64 characters of letters, digits and `+=,.@_-`. " +
									"Falls back to the `AWS_ROLE_SESSION_NAME` environment variable, then " +
									"`terraform-provider-hca`, when null.",
							},
							"web_identity_token": schema.StringAttribute{
								Optional:  true,
								Sensitive: true,
								Description: "The OpenID Connect token itself (a JWT, 4 to 20000 characters, no " +
									"whitespace). Conflicts with `web_identity_token_file`. When both are null, the " +
									"`TFC_WORKLOAD_IDENTITY_TOKEN` environment variable (set by HCP Terraform when the " +
									"workspace sets `TFC_WORKLOAD_IDENTITY_AUDIENCE`) is used.",
							},
							"web_identity_token_file": schema.StringAttribute{
								Optional: true,
								Description: "Path of a file holding the OpenID Connect token; read again each time " +
									"the credentials are refreshed. Conflicts with `web_identity_token`. Falls back " +
									"to the `AWS_WEB_IDENTITY_TOKEN_FILE` environment variable when `web_identity_token`, " +
									"this attribute and `TFC_WORKLOAD_IDENTITY_TOKEN` are all unset.",
							},
							"duration": schema.StringAttribute{
								Optional: true,
								Description: "How long the temporary credentials last, a Go duration between `15m` " +
									"and `12h` (and at most the role's maximum session duration), such as `1h`. " +
									"Defaults to `1h`. No environment fallback.",
							},
						},
					},
				},
			},
			"alicloud": schema.SingleNestedBlock{
				Description: "Alibaba Cloud settings, for ACK burst clusters.",
				Attributes: map[string]schema.Attribute{
					"region": schema.StringAttribute{
						Optional: true,
						Description: "Alibaba Cloud region ID, such as `cn-hangzhou` (lowercase letters, digits and `-`). Falls " +
							"back to the `ALICLOUD_REGION` environment variable when null.",
						Validators: []validator.String{stringvalidator.RegexMatches(ackRegionRE, "must be an Alibaba Cloud region ID such as \"cn-hangzhou\"")},
					},
					"access_key": schema.StringAttribute{
						Optional:  true,
						Sensitive: true,
						Description: "AccessKey ID. Requires `secret_key`. Falls back to the " +
							"`ALICLOUD_ACCESS_KEY` environment variable when null.",
					},
					"secret_key": schema.StringAttribute{
						Optional:  true,
						Sensitive: true,
						Description: "AccessKey secret. Requires `access_key`. Falls back to the " +
							"`ALICLOUD_SECRET_KEY` environment variable when null.",
					},
				},
				Blocks: map[string]schema.Block{
					"assume_role_with_oidc": aliOIDCSchema(),
				},
			},
			"endpoints": schema.SingleNestedBlock{
				Description: "Custom service endpoints, to point the cloud SDKs at other URLs (emulators, VPC " +
					"endpoints). Each must be an absolute `http://` or `https://` URL without user information.",
				Attributes: map[string]schema.Attribute{
					"eks": schema.StringAttribute{
						Optional: true,
						Description: "Amazon EKS API endpoint URL. Falls back to the AWS SDK's " +
							"`AWS_ENDPOINT_URL_EKS` (then `AWS_ENDPOINT_URL`) environment variable when null.",
					},
					"sts": schema.StringAttribute{
						Optional: true,
						Description: "AWS STS endpoint URL, also used by `aws.assume_role`. Falls back to the AWS " +
							"SDK's `AWS_ENDPOINT_URL_STS` (then `AWS_ENDPOINT_URL`) environment variable when null.",
					},
					"ack": schema.StringAttribute{
						Optional:    true,
						Description: "Alibaba Cloud Container Service (ACK) API endpoint URL. No environment fallback.",
					},
					"alicloud_sts": schema.StringAttribute{
						Optional: true,
						Description: "Alibaba Cloud STS endpoint URL for `alicloud.assume_role_with_oidc`, an `https://` URL " +
							"(the Alibaba Cloud SDK calls STS over HTTPS only), such as `https://sts-vpc.cn-hangzhou.aliyuncs.com`. " +
							"Unset: `sts.<alicloud.region>.aliyuncs.com`, or `sts.aliyuncs.com` without a region. No environment fallback.",
					},
				},
			},
		},
	}
}

// ValidateConfig reports configuration problems at validate and plan time,
// for the values that are known then (environment fallbacks included), and
// checks that the kubeconfig file and context exist.
func (p *hcaProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, probs := resolve(m.raw(), p.getenv)
	if len(probs) == 0 && s.Kube.Mode == kubeKubeconfig && s.Kube.ConfigPath.Known() && !s.Kube.Context.Unknown {
		_, probs = loadKubeconfig(s.Kube.ConfigPath, s.Kube.Context)
	}
	addProblems(&resp.Diagnostics, probs)
}

func (p *hcaProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, probs := resolve(m.raw(), p.getenv)
	addProblems(&resp.Diagnostics, probs)
	for _, u := range unknownSettings(s) {
		resp.Diagnostics.AddAttributeError(u.Path, "Unknown "+u.Path.String(),
			"The provider cannot be configured because "+u.Path.String()+" depends on a value that is not known "+
				"until apply. Set it to a value known at plan time, or apply the resources it depends on first "+
				"(terraform apply -target=...).")
	}
	if resp.Diagnostics.HasError() {
		return
	}

	clients, probs, err := newClients(ctx, s, m.AWS != nil, p.version)
	addProblems(&resp.Diagnostics, probs)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("aws"), "Error loading AWS configuration",
			"The AWS SDK could not load its configuration for the aws block: "+err.Error()+". Check aws.profile "+
				"(or AWS_PROFILE) and the shared config and credentials files.")
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if s.AWS.WebIdentity != nil {
		// Exchange the token now, so that a refused token is reported once,
		// against the block, rather than by every resource that calls AWS.
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := clients.AWS.Credentials.Retrieve(rctx)
		cancel()
		if err != nil {
			resp.Diagnostics.AddAttributeError(pathWIRoleARN, "Error assuming role with web identity", webIdentityErrorDetail(s.AWS.WebIdentity, err))
			return
		}
	}
	if o := s.Alicloud.OIDC; o != nil {
		// As for AWS: a refused token is reported once, against the block.
		creds, err := assumeAlicloudRoleWithOIDC(o, s.Alicloud.Region.Value, clients.Endpoints.AlicloudSTS)
		if err != nil {
			resp.Diagnostics.AddAttributeError(pathAliOIDCRoleARN, "Error assuming Alibaba Cloud role with OIDC", aliOIDCErrorDetail(o, err))
			return
		}
		clients.Alicloud.AccessKey, clients.Alicloud.SecretKey, clients.Alicloud.SecurityToken = creds.AccessKeyId, creds.AccessKeySecret, creds.SecurityToken
	}
	tflog.Debug(ctx, "configured hca provider", map[string]any{
		"control_cluster": clients.Kube != nil,
		"aws_region":      clients.AWS.Region,
		"alicloud_region": clients.Alicloud.Region,
	})
	resp.DataSourceData = clients
	resp.ResourceData = clients
	resp.EphemeralResourceData = clients
}

func (p *hcaProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewClusterResource,
		NewRuntimeResource(p.version),
		NewBurstPolicyResource,
		NewFederatedAutoscalerResource,
		NewMultiObjectiveStrategyResource,
		NewEKSClusterResource,
		NewACKClusterResource,
		NewSLOResource,
	}
}

func (p *hcaProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewControlClusterDataSource,
		NewClusterDataSource,
		NewBurstPolicyStatusDataSource,
	}
}

func (p *hcaProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewEKSTokenEphemeralResource,
	}
}

// raw strips the Terraform types for resolve.
func (m providerModel) raw() rawConfig {
	c := rawConfig{
		KubeconfigPath:       toValue(m.KubeconfigPath),
		KubeconfigContext:    toValue(m.KubeconfigContext),
		Host:                 toValue(m.Host),
		ClusterCACertificate: toValue(m.ClusterCACertificate),
		Token:                toValue(m.Token),
		ClientCertificate:    toValue(m.ClientCertificate),
		ClientKey:            toValue(m.ClientKey),
	}
	if a := m.AWS; a != nil {
		c.AWS = &rawAWS{Region: toValue(a.Region), Profile: toValue(a.Profile)}
		if ar := a.AssumeRole; ar != nil {
			c.AWS.AssumeRole = &rawAssumeRole{
				RoleARN:     toValue(ar.RoleARN),
				SessionName: toValue(ar.SessionName),
				ExternalID:  toValue(ar.ExternalID),
			}
		}
		if wi := a.WebIdentity; wi != nil {
			c.AWS.WebIdentity = &rawWebIdentity{
				RoleARN:              toValue(wi.RoleARN),
				SessionName:          toValue(wi.SessionName),
				WebIdentityToken:     toValue(wi.WebIdentityToken),
				WebIdentityTokenFile: toValue(wi.WebIdentityTokenFile),
				Duration:             toValue(wi.Duration),
			}
		}
	}
	if a := m.Alicloud; a != nil {
		c.Alicloud = &rawAlicloud{Region: toValue(a.Region), AccessKey: toValue(a.AccessKey), SecretKey: toValue(a.SecretKey)}
		if o := a.OIDCAssume; o != nil {
			c.Alicloud.OIDC = &rawAliOIDC{RoleARN: toValue(o.RoleARN), ProviderARN: toValue(o.OIDCProviderARN), Token: toValue(o.OIDCToken),
				TokenFile: toValue(o.OIDCTokenFile), SessionName: toValue(o.SessionName), Duration: toValue(o.Duration)}
		}
	}
	if e := m.Endpoints; e != nil {
		c.Endpoints = &rawEndpoints{EKS: toValue(e.EKS), STS: toValue(e.STS), ACK: toValue(e.ACK), AlicloudSTS: toValue(e.AlicloudSTS)}
	}
	return c
}

func toValue(s types.String) value {
	switch {
	case s.IsNull():
		return value{}
	case s.IsUnknown():
		return value{Set: true, Unknown: true}
	}
	return value{Set: true, Str: s.ValueString()}
}

// unknownSettings lists the settings that are set but not known yet.
func unknownSettings(s settings) []setting {
	all := []setting{
		s.Kube.ConfigPath, s.Kube.Context, s.Kube.Host, s.Kube.CACert, s.Kube.Token, s.Kube.ClientCertificate, s.Kube.ClientKey,
		s.AWS.Region, s.AWS.Profile,
		s.Alicloud.Region, s.Alicloud.AccessKey, s.Alicloud.SecretKey,
		s.Endpoints.EKS, s.Endpoints.STS, s.Endpoints.ACK, s.Endpoints.AlicloudSTS,
	}
	if o := s.Alicloud.OIDC; o != nil {
		all = append(all, o.RoleARN, o.ProviderARN, o.Token, o.TokenFile, o.SessionName, o.Duration)
	}
	if ar := s.AWS.AssumeRole; ar != nil {
		all = append(all, ar.RoleARN, ar.SessionName, ar.ExternalID)
	}
	if wi := s.AWS.WebIdentity; wi != nil {
		all = append(all, wi.RoleARN, wi.SessionName, wi.Token, wi.TokenFile, wi.Duration)
	}
	var out []setting
	for _, x := range all {
		if x.Unknown {
			out = append(out, x)
		}
	}
	return out
}

// webIdentityErrorDetail explains why STS refused the web identity token. It
// names where the token came from, never the token.
func webIdentityErrorDetail(wi *webIdentitySettings, err error) string {
	source := wi.Token.name()
	if !wi.Token.IsSet() {
		source = wi.TokenFile.name() + " (" + wi.TokenFile.Value + ")"
	}
	hint := "Check that the IAM OIDC provider of the token's issuer exists in the role's account and that the role's trust policy allows the token's audience and subject."
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "ExpiredTokenException":
			hint = "The token has expired: use a fresh one (HCP Terraform issues one per run phase)."
		case "InvalidIdentityToken":
			hint = "STS did not accept the token: it must be signed by the issuer's current key, and its audience must be one of the IAM OIDC provider's client IDs (\"aws.workload.identity\" for HCP Terraform's default). " + hint
		case "AccessDenied":
			hint = "The role's trust policy does not allow this token: allow sts:AssumeRoleWithWebIdentity for the issuer, with conditions matching the token's aud and sub (\"organization:ORG:project:PROJECT:workspace:WORKSPACE:run_phase:*\" for HCP Terraform)."
		}
	}
	return fmt.Sprintf("STS refused to exchange the web identity token from %s for credentials of %s: %v. %s", source, wi.RoleARN.name(), err, hint)
}

func addProblems(diags *diag.Diagnostics, probs []problem) {
	for _, pr := range probs {
		diags.AddAttributeError(pr.Path, pr.Summary, pr.Detail)
	}
}
