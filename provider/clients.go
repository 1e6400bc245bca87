package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Clients is what the provider hands to its data sources, resources and
// ephemeral resources: the resolved connection to the control cluster and the
// cloud settings. It holds configurations, not connections; each resource
// builds the clients it needs from them.
type Clients struct {
	// Kube is the REST config of the control cluster, or nil when the provider
	// configuration gives no connection (use ControlCluster, which says so).
	Kube *rest.Config
	// AWS is the AWS SDK configuration: region, and credentials from the SDK's
	// default chain (environment, shared files, web identity, IMDS), wrapped in
	// an assumed role when aws.assume_role is set.
	AWS aws.Config
	// Endpoints overrides service endpoints; empty fields use the SDK defaults.
	Endpoints Endpoints
	// Alicloud is the Alibaba Cloud region and AccessKey pair.
	Alicloud AlicloudConfig

	// awsErr is why the AWS configuration could not be loaded when the
	// configuration had no aws block (so AWS is not needed by everyone).
	awsErr error
}

// Endpoints are custom service URLs (emulators, VPC endpoints, other partitions).
type Endpoints struct {
	EKS string
	STS string
	ACK string
	// AlicloudSTS is Alibaba Cloud STS's https:// URL, for AssumeRoleWithOIDC.
	AlicloudSTS string
}

// AlicloudConfig is the resolved alicloud block. AccessKey and SecretKey are
// secrets: never log or print them.
type AlicloudConfig struct {
	Region    string
	AccessKey string
	SecretKey string
	// SecurityToken is set with temporary credentials (AccessKey "STS.*")
	// from alicloud.assume_role_with_oidc.
	SecurityToken string
}

// ErrControlClusterNotConfigured is returned by ControlCluster when the
// provider configuration has no control cluster connection.
var ErrControlClusterNotConfigured = errors.New("control cluster not configured")

// ControlClusterNotConfiguredDetail is the diagnostic detail that tells the user
// how to configure the control cluster connection.
const ControlClusterNotConfiguredDetail = `The hca provider has no connection to the control cluster. In the provider "hca" block, set kubeconfig_path (and optionally kubeconfig_context), or host with cluster_ca_certificate and either token or client_certificate + client_key; or set the matching environment variables (KUBE_CONFIG_PATH, KUBE_CTX, KUBE_HOST, KUBE_CLUSTER_CA_CERT_DATA, KUBE_TOKEN, KUBE_CLIENT_CERT_DATA, KUBE_CLIENT_KEY_DATA).`

// ControlCluster returns a copy of the control cluster's REST config, or
// ErrControlClusterNotConfigured.
func (c *Clients) ControlCluster() (*rest.Config, error) {
	if c == nil || c.Kube == nil {
		return nil, ErrControlClusterNotConfigured
	}
	return rest.CopyConfig(c.Kube), nil
}

// AWSConfig returns the AWS SDK configuration, or why it could not be loaded.
func (c *Clients) AWSConfig() (aws.Config, error) {
	if c.awsErr != nil {
		return aws.Config{}, c.awsErr
	}
	return c.AWS.Copy(), nil
}

// EKS returns an EKS client that uses endpoints.eks when it is set.
func (c *Clients) EKS() (*eks.Client, error) {
	cfg, err := c.AWSConfig()
	if err != nil {
		return nil, err
	}
	return eks.NewFromConfig(cfg, func(o *eks.Options) {
		if c.Endpoints.EKS != "" {
			o.BaseEndpoint = aws.String(c.Endpoints.EKS)
		}
	}), nil
}

// STS returns an STS client that uses endpoints.sts when it is set.
func (c *Clients) STS() (*sts.Client, error) {
	cfg, err := c.AWSConfig()
	if err != nil {
		return nil, err
	}
	return newSTSClient(cfg, c.Endpoints.STS), nil
}

func newSTSClient(cfg aws.Config, endpoint string) *sts.Client {
	return sts.NewFromConfig(cfg, func(o *sts.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
}

// clientsFromProviderData is the Configure step of every data source and
// resource: it returns nil (and no error) before the provider is configured.
func clientsFromProviderData(data any) (*Clients, diag.Diagnostics) {
	var diags diag.Diagnostics
	if data == nil {
		return nil, diags
	}
	c, ok := data.(*Clients)
	if !ok {
		diags.AddError("Unexpected provider data type",
			fmt.Sprintf("Expected *provider.Clients, got %T. This is a bug in the provider; please report it.", data))
		return nil, diags
	}
	return c, diags
}

// newClients does the I/O that turns settings without problems into Clients:
// it reads the kubeconfig and loads the AWS shared configuration. Problems are
// reported like resolution problems; other errors are returned.
func newClients(ctx context.Context, s settings, awsBlock bool, version string) (*Clients, []problem, error) {
	c := &Clients{
		Endpoints: Endpoints{EKS: s.Endpoints.EKS.Value, STS: s.Endpoints.STS.Value, ACK: s.Endpoints.ACK.Value, AlicloudSTS: s.Endpoints.AlicloudSTS.Value},
		Alicloud: AlicloudConfig{
			Region:    s.Alicloud.Region.Value,
			AccessKey: s.Alicloud.AccessKey.Value,
			SecretKey: s.Alicloud.SecretKey.Value,
		},
	}

	kube, probs := restConfig(s.Kube)
	if len(probs) > 0 {
		return nil, probs, nil
	}
	if kube != nil {
		kube.UserAgent = "terraform-provider-hca/" + version
	}
	c.Kube = kube

	if o := s.Alicloud.OIDC; o != nil {
		// The pair comes from the token exchange (Configure), never from
		// the ALICLOUD_* variables the block overrides.
		c.Alicloud.AccessKey, c.Alicloud.SecretKey = "", ""
		if o.TokenFile.Known() {
			if f, err := os.Open(expandHome(o.TokenFile.Value)); err != nil {
				return nil, []problem{{Path: pathAliOIDCTokenFile, Summary: "Invalid oidc_token_file",
					Detail: fmt.Sprintf("%s %q cannot be read: %v. Set it to the path of a readable file that holds the OpenID Connect token.", o.TokenFile.name(), o.TokenFile.Value, unwrapPathError(err))}}, nil
			} else {
				_ = f.Close()
			}
		}
	}
	if wi := s.AWS.WebIdentity; wi != nil && wi.TokenFile.Known() {
		if f, err := os.Open(expandHome(wi.TokenFile.Value)); err != nil {
			return nil, []problem{{Path: pathWITokenFile, Summary: "Invalid web_identity_token_file",
				Detail: fmt.Sprintf("%s %q cannot be read: %v. Set it to the path of a readable file that holds the OpenID Connect token.", wi.TokenFile.name(), wi.TokenFile.Value, unwrapPathError(err))}}, nil
		} else {
			_ = f.Close()
		}
	}

	awsCfg, err := loadAWSConfig(ctx, s.AWS, s.Endpoints.STS.Value, version)
	if err != nil {
		if awsBlock {
			return nil, nil, err
		}
		c.awsErr = err
	}
	c.AWS = awsCfg
	return c, nil, nil
}

// restConfig builds the control cluster's REST config; nil for kubeNone.
func restConfig(k kubeSettings) (*rest.Config, []problem) {
	switch k.Mode {
	case kubeKubeconfig:
		return loadKubeconfig(k.ConfigPath, k.Context)
	case kubeDirect:
		return &rest.Config{
			Host:        k.Host.Value,
			BearerToken: k.Token.Value,
			TLSClientConfig: rest.TLSClientConfig{
				CAData:   []byte(k.CACert.Value),
				CertData: []byte(k.ClientCertificate.Value),
				KeyData:  []byte(k.ClientKey.Value),
			},
		}, nil
	}
	return nil, nil
}

// loadKubeconfig reads the kubeconfig file and returns the REST config of the
// context (its current-context when the context is unset). Problems name the
// file and the context, never the file's content.
func loadKubeconfig(file, context setting) (*rest.Config, []problem) {
	fail := func(p setting, summary, detail string, args ...any) (*rest.Config, []problem) {
		return nil, []problem{{Path: p.Path, Summary: summary, Detail: fmt.Sprintf(detail, args...)}}
	}
	name := expandHome(file.Value)
	info, err := os.Stat(name)
	if err != nil {
		return fail(file, "Invalid kubeconfig_path", "%s %q cannot be read: %v. Set it to the path of a readable kubeconfig file.", file.name(), file.Value, unwrapPathError(err))
	}
	if info.IsDir() {
		return fail(file, "Invalid kubeconfig_path", "%s %q is a directory, not a kubeconfig file. Set it to the path of the kubeconfig file itself.", file.name(), file.Value)
	}
	if f, err := os.Open(name); err != nil {
		return fail(file, "Invalid kubeconfig_path", "%s %q cannot be read: %v. Set it to the path of a readable kubeconfig file.", file.name(), file.Value, unwrapPathError(err))
	} else {
		_ = f.Close()
	}
	cfg, err := clientcmd.LoadFromFile(name)
	if err != nil || (len(cfg.Clusters) == 0 && len(cfg.Contexts) == 0) {
		// The decoder's message can quote the file's content, which may hold
		// credentials: it is not repeated.
		return fail(file, "Invalid kubeconfig_path", "%s %q is not a kubeconfig: it does not parse as YAML or JSON with \"apiVersion: v1\", \"kind: Config\" and at least one cluster and context. Check it with `kubectl config view --kubeconfig %s`.", file.name(), file.Value, file.Value)
	}
	contexts := make([]string, 0, len(cfg.Contexts))
	for n := range cfg.Contexts {
		contexts = append(contexts, n)
	}
	sort.Strings(contexts)
	ctxName := context.Value
	switch {
	case context.IsSet():
		if _, ok := cfg.Contexts[ctxName]; !ok {
			return fail(context, "Invalid kubeconfig_context", "%s %q is not a context of the kubeconfig %q. Set it to one of: %s.", context.name(), ctxName, file.Value, quoteList(contexts))
		}
	case cfg.CurrentContext == "":
		return fail(context, "Missing kubeconfig_context", "The kubeconfig %q has no current-context. Set kubeconfig_context (or the %s environment variable) to one of: %s.", file.Value, EnvKubeContext, quoteList(contexts))
	default:
		ctxName = cfg.CurrentContext
		if _, ok := cfg.Contexts[ctxName]; !ok {
			return fail(file, "Invalid kubeconfig_path", "The current-context %q of the kubeconfig %q is not one of its contexts. Set kubeconfig_context to one of: %s.", ctxName, file.Value, quoteList(contexts))
		}
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, ctxName, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		p := file
		if context.IsSet() {
			p = context
		}
		return fail(p, "Invalid "+p.Path.String(), "The context %q of the kubeconfig %q cannot be used: %v. Fix that context (its cluster and user entries) or choose another one with kubeconfig_context.", ctxName, file.Value, err)
	}
	return rc, nil
}

// loadAWSConfig loads the AWS SDK default configuration (environment, shared
// files, web identity, IMDS) with the aws block's region and profile, replaces
// the credentials with the web identity role's when
// assume_role_with_web_identity is set, and wraps them in an assumed role when
// assume_role is set.
func loadAWSConfig(ctx context.Context, s awsSettings, stsEndpoint, version string) (aws.Config, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if s.Region.Known() {
		opts = append(opts, awsconfig.WithRegion(s.Region.Value))
	}
	if s.Profile.Known() {
		opts = append(opts, awsconfig.WithSharedConfigProfile(s.Profile.Value))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load aws configuration: %w", err)
	}
	cfg.APIOptions = append(cfg.APIOptions, awsmiddleware.AddUserAgentKeyValue("terraform-provider-hca", version))
	if wi := s.WebIdentity; wi != nil {
		cfg.Credentials = aws.NewCredentialsCache(webIdentityProvider(newSTSClient(cfg, stsEndpoint), wi))
	}
	if ar := s.AssumeRole; ar != nil {
		session := ar.SessionName.Value
		if session == "" {
			session = defaultAWSSessionName
		}
		provider := stscreds.NewAssumeRoleProvider(newSTSClient(cfg, stsEndpoint), ar.RoleARN.Value, func(o *stscreds.AssumeRoleOptions) {
			o.RoleSessionName = session
			if ar.ExternalID.Known() {
				o.ExternalID = aws.String(ar.ExternalID.Value)
			}
		})
		cfg.Credentials = aws.NewCredentialsCache(provider)
	}
	return cfg, nil
}

// webIdentityProvider is the SDK's web identity credentials provider for the
// resolved block. AssumeRoleWithWebIdentity is an unsigned call: the client's
// own credentials are not used.
func webIdentityProvider(client *sts.Client, wi *webIdentitySettings) *stscreds.WebIdentityRoleProvider {
	var token stscreds.IdentityTokenRetriever = stscreds.IdentityTokenFile(expandHome(wi.TokenFile.Value))
	if wi.Token.IsSet() {
		token = identityToken(wi.Token.Value)
	}
	session := wi.SessionName.Value
	if session == "" {
		session = defaultAWSSessionName
	}
	return stscreds.NewWebIdentityRoleProvider(client, wi.RoleARN.Value, token, func(o *stscreds.WebIdentityRoleOptions) {
		o.RoleSessionName = session
		o.Duration = wi.DurationValue
	})
}

// identityToken is a web identity token held in memory (a secret).
type identityToken string

// GetIdentityToken implements stscreds.IdentityTokenRetriever.
func (t identityToken) GetIdentityToken() ([]byte, error) { return []byte(t), nil }

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// unwrapPathError drops the *fs.PathError wrapper, whose text repeats the path.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func quoteList(ss []string) string {
	if len(ss) == 0 {
		return "(the file defines no contexts)"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
