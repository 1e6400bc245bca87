package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// TestAccEndToEnd applies one configuration that does what a user of HCA
// does: create an EKS and an ACK cluster (lab emulators, driven by the
// provider through the real SDKs), install the runtime into the control
// cluster, register the private cluster and both cloud clusters, and declare
// a burst policy and an SLO enforced by it. It checks each object in the real
// APIs, then destroys everything and checks that nothing it created is left.
func TestAccEndToEnd(t *testing.T) {
	lab := requireLabCluster(t)
	ack := requireACKLab(t)
	awsLab := requireEKSLab(t)
	// requireEKSLab prepared the environment again, clearing the Alibaba
	// Cloud keys requireACKLab set.
	t.Setenv(EnvAlicloudAccessKey, emulator.AlicloudAccessKey)
	t.Setenv(EnvAlicloudSecretKey, emulator.AlicloudAccessSecret)
	c := labAdmin(t, lab)
	app := testNamespace(t, c, "hca-e2e-app")
	id := fmt.Sprintf("hca-e2e-%06d", rand.IntN(1e6))
	runtimeNS := id
	private, eksName, ackName := id+"-private", id+"-eks", id+"-ack"
	cfg := lab.config

	hcl := fmt.Sprintf(`
provider "hca" {
  kubeconfig_path = %[1]q
  alicloud {
    region = %[2]q
  }
  endpoints {
    eks = %[3]q
    sts = %[3]q
    ack = %[4]q
  }
}

resource "hca_runtime" "this" {
  namespace     = %[5]q
  image         = "hca-runtime:e2e"
  force_destroy = true # the shared lab holds other tests' hca objects
}

resource "hca_eks_cluster" "burst" {
  name       = %[6]q
  version    = "1.34"
  role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
  subnet_ids = ["subnet-0a1", "subnet-0b2"]
  node_group = {
    name           = "workers"
    node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
    instance_types = ["t3.medium"]
    min_size       = 1
    max_size       = 3
    desired_size   = 1
  }
}

resource "hca_ack_cluster" "burst" {
  name                  = %[7]q
  vswitch_ids           = ["vsw-hcalab1"]
  worker_instance_types = ["ecs.g6.large"]
  worker_count          = 1
}

resource "hca_cluster" "private" {
  name                   = %[8]q
  role                   = "primary"
  provider_type          = "private"
  credentials_namespace  = hca_runtime.this.namespace
  host                   = %[9]q
  cluster_ca_certificate = %[10]s
  client_certificate     = %[11]s
  client_key             = %[12]s
  priority               = 100
}

resource "hca_cluster" "eks" {
  name                = %[13]q
  role                = "burst"
  provider_type       = "eks"
  eks_cluster_name    = hca_eks_cluster.burst.name
  region              = %[14]q
  priority            = 10
  price_per_vcpu_hour = "0.0464"
  price_per_gib_hour  = "0.0058"
  depends_on          = [hca_runtime.this]
}

resource "hca_cluster" "ack" {
  name                  = %[15]q
  role                  = "burst"
  provider_type         = "ack"
  credentials_namespace = hca_runtime.this.namespace
  kubeconfig            = hca_ack_cluster.burst.kubeconfig
  priority              = 5
}

resource "hca_burst_policy" "web" {
  name            = "web"
  namespace       = %[16]q
  target          = { deployment_name = "web" }
  primary_cluster = hca_cluster.private.name
  burst_targets   = [{ cluster = hca_cluster.eks.name }, { cluster = hca_cluster.ack.name }]
  max_replicas    = 20
}

resource "hca_slo" "web" {
  name      = "web-latency"
  namespace = %[16]q
  target    = { name = "web" }
  slo = {
    type    = "latency"
    latency = { percentile = "99", threshold = "250ms" }
  }
  elasticity_strategy = {
    kind  = "Burst"
    burst = { burst_policy_name = hca_burst_policy.web.name }
  }
}
`, lab.kubeconfig, ackTestRegion, awsLab.endpoint, ack.endpoint.String(), runtimeNS, eksName, ackName,
		private, cfg.Host, hclString(string(cfg.CAData)), hclString(string(cfg.CertData)), hclString(string(cfg.KeyData)),
		eksName, eksTestRegion, ackName, app)

	accTest(t, resource.TestCase{
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			checkSLOGone(c, app, "web-latency"),
			func(*terraform.State) error {
				err := c.Get(context.Background(), client.ObjectKey{Namespace: app, Name: "web"}, &hcav1.BurstPolicy{})
				if !apierrors.IsNotFound(err) {
					return fmt.Errorf("BurstPolicy %s/web still there after destroy (get: %v)", app, err)
				}
				return nil
			},
			checkClusterGone(c, private, runtimeNS),
			checkClusterGone(c, eksName, runtimeNS),
			checkClusterGone(c, ackName, runtimeNS),
			func(*terraform.State) error {
				err := c.Get(context.Background(), client.ObjectKey{Namespace: runtimeNS, Name: config.Name}, &appsv1.Deployment{})
				if !apierrors.IsNotFound(err) {
					return fmt.Errorf("runtime Deployment %s/%s still there after destroy (get: %v)", runtimeNS, config.Name, err)
				}
				return nil
			},
			checkRuntimeGone(c, runtimeNS),
			awsLab.checkDestroyed,
			ackCheckDestroyed(ack),
		),
		Steps: []resource.TestStep{{
			Config: hcl,
			Check: resource.ComposeAggregateTestCheckFunc(
				// The cloud clusters, through the SDKs.
				func(s *terraform.State) error {
					out, err := awsLab.client.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String(eksName)})
					if err != nil {
						return fmt.Errorf("DescribeCluster %s: %w", eksName, err)
					}
					if out.Cluster.Status != ekstypes.ClusterStatusActive {
						return fmt.Errorf("EKS cluster %s is %s, want ACTIVE", eksName, out.Cluster.Status)
					}
					return nil
				},
				awsLab.checkNodegroupDesired(eksName, "workers", 1),
				func(s *terraform.State) error {
					ackID := s.RootModule().Resources["hca_ack_cluster.burst"].Primary.ID
					d, err := ackDescribe(ack, ackID)
					if err != nil {
						return fmt.Errorf("DescribeClusterDetail %s: %w", ackID, err)
					}
					if d.State != "running" || d.Name != ackName {
						return fmt.Errorf("ACK cluster %s is %s %q, want running %q", ackID, d.State, d.Name, ackName)
					}
					return nil
				},
				// The runtime, in the control cluster.
				checkDeployment(c, runtimeNS, func(d *appsv1.Deployment) error {
					if d.Spec.Template.Spec.Containers[0].Image != "hca-runtime:e2e" || d.Status.AvailableReplicas != 1 {
						return fmt.Errorf("image %s, %d replicas available", d.Spec.Template.Spec.Containers[0].Image, d.Status.AvailableReplicas)
					}
					return nil
				}),
				// The registrations: the private and ACK credentials reach
				// their clusters; EKS is registered by name.
				checkHybridCluster(c, private, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
					if hc.Spec.Role != hcav1.RolePrimary || hc.Spec.Provider != hcav1.ProviderPrivate || sec == nil || sec.Namespace != runtimeNS {
						return fmt.Errorf("spec %+v, secret %v", hc.Spec, sec != nil)
					}
					return checkKubeconfigReaches(sec, cfg.Host)
				}),
				func(s *terraform.State) error {
					ac := s.RootModule().Resources["hca_ack_cluster.burst"]
					return checkHybridCluster(c, ackName, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
						if hc.Spec.Role != hcav1.RoleBurst || hc.Spec.Provider != hcav1.ProviderACK || sec == nil || sec.Namespace != runtimeNS {
							return fmt.Errorf("spec %+v, secret %v", hc.Spec, sec != nil)
						}
						return checkKubeconfigReaches(sec, ac.Primary.Attributes["api_server_endpoint"])
					})(s)
				},
				checkHybridCluster(c, eksName, func(hc *hcav1.HybridCluster, sec *corev1.Secret) error {
					e := hc.Spec.Credentials.EKS
					if hc.Spec.Provider != hcav1.ProviderEKS || e == nil || e.ClusterName != eksName || e.Region != eksTestRegion || sec != nil {
						return fmt.Errorf("spec %+v eks %+v", hc.Spec, e)
					}
					if hc.Spec.Prices == nil || hc.Spec.Prices.PerVCPUHour != "0.0464" {
						return fmt.Errorf("prices %+v", hc.Spec.Prices)
					}
					return nil
				}),
				// The policy and the SLO that drives it.
				checkBurstPolicy(c, app, "web", func(bp *hcav1.BurstPolicy) error {
					s := bp.Spec
					if string(s.PrimaryCluster) != private || len(s.BurstTargets) != 2 || string(s.BurstTargets[0].Cluster) != eksName || string(s.BurstTargets[1].Cluster) != ackName {
						return fmt.Errorf("primary %s, burst targets %+v", s.PrimaryCluster, s.BurstTargets)
					}
					return nil
				}),
				checkSLO(c, app, "web-latency", func(slo *hcav1.ServiceLevelObjective) error {
					e := slo.Spec.ElasticityStrategy
					if slo.Spec.SLO.Type != hcav1.SLOLatency || e.Kind != hcav1.StrategyBurst || e.Burst == nil || e.Burst.BurstPolicyName != "web" {
						return fmt.Errorf("slo %+v strategy %+v", slo.Spec.SLO, e)
					}
					return nil
				}),
			),
		}},
	})
}

// checkKubeconfigReaches checks that the kubeconfig of a credentials Secret
// points at host and that its API server answers with it.
func checkKubeconfigReaches(sec *corev1.Secret, host string) error {
	rc, err := clientcmd.RESTConfigFromKubeConfig(sec.Data[clusterSecretKey])
	if err != nil {
		return fmt.Errorf("the Secret %s/%s's kubeconfig: %w", sec.Namespace, sec.Name, err)
	}
	if rc.Host != host {
		return fmt.Errorf("the Secret %s/%s's kubeconfig points at %s, want %s", sec.Namespace, sec.Name, rc.Host, host)
	}
	kc, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	if _, err := kc.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("the Secret %s/%s's kubeconfig does not reach %s: %w", sec.Namespace, sec.Name, host, err)
	}
	return nil
}
