package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// nodeGroupsHCL is an eks hca_cluster with node_groups (the HCL of its
// elements).
func nodeGroupsHCL(name, groups string) string {
	return fmt.Sprintf(`
resource "hca_cluster" "this" {
  name             = %q
  role             = "burst"
  provider_type    = "eks"
  eks_cluster_name = "burst-1"
  region           = "eu-west-1"
  node_groups      = [%s]
}
`, name, groups)
}

const (
	ngOnDemand = `{
    name           = "burst"
    eks            = { cluster_name = "burst-1", region = "eu-west-1", nodegroup_name = "burst" }
    instance_type  = "m5.xlarge"
    allocatable    = { cpu = "3920m", memory = "15Gi", pods = 58 }
    price_per_hour = "0.192"
    max_nodes      = 4
  }`
	ngSpot = `{
    name           = "burst-spot"
    eks            = { cluster_name = "burst-1", region = "eu-west-1", nodegroup_name = "burst-spot" }
    capacity_type  = "Spot"
    allocatable    = { cpu = "4", memory = "16Gi" }
    price_per_hour = "0.0735"
    min_nodes      = 1
    max_nodes      = 6
    labels         = { "hca.dev/capacity" = "spot" }
    taints         = [{ key = "hca.dev/spot", value = "true", effect = "NoSchedule" }]
  }`
)

// TestAccClusterResource_nodeGroups writes spec.nodeGroups (the lab's API
// server checks them against the CRD's validation), reads them back after
// import, changes them in place and removes them.
func TestAccClusterResource_nodeGroups(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	name := fmt.Sprintf("tf-ng-%06d", rand.IntN(1e6))
	const r = "hca_cluster.this"
	accTest(t, resource.TestCase{
		CheckDestroy: checkClusterGone(c, name, defaultHCANamespace),
		Steps: []resource.TestStep{
			{
				Config: accProvider(lab) + nodeGroupsHCL(name, ngOnDemand+", "+ngSpot),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(r, "node_groups.#", "2"),
					resource.TestCheckResourceAttr(r, "node_groups.0.capacity_type", "OnDemand"),
					resource.TestCheckResourceAttr(r, "node_groups.0.min_nodes", "0"),
					resource.TestCheckResourceAttr(r, "node_groups.1.allocatable.pods", "110"),
					checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, _ *corev1.Secret) error {
						g := hc.Spec.NodeGroups
						if len(g) != 2 {
							return fmt.Errorf("spec.nodeGroups = %+v, want 2 groups", g)
						}
						if got := fmt.Sprintf("%s %+v %s %s %s %s %d %s %d-%d", g[0].Name, *g[0].EKS, g[0].InstanceType, g[0].CapacityType, g[0].Allocatable.CPU.String(),
							g[0].Allocatable.Memory.String(), g[0].Allocatable.Pods, g[0].PricePerHour, g[0].MinNodes, g[0].MaxNodes); got !=
							"burst {ClusterName:burst-1 Region:eu-west-1 NodegroupName:burst} m5.xlarge OnDemand 3920m 15Gi 58 0.192 0-4" {
							return fmt.Errorf("spec.nodeGroups[0] is %s", got)
						}
						if got := fmt.Sprintf("%s %d-%d %v %v", g[1].CapacityType, g[1].MinNodes, g[1].MaxNodes, g[1].Labels, g[1].Taints); got !=
							"Spot 1-6 map[hca.dev/capacity:spot] [{hca.dev/spot true NoSchedule <nil>}]" {
							return fmt.Errorf("spec.nodeGroups[1] is %s", got)
						}
						return nil
					}),
				),
			},
			{ResourceName: r, ImportState: true, ImportStateVerify: true},
			{
				Config: accProvider(lab) + nodeGroupsHCL(name, strings.ReplaceAll(ngOnDemand, `max_nodes      = 4`, `max_nodes      = 8`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(r, plancheck.ResourceActionUpdate)},
				},
				Check: checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, _ *corev1.Secret) error {
					if g := hc.Spec.NodeGroups; len(g) != 1 || g[0].MaxNodes != 8 {
						return fmt.Errorf("spec.nodeGroups = %+v, want burst alone with maxNodes 8", g)
					}
					return nil
				}),
			},
			{
				Config: accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name             = %q
  role             = "burst"
  provider_type    = "eks"
  eks_cluster_name = "burst-1"
  region           = "eu-west-1"
}
`, name),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr(r, "node_groups"),
					checkHybridCluster(c, name, func(hc *hcav1.HybridCluster, _ *corev1.Secret) error {
						if g := hc.Spec.NodeGroups; len(g) != 0 {
							return fmt.Errorf("spec.nodeGroups = %+v, want none", g)
						}
						return nil
					}),
				),
			},
		},
	})
}

// TestAccClusterResource_nodeGroupsInvalid checks node_groups' plan-time
// diagnostics, which mirror the CRD's validation: nothing is created.
func TestAccClusterResource_nodeGroupsInvalid(t *testing.T) {
	sub := func(s, old, new string) string { return strings.ReplaceAll(s, old, new) }
	nine := ngOnDemand
	for i := 1; i < 9; i++ {
		nine += ", " + sub(ngOnDemand, `name           = "burst"`, fmt.Sprintf(`name = "g%d"`, i))
	}
	tests := []struct {
		name, groups string
		want         []string
	}{
		{"both eks and ack", sub(ngOnDemand, "instance_type", `ack = { cluster_id = "c1", region = "cn-hangzhou", node_pool_id = "np1" }
    instance_type`), []string{"Invalid node_groups", "node_groups[0] sets both eks and ack: a group is either an EKS managed node group (eks) or an ACK node pool (ack); remove one."}},
		{"neither eks nor ack", sub(ngOnDemand, `eks            = { cluster_name = "burst-1", region = "eu-west-1", nodegroup_name = "burst" }`, ""),
			[]string{"Invalid node_groups", "node_groups[0] sets neither eks nor ack: set eks = hca_eks_cluster.<label>.node_groups[i].eks"}},
		{"min above max", sub(ngSpot, "min_nodes      = 1", "min_nodes = 7"),
			[]string{"Invalid node_groups", "node_groups[0].min_nodes (7) is greater than node_groups[0].max_nodes (6): set min_nodes to at most max_nodes."}},
		{"nine groups", nine, []string{"Invalid Attribute Value", "Attribute node_groups list must contain at least 1 elements and at most 8 elements, got: 9"}},
		{"same name twice", ngOnDemand + ", " + ngOnDemand, []string{"Invalid node_groups", `node_groups[0] and node_groups[1] are both named "burst": give each node group its own name.`}},
		{"cpu zero", sub(ngOnDemand, `cpu = "3920m"`, `cpu = "0"`), []string{"Invalid node_groups[0].allocatable.cpu", `node_groups[0].allocatable.cpu must be greater than 0, got "0": use a quantity such as "3920m".`}},
		{"memory not a quantity", sub(ngOnDemand, `memory = "15Gi"`, `memory = "15 GB"`), []string{"Invalid node_groups[0].allocatable.memory", `"15 GB" is not a Kubernetes quantity`}},
		{"price format", sub(ngOnDemand, `"0.192"`, `"$0.19"`), []string{"Invalid Attribute Value Match", `must be a non-negative decimal with at most 9 fractional digits, such as "0.192", got: $0.19`}},
		{"capacity type", sub(ngSpot, `"Spot"`, `"SPOT"`), []string{"Invalid Attribute Value Match", `value must be one of: ["OnDemand" "Spot"], got: "SPOT"`}},
		{"name not a DNS label", sub(ngOnDemand, `name           = "burst"`, `name = "Burst"`), []string{"Invalid Attribute Value Match", "must be a DNS label"}},
		{"max nodes zero", sub(ngOnDemand, "max_nodes      = 4", "max_nodes = 0"), []string{"Invalid Attribute Value", "value must be between 1 and 1000, got: 0"}},
		{"taint effect", sub(ngSpot, `"NoSchedule"`, `"NO_SCHEDULE"`), []string{"Invalid Attribute Value Match", `got: "NO_SCHEDULE"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{Config: nodeGroupsHCL("c", tt.groups), PlanOnly: true, ExpectError: errorRe(tt.want[0], tt.want[1:]...)}},
			})
		})
	}
}

func TestNodeGroupProblems(t *testing.T) {
	ref := types.ObjectValueMust(eksGroupRefTypes, map[string]attr.Value{"cluster_name": types.StringValue("c"), "region": types.StringValue("r"), "nodegroup_name": types.StringValue("n")})
	ack := types.ObjectValueMust(ackPoolRefTypes, map[string]attr.Value{"cluster_id": types.StringValue("c"), "region": types.StringValue("r"), "node_pool_id": types.StringValue("p")})
	tests := []struct {
		name     string
		eks, ack types.Object
		min, max types.Int64
		want     []string
	}{
		{"eks", ref, types.ObjectNull(ackPoolRefTypes), types.Int64Value(0), types.Int64Value(1), nil},
		{"ack", types.ObjectNull(eksGroupRefTypes), ack, types.Int64Value(2), types.Int64Value(2), nil},
		// A reference known only at apply counts as set.
		{"unknown eks", types.ObjectUnknown(eksGroupRefTypes), types.ObjectNull(ackPoolRefTypes), types.Int64Value(0), types.Int64Value(1), nil},
		{"unknown max", ref, types.ObjectNull(ackPoolRefTypes), types.Int64Value(5), types.Int64Unknown(), nil},
		{"both", ref, ack, types.Int64Value(0), types.Int64Value(1),
			[]string{"g sets both eks and ack: a group is either an EKS managed node group (eks) or an ACK node pool (ack); remove one."}},
		{"neither, min above max", types.ObjectNull(eksGroupRefTypes), types.ObjectNull(ackPoolRefTypes), types.Int64Value(3), types.Int64Value(2),
			[]string{"g sets neither eks nor ack: set eks = hca_eks_cluster.<label>.node_groups[i].eks or ack = hca_ack_cluster.<label>.node_pools[i].ack.",
				"g.min_nodes (3) is greater than g.max_nodes (2): set min_nodes to at most max_nodes."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nodeGroupProblems("g", clusterNodeGroup{EKS: tt.eks, ACK: tt.ack, MinNodes: tt.min, MaxNodes: tt.max})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNodeGroupsConverters converts node_groups to spec.nodeGroups and back:
// the same values, prior's spelling of equal quantities kept, null labels,
// taints and list kept null.
func TestNodeGroupsConverters(t *testing.T) {
	ctx := context.Background()
	obj := func(attrTypes map[string]attr.Type, kv ...string) types.Object {
		vals := map[string]attr.Value{}
		for i := 0; i < len(kv); i += 2 {
			vals[kv[i]] = types.StringValue(kv[i+1])
		}
		return types.ObjectValueMust(attrTypes, vals)
	}
	alloc := func(cpu, mem string, pods int64) types.Object {
		return types.ObjectValueMust(clusterAllocatableTypes, map[string]attr.Value{"cpu": types.StringValue(cpu), "memory": types.StringValue(mem), "pods": types.Int64Value(pods)})
	}
	taints := types.ListValueMust(types.ObjectType{AttrTypes: clusterTaintTypes}, []attr.Value{types.ObjectValueMust(clusterTaintTypes,
		map[string]attr.Value{"key": types.StringValue("hca.dev/spot"), "value": types.StringNull(), "effect": types.StringValue("NoSchedule")})})
	labels := types.MapValueMust(types.StringType, map[string]attr.Value{"pool": types.StringValue("spot")})
	groups := []clusterNodeGroup{
		{Name: types.StringValue("od"), EKS: obj(eksGroupRefTypes, "cluster_name", "c", "region", "us-east-1", "nodegroup_name", "od"), ACK: types.ObjectNull(ackPoolRefTypes),
			InstanceType: types.StringValue("m5.xlarge"), CapacityType: types.StringValue("OnDemand"), Allocatable: alloc("4000m", "16Gi", 58),
			PricePerHour: types.StringValue("0.192"), MinNodes: types.Int64Value(0), MaxNodes: types.Int64Value(4), Labels: types.MapNull(types.StringType),
			Taints: types.ListNull(types.ObjectType{AttrTypes: clusterTaintTypes})},
		{Name: types.StringValue("pool"), EKS: types.ObjectNull(eksGroupRefTypes), ACK: obj(ackPoolRefTypes, "cluster_id", "c1", "region", "cn-hangzhou", "node_pool_id", "np1"),
			InstanceType: types.StringNull(), CapacityType: types.StringValue("Spot"), Allocatable: alloc("2", "0.5Gi", 110),
			PricePerHour: types.StringValue("0.05"), MinNodes: types.Int64Value(1), MaxNodes: types.Int64Value(3), Labels: labels, Taints: taints},
	}
	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: clusterNodeGroupTypes}, groups)
	if d.HasError() {
		t.Fatal(d)
	}
	api, err := nodeGroupsToAPI(list)
	if err != nil {
		t.Fatal(err)
	}
	want := []hcav1.NodeGroup{
		{Name: "od", EKS: &hcav1.EKSNodeGroupRef{ClusterName: "c", Region: "us-east-1", NodegroupName: "od"}, InstanceType: "m5.xlarge", CapacityType: hcav1.CapacityOnDemand,
			Allocatable: hcav1.NodeAllocatable{CPU: kresource.MustParse("4"), Memory: kresource.MustParse("16Gi"), Pods: 58}, PricePerHour: "0.192", MinNodes: 0, MaxNodes: 4},
		{Name: "pool", ACK: &hcav1.ACKNodePoolRef{ClusterID: "c1", Region: "cn-hangzhou", NodePoolID: "np1"}, CapacityType: hcav1.CapacitySpot,
			Allocatable: hcav1.NodeAllocatable{CPU: kresource.MustParse("2"), Memory: kresource.MustParse("512Mi"), Pods: 110}, PricePerHour: "0.05", MinNodes: 1, MaxNodes: 3,
			Labels: map[string]string{"pool": "spot"}, Taints: []corev1.Taint{{Key: "hca.dev/spot", Effect: corev1.TaintEffectNoSchedule}}},
	}
	if len(api) != 2 {
		t.Fatalf("got %d groups", len(api))
	}
	for i := range want {
		g, w := api[i], want[i]
		if g.Allocatable.CPU.Cmp(w.Allocatable.CPU) != 0 || g.Allocatable.Memory.Cmp(w.Allocatable.Memory) != 0 {
			t.Errorf("group %d allocatable %s/%s, want %s/%s", i, g.Allocatable.CPU.String(), g.Allocatable.Memory.String(), w.Allocatable.CPU.String(), w.Allocatable.Memory.String())
		}
		g.Allocatable.CPU, g.Allocatable.Memory, w.Allocatable.CPU, w.Allocatable.Memory = kresource.Quantity{}, kresource.Quantity{}, kresource.Quantity{}, kresource.Quantity{}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("group %d:\n got %+v\nwant %+v", i, g, w)
		}
	}

	t.Run("back with prior spelling", func(t *testing.T) {
		back := nodeGroupsFromAPI(want, list)
		if !back.Equal(list) {
			t.Errorf("round trip:\n got %s\nwant %s", back, list)
		}
	})
	t.Run("import spells as the API", func(t *testing.T) {
		back := nodeGroupsFromAPI(want[:1], types.ListNull(types.ObjectType{AttrTypes: clusterNodeGroupTypes}))
		var got []clusterNodeGroup
		if d := back.ElementsAs(ctx, &got, false); d.HasError() {
			t.Fatal(d)
		}
		if a := got[0].Allocatable.Attributes(); a["cpu"].String() != `"4"` || a["memory"].String() != `"16Gi"` || !got[0].Labels.IsNull() || !got[0].Taints.IsNull() {
			t.Errorf("imported group %+v", got[0])
		}
	})
	t.Run("none", func(t *testing.T) {
		if got := nodeGroupsFromAPI(nil, types.ListNull(types.ObjectType{AttrTypes: clusterNodeGroupTypes})); !got.IsNull() {
			t.Errorf("no groups and none configured gave %s, want null", got)
		}
		if api, err := nodeGroupsToAPI(types.ListNull(types.ObjectType{AttrTypes: clusterNodeGroupTypes})); err != nil || api != nil {
			t.Errorf("null list gave %v, %v", api, err)
		}
	})
}
