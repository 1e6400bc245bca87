package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	corev1 "k8s.io/api/core/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = kresource.MustParse(kv[i+1])
	}
	return out
}

func strMap(kv ...string) types.Map {
	elems := map[string]attr.Value{}
	for i := 0; i < len(kv); i += 2 {
		elems[kv[i]] = types.StringValue(kv[i+1])
	}
	return types.MapValueMust(types.StringType, elems)
}

func condValue(typ, status, reason, message, at string) attr.Value {
	return types.ObjectValueMust(conditionAttrs, map[string]attr.Value{"type": types.StringValue(typ), "status": types.StringValue(status),
		"reason": types.StringValue(reason), "message": types.StringValue(message), "last_transition_time": types.StringValue(at)})
}

func condList(elems ...attr.Value) types.List {
	return types.ListValueMust(types.ObjectType{AttrTypes: conditionAttrs}, elems)
}

// at is a second-precision instant, as the API server stores metav1.Time.
func at(s string) metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return metav1.NewTime(t)
}

// TestClusterDataFromAPI converts HybridClusters to the data source's model:
// unset spec fields are null, quantities take the API server's canonical
// form, times RFC 3339 in UTC, conditions sorted by type, and no credential
// is ever read.
func TestClusterDataFromAPI(t *testing.T) {
	probe := at("2026-05-01T14:00:00+02:00")
	tests := []struct {
		name string
		in   hcav1.HybridCluster
		want clusterDataModel
	}{
		{
			name: "eks never probed",
			in: hcav1.HybridCluster{
				ObjectMeta: metav1.ObjectMeta{Name: "eks-eu-west-1", Generation: 1},
				Spec: hcav1.HybridClusterSpec{Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS,
					Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "burst-1", Region: "eu-west-1"}}},
			},
			want: clusterDataModel{
				Name: types.StringValue("eks-eu-west-1"), Role: types.StringValue("burst"), Provider: types.StringValue("eks"), Priority: types.Int64Value(0),
				PricePerVCPUHour: types.StringNull(), PricePerGiBHour: types.StringNull(), MaxCPU: types.StringNull(), MaxPods: types.Int64Null(),
				EKSClusterName: types.StringValue("burst-1"), Region: types.StringValue("eu-west-1"), RoleARN: types.StringNull(),
				CredentialsSecret: types.StringValue(""), Generation: types.Int64Value(1), ObservedGeneration: types.Int64Value(0),
				Reachable: types.BoolValue(false), KubernetesVersion: types.StringValue(""), Allocatable: strMap(), Free: strMap(),
				LastProbeTime: types.StringNull(), Conditions: condList(), NodeGroups: nodeGroupsStatus(nil, nil),
			},
		},
		{
			name: "eks with role and only a pod limit",
			in: hcav1.HybridCluster{
				ObjectMeta: metav1.ObjectMeta{Name: "eks", Generation: 3},
				Spec: hcav1.HybridClusterSpec{Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: 7,
					Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "b", Region: "us-east-1", RoleARN: "arn:aws:iam::123456789012:role/hca"}},
					Limits:      &hcav1.ClusterLimits{MaxPods: ptr32(40)}},
				Status: hcav1.HybridClusterStatus{ObservedGeneration: 2, LastProbeTime: &probe},
			},
			want: clusterDataModel{
				Name: types.StringValue("eks"), Role: types.StringValue("burst"), Provider: types.StringValue("eks"), Priority: types.Int64Value(7),
				PricePerVCPUHour: types.StringNull(), PricePerGiBHour: types.StringNull(), MaxCPU: types.StringNull(), MaxPods: types.Int64Value(40),
				EKSClusterName: types.StringValue("b"), Region: types.StringValue("us-east-1"), RoleARN: types.StringValue("arn:aws:iam::123456789012:role/hca"),
				CredentialsSecret: types.StringValue(""), Generation: types.Int64Value(3), ObservedGeneration: types.Int64Value(2),
				Reachable: types.BoolValue(false), KubernetesVersion: types.StringValue(""), Allocatable: strMap(), Free: strMap(),
				LastProbeTime: types.StringValue("2026-05-01T12:00:00Z"), Conditions: condList(), NodeGroups: nodeGroupsStatus(nil, nil),
			},
		},
		{
			name: "private probed",
			in: hcav1.HybridCluster{
				ObjectMeta: metav1.ObjectMeta{Name: "private", Generation: 2},
				Spec: hcav1.HybridClusterSpec{Role: hcav1.RolePrimary, Provider: hcav1.ProviderPrivate, Priority: 100,
					Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "hca-system", Name: "hca-cluster-private", Key: "kubeconfig"}},
					Prices:      &hcav1.ClusterPrices{PerVCPUHour: "0.0464", PerGiBHour: "0.0058"},
					Limits:      &hcav1.ClusterLimits{MaxCPU: qty("0.5"), MaxPods: ptr32(20)}},
				Status: hcav1.HybridClusterStatus{
					ObservedGeneration: 2, Reachable: true, KubernetesVersion: "v1.36.3",
					Allocatable:   rl("cpu", "8", "memory", "32768Mi", "pods", "110"),
					Free:          rl("cpu", "2.5", "memory", "12Gi"),
					LastProbeTime: &probe,
					Conditions: []metav1.Condition{
						{Type: "Reachable", Status: metav1.ConditionTrue, Reason: "Probed", Message: "Kubernetes v1.36.3, 3 nodes", LastTransitionTime: at("2026-05-01T11:00:00Z")},
						{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NoCapacity", Message: "", LastTransitionTime: at("2026-05-01T11:30:00Z")},
						{Type: "Degraded", Status: metav1.ConditionUnknown, Reason: "Starting", Message: "m", LastTransitionTime: at("2026-05-01T10:00:00Z")},
					},
				},
			},
			want: clusterDataModel{
				Name: types.StringValue("private"), Role: types.StringValue("primary"), Provider: types.StringValue("private"), Priority: types.Int64Value(100),
				PricePerVCPUHour: types.StringValue("0.0464"), PricePerGiBHour: types.StringValue("0.0058"), MaxCPU: types.StringValue("500m"), MaxPods: types.Int64Value(20),
				EKSClusterName: types.StringNull(), Region: types.StringNull(), RoleARN: types.StringNull(),
				CredentialsSecret: types.StringValue("hca-system/hca-cluster-private"), Generation: types.Int64Value(2), ObservedGeneration: types.Int64Value(2),
				Reachable: types.BoolValue(true), KubernetesVersion: types.StringValue("v1.36.3"),
				Allocatable:   strMap("cpu", "8", "memory", "32Gi", "pods", "110"),
				Free:          strMap("cpu", "2500m", "memory", "12Gi"),
				LastProbeTime: types.StringValue("2026-05-01T12:00:00Z"),
				Conditions: condList(
					condValue("Degraded", "Unknown", "Starting", "m", "2026-05-01T10:00:00Z"),
					condValue("Reachable", "True", "Probed", "Kubernetes v1.36.3, 3 nodes", "2026-05-01T11:00:00Z"),
					condValue("Ready", "False", "NoCapacity", "", "2026-05-01T11:30:00Z"),
				),
				NodeGroups: nodeGroupsStatus(nil, nil),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, d := range modelDiff(clusterDataFromAPI(&tt.in), tt.want) {
				t.Error(d)
			}
		})
	}
}

// modelDiff compares two models of Terraform values field by field (with the
// values' Equal, for which an empty list is an empty list however built).
func modelDiff(got, want any) []string {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	var diffs []string
	for i := range g.NumField() {
		gv, wv := g.Field(i).Interface().(attr.Value), w.Field(i).Interface().(attr.Value)
		if !gv.Equal(wv) {
			diffs = append(diffs, fmt.Sprintf("%s = %s, want %s", g.Type().Field(i).Tag.Get("tfsdk"), gv, wv))
		}
	}
	return diffs
}

// TestNodeGroupsStatus joins spec.nodeGroups and status.nodeGroups by name.
func TestNodeGroupsStatus(t *testing.T) {
	scaled := at("2026-05-01T14:00:00+02:00")
	spec := []hcav1.NodeGroup{
		{Name: "od", EKS: &hcav1.EKSNodeGroupRef{ClusterName: "c", Region: "us-east-1", NodegroupName: "od"}, InstanceType: "m5.xlarge",
			PricePerHour: "0.192", MaxNodes: 4},
		{Name: "pool", ACK: &hcav1.ACKNodePoolRef{ClusterID: "c1", Region: "cn-hangzhou", NodePoolID: "np1"}, CapacityType: hcav1.CapacitySpot,
			PricePerHour: "0.05", MinNodes: 1, MaxNodes: 3},
	}
	status := []hcav1.NodeGroupStatus{
		{Name: "gone", DesiredNodes: 9},
		{Name: "pool", DesiredNodes: 3, ReadyNodes: 1, RequestedNodes: 2, LastScaleTime: &scaled, Reason: "MaxReached", Message: "3 of 3 nodes"},
	}
	got := nodeGroupsStatus(spec, status).String()
	// od has no status yet: zeros; gone is not in the spec: left out.
	want := `[{"capacity_type":"OnDemand","cloud":"eks","desired_nodes":0,"instance_type":"m5.xlarge","last_scale_time":<null>,"max_nodes":4,` +
		`"message":"","min_nodes":0,"name":"od","price_per_hour":"0.192","ready_nodes":0,"reason":"","requested_nodes":0},` +
		`{"capacity_type":"Spot","cloud":"ack","desired_nodes":3,"instance_type":"","last_scale_time":"2026-05-01T12:00:00Z","max_nodes":3,` +
		`"message":"3 of 3 nodes","min_nodes":1,"name":"pool","price_per_hour":"0.05","ready_nodes":1,"reason":"MaxReached","requested_nodes":2}]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestTimeValue(t *testing.T) {
	paris := time.FixedZone("CEST", 2*3600)
	for _, tt := range []struct {
		name string
		in   *metav1.Time
		want types.String
	}{
		{"nil", nil, types.StringNull()},
		{"zero", &metav1.Time{}, types.StringNull()},
		{"utc", &metav1.Time{Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}, types.StringValue("2026-05-01T12:00:00Z")},
		{"other zone", &metav1.Time{Time: time.Date(2026, 5, 1, 14, 0, 0, 0, paris)}, types.StringValue("2026-05-01T12:00:00Z")},
		{"sub-second", &metav1.Time{Time: time.Date(2026, 5, 1, 12, 0, 0, 7e8, time.UTC)}, types.StringValue("2026-05-01T12:00:00Z")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := timeValue(tt.in); !got.Equal(tt.want) {
				t.Errorf("timeValue = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestDataSourceSchemas checks that every attribute is described, that only
// the object's key is an argument, and that no attribute is or holds a
// credential.
func TestDataSourceSchemas(t *testing.T) {
	for _, tt := range []struct {
		ds   datasource.DataSource
		args []string
	}{
		{NewClusterDataSource(), []string{"name"}},
		{NewBurstPolicyStatusDataSource(), []string{"namespace", "name"}},
	} {
		var resp datasource.SchemaResponse
		tt.ds.Schema(context.Background(), datasource.SchemaRequest{}, &resp)
		if resp.Diagnostics.HasError() {
			t.Fatalf("%T schema: %v", tt.ds, resp.Diagnostics)
		}
		if d := resp.Schema.ValidateImplementation(context.Background()); d.HasError() {
			t.Fatalf("%T schema implementation: %v", tt.ds, d)
		}
		if resp.Schema.Description == "" {
			t.Errorf("%T has no description", tt.ds)
		}
		for name, a := range resp.Schema.Attributes {
			if a.GetDescription() == "" {
				t.Errorf("%T: %s has no description", tt.ds, name)
			}
			if a.IsSensitive() {
				t.Errorf("%T: %s is sensitive", tt.ds, name)
			}
			for _, secret := range []string{"kubeconfig", "token", "client_key", "client_certificate", "ca_certificate", "password"} {
				if strings.Contains(name, secret) {
					t.Errorf("%T: attribute %s looks like a credential", tt.ds, name)
				}
			}
			arg := slices.Contains(tt.args, name)
			if a.IsRequired() != arg || a.IsComputed() == arg || a.IsOptional() {
				t.Errorf("%T: %s required=%v optional=%v computed=%v, want only %v as arguments", tt.ds, name, a.IsRequired(), a.IsOptional(), a.IsComputed(), tt.args)
			}
		}
	}
}

// expectDataSource asserts every attribute of the data source at addr:
// knownvalue.ObjectExact fails on a missing or an extra attribute.
type expectDataSource struct {
	addr string
	want map[string]knownvalue.Check
}

func (e expectDataSource) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	r, err := stateResource(req, e.addr)
	if err != nil {
		resp.Error = err
		return
	}
	if err := knownvalue.ObjectExact(e.want).CheckValue(r.AttributeValues); err != nil {
		resp.Error = fmt.Errorf("%s: %w", e.addr, err)
	}
}

// expectNoValueContains fails when any attribute of the data source at addr
// contains secret.
type expectNoValueContains struct {
	addr, secret string
}

func (e expectNoValueContains) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	r, err := stateResource(req, e.addr)
	if err != nil {
		resp.Error = err
		return
	}
	b, err := json.Marshal(r.AttributeValues)
	if err != nil {
		resp.Error = err
		return
	}
	if strings.Contains(string(b), e.secret) {
		resp.Error = fmt.Errorf("%s exposes a credential of the cluster", e.addr)
	}
}

// stateResource finds the resource or data source at addr in the state.
func stateResource(req statecheck.CheckStateRequest, addr string) (struct{ AttributeValues map[string]any }, error) {
	var r struct{ AttributeValues map[string]any }
	if s := req.State; s == nil || s.Values == nil || s.Values.RootModule == nil {
		return r, fmt.Errorf("no state")
	}
	for _, res := range req.State.Values.RootModule.Resources {
		if res.Address == addr {
			r.AttributeValues = res.AttributeValues
			return r, nil
		}
	}
	return r, fmt.Errorf("%s not in the state", addr)
}

func condCheck(typ, status, reason, message, at string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{"type": knownvalue.StringExact(typ), "status": knownvalue.StringExact(status),
		"reason": knownvalue.StringExact(reason), "message": knownvalue.StringExact(message), "last_transition_time": knownvalue.StringExact(at)})
}

func strMapCheck(kv ...string) knownvalue.Check {
	m := map[string]knownvalue.Check{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = knownvalue.StringExact(kv[i+1])
	}
	return knownvalue.MapExact(m)
}

// writeStatus sets an object's status through the status subresource, as the
// runtime does.
func writeStatus[T client.Object](t *testing.T, c client.Client, obj T, set func(T)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		set(obj)
		return c.Status().Update(context.Background(), obj)
	})
	if err != nil {
		t.Fatalf("write status of %s: %v", obj.GetName(), err)
	}
}

// createHybridCluster creates a HybridCluster in the lab, deleted after the test.
func createHybridCluster(t *testing.T, c client.Client, hc *hcav1.HybridCluster) {
	t.Helper()
	if err := c.Create(context.Background(), hc); err != nil {
		t.Fatalf("create HybridCluster %s: %v", hc.Name, err)
	}
	t.Cleanup(func() {
		_ = deleteAndWait(context.Background(), c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: hc.Name}}, time.Minute)
	})
}

// TestAccClusterDataSource reads a probed private cluster and a never probed
// EKS cluster, then reads them again after the runtime's view changed.
func TestAccClusterDataSource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-ds")
	id := rand.IntN(1e6)
	private, eks := fmt.Sprintf("tf-ds-private-%06d", id), fmt.Sprintf("tf-ds-eks-%06d", id)
	// The credentials Secret holds a token that must never reach the state.
	const token = "ds-test-token-3f9a1c"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: clusterSecretPrefix + private},
		Data: map[string][]byte{clusterSecretKey: []byte("apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: " + token + "\n")}}
	if err := c.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: private}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RolePrimary, Provider: hcav1.ProviderPrivate, Priority: 100,
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: ns, Name: hcav1.ObjectName(secret.Name)}},
		Prices:      &hcav1.ClusterPrices{PerVCPUHour: "0.0464", PerGiBHour: "0.0058"},
		Limits:      &hcav1.ClusterLimits{MaxCPU: qty("0.5"), MaxPods: ptr32(20)},
	}}
	createHybridCluster(t, c, hc)
	createHybridCluster(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: eks}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "burst-1", Region: "eu-west-1", RoleARN: "arn:aws:iam::123456789012:role/hca"}},
	}})
	probe := at("2026-05-01T12:00:00Z")
	writeStatus(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: private}}, func(hc *hcav1.HybridCluster) {
		hc.Status = hcav1.HybridClusterStatus{
			ObservedGeneration: 1, Reachable: true, KubernetesVersion: "v1.36.3",
			Allocatable: rl("cpu", "8", "memory", "32768Mi", "pods", "110"), Free: rl("cpu", "2.5", "memory", "12Gi", "pods", "80"),
			LastProbeTime: &probe,
			Conditions: []metav1.Condition{
				{Type: "Reachable", Status: metav1.ConditionTrue, Reason: "Probed", Message: "Kubernetes v1.36.3, 3 nodes", LastTransitionTime: at("2026-05-01T11:00:00Z")},
				{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Probed", Message: "capacity known", LastTransitionTime: at("2026-05-01T11:00:05Z")},
			},
		}
	})
	hcl := accProvider(lab) + fmt.Sprintf(`
data "hca_cluster" "private" {
  name = %q
}

data "hca_cluster" "eks" {
  name = %q
}
`, private, eks)
	privateSpec := func(priority int64) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{
			"name": knownvalue.StringExact(private), "role": knownvalue.StringExact("primary"), "provider_type": knownvalue.StringExact("private"),
			"priority": knownvalue.Int64Exact(priority), "price_per_vcpu_hour": knownvalue.StringExact("0.0464"), "price_per_gib_hour": knownvalue.StringExact("0.0058"),
			"max_cpu": knownvalue.StringExact("500m"), "max_pods": knownvalue.Int64Exact(20),
			"eks_cluster_name": knownvalue.Null(), "region": knownvalue.Null(), "role_arn": knownvalue.Null(),
			"credentials_secret": knownvalue.StringExact(ns + "/" + secret.Name),
			"node_groups":        knownvalue.ListExact([]knownvalue.Check{}),
		}
	}
	with := func(m map[string]knownvalue.Check, more map[string]knownvalue.Check) map[string]knownvalue.Check {
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	eksNeverProbed := expectDataSource{addr: "data.hca_cluster.eks", want: map[string]knownvalue.Check{
		"name": knownvalue.StringExact(eks), "role": knownvalue.StringExact("burst"), "provider_type": knownvalue.StringExact("eks"),
		"priority": knownvalue.Int64Exact(0), "price_per_vcpu_hour": knownvalue.Null(), "price_per_gib_hour": knownvalue.Null(),
		"max_cpu": knownvalue.Null(), "max_pods": knownvalue.Null(),
		"eks_cluster_name": knownvalue.StringExact("burst-1"), "region": knownvalue.StringExact("eu-west-1"),
		"role_arn": knownvalue.StringExact("arn:aws:iam::123456789012:role/hca"), "credentials_secret": knownvalue.StringExact(""),
		"generation": knownvalue.Int64Exact(1), "observed_generation": knownvalue.Int64Exact(0),
		"reachable": knownvalue.Bool(false), "kubernetes_version": knownvalue.StringExact(""),
		"allocatable": knownvalue.MapExact(map[string]knownvalue.Check{}), "free": knownvalue.MapExact(map[string]knownvalue.Check{}),
		"last_probe_time": knownvalue.Null(), "conditions": knownvalue.ListExact([]knownvalue.Check{}), "node_groups": knownvalue.ListExact([]knownvalue.Check{}),
	}}

	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: hcl,
				ConfigStateChecks: []statecheck.StateCheck{
					expectDataSource{addr: "data.hca_cluster.private", want: with(privateSpec(100), map[string]knownvalue.Check{
						"generation": knownvalue.Int64Exact(1), "observed_generation": knownvalue.Int64Exact(1),
						"reachable": knownvalue.Bool(true), "kubernetes_version": knownvalue.StringExact("v1.36.3"),
						"allocatable":     strMapCheck("cpu", "8", "memory", "32Gi", "pods", "110"),
						"free":            strMapCheck("cpu", "2500m", "memory", "12Gi", "pods", "80"),
						"last_probe_time": knownvalue.StringExact("2026-05-01T12:00:00Z"),
						"conditions": knownvalue.ListExact([]knownvalue.Check{
							condCheck("Reachable", "True", "Probed", "Kubernetes v1.36.3, 3 nodes", "2026-05-01T11:00:00Z"),
							condCheck("Ready", "True", "Probed", "capacity known", "2026-05-01T11:00:05Z"),
						}),
					})},
					expectNoValueContains{addr: "data.hca_cluster.private", secret: token},
					eksNeverProbed,
				},
				// The same values through the flatmap state, as other
				// configurations' tests read them.
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.hca_cluster.private", "free.cpu", "2500m"),
					resource.TestCheckResourceAttr("data.hca_cluster.private", "conditions.#", "2"),
					resource.TestCheckResourceAttr("data.hca_cluster.private", "conditions.1.type", "Ready"),
					resource.TestCheckNoResourceAttr("data.hca_cluster.eks", "max_pods"),
				),
			},
			{
				// The spec changed (a new generation) and the runtime lost
				// the cluster: the next read shows both.
				PreConfig: func() {
					var cur hcav1.HybridCluster
					if err := c.Get(context.Background(), client.ObjectKey{Name: private}, &cur); err != nil {
						t.Fatal(err)
					}
					cur.Spec.Priority = 50
					if err := c.Update(context.Background(), &cur); err != nil {
						t.Fatal(err)
					}
					later := at("2026-05-01T12:05:00Z")
					writeStatus(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: private}}, func(hc *hcav1.HybridCluster) {
						hc.Status.ObservedGeneration = 2
						hc.Status.Reachable = false
						hc.Status.LastProbeTime = &later
						hc.Status.Free = nil
						hc.Status.Conditions[0] = metav1.Condition{Type: "Reachable", Status: metav1.ConditionFalse, Reason: "ProbeFailed",
							Message: "dial tcp 10.0.0.1:6443: connect: connection refused", LastTransitionTime: later}
					})
				},
				Config: hcl,
				ConfigStateChecks: []statecheck.StateCheck{
					expectDataSource{addr: "data.hca_cluster.private", want: with(privateSpec(50), map[string]knownvalue.Check{
						"generation": knownvalue.Int64Exact(2), "observed_generation": knownvalue.Int64Exact(2),
						"reachable": knownvalue.Bool(false), "kubernetes_version": knownvalue.StringExact("v1.36.3"),
						"allocatable":     strMapCheck("cpu", "8", "memory", "32Gi", "pods", "110"),
						"free":            knownvalue.MapExact(map[string]knownvalue.Check{}),
						"last_probe_time": knownvalue.StringExact("2026-05-01T12:05:00Z"),
						"conditions": knownvalue.ListExact([]knownvalue.Check{
							condCheck("Reachable", "False", "ProbeFailed", "dial tcp 10.0.0.1:6443: connect: connection refused", "2026-05-01T12:05:00Z"),
							condCheck("Ready", "True", "Probed", "capacity known", "2026-05-01T11:00:05Z"),
						}),
					})},
					eksNeverProbed,
				},
			},
		},
	})
}

func TestAccClusterDataSource_missing(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	labAdmin(t, lab)
	name := fmt.Sprintf("tf-ds-missing-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: accProvider(lab) + fmt.Sprintf("data \"hca_cluster\" \"this\" {\n  name = %q\n}\n", name),
			ExpectError: errorRe("Error reading cluster", fmt.Sprintf(`No HybridCluster named %q is registered in the control cluster. `+
				`Check the name (kubectl get hybridclusters lists them) or register the cluster with an hca_cluster resource; `+
				`when that resource is in this configuration, set name = hca_cluster.<label>.name so that the cluster is read after it is registered.`, name)),
		}},
	})
}

// TestAccClusterDataSource_invalid checks the plan-time diagnostics; they need
// no lab.
func TestAccClusterDataSource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	provider := fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\n", kubeconfig)
	tests := []struct {
		name, config string
		want         []string
	}{
		{"name not a subdomain", provider + "data \"hca_cluster\" \"this\" {\n  name = \"Burst_1\"\n}\n",
			[]string{"Invalid Attribute Value Match", "Attribute name must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, got: Burst_1"}},
		{"name empty", provider + "data \"hca_cluster\" \"this\" {\n  name = \"\"\n}\n",
			[]string{"Invalid Attribute Value Length", "Attribute name string length must be between 1 and 253, got: 0"}},
		{"name too long", provider + fmt.Sprintf("data \"hca_cluster\" \"this\" {\n  name = %q\n}\n", strings.Repeat("a", 254)),
			[]string{"Invalid Attribute Value Length", "Attribute name string length must be between 1 and 253, got: 254"}},
		{"name missing", provider + "data \"hca_cluster\" \"this\" {}\n",
			[]string{"Missing required argument", `The argument "name" is required, but no definition was found.`}},
		{"read-only argument", provider + "data \"hca_cluster\" \"this\" {\n  name = \"a\"\n  reachable = true\n}\n",
			[]string{"Invalid Configuration for Read-Only Attribute", "Cannot set value for this attribute as the provider has marked it as read-only."}},
		{"no control cluster", "data \"hca_cluster\" \"this\" {\n  name = \"a\"\n}\n",
			[]string{"Control cluster not configured", `The hca provider has no connection to the control cluster. In the provider "hca" block, set kubeconfig_path`}},
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

// TestAccClusterDataSource_withResource registers a cluster and reads it in
// the same configuration: the read waits for the registration, then follows
// the runtime's view.
func TestAccClusterDataSource_withResource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	name := fmt.Sprintf("tf-ds-res-%06d", rand.IntN(1e6))
	hcl := accProvider(lab) + fmt.Sprintf(`
resource "hca_cluster" "this" {
  name                = %q
  role                = "burst"
  provider_type       = "eks"
  eks_cluster_name    = "burst-1"
  region              = "eu-west-1"
  priority            = 5
  price_per_vcpu_hour = "0.04"
  price_per_gib_hour  = "0.005"
  max_cpu             = "64"
}

data "hca_cluster" "this" {
  name = hca_cluster.this.name
}
`, name)
	pair := func(attrs ...string) resource.TestCheckFunc {
		var fs []resource.TestCheckFunc
		for _, a := range attrs {
			fs = append(fs, resource.TestCheckResourceAttrPair("data.hca_cluster.this", a, "hca_cluster.this", a))
		}
		return resource.ComposeAggregateTestCheckFunc(fs...)
	}
	same := pair("name", "role", "provider_type", "priority", "price_per_vcpu_hour", "price_per_gib_hour", "max_cpu",
		"eks_cluster_name", "region", "credentials_secret", "reachable", "kubernetes_version", "allocatable.%")
	accTest(t, resource.TestCase{
		CheckDestroy: checkClusterGone(c, name, defaultHCANamespace),
		Steps: []resource.TestStep{
			{
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(same,
					resource.TestCheckResourceAttr("data.hca_cluster.this", "priority", "5"),
					resource.TestCheckResourceAttr("data.hca_cluster.this", "generation", "1"),
					resource.TestCheckResourceAttr("data.hca_cluster.this", "reachable", "false"),
					resource.TestCheckNoResourceAttr("data.hca_cluster.this", "last_probe_time"),
				),
			},
			{
				PreConfig: func() {
					writeStatus(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}, func(hc *hcav1.HybridCluster) {
						now := at("2026-05-02T08:00:00Z")
						hc.Status = hcav1.HybridClusterStatus{ObservedGeneration: 1, Reachable: true, KubernetesVersion: "v1.35.1",
							Allocatable: rl("cpu", "16"), Free: rl("cpu", "12"), LastProbeTime: &now}
					})
				},
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(same,
					resource.TestCheckResourceAttr("data.hca_cluster.this", "reachable", "true"),
					resource.TestCheckResourceAttr("data.hca_cluster.this", "kubernetes_version", "v1.35.1"),
					resource.TestCheckResourceAttr("data.hca_cluster.this", "free.cpu", "12"),
					resource.TestCheckResourceAttr("data.hca_cluster.this", "last_probe_time", "2026-05-02T08:00:00Z"),
				),
			},
		},
	})
}

// TestAccClusterDataSource_example applies examples/data-sources/hca_cluster
// against a cluster registered in the lab.
func TestAccClusterDataSource_example(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	t.Setenv(EnvKubeConfigPath, lab.kubeconfig)
	name := fmt.Sprintf("tf-ds-example-%06d", rand.IntN(1e6))
	createHybridCluster(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "burst-1", Region: "eu-west-1"}},
	}})
	writeStatus(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}, func(hc *hcav1.HybridCluster) {
		now := at("2026-05-02T08:00:00Z")
		hc.Status = hcav1.HybridClusterStatus{Reachable: true, KubernetesVersion: "v1.35.1", Free: rl("cpu", "12"), LastProbeTime: &now,
			Conditions: []metav1.Condition{{Type: "Reachable", Status: metav1.ConditionTrue, Reason: "Probed", Message: "ok", LastTransitionTime: now}}}
	})
	example, err := os.ReadFile("../examples/data-sources/hca_cluster/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:          string(example),
			ConfigVariables: tfconfig.Variables{"cluster_name": tfconfig.StringVariable(name)},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("burst_free_cpu", knownvalue.StringExact("12")),
				statecheck.ExpectKnownOutputValue("burst_conditions", knownvalue.MapExact(map[string]knownvalue.Check{"Reachable": knownvalue.StringExact("True")})),
			},
		}},
	})
}

// TestAccClusterDataSource_nodeGroups reads a cluster's node groups with
// the counts the runtime writes into its status; a later status (a burst's
// nodes booting) is what the next read shows.
func TestAccClusterDataSource_nodeGroups(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	name := fmt.Sprintf("tf-ds-ng-%06d", rand.IntN(1e6))
	createHybridCluster(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: "burst-1", Region: "eu-west-1"}},
		NodeGroups: []hcav1.NodeGroup{
			{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: "burst-1", Region: "eu-west-1", NodegroupName: "burst"}, InstanceType: "m5.xlarge",
				Allocatable: hcav1.NodeAllocatable{CPU: *qty("4"), Memory: *qty("16Gi")}, PricePerHour: "0.192", MaxNodes: 4},
			{Name: "burst-spot", EKS: &hcav1.EKSNodeGroupRef{ClusterName: "burst-1", Region: "eu-west-1", NodegroupName: "burst-spot"}, CapacityType: hcav1.CapacitySpot,
				Allocatable: hcav1.NodeAllocatable{CPU: *qty("4"), Memory: *qty("16Gi")}, PricePerHour: "0.0735", MaxNodes: 2},
		},
	}})
	setStatus := func(groups ...hcav1.NodeGroupStatus) {
		writeStatus(t, c, &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}, func(hc *hcav1.HybridCluster) {
			hc.Status.NodeGroups = groups
		})
	}
	hcl := accProvider(lab) + fmt.Sprintf("data \"hca_cluster\" \"this\" {\n  name = %q\n}\n", name)
	const d = "data.hca_cluster.this"
	scaled := at("2026-05-01T12:00:00Z")
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				// Before any status: the groups at zero.
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "node_groups.#", "2"),
					resource.TestCheckResourceAttr(d, "node_groups.0.name", "burst"),
					resource.TestCheckResourceAttr(d, "node_groups.0.cloud", "eks"),
					resource.TestCheckResourceAttr(d, "node_groups.0.capacity_type", "OnDemand"),
					resource.TestCheckResourceAttr(d, "node_groups.0.desired_nodes", "0"),
					resource.TestCheckResourceAttr(d, "node_groups.1.capacity_type", "Spot"),
					resource.TestCheckNoResourceAttr(d, "node_groups.1.last_scale_time"),
				),
			},
			{
				PreConfig: func() {
					setStatus(
						hcav1.NodeGroupStatus{Name: "burst", DesiredNodes: 3, ReadyNodes: 1, RequestedNodes: 2, LastScaleTime: &scaled},
						hcav1.NodeGroupStatus{Name: "burst-spot", DesiredNodes: 2, ReadyNodes: 2, Reason: "MaxReached", Message: "2 of 2 nodes: raise maxNodes"},
					)
				},
				Config: hcl,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "node_groups.0.desired_nodes", "3"),
					resource.TestCheckResourceAttr(d, "node_groups.0.ready_nodes", "1"),
					resource.TestCheckResourceAttr(d, "node_groups.0.requested_nodes", "2"),
					resource.TestCheckResourceAttr(d, "node_groups.0.last_scale_time", "2026-05-01T12:00:00Z"),
					resource.TestCheckResourceAttr(d, "node_groups.0.reason", ""),
					resource.TestCheckResourceAttr(d, "node_groups.1.ready_nodes", "2"),
					resource.TestCheckResourceAttr(d, "node_groups.1.reason", "MaxReached"),
					resource.TestCheckResourceAttr(d, "node_groups.1.message", "2 of 2 nodes: raise maxNodes"),
				),
			},
		},
	})
}
