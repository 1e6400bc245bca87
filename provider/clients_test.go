package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
)

// writeKubeconfig writes a kubeconfig with the contexts "lab" and "other"
// (current-context as given, omitted when empty) and returns its path.
func writeKubeconfig(t *testing.T, pki testPKI, currentContext string) string {
	t.Helper()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: %s
- name: other
  cluster:
    server: https://127.0.0.2:7443
contexts:
- name: lab
  context: {cluster: lab, user: admin}
- name: other
  context: {cluster: other, user: admin}
- name: broken
  context: {cluster: missing, user: admin}
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
`, b64(pki.CA), b64(pki.ClientCert), b64(pki.ClientKey))
	if currentContext != "" {
		cfg += "current-context: " + currentContext + "\n"
	}
	return writeFile(t, "kubeconfig", cfg)
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadKubeconfig(t *testing.T) {
	pki := newTestPKI(t)
	withCurrent := writeKubeconfig(t, pki, "other")
	noCurrent := writeKubeconfig(t, pki, "")
	danglingCurrent := writeKubeconfig(t, pki, "gone")
	notKubeconfig := writeFile(t, "values.yaml", "replicas: 3\nimage: nginx\n")
	garbage := writeFile(t, "garbage", "token: [hca-secret-in-garbage\n\x00\x01")

	tests := []struct {
		name     string
		file     string
		context  string
		wantHost string
		problem  *wantProblem
	}{
		{name: "current context", file: withCurrent, wantHost: "https://127.0.0.2:7443"},
		{name: "named context", file: withCurrent, context: "lab", wantHost: "https://127.0.0.1:6443"},
		{name: "named context without current-context", file: noCurrent, context: "lab", wantHost: "https://127.0.0.1:6443"},
		{
			name: "missing file", file: filepath.Join(t.TempDir(), "nope"),
			problem: &wantProblem{pathKubeconfigPath, "Invalid kubeconfig_path", []string{"cannot be read: no such file or directory"}},
		},
		{
			name: "directory", file: t.TempDir(),
			problem: &wantProblem{pathKubeconfigPath, "Invalid kubeconfig_path", []string{"is a directory, not a kubeconfig file"}},
		},
		{
			name: "YAML that is not a kubeconfig", file: notKubeconfig,
			problem: &wantProblem{pathKubeconfigPath, "Invalid kubeconfig_path", []string{"is not a kubeconfig", "kubectl config view --kubeconfig"}},
		},
		{
			name: "garbage", file: garbage,
			problem: &wantProblem{pathKubeconfigPath, "Invalid kubeconfig_path", []string{"is not a kubeconfig"}},
		},
		{
			name: "unknown context", file: withCurrent, context: "prod",
			problem: &wantProblem{pathKubeconfigContext, "Invalid kubeconfig_context", []string{`"prod" is not a context of the kubeconfig`, `one of: "broken", "lab", "other"`}},
		},
		{
			name: "no current-context and no context", file: noCurrent,
			problem: &wantProblem{pathKubeconfigContext, "Missing kubeconfig_context", []string{"has no current-context", `"lab", "other"`}},
		},
		{
			name: "current-context names no context", file: danglingCurrent,
			problem: &wantProblem{pathKubeconfigPath, "Invalid kubeconfig_path", []string{`current-context "gone"`}},
		},
		{
			name: "context whose cluster is missing", file: withCurrent, context: "broken",
			problem: &wantProblem{pathKubeconfigContext, "Invalid kubeconfig_context", []string{`context "broken"`, "cannot be used"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := setting{Path: pathKubeconfigPath, Value: tt.file, set: true}
			ctx := setting{Path: pathKubeconfigContext, Value: tt.context, set: tt.context != ""}
			rc, probs := loadKubeconfig(file, ctx)
			if tt.problem == nil {
				if len(probs) > 0 {
					t.Fatalf("unexpected problems: %+v", probs)
				}
				if rc.Host != tt.wantHost {
					t.Errorf("host = %q, want %q", rc.Host, tt.wantHost)
				}
				if string(rc.CertData) != pki.ClientCert {
					t.Errorf("client certificate not loaded from the kubeconfig")
				}
				return
			}
			if len(probs) != 1 {
				t.Fatalf("got problems %+v, want one", probs)
			}
			got := probs[0]
			if !got.Path.Equal(tt.problem.path) || got.Summary != tt.problem.summary {
				t.Errorf("problem = %s %q, want %s %q", got.Path, got.Summary, tt.problem.path, tt.problem.summary)
			}
			for _, frag := range tt.problem.detail {
				if !strings.Contains(got.Detail, frag) {
					t.Errorf("detail %q does not contain %q", got.Detail, frag)
				}
			}
			if strings.Contains(got.Detail, "hca-secret-in-garbage") || strings.Contains(got.Detail, "PRIVATE KEY") {
				t.Errorf("detail quotes the file's content: %q", got.Detail)
			}
		})
	}
}

func TestExpandHome(t *testing.T) {
	t.Setenv("HOME", "/home/hca")
	for in, want := range map[string]string{
		"~/.kube/config": "/home/hca/.kube/config",
		"~":              "/home/hca",
		"/abs/config":    "/abs/config",
		"rel/~/config":   "rel/~/config",
	} {
		if got := expandHome(in); got != want {
			t.Errorf("expandHome(%q) = %q, want %q", in, got, want)
		}
	}
}

// clearAWSEnv isolates a test from the machine's AWS configuration.
func clearAWSEnv(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL_EKS", "AWS_CA_BUNDLE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func TestLoadAWSConfig(t *testing.T) {
	ctx := context.Background()

	t.Run("environment credentials and region", func(t *testing.T) {
		clearAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENVENVENVENV0001")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
		t.Setenv("AWS_REGION", "ap-southeast-1")
		cfg, err := loadAWSConfig(ctx, awsSettings{}, "", "test")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Region != "ap-southeast-1" {
			t.Errorf("region = %q, want ap-southeast-1 from AWS_REGION", cfg.Region)
		}
		creds, err := cfg.Credentials.Retrieve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if creds.AccessKeyID != "AKIAENVENVENVENV0001" || creds.SecretAccessKey != "env-secret" {
			t.Errorf("credentials = %s, want the environment's", creds.AccessKeyID)
		}
	})

	t.Run("aws.region over AWS_REGION", func(t *testing.T) {
		clearAWSEnv(t)
		t.Setenv("AWS_REGION", "ap-southeast-1")
		cfg, err := loadAWSConfig(ctx, awsSettings{Region: setting{Value: "eu-central-1", set: true}}, "", "test")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Region != "eu-central-1" {
			t.Errorf("region = %q, want eu-central-1", cfg.Region)
		}
	})

	t.Run("profile from the shared files", func(t *testing.T) {
		clearAWSEnv(t)
		if err := os.WriteFile(os.Getenv("AWS_CONFIG_FILE"), []byte("[profile burst]\nregion = us-west-2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"),
			[]byte("[burst]\naws_access_key_id = AKIAPROFILEPROFILE01\naws_secret_access_key = profile-secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadAWSConfig(ctx, awsSettings{Profile: setting{Value: "burst", set: true}}, "", "test")
		if err != nil {
			t.Fatal(err)
		}
		creds, err := cfg.Credentials.Retrieve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Region != "us-west-2" || creds.AccessKeyID != "AKIAPROFILEPROFILE01" {
			t.Errorf("region %q key %q, want the burst profile's", cfg.Region, creds.AccessKeyID)
		}
	})

	t.Run("missing profile", func(t *testing.T) {
		clearAWSEnv(t)
		_, err := loadAWSConfig(ctx, awsSettings{Profile: setting{Value: "nope", set: true}}, "", "test")
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Fatalf("err = %v, want a missing profile error naming it", err)
		}
	})

	t.Run("web identity from the environment (Terraform Cloud dynamic credentials)", func(t *testing.T) {
		clearAWSEnv(t)
		t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/tfc")
		t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", writeFile(t, "token", "eyJ.fake.jwt"))
		t.Setenv("AWS_REGION", "us-east-1")
		cfg, err := loadAWSConfig(ctx, awsSettings{}, "", "test")
		if err != nil {
			t.Fatal(err)
		}
		if !aws.IsCredentialsProvider(cfg.Credentials, (*stscreds.WebIdentityRoleProvider)(nil)) {
			t.Errorf("credentials provider is %T, want a web identity provider", cfg.Credentials)
		}
	})

	t.Run("assume_role wraps the default chain", func(t *testing.T) {
		clearAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENVENVENVENV0001")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
		s := awsSettings{
			Region:     setting{Value: "us-east-1", set: true},
			AssumeRole: &assumeRoleSettings{RoleARN: setting{Value: "arn:aws:iam::123456789012:role/hca", set: true}},
		}
		cfg, err := loadAWSConfig(ctx, s, "", "test")
		if err != nil {
			t.Fatal(err)
		}
		if !aws.IsCredentialsProvider(cfg.Credentials, (*stscreds.AssumeRoleProvider)(nil)) {
			t.Errorf("credentials provider is %T, want an assume-role provider", cfg.Credentials)
		}
	})
}

func TestNewClients(t *testing.T) {
	clearAWSEnv(t)
	pki := newTestPKI(t)
	ctx := context.Background()

	t.Run("direct connection", func(t *testing.T) {
		s, probs := resolve(rawConfig{
			Host: known("https://127.0.0.1:6443"), ClusterCACertificate: known(pki.CA),
			ClientCertificate: known(pki.ClientCert), ClientKey: known(pki.ClientKey),
			Endpoints: &rawEndpoints{EKS: known("http://127.0.0.1:4566")},
			Alicloud:  &rawAlicloud{Region: known("cn-hangzhou"), AccessKey: known("LTAIx"), SecretKey: known("y")},
		}, func(string) string { return "" })
		if len(probs) > 0 {
			t.Fatalf("problems: %+v", probs)
		}
		c, probs, err := newClients(ctx, s, false, "1.2.3")
		if err != nil || len(probs) > 0 {
			t.Fatalf("newClients: %v %+v", err, probs)
		}
		rc, err := c.ControlCluster()
		if err != nil {
			t.Fatal(err)
		}
		if rc.Host != "https://127.0.0.1:6443" || string(rc.CAData) != pki.CA || string(rc.KeyData) != pki.ClientKey {
			t.Errorf("rest config does not carry host, CA and client key")
		}
		if rc.UserAgent != "terraform-provider-hca/1.2.3" {
			t.Errorf("user agent = %q", rc.UserAgent)
		}
		rc.Host = "changed"
		if c.Kube.Host != "https://127.0.0.1:6443" {
			t.Errorf("ControlCluster returned the shared config, not a copy")
		}
		if c.Endpoints.EKS != "http://127.0.0.1:4566" || c.Alicloud.Region != "cn-hangzhou" || c.Alicloud.SecretKey != "y" {
			t.Errorf("endpoints/alicloud not stored: %+v", c.Endpoints)
		}
	})

	t.Run("nothing configured", func(t *testing.T) {
		s, _ := resolve(rawConfig{}, func(string) string { return "" })
		c, probs, err := newClients(ctx, s, false, "test")
		if err != nil || len(probs) > 0 {
			t.Fatalf("newClients: %v %+v", err, probs)
		}
		if _, err := c.ControlCluster(); !errors.Is(err, ErrControlClusterNotConfigured) {
			t.Errorf("ControlCluster() error = %v, want ErrControlClusterNotConfigured", err)
		}
	})

	t.Run("service endpoints: configuration over the SDK's environment", func(t *testing.T) {
		clearAWSEnv(t)
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv("AWS_ENDPOINT_URL_EKS", "http://127.0.0.1:1111")
		t.Setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:2222")
		for _, tt := range []struct {
			name             string
			endpoints        *rawEndpoints
			wantEKS, wantSTS string
		}{
			{"environment", nil, "http://127.0.0.1:1111", "http://127.0.0.1:2222"},
			{"configuration", &rawEndpoints{EKS: known("http://127.0.0.1:3333"), STS: known("http://127.0.0.1:4444")},
				"http://127.0.0.1:3333", "http://127.0.0.1:4444"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				s, probs := resolve(rawConfig{Endpoints: tt.endpoints}, func(string) string { return "" })
				if len(probs) > 0 {
					t.Fatalf("problems: %+v", probs)
				}
				c, _, err := newClients(ctx, s, false, "test")
				if err != nil {
					t.Fatal(err)
				}
				e, err := c.EKS()
				if err != nil {
					t.Fatal(err)
				}
				st, err := c.STS()
				if err != nil {
					t.Fatal(err)
				}
				if got := aws.ToString(e.Options().BaseEndpoint); got != tt.wantEKS {
					t.Errorf("EKS endpoint = %q, want %q", got, tt.wantEKS)
				}
				if got := aws.ToString(st.Options().BaseEndpoint); got != tt.wantSTS {
					t.Errorf("STS endpoint = %q, want %q", got, tt.wantSTS)
				}
			})
		}
	})

	t.Run("bad AWS profile fails only with an aws block", func(t *testing.T) {
		t.Setenv("AWS_PROFILE", "nope")
		s, _ := resolve(rawConfig{}, func(string) string { return "" })
		c, _, err := newClients(ctx, s, false, "test")
		if err != nil {
			t.Fatalf("without aws block: %v", err)
		}
		if _, err := c.AWSConfig(); err == nil {
			t.Errorf("AWSConfig() succeeded with a missing AWS_PROFILE")
		}
		if _, err := c.EKS(); err == nil {
			t.Errorf("EKS() succeeded with a missing AWS_PROFILE")
		}
		if _, _, err := newClients(ctx, s, true, "test"); err == nil {
			t.Errorf("with aws block: no error for a missing AWS_PROFILE")
		}
	})
}
