package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func ptr32(v int32) *int32 { return &v }

func qty(s string) *kresource.Quantity {
	q := kresource.MustParse(s)
	return &q
}

func dur(s string) *metav1.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return &metav1.Duration{Duration: d}
}

// minimalBurstPolicy is a model with only the required arguments (and the
// schema defaults of the computed ones).
func minimalBurstPolicy() burstPolicyModel {
	return burstPolicyModel{
		Name: types.StringValue("web"), Namespace: types.StringValue("shop"),
		Target:           &bpTarget{DeploymentName: types.StringValue("web"), MatchLabels: types.MapNull(types.StringType)},
		PrimaryCluster:   types.StringValue("private"),
		BurstTargets:     []bpBurstTarget{{Cluster: types.StringValue("eks"), Weight: types.Int64Null(), MaxReplicas: types.Int64Null()}},
		Placement:        types.StringValue("priority"),
		MinReplicas:      types.Int64Value(1),
		MaxReplicas:      types.Int64Value(10),
		PendingThreshold: durationOf("5s"),
		FailoverAfter:    durationOf("90s"),
	}
}

// TestBurstPolicyConverters converts models to the API and back: the API's
// defaults (as the API server fills them in) leave unset arguments unset, and
// equal durations and quantities keep the configured spelling.
func TestBurstPolicyConverters(t *testing.T) {
	full := minimalBurstPolicy()
	full.BurstTargets = []bpBurstTarget{
		{Cluster: types.StringValue("eks"), Weight: types.Int64Value(3), MaxReplicas: types.Int64Value(20)},
		{Cluster: types.StringValue("ack"), Weight: types.Int64Null(), MaxReplicas: types.Int64Value(0)},
	}
	full.Placement = types.StringValue("weighted")
	full.Metrics = []bpMetric{
		{Type: types.StringValue("Resource"), Resource: &bpResourceMetric{Name: types.StringValue("memory"), TargetAverageUtilization: types.Int64Value(70)}},
		{Type: types.StringValue("PromQL"), PromQL: &bpPromQLMetric{Query: types.StringValue("sum(rate(x[1m]))"), TargetValue: types.StringValue("0.25"), TargetType: types.StringNull()}},
	}
	full.Algorithm = &bpAlgorithm{Name: types.StringValue("panic"), Panic: &bpPanic{
		StableWindow: durationOf("1m"), PanicWindow: durationNull(), PanicThresholdPercent: types.Int64Value(150),
		MaxScaleUpRate: types.StringNull(), MaxScaleDownRate: types.StringValue("1.5")}}
	full.Propagate = &bpPropagate{ConfigMaps: &bpObjectSelector{Names: setValue([]string{"a", "cfg"}), MatchLabels: types.MapNull(types.StringType)}}
	full.Consul = &bpConsul{ServiceName: types.StringValue("web"), Port: types.Int64Value(8080), Tags: setValue([]string{"v1"})}
	full.PendingThreshold = durationOf("90s")
	full.FailoverAfter = durationOf("2m")
	full.Schedules = []scheduleModel{{Name: types.StringValue("rush"), Start: types.StringValue("45 7 * * MON-FRI"), Duration: durationOf("3h"),
		TimeZone: types.StringValue("UTC"), MinReplicas: types.Int64Value(8)}}

	k8s := minimalBurstPolicy()
	k8s.Algorithm = &bpAlgorithm{Name: types.StringNull(), Kubernetes: &bpKubernetes{Tolerance: types.StringValue("0.05"),
		ScaleUp: &bpScalingRules{StabilizationWindow: durationOf("0s"), Tolerance: types.StringNull(), SelectPolicy: types.StringNull(),
			Policies: []bpScalingPolicy{{Type: types.StringValue("Pods"), Value: types.Int64Value(4), Period: durationOf("15s")}}}}}
	adaptive := minimalBurstPolicy()
	adaptive.Algorithm = &bpAlgorithm{Name: types.StringNull(), Adaptive: &bpAdaptive{ScaleDownStabilizationWindow: durationOf("2m"),
		ForecastHorizon: durationNull(), SeasonalPeriod: durationOf("0s"), HeadroomPercent: types.Int64Value(20), HeadroomReplicas: types.Int64Null()}}
	frss := minimalBurstPolicy()
	frss.Algorithm = &bpAlgorithm{Name: types.StringValue("frss"), FRSS: &bpFRSS{Tolerance: types.StringNull(), ScaleUpRate: types.Int64Null(),
		UpWindow: durationNull(), DownWindow: durationOf("10s"), ShrinkStep: types.Int64Value(4)}}

	noFailover := minimalBurstPolicy()
	noFailover.FailoverAfter = durationOf("0s")
	spot := minimalBurstPolicy()
	spot.Capacity = &bpCapacity{AllowSpot: types.BoolValue(true), ScaleDownDelay: durationNull()}
	delay := minimalBurstPolicy()
	delay.Capacity = &bpCapacity{AllowSpot: types.BoolNull(), ScaleDownDelay: durationOf("5m")}

	tests := []struct {
		name string
		in   burstPolicyModel
		want hcav1.BurstPolicySpec
		// defaults fills in what the API server defaults.
		defaults func(*hcav1.BurstPolicySpec)
	}{
		{
			name: "minimal",
			in:   minimalBurstPolicy(),
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("90s")},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				s.Metrics = []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}}
				s.Algorithm.Name = "adaptive"
			},
		},
		{
			name: "failover off",
			in:   noFailover,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("0s")},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				s.Metrics = []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}}
				s.Algorithm.Name = "adaptive"
			},
		},
		{
			name: "every field",
			in:   full,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks", Weight: ptr32(3), MaxReplicas: ptr32(20)}, {Cluster: "ack", MaxReplicas: ptr32(0)}},
				Placement:    "weighted", MinReplicas: 1, MaxReplicas: 10,
				Metrics: []hcav1.MetricSpec{
					{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "memory", TargetAverageUtilization: 70}},
					{Type: "PromQL", PromQL: &hcav1.PromQLMetric{Query: "sum(rate(x[1m]))", TargetValue: *qty("0.25")}},
				},
				Algorithm:        hcav1.Algorithm{Name: "panic", Panic: &hcav1.PanicAlgorithm{StableWindow: dur("1m"), PanicThresholdPercent: 150, MaxScaleDownRate: qty("1.5")}},
				Propagate:        &hcav1.Propagation{ConfigMaps: &hcav1.ObjectSelector{Names: []hcav1.ObjectName{"a", "cfg"}}},
				Consul:           &hcav1.ConsulRegistration{ServiceName: "web", Port: 8080, Tags: []string{"v1"}},
				PendingThreshold: dur("90s"), FailoverAfter: dur("2m"),
				Schedules: []hcav1.ScheduleWindow{{Name: "rush", Start: "45 7 * * MON-FRI", Duration: *dur("3h"), TimeZone: "UTC", MinReplicas: 8}}},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[1].Weight = ptr32(1)
				s.Metrics[1].PromQL.TargetType = "AverageValue"
				s.Algorithm.Panic.PanicWindow = dur("6s")
				s.Algorithm.Panic.MaxScaleUpRate = qty("1000")
			},
		},
		{
			name: "kubernetes parameters",
			in:   k8s,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("90s"),
				Algorithm: hcav1.Algorithm{Name: "kubernetes", Kubernetes: &hcav1.KubernetesAlgorithm{Tolerance: qty("0.05"),
					ScaleUp: &hcav1.ScalingRules{StabilizationWindow: dur("0s"), Policies: []hcav1.ScalingPolicy{{Type: "Pods", Value: 4, Period: *dur("15s")}}}}}},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				s.Algorithm.Kubernetes.ScaleUp.SelectPolicy = "Max"
			},
		},
		{
			// Unnamed: the API's default, adaptive; unset parameters come
			// back as the API's defaults and stay unset in the model.
			name: "adaptive parameters",
			in:   adaptive,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("90s"),
				Algorithm: hcav1.Algorithm{Adaptive: &hcav1.AdaptiveAlgorithm{ScaleDownStabilizationWindow: dur("2m"), SeasonalPeriod: dur("0s"), HeadroomPercent: 20}}},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				s.Algorithm.Name = "adaptive" // forecastHorizon has no API default: unset, the runtime derives it
			},
		},
		{
			// scale_down_delay unset: the API's 2m comes back, unset in the model.
			name: "capacity allows spot",
			in:   spot,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("90s"),
				Capacity: &hcav1.BurstCapacity{AllowSpot: true}},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				s.Metrics = []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}}
				s.Algorithm.Name = "adaptive"
				s.Capacity.ScaleDownDelay = dur("2m")
			},
		},
		{
			// allow_spot unset: false, unset in the model.
			name: "capacity scale-down delay",
			in:   delay,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("90s"),
				Capacity: &hcav1.BurstCapacity{ScaleDownDelay: dur("5m")}},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				s.Metrics = []hcav1.MetricSpec{{Type: "Resource", Resource: &hcav1.ResourceMetric{Name: "cpu", TargetAverageUtilization: 80}}}
				s.Algorithm.Name = "adaptive"
			},
		},
		{
			name: "frss parameters",
			in:   frss,
			want: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
				BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, Placement: "priority", MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("5s"), FailoverAfter: dur("90s"),
				Algorithm: hcav1.Algorithm{Name: "frss", FRSS: &hcav1.FRSSAlgorithm{DownWindow: dur("10s"), ShrinkStep: 4}}},
			defaults: func(s *hcav1.BurstPolicySpec) {
				s.BurstTargets[0].Weight = ptr32(1)
				f := s.Algorithm.FRSS
				f.Tolerance, f.ScaleUpRate, f.UpWindow = qty("0.2"), 9, dur("0s")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			bp, err := in.toAPI()
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(bp.Spec, tt.want) {
				t.Fatalf("toAPI spec:\n got %+v\nwant %+v", bp.Spec, tt.want)
			}
			// Back, as the API server returns it (defaults filled in), with
			// the model as prior: the same model.
			tt.defaults(&bp.Spec)
			back := burstPolicyFromAPI(bp, &in)
			in.ID = types.StringValue("shop/web")
			in.Phase = types.StringValue("")
			in.Replicas = back.Replicas
			if !reflect.DeepEqual(back, in) {
				t.Errorf("fromAPI(toAPI(m)) != m:\n got %s\nwant %s", dump(back), dump(in))
			}
		})
	}
}

// TestKeepLegacyHorizon: an unset forecast_horizon keeps the 30s the API
// defaulted before the runtime derived it (however the state spells it);
// any other value of the state is removed (derived), a configured one
// planned as configured.
func TestKeepLegacyHorizon(t *testing.T) {
	str, null := types.StringValue, types.StringNull()
	for _, tt := range []struct {
		name          string
		config, state types.String
		want          types.String
	}{
		{"legacy 30s kept", null, str("30s"), str("30s")},
		{"legacy 30s in another spelling kept", null, str("0.5m"), str("0.5m")},
		{"another value removed: derived", null, str("45s"), null},
		{"0s removed: derived", null, str("0s"), null},
		{"nothing set: derived", null, null, null},
		{"configured wins", str("45s"), str("30s"), str("45s")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := planmodifier.StringRequest{ConfigValue: tt.config, StateValue: tt.state, PlanValue: types.StringUnknown()}
			if !tt.config.IsNull() {
				req.PlanValue = tt.config
			}
			resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
			keepLegacyHorizon{}.PlanModifyString(context.Background(), req, resp)
			if !resp.PlanValue.Equal(tt.want) {
				t.Errorf("plan %v, want %v", resp.PlanValue, tt.want)
			}
		})
	}
}

func TestShortDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{{"0s", "0s"}, {"5s", "5s"}, {"60s", "1m"}, {"90s", "1m30s"}, {"1h", "1h"}, {"90m", "1h30m"}, {"1h0m1s", "1h0m1s"}, {"1.5s", "1.5s"}, {"500ms", "500ms"}} {
		d, _ := time.ParseDuration(tt.in)
		if got := shortDuration(d); got != tt.want {
			t.Errorf("shortDuration(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func dump(m burstPolicyModel) string {
	s := fmt.Sprintf("%+v target=%+v algorithm=%+v", m, m.Target, m.Algorithm)
	if m.Algorithm != nil {
		s += fmt.Sprintf(" adaptive=%+v k8s=%+v frss=%+v panic=%+v", m.Algorithm.Adaptive, m.Algorithm.Kubernetes, m.Algorithm.FRSS, m.Algorithm.Panic)
	}
	return s
}

// TestValidateBurstPolicy checks the plan-time mirror of the CRD's CEL rules.
func TestValidateBurstPolicy(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*burstPolicyModel)
		want   string
	}{
		{"valid", func(*burstPolicyModel) {}, ""},
		{"target neither", func(m *burstPolicyModel) { m.Target.DeploymentName = types.StringNull() }, "target: set exactly one of deployment_name or match_labels."},
		{"min above max", func(m *burstPolicyModel) { m.MinReplicas = types.Int64Value(11) }, "min_replicas (11) must be <= max_replicas (10)."},
		{"primary among targets", func(m *burstPolicyModel) { m.BurstTargets[0].Cluster = types.StringValue("private") },
			`burst_targets must not list primary_cluster "private": list only the clusters to burst into.`},
		{"duplicate target", func(m *burstPolicyModel) { m.BurstTargets = append(m.BurstTargets, m.BurstTargets[0]) },
			`burst_targets[0] and burst_targets[1] both name cluster "eks": list each cluster once.`},
		{"weighted without weight", func(m *burstPolicyModel) {
			m.Placement = types.StringValue("weighted")
			m.BurstTargets[0].Weight = types.Int64Value(0)
		}, "placement weighted needs at least one burst_targets entry with weight > 0."},
		{"weighted with default weight", func(m *burstPolicyModel) { m.Placement = types.StringValue("weighted") }, ""},
		{"weighted with clusters unknown at plan", func(m *burstPolicyModel) {
			// cluster = hca_cluster.eks.name, created in the same apply.
			m.Placement = types.StringValue("weighted")
			m.BurstTargets = []bpBurstTarget{
				{Cluster: types.StringUnknown(), Weight: types.Int64Value(3), MaxReplicas: types.Int64Null()},
				{Cluster: types.StringUnknown(), Weight: types.Int64Value(1), MaxReplicas: types.Int64Null()},
			}
		}, ""},
		{"weighted with weights unknown at plan", func(m *burstPolicyModel) {
			m.Placement = types.StringValue("weighted")
			m.BurstTargets[0].Weight = types.Int64Unknown()
		}, ""},
		{"weighted with placement unknown", func(m *burstPolicyModel) {
			m.Placement = types.StringUnknown()
			m.BurstTargets[0].Weight = types.Int64Value(0)
		}, ""},
		{"weighted with unknown cluster and zero weight", func(m *burstPolicyModel) {
			m.Placement = types.StringValue("weighted")
			m.BurstTargets[0].Cluster = types.StringUnknown()
			m.BurstTargets[0].Weight = types.Int64Value(0)
		}, "placement weighted needs at least one burst_targets entry with weight > 0."},
		{"resource metric without resource", func(m *burstPolicyModel) {
			m.Metrics = []bpMetric{{Type: types.StringValue("Resource")}}
		}, "metrics[0]: type Resource requires resource (name and target_average_utilization) and no promql."},
		{"algorithm block of another algorithm", func(m *burstPolicyModel) {
			m.Algorithm = &bpAlgorithm{Name: types.StringValue("frss"), Panic: &bpPanic{}}
		}, "algorithm.panic is set but algorithm.name is frss: set name to panic or remove panic."},
		{"kubernetes block with default name", func(m *burstPolicyModel) {
			m.Algorithm = &bpAlgorithm{Name: types.StringNull(), Kubernetes: &bpKubernetes{}}
		}, ""},
		{"adaptive block with default name", func(m *burstPolicyModel) {
			m.Algorithm = &bpAlgorithm{Name: types.StringNull(), Adaptive: &bpAdaptive{}}
		}, ""},
		{"two blocks with default name", func(m *burstPolicyModel) {
			m.Algorithm = &bpAlgorithm{Name: types.StringNull(), Adaptive: &bpAdaptive{}, Panic: &bpPanic{}}
		}, "algorithm.panic is set but algorithm.name is adaptive: set name to panic or remove panic."},
		{"panic window not shorter", func(m *burstPolicyModel) {
			m.Algorithm = &bpAlgorithm{Name: types.StringValue("panic"), Panic: &bpPanic{StableWindow: durationOf("10s"), PanicWindow: durationOf("10s")}}
		}, "algorithm.panic.panic_window (10s) must be shorter than stable_window (10s)."},
		{"panic window unknown", func(m *burstPolicyModel) {
			m.Algorithm = &bpAlgorithm{Name: types.StringValue("panic"), Panic: &bpPanic{StableWindow: durationOf("10s"), PanicWindow: durationUnknown()}}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := minimalBurstPolicy()
			tt.modify(&m)
			d := validateBurstPolicy(&m)
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

func checkBurstPolicy(c client.Client, ns, name string, check func(*hcav1.BurstPolicy) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var bp hcav1.BurstPolicy
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &bp); err != nil {
			return err
		}
		return check(&bp)
	}
}

func TestAccBurstPolicyResource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-bp")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	step1 := accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = %q
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks", max_replicas = 20 }, { cluster = "ack" }]
  max_replicas    = 30
}
`, name, ns)
	step3 := accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = %q
  namespace       = %q
  target          = { match_labels = { app = "web" } }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "ack", weight = 2 }]
  placement       = "weighted"
  min_replicas    = 2
  max_replicas    = 40
  metrics = [{
    type   = "PromQL"
    promql = { query = "sum(rate(http_requests_total[1m]))", target_value = "100" }
  }]
  algorithm = {
    name = "frss"
    frss = { down_window = "1m", shrink_step = 4 }
  }
  propagate = {
    config_maps = { names = ["web-config"] }
    services    = { match_labels = { expose = "true" } }
  }
  consul = {
    service_name = "web"
    port         = 8080
    tags         = ["hca"]
  }
  pending_threshold = "0s"
  failover_after    = "0s"
}
`, name, ns)
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
				Config: step1,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_burst_policy.web", "id", ns+"/"+name),
					resource.TestCheckResourceAttr("hca_burst_policy.web", "placement", "priority"),
					resource.TestCheckNoResourceAttr("hca_burst_policy.web", "metrics"),
					checkBurstPolicy(c, ns, name, func(bp *hcav1.BurstPolicy) error {
						s := bp.Spec
						if s.Target.DeploymentName != "web" || len(s.BurstTargets) != 2 || *s.BurstTargets[0].MaxReplicas != 20 || s.MaxReplicas != 30 {
							return fmt.Errorf("spec %+v", s)
						}
						// The API server's defaults.
						if len(s.Metrics) != 1 || s.Metrics[0].Resource.TargetAverageUtilization != 80 || s.Algorithm.Name != "adaptive" || *s.BurstTargets[1].Weight != 1 ||
							s.FailoverAfter == nil || s.FailoverAfter.Duration != 90*time.Second {
							return fmt.Errorf("defaults: metrics %+v algorithm %+v", s.Metrics, s.Algorithm)
						}
						return nil
					}),
				),
			},
			{ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "/" + name, ImportStateVerify: true},
			{ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "." + name, ExpectError: errorRe("Invalid import ID",
				fmt.Sprintf("The import ID %q is not <namespace>/<name>: it has no '/'. Use the BurstPolicy's namespace and name separated by one '/', such as `terraform import hca_burst_policy.web shop/web`.", ns+"."+name))},
			{
				Config: step3,
				Check: checkBurstPolicy(c, ns, name, func(bp *hcav1.BurstPolicy) error {
					s := bp.Spec
					if s.Target.MatchLabels["app"] != "web" || s.Placement != "weighted" || s.MinReplicas != 2 || *s.BurstTargets[0].Weight != 2 {
						return fmt.Errorf("spec %+v", s)
					}
					if s.Metrics[0].PromQL == nil || s.Metrics[0].PromQL.TargetValue.String() != "100" {
						return fmt.Errorf("metrics %+v", s.Metrics)
					}
					if f := s.Algorithm.FRSS; f == nil || f.DownWindow.Duration != time.Minute || f.ShrinkStep != 4 || f.ScaleUpRate != 9 {
						return fmt.Errorf("frss %+v", f)
					}
					if s.Propagate.ConfigMaps.Names[0] != "web-config" || s.Propagate.Services.MatchLabels["expose"] != "true" || s.Consul.Port != 8080 {
						return fmt.Errorf("propagate/consul %+v %+v", s.Propagate, s.Consul)
					}
					if s.PendingThreshold.Duration != 0 {
						return fmt.Errorf("pendingThreshold %v", s.PendingThreshold)
					}
					if s.FailoverAfter == nil || s.FailoverAfter.Duration != 0 {
						return fmt.Errorf("failoverAfter %v, want 0s (failover off)", s.FailoverAfter)
					}
					return nil
				}),
			},
			{ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "/" + name, ImportStateVerify: true},
			{
				PreConfig: func() {
					if err := c.Delete(context.Background(), &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
						t.Fatalf("delete out of band: %v", err)
					}
				},
				Config:             step3,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{Config: step3, Check: checkBurstPolicy(c, ns, name, func(*hcav1.BurstPolicy) error { return nil })},
		},
	})
}

func TestAccBurstPolicyResource_invalid(t *testing.T) {
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	base := `name = "web"
  namespace = "shop"
  primary_cluster = "private"
  max_replicas = 10
`
	tests := []struct {
		name, body string
		want       []string
	}{
		{"target both", `target = { deployment_name = "web", match_labels = { a = "b" } }` + "\n  burst_targets = [{ cluster = \"eks\" }]",
			[]string{"Invalid target", "target: set exactly one of deployment_name or match_labels."}},
		{"selector empty", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  propagate = { secrets = {} }",
			[]string{"Invalid propagate", "propagate.secrets: set names or match_labels (or both) to select objects to propagate."}},
		{"primary in targets", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"private\" }]",
			[]string{"Invalid burst_targets", `burst_targets must not list primary_cluster "private": list only the clusters to burst into.`}},
		{"min above max", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  min_replicas = 11",
			[]string{"Invalid min_replicas", "min_replicas (11) must be <= max_replicas (10)."}},
		{"placement", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  placement = \"random\"",
			[]string{"Invalid Attribute Value Match", `Attribute placement value must be one of: ["priority" "cheapest" "weighted" "capacity"], got: "random"`}},
		{"weight", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\", weight = 1001 }]",
			[]string{"Invalid Attribute Value", "Attribute burst_targets[0].weight value must be between 0 and 1000, got: 1001"}},
		{"algorithm mismatch", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  algorithm = { name = \"kubernetes\", frss = { shrink_step = 2 } }",
			[]string{"Invalid algorithm", "algorithm.frss is set but algorithm.name is kubernetes: set name to frss or remove frss."}},
		{"tolerance", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  algorithm = { name = \"frss\", frss = { tolerance = \"1\" } }",
			[]string{"Invalid algorithm.frss.tolerance", `algorithm.frss.tolerance must be a decimal at least 0 and less than 1, got "1".`}},
		{"period", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  algorithm = { kubernetes = { scale_up = { policies = [{ type = \"Pods\", value = 1, period = \"31m\" }] } } }",
			[]string{"Invalid algorithm.kubernetes.scale_up.policies[0].period", `must be greater than 0s and at most 30m0s, got "31m".`}},
		{"pending_threshold", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  pending_threshold = \"5 seconds\"",
			[]string{"Invalid Attribute Value Match", `Attribute pending_threshold must be a Go duration such as "5s" or "1m", got: 5 seconds`}},
		{"failover_after spelling", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  failover_after = \"2 minutes\"",
			[]string{"Invalid Attribute Value Match", `Attribute failover_after must be a Go duration such as "90s" or "2m", got: 2 minutes`}},
		{"failover_after too long", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  failover_after = \"2h\"",
			[]string{"Invalid failover_after", `failover_after must be at most 1h0m0s, got "2h".`}},
		{"promql without promql", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  metrics = [{ type = \"PromQL\" }]",
			[]string{"Invalid metrics", "metrics[0]: type PromQL requires promql (query and target_value) and no resource."}},
		{"panic windows", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  algorithm = { name = \"panic\", panic = { stable_window = \"6s\" } }",
			[]string{"Invalid algorithm", "algorithm.panic.panic_window (6s) must be shorter than stable_window (6s)."}},
		{"label key", `target = { match_labels = { "my app" = "web" } }` + "\n  burst_targets = [{ cluster = \"eks\" }]",
			[]string{"Invalid target.match_labels", `target.match_labels has the key "my app": not a Kubernetes label key`}},
		{"label value", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  propagate = { secrets = { match_labels = { app = \"a b\" } } }",
			[]string{"Invalid propagate.secrets.match_labels", `propagate.secrets.match_labels["app"] = "a b": not a Kubernetes label value`}},
		{"empty consul tag", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  consul = { service_name = \"web\", port = 80, tags = [\"\"] }",
			[]string{"Invalid Attribute Value Length", "string length must be between 1 and 255, got: 0"}},
		{"min_replicas not whole", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  min_replicas = 2.5",
			[]string{"Invalid min_replicas", "min_replicas must be a whole number, got 2.5"}},
		{"schedule cron", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  schedules = [{ name = \"rush\", start = \"0 0 8 * * *\", duration = \"1h\", min_replicas = 2 }]",
			[]string{"Invalid schedules[0].start", `schedules[0].start: "0 0 8 * * *" has 6 fields, want 5 (minute hour day-of-month month day-of-week, e.g. "0 8 * * MON-FRI").`}},
		{"schedule time zone", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  schedules = [{ name = \"rush\", start = \"0 8 * * *\", duration = \"1h\", time_zone = \"Europe/Berln\", min_replicas = 2 }]",
			[]string{"Invalid schedules[0].time_zone", `schedules[0].time_zone: "Europe/Berln" is not an IANA time zone name (e.g. "Europe/Berlin", "America/New_York", "UTC")`}},
		{"schedule duration", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  schedules = [{ name = \"rush\", start = \"0 8 * * *\", duration = \"169h\", min_replicas = 2 }]",
			[]string{"Invalid schedules[0].duration", `schedules[0].duration must be greater than 0s and at most 168h0m0s, got "169h".`}},
		{"schedule floor above max", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  schedules = [{ name = \"rush\", start = \"0 8 * * *\", duration = \"1h\", min_replicas = 11 }]",
			[]string{"Invalid schedules", "schedules[0].min_replicas (11) must be <= max_replicas (10): lower the window's floor or raise max_replicas."}},
		{"schedule names", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  schedules = [{ name = \"a\", start = \"0 8 * * *\", duration = \"1h\", min_replicas = 2 }, { name = \"a\", start = \"0 9 * * *\", duration = \"1h\", min_replicas = 3 }]",
			[]string{"Invalid schedules", `schedules[0] and schedules[1] are both named "a": give each window its own name.`}},
		{"headroom", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\" }]\n  algorithm = { adaptive = { headroom_percent = 1001 } }",
			[]string{"Invalid Attribute Value", "Attribute algorithm.adaptive.headroom_percent value must be between 0 and 1000, got: 1001"}},
		{"nested max_replicas not whole", `target = { deployment_name = "web" }` + "\n  burst_targets = [{ cluster = \"eks\", max_replicas = 2.5 }]",
			[]string{"Invalid burst_targets[0].max_replicas", "burst_targets[0].max_replicas must be a whole number, got 2.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"hca\" {\n  kubeconfig_path = %q\n}\nresource \"hca_burst_policy\" \"this\" {\n  %s  %s\n}\n", kubeconfig, base, tt.body),
					ExpectError: errorRe(tt.want[0], tt.want[1:]...),
				}},
			})
		})
	}
}

// TestAccBurstPolicyResource_schedulesAndHeadroom applies a policy with
// two scheduled windows and adaptive headroom with the real CLI against the
// lab, reads them back from the API server, changes them, and imports.
func TestAccBurstPolicyResource_schedulesAndHeadroom(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-bps")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	config := func(headroom int, rushMin int, zone string) string {
		return accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = %q
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 30
  algorithm = {
    adaptive = { forecast_horizon = "2m", headroom_percent = %d }
  }
  schedules = [
    { name = "rush", start = "45 7 * * MON-FRI", duration = "180m", time_zone = %q, min_replicas = %d },
    { name = "batch", start = "0 22 * * *", duration = "1h30m", min_replicas = 4 },
  ]
}
`, name, ns, headroom, zone, rushMin)
	}
	check := func(headroom int32, rushMin int32, zone string) resource.TestCheckFunc {
		return checkBurstPolicy(c, ns, name, func(bp *hcav1.BurstPolicy) error {
			s := bp.Spec
			if a := s.Algorithm.Adaptive; a == nil || a.HeadroomPercent != headroom || a.HeadroomReplicas != 0 {
				return fmt.Errorf("adaptive %+v, want headroom %d %%", a, headroom)
			}
			want := []hcav1.ScheduleWindow{
				{Name: "rush", Start: "45 7 * * MON-FRI", Duration: metav1.Duration{Duration: 3 * time.Hour}, TimeZone: zone, MinReplicas: rushMin},
				{Name: "batch", Start: "0 22 * * *", Duration: metav1.Duration{Duration: 90 * time.Minute}, TimeZone: "UTC", MinReplicas: 4},
			}
			if !reflect.DeepEqual(s.Schedules, want) {
				return fmt.Errorf("schedules %+v, want %+v", s.Schedules, want)
			}
			return nil
		})
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(20, 10, "Europe/Berlin"), Check: resource.ComposeAggregateTestCheckFunc(check(20, 10, "Europe/Berlin"),
				resource.TestCheckResourceAttr("hca_burst_policy.web", "schedules.0.duration", "180m"),
				resource.TestCheckResourceAttr("hca_burst_policy.web", "schedules.1.time_zone", "UTC"))}, // the default
			{Config: config(20, 10, "Europe/Berlin"), PlanOnly: true},
			{Config: config(50, 12, "America/New_York"), Check: check(50, 12, "America/New_York")},
			{ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "/" + name, ImportStateVerify: true,
				// Import has no configuration: the API's spelling of durations.
				ImportStateVerifyIgnore: []string{"schedules.0.duration"}},
		},
	})
}

// TestAccBurstPolicyResource_forecastHorizon: forecast_horizon unset is
// derived by the runtime (nothing in the API object, null in the state,
// an empty plan); a configured 30s (the API's former default, which
// policies created before hold) stays 30s once the configuration no
// longer sets it, with an empty plan; another value removed from the
// configuration is removed from the object.
func TestAccBurstPolicyResource_forecastHorizon(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-bph")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	config := func(horizon string) string {
		set := ""
		if horizon != "" {
			set = fmt.Sprintf("forecast_horizon = %q, ", horizon)
		}
		return accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = %q
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 30
  algorithm = {
    adaptive = { %sheadroom_percent = 10 }
  }
}
`, name, ns, set)
	}
	horizon := func(want *time.Duration) resource.TestCheckFunc {
		return checkBurstPolicy(c, ns, name, func(bp *hcav1.BurstPolicy) error {
			a := bp.Spec.Algorithm.Adaptive
			switch {
			case a == nil:
				return fmt.Errorf("no adaptive parameters")
			case want == nil && a.ForecastHorizon != nil:
				return fmt.Errorf("forecastHorizon %v, want unset (derived)", a.ForecastHorizon.Duration)
			case want != nil && (a.ForecastHorizon == nil || a.ForecastHorizon.Duration != *want):
				return fmt.Errorf("forecastHorizon %v, want %v", a.ForecastHorizon, *want)
			}
			return nil
		})
	}
	thirty, fortyFive := 30*time.Second, 45*time.Second
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(""), Check: resource.ComposeAggregateTestCheckFunc(horizon(nil),
				resource.TestCheckNoResourceAttr("hca_burst_policy.web", "algorithm.adaptive.forecast_horizon"))},
			{Config: config(""), PlanOnly: true},
			{Config: config("30s"), Check: horizon(&thirty)},
			{Config: config("30s"), PlanOnly: true},
			// What a policy created under the API default of 30s looks
			// like: the object holds 30s, the configuration nothing.
			{Config: config(""), PlanOnly: true},
			{Config: config(""), Check: resource.ComposeAggregateTestCheckFunc(horizon(&thirty),
				resource.TestCheckResourceAttr("hca_burst_policy.web", "algorithm.adaptive.forecast_horizon", "30s"))},
			{Config: config("45s"), Check: horizon(&fortyFive)},
			{Config: config(""), Check: resource.ComposeAggregateTestCheckFunc(horizon(nil),
				resource.TestCheckNoResourceAttr("hca_burst_policy.web", "algorithm.adaptive.forecast_horizon"))},
			{Config: config(""), PlanOnly: true},
		},
	})
}

// TestAccBurstPolicyResource_legacyHorizon: a policy created while the API
// defaulted forecastHorizon to 30s holds 30s; under a configuration that
// does not set it, the plan is empty and an unrelated change keeps 30s.
func TestAccBurstPolicyResource_legacyHorizon(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-bp-leg")
	bp := &hcav1.BurstPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
			BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, MinReplicas: 1, MaxReplicas: 10,
			Algorithm: hcav1.Algorithm{Name: "adaptive", Adaptive: &hcav1.AdaptiveAlgorithm{ForecastHorizon: dur("30s"), HeadroomPercent: 10}}},
	}
	if err := c.Create(context.Background(), bp); err != nil {
		t.Fatalf("create the BurstPolicy to import: %v", err)
	}
	cfg := func(headroom int) string {
		return accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = "web"
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 10
  algorithm = {
    adaptive = { headroom_percent = %d } # implies the name, as import reads it
  }
}
`, ns, headroom)
	}
	thirty := checkBurstPolicy(c, ns, "web", func(bp *hcav1.BurstPolicy) error {
		if a := bp.Spec.Algorithm.Adaptive; a == nil || a.ForecastHorizon == nil || a.ForecastHorizon.Duration != 30*time.Second || a.HeadroomPercent != 20 {
			return fmt.Errorf("adaptive %+v, want forecastHorizon 30s and headroom 20 %%", a)
		}
		return nil
	})
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: cfg(10), ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "/web", ImportStatePersist: true},
			{Config: cfg(10), PlanOnly: true},
			{Config: cfg(20), Check: thirty},
			{Config: cfg(20), PlanOnly: true},
		},
	})
}

// TestAccBurstPolicyResource_example plans examples/resources/hca_burst_policy
// with the real Terraform CLI.
func TestAccBurstPolicyResource_example(t *testing.T) {
	planExample(t, "hca_burst_policy")
}

// TestAccBurstPolicyResource_unknownAtPlan plans a weighted policy whose
// burst_targets name clusters created in the same apply (values unknown at
// plan time) with the real CLI: unknown values are never judged invalid.
func TestAccBurstPolicyResource_unknownAtPlan(t *testing.T) {
	prepareAccEnv(t)
	kubeconfig := writeKubeconfig(t, newTestPKI(t), "lab")
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "hca" {
  kubeconfig_path = %q
}
resource "terraform_data" "eks" {
  input = "eks-burst"
}
resource "terraform_data" "ack" {
  input = "ack-burst"
}
resource "hca_burst_policy" "web" {
  name            = "web"
  namespace       = "shop"
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  placement       = "weighted"
  burst_targets   = [{ cluster = terraform_data.eks.output, weight = 3 }, { cluster = terraform_data.ack.output, weight = 1 }]
  max_replicas    = 10
}
`, kubeconfig),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccBurstPolicyResource_missingNamespace creates a policy in a namespace
// that does not exist: the error says so (not credentials, not CRDs).
func TestAccBurstPolicyResource_missingNamespace(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	labAdmin(t, lab) // installs the CRDs: without them the error is theirs, whichever test ran first
	ns := fmt.Sprintf("hca-tf-missing-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = "web"
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 3
}
`, ns),
			ExpectError: errorRe("Error creating burst policy", fmt.Sprintf(`Could not create the BurstPolicy %s/web:`, ns),
				fmt.Sprintf(`The namespace %q does not exist: create it first, or set namespace to an existing namespace.`, ns)),
		}},
	})
}

// TestAccBurstPolicyResource_importThenPlan imports a policy whose durations
// the configuration spells otherwise than the API ("90s" where the API says
// "1m30s"): the plan after the import is empty.
func TestAccBurstPolicyResource_importThenPlan(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-bp-imp")
	bp := &hcav1.BurstPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: hcav1.BurstPolicySpec{Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
			BurstTargets: []hcav1.BurstTargetCluster{{Cluster: "eks"}}, MinReplicas: 1, MaxReplicas: 10, PendingThreshold: dur("90s"), FailoverAfter: dur("120s"),
			Algorithm: hcav1.Algorithm{Name: "kubernetes", Kubernetes: &hcav1.KubernetesAlgorithm{ScaleDown: &hcav1.ScalingRules{
				StabilizationWindow: dur("300s"), Policies: []hcav1.ScalingPolicy{{Type: "Pods", Value: 2, Period: *dur("60s")}}}}}},
	}
	if err := c.Create(context.Background(), bp); err != nil {
		t.Fatalf("create the BurstPolicy to import: %v", err)
	}
	cfg := accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name              = "web"
  namespace         = %q
  target            = { deployment_name = "web" }
  primary_cluster   = "private"
  burst_targets     = [{ cluster = "eks" }]
  max_replicas      = 10
  pending_threshold = "90s"
  failover_after    = "120s"
  algorithm = {
    name = "kubernetes" # import reads the name back; an unnamed block would plan it away
    kubernetes = {
      scale_down = {
        stabilization_window = "300s"
        policies             = [{ type = "Pods", value = 2, period = "60s" }]
      }
    }
  }
}
`, ns)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "/web", ImportStatePersist: true},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccBurstPolicyResource_capacity writes spec.capacity (the lab's API
// server defaults scaleDownDelay to 2m), imports it and changes it in place,
// after rejecting a delay above 24h at plan time.
func TestAccBurstPolicyResource_capacity(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-bp-cap")
	cfg := func(capacity string) string {
		return accProvider(lab) + fmt.Sprintf(`
resource "hca_burst_policy" "web" {
  name            = "web"
  namespace       = %q
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets   = [{ cluster = "eks" }]
  max_replicas    = 10
  capacity        = %s
}
`, ns, capacity)
	}
	capacityIs := func(allowSpot bool, delay string) resource.TestCheckFunc {
		return checkBurstPolicy(c, ns, "web", func(bp *hcav1.BurstPolicy) error {
			cp := bp.Spec.Capacity
			if cp == nil || cp.AllowSpot != allowSpot || cp.ScaleDownDelay == nil || cp.ScaleDownDelay.Duration.String() != delay {
				return fmt.Errorf("spec.capacity = %+v, want allowSpot %v, scaleDownDelay %s", cp, allowSpot, delay)
			}
			return nil
		})
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      cfg(`{ scale_down_delay = "25h" }`),
				PlanOnly:    true,
				ExpectError: errorRe("Invalid capacity.scale_down_delay", `capacity.scale_down_delay`, `got "25h"`),
			},
			{
				Config: cfg(`{ allow_spot = true }`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_burst_policy.web", "capacity.allow_spot", "true"),
					resource.TestCheckNoResourceAttr("hca_burst_policy.web", "capacity.scale_down_delay"),
					capacityIs(true, "2m0s"),
				),
			},
			{ResourceName: "hca_burst_policy.web", ImportState: true, ImportStateId: ns + "/web", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"phase", "replicas"}},
			{
				Config: cfg(`{ scale_down_delay = "90s" }`),
				Check:  capacityIs(false, "1m30s"),
			},
		},
	})
}
