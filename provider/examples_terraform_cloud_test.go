package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// TestAccExampleTerraformCloud runs the real Terraform CLI on
// examples/terraform-cloud, whose only credentials are dynamic: it validates
// with a token and reports each cloud block's missing token without one;
// then, without its cloud block, it plans against the lab with a lab OIDC
// token as TFC_WORKLOAD_IDENTITY_TOKEN, exchanged with the lab's AWS STS
// (AssumeRoleWithWebIdentity) and the lab's Alibaba STS (AssumeRoleWithOIDC,
// over https), and another lab OIDC token, for the Kubernetes
// audience, in the Kubernetes dynamic credentials' token file: the control
// apiserver accepts it through its authentication configuration, as the user
// tfc:<sub>, which RBAC binds. No service account token or key is involved;
// the same plan with an expired Kubernetes token fails.
func TestAccExampleTerraformCloud(t *testing.T) {
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1", resource.EnvTfAcc)
	}
	lc := requireLabCluster(t)
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT", "HCA_LAB_OIDC_ISSUER", "HCA_LAB_ACK_ENDPOINT", "HCA_LAB_ALICLOUD_STS_ENDPOINT")
	prepareAccEnv(t)
	for _, k := range []string{EnvTFCWorkloadIdentityToken, EnvAlicloudRoleARN, EnvAlicloudOIDCProviderARN, EnvAlicloudOIDCTokenFile} {
		t.Setenv(k, "")
	}
	cli := newExampleCLI(t)
	cli.mustRun(t, "terraform-cloud", nil, "get", "-no-color")
	token := labtest.OIDCToken(t, oidc.TFCSubject("example-org", "default", "hca-production", "plan"), lab.OIDCAudienceAWS, time.Hour)

	t.Run("validate", func(t *testing.T) {
		out := cli.mustRun(t, "terraform-cloud", []string{EnvTFCWorkloadIdentityToken + "=" + token}, "validate", "-no-color")
		if !strings.Contains(out, "Success! The configuration is valid") {
			t.Errorf("terraform validate:\n%s", out)
		}
		// Static keys in the environment do not replace the token.
		out, err := cli.run("terraform-cloud", []string{EnvAlicloudAccessKey + "=" + emulator.AlicloudAccessKey, EnvAlicloudSecretKey + "=" + emulator.AlicloudAccessSecret,
			"AWS_ACCESS_KEY_ID=" + emulator.AWSAccessKeyID, "AWS_SECRET_ACCESS_KEY=" + emulator.AWSSecretAccessKey}, "validate", "-no-color")
		if err == nil {
			t.Fatalf("validate succeeded without TFC_WORKLOAD_IDENTITY_TOKEN:\n%s", out)
		}
		for _, re := range []interface{ MatchString(string) bool }{
			errorRe("Missing web identity token", "TFC_WORKLOAD_IDENTITY_TOKEN"),
			errorRe("Missing OIDC token", "The alicloud.assume_role_with_oidc block is present but no token is given", "TFC_WORKLOAD_IDENTITY_TOKEN"),
		} {
			if !re.MatchString(out) {
				t.Errorf("validate output does not match %v:\n%s", re, out)
			}
		}
	})

	t.Run("plan against the lab", func(t *testing.T) {
		// The lab daemon's Alibaba STS answers over https with a certificate
		// of the lab CA, which the provider process trusts.
		trustLabCA(t)
		bindOIDCUser(t, lc, "plan")
		kubeToken := func(ttl time.Duration) string {
			return oidcTokenFile(t, labtest.OIDCTokenWithClaims(t, oidc.TFCClaims(oidcTestOrg, oidcTestProject, oidcTestWorkspace, "plan", lab.OIDCAudienceKubernetes, ttl)))
		}
		dir := "terraform-cloud-lab"
		copyExampleTree(t, filepath.Join("..", "examples", "terraform-cloud"), filepath.Join(cli.examples, dir))
		main := filepath.Join(cli.examples, dir, "main.tf")
		src, err := os.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		local, err := withoutCloudBlock(string(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(main, []byte(local), 0o644); err != nil {
			t.Fatal(err)
		}
		ca := labCA(t, lc)
		vars := func(kubeTokenFile string) map[string]any {
			return map[string]any{
				"tfc_kubernetes_dynamic_credentials": map[string]any{"default": map[string]any{"token_path": kubeTokenFile}, "aliases": map[string]any{}},
				"control_cluster_host":               lc.config.Host,
				"control_cluster_ca_certificate":     ca,
				"aws_run_role_arn":                   webIdentityRole,
				"alicloud_run_role_arn":              "acs:ram::" + emulator.AlicloudAccountID + ":role/hca-terraform",
				"alicloud_oidc_provider_arn":         emulator.RAMOIDCProvider{Name: lab.AlicloudOIDCProviderName}.ARN(),
				"private_cluster_host":               "https://kubernetes.default.svc",
				"private_cluster_ca_certificate":     ca,
				"private_cluster_token":              "runtime-token",
				"eks_cluster_role_arn":               "arn:aws:iam::000000000000:role/eks-cluster",
				"eks_node_role_arn":                  "arn:aws:iam::000000000000:role/eks-node",
				"eks_subnet_ids":                     []string{"subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"},
				"ack_vswitch_ids":                    []string{"vsw-hcalab1"},
				"endpoints":                          map[string]any{"eks": env["HCA_LAB_EKS_ENDPOINT"], "sts": env["HCA_LAB_STS_ENDPOINT"], "ack": env["HCA_LAB_ACK_ENDPOINT"], "alicloud_sts": env["HCA_LAB_ALICLOUD_STS_ENDPOINT"]},
			}
		}
		varFile := writeVarFile(t, vars(kubeToken(time.Hour)))
		cli.mustRun(t, dir, nil, "get", "-no-color")
		planFile := filepath.Join(t.TempDir(), "plan")
		cli.mustRun(t, dir, []string{EnvTFCWorkloadIdentityToken + "=" + token}, "plan", "-no-color", "-var-file="+varFile, "-out="+planFile)
		out := cli.mustRun(t, dir, nil, "show", "-json", planFile)
		var plan planJSON
		if err := json.Unmarshal([]byte(out), &plan); err != nil {
			t.Fatalf("plan JSON: %v", err)
		}
		created := map[string]bool{}
		for _, rc := range plan.ResourceChanges {
			if rc.Mode == "managed" && len(rc.Change.Actions) == 1 && rc.Change.Actions[0] == "create" {
				addr, _, _ := strings.Cut(rc.Address, "[") // module.hybrid_burst.hca_ack_cluster.this["ack-burst"]
				parts := strings.Split(addr, ".")
				created[parts[len(parts)-2]] = true
			}
		}
		for _, typ := range []string{"hca_runtime", "hca_eks_cluster", "hca_ack_cluster"} {
			if !created[typ] {
				t.Errorf("the plan creates no %s (creates %v)", typ, created)
			}
		}

		// An expired Kubernetes token stops the plan at the control cluster.
		out, err = cli.run(dir, []string{EnvTFCWorkloadIdentityToken + "=" + token}, "plan", "-no-color", "-var-file="+writeVarFile(t, vars(kubeToken(-time.Minute))))
		if err == nil || !strings.Contains(out, "refused the provider's credentials (401 Unauthorized)") {
			t.Errorf("plan with an expired Kubernetes token: %v\n%s", err, out)
		}

		// The lab's Alibaba STS is asked: an OIDC provider the account does
		// not have stops the plan.
		noProvider := vars(kubeToken(time.Hour))
		noProvider["alicloud_oidc_provider_arn"] = emulator.RAMOIDCProvider{Name: "nobody"}.ARN()
		out, err = cli.run(dir, []string{EnvTFCWorkloadIdentityToken + "=" + token}, "plan", "-no-color", "-var-file="+writeVarFile(t, noProvider))
		if err == nil || !strings.Contains(out, "EntityNotExist.OIDCProvider") {
			t.Errorf("plan with an unknown RAM OIDC provider: %v\n%s", err, out)
		}

		// An expired token stops the plan at the first cloud block.
		expired := labtest.OIDCToken(t, oidc.TFCSubject("example-org", "default", "hca-production", "plan"), lab.OIDCAudienceAWS, -time.Minute)
		out, err = cli.run(dir, []string{EnvTFCWorkloadIdentityToken + "=" + expired}, "plan", "-no-color", "-var-file="+varFile)
		if err == nil || !strings.Contains(out, "Error assuming role with web identity") {
			t.Errorf("plan with an expired token: %v\n%s", err, out)
		}
	})
}

// withoutCloudBlock removes the terraform block's cloud block (from "  cloud {"
// to its closing brace), so that the configuration plans with local state.
func withoutCloudBlock(src string) (string, error) {
	start := strings.Index(src, "  cloud {")
	if start < 0 {
		return "", os.ErrNotExist
	}
	depth := 0
	for i := start; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return src[:start] + src[i+1:], nil
			}
		}
	}
	return "", os.ErrInvalid
}

// writeVarFile writes vars to a .tfvars.json file of the test's.
func writeVarFile(t *testing.T, vars map[string]any) string {
	t.Helper()
	b, err := json.Marshal(vars)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lab.tfvars.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// trustLabCA makes the processes the test starts (Terraform, the provider)
// trust the lab CA besides the system's roots (SSL_CERT_FILE), for the lab
// daemon's https endpoints (the Alibaba STS).
func trustLabCA(t *testing.T) {
	t.Helper()
	ca, err := os.ReadFile(labtest.Require(t, "HCA_LAB_OIDC_CA_FILE")["HCA_LAB_OIDC_CA_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	system, _ := os.ReadFile("/etc/ssl/certs/ca-certificates.crt") // the system's roots, when there
	bundle := filepath.Join(t.TempDir(), "ca-bundle.pem")
	if err := os.WriteFile(bundle, append(system, ca...), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", bundle)
}
