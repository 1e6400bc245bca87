package simulate

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

const refMultiObjective = "../../examples/traces/moha.yaml"

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// smallModel is an OLS model of the synthetic service on a small grid:
// quick to train, a real model file.
func smallModel(t testing.TB) *moha.Model {
	t.Helper()
	g := moha.Grid{CPUMilli: []float64{300, 500}, MemoryMiB: []float64{400, 600}, Replicas: []int{1, 3, 5}, RPS: []float64{40, 160, 280, 400, 520, 640, 760, 880, 1000}}
	s, err := moha.Synthesize(moha.DefaultApp, g, 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := moha.Train(moha.KindOLS, s, moha.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func modelJSON(t testing.TB, m *moha.Model) string {
	t.Helper()
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// withConfigMap appends the ConfigMap of the model to a manifest.
func withConfigMap(manifest, name, key, model string) string {
	return manifest + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  " + key + ": |\n    " + strings.ReplaceAll(strings.TrimSpace(model), "\n", "\n    ") + "\n"
}

// benchLoop is tools/mohabench's MOHA loop in the HPA comparison
// (docs/bench/moha.md), balanced weights: the example manifest must give
// exactly it.
var benchLoop = moha.Loop{
	Config: moha.Config{Desired: moha.Desired{ResponseTimeMs: 100, CPUUsagePercent: 85, MemoryUsagePercent: 80},
		Ranges:  moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 500}, MemoryLimitMiB: moha.Range{Min: 400, Max: 600}, Replicas: moha.Range{Min: 1, Max: 20}},
		Weights: moha.Balanced},
	TolerancePercent: 10, Cooldown: 2 * time.Minute, HeadroomPercent: moha.DefaultHeadroomPercent, LoadHeadroomPercent: moha.DefaultLoadHeadroomPercent, MinDecreasePercent: moha.DefaultMinDecreasePercent,
}

func TestParseMultiObjective(t *testing.T) {
	ref := readFile(t, refMultiObjective)
	mo, err := ParseMultiObjective(ref)
	if err != nil {
		t.Fatal(err)
	}
	if mo.Name != "web" || mo.Loop != benchLoop || mo.Interval != 30*time.Second || mo.Model != nil || mo.Spec.Model.ConfigMapName != "web-moha-model" {
		t.Fatalf("parsed %+v\nwant loop %+v", mo, benchLoop)
	}
	// The CRD's defaults: everything optional left out.
	minimal := "apiVersion: hca.dev/v1alpha1\nkind: MultiObjectiveElasticityStrategy\nmetadata: {name: m}\nspec:\n  target: {name: web}\n  model: {configMapName: mm}\n" +
		"  desired: {responseTimeMillis: 100}\n  ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 20}\n"
	mo, err = ParseMultiObjective([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if mo.Loop != benchLoop || mo.Interval != 30*time.Second || mo.Spec.Model.Key != "model.json" {
		t.Fatalf("defaults: %+v, key %q", mo.Loop, mo.Spec.Model.Key)
	}
	// An explicit tolerancePercent 0 stays 0 (the default applies only when
	// it is absent).
	if mo, err := ParseMultiObjective([]byte(minimal + "  tolerancePercent: 0\n")); err != nil || mo.Loop.TolerancePercent != 0 {
		t.Fatalf("tolerancePercent 0: %v, %v", mo.Loop.TolerancePercent, err)
	}
	// The model from the ConfigMap spec.model names (other ConfigMaps are
	// ignored).
	m := smallModel(t)
	data := withConfigMap(withConfigMap(string(ref), "other", "model.json", "not a model"), "web-moha-model", "model.json", modelJSON(t, m))
	mo, err = ParseMultiObjective([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if mo.Model == nil || mo.Model.Kind != moha.KindOLS || mo.Model.Samples != m.Samples {
		t.Fatalf("model from the ConfigMap: %+v", mo.Model)
	}
}

func TestParseMultiObjectiveBadInput(t *testing.T) {
	ref := string(readFile(t, refMultiObjective))
	replace := func(old, new string) string {
		if !strings.Contains(ref, old) {
			t.Fatalf("the example lacks %q", old)
		}
		return strings.Replace(ref, old, new, 1)
	}
	weights := "weights: {responseTime: \"0.5\", cpuUsage: \"0.1\", memoryUsage: \"0.1\", cpuLimit: \"0.1\", memoryLimit: \"0.1\", replicas: \"0\"}"
	tests := []struct {
		name, data, want string
	}{
		{"no strategy", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "the file has no MultiObjectiveElasticityStrategy"},
		{"no model", replace("  model:\n    configMapName: web-moha-model\n    key: model.json\n", ""), "spec.model.configMapName is missing"},
		{"weights do not sum to 1", replace("weightPreset: Balanced", weights), "spec: weights: sum to 0.9, must sum to 1"},
		{"weights and preset", replace("  tolerancePercent: 10", "  "+weights+"\n  tolerancePercent: 10"), "set spec.weights or spec.weightPreset, not both"},
		{"unknown preset", replace("weightPreset: Balanced", "weightPreset: Cheapest"), `spec.weightPreset "Cheapest" is unknown`},
		{"CPU range inverted", replace("minCPU: 300m", "minCPU: 600m"), "spec.ranges.minCPU (600m) must be <= ranges.maxCPU (500m)"},
		{"replicas range inverted", replace("minReplicas: 1", "minReplicas: 30"), "spec.ranges.minReplicas (30) must be 1 to ranges.maxReplicas (20)"},
		{"no response time", replace("responseTimeMillis: 100", "responseTimeMillis: 0"), "spec.desired.responseTimeMillis is missing or below 1"},
		{"interval not whole seconds", replace("interval: 30s", "interval: 1500ms"), "spec.interval is 1.5s: use whole seconds"},
		{"unknown field", replace("cooldown: 2m", "cooldown: 2m\n  burst: true"), `unknown field "burst"`},
		{"ConfigMap without the key", withConfigMap(ref, "web-moha-model", "svr.json", "{}"), `ConfigMap "web-moha-model" has no key "model.json" (spec.model.key)`},
		{"ConfigMap without a model", withConfigMap(ref, "web-moha-model", "model.json", `{"format": "x"}`), `ConfigMap "web-moha-model" key "model.json" (spec.model)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMultiObjective([]byte(tc.data))
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrInput containing %q", err, tc.want)
			}
		})
	}
	if _, err := ParseModel([]byte("{not json")); !errors.Is(err, ErrInput) {
		t.Errorf("ParseModel of a broken file: %v", err)
	}
}

// TestRunMultiObjectiveIsTheBenchReplay: the simulator's run of the example
// manifest is tools/mohabench's replay of the same loop (moha.Replay with
// moha.Strategy, from 300m/400Mi × 1, a 10 s start-up delay, the paper's
// prices), figure for figure; with a model in the ConfigMap the same again.
func TestRunMultiObjectiveIsTheBenchReplay(t *testing.T) {
	tr, err := workload.ParseTrace(bytes.NewReader(readFile(t, "../../examples/traces/moha-ramp.csv")))
	if err != nil {
		t.Fatal(err)
	}
	m := smallModel(t)
	mo, err := ParseMultiObjective(readFile(t, refMultiObjective))
	if err != nil {
		t.Fatal(err)
	}
	got, err := RunMultiObjective(mo, m, tr, workload.DefaultPodStartupDelay)
	if err != nil {
		t.Fatal(err)
	}
	bench := moha.Replay{App: moha.DefaultApp, Trace: tr, Start: moha.Configuration{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 1},
		StartupDelay: 10 * time.Second, Prices: moha.PaperPrices, TargetResponseTimeMs: 100}
	want, err := bench.Run(&moha.Strategy{P: moha.NewPerPod(m), Loop: benchLoop, Every: 30 * time.Second, Epoch: time.Unix(0, 0),
		History: moha.History{Memory: moha.Memory{Capacity: moha.DefaultMemoryCapacity}}})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := got.Replay.WriteTimeline(&a); err != nil {
		t.Fatal(err)
	}
	if err := want.WriteTimeline(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || got.Summary != want.Summary() {
		t.Fatalf("simulate %+v\nbench    %+v", got.Summary, want.Summary())
	}
	if got.Summary.ReplicaChanges == 0 {
		t.Fatalf("the ramp changed nothing: %+v", got.Summary)
	}
	mo2, err := ParseMultiObjective([]byte(withConfigMap(string(readFile(t, refMultiObjective)), "web-moha-model", "model.json", modelJSON(t, m))))
	if err != nil {
		t.Fatal(err)
	}
	again, err := RunMultiObjective(mo2, mo2.Model, tr, workload.DefaultPodStartupDelay)
	if err != nil {
		t.Fatal(err)
	}
	if again.Summary != got.Summary {
		t.Fatalf("model from the ConfigMap: %+v, from the file: %+v", again.Summary, got.Summary)
	}
	var table, svg bytes.Buffer
	got.Name = "moha"
	if err := WriteMultiObjectiveTable(&table, []*MultiObjectiveResult{got}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMultiObjectiveSVG(&svg, got, "ramp"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| metric | moha |", "| decided by | MultiObjective strategy web, weights Balanced |", "| model | ols |", "| control interval | 30s |"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	for _, want := range []string{"replicas (pods)", "CPU limit per pod (millicores)", "memory limit per pod (MiB)", "target 100 ms", "cost ($/hour)"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
