package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	tftypes "github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// checkRuntimeGone asks the lab API server that everything the install in ns
// created is gone, and that the shared CRDs are still there.
func checkRuntimeGone(c client.Client, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		name := runtimeClusterRoleName(ns)
		for _, o := range []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}},
		} {
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s still there after destroy (get: %v)", o, o.GetName(), err)
			}
		}
		names, err := crdNames()
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := c.Get(ctx, client.ObjectKey{Name: n}, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
				return fmt.Errorf("the shared CRD %s was removed (remove_crds is false): %v", n, err)
			}
		}
		return nil
	}
}

// checkDeployment checks the runtime's Deployment in the lab.
func checkDeployment(c client.Client, ns string, check func(*appsv1.Deployment) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var d appsv1.Deployment
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: config.Name}, &d); err != nil {
			return fmt.Errorf("get Deployment: %w", err)
		}
		return check(&d)
	}
}

func runtimeHCL(lab labCluster, ns, body string) string {
	return accProvider(lab) + fmt.Sprintf(`
resource "hca_runtime" "this" {
  namespace = %q
  %s
}
`, ns, body)
}

func TestAccRuntimeResource_basic(t *testing.T) {
	lab := requireLabCluster(t)
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL", "CONSUL_HTTP_ADDR")
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := fmt.Sprintf("hca-tf-rt-%06d", rand.IntN(1e6))
	consul := strings.TrimPrefix(strings.TrimPrefix(env["CONSUL_HTTP_ADDR"], "http://"), "https://")
	var uid types.UID
	crds, err := crdNames()
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		CheckDestroy: checkRuntimeGone(c, ns),
		Steps: []resource.TestStep{
			{
				Config: runtimeHCL(lab, ns, fmt.Sprintf(`image = "hca-runtime:v1"
  prometheus_url = %q
  consul_address = %q
  force_destroy  = true # the lab holds other tests' hca objects`, env["HCA_LAB_PROMETHEUS_URL"], consul)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_runtime.this", "id", ns),
					resource.TestCheckResourceAttr("hca_runtime.this", "namespace_created", "true"),
					resource.TestCheckResourceAttr("hca_runtime.this", "cluster_role", "hca-runtime-"+ns),
					resource.TestCheckResourceAttr("hca_runtime.this", "crds.#", strconv.Itoa(len(crds))),
					checkDeployment(c, ns, func(d *appsv1.Deployment) error {
						uid = d.UID
						ctr := d.Spec.Template.Spec.Containers[0]
						if ctr.Image != "hca-runtime:v1" || *d.Spec.Replicas != 1 || d.Status.AvailableReplicas != 1 {
							return fmt.Errorf("image %s, replicas %d, available %d", ctr.Image, *d.Spec.Replicas, d.Status.AvailableReplicas)
						}
						for _, a := range []string{"--log-level=info", "--prometheus-url=" + env["HCA_LAB_PROMETHEUS_URL"], "--consul-addr=" + consul} {
							if !slices.Contains(ctr.Args, a) {
								return fmt.Errorf("args %q lack %s", ctr.Args, a)
							}
						}
						if d.ManagedFields[0].Manager != config.FieldManager {
							return fmt.Errorf("field manager %s", d.ManagedFields[0].Manager)
						}
						return nil
					}),
					func(*terraform.State) error {
						var b rbacv1.ClusterRoleBinding
						if err := c.Get(context.Background(), client.ObjectKey{Name: "hca-runtime-" + ns}, &b); err != nil {
							return err
						}
						if b.RoleRef.Name != "hca-runtime-"+ns || b.Subjects[0].Namespace != ns {
							return fmt.Errorf("binding %+v %+v", b.RoleRef, b.Subjects)
						}
						return nil
					},
				),
			},
			{
				ResourceName:            "hca_runtime.this",
				ImportState:             true,
				ImportStateId:           ns,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"force_destroy", "remove_crds"},
			},
			{
				// Upgrade: the same Deployment, changed in place.
				Config: runtimeHCL(lab, ns, `image = "hca-runtime:v2"
  replicas      = 2
  log_level     = "debug"
  force_destroy = true
  resources = {
    cpu_request    = "50m"
    memory_request = "64Mi"
    memory_limit   = "512Mi"
  }
  aws = {
    region       = "eu-west-1"
    eks_endpoint = "http://127.0.0.1:1"
  }
  cluster_probe_interval      = "5s"
  control_interval            = "1m"
  service_account_annotations = { "eks.amazonaws.com/role-arn" = "arn:aws:iam::123456789012:role/hca" }
  timeouts = {
    update = "3m"
  }`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_runtime.this", "control_interval", "1m"),
					func(*terraform.State) error {
						var sa corev1.ServiceAccount
						if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: config.Name}, &sa); err != nil {
							return err
						}
						if got := sa.Annotations["eks.amazonaws.com/role-arn"]; got != "arn:aws:iam::123456789012:role/hca" {
							return fmt.Errorf("service account annotation = %q", got)
						}
						return nil
					},
					checkDeployment(c, ns, func(d *appsv1.Deployment) error {
						ctr := d.Spec.Template.Spec.Containers[0]
						if d.UID != uid {
							return fmt.Errorf("the Deployment was replaced (uid %s, was %s)", d.UID, uid)
						}
						if ctr.Image != "hca-runtime:v2" || *d.Spec.Replicas != 2 || d.Status.AvailableReplicas != 2 || d.Status.UpdatedReplicas != 2 {
							return fmt.Errorf("image %s, replicas %d, available %d", ctr.Image, *d.Spec.Replicas, d.Status.AvailableReplicas)
						}
						for _, a := range []string{"--log-level=debug", "--leader-elect=true", "--aws-region=eu-west-1", "--eks-endpoint=http://127.0.0.1:1",
							"--cluster-probe-interval=5s", "--burst-metrics-interval=1m0s"} {
							if !slices.Contains(ctr.Args, a) {
								return fmt.Errorf("args %q lack %s", ctr.Args, a)
							}
						}
						if slices.ContainsFunc(ctr.Args, func(a string) bool { return strings.HasPrefix(a, "--sts-endpoint") }) {
							return fmt.Errorf("sts_endpoint unset but args are %q", ctr.Args)
						}
						if slices.ContainsFunc(ctr.Args, func(a string) bool { return strings.HasPrefix(a, "--prometheus-url=") }) {
							return fmt.Errorf("prometheus_url removed but args are %q", ctr.Args)
						}
						r := ctr.Resources
						if r.Requests.Cpu().String() != "50m" || r.Requests.Memory().String() != "64Mi" || r.Limits.Memory().String() != "512Mi" {
							return fmt.Errorf("resources %+v", r)
						}
						// 512Mi (536870912 bytes) less a tenth (53687091, more than 40 MiB).
						if i := slices.IndexFunc(ctr.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" }); i < 0 || ctr.Env[i].Value != "483183821" {
							return fmt.Errorf("env %+v: want GOMEMLIMIT 483183821 (the 512Mi limit less a tenth)", ctr.Env)
						}
						return nil
					})),
			},
			{
				ResourceName:            "hca_runtime.this",
				ImportState:             true,
				ImportStateId:           ns,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"force_destroy", "remove_crds", "timeouts"},
			},
		},
	})
}

// TestAccRuntimeResource_refusesDestroy shows that destroy refuses while a
// HybridCluster exists, and goes through with force_destroy.
func TestAccRuntimeResource_refusesDestroy(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := fmt.Sprintf("hca-tf-rt-%06d", rand.IntN(1e6))
	// One hca object of this test, whatever the other tests leave in the lab.
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: ns}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "x", Region: "eu-west-1"}}}}
	if err := c.Create(context.Background(), hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), hc) })
	accTest(t, resource.TestCase{
		CheckDestroy: checkRuntimeGone(c, ns),
		Steps: []resource.TestStep{
			{Config: runtimeHCL(lab, ns, `image = "hca-runtime:v1"`)},
			{
				// Removing the resource from the configuration destroys it.
				Config:      accProvider(lab),
				ExpectError: errorRe("Cannot destroy runtime while hca objects exist", "hca object(s) that the runtime manages:", "set force_destroy = true"),
			},
			{
				Config: runtimeHCL(lab, ns, `image = "hca-runtime:v1"
  force_destroy = true`),
				Check: checkDeployment(c, ns, func(*appsv1.Deployment) error { return nil }),
			},
		},
	})
}

// TestAccRuntimeResource_drift deletes the Deployment out of band: the plan is
// not empty and apply installs it again.
func TestAccRuntimeResource_drift(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := fmt.Sprintf("hca-tf-rt-%06d", rand.IntN(1e6))
	hcl := runtimeHCL(lab, ns, `image = "hca-runtime:v1"
  force_destroy = true`)
	accTest(t, resource.TestCase{
		CheckDestroy: checkRuntimeGone(c, ns),
		Steps: []resource.TestStep{
			{Config: hcl},
			{
				PreConfig: func() {
					d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: config.Name}}
					if err := c.Delete(context.Background(), d); err != nil {
						t.Fatalf("delete Deployment out of band: %v", err)
					}
				},
				Config:             hcl,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_runtime.this", "namespace_created", "true"),
					checkDeployment(c, ns, func(d *appsv1.Deployment) error {
						if d.Status.AvailableReplicas != 1 {
							return fmt.Errorf("%d replicas available", d.Status.AvailableReplicas)
						}
						return nil
					}),
				),
			},
		},
	})
}

func TestAccRuntimeResource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	tests := []struct {
		name, body string
		want       []string
	}{
		{"replicas", `image = "a"` + "\n  replicas = 0", []string{"Invalid Attribute Value", "Attribute replicas value must be between 1 and 10, got: 0"}},
		{"log_level", `image = "a"` + "\n  log_level = \"verbose\"", []string{"Invalid Attribute Value Match", `Attribute log_level value must be one of: ["debug" "info" "warn" "error"], got: "verbose"`}},
		{"prometheus_url", `image = "a"` + "\n  prometheus_url = \"prometheus:9090\"", []string{"Invalid prometheus_url", `prometheus_url must be an absolute http:// or https:// URL such as "http://prometheus.monitoring:9090"; got "prometheus:9090".`}},
		{"consul_address", `image = "a"` + "\n  consul_address = \"consul\"", []string{"Invalid consul_address", `consul_address must be host:port with a port from 1 to 65535, such as "127.0.0.1:8500"; got "consul".`}},
		{"namespace", `image = "a"` + "\n  namespace = \"HCA\"", []string{"Invalid Attribute Value Match", "Attribute namespace must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, got: HCA"}},
		{"image", `image = "hca runtime"`, []string{"Invalid Attribute Value Match", "Attribute image must not contain white space, got: hca runtime"}},
		{"cpu_request", `image = "a"` + "\n  resources = { cpu_request = \"-1\" }", []string{"Invalid resources.cpu_request", `resources.cpu_request must be greater than 0, got "-1"`}},
		{"control_interval", `image = "a"` + "\n  control_interval = \"500ms\"", []string{"Invalid control_interval", `control_interval must be in [1s, 10m0s], got "500ms".`}},
		{"cluster_probe_interval", `image = "a"` + "\n  cluster_probe_interval = \"often\"", []string{"Invalid Attribute Value Match", `Attribute cluster_probe_interval must be a Go duration such as "30s", "5m" or "1h30m", got: often`}},
		{"aws.eks_endpoint", `image = "a"` + "\n  aws = { eks_endpoint = \"eks.local\" }", []string{"Invalid aws.eks_endpoint", `aws.eks_endpoint must be an absolute http:// or https:// URL such as "https://eks.eu-west-1.amazonaws.com"; got "eks.local".`}},
		{"aws.region", `image = "a"` + "\n  aws = { region = \"Europe\" }", []string{"Invalid Attribute Value Match", "Attribute aws.region must be an AWS region such as eu-west-1, got: Europe"}},
		{"service_account_annotations", `image = "a"` + "\n  service_account_annotations = { \"bad key!\" = \"x\" }", []string{"Invalid Attribute Value Match", "must be an annotation key"}},
		{"memory_limit", `image = "a"` + "\n  resources = { memory_limit = \"lots\" }", []string{"Invalid resources.memory_limit", `resources.memory_limit "lots" is not a Kubernetes quantity`}},
		{"memory limit below request", `image = "a"` + "\n  resources = { memory_request = \"256Mi\", memory_limit = \"128Mi\" }",
			[]string{"Invalid resources.memory_request", "resources.memory_request (256Mi) must be at most resources.memory_limit (128Mi): Kubernetes refuses a memory request above its limit."}},
		{"cpu limit below request", `image = "a"` + "\n  resources = { cpu_request = \"1\", cpu_limit = \"500m\" }",
			[]string{"Invalid resources.cpu_request", "resources.cpu_request (1) must be at most resources.cpu_limit (500m)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\nresource \"hca_runtime\" \"this\" {\n  %s\n}\n", kubeconfig, tt.body),
					ExpectError: errorRe(tt.want[0], tt.want[1:]...),
				}},
			})
		})
	}
}

// TestAccRuntimeResource_example plans examples/resources/hca_runtime with the
// real Terraform CLI: it is valid and passes every plan-time check.
func TestAccRuntimeResource_example(t *testing.T) {
	planExample(t, "hca_runtime")
}

// TestAccRuntimeResource_existingNamespace installs into a namespace that
// existed before: destroy removes the install's objects and keeps the namespace.
func TestAccRuntimeResource_existingNamespace(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-rt-own")
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			ctx := context.Background()
			var n corev1.Namespace
			if err := c.Get(ctx, client.ObjectKey{Name: ns}, &n); err != nil || n.DeletionTimestamp != nil {
				return fmt.Errorf("the namespace %s, which existed before, was deleted (get: %v)", ns, err)
			}
			for _, o := range []client.Object{
				&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: config.Name}},
				&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: config.Name}},
				&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: config.Name + "-metrics"}},
				&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: config.Name + "-leader-election"}},
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: runtimeClusterRoleName(ns)}},
			} {
				if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
					return fmt.Errorf("%T %s still there after destroy (get: %v)", o, o.GetName(), err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: runtimeHCL(lab, ns, `image = "hca-runtime:v1"
  force_destroy = true`),
			Check: resource.TestCheckResourceAttr("hca_runtime.this", "namespace_created", "false"),
		}},
	})
}

func TestValidateRuntimeResources(t *testing.T) {
	str := func(v string) tftypes.String {
		switch v {
		case "":
			return tftypes.StringNull()
		case "?":
			return tftypes.StringUnknown()
		}
		return tftypes.StringValue(v)
	}
	tests := []struct {
		cpuReq, cpuLim, memReq, memLim string
		want                           string
	}{
		{"100m", "1", "128Mi", "256Mi", ""},
		{"1", "1", "1Gi", "1024Mi", ""},
		{"", "500m", "", "64Mi", ""},
		{"?", "500m", "1Gi", "?", ""},
		{"1", "500m", "", "", "resources.cpu_request (1) must be at most resources.cpu_limit (500m): Kubernetes refuses a cpu request above its limit. Lower the request or raise the limit."},
		{"", "", "0.5Gi", "256Mi", "resources.memory_request (0.5Gi) must be at most resources.memory_limit (256Mi): Kubernetes refuses a memory request above its limit. Lower the request or raise the limit."},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%s/%s", tt.cpuReq, tt.cpuLim, tt.memReq, tt.memLim), func(t *testing.T) {
			d := validateRuntimeResources(&runtimeResources{CPURequest: str(tt.cpuReq), CPULimit: str(tt.cpuLim), MemoryRequest: str(tt.memReq), MemoryLimit: str(tt.memLim)})
			got := ""
			if d.HasError() {
				got = d.Errors()[0].Detail()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAccRuntimeResource_rollback makes an install fail after it has created
// the namespace and the cluster-wide RBAC (a CPU request no lab node fits:
// the rollout never completes within the create timeout). Nothing is saved,
// and everything the create made is deleted again.
func TestAccRuntimeResource_rollback(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := fmt.Sprintf("hca-tf-rt-rb-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		CheckDestroy: checkRuntimeGone(c, ns),
		Steps: []resource.TestStep{{
			Config: runtimeHCL(lab, ns, `image = "hca-runtime:v1"
  resources = { cpu_request = "100000" }
  timeouts  = { create = "20s" }`),
			ExpectError: errorRe("Error installing runtime", fmt.Sprintf("The Deployment %s/hca-runtime did not roll out:", ns)),
		}, {
			// Nothing is left, and nothing was saved: the plan creates it.
			PreConfig: func() {
				if err := checkRuntimeGone(c, ns)(nil); err != nil {
					t.Errorf("after the failed create: %v", err)
				}
			},
			Config:             runtimeHCL(lab, ns, `image = "hca-runtime:v1"`),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
