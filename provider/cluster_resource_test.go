package provider

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

// labAdmin is a client of the lab's private cluster, independent of the
// provider, with the hca CRDs installed.
func labAdmin(t *testing.T, lab labCluster) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := crd.Install(ctx, lab.config); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	c, err := client.New(lab.config, client.Options{Scheme: controlScheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testNamespace creates a namespace with a unique name, deleted after the test.
func testNamespace(t *testing.T, c client.Client, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%06d", prefix, rand.IntN(1e6))
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	return ns
}

func accProvider(lab labCluster) string {
	return fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\n", lab.kubeconfig)
}

// checkClusterGone asks the lab API server that the HybridCluster and its
// Secret are gone.
func checkClusterGone(c client.Client, name, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		err := c.Get(ctx, client.ObjectKey{Name: name}, &hcav1.HybridCluster{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("HybridCluster %s still there after destroy (get: %v)", name, err)
		}
		err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: clusterSecretPrefix + name}, &corev1.Secret{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("Secret %s/%s still there after destroy (get: %v)", ns, clusterSecretPrefix+name, err)
		}
		return nil
	}
}

// checkHybridCluster compares the object in the lab with want (spec only).
func checkHybridCluster(c client.Client, name string, check func(*hcav1.HybridCluster, *corev1.Secret) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		var hc hcav1.HybridCluster
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &hc); err != nil {
			return fmt.Errorf("get HybridCluster %s: %w", name, err)
		}
		var sec *corev1.Secret
		if ref := hc.Spec.Credentials.SecretRef; ref != nil {
			sec = &corev1.Secret{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: string(ref.Name)}, sec); err != nil {
				return fmt.Errorf("get Secret %s/%s: %w", ref.Namespace, ref.Name, err)
			}
		}
		return check(&hc, sec)
	}
}

func TestAccClusterResource_private(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-creds")
	name := fmt.Sprintf("tf-private-%06d", rand.IntN(1e6))
	cfg := lab.config
	step1 := accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name                   = %q
  role                   = "primary"
  provider_type          = "private"
  credentials_namespace  = %q
  host                   = %q
  cluster_ca_certificate = %s
  client_certificate     = %s
  client_key             = %s
  priority               = 100
  price_per_vcpu_hour    = "0.0464"
  price_per_gib_hour     = "0.0058"
  max_cpu                = "500m"
  max_pods               = 20
}
`, name, ns, cfg.Host, hclString(string(cfg.CAData)), hclString(string(cfg.CertData)), hclString(string(cfg.KeyData)))
	rawKubeconfig := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://10.9.8.7:6443\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: abc\n"
	step3 := accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name                  = %q
  role                  = "burst"
  provider_type         = "private"
  credentials_namespace = %q
  kubeconfig            = %s
  priority              = 5
  max_pods              = 7
}
`, name, ns, hclString(rawKubeconfig))

	accTest(t, resource.TestCase{
		CheckDestroy: checkClusterGone(c, name, ns),
		Steps: []resource.TestStep{
			{
				Config: step1,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_cluster.this", "id", name),
					resource.TestCheckResourceAttr("hca_cluster.this", "credentials_secret", ns+"/hca-cluster-"+name),
					resource.TestCheckResourceAttrSet("hca_cluster.this", "credentials_sha256"),
					checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
						s := hc.Spec
						if s.Role != hcav1.RolePrimary || s.Provider != hcav1.ProviderPrivate || s.Priority != 100 {
							return fmt.Errorf("spec role/provider/priority = %s/%s/%d", s.Role, s.Provider, s.Priority)
						}
						if s.Prices == nil || s.Prices.PerVCPUHour != "0.0464" || s.Prices.PerGiBHour != "0.0058" {
							return fmt.Errorf("spec.prices = %+v", s.Prices)
						}
						if s.Limits == nil || s.Limits.MaxCPU == nil || s.Limits.MaxCPU.String() != "500m" || s.Limits.MaxPods == nil || *s.Limits.MaxPods != 20 {
							return fmt.Errorf("spec.limits = %+v", s.Limits)
						}
						if sec == nil || sec.Namespace != ns {
							return fmt.Errorf("no credentials Secret in %s", ns)
						}
						// The kubeconfig written from host and certificates
						// reaches the lab API server.
						rc, err := clientcmd.RESTConfigFromKubeConfig(sec.Data["kubeconfig"])
						if err != nil {
							return fmt.Errorf("the Secret's kubeconfig: %w", err)
						}
						if got := fetchVersion(t, rc); got != lab.version {
							return fmt.Errorf("the Secret's kubeconfig reaches version %s, want %s", got, lab.version)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:      "hca_cluster.this",
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
				// Connection secrets cannot be read back.
				ImportStateVerifyIgnore: []string{"host", "cluster_ca_certificate", "client_certificate", "client_key", "kubeconfig", "token"},
			},
			{
				Config: step3,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_cluster.this", "role", "burst"),
					resource.TestCheckNoResourceAttr("hca_cluster.this", "price_per_vcpu_hour"),
					checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
						s := hc.Spec
						if s.Role != hcav1.RoleBurst || s.Priority != 5 || s.Prices != nil {
							return fmt.Errorf("spec role/priority/prices = %s/%d/%v", s.Role, s.Priority, s.Prices)
						}
						if s.Limits == nil || s.Limits.MaxCPU != nil || s.Limits.MaxPods == nil || *s.Limits.MaxPods != 7 {
							return fmt.Errorf("spec.limits = %+v", s.Limits)
						}
						if got := string(sec.Data["kubeconfig"]); got != rawKubeconfig {
							return fmt.Errorf("the Secret holds %d bytes, not the configured kubeconfig", len(got))
						}
						return nil
					}),
				),
			},
		},
	})
}

func TestAccClusterResource_eks(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	name := fmt.Sprintf("tf-eks-%06d", rand.IntN(1e6))
	hcl := func(region, extra string) string {
		return accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name             = %q
  role             = "burst"
  provider_type    = "eks"
  eks_cluster_name = "burst-1"
  region           = %q
  %s
}
`, name, region, extra)
	}
	accTest(t, resource.TestCase{
		CheckDestroy: checkClusterGone(c, name, defaultHCANamespace),
		Steps: []resource.TestStep{
			{
				Config: hcl("eu-west-1", `role_arn = "arn:aws:iam::123456789012:role/hca"`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_cluster.this", "credentials_secret", ""),
					resource.TestCheckResourceAttr("hca_cluster.this", "credentials_sha256", ""),
					checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
						e := hc.Spec.Credentials.EKS
						if e == nil || e.ClusterName != "burst-1" || e.Region != "eu-west-1" || e.RoleARN != "arn:aws:iam::123456789012:role/hca" {
							return fmt.Errorf("spec.credentials.eks = %+v", e)
						}
						if sec != nil {
							return errors.New("an eks cluster got a credentials Secret")
						}
						return nil
					}),
				),
			},
			{ResourceName: "hca_cluster.this", ImportState: true, ImportStateVerify: true},
			{
				Config: hcl("us-east-2", ""),
				Check: checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, _ *corev1.Secret) error {
					if e := hc.Spec.Credentials.EKS; e.Region != "us-east-2" || e.RoleARN != "" {
						return fmt.Errorf("spec.credentials.eks = %+v", e)
					}
					return nil
				}),
			},
		},
	})
}

// TestAccClusterResource_drift deletes the Secret, then the HybridCluster, out
// of band: each time the plan is not empty and apply restores the object.
func TestAccClusterResource_drift(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-creds")
	name := fmt.Sprintf("tf-drift-%06d", rand.IntN(1e6))
	hcl := accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name                  = %q
  role                  = "burst"
  provider_type         = "ack"
  credentials_namespace = %q
  host                  = "https://10.1.2.3:6443"
  token                 = "t0ken"
}
`, name, ns)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: clusterSecretPrefix + name}}
	del := func(o client.Object) func() {
		return func() {
			if err := c.Delete(context.Background(), o); err != nil {
				t.Fatalf("delete %s out of band: %v", o.GetName(), err)
			}
		}
	}
	exists := checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
		rc, err := clientcmd.RESTConfigFromKubeConfig(sec.Data["kubeconfig"])
		if err != nil {
			return err
		}
		if rc.Host != "https://10.1.2.3:6443" || rc.BearerToken != "t0ken" {
			return fmt.Errorf("the Secret's kubeconfig points at %s", rc.Host)
		}
		return nil
	})
	accTest(t, resource.TestCase{
		CheckDestroy: checkClusterGone(c, name, ns),
		Steps: []resource.TestStep{
			{Config: hcl, Check: exists},
			{PreConfig: del(secret), Config: hcl, PlanOnly: true, ExpectNonEmptyPlan: true},
			{Config: hcl, Check: exists},
			{PreConfig: del(&hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}), Config: hcl, PlanOnly: true, ExpectNonEmptyPlan: true},
			{Config: hcl, Check: exists},
		},
	})
}

// TestAccClusterResource_invalid checks the plan-time diagnostics that mirror
// the HybridCluster's validation; they need no lab.
func TestAccClusterResource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	conn := "host = \"https://10.0.0.1:6443\"\n  token = \"abc\""
	tests := []struct {
		name, body string
		want       []string
	}{
		{"eks without cluster name", `provider_type = "eks"` + "\n  region = \"eu-west-1\"",
			[]string{"Missing eks_cluster_name", "eks_cluster_name is required when provider_type is eks: set eks_cluster_name and region."}},
		{"eks with kubeconfig", `provider_type = "eks"` + "\n  eks_cluster_name = \"a\"\n  region = \"eu-west-1\"\n  kubeconfig = \"x\"",
			[]string{"Invalid kubeconfig", "kubeconfig is not used with provider_type eks (the runtime mints EKS tokens with its own AWS identity): remove it"}},
		{"private with region", `provider_type = "private"` + "\n  region = \"eu-west-1\"\n  " + conn,
			[]string{"Invalid region", "region is only valid with provider_type eks: remove it or set provider_type to eks."}},
		{"private without connection", `provider_type = "private"`,
			[]string{"Missing cluster connection", "provider_type private needs a kubeconfig for the runtime: set kubeconfig (its content), or host with token"}},
		{"host without credentials", `provider_type = "ack"` + "\n  host = \"https://10.0.0.1:6443\"",
			[]string{"Missing cluster credentials", "host is set without credentials: set token, or client_certificate and client_key."}},
		{"host not a URL", `provider_type = "ack"` + "\n  host = \"10.0.0.1:6443\"\n  token = \"abc\"",
			[]string{"Invalid host", `host must be an absolute http:// or https:// URL such as "https://10.0.0.1:6443"; got "10.0.0.1:6443".`}},
		{"kubeconfig not a kubeconfig", `provider_type = "ack"` + "\n  kubeconfig = \"[\"",
			[]string{"Invalid kubeconfig", "kubeconfig does not parse as a kubeconfig"}},
		{"role", `provider_type = "private"` + "\n  " + conn + "\n  role = \"spare\"",
			[]string{"Invalid Attribute Value Match", `Attribute role value must be one of: ["primary" "burst"], got: "spare"`}},
		{"priority", `provider_type = "private"` + "\n  " + conn + "\n  priority = 1000001",
			[]string{"Invalid Attribute Value", "Attribute priority value must be between 0 and 1000000, got: 1000001"}},
		{"price digits", `provider_type = "private"` + "\n  " + conn + "\n  price_per_vcpu_hour = \"0.1234567890\"\n  price_per_gib_hour = \"1\"",
			[]string{"Invalid Attribute Value Match", `Attribute price_per_vcpu_hour must be a non-negative decimal with at most 9 fractional digits, such as "0.0464", got: 0.1234567890`}},
		{"price alone", `provider_type = "private"` + "\n  " + conn + "\n  price_per_gib_hour = \"1\"",
			[]string{"Invalid Attribute Combination", `Attribute "price_per_vcpu_hour" must be specified when "price_per_gib_hour" is specified`}},
		{"max_cpu zero", `provider_type = "private"` + "\n  " + conn + "\n  max_cpu = \"0\"",
			[]string{"Invalid max_cpu", `max_cpu must be greater than 0, got "0": remove it for no limit.`}},
		{"max_pods zero", `provider_type = "private"` + "\n  " + conn + "\n  max_pods = 0",
			[]string{"Invalid Attribute Value", "Attribute max_pods value must be between 1 and 2147483647, got: 0"}},
		{"role_arn", `provider_type = "eks"` + "\n  eks_cluster_name = \"a\"\n  region = \"eu-west-1\"\n  role_arn = \"hca\"",
			[]string{"Invalid Attribute Value Match", `Attribute role_arn must be an IAM role ARN such as "arn:aws:iam::123456789012:role/hca", got: hca`}},
		{"region", `provider_type = "eks"` + "\n  eks_cluster_name = \"a\"\n  region = \"Europe\"",
			[]string{"Invalid Attribute Value Match", `Attribute region must be an AWS region such as "eu-west-1", got: Europe`}},
		{"kubeconfig current-context missing", `provider_type = "ack"` + "\n  kubeconfig = " + hclString(kubeconfigMissingContext),
			[]string{"Invalid kubeconfig", `kubeconfig's current-context "prod" is not one of its contexts: set current-context to one of: "lab".`}},
		{"kubeconfig without current-context", `provider_type = "ack"` + "\n  kubeconfig = " + hclString(strings.Replace(kubeconfigMissingContext, "current-context: prod\n", "", 1)),
			[]string{"Invalid kubeconfig", `kubeconfig has no current-context, which the runtime uses: set current-context to one of: "lab".`}},
		{"token with client certificate", `provider_type = "private"` + "\n  " + conn + "\n  client_certificate = \"c\"\n  client_key = \"k\"",
			[]string{"Invalid Attribute Combination", `Attribute "client_certificate" cannot be specified when "token" is specified`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			role := "\n  role = \"burst\""
			if tt.name == "role" {
				role = ""
			}
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\nresource \"hca_cluster\" \"this\" {\n  name = \"x\"%s\n  %s\n}\n",
						kubeconfig, role, tt.body),
					ExpectError: errorRe(tt.want[0], tt.want[1:]...),
				}},
			})
		})
	}
	t.Run("name", func(t *testing.T) {
		prepareAccEnv(t)
		accTest(t, resource.TestCase{
			Steps: []resource.TestStep{{
				Config: fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\nresource \"hca_cluster\" \"this\" {\n  name = \"Burst_1\"\n  role = \"burst\"\n  provider_type = \"eks\"\n  eks_cluster_name = \"a\"\n  region = \"eu-west-1\"\n}\n", kubeconfig),
				ExpectError: errorRe("Invalid Attribute Value Match",
					"Attribute name must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, got: Burst_1"),
			}},
		})
	})
}

// TestAccClusterResource_noOrphanSecret makes the HybridCluster's creation
// fail (one of that name exists already) and checks that the Secret created
// just before it is deleted again.
func TestAccClusterResource_noOrphanSecret(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-creds")
	name := fmt.Sprintf("tf-taken-%06d", rand.IntN(1e6))
	taken := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "other", Region: "eu-west-1"}}}}
	if err := c.Create(context.Background(), taken); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), taken) })
	hcl := accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name                  = %q
  role                  = "burst"
  provider_type         = "ack"
  credentials_namespace = %q
  host                  = "https://10.1.2.3:6443"
  token                 = "t0ken"
}
`, name, ns)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      hcl,
			ExpectError: errorRe("Error creating cluster", fmt.Sprintf("Could not create the HybridCluster %q:", name), "It already exists: import it"),
		}},
	})
	err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: clusterSecretPrefix + name}, &corev1.Secret{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the credentials Secret was left behind after the failed create (get: %v)", err)
	}
	var hc hcav1.HybridCluster
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, &hc); err != nil || hc.Spec.Credentials.EKS == nil {
		t.Errorf("the existing HybridCluster was changed or deleted: %v %+v", err, hc.Spec)
	}
}

// TestAccClusterResource_example plans examples/resources/hca_cluster with the
// real Terraform CLI: it is valid and passes every plan-time check.
func TestAccClusterResource_example(t *testing.T) {
	prepareAccEnv(t)
	pki := newTestPKI(t)
	t.Setenv(EnvKubeConfigPath, writeKubeconfig(t, pki, "lab"))
	t.Setenv(EnvKubeContext, "lab")
	kc := writeKubeconfig(t, pki, "lab")
	example, err := os.ReadFile("../examples/resources/hca_cluster/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: string(example),
			ConfigVariables: tfconfig.Variables{
				"private_kubeconfig_path": tfconfig.StringVariable(kc),
				"ack_host":                tfconfig.StringVariable("https://10.0.0.1:6443"),
				"ack_ca":                  tfconfig.StringVariable(pki.CA),
				"ack_token":               tfconfig.StringVariable("token"),
			},
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// kubeconfigMissingContext is a kubeconfig whose current-context names no
// context of it.
const kubeconfigMissingContext = `apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: https://127.0.0.1:6443
users:
- name: lab
  user:
    token: abc
contexts:
- name: lab
  context:
    cluster: lab
    user: lab
current-context: prod
`

// TestValidateCluster checks that values unknown at plan time are neither
// refused where they are not allowed nor missing where they are required.
func TestValidateCluster(t *testing.T) {
	null, unknown := types.StringNull(), types.StringUnknown()
	base := func(provider string) clusterModel {
		return clusterModel{Name: types.StringValue("x"), Provider: types.StringValue(provider), Kubeconfig: null, Host: null,
			ClusterCACertificate: null, Token: null, ClientCertificate: null, ClientKey: null, EKSClusterName: null, Region: null, RoleARN: null}
	}
	tests := []struct {
		name   string
		modify func(*clusterModel)
		want   string
	}{
		{"eks with unknown kubeconfig", func(m *clusterModel) {
			*m = base("eks")
			m.EKSClusterName, m.Region, m.Kubeconfig = types.StringValue("a"), types.StringValue("eu-west-1"), unknown
		}, ""},
		{"eks with unknown name and region", func(m *clusterModel) {
			*m = base("eks")
			m.EKSClusterName, m.Region = unknown, unknown
		}, ""},
		{"private with unknown region", func(m *clusterModel) {
			*m = base("private")
			m.Kubeconfig, m.Region = unknown, unknown
		}, ""},
		{"private with unknown host and token", func(m *clusterModel) {
			*m = base("private")
			m.Host, m.Token = unknown, unknown
		}, ""},
		{"private with known host and unknown token", func(m *clusterModel) {
			*m = base("private")
			m.Host, m.Token = types.StringValue("https://10.0.0.1:6443"), unknown
		}, ""},
		{"private with known region", func(m *clusterModel) {
			*m = base("private")
			m.Kubeconfig, m.Region = unknown, types.StringValue("eu-west-1")
		}, "region is only valid with provider_type eks: remove it or set provider_type to eks."},
		{"private without connection", func(m *clusterModel) { *m = base("private") },
			"provider_type private needs a kubeconfig for the runtime: set kubeconfig (its content), or host with token, or host with client_certificate and client_key."},
		{"unknown provider_type", func(m *clusterModel) {
			*m = base("eks")
			m.Provider, m.Kubeconfig = unknown, types.StringValue("x")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m clusterModel
			tt.modify(&m)
			got := ""
			if d := validateCluster(&m); d.HasError() {
				got = d.Errors()[0].Detail()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCreateHint checks what a refused create tells the user to do; a missing
// namespace is named as such, not blamed on credentials or CRDs.
func TestCreateHint(t *testing.T) {
	gr := func(r string) schema.GroupResource { return schema.GroupResource{Resource: r} }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"namespace missing", apierrors.NewNotFound(gr("namespaces"), "shop"),
			`The namespace "shop" does not exist: create it first, or set namespace to an existing namespace.`},
		{"already exists", apierrors.NewAlreadyExists(gr("burstpolicies"), "web"),
			"It already exists: import it (terraform import) or choose another name."},
		{"forbidden", apierrors.NewForbidden(gr("burstpolicies"), "web", errors.New("no")),
			"The provider's credentials may not create it: grant them create on it."},
		{"kind not installed", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "hca.dev", Kind: "BurstPolicy"}},
			"The hca.dev CRDs are not installed in the control cluster: install them with hca_runtime (and add depends_on = [hca_runtime.this])."},
		{"unauthorized", apierrors.NewUnauthorized("Unauthorized"), unauthorizedHint},
		// controller-runtime's REST mapper wraps the discovery error.
		{"unauthorized discovery", fmt.Errorf("failed to get server groups: %w", apierrors.NewUnauthorized("Unauthorized")), unauthorizedHint},
		{"other not found", apierrors.NewNotFound(gr("burstpolicies"), "web"),
			"Check that the provider's credentials may write it and that the hca CRDs are installed (hca_runtime)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := createHint(tt.err, "shop", "namespace"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReadHint checks what a failed read tells the user: a refused token
// (401) is told apart from missing rights (403).
func TestReadHint(t *testing.T) {
	gr := schema.GroupResource{Group: "hca.dev", Resource: "hybridclusters"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unauthorized", apierrors.NewUnauthorized("Unauthorized"), unauthorizedHint},
		{"unauthorized discovery", fmt.Errorf("failed to get server groups: %w", apierrors.NewUnauthorized("Unauthorized")), unauthorizedHint},
		{"forbidden", apierrors.NewForbidden(gr, "burst-1", errors.New("no")),
			"The provider's credentials may not read it: grant get on hca.dev resources to its user."},
		{"kind not installed", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "hca.dev", Kind: "HybridCluster"}},
			"The hca CRDs are not installed in the control cluster: install them with an hca_runtime resource."},
		{"other", errors.New("connection refused"), "Check that the control cluster's API server is reachable from where Terraform runs."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readHint(tt.err); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
