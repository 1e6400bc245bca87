package provider

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// testAccProtoV6ProviderFactories serves the provider in-process to the real
// Terraform CLI that the acceptance tests run.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"hca": providerserver.NewProtocol6WithError(New("test")()),
}

// defaultTerraformPath is the Terraform CLI used when TF_ACC_TERRAFORM_PATH is
// unset; the acceptance tests never download Terraform.
const defaultTerraformPath = "/usr/local/bin/terraform"

// accTest runs an acceptance test case (it skips unless TF_ACC is set) with
// the provider's environment fallbacks cleared, so that the machine's KUBE_*,
// ALICLOUD_* and AWS_* variables cannot change the outcome; a test sets the
// ones it exercises with t.Setenv after calling prepareAccEnv.
func accTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	if tc.ProtoV6ProviderFactories == nil {
		tc.ProtoV6ProviderFactories = testAccProtoV6ProviderFactories
	}
	resource.Test(t, tc)
}

func prepareAccEnv(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Setenv("TF_ACC_TERRAFORM_PATH", defaultTerraformPath)
	}
	t.Setenv("CHECKPOINT_DISABLE", "1")
	// A CLI configuration file named but missing makes Terraform print a
	// warning before every diagnostic, which the tests' exact error patterns
	// do not expect: the tests use no CLI configuration of the machine's.
	if f := os.Getenv("TF_CLI_CONFIG_FILE"); f != "" {
		if _, err := os.Stat(f); err != nil {
			t.Setenv("TF_CLI_CONFIG_FILE", "")
		}
	}
	for _, k := range []string{EnvKubeConfigPath, EnvKubeContext, EnvKubeHost, EnvKubeCACert, EnvKubeToken,
		EnvKubeClientCert, EnvKubeClientKey, EnvAlicloudRegion, EnvAlicloudAccessKey, EnvAlicloudSecretKey} {
		t.Setenv(k, "")
	}
	clearAWSEnv(t)
}

// errorRe matches a Terraform error with the given summary followed by the
// given fragments of its detail, in order. The CLI may wrap the detail across
// lines, so spaces in a fragment match any run of white space.
func errorRe(summary string, fragments ...string) *regexp.Regexp {
	re := `Error: ` + regexp.QuoteMeta(summary)
	for _, f := range fragments {
		words := strings.Fields(f)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		re += `(?s).*` + strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(re)
}

// noTerraformError matches text holding no "Error:", the start of each of
// Terraform's error diagnostics (a prefix of it may end the text). It is the
// automaton for "Error:" written out: a run of E's, then a part of "rror"
// that the next E starts over (chunks), until a character that leaves the
// match (a part of "rror" and a character that does not continue it). Runs
// such as "EE" and "ErE" (hex request IDs) are text like any other; an
// earlier form refused them, and tests whose output held a request ID such
// as 94EE27FC failed now and then.
const noTerraformError = `(?:[^E]|(?:E+(?:r|rr|rro|rror))*E+(?:[^rE]|r[^rE]|rr[^oE]|rro[^rE]|rror[^:E]))*` +
	`(?:(?:E+(?:r|rr|rro|rror))*E+(?:r|rr|rro|rror)?)?`

// onlyErrorRe is errorRe for an output that holds this error and no other:
// no second diagnostic before or after it, nor between its fragments.
func onlyErrorRe(summary string, fragments ...string) *regexp.Regexp {
	re := `\A` + noTerraformError + `Error: ` + regexp.QuoteMeta(summary)
	for _, f := range fragments {
		words := strings.Fields(f)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		re += noTerraformError + strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(re + noTerraformError + `\z`)
}

// hclString renders s as an HCL expression that yields s exactly (PEM
// included) without HCL escaping concerns.
func hclString(s string) string {
	return fmt.Sprintf("base64decode(%q)", base64.StdEncoding.EncodeToString([]byte(s)))
}

const controlClusterDataSourceHCL = `
data "hca_control_cluster" "this" {}
`

// TestAccProviderConfig_invalid checks the plan-time diagnostics for each
// invalid provider configuration. They need no lab: Terraform stops at
// validation, before anything is contacted.
func TestAccProviderConfig_invalid(t *testing.T) {
	pki := newTestPKI(t)
	kubeconfig := writeKubeconfig(t, pki, "lab")
	notKubeconfig := writeFile(t, "values.yaml", "replicas: 3\n")
	missing := kubeconfig + ".missing"

	tests := []struct {
		name     string
		provider string
		env      map[string]string
		want     *regexp.Regexp
	}{
		{
			name:     "kubeconfig_path and host",
			provider: fmt.Sprintf("kubeconfig_path = %q\nhost = \"https://127.0.0.1:6443\"", kubeconfig),
			want: errorRe("Conflicting connection settings",
				"kubeconfig_path and host are both set. Connect to the control cluster either through a kubeconfig file"),
		},
		{
			name: "token with client certificate",
			provider: fmt.Sprintf("host = \"https://127.0.0.1:6443\"\ntoken = \"abc\"\nclient_certificate = %s\nclient_key = %s",
				hclString(pki.ClientCert), hclString(pki.ClientKey)),
			want: errorRe("Conflicting credentials", "token and client_certificate are both set. Authenticate to the control cluster with either a bearer token or a client certificate and key, not both"),
		},
		{
			name:     "token from KUBE_TOKEN with client certificate",
			provider: fmt.Sprintf("host = \"https://127.0.0.1:6443\"\nclient_certificate = %s\nclient_key = %s", hclString(pki.ClientCert), hclString(pki.ClientKey)),
			env:      map[string]string{EnvKubeToken: "abc"},
			want:     errorRe("Conflicting credentials", "token (from KUBE_TOKEN) and client_certificate are both set."),
		},
		{
			name:     "client_certificate without client_key",
			provider: fmt.Sprintf("host = \"https://127.0.0.1:6443\"\nclient_certificate = %s", hclString(pki.ClientCert)),
			want:     errorRe("Missing client_key", "client_certificate is set but client_key is not. Set client_key (or the KUBE_CLIENT_KEY_DATA environment variable)"),
		},
		{
			name:     "kubeconfig_path missing",
			provider: fmt.Sprintf("kubeconfig_path = %q", missing),
			want:     errorRe("Invalid kubeconfig_path", fmt.Sprintf("kubeconfig_path %q cannot be read: no such file or directory.", missing)),
		},
		{
			name: "KUBE_CONFIG_PATH missing",
			env:  map[string]string{EnvKubeConfigPath: missing},
			want: errorRe("Invalid kubeconfig_path", fmt.Sprintf("kubeconfig_path (from KUBE_CONFIG_PATH) %q cannot be read", missing)),
		},
		{
			name:     "kubeconfig_path not a kubeconfig",
			provider: fmt.Sprintf("kubeconfig_path = %q", notKubeconfig),
			want:     errorRe("Invalid kubeconfig_path", fmt.Sprintf("kubeconfig_path %q is not a kubeconfig", notKubeconfig)),
		},
		{
			name:     "kubeconfig_context not in the file",
			provider: fmt.Sprintf("kubeconfig_path = %q\nkubeconfig_context = \"prod\"", kubeconfig),
			want: errorRe("Invalid kubeconfig_context",
				fmt.Sprintf(`kubeconfig_context "prod" is not a context of the kubeconfig %q. Set it to one of: "broken", "lab", "other".`, kubeconfig)),
		},
		{
			name:     "invalid host",
			provider: "host = \"127.0.0.1:6443\"\ntoken = \"abc\"",
			want:     errorRe("Invalid host", `host must be an absolute http:// or https:// URL such as "https://127.0.0.1:6443"; got "127.0.0.1:6443".`),
		},
		{
			name:     "invalid eks endpoint",
			provider: "endpoints {\n  eks = \"eks.local:4566\"\n}",
			want:     errorRe("Invalid endpoints.eks", `endpoints.eks must be an absolute http:// or https:// URL such as "https://eks.us-east-1.amazonaws.com"; got "eks.local:4566".`),
		},
		{
			name:     "invalid sts endpoint",
			provider: "endpoints {\n  sts = \"https://\"\n}",
			want:     errorRe("Invalid endpoints.sts", `endpoints.sts must be an absolute http:// or https:// URL`),
		},
		{
			name:     "invalid ack endpoint",
			provider: "endpoints {\n  ack = \"cs.aliyuncs.com\"\n}",
			want:     errorRe("Invalid endpoints.ack", `got "cs.aliyuncs.com".`),
		},
		{
			name:     "invalid role ARN",
			provider: "aws {\n  assume_role {\n    role_arn = \"hca\"\n  }\n}",
			want:     errorRe("Invalid aws.assume_role.role_arn", `aws.assume_role.role_arn must be an IAM role ARN such as "arn:aws:iam::123456789012:role/hca"; got "hca".`),
		},
		{
			name:     "assume_role without role_arn",
			provider: "aws {\n  assume_role {\n    session_name = \"ci\"\n  }\n}",
			want:     errorRe("Missing aws.assume_role.role_arn", "The aws.assume_role block is present but role_arn is not set."),
		},
		{
			name:     "alicloud access_key without secret_key",
			provider: "alicloud {\n  access_key = \"LTAIx\"\n}",
			want:     errorRe("Missing alicloud.secret_key", "alicloud.access_key is set but alicloud.secret_key is not."),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"hca\" {\n%s\n}\n%s", tt.provider, controlClusterDataSourceHCL),
					ExpectError: tt.want,
				}},
			})
		})
	}
}

// TestAccControlClusterDataSource_notConfigured reads the data source with no
// connection at all.
func TestAccControlClusterDataSource_notConfigured(t *testing.T) {
	prepareAccEnv(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      controlClusterDataSourceHCL,
			ExpectError: errorRe("Control cluster not configured", `The hca provider has no connection to the control cluster. In the provider "hca" block, set kubeconfig_path`),
		}},
	})
}

// closedPort returns a loopback address on which nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestAccControlClusterDataSource_unreachable points the provider at a port
// where nothing listens.
func TestAccControlClusterDataSource_unreachable(t *testing.T) {
	prepareAccEnv(t)
	pki := newTestPKI(t)
	host := "https://" + closedPort(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "hca" {
  host                   = %q
  cluster_ca_certificate = %s
  client_certificate     = %s
  client_key             = %s
}
%s`, host, hclString(pki.CA), hclString(pki.ClientCert), hclString(pki.ClientKey), controlClusterDataSourceHCL),
			ExpectError: errorRe("Error reading control cluster", fmt.Sprintf("Could not read the version of the API server at %s:", host), "connection refused"),
		}},
	})
}

// TestAccProviderConfig_unknown configures the provider with a host that is
// only known after apply: validation lets it through, configuration stops.
func TestAccProviderConfig_unknown(t *testing.T) {
	prepareAccEnv(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "endpoint" {
  input = "https://127.0.0.1:6443"
}
provider "hca" {
  host  = terraform_data.endpoint.output
  token = "abc"
}
` + controlClusterDataSourceHCL,
			ExpectError: errorRe("Unknown host", "The provider cannot be configured because host depends on a value that is not known until apply."),
		}},
	})
}

// planExample plans examples/resources/<typ>/resource.tf with the real
// Terraform CLI against a control cluster that is never reached: the example is
// valid and passes every plan-time check.
func planExample(t *testing.T, typ string) {
	t.Helper()
	prepareAccEnv(t)
	t.Setenv(EnvKubeConfigPath, writeKubeconfig(t, newTestPKI(t), "lab"))
	t.Setenv(EnvKubeContext, "lab")
	example, err := os.ReadFile("../examples/resources/" + typ + "/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{Config: string(example), PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
}

func TestOnlyErrorRe(t *testing.T) {
	re := onlyErrorRe("Error creating EKS node group", "InvalidParameterException", `instance type "x9.huge"`)
	tests := []struct {
		name, out string
		want      bool
	}{
		{"the error alone", "Error running apply: exit status 1\n\nError: Error creating EKS node group\n\n  with hca_eks_cluster.test,\n  InvalidParameterException: instance type \"x9.huge\" is not\nsupported\n", true},
		{"another error before", "Error: Provider returned invalid result object after apply\n\nError: Error creating EKS node group\nInvalidParameterException instance type \"x9.huge\"\n", false},
		{"another error after", "Error: Error creating EKS node group\nInvalidParameterException instance type \"x9.huge\"\nEError: again\n", false},
		{"another error between", "Error: Error creating EKS node group\nError: other\nInvalidParameterException instance type \"x9.huge\"\n", false},
		{"a fragment missing", "Error: Error creating EKS node group\nInvalidParameterException\n", false},
		{"Error without colon around", "Errors: Erro Error creating\nError: Error creating EKS node group InvalidParameterException instance type \"x9.huge\" Erro", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := re.MatchString(tt.out); got != tt.want {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNoTerraformError: the pattern matches exactly the texts without
// "Error:", whatever runs of E and prefixes of "Error" they hold.
func TestNoTerraformError(t *testing.T) {
	re := regexp.MustCompile(`\A` + noTerraformError + `\z`)
	tests := []struct {
		text string
		want bool
	}{
		{"", true},
		{"plain text", true},
		{"request ID 94EE27FC-C6C1", true},
		{"EE", true},
		{"ErEx", true},
		{"ErrEr", true},
		{"ErrorE:", true},
		{"Errors: 3", true},
		{"Error", true},
		{"Erro", true},
		{"EEEError", true},
		{"Error running apply: exit status 1", true},
		{"Error:", false},
		{"x Error: y", false},
		{"EError:", false},
		{"ErError:", false},
		{"ErrorError:", false},
		{"Error running apply\n\nError: Error creating", false},
	}
	for _, tt := range tests {
		if got := re.MatchString(tt.text); got != tt.want {
			t.Errorf("%q: matched %v, want %v", tt.text, got, tt.want)
		}
	}
	// Every string of E, r, o, ':' and x up to length 7 against the plain
	// definition.
	alphabet := []byte("Erox:")
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		s := string(prefix)
		if got, want := re.MatchString(s), !strings.Contains(s, "Error:"); got != want {
			t.Fatalf("%q: matched %v, want %v", s, got, want)
		}
		if len(prefix) == 7 {
			return
		}
		for _, c := range alphabet {
			walk(append(prefix, c))
		}
	}
	walk(nil)
}
