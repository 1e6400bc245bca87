package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// labCluster is the lab's private cluster as the tests reach it independently
// of the provider: its admin REST config (certificates loaded as data) and the
// version its API server reports.
type labCluster struct {
	kubeconfig string
	context    string
	config     *rest.Config
	version    string
}

func requireLabCluster(t *testing.T) labCluster {
	t.Helper()
	kubeconfig := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")["HCA_LAB_PRIVATE_KUBECONFIG"]
	raw, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatalf("load lab kubeconfig: %v", err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("lab kubeconfig: %v", err)
	}
	if err := rest.LoadTLSFiles(cfg); err != nil {
		t.Fatalf("lab kubeconfig certificates: %v", err)
	}
	return labCluster{kubeconfig: kubeconfig, context: raw.CurrentContext, config: cfg, version: fetchVersion(t, cfg)}
}

// fetchVersion reads GET /version with a plain HTTP client, not through the
// discovery client the data source uses.
func fetchVersion(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(cfg.Host + "/version")
	if err != nil {
		t.Fatalf("GET /version: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /version: %s", resp.Status)
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("decode /version: %v", err)
	}
	if v.GitVersion == "" {
		t.Fatal("the lab API server reports no gitVersion")
	}
	return v.GitVersion
}

// serviceAccountToken creates a service account in the lab cluster and returns
// a short-lived token for it from the TokenRequest API.
func serviceAccountToken(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sa, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "hca-provider-test-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service account: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.CoreV1().ServiceAccounts("default").Delete(context.Background(), sa.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete service account %s: %v", sa.Name, err)
		}
	})
	ttl := int64(600)
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("request service account token: %v", err)
	}
	return tr.Status.Token
}

func checkControlCluster(host, version string) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr("data.hca_control_cluster.this", "host", host),
		resource.TestCheckResourceAttr("data.hca_control_cluster.this", "kubernetes_version", version),
		resource.TestMatchResourceAttr("data.hca_control_cluster.this", "kubernetes_version", regexp.MustCompile(`^v1\.\d+\.\d+`)),
	)
}

func TestAccControlClusterDataSource_kubeconfig(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\n%s", lab.kubeconfig, controlClusterDataSourceHCL),
				Check:  checkControlCluster(lab.config.Host, lab.version),
			},
			{
				Config: fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n  kubeconfig_context = %q\n}\n%s",
					lab.kubeconfig, lab.context, controlClusterDataSourceHCL),
				Check: checkControlCluster(lab.config.Host, lab.version),
			},
		},
	})
}

func TestAccControlClusterDataSource_kubeconfigFromEnv(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	t.Setenv(EnvKubeConfigPath, lab.kubeconfig)
	t.Setenv(EnvKubeContext, lab.context)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: controlClusterDataSourceHCL,
			Check:  checkControlCluster(lab.config.Host, lab.version),
		}},
	})
}

func TestAccControlClusterDataSource_clientCertificate(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := lab.config
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "hca" {
  host                   = %q
  cluster_ca_certificate = %s
  client_certificate     = %s
  client_key             = %s
}
%s`, c.Host, hclString(string(c.CAData)), hclString(string(c.CertData)), hclString(string(c.KeyData)), controlClusterDataSourceHCL),
			Check: checkControlCluster(c.Host, lab.version),
		}},
	})
}

// TestAccControlClusterDataSource_directFromEnv gives the whole direct
// connection through the KUBE_* environment variables.
func TestAccControlClusterDataSource_directFromEnv(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := lab.config
	t.Setenv(EnvKubeHost, c.Host)
	t.Setenv(EnvKubeCACert, string(c.CAData))
	t.Setenv(EnvKubeClientCert, string(c.CertData))
	t.Setenv(EnvKubeClientKey, string(c.KeyData))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: controlClusterDataSourceHCL,
			Check:  checkControlCluster(c.Host, lab.version),
		}},
	})
}

func TestAccControlClusterDataSource_token(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := lab.config
	token := serviceAccountToken(t, c)
	providerBlock := func(token string) string {
		return fmt.Sprintf(`provider "hca" {
  host                   = %q
  cluster_ca_certificate = %s
  token                  = %q
}
%s`, c.Host, hclString(string(c.CAData)), token, controlClusterDataSourceHCL)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: providerBlock(token),
				Check:  checkControlCluster(c.Host, lab.version),
			},
			{
				// A token the API server does not know is rejected, which
				// shows that the token is what authenticates the request.
				Config: providerBlock("not-a-valid-token"),
				ExpectError: errorRe("Error reading control cluster", "Could not read the version of the API server at "+c.Host+":",
					"The control cluster's API server refused the provider's credentials (401 Unauthorized)"),
			},
		},
	})
}

// TestAccControlClusterDataSource_wrongCA trusts a CA that did not sign the lab
// API server's certificate.
func TestAccControlClusterDataSource_wrongCA(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := lab.config
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "hca" {
  host                   = %q
  cluster_ca_certificate = %s
  client_certificate     = %s
  client_key             = %s
}
%s`, c.Host, hclString(newTestPKI(t).CA), hclString(string(c.CertData)), hclString(string(c.KeyData)), controlClusterDataSourceHCL),
			ExpectError: errorRe("Error reading control cluster", "x509: certificate signed by unknown authority"),
		}},
	})
}

// TestAccControlClusterDataSource_example applies
// examples/data-sources/hca_control_cluster against the lab: its output is the
// lab apiserver's version.
func TestAccControlClusterDataSource_example(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	t.Setenv(EnvKubeConfigPath, lab.kubeconfig)
	example, err := os.ReadFile("../examples/data-sources/hca_control_cluster/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: string(example),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("control_cluster_version", knownvalue.StringExact(lab.version)),
			},
		}},
	})
}
