package provider

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
)

// Environment variables read when the matching provider attribute is null. The
// KUBE_* names are the ones the hashicorp/kubernetes provider reads.
const (
	EnvKubeConfigPath    = "KUBE_CONFIG_PATH"
	EnvKubeContext       = "KUBE_CTX"
	EnvKubeHost          = "KUBE_HOST"
	EnvKubeCACert        = "KUBE_CLUSTER_CA_CERT_DATA"
	EnvKubeToken         = "KUBE_TOKEN"
	EnvKubeClientCert    = "KUBE_CLIENT_CERT_DATA"
	EnvKubeClientKey     = "KUBE_CLIENT_KEY_DATA"
	EnvAlicloudRegion    = "ALICLOUD_REGION"
	EnvAlicloudAccessKey = "ALICLOUD_ACCESS_KEY"
	EnvAlicloudSecretKey = "ALICLOUD_SECRET_KEY"
	// EnvTFCWorkloadIdentityToken is where HCP Terraform puts the run's workload
	// identity token when the workspace sets TFC_WORKLOAD_IDENTITY_AUDIENCE.
	EnvTFCWorkloadIdentityToken = "TFC_WORKLOAD_IDENTITY_TOKEN"
	// EnvAWSRoleARN, EnvAWSRoleSessionName and EnvAWSWebIdentityTokenFile are
	// the AWS SDK's web identity variables, read as hashicorp/aws does.
	EnvAWSRoleARN              = "AWS_ROLE_ARN"
	EnvAWSRoleSessionName      = "AWS_ROLE_SESSION_NAME"
	EnvAWSWebIdentityTokenFile = "AWS_WEB_IDENTITY_TOKEN_FILE"
	defaultAWSSessionName      = "terraform-provider-hca"
)

// value is one string attribute of the provider configuration as Terraform sent
// it, with the Terraform types stripped so that resolution is plain Go.
type value struct {
	// Set is true when the attribute is not null (its value may be unknown).
	Set bool
	// Unknown is true when the value is not known yet (it depends on a resource
	// that has not been applied).
	Unknown bool
	// Str is the value when Set and not Unknown.
	Str string
}

// rawConfig is the provider configuration as Terraform sent it. A nil block
// pointer means the block is absent.
type rawConfig struct {
	KubeconfigPath       value
	KubeconfigContext    value
	Host                 value
	ClusterCACertificate value
	Token                value
	ClientCertificate    value
	ClientKey            value
	AWS                  *rawAWS
	Alicloud             *rawAlicloud
	Endpoints            *rawEndpoints
}

type rawAWS struct {
	Region      value
	Profile     value
	AssumeRole  *rawAssumeRole
	WebIdentity *rawWebIdentity
}

type rawWebIdentity struct {
	RoleARN              value
	SessionName          value
	WebIdentityToken     value
	WebIdentityTokenFile value
	Duration             value
}

type rawAssumeRole struct {
	RoleARN     value
	SessionName value
	ExternalID  value
}

type rawAlicloud struct {
	Region    value
	AccessKey value
	SecretKey value
	OIDC      *rawAliOIDC
}

type rawEndpoints struct {
	EKS         value
	STS         value
	ACK         value
	AlicloudSTS value
}

// setting is a resolved configuration value and where it came from.
type setting struct {
	// Value is the value; empty when unset or unknown.
	Value string
	// Unknown is true when the configuration holds a value that is not known yet.
	Unknown bool
	// Env is the environment variable the value came from; empty when it came
	// from the configuration or is unset.
	Env string
	// Path is the attribute the setting belongs to.
	Path path.Path
	set  bool
}

// IsSet reports whether the setting has a value, known or not.
func (s setting) IsSet() bool { return s.set }

// Known reports whether the setting has a known value.
func (s setting) Known() bool { return s.set && !s.Unknown }

// name is how messages refer to the setting: the attribute path, and the
// environment variable when the value came from there.
func (s setting) name() string {
	if s.Env != "" {
		return fmt.Sprintf("%s (from %s)", s.Path, s.Env)
	}
	return s.Path.String()
}

// kubeMode is how the provider reaches the control cluster.
type kubeMode int

const (
	// kubeNone: no connection configured; resources that need the control
	// cluster report "Control cluster not configured".
	kubeNone kubeMode = iota
	// kubeKubeconfig: a kubeconfig file and optionally one of its contexts.
	kubeKubeconfig
	// kubeDirect: host, CA and a token or client certificate.
	kubeDirect
)

// kubeSettings is the resolved control cluster connection.
type kubeSettings struct {
	Mode                                              kubeMode
	ConfigPath, Context                               setting
	Host, CACert, Token, ClientCertificate, ClientKey setting
}

// awsSettings is the resolved aws block. Credentials are not settings: they
// come from the AWS SDK's default chain.
type awsSettings struct {
	Region, Profile setting
	AssumeRole      *assumeRoleSettings
	WebIdentity     *webIdentitySettings
}

// webIdentitySettings is the resolved assume_role_with_web_identity block.
// Exactly one of Token and TokenFile is set when there is no problem; Token is
// a secret: never log it or put it in a diagnostic.
type webIdentitySettings struct {
	RoleARN, SessionName, Token, TokenFile, Duration setting
	// DurationValue is Duration parsed; zero when unset (the SDK's 1 hour).
	DurationValue time.Duration
}

type assumeRoleSettings struct {
	RoleARN, SessionName, ExternalID setting
}

type alicloudSettings struct {
	Region, AccessKey, SecretKey setting
	// OIDC is the resolved assume_role_with_oidc block (nil: none).
	OIDC *aliOIDCSettings
}

type endpointSettings struct {
	EKS, STS, ACK, AlicloudSTS setting
}

// settings is the whole resolved provider configuration.
type settings struct {
	Kube      kubeSettings
	AWS       awsSettings
	Alicloud  alicloudSettings
	Endpoints endpointSettings
}

// problem is a configuration error found during resolution, reported as an
// attribute error diagnostic. Detail never contains secret values.
type problem struct {
	Path    path.Path
	Summary string
	Detail  string
}

// Attribute paths, shared by the schema, resolution and diagnostics.
var (
	pathKubeconfigPath    = path.Root("kubeconfig_path")
	pathKubeconfigContext = path.Root("kubeconfig_context")
	pathHost              = path.Root("host")
	pathCACert            = path.Root("cluster_ca_certificate")
	pathToken             = path.Root("token")
	pathClientCert        = path.Root("client_certificate")
	pathClientKey         = path.Root("client_key")
	pathAWSRegion         = path.Root("aws").AtName("region")
	pathAWSProfile        = path.Root("aws").AtName("profile")
	pathRoleARN           = path.Root("aws").AtName("assume_role").AtName("role_arn")
	pathSessionName       = path.Root("aws").AtName("assume_role").AtName("session_name")
	pathExternalID        = path.Root("aws").AtName("assume_role").AtName("external_id")
	pathWebIdentity       = path.Root("aws").AtName("assume_role_with_web_identity")
	pathWIRoleARN         = pathWebIdentity.AtName("role_arn")
	pathWISessionName     = pathWebIdentity.AtName("session_name")
	pathWIToken           = pathWebIdentity.AtName("web_identity_token")
	pathWITokenFile       = pathWebIdentity.AtName("web_identity_token_file")
	pathWIDuration        = pathWebIdentity.AtName("duration")
	pathAlicloudRegion    = path.Root("alicloud").AtName("region")
	pathAlicloudAccessKey = path.Root("alicloud").AtName("access_key")
	pathAlicloudSecretKey = path.Root("alicloud").AtName("secret_key")
	pathEndpointEKS       = path.Root("endpoints").AtName("eks")
	pathEndpointSTS       = path.Root("endpoints").AtName("sts")
	pathEndpointACK       = path.Root("endpoints").AtName("ack")
	pathEndpointAliSTS    = path.Root("endpoints").AtName("alicloud_sts")
)

var (
	roleARNPattern     = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}$`)
	sessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
	externalIDPattern  = regexp.MustCompile(`^[\w+=,.@:/-]+$`)
)

// resolve turns the configuration and the environment (getenv) into settings.
// It does no I/O: reading the kubeconfig file and loading the AWS shared
// configuration happen in newClients. Attributes that are null fall back to
// their environment variable; an empty environment variable counts as unset.
//
// The control cluster connection is chosen as a whole before the per-attribute
// fallbacks apply: when the configuration sets any kubeconfig attribute
// (kubeconfig_path, kubeconfig_context) or any direct attribute (host,
// cluster_ca_certificate, token, client_certificate, client_key), that kind of
// connection is used and the environment variables of the other kind are
// ignored; when it sets none, the environment variables choose the same way.
func resolve(cfg rawConfig, getenv func(string) string) (settings, []problem) {
	r := resolver{getenv: getenv}
	var s settings
	s.Kube = r.kube(cfg)

	var awsCfg rawAWS
	if cfg.AWS != nil {
		awsCfg = *cfg.AWS
	}
	s.AWS.Region = r.configOnly(pathAWSRegion, awsCfg.Region)
	s.AWS.Profile = r.configOnly(pathAWSProfile, awsCfg.Profile)
	if ar := awsCfg.AssumeRole; ar != nil {
		s.AWS.AssumeRole = &assumeRoleSettings{
			RoleARN:     r.configOnly(pathRoleARN, ar.RoleARN),
			SessionName: r.configOnly(pathSessionName, ar.SessionName),
			ExternalID:  r.configOnly(pathExternalID, ar.ExternalID),
		}
		r.aws(s.AWS.AssumeRole)
	}
	if wi := awsCfg.WebIdentity; wi != nil {
		s.AWS.WebIdentity = r.webIdentity(wi)
	}

	var ali rawAlicloud
	if cfg.Alicloud != nil {
		ali = *cfg.Alicloud
	}
	s.Alicloud = alicloudSettings{
		Region:    r.fallback(pathAlicloudRegion, ali.Region, EnvAlicloudRegion),
		AccessKey: r.fallback(pathAlicloudAccessKey, ali.AccessKey, EnvAlicloudAccessKey),
		SecretKey: r.fallback(pathAlicloudSecretKey, ali.SecretKey, EnvAlicloudSecretKey),
	}
	if ali.OIDC != nil {
		s.Alicloud.OIDC = r.aliOIDC(ali.OIDC, s.Alicloud)
	} else {
		r.alicloud(s.Alicloud)
	}

	var ep rawEndpoints
	if cfg.Endpoints != nil {
		ep = *cfg.Endpoints
	}
	s.Endpoints = endpointSettings{
		EKS:         r.configOnly(pathEndpointEKS, ep.EKS),
		STS:         r.configOnly(pathEndpointSTS, ep.STS),
		ACK:         r.configOnly(pathEndpointACK, ep.ACK),
		AlicloudSTS: r.configOnly(pathEndpointAliSTS, ep.AlicloudSTS),
	}
	r.aliSTSEndpoint(s.Endpoints.AlicloudSTS)
	r.endpoint(s.Endpoints.EKS, "https://eks.us-east-1.amazonaws.com")
	r.endpoint(s.Endpoints.STS, "https://sts.us-east-1.amazonaws.com")
	r.endpoint(s.Endpoints.ACK, "https://cs.cn-hangzhou.aliyuncs.com")
	return s, r.problems
}

type resolver struct {
	getenv   func(string) string
	problems []problem
}

func (r *resolver) add(p path.Path, summary, detail string) {
	r.problems = append(r.problems, problem{Path: p, Summary: summary, Detail: detail})
}

// fallback resolves an attribute that falls back to env when null. A known
// empty string in the configuration is a problem: it is almost always a
// variable that was not filled in, and it would silently disable the fallback.
func (r *resolver) fallback(p path.Path, v value, env string) setting {
	if v.Set {
		s := setting{Path: p, set: true, Unknown: v.Unknown, Value: v.Str}
		if !v.Unknown && v.Str == "" {
			r.add(p, "Invalid "+p.String(),
				fmt.Sprintf("%s is set to an empty string. Set a value, or remove the attribute (or set it to null) to use the %s environment variable.", p, env))
			s.set = false
		}
		return s
	}
	if e := r.getenv(env); e != "" {
		return setting{Path: p, Env: env, Value: e, set: true}
	}
	return setting{Path: p}
}

// configOnly resolves an attribute without an environment fallback of ours
// (the AWS SDK has its own for region, profile and endpoints).
func (r *resolver) configOnly(p path.Path, v value) setting {
	if !v.Set {
		return setting{Path: p}
	}
	s := setting{Path: p, set: true, Unknown: v.Unknown, Value: v.Str}
	if !v.Unknown && v.Str == "" {
		r.add(p, "Invalid "+p.String(),
			fmt.Sprintf("%s is set to an empty string. Set a value, or remove the attribute (or set it to null).", p))
		s.set = false
	}
	return s
}

func (r *resolver) kube(cfg rawConfig) kubeSettings {
	kubeAttrs := []struct {
		p path.Path
		v value
	}{{pathKubeconfigPath, cfg.KubeconfigPath}, {pathKubeconfigContext, cfg.KubeconfigContext}}
	directAttrs := []struct {
		p path.Path
		v value
	}{{pathHost, cfg.Host}, {pathCACert, cfg.ClusterCACertificate}, {pathToken, cfg.Token}, {pathClientCert, cfg.ClientCertificate}, {pathClientKey, cfg.ClientKey}}

	var configKube, configDirect []path.Path
	for _, a := range kubeAttrs {
		if a.v.Set {
			configKube = append(configKube, a.p)
		}
	}
	for _, a := range directAttrs {
		if a.v.Set {
			configDirect = append(configDirect, a.p)
		}
	}

	mode := kubeNone
	switch {
	case len(configKube) > 0 && len(configDirect) > 0:
		r.add(configDirect[0], "Conflicting connection settings",
			fmt.Sprintf("%s and %s are both set. Connect to the control cluster either through a kubeconfig file (kubeconfig_path, kubeconfig_context) or directly (host, cluster_ca_certificate, and token or client_certificate + client_key), not both: remove %s or %s.",
				configKube[0], configDirect[0], joinPaths(configKube), joinPaths(configDirect)))
		return kubeSettings{}
	case len(configKube) > 0:
		mode = kubeKubeconfig
	case len(configDirect) > 0:
		mode = kubeDirect
	default:
		var envKube, envDirect []string
		for _, e := range []string{EnvKubeConfigPath, EnvKubeContext} {
			if r.getenv(e) != "" {
				envKube = append(envKube, e)
			}
		}
		for _, e := range []string{EnvKubeHost, EnvKubeCACert, EnvKubeToken, EnvKubeClientCert, EnvKubeClientKey} {
			if r.getenv(e) != "" {
				envDirect = append(envDirect, e)
			}
		}
		switch {
		case len(envKube) > 0 && len(envDirect) > 0:
			r.add(pathKubeconfigPath, "Conflicting connection settings",
				fmt.Sprintf("The environment variables %s and %s are both set and the configuration sets no connection attribute. Unset %s or %s, or choose the connection in the provider block (a connection attribute set there makes the provider ignore the other kind's environment variables).",
					envKube[0], envDirect[0], strings.Join(envKube, ", "), strings.Join(envDirect, ", ")))
			return kubeSettings{}
		case len(envKube) > 0:
			mode = kubeKubeconfig
		case len(envDirect) > 0:
			mode = kubeDirect
		default:
			return kubeSettings{Mode: kubeNone}
		}
	}

	k := kubeSettings{Mode: mode}
	switch mode {
	case kubeKubeconfig:
		k.ConfigPath = r.fallback(pathKubeconfigPath, cfg.KubeconfigPath, EnvKubeConfigPath)
		k.Context = r.fallback(pathKubeconfigContext, cfg.KubeconfigContext, EnvKubeContext)
		if !k.ConfigPath.IsSet() && k.Context.IsSet() && !cfg.KubeconfigPath.Set {
			r.add(pathKubeconfigPath, "Missing kubeconfig_path",
				fmt.Sprintf("%s is set but no kubeconfig file is given. Set kubeconfig_path (or the %s environment variable) to the kubeconfig file that holds that context.", k.Context.name(), EnvKubeConfigPath))
		}
	case kubeDirect:
		k.Host = r.fallback(pathHost, cfg.Host, EnvKubeHost)
		k.CACert = r.fallback(pathCACert, cfg.ClusterCACertificate, EnvKubeCACert)
		k.Token = r.fallback(pathToken, cfg.Token, EnvKubeToken)
		k.ClientCertificate = r.fallback(pathClientCert, cfg.ClientCertificate, EnvKubeClientCert)
		k.ClientKey = r.fallback(pathClientKey, cfg.ClientKey, EnvKubeClientKey)
		r.direct(k, cfg)
	}
	return k
}

// direct checks a direct connection: host, CA, and exactly one credential.
func (r *resolver) direct(k kubeSettings, cfg rawConfig) {
	if other := firstSet(k.CACert, k.Token, k.ClientCertificate, k.ClientKey); other.IsSet() && !k.Host.IsSet() && !cfg.Host.Set {
		r.add(pathHost, "Missing host",
			fmt.Sprintf("%s is set but the API server address is not. Set host (or the %s environment variable) to the control cluster's API server URL, such as \"https://127.0.0.1:6443\".", other.name(), EnvKubeHost))
	}
	if k.Host.Known() {
		if msg := checkURL(k.Host.Value, "https://127.0.0.1:6443"); msg != "" {
			r.add(pathHost, "Invalid host", fmt.Sprintf("%s %s", k.Host.name(), msg))
		}
	}
	if k.CACert.Known() {
		if msg := checkCertificatePEM(k.CACert.Value); msg != "" {
			r.add(pathCACert, "Invalid cluster_ca_certificate", fmt.Sprintf("%s %s", k.CACert.name(), msg))
		}
	}

	switch {
	case k.Token.IsSet() && (k.ClientCertificate.IsSet() || k.ClientKey.IsSet()):
		other := firstSet(k.ClientCertificate, k.ClientKey)
		r.add(pathToken, "Conflicting credentials",
			fmt.Sprintf("%s and %s are both set. Authenticate to the control cluster with either a bearer token or a client certificate and key, not both: remove token, or remove client_certificate and client_key.", k.Token.name(), other.name()))
		return
	case k.ClientCertificate.IsSet() && !k.ClientKey.IsSet():
		r.add(pathClientKey, "Missing client_key",
			fmt.Sprintf("%s is set but client_key is not. Set client_key (or the %s environment variable) to the PEM-encoded private key of that certificate.", k.ClientCertificate.name(), EnvKubeClientKey))
		return
	case k.ClientKey.IsSet() && !k.ClientCertificate.IsSet():
		r.add(pathClientCert, "Missing client_certificate",
			fmt.Sprintf("%s is set but client_certificate is not. Set client_certificate (or the %s environment variable) to the PEM-encoded certificate of that key.", k.ClientKey.name(), EnvKubeClientCert))
		return
	case !k.Token.IsSet() && !k.ClientCertificate.IsSet() && k.Host.IsSet():
		r.add(pathToken, "Missing credentials",
			fmt.Sprintf("%s is set but no credential is. Set token (or %s), or client_certificate and client_key (or %s and %s).", k.Host.name(), EnvKubeToken, EnvKubeClientCert, EnvKubeClientKey))
		return
	}

	if k.Token.Known() && strings.ContainsAny(k.Token.Value, " \t\r\n") {
		r.add(pathToken, "Invalid token",
			fmt.Sprintf("%s contains whitespace or a line break, which cannot be sent in an HTTP header. Remove it, for example with trimspace().", k.Token.name()))
	}
	if k.ClientCertificate.Known() {
		if msg := checkCertificatePEM(k.ClientCertificate.Value); msg != "" {
			r.add(pathClientCert, "Invalid client_certificate", fmt.Sprintf("%s %s", k.ClientCertificate.name(), msg))
			return
		}
	}
	if k.ClientKey.Known() {
		if msg := checkPrivateKeyPEM(k.ClientKey.Value); msg != "" {
			r.add(pathClientKey, "Invalid client_key", fmt.Sprintf("%s %s", k.ClientKey.name(), msg))
			return
		}
	}
	if k.ClientCertificate.Known() && k.ClientKey.Known() {
		if _, err := tls.X509KeyPair([]byte(k.ClientCertificate.Value), []byte(k.ClientKey.Value)); err != nil {
			r.add(pathClientKey, "Invalid client_key",
				fmt.Sprintf("%s is not the private key of %s: set the key that belongs to that certificate.", k.ClientKey.name(), k.ClientCertificate.name()))
		}
	}
}

func (r *resolver) aws(ar *assumeRoleSettings) {
	if !ar.RoleARN.IsSet() && !ar.RoleARN.Unknown {
		r.add(pathRoleARN, "Missing aws.assume_role.role_arn",
			"The aws.assume_role block is present but role_arn is not set. Set role_arn to the ARN of the IAM role to assume, or remove the assume_role block.")
	}
	if ar.RoleARN.Known() && !roleARNPattern.MatchString(ar.RoleARN.Value) {
		r.add(pathRoleARN, "Invalid aws.assume_role.role_arn",
			fmt.Sprintf("aws.assume_role.role_arn must be an IAM role ARN such as \"arn:aws:iam::123456789012:role/hca\"; got %q.", ar.RoleARN.Value))
	}
	if ar.SessionName.Known() && !sessionNamePattern.MatchString(ar.SessionName.Value) {
		r.add(pathSessionName, "Invalid aws.assume_role.session_name",
			fmt.Sprintf("aws.assume_role.session_name must be 2 to 64 characters of letters, digits and +=,.@_-; got %q.", ar.SessionName.Value))
	}
	if v := ar.ExternalID.Value; ar.ExternalID.Known() && (len(v) < 2 || len(v) > 1224 || !externalIDPattern.MatchString(v)) {
		r.add(pathExternalID, "Invalid aws.assume_role.external_id",
			"aws.assume_role.external_id must be 2 to 1224 characters of letters, digits and +=,.@:/_-.")
	}
}

// Limits of AssumeRoleWithWebIdentity's DurationSeconds and WebIdentityToken.
const (
	minWebIdentityDuration = 15 * time.Minute
	maxWebIdentityDuration = 12 * time.Hour
	maxWebIdentityToken    = 20000
)

// webIdentity resolves assume_role_with_web_identity: the role (or
// AWS_ROLE_ARN), the session name (or AWS_ROLE_SESSION_NAME), and one token
// source: web_identity_token, web_identity_token_file, then the
// TFC_WORKLOAD_IDENTITY_TOKEN and AWS_WEB_IDENTITY_TOKEN_FILE variables.
// Messages never quote the token.
// tokenSource is where a role-assuming block may take its OIDC token from:
// the token attribute, the file attribute, or (neither set) the
// environment's TFC_WORKLOAD_IDENTITY_TOKEN, then fileEnv.
type tokenSource struct {
	block, kind         string // "aws.assume_role_with_web_identity", "web identity"
	token, file         value
	tokenPath, filePath path.Path
	fileEnv             string
}

// tokenSource resolves the token or the token file of src; setting both, or
// neither with nothing in the environment, is an error naming the block.
func (r *resolver) tokenSource(src tokenSource) (token, file setting) {
	tokenAttr, fileAttr := attrName(src.tokenPath), attrName(src.filePath)
	switch {
	case src.token.Set && src.file.Set:
		r.add(src.tokenPath, "Conflicting "+src.block+" token sources",
			fmt.Sprintf("%s.%s and %s are both set. Set one of them: the token itself, or the path of a file that holds it.", src.block, tokenAttr, fileAttr))
	case src.token.Set:
		token = r.configOnly(src.tokenPath, src.token)
	case src.file.Set:
		file = r.configOnly(src.filePath, src.file)
	default:
		if v := r.getenv(EnvTFCWorkloadIdentityToken); v != "" {
			token = setting{Path: src.tokenPath, Env: EnvTFCWorkloadIdentityToken, Value: v, set: true}
		} else if v := r.getenv(src.fileEnv); v != "" {
			file = setting{Path: src.filePath, Env: src.fileEnv, Value: v, set: true}
		} else {
			r.add(src.tokenPath, "Missing "+src.kind+" token",
				fmt.Sprintf("The %s block is present but no token is given. Set %s or %s, or run where %s (HCP Terraform sets it when the workspace sets TFC_WORKLOAD_IDENTITY_AUDIENCE) or %s is set.",
					src.block, tokenAttr, fileAttr, EnvTFCWorkloadIdentityToken, src.fileEnv))
		}
	}
	return token, file
}

// attrName is the last step of p, an attribute name.
func attrName(p path.Path) string {
	last, _ := p.Steps().LastStep()
	if n, ok := last.(path.PathStepAttributeName); ok {
		return string(n)
	}
	return p.String()
}

func (r *resolver) webIdentity(wi *rawWebIdentity) *webIdentitySettings {
	s := &webIdentitySettings{
		RoleARN:     r.fallback(pathWIRoleARN, wi.RoleARN, EnvAWSRoleARN),
		SessionName: r.fallback(pathWISessionName, wi.SessionName, EnvAWSRoleSessionName),
		Duration:    r.configOnly(pathWIDuration, wi.Duration),
	}
	s.Token, s.TokenFile = r.tokenSource(tokenSource{block: "aws.assume_role_with_web_identity", kind: "web identity",
		token: wi.WebIdentityToken, file: wi.WebIdentityTokenFile, tokenPath: pathWIToken, filePath: pathWITokenFile, fileEnv: EnvAWSWebIdentityTokenFile})

	if !s.RoleARN.IsSet() && !wi.RoleARN.Set {
		r.add(pathWIRoleARN, "Missing aws.assume_role_with_web_identity.role_arn",
			fmt.Sprintf("The aws.assume_role_with_web_identity block is present but role_arn is not set. Set role_arn (or the %s environment variable) to the ARN of the IAM role that trusts the token's issuer.", EnvAWSRoleARN))
	}
	if s.RoleARN.Known() && !roleARNPattern.MatchString(s.RoleARN.Value) {
		r.add(pathWIRoleARN, "Invalid aws.assume_role_with_web_identity.role_arn",
			fmt.Sprintf("%s must be an IAM role ARN such as \"arn:aws:iam::123456789012:role/hca\"; got %q.", s.RoleARN.name(), s.RoleARN.Value))
	}
	if s.SessionName.Known() && !sessionNamePattern.MatchString(s.SessionName.Value) {
		r.add(pathWISessionName, "Invalid aws.assume_role_with_web_identity.session_name",
			fmt.Sprintf("%s must be 2 to 64 characters of letters, digits and +=,.@_-; got %q.", s.SessionName.name(), s.SessionName.Value))
	}
	if t := s.Token; t.Known() {
		if len(t.Value) < 4 || len(t.Value) > maxWebIdentityToken || strings.ContainsAny(t.Value, " \t\r\n") || strings.Count(t.Value, ".") != 2 {
			r.add(pathWIToken, "Invalid web identity token",
				fmt.Sprintf("%s must be a JSON Web Token (three base64url parts separated by dots, 4 to %d characters, no whitespace or line break): pass the token itself, trimmed (for example with trimspace()), not a file path (use web_identity_token_file for that).", t.name(), maxWebIdentityToken))
		}
	}
	if d := s.Duration; d.Known() {
		v, err := time.ParseDuration(d.Value)
		switch {
		case err != nil:
			r.add(pathWIDuration, "Invalid aws.assume_role_with_web_identity.duration",
				fmt.Sprintf("aws.assume_role_with_web_identity.duration must be a duration such as \"1h\" or \"90m\"; got %q.", d.Value))
		case v < minWebIdentityDuration || v > maxWebIdentityDuration:
			r.add(pathWIDuration, "Invalid aws.assume_role_with_web_identity.duration",
				fmt.Sprintf("aws.assume_role_with_web_identity.duration must be between 15m and 12h (STS's limits); got %q.", d.Value))
		default:
			s.DurationValue = v
		}
	}
	return s
}

func (r *resolver) alicloud(a alicloudSettings) {
	switch {
	case a.AccessKey.IsSet() && !a.SecretKey.IsSet():
		r.add(pathAlicloudSecretKey, "Missing alicloud.secret_key",
			fmt.Sprintf("%s is set but alicloud.secret_key is not. Set alicloud.secret_key (or the %s environment variable) to the AccessKey secret of that AccessKey ID.", a.AccessKey.name(), EnvAlicloudSecretKey))
	case a.SecretKey.IsSet() && !a.AccessKey.IsSet():
		r.add(pathAlicloudAccessKey, "Missing alicloud.access_key",
			fmt.Sprintf("%s is set but alicloud.access_key is not. Set alicloud.access_key (or the %s environment variable) to the AccessKey ID of that secret.", a.SecretKey.name(), EnvAlicloudAccessKey))
	}
}

func (r *resolver) endpoint(e setting, example string) {
	if !e.Known() {
		return
	}
	if msg := checkURL(e.Value, example); msg != "" {
		r.add(e.Path, "Invalid "+e.Path.String(), fmt.Sprintf("%s %s", e.Path, msg))
	}
}

// checkURL returns why s is not an absolute http(s) URL, or "". The value is
// quoted only without its user information, which could hold a password.
func checkURL(s, example string) string {
	u, err := url.Parse(s)
	if err != nil {
		if strings.Contains(s, "@") {
			return fmt.Sprintf("must be an absolute http:// or https:// URL such as %q; the value does not parse as a URL.", example)
		}
		return fmt.Sprintf("must be an absolute http:// or https:// URL such as %q; got %q.", example, s)
	}
	if u.User != nil {
		return fmt.Sprintf("must not contain user information (user:password@); use a URL such as %q.", example)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Sprintf("must be an absolute http:// or https:// URL such as %q; got %q.", example, s)
	}
	return ""
}

// checkCertificatePEM returns why s is not PEM certificate data, or "".
func checkCertificatePEM(s string) string {
	rest := []byte(s)
	found := false
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return "holds a CERTIFICATE block that does not parse as an X.509 certificate: set the PEM data of a valid certificate."
		}
		found = true
	}
	if !found {
		return "must be PEM-encoded certificate data (\"-----BEGIN CERTIFICATE-----\"), not a file path or base64 text: use file(\"ca.crt\") or base64decode(...) to pass the PEM itself."
	}
	return ""
}

// checkPrivateKeyPEM returns why s is not a PEM private key, or "". It never
// quotes the value.
func checkPrivateKeyPEM(s string) string {
	b, _ := pem.Decode([]byte(s))
	if b == nil || !strings.HasSuffix(b.Type, "PRIVATE KEY") {
		return "must be a PEM-encoded private key (\"-----BEGIN ... PRIVATE KEY-----\"), not a file path or base64 text: use file(\"client.key\") or base64decode(...) to pass the PEM itself."
	}
	return ""
}

func firstSet(ss ...setting) setting {
	for _, s := range ss {
		if s.IsSet() {
			return s
		}
	}
	return setting{}
}

func joinPaths(ps []path.Path) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	return strings.Join(names, ", ")
}
