package provider

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	alicreds "github.com/aliyun/alibaba-cloud-sdk-go/sdk/auth/credentials"
	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
)

// Environment variables of alicloud.assume_role_with_oidc: the Alibaba Cloud
// SDK's own names (its OIDC credentials provider reads them too).
const (
	EnvAlicloudRoleARN         = "ALIBABA_CLOUD_ROLE_ARN"
	EnvAlicloudOIDCProviderARN = "ALIBABA_CLOUD_OIDC_PROVIDER_ARN"
	EnvAlicloudOIDCTokenFile   = "ALIBABA_CLOUD_OIDC_TOKEN_FILE"
	EnvAlicloudRoleSessionName = "ALIBABA_CLOUD_ROLE_SESSION_NAME"
)

// rawAliOIDC is the alicloud.assume_role_with_oidc block as Terraform sent it.
type rawAliOIDC struct {
	RoleARN, ProviderARN, Token, TokenFile, SessionName, Duration value
}

// aliOIDCSettings is the resolved assume_role_with_oidc block. Exactly one of
// Token and TokenFile is set when there is no problem; Token is a secret:
// never log it or put it in a diagnostic.
type aliOIDCSettings struct {
	RoleARN, ProviderARN, Token, TokenFile, SessionName, Duration setting
	// DurationValue is Duration parsed; zero when unset (1 hour).
	DurationValue time.Duration
}

var (
	pathAliOIDC            = path.Root("alicloud").AtName("assume_role_with_oidc")
	pathAliOIDCRoleARN     = pathAliOIDC.AtName("role_arn")
	pathAliOIDCProviderARN = pathAliOIDC.AtName("oidc_provider_arn")
	pathAliOIDCToken       = pathAliOIDC.AtName("oidc_token")
	pathAliOIDCTokenFile   = pathAliOIDC.AtName("oidc_token_file")
	pathAliOIDCSessionName = pathAliOIDC.AtName("session_name")
	pathAliOIDCDuration    = pathAliOIDC.AtName("duration")

	aliRoleARNPattern         = regexp.MustCompile(`^acs:ram::\d+:role/[\w.@-]{1,64}$`)
	aliOIDCProviderARNPattern = regexp.MustCompile(`^acs:ram::\d+:oidc-provider/[\w.-]{1,128}$`)
	aliSessionNamePattern     = regexp.MustCompile(`^[\w.@-]{2,64}$`)
)

// Limits of AssumeRoleWithOIDC as the Alibaba Cloud SDK enforces them: a
// session of 15 minutes to 1 hour, a token of 4 to 20,000 characters.
const (
	minAliOIDCDuration = 15 * time.Minute
	maxAliOIDCDuration = time.Hour
	maxAliOIDCToken    = 20000
)

func aliOIDCSchema() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		Description: "Role to assume with Alibaba Cloud STS AssumeRoleWithOIDC (RAM role SSO with OIDC), exchanging an " +
			"OpenID Connect token (such as an HCP Terraform workload identity token) for temporary credentials, so " +
			"that no AccessKey is stored. Conflicts with `access_key` and `secret_key` (the `ALICLOUD_ACCESS_KEY` and " +
			"`ALICLOUD_SECRET_KEY` variables are then ignored). The token is `oidc_token`, else the file " +
			"`oidc_token_file`, else the `TFC_WORKLOAD_IDENTITY_TOKEN` environment variable, else the file named by " +
			"`ALIBABA_CLOUD_OIDC_TOKEN_FILE`. The exchange happens when the provider is configured, and the " +
			"credentials last `duration`: an apply must end within it.",
		Attributes: map[string]schema.Attribute{
			"role_arn": schema.StringAttribute{
				Optional: true,
				Description: "ARN of the RAM role to assume, such as `acs:ram::1234567890123456:role/hca-terraform`; its " +
					"trust policy must allow the OIDC provider (and the token's subject, with a condition on `oidc:sub`). " +
					"Falls back to the `ALIBABA_CLOUD_ROLE_ARN` environment variable when null; required one way or the other.",
			},
			"oidc_provider_arn": schema.StringAttribute{
				Optional: true,
				Description: "ARN of the RAM OIDC identity provider of the token's issuer, such as " +
					"`acs:ram::1234567890123456:oidc-provider/hcp-terraform`; its client IDs must include the token's " +
					"audience. Falls back to `ALIBABA_CLOUD_OIDC_PROVIDER_ARN` when null; required one way or the other.",
			},
			"oidc_token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "The OpenID Connect token itself (a JWT, 4 to 20000 characters, no whitespace). Conflicts " +
					"with `oidc_token_file`. When both are null, `TFC_WORKLOAD_IDENTITY_TOKEN` (set by HCP Terraform when " +
					"the workspace sets `TFC_WORKLOAD_IDENTITY_AUDIENCE`), then the file named by `ALIBABA_CLOUD_OIDC_TOKEN_FILE`.",
			},
			"oidc_token_file": schema.StringAttribute{
				Optional: true,
				Description: "Path of a file holding the OpenID Connect token (`~/` is expanded). Conflicts with `oidc_token`. " +
					"Falls back to the `ALIBABA_CLOUD_OIDC_TOKEN_FILE` environment variable when `oidc_token`, this attribute and " +
					"`TFC_WORKLOAD_IDENTITY_TOKEN` are all unset.",
			},
			"session_name": schema.StringAttribute{
				Optional: true,
				Description: "Role session name, 2 to 64 letters, digits, `.`, `@`, `-` or `_`. Falls back to " +
					"`ALIBABA_CLOUD_ROLE_SESSION_NAME`, then `terraform-provider-hca`, when null.",
			},
			"duration": schema.StringAttribute{
				Optional: true,
				Description: "How long the temporary credentials last, a Go duration from `15m` to `1h` (the SDK's " +
					"limits), such as `1h`. Defaults to `1h`. No environment fallback.",
			},
		},
	}
}

// aliOIDC resolves assume_role_with_oidc. Messages never quote the token.
func (r *resolver) aliOIDC(o *rawAliOIDC, a alicloudSettings) *aliOIDCSettings {
	s := &aliOIDCSettings{
		RoleARN:     r.fallback(pathAliOIDCRoleARN, o.RoleARN, EnvAlicloudRoleARN),
		ProviderARN: r.fallback(pathAliOIDCProviderARN, o.ProviderARN, EnvAlicloudOIDCProviderARN),
		SessionName: r.fallback(pathAliOIDCSessionName, o.SessionName, EnvAlicloudRoleSessionName),
		Duration:    r.configOnly(pathAliOIDCDuration, o.Duration),
	}
	for _, k := range []setting{a.AccessKey, a.SecretKey} {
		if k.IsSet() && k.Env == "" {
			r.add(k.Path, "Conflicting alicloud credentials",
				fmt.Sprintf("%s and alicloud.assume_role_with_oidc are both set. Use either an AccessKey pair or "+
					"temporary credentials from an OIDC token: remove %s (and its pair), or the assume_role_with_oidc block.", k.Path, k.Path))
			break
		}
	}
	s.Token, s.TokenFile = r.tokenSource(tokenSource{block: "alicloud.assume_role_with_oidc", kind: "OIDC",
		token: o.Token, file: o.TokenFile, tokenPath: pathAliOIDCToken, filePath: pathAliOIDCTokenFile, fileEnv: EnvAlicloudOIDCTokenFile})
	for _, x := range []struct {
		s       setting
		raw     value
		env     string
		re      *regexp.Regexp
		what    string
		example string
	}{
		{s.RoleARN, o.RoleARN, EnvAlicloudRoleARN, aliRoleARNPattern, "the ARN of the RAM role to assume", "acs:ram::1234567890123456:role/hca-terraform"},
		{s.ProviderARN, o.ProviderARN, EnvAlicloudOIDCProviderARN, aliOIDCProviderARNPattern, "the ARN of the RAM OIDC provider of the token's issuer", "acs:ram::1234567890123456:oidc-provider/hcp-terraform"},
	} {
		switch {
		case !x.s.IsSet() && !x.raw.Set:
			r.add(x.s.Path, "Missing "+x.s.Path.String(),
				fmt.Sprintf("The alicloud.assume_role_with_oidc block is present but %s is not set. Set it (or the %s environment variable) to %s, such as %q.", x.s.Path, x.env, x.what, x.example))
		case x.s.Known() && !x.re.MatchString(x.s.Value):
			r.add(x.s.Path, "Invalid "+x.s.Path.String(),
				fmt.Sprintf("%s must be %s, such as %q; got %q.", x.s.name(), x.what, x.example, x.s.Value))
		}
	}
	if s.SessionName.Known() && !aliSessionNamePattern.MatchString(s.SessionName.Value) {
		r.add(pathAliOIDCSessionName, "Invalid "+pathAliOIDCSessionName.String(),
			fmt.Sprintf("%s must be 2 to 64 letters, digits, '.', '@', '-' or '_'; got %q.", s.SessionName.name(), s.SessionName.Value))
	}
	if t := s.Token; t.Known() {
		if len(t.Value) < 4 || len(t.Value) > maxAliOIDCToken || strings.ContainsAny(t.Value, " \t\r\n") || strings.Count(t.Value, ".") != 2 {
			r.add(pathAliOIDCToken, "Invalid OIDC token",
				fmt.Sprintf("%s must be a JSON Web Token (three base64url parts separated by dots, 4 to %d characters, no whitespace or line break): pass the token itself, trimmed (for example with trimspace()), not a file path (use oidc_token_file for that).", t.name(), maxAliOIDCToken))
		}
	}
	if d := s.Duration; d.Known() {
		v, err := time.ParseDuration(d.Value)
		switch {
		case err != nil:
			r.add(pathAliOIDCDuration, "Invalid "+pathAliOIDCDuration.String(),
				fmt.Sprintf("%s must be a duration such as \"1h\" or \"30m\"; got %q.", pathAliOIDCDuration, d.Value))
		case v < minAliOIDCDuration || v > maxAliOIDCDuration:
			r.add(pathAliOIDCDuration, "Invalid "+pathAliOIDCDuration.String(),
				fmt.Sprintf("%s must be between 15m and 1h (the Alibaba Cloud SDK's limits for AssumeRoleWithOIDC); got %q.", pathAliOIDCDuration, d.Value))
		default:
			s.DurationValue = v
		}
	}
	return s
}

// aliSTSEndpoint checks endpoints.alicloud_sts: the SDK calls https:// only.
func (r *resolver) aliSTSEndpoint(e setting) {
	if !e.Known() {
		return
	}
	const example = "https://sts.cn-hangzhou.aliyuncs.com"
	if msg := checkURL(e.Value, example); msg != "" {
		r.add(e.Path, "Invalid "+e.Path.String(), fmt.Sprintf("%s %s", e.Path, msg))
		return
	}
	if u, _ := url.Parse(e.Value); u.Scheme != "https" || (u.Path != "" && u.Path != "/") {
		r.add(e.Path, "Invalid "+e.Path.String(),
			fmt.Sprintf("%s must be an https:// URL without a path, such as %q: the Alibaba Cloud SDK calls STS at https://<host>/ only; got %q.", e.Path, example, e.Value))
	}
}

// assumeAlicloudRoleWithOIDC exchanges the token for temporary credentials
// with the unmodified Alibaba Cloud SDK's OIDC credentials provider, which
// reads the token from a file: a token given inline (or from
// TFC_WORKLOAD_IDENTITY_TOKEN) is written to a private temporary file for
// the call and removed after it. endpoint is endpoints.alicloud_sts ("" for
// the region's).
func assumeAlicloudRoleWithOIDC(o *aliOIDCSettings, region, endpoint string) (*alicreds.Credentials, error) {
	file := expandHome(o.TokenFile.Value)
	if o.Token.IsSet() {
		f, err := os.CreateTemp("", "hca-oidc-token-*")
		if err != nil {
			return nil, fmt.Errorf("write the token for the SDK: %w", err)
		}
		defer os.Remove(f.Name())
		_, werr := f.WriteString(o.Token.Value)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, fmt.Errorf("write the token for the SDK: %w", werr)
		}
		file = f.Name()
	}
	session := o.SessionName.Value
	if session == "" {
		session = defaultAWSSessionName
	}
	duration := time.Hour
	if o.DurationValue > 0 {
		duration = o.DurationValue
	}
	b := alicreds.NewOIDCCredentialsProviderBuilder().
		WithRoleArn(o.RoleARN.Value).
		WithOIDCProviderARN(o.ProviderARN.Value).
		WithOIDCTokenFilePath(file).
		WithRoleSessionName(session).
		WithDurationSeconds(int(duration / time.Second))
	switch {
	case endpoint != "":
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, fmt.Errorf("endpoints.alicloud_sts: %w", err)
		}
		b = b.WithSTSEndpoint(u.Host)
	case region != "":
		b = b.WithStsRegion(region)
	}
	p, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build the OIDC credentials provider: %w", err)
	}
	return p.GetCredentials()
}

// aliOIDCErrorDetail explains why STS refused the exchange. It names where
// the token came from, never the token.
func aliOIDCErrorDetail(o *aliOIDCSettings, err error) string {
	source := o.Token.name()
	if !o.Token.IsSet() {
		source = o.TokenFile.name() + " (" + o.TokenFile.Value + ")"
	}
	hint := "Check that the RAM OIDC provider exists with the token's issuer and audience (client ID), and that the role's trust policy allows that provider."
	msg := err.Error()
	var se *sdkerrors.ServerError
	if errors.As(err, &se) {
		msg = fmt.Sprintf("%s: %s (HTTP %d, request ID %s)", se.ErrorCode(), se.Message(), se.HttpStatus(), se.RequestId())
		switch code := se.ErrorCode(); {
		case code == "AuthenticationFail.OIDCToken.Expired":
			hint = "The token has expired: use a fresh one (HCP Terraform issues one per run phase)."
		case strings.HasPrefix(code, "AuthenticationFail.OIDCToken"):
			hint = "STS did not accept the token: it must be signed by the issuer's current key, its issuer must be the RAM OIDC provider's issuer URL and its audience one of the provider's client IDs. " + hint
		case strings.HasPrefix(code, "EntityNotExist"):
			hint = "The role or the OIDC provider does not exist in that account: check role_arn and oidc_provider_arn."
		}
	}
	return fmt.Sprintf("Alibaba Cloud STS refused AssumeRoleWithOIDC for role %s with the token from %s: %s. %s", o.RoleARN.Value, source, msg, hint)
}
