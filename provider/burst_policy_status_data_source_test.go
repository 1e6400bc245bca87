package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func replicaValue(cluster string, desired, ready, pending int64, nodes ...int64) attr.Value {
	nodes = append(nodes, 0, 0)
	return types.ObjectValueMust(replicasAttrs, map[string]attr.Value{"cluster": types.StringValue(cluster),
		"desired": types.Int64Value(desired), "ready": types.Int64Value(ready), "pending": types.Int64Value(pending),
		"nodes_ready": types.Int64Value(nodes[0]), "nodes_requested": types.Int64Value(nodes[1])})
}

func replicaList(elems ...attr.Value) types.List {
	return types.ListValueMust(types.ObjectType{AttrTypes: replicasAttrs}, elems)
}

// TestBurstPolicyStatusFromAPI converts BurstPolicy statuses: replicas sorted
// by cluster with their totals (burst ones outside the primary cluster), the
// last decision's fields null until there is one, and ready from the Ready
// condition only.
func TestBurstPolicyStatusFromAPI(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 4}
	spec := hcav1.BurstPolicySpec{PrimaryCluster: "private"}
	tests := []struct {
		name string
		in   hcav1.BurstPolicyStatus
		want burstPolicyStatusModel
	}{
		{
			name: "before the runtime acts",
			want: burstPolicyStatusModel{
				Phase: types.StringValue(""), Ready: types.BoolValue(false), ObservedGeneration: types.Int64Value(0),
				Replicas: replicaList(), DesiredReplicas: types.Int64Null(), CurrentReplicas: types.Int64Value(0),
				ReadyReplicas: types.Int64Value(0), PendingReplicas: types.Int64Value(0), BurstReplicas: types.Int64Value(0),
				HeadroomReplicas: types.Int64Value(0), HeadroomCost: types.StringValue("0"),
				LastDecisionTime: types.StringNull(), LastDecisionReason: types.StringNull(), Conditions: condList(),
			},
		},
		{
			name: "bursting into two clusters",
			in: hcav1.BurstPolicyStatus{
				ObservedGeneration: 4, Phase: hcav1.PhaseBursting,
				Replicas: []hcav1.ClusterReplicas{
					{Cluster: "private", Desired: 8, Ready: 8, Pending: 2},
					{Cluster: "eks", Desired: 10, Ready: 9, NodesReady: 3},
					{Cluster: "ack", Desired: 2, Pending: 1, NodesReady: 1, NodesRequested: 1},
				},
				Headroom:     &hcav1.HeadroomStatus{Replicas: 2, CostPerHour: "0.0928", Clusters: []hcav1.ClusterHeadroom{{Cluster: "ack", Replicas: 2, CostPerHour: "0.0928"}}},
				LastDecision: &hcav1.Decision{Time: at("2026-05-01T12:00:00Z"), Desired: 22, Reason: "cpu 180% of target: 22 replicas; deficit 2 to eks"},
				Conditions: []metav1.Condition{
					{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Reconciled", Message: "20 replicas", LastTransitionTime: at("2026-05-01T12:00:05Z")},
					{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "AllInputs", Message: "all inputs available", LastTransitionTime: at("2026-05-01T11:00:00Z")},
				},
			},
			want: burstPolicyStatusModel{
				Phase: types.StringValue("Bursting"), Ready: types.BoolValue(true), ObservedGeneration: types.Int64Value(4),
				Replicas:        replicaList(replicaValue("ack", 2, 0, 1, 1, 1), replicaValue("eks", 10, 9, 0, 3, 0), replicaValue("private", 8, 8, 2)),
				DesiredReplicas: types.Int64Value(22), CurrentReplicas: types.Int64Value(20),
				ReadyReplicas: types.Int64Value(17), PendingReplicas: types.Int64Value(3), BurstReplicas: types.Int64Value(12),
				HeadroomReplicas: types.Int64Value(2), HeadroomCost: types.StringValue("0.0928"),
				LastDecisionTime:   types.StringValue("2026-05-01T12:00:00Z"),
				LastDecisionReason: types.StringValue("cpu 180% of target: 22 replicas; deficit 2 to eks"),
				Conditions: condList(
					condValue("Degraded", "False", "AllInputs", "all inputs available", "2026-05-01T11:00:00Z"),
					condValue("Ready", "True", "Reconciled", "20 replicas", "2026-05-01T12:00:05Z"),
				),
			},
		},
		{
			name: "degraded, scaled to zero by a decision",
			in: hcav1.BurstPolicyStatus{
				ObservedGeneration: 3, Phase: hcav1.PhaseDegraded,
				Replicas:     []hcav1.ClusterReplicas{{Cluster: "private"}},
				LastDecision: &hcav1.Decision{Time: at("2026-05-01T12:00:00Z"), Desired: 0, Reason: "held"},
				Conditions: []metav1.Condition{
					{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Error", Message: "x", LastTransitionTime: at("2026-05-01T12:00:00Z")},
					{Type: "MetricsAvailable", Status: metav1.ConditionTrue, Reason: "MetricsOK", Message: "y", LastTransitionTime: at("2026-05-01T12:00:00Z")},
				},
			},
			want: burstPolicyStatusModel{
				Phase: types.StringValue("Degraded"), Ready: types.BoolValue(false), ObservedGeneration: types.Int64Value(3),
				Replicas: replicaList(replicaValue("private", 0, 0, 0)), DesiredReplicas: types.Int64Value(0), CurrentReplicas: types.Int64Value(0),
				ReadyReplicas: types.Int64Value(0), PendingReplicas: types.Int64Value(0), BurstReplicas: types.Int64Value(0),
				HeadroomReplicas: types.Int64Value(0), HeadroomCost: types.StringValue("0"),
				LastDecisionTime: types.StringValue("2026-05-01T12:00:00Z"), LastDecisionReason: types.StringValue("held"),
				Conditions: condList(
					condValue("MetricsAvailable", "True", "MetricsOK", "y", "2026-05-01T12:00:00Z"),
					condValue("Ready", "False", "Error", "x", "2026-05-01T12:00:00Z"),
				),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			want.Namespace, want.Name = types.StringValue("shop"), types.StringValue("web")
			want.PrimaryCluster, want.Generation = types.StringValue("private"), types.Int64Value(4)
			got := burstPolicyStatusFromAPI(&hcav1.BurstPolicy{ObjectMeta: meta, Spec: spec, Status: tt.in})
			for _, d := range modelDiff(got, want) {
				t.Error(d)
			}
		})
	}
}

// createBurstPolicy creates a minimal BurstPolicy in the lab, deleted after
// the test.
func createBurstPolicy(t *testing.T, c client.Client, ns, name string) *hcav1.BurstPolicy {
	t.Helper()
	bp := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: hcav1.BurstPolicySpec{
		Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
		BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}, {Cluster: "ack"}}, MaxReplicas: 30,
	}}
	if err := c.Create(context.Background(), bp); err != nil {
		t.Fatalf("create BurstPolicy %s/%s: %v", ns, name, err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), bp) })
	return bp
}

func replicaCheck(cluster string, desired, ready, pending int64) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{"cluster": knownvalue.StringExact(cluster),
		"desired": knownvalue.Int64Exact(desired), "ready": knownvalue.Int64Exact(ready), "pending": knownvalue.Int64Exact(pending),
		"nodes_ready": knownvalue.Int64Exact(0), "nodes_requested": knownvalue.Int64Exact(0)})
}

// TestAccBurstPolicyStatusDataSource reads a policy before the runtime acts,
// while it bursts, then while it scales back.
func TestAccBurstPolicyStatusDataSource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-ds")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	createBurstPolicy(t, c, ns, name)
	hcl := accProvider(lab) + fmt.Sprintf(`
data "hca_burst_policy_status" "web" {
  namespace = %q
  name      = %q
}
`, ns, name)
	const addr = "data.hca_burst_policy_status.web"
	want := func(generation int64, status map[string]knownvalue.Check) statecheck.StateCheck {
		m := map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact(ns), "name": knownvalue.StringExact(name),
			"primary_cluster": knownvalue.StringExact("private"), "generation": knownvalue.Int64Exact(generation),
		}
		for k, v := range status {
			m[k] = v
		}
		return expectDataSource{addr: addr, want: m}
	}
	policy := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: hcl,
				ConfigStateChecks: []statecheck.StateCheck{want(1, map[string]knownvalue.Check{
					"observed_generation": knownvalue.Int64Exact(0), "phase": knownvalue.StringExact(""), "ready": knownvalue.Bool(false),
					"replicas": knownvalue.ListExact([]knownvalue.Check{}), "desired_replicas": knownvalue.Null(),
					"current_replicas": knownvalue.Int64Exact(0), "ready_replicas": knownvalue.Int64Exact(0),
					"pending_replicas": knownvalue.Int64Exact(0), "burst_replicas": knownvalue.Int64Exact(0),
					"headroom_replicas": knownvalue.Int64Exact(0), "headroom_cost_per_hour": knownvalue.StringExact("0"),
					"last_decision_time": knownvalue.Null(), "last_decision_reason": knownvalue.Null(),
					"conditions": knownvalue.ListExact([]knownvalue.Check{}),
				})},
			},
			{
				PreConfig: func() {
					writeStatus(t, c, policy, func(bp *hcav1.BurstPolicy) {
						bp.Status = hcav1.BurstPolicyStatus{
							ObservedGeneration: 1, Phase: hcav1.PhaseBursting,
							Replicas: []hcav1.ClusterReplicas{
								{Cluster: "private", Desired: 8, Ready: 8, Pending: 2},
								{Cluster: "eks", Desired: 10, Ready: 9},
								{Cluster: "ack", Desired: 2, Pending: 1},
							},
							Headroom:     &hcav1.HeadroomStatus{Replicas: 2, CostPerHour: "0.0928", Clusters: []hcav1.ClusterHeadroom{{Cluster: "ack", Replicas: 2, CostPerHour: "0.0928"}}},
							LastDecision: &hcav1.Decision{Time: at("2026-05-01T12:00:00Z"), Desired: 22, Reason: "cpu 180% of target: 22 replicas; deficit 12 placed by priority"},
							Conditions: []metav1.Condition{
								{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Reconciled", Message: "20 replicas: private 8, eks 10, ack 2", LastTransitionTime: at("2026-05-01T12:00:05Z")},
								{Type: "MetricsAvailable", Status: metav1.ConditionTrue, Reason: "MetricsOK", Message: "cpu 180%", LastTransitionTime: at("2026-05-01T11:00:00Z")},
								{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "AllInputs", Message: "all inputs available", LastTransitionTime: at("2026-05-01T11:00:00Z")},
							},
						}
					})
				},
				Config: hcl,
				ConfigStateChecks: []statecheck.StateCheck{want(1, map[string]knownvalue.Check{
					"observed_generation": knownvalue.Int64Exact(1), "phase": knownvalue.StringExact("Bursting"), "ready": knownvalue.Bool(true),
					"replicas": knownvalue.ListExact([]knownvalue.Check{
						replicaCheck("ack", 2, 0, 1), replicaCheck("eks", 10, 9, 0), replicaCheck("private", 8, 8, 2),
					}),
					"desired_replicas": knownvalue.Int64Exact(22), "current_replicas": knownvalue.Int64Exact(20),
					"ready_replicas": knownvalue.Int64Exact(17), "pending_replicas": knownvalue.Int64Exact(3), "burst_replicas": knownvalue.Int64Exact(12),
					"headroom_replicas": knownvalue.Int64Exact(2), "headroom_cost_per_hour": knownvalue.StringExact("0.0928"),
					"last_decision_time":   knownvalue.StringExact("2026-05-01T12:00:00Z"),
					"last_decision_reason": knownvalue.StringExact("cpu 180% of target: 22 replicas; deficit 12 placed by priority"),
					"conditions": knownvalue.ListExact([]knownvalue.Check{
						condCheck("Degraded", "False", "AllInputs", "all inputs available", "2026-05-01T11:00:00Z"),
						condCheck("MetricsAvailable", "True", "MetricsOK", "cpu 180%", "2026-05-01T11:00:00Z"),
						condCheck("Ready", "True", "Reconciled", "20 replicas: private 8, eks 10, ack 2", "2026-05-01T12:00:05Z"),
					}),
				})},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "replicas.#", "3"),
					resource.TestCheckResourceAttr(addr, "replicas.1.cluster", "eks"),
					resource.TestCheckResourceAttr(addr, "burst_replicas", "12"),
				),
			},
			{
				// A new spec generation, and the load fell: the burst
				// replicas are being removed.
				PreConfig: func() {
					var cur hcav1.BurstPolicy
					if err := c.Get(context.Background(), client.ObjectKeyFromObject(policy), &cur); err != nil {
						t.Fatal(err)
					}
					cur.Spec.MaxReplicas = 40
					if err := c.Update(context.Background(), &cur); err != nil {
						t.Fatal(err)
					}
					writeStatus(t, c, policy, func(bp *hcav1.BurstPolicy) {
						bp.Status.ObservedGeneration = 2
						bp.Status.Phase = hcav1.PhaseScalingBack
						bp.Status.Headroom = nil
						bp.Status.Replicas = []hcav1.ClusterReplicas{{Cluster: "private", Desired: 6, Ready: 6}, {Cluster: "eks", Desired: 1, Ready: 1}}
						bp.Status.LastDecision = &hcav1.Decision{Time: at("2026-05-01T12:30:00Z"), Desired: 7, Reason: "cpu 40% of target: 7 replicas"}
						bp.Status.Conditions = bp.Status.Conditions[:1]
						bp.Status.Conditions[0].Message = "7 replicas: private 6, eks 1"
					})
				},
				Config: hcl,
				ConfigStateChecks: []statecheck.StateCheck{want(2, map[string]knownvalue.Check{
					"observed_generation": knownvalue.Int64Exact(2), "phase": knownvalue.StringExact("ScalingBack"), "ready": knownvalue.Bool(true),
					"replicas":         knownvalue.ListExact([]knownvalue.Check{replicaCheck("eks", 1, 1, 0), replicaCheck("private", 6, 6, 0)}),
					"desired_replicas": knownvalue.Int64Exact(7), "current_replicas": knownvalue.Int64Exact(7),
					"ready_replicas": knownvalue.Int64Exact(7), "pending_replicas": knownvalue.Int64Exact(0), "burst_replicas": knownvalue.Int64Exact(1),
					"headroom_replicas": knownvalue.Int64Exact(0), "headroom_cost_per_hour": knownvalue.StringExact("0"),
					"last_decision_time":   knownvalue.StringExact("2026-05-01T12:30:00Z"),
					"last_decision_reason": knownvalue.StringExact("cpu 40% of target: 7 replicas"),
					"conditions": knownvalue.ListExact([]knownvalue.Check{
						condCheck("Ready", "True", "Reconciled", "7 replicas: private 6, eks 1", "2026-05-01T12:00:05Z"),
					}),
				})},
			},
		},
	})
}

func TestAccBurstPolicyStatusDataSource_missing(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-ds")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: accProvider(lab) + fmt.Sprintf("data \"hca_burst_policy_status\" \"web\" {\n  namespace = %q\n  name      = %q\n}\n", ns, name),
			ExpectError: errorRe("Error reading burst policy status", fmt.Sprintf(`No BurstPolicy %s/%s exists in the control cluster. `+
				`Check the namespace and name (kubectl get burstpolicies -n %s lists them) or create it with an hca_burst_policy resource; `+
				`when that resource is in this configuration, set namespace and name from it (name = hca_burst_policy.<label>.name) `+
				`so that the status is read after the policy is created.`, ns, name, ns)),
		}},
	})
}

// TestAccBurstPolicyStatusDataSource_invalid checks the plan-time
// diagnostics; they need no lab.
func TestAccBurstPolicyStatusDataSource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	provider := fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\n", kubeconfig)
	ds := func(body string) string {
		return provider + "data \"hca_burst_policy_status\" \"web\" {\n" + body + "\n}\n"
	}
	tests := []struct {
		name, config string
		want         []string
	}{
		{"namespace not a label", ds(`namespace = "Shop.eu"` + "\n" + `name = "web"`),
			[]string{"Invalid Attribute Value Match", "Attribute namespace must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, got: Shop.eu"}},
		{"namespace too long", ds(fmt.Sprintf("namespace = %q\nname = \"web\"", strings.Repeat("n", 64))),
			[]string{"Invalid Attribute Value Length", "Attribute namespace string length must be between 1 and 63, got: 64"}},
		{"name not a subdomain", ds(`namespace = "shop"` + "\n" + `name = "web_1"`),
			[]string{"Invalid Attribute Value Match", "Attribute name must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, got: web_1"}},
		{"namespace missing", ds(`name = "web"`),
			[]string{"Missing required argument", `The argument "namespace" is required, but no definition was found.`}},
		{"read-only argument", ds(`namespace = "shop"` + "\n" + `name = "web"` + "\n" + `phase = "Bursting"`),
			[]string{"Invalid Configuration for Read-Only Attribute", "Cannot set value for this attribute as the provider has marked it as read-only."}},
		{"no control cluster", "data \"hca_burst_policy_status\" \"web\" {\n  namespace = \"shop\"\n  name = \"web\"\n}\n",
			[]string{"Control cluster not configured", `The hca provider has no connection to the control cluster.`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{Config: tt.config, ExpectError: errorRe(tt.want[0], tt.want[1:]...)}},
			})
		})
	}
}

// TestAccBurstPolicyStatusDataSource_withResource declares a policy and reads
// its status in the same configuration (depends_on): the read waits for the
// policy, then follows the runtime's status.
func TestAccBurstPolicyStatusDataSource_withResource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-ds")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	hcl := accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = %[1]q
  namespace       = %[2]q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 10
}

data "hca_burst_policy_status" "web" {
  namespace  = %[2]q
  name       = %[1]q
  depends_on = [hca_burst_policy.web]
}
`, name, ns)
	const addr = "data.hca_burst_policy_status.web"
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &hcav1.BurstPolicy{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("BurstPolicy %s/%s still there after destroy (get: %v)", ns, name, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrPair(addr, "phase", "hca_burst_policy.web", "phase"),
					resource.TestCheckResourceAttr(addr, "phase", ""),
					resource.TestCheckResourceAttr(addr, "primary_cluster", "private"),
					resource.TestCheckResourceAttr(addr, "replicas.#", "0"),
					resource.TestCheckNoResourceAttr(addr, "desired_replicas"),
				),
			},
			{
				PreConfig: func() {
					writeStatus(t, c, &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, func(bp *hcav1.BurstPolicy) {
						bp.Status = hcav1.BurstPolicyStatus{ObservedGeneration: 1, Phase: hcav1.PhaseWatching,
							Replicas:     []hcav1.ClusterReplicas{{Cluster: "private", Desired: 3, Ready: 3}},
							LastDecision: &hcav1.Decision{Time: at("2026-05-02T08:00:00Z"), Desired: 3, Reason: "cpu 75% of target"}}
					})
				},
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "phase", "Watching"),
					resource.TestCheckResourceAttrPair(addr, "phase", "hca_burst_policy.web", "phase"),
					resource.TestCheckResourceAttr(addr, "desired_replicas", "3"),
					resource.TestCheckResourceAttr(addr, "burst_replicas", "0"),
					resource.TestCheckResourceAttr(addr, "replicas.0.cluster", "private"),
					resource.TestCheckResourceAttr(addr, "last_decision_time", "2026-05-02T08:00:00Z"),
				),
			},
		},
	})
}

// TestAccBurstPolicyStatusDataSource_example applies
// examples/data-sources/hca_burst_policy_status against a policy in the lab.
func TestAccBurstPolicyStatusDataSource_example(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	t.Setenv(EnvKubeConfigPath, lab.kubeconfig)
	ns := testNamespace(t, c, "hca-tf-ds")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	bp := createBurstPolicy(t, c, ns, name)
	writeStatus(t, c, bp, func(bp *hcav1.BurstPolicy) {
		bp.Status = hcav1.BurstPolicyStatus{ObservedGeneration: 1, Phase: hcav1.PhaseBursting,
			Replicas: []hcav1.ClusterReplicas{{Cluster: "private", Desired: 8, Ready: 8}, {Cluster: "eks", Desired: 12, Ready: 11, Pending: 1}}}
	})
	example, err := os.ReadFile("../examples/data-sources/hca_burst_policy_status/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:          string(example),
			ConfigVariables: tfconfig.Variables{"namespace": tfconfig.StringVariable(ns), "policy_name": tfconfig.StringVariable(name)},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("web_phase", knownvalue.StringExact("Bursting")),
				statecheck.ExpectKnownOutputValue("web_ready_per_cluster", knownvalue.MapExact(map[string]knownvalue.Check{
					"private": knownvalue.Int64Exact(8), "eks": knownvalue.Int64Exact(11)})),
				statecheck.ExpectKnownOutputValue("web_burst_replicas", knownvalue.Int64Exact(12)),
			},
		}},
	})
}
