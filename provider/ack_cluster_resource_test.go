package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

const ackTestRegion = "cn-hangzhou"

// requireACKLab returns the lab's ACK emulator through the unmodified CS SDK
// client, and sets the Alibaba Cloud environment the provider reads.
func requireACKLab(t *testing.T) *ackAPI {
	t.Helper()
	env := labtest.Require(t, "HCA_LAB_ACK_ENDPOINT")
	prepareAccEnv(t)
	t.Setenv(EnvAlicloudAccessKey, emulator.AlicloudAccessKey)
	t.Setenv(EnvAlicloudSecretKey, emulator.AlicloudAccessSecret)
	client, err := cs.NewClientWithAccessKey(ackTestRegion, emulator.AlicloudAccessKey, emulator.AlicloudAccessSecret)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(env["HCA_LAB_ACK_ENDPOINT"])
	if err != nil {
		t.Fatal(err)
	}
	return &ackAPI{client: client, endpoint: u}
}

func ackTestHCL(endpoint, name, instanceType string, workers int) string {
	return fmt.Sprintf(`provider "hca" {
  alicloud {
    region = %q
  }
  endpoints {
    ack = %q
  }
}

resource "hca_ack_cluster" "test" {
  name                  = %q
  vswitch_ids           = ["vsw-hcalab1"]
  worker_instance_types = [%q]
  worker_count          = %d
}
`, ackTestRegion, endpoint, name, instanceType, workers)
}

func ackCheckDestroyed(api *ackAPI) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "hca_ack_cluster" {
				continue
			}
			d, err := ackDescribe(api, rs.Primary.ID)
			if err == nil {
				return fmt.Errorf("ACK cluster %s still exists (state %s)", rs.Primary.ID, d.State)
			}
			if !ackNotFound(err) {
				return fmt.Errorf("DescribeClusterDetail %s: %w", rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// ackCheckKubeconfigWorks lists the nodes of the cluster with the kubeconfig
// in state: the workers are there, and the kubeconfig reaches the cluster.
func ackCheckKubeconfigWorks(wantNodes int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources["hca_ack_cluster.test"]
		cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(rs.Primary.Attributes["kubeconfig"]))
		if err != nil {
			return fmt.Errorf("kubeconfig in state: %w", err)
		}
		if cfg.Host != rs.Primary.Attributes["api_server_endpoint"] {
			return fmt.Errorf("kubeconfig server %s, api_server_endpoint %s", cfg.Host, rs.Primary.Attributes["api_server_endpoint"])
		}
		kc, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		nodes, err := kc.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list nodes with the state's kubeconfig: %w", err)
		}
		if len(nodes.Items) != wantNodes {
			return fmt.Errorf("cluster has %d nodes, want %d", len(nodes.Items), wantNodes)
		}
		return nil
	}
}

func TestAccACKCluster_basic(t *testing.T) {
	api := requireACKLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	accTest(t, resource.TestCase{
		CheckDestroy: ackCheckDestroyed(api),
		Steps: []resource.TestStep{
			{
				Config: ackTestHCL(api.endpoint.String(), name, "ecs.g6.large", 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr("hca_ack_cluster.test", "cluster_id", regexp.MustCompile(`^c[0-9a-f]{32}$`)),
					resource.TestCheckResourceAttrPair("hca_ack_cluster.test", "id", "hca_ack_cluster.test", "cluster_id"),
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "state", "running"),
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "region", ackTestRegion),
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "cluster_spec", "ack.pro.small"),
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "kubernetes_version", "1.36.3-aliyun.1"),
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "worker_count", "1"),
					resource.TestMatchResourceAttr("hca_ack_cluster.test", "api_server_endpoint", regexp.MustCompile(`^https://127\.0\.0\.1:\d+$`)),
					ackCheckKubeconfigWorks(1),
				),
			},
			{
				ResourceName:            "hca_ack_cluster.test",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"worker_instance_types"},
			},
			{
				ResourceName:  "hca_ack_cluster.test",
				ImportState:   true,
				ImportStateId: name,
				ExpectError:   errorRe("Invalid import ID", fmt.Sprintf(`The import ID %q is not an ACK cluster ID: use the cluster's ID`, name)),
			},
			{
				// Changing the workers replaces the cluster: ACK cannot resize
				// through the operations this resource uses.
				Config: ackTestHCL(api.endpoint.String(), name, "ecs.g6.large", 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("hca_ack_cluster.test", plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "worker_count", "2"),
					ackCheckKubeconfigWorks(2),
				),
			},
		},
	})
}

// TestAccACKCluster_disappears deletes the cluster out of band: the next plan
// wants to create it, and apply does.
func TestAccACKCluster_disappears(t *testing.T) {
	api := requireACKLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	cfg := ackTestHCL(api.endpoint.String(), name, "ecs.c6.large", 0)
	accTest(t, resource.TestCase{
		CheckDestroy: ackCheckDestroyed(api),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(s *terraform.State) error {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
					defer cancel()
					return ackDeleteAndWait(ctx, api, s.RootModule().Resources["hca_ack_cluster.test"].Primary.ID)
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("hca_ack_cluster.test", plancheck.ResourceActionCreate)},
				},
				Check: resource.TestCheckResourceAttr("hca_ack_cluster.test", "state", "running"),
			},
		},
	})
}

func TestAccACKCluster_invalid(t *testing.T) {
	tests := []struct {
		name   string
		config string
		lab    bool
		want   *regexp.Regexp
	}{
		{name: "too many workers", config: ackTestHCL("http://127.0.0.1:1", "hca-invalid", "ecs.g6.large", 101),
			want: errorRe("Invalid Attribute Value", "Attribute worker_count value must be between 0 and 100, got: 101")},
		{name: "bad instance type", config: ackTestHCL("http://127.0.0.1:1", "hca-invalid", "g6.large", 1),
			want: errorRe("Invalid Attribute Value Match", `must be an ECS instance type such as "ecs.g6.large", got: g6.large`)},
		{name: "bad name", config: ackTestHCL("http://127.0.0.1:1", "-x", "ecs.g6.large", 1),
			want: errorRe("Invalid Attribute Value Match", "Attribute name must be 1 to 63 letters, digits, '_' or '-', starting with a letter or digit, got: -x")},
		{name: "node pool named twice", config: ackPoolsHCL("http://127.0.0.1:1", "hca-invalid", `{ name = "burst", instance_types = ["ecs.g6.large"] }`, `{ name = "burst", instance_types = ["ecs.g6.large"] }`),
			want: errorRe("Invalid node_pools", `node_pools[0] and node_pools[1] are both named "burst": give each node pool its own name.`)},
		{name: "node pool named as the workers' pool", config: ackPoolsHCL("http://127.0.0.1:1", "hca-invalid", `{ name = "default-nodepool", instance_types = ["ecs.g6.large"] }`),
			want: errorRe("Invalid Attribute Value Match", `value must be none of: ["default-nodepool"]`)},
		{name: "node pool capacity type", config: ackPoolsHCL("http://127.0.0.1:1", "hca-invalid", `{ name = "burst", instance_types = ["ecs.g6.large"], capacity_type = "SpotAsPriceGo" }`),
			want: errorRe("Invalid Attribute Value Match", `value must be one of: ["ON_DEMAND" "SPOT"], got: "SpotAsPriceGo"`)},
		{name: "node pool size", config: ackPoolsHCL("http://127.0.0.1:1", "hca-invalid", `{ name = "burst", instance_types = ["ecs.g6.large"], desired_size = 101 }`),
			want: errorRe("Invalid Attribute Value", "value must be between 0 and 100, got: 101")},
		{name: "instance type ACK does not offer", lab: true, config: "ecs.x9.huge",
			want: onlyErrorRe("Error creating ACK cluster", `CreateCluster "hca-invalid": InvalidParameter: worker_instance_types[0] "ecs.x9.huge" is not offered by the ACK emulator: use one of ecs.c6.2xlarge, ecs.c6.large`, "(HTTP 400, request ID")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			step := resource.TestStep{Config: tt.config, PlanOnly: true, ExpectError: tt.want}
			var destroyed resource.TestCheckFunc
			if tt.lab {
				api := requireACKLab(t)
				step = resource.TestStep{Config: ackTestHCL(api.endpoint.String(), "hca-invalid", tt.config, 1), ExpectError: tt.want}
				destroyed = ackCheckDestroyed(api)
			} else {
				prepareAccEnv(t)
			}
			accTest(t, resource.TestCase{CheckDestroy: destroyed, Steps: []resource.TestStep{step}})
		})
	}
}

func TestACKErrors(t *testing.T) {
	service := sdkerrors.NewServerError(404, `{"code":"ErrorClusterNotFound","message":"cluster c1 not found","requestId":"R-1"}`, "")
	gateway := sdkerrors.NewServerError(403, `{"RequestId":"R-2","HostId":"cs","Code":"InvalidAccessKeyId.NotFound","Message":"Specified access key is not found."}`, "")
	other := sdkerrors.NewServerError(400, `{"code":"InvalidParameter","message":"name is required","requestId":"R-3"}`, "")
	tests := []struct {
		name     string
		err      error
		want     string
		notFound bool
	}{
		{"service error", service, "ErrorClusterNotFound: cluster c1 not found (HTTP 404, request ID R-1)", true},
		{"wrapped service error", ackError{service}, "ErrorClusterNotFound: cluster c1 not found (HTTP 404, request ID R-1)", true},
		{"gateway error", gateway, "InvalidAccessKeyId.NotFound: Specified access key is not found. (HTTP 403, request ID R-2)", false},
		{"invalid parameter", other, "InvalidParameter: name is required (HTTP 400, request ID R-3)", false},
		{"not an SDK error", fmt.Errorf("dial tcp: connection refused"), "dial tcp: connection refused", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ackErrorText(tt.err); got != tt.want {
				t.Errorf("ackErrorText = %q, want %q", got, tt.want)
			}
			if got := ackNotFound(tt.err); got != tt.notFound {
				t.Errorf("ackNotFound = %v, want %v", got, tt.notFound)
			}
		})
	}
}

func TestACKConverters(t *testing.T) {
	ctx := context.Background()
	list := func(ss ...string) types.List {
		v, _ := types.ListValueFrom(ctx, types.StringType, ss)
		return v
	}
	plan := ackClusterModel{
		Name: types.StringValue("burst"), Region: types.StringUnknown(), KubernetesVersion: types.StringUnknown(),
		VSwitchIDs: list("vsw-a", "vsw-b"), ClusterSpec: types.StringValue("ack.pro.small"),
		WorkerInstanceTypes: list("ecs.g6.large"), WorkerCount: types.Int64Value(3),
	}
	b, diags := ackCreateBody(ctx, plan, "cn-beijing")
	if diags.HasError() {
		t.Fatal(diags)
	}
	if got := fmt.Sprintf("%+v", b); got != "{Name:burst RegionID:cn-beijing ClusterType:ManagedKubernetes ClusterSpec:ack.pro.small KubernetesVersion: VSwitchIDs:[vsw-a vsw-b] WorkerInstanceTypes:[ecs.g6.large] NumOfNodes:3 Nodepools:[]}" {
		t.Errorf("create body %s", got)
	}

	tests := []struct {
		name, master, wantEndpoint string
		prevTypes                  types.List
		wantTypesNull              bool
	}{
		{"running", `{"api_server_endpoint":"https://127.0.0.1:6443","intranet_api_server_endpoint":"https://127.0.0.1:6443"}`, "https://127.0.0.1:6443", list("ecs.g6.large"), false},
		{"not running yet", `{}`, "", list("ecs.g6.large"), false},
		{"imported", `{}`, "", types.ListUnknown(types.StringType), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ackClusterModel{WorkerInstanceTypes: tt.prevTypes}
			d := ackDetail{ClusterID: "c1", Name: "burst", RegionID: "cn-beijing", ClusterSpec: "ack.standard", State: "running", Size: 3,
				CurrentVersion: "1.36.3-aliyun.1", MasterURL: tt.master, VSwitchIDs: []string{"vsw-a"}}
			if diags := ackFlatten(ctx, d, "kc", &m); diags.HasError() {
				t.Fatal(diags)
			}
			if m.ID.ValueString() != "c1" || m.ClusterID.ValueString() != "c1" || m.Region.ValueString() != "cn-beijing" || m.WorkerCount.ValueInt64() != 3 ||
				m.ClusterSpec.ValueString() != "ack.standard" || m.KubernetesVersion.ValueString() != "1.36.3-aliyun.1" || m.VSwitchIDs.String() != `["vsw-a"]` ||
				m.Kubeconfig.ValueString() != "kc" {
				t.Errorf("flattened %+v", m)
			}
			if m.APIServerEndpoint.ValueString() != tt.wantEndpoint {
				t.Errorf("api_server_endpoint %q, want %q", m.APIServerEndpoint.ValueString(), tt.wantEndpoint)
			}
			if m.WorkerInstanceTypes.IsNull() != tt.wantTypesNull {
				t.Errorf("worker_instance_types %s", m.WorkerInstanceTypes)
			}
		})
	}
}

// TestAccACKClusterResource_example plans examples/resources/hca_ack_cluster
// with the real Terraform CLI: it is valid and passes every plan-time check.
func TestAccACKClusterResource_example(t *testing.T) {
	prepareAccEnv(t)
	t.Setenv(EnvAlicloudAccessKey, emulator.AlicloudAccessKey)
	t.Setenv(EnvAlicloudSecretKey, emulator.AlicloudAccessSecret)
	example, err := os.ReadFile("../examples/resources/hca_ack_cluster/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:             string(example),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// ackPoolsHCL is an hca_ack_cluster with one worker and node_pools (the
// HCL of its elements).
func ackPoolsHCL(endpoint, name string, pools ...string) string {
	return strings.Replace(ackTestHCL(endpoint, name, "ecs.g6.large", 1), "  worker_count          = 1\n",
		"  worker_count          = 1\n  node_pools = ["+strings.Join(pools, ",\n")+"]\n", 1)
}

// ackPoolSize asks the emulator for a node pool's desired size and spot
// strategy, by name.
func ackPoolSize(api *ackAPI, clusterID, pool string) (int64, string, string, error) {
	pools, err := ackDescribePools(api, clusterID)
	if err != nil {
		return 0, "", "", err
	}
	for _, p := range pools {
		if p.NodepoolInfo.Name == pool {
			return p.ScalingGroup.DesiredSize, p.ScalingGroup.SpotStrategy, p.NodepoolInfo.NodepoolID, nil
		}
	}
	return 0, "", "", fmt.Errorf("cluster %s has no node pool %q", clusterID, pool)
}

func ackCheckPool(api *ackAPI, pool string, desired int64, strategy string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id := s.RootModule().Resources["hca_ack_cluster.test"].Primary.ID
		got, gotStrategy, _, err := ackPoolSize(api, id, pool)
		if err != nil {
			return err
		}
		if got != desired || gotStrategy != strategy {
			return fmt.Errorf("node pool %q of %s: desired %d, spot_strategy %s in ACK; want %d, %s", pool, id, got, gotStrategy, desired, strategy)
		}
		return nil
	}
}

// TestAccACKCluster_nodePools creates an on-demand and a spot node pool at 0
// nodes whose sizes are the runtime's, scales one through the CS SDK as the
// runtime does (the next plan is empty and apply leaves it alone), then sets
// the other's desired_size in place (the cluster is kept).
func TestAccACKCluster_nodePools(t *testing.T) {
	api := requireACKLab(t)
	endpoint := api.endpoint.String()
	name := acctest.RandomWithPrefix("hca-acc")
	const r = "hca_ack_cluster.test"
	onDemand := `{
    name           = "burst"
    instance_types = ["ecs.g6.xlarge"]
  }`
	spot := `{
    name           = "burst-spot"
    instance_types = ["ecs.g6.xlarge"]
    capacity_type  = "SPOT"
  }`
	spotSized := strings.Replace(spot, `capacity_type  = "SPOT"`, `capacity_type  = "SPOT"
    desired_size   = 1`, 1)
	var clusterID string
	accTest(t, resource.TestCase{
		CheckDestroy: ackCheckDestroyed(api),
		Steps: []resource.TestStep{
			{
				Config: ackPoolsHCL(endpoint, name, onDemand, spot),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(r, "node_pools.#", "2"),
					resource.TestMatchResourceAttr(r, "node_pools.0.node_pool_id", regexp.MustCompile(`^np[0-9a-z]+$`)),
					resource.TestCheckResourceAttrPair(r, "node_pools.0.ack.node_pool_id", r, "node_pools.0.node_pool_id"),
					resource.TestCheckResourceAttrPair(r, "node_pools.1.ack.cluster_id", r, "cluster_id"),
					resource.TestCheckResourceAttr(r, "node_pools.1.ack.region", ackTestRegion),
					resource.TestCheckResourceAttr(r, "node_pools.1.capacity_type", "SPOT"),
					resource.TestCheckNoResourceAttr(r, "node_pools.0.desired_size"),
					ackCheckPool(api, "burst", 0, "NoSpot"),
					ackCheckPool(api, "burst-spot", 0, "SpotAsPriceGo"),
					func(s *terraform.State) error {
						clusterID = s.RootModule().Resources[r].Primary.ID
						return nil
					},
				),
			},
			{
				// The runtime grows the on-demand pool: Terraform plans nothing.
				PreConfig: func() {
					_, _, poolID, err := ackPoolSize(api, clusterID, "burst")
					if err == nil {
						err = ackModifyPoolSize(api, clusterID, poolID, 2)
					}
					if err != nil {
						t.Fatal(err)
					}
				},
				Config: ackPoolsHCL(endpoint, name, onDemand, spot),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: ackCheckPool(api, "burst", 2, "NoSpot"),
			},
			{
				// Terraform takes the spot pool's size: updated in place.
				Config: ackPoolsHCL(endpoint, name, onDemand, spotSized),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(r, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(r, "node_pools.1.desired_size", "1"),
					resource.TestCheckResourceAttrWith(r, "id", func(v string) error {
						if v != clusterID {
							return fmt.Errorf("cluster %s, want %s (kept)", v, clusterID)
						}
						return nil
					}),
					ackCheckPool(api, "burst", 2, "NoSpot"),
					ackCheckPool(api, "burst-spot", 1, "SpotAsPriceGo"),
				),
			},
			{
				ResourceName:            r,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"worker_instance_types", "node_pools.1.desired_size"},
			},
		},
	})
}

func TestACKPoolConverters(t *testing.T) {
	ctx := context.Background()
	list := func(ss ...string) types.List {
		v, _ := types.ListValueFrom(ctx, types.StringType, ss)
		return v
	}
	pool := func(name, capacity string, desired types.Int64) ackNodePool {
		return ackNodePool{Name: types.StringValue(name), InstanceTypes: list("ecs.g6.xlarge"), CapacityType: types.StringValue(capacity), DesiredSize: desired}
	}
	od, spot := pool("burst", "ON_DEMAND", types.Int64Null()), pool("burst-spot", "SPOT", types.Int64Value(2))

	t.Run("create body", func(t *testing.T) {
		m := ackClusterModel{Name: types.StringValue("c"), ClusterSpec: types.StringValue("ack.pro.small"), KubernetesVersion: types.StringUnknown(),
			VSwitchIDs: list("vsw-1"), WorkerInstanceTypes: list("ecs.g6.large"), WorkerCount: types.Int64Value(1), NodePools: []ackNodePool{od, spot}}
		b, d := ackCreateBody(ctx, m, "cn-hangzhou")
		if d.HasError() {
			t.Fatal(d)
		}
		raw, _ := json.Marshal(b.Nodepools)
		// The runtime's pool starts at 0 nodes.
		want := `[{"nodepool_info":{"name":"burst"},"scaling_group":{"instance_types":["ecs.g6.xlarge"],"desired_size":0,"vswitch_ids":["vsw-1"],"spot_strategy":"NoSpot"}},` +
			`{"nodepool_info":{"name":"burst-spot"},"scaling_group":{"instance_types":["ecs.g6.xlarge"],"desired_size":2,"vswitch_ids":["vsw-1"],"spot_strategy":"SpotAsPriceGo"}}]`
		if string(raw) != want {
			t.Errorf("nodepools\n got %s\nwant %s", raw, want)
		}
	})

	t.Run("replace", func(t *testing.T) {
		resized := spot
		resized.DesiredSize = types.Int64Value(5)
		handed := spot
		handed.DesiredSize = types.Int64Null()
		tests := []struct {
			name string
			plan []ackNodePool
			want bool
		}{
			{"same", []ackNodePool{od, spot}, false},
			{"desired size changed", []ackNodePool{od, resized}, false},
			{"desired size handed to the runtime", []ackNodePool{od, handed}, false},
			{"pool added", []ackNodePool{od, spot, pool("more", "ON_DEMAND", types.Int64Null())}, true},
			{"pool removed", []ackNodePool{od}, true},
			{"capacity type", []ackNodePool{od, pool("burst-spot", "ON_DEMAND", types.Int64Value(2))}, true},
			{"renamed", []ackNodePool{od, pool("spot", "SPOT", types.Int64Value(2))}, true},
		}
		for _, tt := range tests {
			if got := ackPoolsDiffer([]ackNodePool{od, spot}, tt.plan); got != tt.want {
				t.Errorf("%s: differ %v, want %v", tt.name, got, tt.want)
			}
		}
	})

	pools := []ackPoolJSON{{}, {}, {}}
	pools[0].NodepoolInfo.Name, pools[0].NodepoolInfo.NodepoolID, pools[0].ScalingGroup.DesiredSize = "default-nodepool", "np0", 2
	pools[1].NodepoolInfo.Name, pools[1].NodepoolInfo.NodepoolID, pools[1].ScalingGroup.DesiredSize = "burst", "np1", 3
	pools[1].ScalingGroup.SpotStrategy, pools[1].ScalingGroup.InstanceTypes = "NoSpot", []string{"ecs.g6.xlarge"}
	pools[2].NodepoolInfo.Name, pools[2].NodepoolInfo.NodepoolID, pools[2].ScalingGroup.DesiredSize = "burst-spot", "np2", 1
	pools[2].ScalingGroup.SpotStrategy, pools[2].ScalingGroup.InstanceTypes = "SpotAsPriceGo", []string{"ecs.g6.xlarge"}

	t.Run("flatten", func(t *testing.T) {
		got, d := ackPoolsFlatten(ctx, pools, []ackNodePool{od, spot, pool("gone", "ON_DEMAND", types.Int64Null())}, "c1", "cn-hangzhou")
		if d.HasError() {
			t.Fatal(d)
		}
		// The runtime's size stays null; a pool no longer there is left out.
		var s []string
		for _, p := range got {
			s = append(s, fmt.Sprintf("%s %s %s %s %s", p.Name.ValueString(), p.CapacityType.ValueString(), p.DesiredSize, p.NodePoolID.ValueString(), p.ACK))
		}
		want := []string{
			`burst ON_DEMAND <null> np1 {"cluster_id":"c1","node_pool_id":"np1","region":"cn-hangzhou"}`,
			`burst-spot SPOT 1 np2 {"cluster_id":"c1","node_pool_id":"np2","region":"cn-hangzhou"}`,
		}
		if strings.Join(s, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
		}
		if got, _ := ackPoolsFlatten(ctx, pools, nil, "c1", "cn-hangzhou"); got != nil {
			t.Errorf("no node_pools configured gave %+v, want nil", got)
		}
	})

	t.Run("worker count", func(t *testing.T) {
		// ACK's size 6 counts every pool: 6 - 3 - 1 = 2 workers.
		if got := ackWorkerCount(6, pools); got != 2 {
			t.Errorf("workers %d, want 2", got)
		}
		if got := ackWorkerCount(2, nil); got != 2 {
			t.Errorf("workers without pools %d, want 2", got)
		}
	})
}
