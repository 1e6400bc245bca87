package provider

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
)

// writeTestModel trains a least-squares model (milliseconds) on the synthetic
// dataset with the given seed and writes it to a file in a temporary
// directory.
func writeTestModel(t *testing.T, seed uint64) string {
	t.Helper()
	samples, err := moha.Synthesize(moha.DefaultApp, moha.PaperGrid(), 0.05, seed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := moha.Train(moha.KindOLS, samples, moha.Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), fmt.Sprintf("model-%d.json", seed))
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func validMOModel() multiObjectiveModel {
	return multiObjectiveModel{
		Name: types.StringValue("web"), Namespace: types.StringValue("shop"), Target: &moTarget{Name: types.StringValue("web")},
		Container: types.StringNull(), ModelFile: types.StringValue("m.json"), ModelConfigMap: types.StringUnknown(),
		Desired: &moDesired{ResponseTimeMs: types.Int64Value(100), CPUUsagePercent: types.Int64Value(80), MemoryUsagePercent: types.Int64Value(70)},
		Ranges: &moRanges{MinCPU: types.StringValue("300m"), MaxCPU: types.StringValue("0.5"), MinMemory: types.StringValue("400Mi"),
			MaxMemory: types.StringValue("600Mi"), MinReplicas: types.Int64Value(1), MaxReplicas: types.Int64Value(10)},
		WeightPreset:     types.StringNull(),
		TolerancePercent: types.Int64Value(10),
		Interval:         durationOf("30s"), Cooldown: durationOf("2m"),
	}
}

func TestValidateMultiObjective(t *testing.T) {
	w := func(vs ...float64) *moWeights {
		f := types.Float64Value
		return &moWeights{ResponseTime: f(vs[0]), CPUUsage: f(vs[1]), MemoryUsage: f(vs[2]), CPULimit: f(vs[3]), MemoryLimit: f(vs[4]), Replicas: f(vs[5])}
	}
	tests := []struct {
		name   string
		change func(m *multiObjectiveModel)
		want   []string // each the detail of one error; none: valid
	}{
		{"valid", func(*multiObjectiveModel) {}, nil},
		{"balanced weights sum to 1 exactly", func(m *multiObjectiveModel) { m.Weights = w(0.5, 0.1, 0.1, 0.1, 0.1, 0.1) }, nil},
		{"response-time-first weights", func(m *multiObjectiveModel) { m.Weights = w(0.9, 0.02, 0.02, 0.02, 0.02, 0.02) }, nil},
		{"weights sum to 1.1", func(m *multiObjectiveModel) { m.Weights = w(0.5, 0.1, 0.1, 0.1, 0.1, 0.2) },
			[]string{"The weights must sum to exactly 1; response_time + cpu_usage + memory_usage + cpu_limit + memory_limit + replicas = 0.5 + 0.1 + 0.1 + 0.1 + 0.1 + 0.2 = 1.1."}},
		// Thirds are not exact decimals: the CRD's CEL rule sums decimals,
		// so the plan refuses what the API server would.
		{"thirds", func(m *multiObjectiveModel) { m.Weights = w(1.0/3, 1.0/3, 1.0/3, 0, 0, 0) }, []string{"must sum to exactly 1"}},
		{"weights and preset", func(m *multiObjectiveModel) {
			m.Weights = w(0.5, 0.1, 0.1, 0.1, 0.1, 0.1)
			m.WeightPreset = types.StringValue("Balanced")
		}, []string{"Set weights or weight_preset, not both."}},
		{"cpu min above max", func(m *multiObjectiveModel) { m.Ranges.MinCPU = types.StringValue("600m") },
			[]string{"ranges.min_cpu (600m) must be <= ranges.max_cpu (0.5)."}},
		{"memory and replicas min above max", func(m *multiObjectiveModel) {
			m.Ranges.MinMemory = types.StringValue("1Gi")
			m.Ranges.MinReplicas = types.Int64Value(11)
		}, []string{"ranges.min_memory (1Gi) must be <= ranges.max_memory (600Mi).", "ranges.min_replicas (11) must be <= ranges.max_replicas (10)."}},
		{"unknown values are not judged", func(m *multiObjectiveModel) {
			m.Ranges.MinCPU = types.StringUnknown()
			m.Weights = w(0.5, 0.1, 0.1, 0.1, 0.1, 0.1)
			m.Weights.Replicas = types.Float64Unknown()
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := validMOModel()
			tc.change(&m)
			d := validateMultiObjective(&m)
			if len(d) != len(tc.want) {
				t.Fatalf("%d diagnostics, want %d: %v", len(d), len(tc.want), d)
			}
			for i, want := range tc.want {
				if !strings.Contains(d[i].Detail(), want) {
					t.Errorf("diagnostic %d: %q, want %q", i, d[i].Detail(), want)
				}
			}
		})
	}
}

func TestReadModelFile(t *testing.T) {
	good := writeTestModel(t, 1)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"kind": "ols"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxModelBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"a trained model", good, ""},
		{"missing", filepath.Join(dir, "nope.json"), "cannot read the model file: stat " + filepath.Join(dir, "nope.json") + ": no such file or directory; write it with `hca-runtime moha train --out"},
		{"not a model", bad, bad + " is not a model file of `hca-runtime moha train`: "},
		{"too big", big, fmt.Sprintf("has %d bytes, more than a ConfigMap holds", maxModelBytes+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, sum, err := readModelFile(tc.path)
			if tc.want == "" {
				if err != nil || len(data) == 0 || len(sum) != 64 {
					t.Fatalf("readModelFile: %d bytes, sum %q, error %v", len(data), sum, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestMultiObjectiveConverters(t *testing.T) {
	m := validMOModel()
	m.Weights = &moWeights{ResponseTime: types.Float64Value(0.9), CPUUsage: types.Float64Value(0.02), MemoryUsage: types.Float64Value(0.02),
		CPULimit: types.Float64Value(0.02), MemoryLimit: types.Float64Value(0.02), Replicas: types.Float64Value(0.02)}
	m.Metrics = &moMetricsModel{RequestsPerSecond: types.StringValue(`sum(rate(x[1m]))`), ResponseTimeMs: types.StringNull(),
		CPUUsagePercent: types.StringNull(), MemoryUsagePercent: types.StringNull()}
	m.ResizePolicy = types.StringValue("InPlaceOrRecreate")
	s, err := m.toAPI()
	if err != nil {
		t.Fatal(err)
	}
	sp := s.Spec
	if sp.Target.Name != "web" || sp.Target.Kind != hcav1.WorkloadDeployment || sp.Model.ConfigMapName != "web-moha-model" || sp.Model.Key != "model.json" {
		t.Errorf("target/model: %+v %+v", sp.Target, sp.Model)
	}
	if sp.Ranges.MaxCPU.MilliValue() != 500 || sp.Ranges.MinMemory.Value() != 400<<20 || sp.Ranges.MaxReplicas != 10 {
		t.Errorf("ranges %+v", sp.Ranges)
	}
	if sp.Weights.ResponseTime.String() != "900m" || sp.Weights.Replicas.String() != "20m" || sp.Desired.MemoryUsagePercent != 70 {
		t.Errorf("weights %+v desired %+v", sp.Weights, sp.Desired)
	}
	if sp.Interval.Duration != 30*time.Second || sp.Cooldown.Duration != 2*time.Minute || sp.Metrics.RequestsPerSecond != `sum(rate(x[1m]))` || sp.Metrics.CPUUsagePercent != "" {
		t.Errorf("interval %v cooldown %v metrics %+v", sp.Interval, sp.Cooldown, sp.Metrics)
	}
	if sp.ResizePolicy != "InPlaceOrRecreate" {
		t.Errorf("resize policy %q, want InPlaceOrRecreate", sp.ResizePolicy)
	}

	// Back: the spelling of quantities and durations is the prior's when
	// equal ("0.5" = "500m"), the status lands in the computed attributes.
	cpu, mem := kresource.MustParse("400m"), kresource.MustParse("500Mi")
	s.Generation = 2
	s.Status = hcav1.MultiObjectiveElasticityStrategyStatus{Replicas: 3, CPU: &cpu, Memory: &mem,
		Chosen:     &hcav1.MultiObjectiveChoice{CPU: cpu, Memory: mem, Replicas: 3, From: "response_time/memory_usage/cpu_usage", Closeness: "0.8123", PredictedResponseTimeMillis: "42"},
		Conditions: []metav1.Condition{{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 2, Reason: "Scaled"}}}
	back := multiObjectiveFromAPI(s, &m)
	if back.Ranges.MaxCPU.ValueString() != "0.5" || back.Interval.ValueString() != "30s" || back.ModelFile.ValueString() != "m.json" {
		t.Errorf("kept spelling: max_cpu %s interval %s model_file %s", back.Ranges.MaxCPU, back.Interval, back.ModelFile)
	}
	if back.Weights.ResponseTime.ValueFloat64() != 0.9 || back.Metrics.CPUUsagePercent.IsNull() != true || back.WeightPreset.IsNull() != true {
		t.Errorf("weights %+v metrics %+v preset %v", back.Weights, back.Metrics, back.WeightPreset)
	}
	if back.Replicas.ValueInt64() != 3 || back.CPU.ValueString() != "400m" || back.Memory.ValueString() != "500Mi" || !back.Ready.ValueBool() {
		t.Errorf("status: replicas %v cpu %v memory %v ready %v", back.Replicas, back.CPU, back.Memory, back.Ready)
	}
	if got := back.Chosen.Attributes()["closeness"].(types.String).ValueString(); got != "0.8123" {
		t.Errorf("chosen closeness %q", got)
	}
	if back.ResizePolicy.ValueString() != "InPlaceOrRecreate" {
		t.Errorf("resize policy back %v", back.ResizePolicy)
	}
	// The API's empty value (an object written before the field) reads as
	// the default.
	old := s.DeepCopy()
	old.Spec.ResizePolicy = ""
	if b := multiObjectiveFromAPI(old, &m); b.ResizePolicy.ValueString() != "Recreate" {
		t.Errorf("resize policy of an unset spec %v, want Recreate", b.ResizePolicy)
	}
	// A Ready condition of an older generation is not ready.
	s.Generation = 3
	if b := multiObjectiveFromAPI(s, &m); b.Ready.ValueBool() {
		t.Error("ready with a condition of generation 2 on generation 3")
	}
}

func mohaHCL(lab labCluster, ns, name, body string) string {
	return accProvider(lab) + fmt.Sprintf(`
resource "hca_multi_objective_strategy" "web" {
  name      = %q
  namespace = %q
%s
}
`, name, ns, body)
}

func TestAccMultiObjectiveStrategyResource(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-moha")
	name := fmt.Sprintf("web-%06d", rand.IntN(1e6))
	key := client.ObjectKey{Namespace: ns, Name: name}
	cmKey := client.ObjectKey{Namespace: ns, Name: name + "-moha-model"}
	const addr = "hca_multi_objective_strategy.web"
	model1, model2 := writeTestModel(t, 1), writeTestModel(t, 2)
	const ranges = `{ min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }`
	bodyRanges := func(model, ranges, extra string) string {
		return fmt.Sprintf(`
  target     = { name = "web" }
  model_file = %q
  desired    = { response_time_ms = 100 }
  ranges     = %s
%s`, model, ranges, extra)
	}
	body := func(model, extra string) string { return bodyRanges(model, ranges, extra) }
	cmSum := func(want *string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			var cm corev1.ConfigMap
			if err := c.Get(context.Background(), cmKey, &cm); err != nil {
				return err
			}
			*want = sha256Hex([]byte(cm.Data[modelKey]))
			return nil
		}
	}
	var uid, sum1, sum2 string
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if err := c.Get(context.Background(), key, &hcav1.MultiObjectiveElasticityStrategy{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("strategy %s still there after destroy (get: %v)", key, err)
			}
			if err := c.Get(context.Background(), cmKey, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("model ConfigMap %s still there after destroy (get: %v)", cmKey, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			// Bad input is refused at plan time, naming the field; nothing is created.
			{Config: mohaHCL(lab, ns, name, body(model1, `  weights = { response_time = 0.5, cpu_usage = 0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.2 }`)),
				PlanOnly: true, ExpectError: errorRe("Invalid weights", "must sum to exactly 1", "= 1.1")},
			{Config: mohaHCL(lab, ns, name, bodyRanges(model1, `{ min_cpu = "600m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }`, `  weight_preset = "Balanced"`)),
				PlanOnly: true, ExpectError: errorRe("Invalid ranges", "ranges.min_cpu (600m) must be <= ranges.max_cpu (500m).")},
			{Config: mohaHCL(lab, ns, name, body(filepath.Join(t.TempDir(), "absent.json"), "")),
				PlanOnly: true, ExpectError: errorRe("Invalid model_file", "cannot read the model file")},
			{
				Config: mohaHCL(lab, ns, name, body(model1, "")),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", ns+"/"+name),
					resource.TestCheckResourceAttr(addr, "model_config_map", name+"-moha-model"),
					resource.TestCheckResourceAttr(addr, "ranges.min_replicas", "1"),
					resource.TestCheckResourceAttr(addr, "desired.cpu_usage_percent", "85"),
					resource.TestCheckResourceAttr(addr, "interval", "30s"),
					resource.TestCheckResourceAttr(addr, "ready", "false"),
					resource.TestCheckNoResourceAttr(addr, "chosen"),
					cmSum(&sum1),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources[addr].Primary.Attributes["model_sha256"]; got != sum1 {
							return fmt.Errorf("model_sha256 %q, ConfigMap's %q", got, sum1)
						}
						var st hcav1.MultiObjectiveElasticityStrategy
						if err := c.Get(context.Background(), key, &st); err != nil {
							return err
						}
						uid = string(st.UID)
						if st.Spec.Model.ConfigMapName != hcav1.ObjectName(name+"-moha-model") || st.Spec.TolerancePercent != 10 || st.Spec.Cooldown.Duration != 2*time.Minute {
							return fmt.Errorf("spec %+v", st.Spec)
						}
						return nil
					},
				),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: ns + "/" + name, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"model_file"}},
			{
				// Another model: the ConfigMap and the strategy update in place.
				Config:           mohaHCL(lab, ns, name, body(model2, `  weight_preset = "ResourcesFirst"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: resource.ComposeAggregateTestCheckFunc(
					cmSum(&sum2),
					func(s *terraform.State) error {
						if sum2 == sum1 {
							return fmt.Errorf("the ConfigMap still holds the first model")
						}
						if got := s.RootModule().Resources[addr].Primary.Attributes["model_sha256"]; got != sum2 {
							return fmt.Errorf("model_sha256 %q, ConfigMap's %q", got, sum2)
						}
						var st hcav1.MultiObjectiveElasticityStrategy
						if err := c.Get(context.Background(), key, &st); err != nil {
							return err
						}
						if string(st.UID) != uid || st.Spec.WeightPreset != hcav1.WeightsResourcesFirst {
							return fmt.Errorf("uid %s (was %s), preset %q", st.UID, uid, st.Spec.WeightPreset)
						}
						return nil
					},
				),
			},
			{
				// The ConfigMap edited out of band: the plan writes the model back.
				PreConfig: func() {
					var cm corev1.ConfigMap
					if err := c.Get(context.Background(), cmKey, &cm); err != nil {
						t.Fatal(err)
					}
					cm.Data[modelKey] = "{}"
					if err := c.Update(context.Background(), &cm); err != nil {
						t.Fatal(err)
					}
				},
				Config:           mohaHCL(lab, ns, name, body(model2, `  weight_preset = "ResourcesFirst"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: func(*terraform.State) error {
					var got string
					if err := cmSum(&got)(nil); err != nil {
						return err
					}
					if got != sum2 {
						return fmt.Errorf("ConfigMap holds %s, want the model's %s", got, sum2)
					}
					return nil
				},
			},
		},
	})
}

// TestAccMultiObjectiveStrategyResource_example applies
// examples/resources/hca_multi_objective_strategy against the lab with a
// trained model, then destroys it.
func TestAccMultiObjectiveStrategyResource_example(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-moha-ex")
	t.Setenv(EnvKubeConfigPath, lab.kubeconfig)
	example, err := os.ReadFile("../examples/resources/hca_multi_objective_strategy/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: string(example),
			ConfigVariables: config.Variables{
				"namespace":  config.StringVariable(ns),
				"model_file": config.StringVariable(writeTestModel(t, 1)),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_multi_objective_strategy.web", "weights.response_time", "0.5"),
				resource.TestCheckOutput("web_configuration", "0 x -/-"),
				func(*terraform.State) error {
					var st hcav1.MultiObjectiveElasticityStrategy
					if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, &st); err != nil {
						return err
					}
					if st.Spec.Weights == nil || st.Spec.Weights.ResponseTime.String() != "500m" {
						return fmt.Errorf("weights %+v", st.Spec.Weights)
					}
					return nil
				},
			),
		}},
	})
}

// TestAccMultiObjectiveStrategyResource_noOrphan: when the API server refuses
// the strategy (here: one of that name exists already), the model ConfigMap
// created just before is deleted again.
func TestAccMultiObjectiveStrategyResource_noOrphan(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := testNamespace(t, c, "hca-tf-moha-orphan")
	existing := &hcav1.MultiObjectiveElasticityStrategy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: hcav1.MultiObjectiveElasticityStrategySpec{Target: hcav1.TargetRef{Name: "other"},
			Desired: hcav1.MultiObjectiveDesired{ResponseTimeMillis: 50},
			MultiObjectiveStaticConfig: hcav1.MultiObjectiveStaticConfig{Model: hcav1.MultiObjectiveModelRef{ConfigMapName: "elsewhere"},
				Ranges: hcav1.MultiObjectiveRanges{MinCPU: kresource.MustParse("100m"), MaxCPU: kresource.MustParse("1"),
					MinMemory: kresource.MustParse("64Mi"), MaxMemory: kresource.MustParse("1Gi"), MaxReplicas: 3}}}}
	if err := c.Create(context.Background(), existing); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: mohaHCL(lab, ns, "web", fmt.Sprintf(`
  target     = { name = "web" }
  model_file = %q
  desired    = { response_time_ms = 100 }
  ranges     = { min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }`, writeTestModel(t, 1))),
			ExpectError: errorRe("Error creating multi-objective strategy", "Could not create the MultiObjectiveElasticityStrategy "+ns+"/web", "already exists"),
		}},
	})
	err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web-moha-model"}, &corev1.ConfigMap{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the model ConfigMap outlived the refused strategy (get: %v)", err)
	}
	var s hcav1.MultiObjectiveElasticityStrategy
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(existing), &s); err != nil || s.Spec.Target.Name != "other" {
		t.Errorf("the existing strategy was changed or deleted: %v %+v", err, s.Spec.Target)
	}
}
