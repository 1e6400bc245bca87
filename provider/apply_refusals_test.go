package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestAccApplyRefusals applies configurations that pass plan but that the
// lab's API server or ACK emulator refuses at apply, with the real Terraform
// CLI. Each must fail with the API's reason in the provider's words, and
// leave nothing behind: no object of the refused resource's name anywhere in
// the control cluster (nor its credentials Secret or model ConfigMap), no
// ACK cluster of that name in the emulator after the test's destroy (a create
// refused halfway either rolls back or keeps the cluster in state, tainted,
// for destroy: nothing orphaned).
func TestAccApplyRefusals(t *testing.T) {
	lab := requireLabCluster(t)
	ack := requireACKLab(t) // clears the environment, sets the Alibaba Cloud keys
	c := labAdmin(t, lab)
	ackEndpoint := ack.endpoint.String()
	model := writeTestModel(t, 1)
	missingNS := func() string { return fmt.Sprintf("hca-tf-absent-%06d", rand.IntN(1e6)) }

	// noneNamed lists kind in every namespace and fails if one is named name.
	noneNamed := func(list client.ObjectList, name string) func() error {
		return func() error {
			if err := c.List(context.Background(), list); err != nil {
				if meta.IsNoMatchError(err) {
					return nil
				}
				return err
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				return err
			}
			for _, o := range items {
				if m, err := meta.Accessor(o); err == nil && m.GetName() == name {
					return fmt.Errorf("%T %s/%s was left behind", o, m.GetNamespace(), name)
				}
			}
			return nil
		}
	}
	all := func(checks ...func() error) func() error {
		return func() error {
			for _, check := range checks {
				if err := check(); err != nil {
					return err
				}
			}
			return nil
		}
	}
	noACKCluster := func(name string) func() error {
		return func() error {
			ids, err := ackClustersNamed(ack, name)
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				return fmt.Errorf("ACK cluster(s) %v named %q left in the emulator", ids, name)
			}
			return nil
		}
	}
	ackProvider := fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n  alicloud {\n    region = %q\n  }\n  endpoints {\n    ack = %q\n  }\n}\n",
		lab.kubeconfig, ackTestRegion, ackEndpoint)

	type refusal struct {
		name   string
		config string
		want   *regexp.Regexp
		// leftovers says what was left behind, after the failed apply
		// and the test's destroy.
		leftovers func() error
	}
	var cases []refusal
	{
		ns, name := missingNS(), fmt.Sprintf("web-%06d", rand.IntN(1e6))
		cases = append(cases, refusal{"burst policy in a missing namespace", accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "this" {
  name            = %q
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 3
}
`, name, ns), errorRe("Error creating burst policy", fmt.Sprintf(`The namespace %q does not exist`, ns)),
			noneNamed(&hcav1.BurstPolicyList{}, name)})
	}
	{
		ns, name := missingNS(), fmt.Sprintf("web-%06d", rand.IntN(1e6))
		cases = append(cases, refusal{"federated autoscaler in a missing namespace", accProvider(lab) + fmt.Sprintf(`
resource "hca_federated_autoscaler" "this" {
  name         = %q
  namespace    = %q
  target       = { name = "web" }
  members      = [{ cluster = "private" }]
  max_replicas = 3
}
`, name, ns), errorRe("Error creating federated autoscaler", fmt.Sprintf(`The namespace %q does not exist`, ns)),
			noneNamed(&hcav1.FederatedAutoscalerList{}, name)})
	}
	{
		ns, name := missingNS(), fmt.Sprintf("web-%06d", rand.IntN(1e6))
		cases = append(cases, refusal{"SLO in a missing namespace", accProvider(lab) + fmt.Sprintf(`
resource "hca_slo" "this" {
  name                = %q
  namespace           = %q
  target              = { name = "web" }
  slo                 = { type = "cpu-utilization", cpu_utilization = { target_average_utilization = 70 } }
  elasticity_strategy = { kind = "Horizontal", horizontal = { max_replicas = 5 } }
}
`, name, ns), errorRe("Error creating", fmt.Sprintf(`The namespace %q does not exist`, ns)),
			all(noneNamed(&hcav1.ServiceLevelObjectiveList{}, name), noneNamed(&hcav1.HorizontalElasticityStrategyList{}, name))})
	}
	{
		ns, name := missingNS(), fmt.Sprintf("web-%06d", rand.IntN(1e6))
		cases = append(cases, refusal{"multi-objective strategy in a missing namespace", accProvider(lab) + fmt.Sprintf(`
resource "hca_multi_objective_strategy" "this" {
  name       = %q
  namespace  = %q
  target     = { name = "web" }
  model_file = %q
  desired    = { response_time_ms = 100 }
  ranges     = { min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }
}
`, name, ns, model), errorRe("Error creating multi-objective strategy", fmt.Sprintf(`The namespace %q does not exist`, ns)),
			all(noneNamed(&hcav1.MultiObjectiveElasticityStrategyList{}, name), noneNamed(&corev1.ConfigMapList{}, name+"-moha-model"))})
	}
	{
		ns, name := missingNS(), fmt.Sprintf("burst-%06d", rand.IntN(1e6))
		cases = append(cases, refusal{"cluster whose credentials namespace is missing", accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name                  = %q
  role                  = "burst"
  provider_type         = "ack"
  credentials_namespace = %q
  host                  = "https://10.1.2.3:6443"
  token                 = "t0ken"
}
`, name, ns), errorRe("Error creating cluster", fmt.Sprintf(`The namespace %q does not exist`, ns)),
			all(noneNamed(&hcav1.HybridClusterList{}, name), noneNamed(&corev1.SecretList{}, clusterSecretPrefix+name))})
	}
	for _, tc := range []struct{ what, attrs, want string }{
		{"a Kubernetes version ACK does not offer", `kubernetes_version = "1.20.4-aliyun.1"`, `kubernetes_version "1.20.4-aliyun.1" is not offered`},
		{"a worker instance type ACK does not offer", `worker_instance_types = ["ecs.x9.huge"]`, `"ecs.x9.huge" is not offered`},
		{"a node pool instance type ACK does not offer", `node_pools = [{ name = "burst", instance_types = ["ecs.x9.huge"] }]`, `"ecs.x9.huge" is not offered`},
	} {
		name := fmt.Sprintf("hca-refused-%06d", rand.IntN(1e6))
		attrs := map[string]string{"kubernetes_version": "", "worker_instance_types": `worker_instance_types = ["ecs.g6.large"]`, "node_pools": ""}
		key, _, _ := strings.Cut(tc.attrs, " =")
		attrs[key] = tc.attrs
		cases = append(cases, refusal{"ACK cluster with " + tc.what, ackProvider + fmt.Sprintf(`
resource "hca_ack_cluster" "this" {
  name         = %q
  vswitch_ids  = ["vsw-hcalab1"]
  worker_count = 1
  %s
  %s
  %s
}
`, name, attrs["kubernetes_version"], attrs["worker_instance_types"], attrs["node_pools"]), errorRe("Error creating ACK cluster", tc.want),
			noACKCluster(name)})
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			accTest(t, resource.TestCase{
				CheckDestroy: func(*terraform.State) error { return tc.leftovers() },
				Steps:        []resource.TestStep{{Config: tc.config, ExpectError: tc.want}},
			})
			if err := tc.leftovers(); err != nil {
				t.Error(err)
			}
		})
	}
}

// ackClustersNamed asks the emulator (DescribeClustersV1, unmodified SDK) for
// the IDs of the clusters named name.
func ackClustersNamed(api *ackAPI, name string) ([]string, error) {
	req := cs.CreateDescribeClustersV1Request()
	api.target(req.RoaRequest)
	req.Name = name
	resp, err := api.client.DescribeClustersV1(req)
	if err != nil {
		return nil, fmt.Errorf("DescribeClustersV1: %w", err)
	}
	var body struct {
		Clusters []struct {
			ClusterID string `json:"cluster_id"`
			Name      string `json:"name"`
			State     string `json:"state"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &body); err != nil {
		return nil, fmt.Errorf("decode DescribeClustersV1: %w", err)
	}
	var ids []string
	for _, c := range body.Clusters {
		if c.Name == name && c.State != "deleted" {
			ids = append(ids, c.ClusterID+" ("+c.State+")")
		}
	}
	return ids, nil
}
