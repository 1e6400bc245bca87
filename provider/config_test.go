package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
)

func known(s string) value { return value{Set: true, Str: s} }

var unknownValue = value{Set: true, Unknown: true}

// wantProblem is a problem expected from resolve: its attribute, its summary,
// and fragments its detail must contain.
type wantProblem struct {
	path    path.Path
	summary string
	detail  []string
}

func TestResolve(t *testing.T) {
	pki := newTestPKI(t)
	const token = "hca-secret-token-value"

	tests := []struct {
		name     string
		cfg      rawConfig
		env      map[string]string
		check    func(t *testing.T, s settings)
		problems []wantProblem
	}{
		{
			name: "nothing configured",
			check: func(t *testing.T, s settings) {
				if s.Kube.Mode != kubeNone {
					t.Errorf("mode = %v, want none", s.Kube.Mode)
				}
			},
		},
		{
			name: "kubeconfig_path from configuration",
			cfg:  rawConfig{KubeconfigPath: known("/etc/kube/config")},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Kube.ConfigPath, "/etc/kube/config", "")
				if s.Kube.Mode != kubeKubeconfig {
					t.Errorf("mode = %v, want kubeconfig", s.Kube.Mode)
				}
			},
		},
		{
			name: "kubeconfig_path and context from environment",
			env:  map[string]string{EnvKubeConfigPath: "/env/config", EnvKubeContext: "lab"},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Kube.ConfigPath, "/env/config", EnvKubeConfigPath)
				wantSetting(t, s.Kube.Context, "lab", EnvKubeContext)
			},
		},
		{
			name: "configuration takes precedence over environment",
			cfg:  rawConfig{KubeconfigPath: known("/cfg/config")},
			env:  map[string]string{EnvKubeConfigPath: "/env/config", EnvKubeContext: "env-ctx"},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Kube.ConfigPath, "/cfg/config", "")
				wantSetting(t, s.Kube.Context, "env-ctx", EnvKubeContext)
			},
		},
		{
			name: "kubeconfig_context in configuration, path from environment",
			cfg:  rawConfig{KubeconfigContext: known("cfg-ctx")},
			env:  map[string]string{EnvKubeConfigPath: "/env/config"},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Kube.ConfigPath, "/env/config", EnvKubeConfigPath)
				wantSetting(t, s.Kube.Context, "cfg-ctx", "")
			},
		},
		{
			name: "empty environment variable counts as unset",
			env:  map[string]string{EnvKubeConfigPath: ""},
			check: func(t *testing.T, s settings) {
				if s.Kube.Mode != kubeNone {
					t.Errorf("mode = %v, want none", s.Kube.Mode)
				}
			},
		},
		{
			name: "direct connection in configuration ignores kubeconfig environment",
			cfg:  rawConfig{Host: known("https://10.0.0.1:6443"), ClusterCACertificate: known(pki.CA)},
			env:  map[string]string{EnvKubeConfigPath: "/env/config", EnvKubeToken: token},
			check: func(t *testing.T, s settings) {
				if s.Kube.Mode != kubeDirect {
					t.Fatalf("mode = %v, want direct", s.Kube.Mode)
				}
				if s.Kube.ConfigPath.IsSet() {
					t.Errorf("kubeconfig_path = %q, want unset", s.Kube.ConfigPath.Value)
				}
				wantSetting(t, s.Kube.Host, "https://10.0.0.1:6443", "")
				wantSetting(t, s.Kube.Token, token, EnvKubeToken)
			},
		},
		{
			name: "kubeconfig in configuration ignores direct environment",
			cfg:  rawConfig{KubeconfigPath: known("/cfg/config")},
			env:  map[string]string{EnvKubeHost: "https://10.0.0.1", EnvKubeToken: token},
			check: func(t *testing.T, s settings) {
				if s.Kube.Host.IsSet() || s.Kube.Token.IsSet() {
					t.Errorf("host/token set from environment in kubeconfig mode")
				}
			},
		},
		{
			name: "direct connection entirely from environment",
			env: map[string]string{
				EnvKubeHost: "https://10.0.0.1:6443", EnvKubeCACert: pki.CA,
				EnvKubeClientCert: pki.ClientCert, EnvKubeClientKey: pki.ClientKey,
			},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Kube.Host, "https://10.0.0.1:6443", EnvKubeHost)
				wantSetting(t, s.Kube.CACert, pki.CA, EnvKubeCACert)
				wantSetting(t, s.Kube.ClientCertificate, pki.ClientCert, EnvKubeClientCert)
				wantSetting(t, s.Kube.ClientKey, pki.ClientKey, EnvKubeClientKey)
			},
		},
		{
			name: "kubeconfig_path and host both set",
			cfg:  rawConfig{KubeconfigPath: known("/cfg/config"), Host: known("https://10.0.0.1")},
			problems: []wantProblem{{pathHost, "Conflicting connection settings",
				[]string{"kubeconfig_path and host are both set", "remove kubeconfig_path or host"}}},
		},
		{
			name: "kubeconfig_context and token both set",
			cfg:  rawConfig{KubeconfigContext: known("lab"), Token: known(token)},
			problems: []wantProblem{{pathToken, "Conflicting connection settings",
				[]string{"kubeconfig_context and token are both set"}}},
		},
		{
			name: "kubeconfig and direct environment variables both set",
			env:  map[string]string{EnvKubeConfigPath: "/env/config", EnvKubeHost: "https://10.0.0.1"},
			problems: []wantProblem{{pathKubeconfigPath, "Conflicting connection settings",
				[]string{"KUBE_CONFIG_PATH and KUBE_HOST are both set"}}},
		},
		{
			name: "token with client certificate",
			cfg: rawConfig{Host: known("https://10.0.0.1"), Token: known(token),
				ClientCertificate: known(pki.ClientCert), ClientKey: known(pki.ClientKey)},
			problems: []wantProblem{{pathToken, "Conflicting credentials",
				[]string{"token and client_certificate are both set", "remove token, or remove client_certificate and client_key"}}},
		},
		{
			name: "token from environment with client certificate in configuration",
			cfg:  rawConfig{Host: known("https://10.0.0.1"), ClientCertificate: known(pki.ClientCert), ClientKey: known(pki.ClientKey)},
			env:  map[string]string{EnvKubeToken: token},
			problems: []wantProblem{{pathToken, "Conflicting credentials",
				[]string{"token (from KUBE_TOKEN) and client_certificate are both set"}}},
		},
		{
			name: "client_certificate without client_key",
			cfg:  rawConfig{Host: known("https://10.0.0.1"), ClientCertificate: known(pki.ClientCert)},
			problems: []wantProblem{{pathClientKey, "Missing client_key",
				[]string{"client_certificate is set but client_key is not", "KUBE_CLIENT_KEY_DATA"}}},
		},
		{
			name: "client_key without client_certificate",
			cfg:  rawConfig{Host: known("https://10.0.0.1"), ClientKey: known(pki.ClientKey)},
			problems: []wantProblem{{pathClientCert, "Missing client_certificate",
				[]string{"client_key is set but client_certificate is not"}}},
		},
		{
			name: "host without credentials",
			cfg:  rawConfig{Host: known("https://10.0.0.1"), ClusterCACertificate: known(pki.CA)},
			problems: []wantProblem{{pathToken, "Missing credentials",
				[]string{"host is set but no credential is", "KUBE_TOKEN"}}},
		},
		{
			name: "token without host",
			cfg:  rawConfig{Token: known(token)},
			problems: []wantProblem{{pathHost, "Missing host",
				[]string{"token is set but the API server address is not", "KUBE_HOST"}}},
		},
		{
			name: "host without scheme",
			cfg:  rawConfig{Host: known("127.0.0.1:6443"), Token: known(token)},
			problems: []wantProblem{{pathHost, "Invalid host",
				[]string{`host must be an absolute http:// or https:// URL`, `got "127.0.0.1:6443"`}}},
		},
		{
			name: "host with another scheme from environment",
			env:  map[string]string{EnvKubeHost: "ftp://10.0.0.1", EnvKubeToken: token},
			problems: []wantProblem{{pathHost, "Invalid host",
				[]string{`host (from KUBE_HOST) must be an absolute`, `got "ftp://10.0.0.1"`}}},
		},
		{
			name: "host with a password is not echoed",
			cfg:  rawConfig{Host: known("https://admin:hunter2@10.0.0.1"), Token: known(token)},
			problems: []wantProblem{{pathHost, "Invalid host",
				[]string{"must not contain user information"}}},
		},
		{
			name: "CA that is a path, not PEM",
			cfg:  rawConfig{Host: known("https://10.0.0.1"), ClusterCACertificate: known("/etc/kube/ca.crt"), Token: known(token)},
			problems: []wantProblem{{pathCACert, "Invalid cluster_ca_certificate",
				[]string{"must be PEM-encoded certificate data", "file(\"ca.crt\")"}}},
		},
		{
			name: "client key of another certificate",
			cfg: rawConfig{Host: known("https://10.0.0.1"), ClientCertificate: known(pki.ClientCert),
				ClientKey: known(pki.OtherKey)},
			problems: []wantProblem{{pathClientKey, "Invalid client_key",
				[]string{"client_key is not the private key of client_certificate"}}},
		},
		{
			name: "client key that is not PEM",
			cfg: rawConfig{Host: known("https://10.0.0.1"), ClientCertificate: known(pki.ClientCert),
				ClientKey: known("c2VjcmV0LWtleS1ieXRlcw==")},
			problems: []wantProblem{{pathClientKey, "Invalid client_key",
				[]string{"must be a PEM-encoded private key"}}},
		},
		{
			name: "token with a trailing newline",
			cfg:  rawConfig{Host: known("https://10.0.0.1"), Token: known(token + "\n")},
			problems: []wantProblem{{pathToken, "Invalid token",
				[]string{"contains whitespace or a line break", "trimspace()"}}},
		},
		{
			name: "empty kubeconfig_path",
			cfg:  rawConfig{KubeconfigPath: known("")},
			problems: []wantProblem{{pathKubeconfigPath, "Invalid kubeconfig_path",
				[]string{"set to an empty string", "KUBE_CONFIG_PATH"}}},
		},
		{
			name: "kubeconfig_context without a kubeconfig file",
			cfg:  rawConfig{KubeconfigContext: known("lab")},
			problems: []wantProblem{{pathKubeconfigPath, "Missing kubeconfig_path",
				[]string{"kubeconfig_context is set but no kubeconfig file is given"}}},
		},
		{
			name: "unknown values are not validated",
			cfg:  rawConfig{Host: unknownValue, ClusterCACertificate: unknownValue, Token: unknownValue},
			check: func(t *testing.T, s settings) {
				if s.Kube.Mode != kubeDirect || !s.Kube.Host.Unknown || !s.Kube.Token.Unknown {
					t.Errorf("got mode %v host unknown %v token unknown %v, want direct with unknown host and token",
						s.Kube.Mode, s.Kube.Host.Unknown, s.Kube.Token.Unknown)
				}
				if got := len(unknownSettings(s)); got != 3 {
					t.Errorf("unknownSettings = %d settings, want 3", got)
				}
			},
		},
		{
			name: "unknown token still conflicts with a client certificate",
			cfg: rawConfig{Host: known("https://10.0.0.1"), Token: unknownValue,
				ClientCertificate: known(pki.ClientCert), ClientKey: known(pki.ClientKey)},
			problems: []wantProblem{{pathToken, "Conflicting credentials", nil}},
		},
		{
			name: "valid endpoints",
			cfg: rawConfig{Endpoints: &rawEndpoints{EKS: known("http://127.0.0.1:4566"), STS: known("https://sts.example.com/"),
				ACK: known("https://cs.cn-hangzhou.aliyuncs.com")}},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Endpoints.EKS, "http://127.0.0.1:4566", "")
				wantSetting(t, s.Endpoints.ACK, "https://cs.cn-hangzhou.aliyuncs.com", "")
			},
		},
		{
			name: "invalid endpoints",
			cfg:  rawConfig{Endpoints: &rawEndpoints{EKS: known("eks.local:4566"), STS: known("https://"), ACK: known("://admin:hunter2@cs.local")}},
			problems: []wantProblem{
				{pathEndpointEKS, "Invalid endpoints.eks", []string{`endpoints.eks must be an absolute http:// or https:// URL`, `got "eks.local:4566"`}},
				{pathEndpointSTS, "Invalid endpoints.sts", []string{`got "https://"`}},
				{pathEndpointACK, "Invalid endpoints.ack", []string{"does not parse as a URL"}},
			},
		},
		{
			name: "alicloud from environment",
			env:  map[string]string{EnvAlicloudRegion: "cn-hangzhou", EnvAlicloudAccessKey: "LTAIenv", EnvAlicloudSecretKey: "envsecret"},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Alicloud.Region, "cn-hangzhou", EnvAlicloudRegion)
				wantSetting(t, s.Alicloud.AccessKey, "LTAIenv", EnvAlicloudAccessKey)
				wantSetting(t, s.Alicloud.SecretKey, "envsecret", EnvAlicloudSecretKey)
			},
		},
		{
			name: "alicloud configuration over environment",
			cfg:  rawConfig{Alicloud: &rawAlicloud{Region: known("cn-beijing"), AccessKey: known("LTAIcfg"), SecretKey: known("cfgsecret")}},
			env:  map[string]string{EnvAlicloudRegion: "cn-hangzhou", EnvAlicloudAccessKey: "LTAIenv", EnvAlicloudSecretKey: "envsecret"},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.Alicloud.Region, "cn-beijing", "")
				wantSetting(t, s.Alicloud.AccessKey, "LTAIcfg", "")
				wantSetting(t, s.Alicloud.SecretKey, "cfgsecret", "")
			},
		},
		{
			name: "alicloud access_key without secret_key",
			cfg:  rawConfig{Alicloud: &rawAlicloud{AccessKey: known("LTAIcfg")}},
			problems: []wantProblem{{pathAlicloudSecretKey, "Missing alicloud.secret_key",
				[]string{"alicloud.access_key is set but alicloud.secret_key is not", "ALICLOUD_SECRET_KEY"}}},
		},
		{
			name: "alicloud secret_key from environment without access_key",
			env:  map[string]string{EnvAlicloudSecretKey: "envsecret"},
			problems: []wantProblem{{pathAlicloudAccessKey, "Missing alicloud.access_key",
				[]string{"alicloud.secret_key (from ALICLOUD_SECRET_KEY) is set"}}},
		},
		{
			name: "aws assume_role",
			cfg: rawConfig{AWS: &rawAWS{Region: known("eu-west-1"), AssumeRole: &rawAssumeRole{
				RoleARN: known("arn:aws:iam::123456789012:role/hca"), SessionName: known("ci-run.42"), ExternalID: known("ext-1")}}},
			check: func(t *testing.T, s settings) {
				wantSetting(t, s.AWS.Region, "eu-west-1", "")
				if s.AWS.AssumeRole == nil {
					t.Fatal("assume_role not resolved")
				}
				wantSetting(t, s.AWS.AssumeRole.RoleARN, "arn:aws:iam::123456789012:role/hca", "")
				wantSetting(t, s.AWS.AssumeRole.SessionName, "ci-run.42", "")
			},
		},
		{
			name: "aws assume_role without role_arn",
			cfg:  rawConfig{AWS: &rawAWS{AssumeRole: &rawAssumeRole{SessionName: known("ci")}}},
			problems: []wantProblem{{pathRoleARN, "Missing aws.assume_role.role_arn",
				[]string{"Set role_arn to the ARN", "or remove the assume_role block"}}},
		},
		{
			name: "aws assume_role with invalid ARN and session name",
			cfg: rawConfig{AWS: &rawAWS{AssumeRole: &rawAssumeRole{
				RoleARN: known("hca-role"), SessionName: known("has space"), ExternalID: known("x")}}},
			problems: []wantProblem{
				{pathRoleARN, "Invalid aws.assume_role.role_arn", []string{`got "hca-role"`}},
				{pathSessionName, "Invalid aws.assume_role.session_name", []string{"2 to 64 characters"}},
				{pathExternalID, "Invalid aws.assume_role.external_id", []string{"2 to 1224 characters"}},
			},
		},
	}

	secrets := []string{token, pki.ClientKey, pki.OtherKey, "hunter2", "c2VjcmV0LWtleS1ieXRlcw==", "envsecret", "cfgsecret"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, probs := resolve(tt.cfg, func(k string) string { return tt.env[k] })
			if len(probs) != len(tt.problems) {
				t.Fatalf("got %d problems %+v, want %d", len(probs), probs, len(tt.problems))
			}
			for i, want := range tt.problems {
				got := probs[i]
				if !got.Path.Equal(want.path) || got.Summary != want.summary {
					t.Errorf("problem %d = %s %q, want %s %q", i, got.Path, got.Summary, want.path, want.summary)
				}
				for _, frag := range want.detail {
					if !strings.Contains(got.Detail, frag) {
						t.Errorf("problem %d detail %q does not contain %q", i, got.Detail, frag)
					}
				}
				for _, secret := range secrets {
					if strings.Contains(got.Detail, strings.TrimSpace(secret)) {
						t.Errorf("problem %d detail leaks a secret value: %q", i, got.Detail)
					}
				}
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func wantSetting(t *testing.T, s setting, value, env string) {
	t.Helper()
	if !s.Known() || s.Value != value || s.Env != env {
		t.Errorf("%s = %q (known %v, from env %q), want %q from env %q", s.Path, s.Value, s.Known(), s.Env, value, env)
	}
}
