package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const (
	refMoha  = refDir + "moha.yaml"
	mohaRamp = refDir + "moha-ramp.csv"
)

// mohaManifest is the example strategy with its model's ConfigMap appended,
// as kubectl apply takes them.
func mohaManifest(t *testing.T, modelFile string) string {
	t.Helper()
	ref, err := os.ReadFile(refMoha)
	if err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(ref) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-moha-model\ndata:\n  model.json: |\n    " +
		strings.ReplaceAll(strings.TrimSpace(string(model)), "\n", "\n    ") + "\n"
}

// row returns the value column of a table row.
func row(t *testing.T, table, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(name) + ` \| (.*) \|$`).FindStringSubmatch(table)
	if m == nil {
		t.Fatalf("table lacks row %q:\n%s", name, table)
	}
	return m[1]
}

// TestSimulateMultiObjective runs the example MultiObjective strategy on the
// MOHA ramp with a model trained by moha collect and moha train: the table
// states the strategy's settings and what the replay did (replicas and pod
// size changed, cost per day), the chart has the replicas and limit panels,
// and the model from the ConfigMap in the manifest gives the same figures as
// --model.
func TestSimulateMultiObjective(t *testing.T) {
	model := trainedModel(t)
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runMain(context.Background(), []string{"simulate", "--trace", mohaRamp, "--policy", refMoha, "--model", model, "--out", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	if !strings.HasPrefix(table, "trace moha-ramp.csv (1260 s), strategy moha.yaml, model model.json, cluster model (default)\n\n| metric | moha |\n") {
		t.Fatalf("header:\n%s", table)
	}
	for name, want := range map[string]string{
		"decided by":           "MultiObjective strategy web, weights Balanced",
		"model":                "ols",
		"control interval":     "30s",
		"scale-down cooldown":  "2m0s",
		"pod start-up delay":   "10s",
		"ranges":               "300m-500m, 400Mi-600Mi, 1-20 pods",
		"target response time": "100 ms (kept under 80 ms)",
	} {
		if got := row(t, table, name); got != want {
			t.Errorf("row %q = %q, want %q", name, got, want)
		}
	}
	// The ramp (1 -> 1,000 req/s) outgrows one 300m pod: the strategy adds
	// replicas; the cost is that of more than one small pod all day.
	if n, err := strconv.Atoi(row(t, table, "replica changes")); err != nil || n < 1 {
		t.Errorf("replica changes %q", row(t, table, "replica changes"))
	}
	if n, err := strconv.Atoi(row(t, table, "max replicas decided")); err != nil || n < 2 {
		t.Errorf("max replicas %q", row(t, table, "max replicas decided"))
	}
	if c, err := strconv.ParseFloat(row(t, table, "cost ($/day)"), 64); err != nil || !(c > 24*(0.3*0.0573+400.0/953*0.0063421)) {
		t.Errorf("cost %q", row(t, table, "cost ($/day)"))
	}
	for _, r := range []string{"mean response time (load-weighted)", "p95 response time (per second, load-weighted)", "seconds over the target", "pod-size changes", "rounds by reason"} {
		row(t, table, r)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "moha-ramp-moha.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg ", "replicas (pods)", "CPU limit per pod (millicores)", "memory limit per pod (MiB)", "target 100 ms"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}

	// The same strategy with its model in a ConfigMap of the manifest.
	withCM := writeFile(t, "moha.yaml", mohaManifest(t, model))
	var again bytes.Buffer
	if err := runMain(context.Background(), []string{"simulate", "--trace", mohaRamp, "--policy", withCM}, &again, io.Discard); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(table, "\n\n")
	_, body2, _ := strings.Cut(again.String(), "\n\n")
	if body != body2 || !strings.Contains(again.String(), "model the ConfigMap of spec.model") {
		t.Fatalf("model from the ConfigMap:\n%s\nfrom --model:\n%s", again.String(), table)
	}

	// --compare: another weighting beside it, one column each.
	rtf := writeFile(t, "rtf.yaml", strings.Replace(mohaManifest(t, model), "weightPreset: Balanced", "weightPreset: ResponseTimeFirst", 1))
	var cmp bytes.Buffer
	if err := runMain(context.Background(), []string{"simulate", "--trace", mohaRamp, "--policy", withCM, "--compare", withCM + "," + rtf}, &cmp, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := row(t, cmp.String(), "decided by"); got != "MultiObjective strategy web, weights Balanced | MultiObjective strategy web, weights ResponseTimeFirst" {
		t.Errorf("compare: %q", got)
	}
}

func TestSimulateMultiObjectiveBadInput(t *testing.T) {
	model := trainedModel(t)
	ref, err := os.ReadFile(refMoha)
	if err != nil {
		t.Fatal(err)
	}
	notJSON := writeFile(t, "x.json", "{not json")
	broken := writeFile(t, "broken.json", `{"format": "hca-moha-model", "version": 1, "kind": "svr"}`)
	weights := writeFile(t, "weights.yaml", strings.Replace(string(ref), "weightPreset: Balanced",
		`weights: {responseTime: "0.5", cpuUsage: "0.1", memoryUsage: "0.1", cpuLimit: "0.1", memoryLimit: "0.1", replicas: "0"}`, 1))
	noModel := writeFile(t, "nomodel.yaml", strings.Replace(string(ref), "  model:\n    configMapName: web-moha-model\n    key: model.json\n", "", 1))
	otherKey := writeFile(t, "key.yaml", strings.Replace(mohaManifest(t, model), "  model.json: |", "  svr.json: |", 1))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"--trace", mohaRamp, "--policy", refMoha},
			`moha.yaml: spec.model names ConfigMap "web-moha-model", which is not in the file: add it after a --- line (key "model.json" holding the file of hca-runtime moha train) or give --model FILE`},
		{"no spec.model", []string{"--trace", mohaRamp, "--policy", noModel, "--model", model}, "spec.model.configMapName is missing"},
		{"model file does not parse", []string{"--trace", mohaRamp, "--policy", refMoha, "--model", notJSON}, "--model " + notJSON + ": bad simulation input: model: invalid character"},
		{"model file is not a model", []string{"--trace", mohaRamp, "--policy", refMoha, "--model", broken}, "--model " + broken + ": bad simulation input: "},
		{"missing model file", []string{"--trace", mohaRamp, "--policy", refMoha, "--model", "/nonexistent.json"}, "--model: open /nonexistent.json"},
		{"ConfigMap without the key", []string{"--trace", mohaRamp, "--policy", otherKey}, `ConfigMap "web-moha-model" has no key "model.json" (spec.model.key)`},
		{"weights do not sum to 1", []string{"--trace", mohaRamp, "--policy", weights, "--model", model}, "spec: weights: sum to 0.9, must sum to 1"},
		{"--model without a strategy", []string{"--trace", mohaRamp, "--policy", refPolicy, "--model", model}, "--model is the model of a MultiObjectiveElasticityStrategy"},
		{"an algorithm in --compare", []string{"--trace", mohaRamp, "--policy", refMoha, "--model", model, "--compare", "kubernetes"}, "list other strategy files (*.yaml), not algorithms"},
		{"a burst policy in --compare", []string{"--trace", mohaRamp, "--policy", refMoha, "--model", model, "--compare", refMoha + "," + refPolicy}, "policy.yaml: not a MultiObjectiveElasticityStrategy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runMain(context.Background(), append([]string{"simulate"}, tt.args...), &out, io.Discard)
			var u usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v (usage error: %v), want a usage error containing %q", err, errors.As(err, &u), tt.want)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q on bad input", out.String())
			}
		})
	}
}

// TestSimulateMultiObjectiveExitCode runs main in a child process: a
// strategy without its model exits with code 2 and says why on stderr.
func TestSimulateMultiObjectiveExitCode(t *testing.T) {
	if args := os.Getenv("HCA_RUNTIME_TEST_MAIN"); args != "" {
		os.Args = append([]string{"hca-runtime"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSimulateMultiObjectiveExitCode$")
	cmd.Env = append(os.Environ(), "HCA_RUNTIME_TEST_MAIN="+strings.Join([]string{"simulate", "--trace", mohaRamp, "--policy", refMoha}, "\x1f"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want code 2; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `spec.model names ConfigMap "web-moha-model", which is not in the file`) || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
