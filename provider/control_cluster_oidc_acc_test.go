package provider

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// The HCP Terraform run the OIDC tests impersonate.
const (
	oidcTestOrg       = "example-org"
	oidcTestProject   = "default"
	oidcTestWorkspace = "hca-production"
)

// bindOIDCUser binds cluster-admin to the user the lab's control apiserver
// derives from the workload identity tokens of the run phases of the test
// workspace (lab.OIDCUsernamePrefix + their sub), for the test's duration.
func bindOIDCUser(t *testing.T, lc labCluster, phases ...string) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(lc.config)
	if err != nil {
		t.Fatal(err)
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hca-tfc-oidc-%06d", rand.IntN(1e6))},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
	}
	for _, ph := range phases {
		crb.Subjects = append(crb.Subjects, rbacv1.Subject{APIGroup: "rbac.authorization.k8s.io", Kind: "User",
			Name: lab.OIDCUsernamePrefix + oidc.TFCSubject(oidcTestOrg, oidcTestProject, oidcTestWorkspace, ph)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kc.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.RbacV1().ClusterRoleBindings().Delete(context.Background(), crb.Name, metav1.DeleteOptions{})
	})
}

// oidcTokenFile writes token to a file as HCP Terraform writes the
// Kubernetes dynamic credentials' token (tfc_kubernetes_dynamic_credentials.default.token_path).
func oidcTokenFile(t *testing.T, token string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tfc-kubernetes-token")
	if err := os.WriteFile(p, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// labCA is the PEM of the CA of the lab cluster lc.
func labCA(t *testing.T, lc labCluster) string {
	t.Helper()
	if len(lc.config.CAData) > 0 {
		return string(lc.config.CAData)
	}
	b, err := os.ReadFile(lc.config.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// oidcClusterHCL is a configuration whose only control-cluster credential
// is an OIDC token: read from tokenFile, as in examples/terraform-cloud, or,
// when tokenFile is empty, from KUBE_TOKEN.
func oidcClusterHCL(lc labCluster, ca, tokenFile, name string) string {
	token := ""
	if tokenFile != "" {
		token = fmt.Sprintf("  token                  = trimspace(file(%q))\n", tokenFile)
	}
	return fmt.Sprintf(`provider "hca" {
  host                   = %q
  cluster_ca_certificate = %q
%s}

resource "hca_cluster" "this" {
  name             = %q
  role             = "burst"
  provider_type    = "eks"
  eks_cluster_name = "burst-1"
  region           = "eu-west-1"
}
`, lc.config.Host, ca, token, name)
}

// TestAccControlClusterOIDC creates and destroys an hca_cluster on the lab's
// control cluster whose only credential is a workload identity token of the
// lab's OIDC issuer, shaped as HCP Terraform's Kubernetes dynamic credentials
// (audience lab.OIDCAudienceKubernetes): the apiserver authenticates it
// through its structured authentication configuration as
// tfc:organization:...:run_phase:<phase>, which RBAC binds to cluster-admin.
// The token comes from a file (the dynamic credentials' token_path), then
// from KUBE_TOKEN. The plan and apply phases have different users, as in
// HCP Terraform.
func TestAccControlClusterOIDC(t *testing.T) {
	lc := requireLabCluster(t)
	labtest.Require(t, "HCA_LAB_OIDC_ISSUER")
	prepareAccEnv(t)
	for _, k := range []string{EnvKubeConfigPath, EnvKubeContext, EnvKubeHost, EnvKubeCACert, EnvKubeToken, EnvKubeClientCert, EnvKubeClientKey} {
		t.Setenv(k, "")
	}
	admin := labAdmin(t, lc)
	bindOIDCUser(t, lc, "plan", "apply")
	ca := labCA(t, lc)
	token := func(phase string) string {
		return labtest.OIDCTokenWithClaims(t, oidc.TFCClaims(oidcTestOrg, oidcTestProject, oidcTestWorkspace, phase, lab.OIDCAudienceKubernetes, 10*time.Minute))
	}
	for _, src := range []string{"token file", EnvKubeToken} {
		t.Run(src, func(t *testing.T) {
			name := fmt.Sprintf("tf-oidc-%06d", rand.IntN(1e6))
			file := ""
			if src == "token file" {
				// One token file for the whole test case (apply and destroy):
				// HCP Terraform writes one per run phase.
				file = oidcTokenFile(t, token("apply"))
			} else {
				t.Setenv(EnvKubeToken, token("plan"))
			}
			accTest(t, resource.TestCase{
				CheckDestroy: checkClusterGone(admin, name, defaultHCANamespace),
				Steps: []resource.TestStep{{
					Config: oidcClusterHCL(lc, ca, file, name),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("hca_cluster.this", "name", name),
						checkHybridCluster(admin, name, func(hc *hcav1.HybridCluster, _ *corev1.Secret) error {
							if e := hc.Spec.Credentials.EKS; e == nil || e.ClusterName != "burst-1" {
								return fmt.Errorf("spec.credentials.eks = %+v", e)
							}
							return nil
						}),
					),
				}},
			})
		})
	}
}

// TestAccControlClusterOIDC_refused runs the same configuration with tokens
// the control apiserver refuses (forged: the lab issuer's URL, another key;
// expired; another audience): each apply fails with a diagnostic that says
// the cluster refused the credentials, never quoting the token, and creates
// nothing.
func TestAccControlClusterOIDC_refused(t *testing.T) {
	lc := requireLabCluster(t)
	issuer := labtest.Require(t, "HCA_LAB_OIDC_ISSUER")["HCA_LAB_OIDC_ISSUER"]
	prepareAccEnv(t)
	for _, k := range []string{EnvKubeConfigPath, EnvKubeContext, EnvKubeHost, EnvKubeCACert, EnvKubeToken, EnvKubeClientCert, EnvKubeClientKey} {
		t.Setenv(k, "")
	}
	admin := labAdmin(t, lc)
	bindOIDCUser(t, lc, "apply")
	ca := labCA(t, lc)
	forger, err := oidc.New(issuer, nil)
	if err != nil {
		t.Fatal(err)
	}
	claims := oidc.TFCClaims(oidcTestOrg, oidcTestProject, oidcTestWorkspace, "apply", lab.OIDCAudienceKubernetes, 10*time.Minute)
	forged, err := forger.Mint(claims)
	if err != nil {
		t.Fatal(err)
	}
	expired := claims
	expired.TTL = -time.Minute
	wrongAud := claims
	wrongAud.Audience = lab.OIDCAudienceAWS
	for _, tt := range []struct{ name, token string }{
		{"forged", forged},
		{"expired", labtest.OIDCTokenWithClaims(t, expired)},
		{"wrong audience", labtest.OIDCTokenWithClaims(t, wrongAud)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("tf-oidc-bad-%06d", rand.IntN(1e6))
			want := errorRe("Error creating cluster", "Could not create the HybridCluster", name,
				"The control cluster's API server refused the provider's credentials (401 Unauthorized)", "TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE")
			accTest(t, resource.TestCase{
				// Not ExpectError: ErrorCheck sees the whole output, to check
				// that it does not quote the token.
				ErrorCheck: func(err error) error {
					if strings.Contains(err.Error(), tt.token) || strings.Contains(err.Error(), strings.Split(tt.token, ".")[2]) {
						return errors.New("the diagnostic quotes the token")
					}
					if !want.MatchString(err.Error()) {
						return fmt.Errorf("error does not match %v: %w", want, err)
					}
					return nil
				},
				CheckDestroy: checkClusterGone(admin, name, defaultHCANamespace),
				Steps: []resource.TestStep{{
					Config: oidcClusterHCL(lc, ca, oidcTokenFile(t, tt.token), name),
					Check: func(*terraform.State) error {
						return errors.New("the apply succeeded with a refused token")
					},
				}},
			})
		})
	}
}
