package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// minimalFederatedAutoscaler is a model with only the required arguments
// (and the schema defaults of the computed ones).
func minimalFederatedAutoscaler() federatedAutoscalerModel {
	return federatedAutoscalerModel{
		Name: types.StringValue("web"), Namespace: types.StringValue("shop"),
		Target:               &faTarget{Kind: types.StringValue("Deployment"), Name: types.StringValue("web")},
		Members:              []faMember{{Cluster: types.StringValue("private")}, {Cluster: types.StringValue("eks")}},
		MinReplicas:          types.Int64Value(1),
		MaxReplicas:          types.Int64Value(10),
		ScaleForbiddenWindow: durationOf("1m"),
	}
}

// emptyFAStatus sets the status attributes as an object without status
// reads back.
func emptyFAStatus(m *federatedAutoscalerModel) {
	m.CurrentReplicas, m.DesiredReplicas, m.Ready = types.Int64Value(0), types.Int64Value(0), types.BoolValue(false)
	m.Clusters = types.ListValueMust(types.ObjectType{AttrTypes: faClusterAttrs}, []attr.Value{})
	m.Conditions = types.ListValueMust(types.ObjectType{AttrTypes: conditionAttrs}, []attr.Value{})
}

func resourceMetric(name string, util int64) bpMetric {
	return bpMetric{Type: types.StringValue("Resource"), Resource: &bpResourceMetric{Name: types.StringValue(name), TargetAverageUtilization: types.Int64Value(util)}}
}

// TestFederatedAutoscalerConverters converts models to the API and back, as
// the API server returns them (defaults filled in), with the model as prior:
// the same model comes back.
func TestFederatedAutoscalerConverters(t *testing.T) {
	full := minimalFederatedAutoscaler()
	full.Target.Kind = types.StringValue("StatefulSet")
	full.Members = append(full.Members, faMember{Cluster: types.StringValue("ack.hangzhou")})
	full.MinReplicas = types.Int64Value(3)
	full.MaxReplicas = types.Int64Value(60)
	full.Metrics = []bpMetric{resourceMetric("cpu", 70), resourceMetric("memory", 85)}
	full.ScaleForbiddenWindow = durationOf("60s")

	defaultMetric := resourceMetric("cpu", 80)
	explicitDefault := minimalFederatedAutoscaler()
	explicitDefault.Metrics = []bpMetric{defaultMetric}
	explicitDefault.ScaleForbiddenWindow = durationOf("0s")

	apiDefaults := func(s *hcav1.FederatedAutoscalerSpec) {
		if s.Metrics == nil {
			s.Metrics = []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}}
		}
	}
	tests := []struct {
		name string
		in   federatedAutoscalerModel
		want hcav1.FederatedAutoscalerSpec
	}{
		{
			name: "minimal",
			in:   minimalFederatedAutoscaler(),
			want: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Kind: "Deployment", Name: "web"},
				Members: []hcav1.FederatedMember{{Cluster: "private"}, {Cluster: "eks"}}, MinReplicas: 1, MaxReplicas: 10, ScaleForbiddenWindow: dur("1m")},
		},
		{
			name: "every field",
			in:   full,
			want: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Kind: "StatefulSet", Name: "web"},
				Members:     []hcav1.FederatedMember{{Cluster: "private"}, {Cluster: "eks"}, {Cluster: "ack.hangzhou"}},
				MinReplicas: 3, MaxReplicas: 60,
				Metrics: []hcav1.MetricSpec{
					{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 70}},
					{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "memory", TargetAverageUtilization: 85}},
				},
				ScaleForbiddenWindow: dur("1m")},
		},
		{
			name: "configured default metric stays configured",
			in:   explicitDefault,
			want: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Kind: "Deployment", Name: "web"},
				Members: []hcav1.FederatedMember{{Cluster: "private"}, {Cluster: "eks"}}, MinReplicas: 1, MaxReplicas: 10,
				Metrics:              []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}},
				ScaleForbiddenWindow: dur("0s")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			fa, err := in.toAPI()
			if err != nil {
				t.Fatal(err)
			}
			if fa.Namespace != "shop" || fa.Name != "web" || fa.Kind != "FederatedAutoscaler" || fa.APIVersion != "hca.dev/v1alpha1" {
				t.Errorf("toAPI object %s %s/%s", fa.GroupVersionKind(), fa.Namespace, fa.Name)
			}
			if !equality.Semantic.DeepEqual(fa.Spec, tt.want) {
				t.Fatalf("toAPI spec:\n got %+v\nwant %+v", fa.Spec, tt.want)
			}
			apiDefaults(&fa.Spec)
			back := federatedAutoscalerFromAPI(fa, &in)
			in.ID = types.StringValue("shop/web")
			emptyFAStatus(&in)
			if !reflect.DeepEqual(back, in) {
				t.Errorf("fromAPI(toAPI(m)) != m:\n got %+v target %+v\nwant %+v target %+v", back, back.Target, in, in.Target)
			}
		})
	}
}

// TestFederatedAutoscalerFromAPIImport reads objects without a prior (an
// import): the API's defaults read as the schema's defaults or unset, and
// durations in their shortest spelling.
func TestFederatedAutoscalerFromAPIImport(t *testing.T) {
	tests := []struct {
		name string
		spec hcav1.FederatedAutoscalerSpec
		want func(*federatedAutoscalerModel)
	}{
		{
			name: "API defaults",
			spec: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Kind: "Deployment", Name: "web"},
				Members: []hcav1.FederatedMember{{Cluster: "private"}, {Cluster: "eks"}}, MinReplicas: 1, MaxReplicas: 10,
				Metrics:              []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}},
				ScaleForbiddenWindow: dur("60s")},
			want: func(*federatedAutoscalerModel) {},
		},
		{
			name: "optional fields empty",
			spec: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Name: "web"},
				Members: []hcav1.FederatedMember{{Cluster: "private"}, {Cluster: "eks"}}, MaxReplicas: 10},
			want: func(*federatedAutoscalerModel) {},
		},
		{
			name: "non-default values",
			spec: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Kind: "StatefulSet", Name: "db"},
				Members: []hcav1.FederatedMember{{Cluster: "eks"}}, MinReplicas: 2, MaxReplicas: 4,
				Metrics:              []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 70}}},
				ScaleForbiddenWindow: dur("90s")},
			want: func(m *federatedAutoscalerModel) {
				m.Target = &faTarget{Kind: types.StringValue("StatefulSet"), Name: types.StringValue("db")}
				m.Members = []faMember{{Cluster: types.StringValue("eks")}}
				m.MinReplicas, m.MaxReplicas = types.Int64Value(2), types.Int64Value(4)
				m.Metrics = []bpMetric{resourceMetric("cpu", 70)}
				m.ScaleForbiddenWindow = durationOf("1m30s")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: tt.spec}
			got := federatedAutoscalerFromAPI(fa, nil)
			want := minimalFederatedAutoscaler()
			want.ID = types.StringValue("shop/web")
			emptyFAStatus(&want)
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v target %+v\nwant %+v target %+v", got, got.Target, want, want.Target)
			}
		})
	}
}

// TestFederatedAutoscalerStatus reads the runtime's status into the computed
// attributes.
func TestFederatedAutoscalerStatus(t *testing.T) {
	scaled := metav1.NewTime(time.Date(2025, 3, 1, 12, 30, 0, 0, time.FixedZone("CET", 3600)))
	cond := func(typ string, status metav1.ConditionStatus, gen int64, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, ObservedGeneration: gen, Reason: reason, Message: msg, LastTransitionTime: scaled}
	}
	partitioned := hcav1.FederatedAutoscalerStatus{
		ObservedGeneration: 3, CurrentReplicas: 7, DesiredReplicas: 9,
		Clusters: []hcav1.FederatedClusterStatus{
			{Cluster: "private", MinReplicas: 2, MaxReplicas: 20, CurrentReplicas: 5, DesiredReplicas: 6, LastScaleTime: &scaled},
			{Cluster: "eks", MinReplicas: 0, MaxReplicas: 10, CurrentReplicas: 2, DesiredReplicas: 3},
		},
		Conditions: []metav1.Condition{
			cond("Ready", metav1.ConditionTrue, 3, "Partitioned", "HPAs of all 2 members carry their partition"),
			cond("Degraded", metav1.ConditionFalse, 3, "MembersReachable", "every member cluster answered"),
		},
	}
	wantClusters := `[{"cluster":"private","current_replicas":5,"desired_replicas":6,"last_scale_time":"2025-03-01T11:30:00Z","max_replicas":20,"min_replicas":2},` +
		`{"cluster":"eks","current_replicas":2,"desired_replicas":3,"last_scale_time":<null>,"max_replicas":10,"min_replicas":0}]`
	wantConditions := `[{"last_transition_time":"2025-03-01T11:30:00Z","message":"every member cluster answered","reason":"MembersReachable","status":"False","type":"Degraded"},` +
		`{"last_transition_time":"2025-03-01T11:30:00Z","message":"HPAs of all 2 members carry their partition","reason":"Partitioned","status":"True","type":"Ready"}]`
	stale := *partitioned.DeepCopy()
	stale.Conditions[0].ObservedGeneration = 2
	degraded := *partitioned.DeepCopy()
	degraded.Conditions = []metav1.Condition{cond("Ready", metav1.ConditionFalse, 3, "MembersDegraded", "1 of 2 members could not be updated (see Degraded)")}

	tests := []struct {
		name                 string
		status               hcav1.FederatedAutoscalerStatus
		current, desired     int64
		ready                bool
		clusters, conditions string
	}{
		{"before the runtime acts", hcav1.FederatedAutoscalerStatus{}, 0, 0, false, "[]", "[]"},
		{"partitioned", partitioned, 7, 9, true, wantClusters, wantConditions},
		{"ready for an older generation", stale, 7, 9, false, wantClusters, wantConditions},
		{"members degraded", degraded, 7, 9, false, wantClusters,
			`[{"last_transition_time":"2025-03-01T11:30:00Z","message":"1 of 2 members could not be updated (see Degraded)","reason":"MembersDegraded","status":"False","type":"Ready"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 3}, Status: tt.status}
			var m federatedAutoscalerModel
			m.setStatus(fa, false)
			if m.CurrentReplicas.ValueInt64() != tt.current || m.DesiredReplicas.ValueInt64() != tt.desired {
				t.Errorf("current %s desired %s, want %d %d", m.CurrentReplicas, m.DesiredReplicas, tt.current, tt.desired)
			}
			if m.Ready.ValueBool() != tt.ready {
				t.Errorf("ready %s, want %v", m.Ready, tt.ready)
			}
			if got := m.Clusters.String(); got != tt.clusters {
				t.Errorf("clusters\n got %s\nwant %s", got, tt.clusters)
			}
			if got := m.Conditions.String(); got != tt.conditions {
				t.Errorf("conditions\n got %s\nwant %s", got, tt.conditions)
			}
		})
	}

	t.Run("only what the plan left unknown", func(t *testing.T) {
		fa := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Status: partitioned}
		m := federatedAutoscalerModel{CurrentReplicas: types.Int64Value(1), DesiredReplicas: types.Int64Value(2), Ready: types.BoolValue(false),
			Clusters: types.ListUnknown(types.ObjectType{AttrTypes: faClusterAttrs}), Conditions: types.ListUnknown(types.ObjectType{AttrTypes: conditionAttrs})}
		m.setStatus(fa, true)
		if m.CurrentReplicas.ValueInt64() != 1 || m.DesiredReplicas.ValueInt64() != 2 || m.Ready.ValueBool() {
			t.Errorf("known values changed: current %s desired %s ready %s", m.CurrentReplicas, m.DesiredReplicas, m.Ready)
		}
		if m.Clusters.String() != wantClusters || m.Conditions.String() != wantConditions {
			t.Errorf("unknown values not set: clusters %s conditions %s", m.Clusters, m.Conditions)
		}
	})
}

// TestValidateFederatedAutoscaler checks the plan-time mirror of the CRD's
// CEL rules.
func TestValidateFederatedAutoscaler(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*federatedAutoscalerModel)
		want   string
	}{
		{"valid", func(*federatedAutoscalerModel) {}, ""},
		{"min equals max", func(m *federatedAutoscalerModel) { m.MinReplicas = types.Int64Value(10) }, ""},
		{"min above max", func(m *federatedAutoscalerModel) { m.MinReplicas = types.Int64Value(11) }, "min_replicas (11) must be <= max_replicas (10)."},
		{"min unset", func(m *federatedAutoscalerModel) { m.MinReplicas = types.Int64Null() }, ""},
		{"max unknown", func(m *federatedAutoscalerModel) {
			m.MinReplicas = types.Int64Value(11)
			m.MaxReplicas = types.Int64Unknown()
		}, ""},
		{"max below members", func(m *federatedAutoscalerModel) {
			m.MaxReplicas = types.Int64Value(1)
			m.MinReplicas = types.Int64Null()
		}, "max_replicas (1) must be at least the number of members (2): each member's HPA needs max_replicas >= 1; raise max_replicas or list fewer members."},
		{"max equals members", func(m *federatedAutoscalerModel) { m.MaxReplicas = types.Int64Value(2) }, ""},
		{"duplicate member", func(m *federatedAutoscalerModel) { m.Members = append(m.Members, m.Members[1]) },
			`members[1] and members[2] both name cluster "eks": list each cluster once.`},
		{"unknown members are not duplicates", func(m *federatedAutoscalerModel) {
			m.Members = []faMember{{Cluster: types.StringUnknown()}, {Cluster: types.StringUnknown()}}
		}, ""},
		{"resource metrics", func(m *federatedAutoscalerModel) {
			m.Metrics = []bpMetric{resourceMetric("cpu", 60), resourceMetric("memory", 70)}
		}, ""},
		{"PromQL metric", func(m *federatedAutoscalerModel) {
			m.Metrics = []bpMetric{resourceMetric("cpu", 60), {Type: types.StringValue("PromQL"),
				PromQL: &bpPromQLMetric{Query: types.StringValue("up"), TargetValue: types.StringValue("1"), TargetType: types.StringNull()}}}
		}, "metrics[1]: only type Resource is supported, because each member's autoscaling/v2 HPA evaluates them without Prometheus; use resource (cpu or memory), or hca_burst_policy for a PromQL metric."},
		{"resource metric without resource", func(m *federatedAutoscalerModel) {
			m.Metrics = []bpMetric{{Type: types.StringValue("Resource")}}
		}, "metrics[0]: type Resource requires resource (name and target_average_utilization) and no promql."},
		{"metric type unknown", func(m *federatedAutoscalerModel) {
			m.Metrics = []bpMetric{{Type: types.StringUnknown(), Resource: resourceMetric("cpu", 1).Resource}}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := minimalFederatedAutoscaler()
			tt.modify(&m)
			d := validateFederatedAutoscaler(&m)
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

// TestFederatedAutoscalerSchema checks that the schema is well formed and that
// every attribute, nested ones included, is documented.
func TestFederatedAutoscalerSchema(t *testing.T) {
	ctx := context.Background()
	var resp fwresource.SchemaResponse
	NewFederatedAutoscalerResource().Schema(ctx, fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema diagnostics: %v", resp.Diagnostics)
	}
	if d := resp.Schema.ValidateImplementation(ctx); d.HasError() {
		t.Fatalf("schema implementation: %v", d)
	}
	var walk func(prefix string, as map[string]schema.Attribute)
	walk = func(prefix string, as map[string]schema.Attribute) {
		for n, a := range as {
			if a.GetDescription() == "" {
				t.Errorf("%s%s has no description", prefix, n)
			}
			if na, ok := a.(schema.NestedAttribute); ok {
				walk(prefix+n+".", na.GetNestedObject().(schema.NestedAttributeObject).Attributes)
			}
		}
	}
	walk("", resp.Schema.Attributes)
}

func checkFederatedAutoscaler(c client.Client, ns, name string, check func(*hcav1.FederatedAutoscaler) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var fa hcav1.FederatedAutoscaler
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &fa); err != nil {
			return err
		}
		return check(&fa)
	}
}

func federatedAutoscalerHCL(lab labCluster, ns, name, body string) string {
	return accProvider(lab) + fmt.Sprintf(`
resource "hca_federated_autoscaler" "web" {
  name      = %q
  namespace = %q
%s
}
`, name, ns, body)
}

func TestAccFederatedAutoscalerResource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-fa")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	key := client.ObjectKey{Namespace: ns, Name: name}
	const addr = "hca_federated_autoscaler.web"
	step1 := federatedAutoscalerHCL(lab, ns, name, `
  target       = { name = "web" }
  members      = [{ cluster = "private" }, { cluster = "eks" }]
  max_replicas = 10`)
	updated := `
  target       = { kind = "StatefulSet", name = "web" }
  members      = [{ cluster = "private" }, { cluster = "ack" }, { cluster = "eks" }]
  min_replicas = 3
  max_replicas = 30
  metrics = [
    { type = "Resource", resource = { name = "cpu", target_average_utilization = 60 } },
    { type = "Resource", resource = { name = "memory", target_average_utilization = 75 } },
  ]
  scale_forbidden_window = "90s"
  schedules = [
    { name = "sale", start = "0 8 27 11 *", duration = "12h", time_zone = "America/New_York", min_replicas = 20 },
  ]
  timeouts               = { delete = "1m" }`
	step3 := federatedAutoscalerHCL(lab, ns, name, updated)
	renamed := federatedAutoscalerHCL(lab, ns, name, `
  target       = { kind = "StatefulSet", name = "web-v2" }
  members      = [{ cluster = "private" }, { cluster = "ack" }, { cluster = "eks" }]
  min_replicas = 3
  max_replicas = 30
  metrics = [
    { type = "Resource", resource = { name = "cpu", target_average_utilization = 60 } },
    { type = "Resource", resource = { name = "memory", target_average_utilization = 75 } },
  ]
  scale_forbidden_window = "90s"`)
	expectAction := func(a plancheck.ResourceActionType) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, a)}}
	}
	var uid string
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			err := c.Get(context.Background(), key, &hcav1.FederatedAutoscaler{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("FederatedAutoscaler %s still there after destroy (get: %v)", key, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: step1,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", ns+"/"+name),
					resource.TestCheckResourceAttr(addr, "target.kind", "Deployment"),
					resource.TestCheckResourceAttr(addr, "min_replicas", "1"),
					resource.TestCheckResourceAttr(addr, "scale_forbidden_window", "1m"),
					resource.TestCheckNoResourceAttr(addr, "metrics"),
					resource.TestCheckResourceAttr(addr, "current_replicas", "0"),
					resource.TestCheckResourceAttr(addr, "ready", "false"),
					resource.TestCheckResourceAttr(addr, "clusters.#", "0"),
					checkFederatedAutoscaler(c, ns, name, func(fa *hcav1.FederatedAutoscaler) error {
						s := fa.Spec
						if s.Target.Name != "web" || len(s.Members) != 2 || s.Members[1].Cluster != "eks" || s.MaxReplicas != 10 {
							return fmt.Errorf("spec %+v", s)
						}
						// The API server's defaults.
						if s.Target.Kind != "Deployment" || s.MinReplicas != 1 || s.ScaleForbiddenWindow.Duration != time.Minute ||
							len(s.Metrics) != 1 || s.Metrics[0].Resource.Name != "cpu" || s.Metrics[0].Resource.TargetAverageUtilization != 80 {
							return fmt.Errorf("defaults: %+v metrics %+v", s, s.Metrics)
						}
						uid = string(fa.UID)
						return nil
					}),
				),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/" + name, ImportStateVerify: true},
			{ResourceName: addr, ImportState: true, ImportStateId: name,
				ExpectError: errorRe("Invalid import ID", fmt.Sprintf(`The import ID %q is not <namespace>/<name>: it has no '/'. Use the FederatedAutoscaler's namespace and name separated by one '/', such as`, name))},
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/Web",
				ExpectError: errorRe("Invalid import ID", fmt.Sprintf(`The import ID "%s/Web" is not <namespace>/<name>: the name "Web" is not a DNS subdomain`, ns))},
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/nope",
				ExpectError: errorRe("Cannot import non-existent remote object")},
			{
				// Everything but the names updates in place.
				Config:           step3,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "scale_forbidden_window", "90s"),
					resource.TestCheckResourceAttr(addr, "metrics.1.resource.name", "memory"),
					checkFederatedAutoscaler(c, ns, name, func(fa *hcav1.FederatedAutoscaler) error {
						s := fa.Spec
						if string(fa.UID) != uid {
							return fmt.Errorf("replaced (uid %s, was %s)", fa.UID, uid)
						}
						if s.Target.Kind != "StatefulSet" || len(s.Members) != 3 || s.Members[1].Cluster != "ack" || s.MinReplicas != 3 || s.MaxReplicas != 30 {
							return fmt.Errorf("spec %+v", s)
						}
						if len(s.Metrics) != 2 || s.Metrics[1].Resource.Name != "memory" || s.Metrics[1].Resource.TargetAverageUtilization != 75 {
							return fmt.Errorf("metrics %+v", s.Metrics)
						}
						if s.ScaleForbiddenWindow.Duration != 90*time.Second {
							return fmt.Errorf("scaleForbiddenWindow %v", s.ScaleForbiddenWindow)
						}
						if len(s.Schedules) != 1 || s.Schedules[0].Start != "0 8 27 11 *" || s.Schedules[0].Duration.Duration != 12*time.Hour ||
							s.Schedules[0].TimeZone != "America/New_York" || s.Schedules[0].MinReplicas != 20 {
							return fmt.Errorf("schedules %+v", s.Schedules)
						}
						return nil
					}),
				),
			},
			// The window reads back as "1m30s" on import; timeouts are not in the API.
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/" + name, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"scale_forbidden_window", "timeouts.%", "timeouts.delete"}},
			{
				// The runtime's status, written through the status
				// subresource, reads back as the computed attributes.
				PreConfig: func() {
					var fa hcav1.FederatedAutoscaler
					if err := c.Get(context.Background(), key, &fa); err != nil {
						t.Fatal(err)
					}
					now := metav1.Now()
					fa.Status = hcav1.FederatedAutoscalerStatus{ObservedGeneration: fa.Generation, CurrentReplicas: 7, DesiredReplicas: 8,
						Clusters: []hcav1.FederatedClusterStatus{
							{Cluster: "private", MinReplicas: 1, MaxReplicas: 10, CurrentReplicas: 4, DesiredReplicas: 5, LastScaleTime: &now},
							{Cluster: "ack", MinReplicas: 1, MaxReplicas: 10, CurrentReplicas: 2, DesiredReplicas: 2},
							{Cluster: "eks", MinReplicas: 1, MaxReplicas: 10, CurrentReplicas: 1, DesiredReplicas: 1},
						},
						Conditions: []metav1.Condition{
							{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: fa.Generation, Reason: "Partitioned", Message: "HPAs of all 3 members carry their partition", LastTransitionTime: now},
							{Type: "Degraded", Status: metav1.ConditionFalse, ObservedGeneration: fa.Generation, Reason: "MembersReachable", Message: "every member cluster answered", LastTransitionTime: now},
						}}
					if err := c.Status().Update(context.Background(), &fa); err != nil {
						t.Fatalf("write status: %v", err)
					}
				},
				Config: step3,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "current_replicas", "7"),
					resource.TestCheckResourceAttr(addr, "desired_replicas", "8"),
					resource.TestCheckResourceAttr(addr, "ready", "true"),
					resource.TestCheckResourceAttr(addr, "clusters.#", "3"),
					resource.TestCheckResourceAttr(addr, "clusters.0.cluster", "private"),
					resource.TestCheckResourceAttr(addr, "clusters.0.desired_replicas", "5"),
					resource.TestCheckResourceAttrSet(addr, "clusters.0.last_scale_time"),
					resource.TestCheckNoResourceAttr(addr, "clusters.1.last_scale_time"),
					resource.TestCheckResourceAttr(addr, "clusters.2.max_replicas", "10"),
					resource.TestCheckResourceAttr(addr, "conditions.#", "2"),
					resource.TestCheckResourceAttr(addr, "conditions.0.type", "Degraded"),
					resource.TestCheckResourceAttr(addr, "conditions.1.reason", "Partitioned"),
					resource.TestMatchResourceAttr(addr, "conditions.1.last_transition_time", regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)),
				),
			},
			{
				// Edited out of band: the plan puts the configuration back.
				PreConfig: func() {
					var fa hcav1.FederatedAutoscaler
					if err := c.Get(context.Background(), key, &fa); err != nil {
						t.Fatal(err)
					}
					fa.Spec.MaxReplicas = 99
					fa.Spec.Members = fa.Spec.Members[:2]
					if err := c.Update(context.Background(), &fa); err != nil {
						t.Fatalf("edit out of band: %v", err)
					}
				},
				Config:             step3,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           step3,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				Check: checkFederatedAutoscaler(c, ns, name, func(fa *hcav1.FederatedAutoscaler) error {
					if fa.Spec.MaxReplicas != 30 || len(fa.Spec.Members) != 3 {
						return fmt.Errorf("not restored: %+v", fa.Spec)
					}
					return nil
				}),
			},
			{
				// Deleted out of band: removed from the state, planned again.
				PreConfig: func() {
					if err := c.Delete(context.Background(), &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
						t.Fatalf("delete out of band: %v", err)
					}
				},
				Config:             step3,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config:           step3,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionCreate),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "ready", "false"),
					checkFederatedAutoscaler(c, ns, name, func(fa *hcav1.FederatedAutoscaler) error {
						if string(fa.UID) == uid || fa.Spec.MaxReplicas != 30 {
							return fmt.Errorf("not re-created: uid %s spec %+v", fa.UID, fa.Spec)
						}
						uid = string(fa.UID)
						return nil
					}),
				),
			},
			{
				// A new target name replaces the object, so that the runtime
				// deletes the member HPAs of the old name.
				Config:           renamed,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionDestroyBeforeCreate),
				Check: checkFederatedAutoscaler(c, ns, name, func(fa *hcav1.FederatedAutoscaler) error {
					if string(fa.UID) == uid || fa.Spec.Target.Name != "web-v2" {
						return fmt.Errorf("not replaced: uid %s target %+v", fa.UID, fa.Spec.Target)
					}
					return nil
				}),
			},
		},
	})
}

// TestAccFederatedAutoscalerResource_deleteWaits holds the object with a
// finalizer, as the runtime does while a member cannot be reached: destroy
// waits timeouts.delete, then fails saying what the runtime reports.
func TestAccFederatedAutoscalerResource_deleteWaits(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-fa")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	key := client.ObjectKey{Namespace: ns, Name: name}
	const finalizer = "test.hca.dev/hold"
	cfg := federatedAutoscalerHCL(lab, ns, name, `
  target       = { name = "web" }
  members      = [{ cluster = "private" }, { cluster = "eks" }]
  max_replicas = 10
  timeouts     = { delete = "2s" }`)
	release := func() {
		var fa hcav1.FederatedAutoscaler
		if err := c.Get(context.Background(), key, &fa); err != nil {
			return
		}
		fa.Finalizers = nil
		_ = c.Update(context.Background(), &fa)
	}
	t.Cleanup(release)
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			err := c.Get(context.Background(), key, &hcav1.FederatedAutoscaler{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("FederatedAutoscaler %s still there after destroy (get: %v)", key, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					var fa hcav1.FederatedAutoscaler
					if err := c.Get(context.Background(), key, &fa); err != nil {
						return err
					}
					fa.Finalizers = []string{finalizer}
					if err := c.Update(context.Background(), &fa); err != nil {
						return fmt.Errorf("add finalizer: %w", err)
					}
					fa.Status.Conditions = []metav1.Condition{{Type: "Degraded", Status: metav1.ConditionTrue, Reason: "CleanupFailed",
						Message: "cannot delete member HPAs yet; deletion waits: cluster eks: connection refused", LastTransitionTime: metav1.Now()}}
					return c.Status().Update(context.Background(), &fa)
				},
			},
			{
				Config:  cfg,
				Destroy: true,
				ExpectError: errorRe("Error deleting federated autoscaler", fmt.Sprintf("Could not delete the FederatedAutoscaler %s/%s: timed out waiting for deletion to finish (last seen: finalizers [%s])", ns, name, finalizer),
					"The runtime reports: cannot delete member HPAs yet; deletion waits: cluster eks: connection refused.",
					"The runtime deletes the member HPAs before it lets the object go: make the members reachable, or raise timeouts.delete."),
			},
			{
				// The finalizer done, the object is gone: the next plan
				// creates it again.
				PreConfig:          release,
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// TestAccFederatedAutoscalerResource_invalid checks that terraform plan
// rejects what the API server would, with the same rule and how to fix it.
// It needs no lab: Terraform stops at validation.
func TestAccFederatedAutoscalerResource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	const members = `members = [{ cluster = "private" }, { cluster = "eks" }]`
	tests := []struct {
		name, body string
		want       []string
	}{
		{"min above max", `target = { name = "web" }` + "\n  " + members + "\n  min_replicas = 11\n  max_replicas = 10",
			[]string{"Invalid min_replicas", "min_replicas (11) must be <= max_replicas (10)."}},
		{"max below members", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 1",
			[]string{"Invalid max_replicas", "max_replicas (1) must be at least the number of members (2): each member's HPA needs max_replicas >= 1; raise max_replicas or list fewer members."}},
		{"duplicate member", `target = { name = "web" }` + "\n  members = [{ cluster = \"eks\" }, { cluster = \"eks\" }]\n  max_replicas = 10",
			[]string{"Invalid members", `members[0] and members[1] both name cluster "eks": list each cluster once.`}},
		{"no members", `target = { name = "web" }` + "\n  members = []\n  max_replicas = 10",
			[]string{"Invalid Attribute Value", "Attribute members list must contain at least 1 elements and at most 32 elements, got: 0"}},
		{"member name", `target = { name = "web" }` + "\n  members = [{ cluster = \"EKS\" }]\n  max_replicas = 10",
			[]string{"Invalid Attribute Value Match", "Attribute members[0].cluster must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, got: EKS"}},
		{"PromQL metric", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10\n  metrics = [{ type = \"PromQL\", promql = { query = \"up\", target_value = \"1\" } }]",
			[]string{"Invalid metrics", "metrics[0]: only type Resource is supported, because each member's autoscaling/v2 HPA evaluates them without Prometheus; use resource (cpu or memory), or hca_burst_policy for a PromQL metric."}},
		{"resource metric without resource", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10\n  metrics = [{ type = \"Resource\" }]",
			[]string{"Invalid metrics", "metrics[0]: type Resource requires resource (name and target_average_utilization) and no promql."}},
		{"utilization", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10\n  metrics = [{ type = \"Resource\", resource = { name = \"cpu\", target_average_utilization = 0 } }]",
			[]string{"Invalid Attribute Value", "Attribute metrics[0].resource.target_average_utilization value must be between 1 and 1000, got: 0"}},
		{"kind", `target = { kind = "DaemonSet", name = "web" }` + "\n  " + members + "\n  max_replicas = 10",
			[]string{"Invalid Attribute Value Match", `Attribute target.kind value must be one of: ["Deployment" "StatefulSet"], got: "DaemonSet"`}},
		{"window", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10\n  scale_forbidden_window = \"1 minute\"",
			[]string{"Invalid Attribute Value Match", `Attribute scale_forbidden_window must be a Go duration such as "30s", "5m" or "1h30m", got: 1 minute`}},
		{"schedule floor above max", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10\n  schedules = [{ name = \"sale\", start = \"0 8 27 11 *\", duration = \"12h\", time_zone = \"America/New_York\", min_replicas = 30 }]",
			[]string{"Invalid schedules", "schedules[0].min_replicas (30) must be <= max_replicas (10): lower the window's floor or raise max_replicas."}},
		{"schedule cron", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10\n  schedules = [{ name = \"sale\", start = \"0 8 31 2\", duration = \"12h\", min_replicas = 3 }]",
			[]string{"Invalid schedules[0].start", `schedules[0].start: "0 8 31 2" has 4 fields, want 5`}},
		{"namespace", `target = { name = "web" }` + "\n  " + members + "\n  max_replicas = 10",
			[]string{"Invalid Attribute Value Match", "Attribute namespace must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, got: shop.eu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			ns := "shop"
			if tt.name == "namespace" {
				ns = "shop.eu"
			}
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\nresource \"hca_federated_autoscaler\" \"this\" {\n  name = \"web\"\n  namespace = %q\n  %s\n}\n",
						kubeconfig, ns, tt.body),
					ExpectError: errorRe(tt.want[0], tt.want[1:]...),
				}},
			})
		})
	}
}

// TestAccFederatedAutoscalerResource_example plans
// examples/resources/hca_federated_autoscaler with the real Terraform CLI: it
// is valid and passes every plan-time check.
func TestAccFederatedAutoscalerResource_example(t *testing.T) {
	planExample(t, "hca_federated_autoscaler")
}

// TestAccFederatedAutoscalerResource_importThenPlan imports a
// FederatedAutoscaler whose configuration spells its durations otherwise than
// the API ("1m30s" and "90m" where the API says "90s" and "1h30m0s") and
// leaves timeouts unset: the plan after the import is empty. (With timeouts
// set the first plan shows them, as the import docs say: the API does not
// hold them.)
func TestAccFederatedAutoscalerResource_importThenPlan(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-fa-imp")
	fa := &hcav1.FederatedAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: hcav1.FederatedAutoscalerSpec{Target: hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "web"},
			Members:     []hcav1.FederatedMember{{Cluster: "private"}, {Cluster: "eks"}},
			MinReplicas: 2, MaxReplicas: 10, ScaleForbiddenWindow: dur("90s"),
			Schedules: []hcav1.ScheduleWindow{{Name: "rush", Start: "0 8 * * MON-FRI", Duration: *dur("90m"), TimeZone: "UTC", MinReplicas: 4}}},
	}
	if err := c.Create(context.Background(), fa); err != nil {
		t.Fatalf("create the FederatedAutoscaler to import: %v", err)
	}
	cfg := accProvider(lab) + fmt.Sprintf(`
resource "hca_federated_autoscaler" "web" {
  name                   = "web"
  namespace              = %q
  target                 = { name = "web" }
  members                = [{ cluster = "private" }, { cluster = "eks" }]
  min_replicas           = 2
  max_replicas           = 10
  scale_forbidden_window = "1m30s"
  schedules = [
    { name = "rush", start = "0 8 * * MON-FRI", duration = "1h30m", time_zone = "UTC", min_replicas = 4 },
  ]
}
`, ns)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: "hca_federated_autoscaler.web", ImportState: true, ImportStateId: ns + "/web", ImportStatePersist: true},
			{Config: cfg, PlanOnly: true},
		},
	})
}
