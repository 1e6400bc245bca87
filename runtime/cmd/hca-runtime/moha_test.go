package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mohaHeader = "cpu_limit_millicores,memory_limit_mib,replicas,requests_per_second,response_time_ms,cpu_usage_percent,memory_usage_percent\n"

func TestMohaBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := writeFile(t, "missing.csv", "cpu_limit_millicores,replicas,requests_per_second,response_time_ms,cpu_usage_percent,memory_usage_percent\n"+
		strings.Repeat("300,2,50,120,40,60\n", 30))
	fewRows := writeFile(t, "few.csv", mohaHeader+strings.Repeat("300,400,2,50,120,40,60\n", 5))
	badField := writeFile(t, "bad.csv", mohaHeader+"300,400,2,50,120,40,60\n300,400,2,fifty,120,40,60\n")
	out := filepath.Join(dir, "m.json")
	model := trainedModel(t)
	state := "--current=cpu_limit_millicores=300,memory_limit_mib=400,replicas=2,requests_per_second=100,response_time_ms=1500,cpu_usage_percent=90,memory_usage_percent=60"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"moha"}, "moha: no command given"},
		{"unknown command", []string{"moha", "fit"}, `moha: unknown command "fit"`},
		{"missing column", []string{"moha", "train", "--dataset", missing, "--out", out}, "missing.csv: dataset: missing column memory_limit_mib"},
		{"too few rows", []string{"moha", "train", "--dataset", fewRows, "--out", out}, "few.csv: dataset: 5 rows, need at least 20"},
		{"bad field", []string{"moha", "train", "--dataset", badField, "--out", out}, `bad.csv: dataset: line 3: column requests_per_second: "fifty" is not a finite number`},
		{"no dataset", []string{"moha", "train", "--out", out}, "--dataset and --out are required"},
		{"unknown model", []string{"moha", "train", "--dataset", fewRows, "--out", out, "--model", "forest"}, `--model: unknown model "forest"`},
		{"unknown source", []string{"moha", "collect", "--source", "cloud", "--out", out}, `--source "cloud": use model or lab`},
		{"lab source without its flags", []string{"moha", "collect", "--source", "lab", "--out", out}, "--source lab needs --namespace, --deployment, --loadsim-url and --prometheus-url"},
		{"lab grid", []string{"moha", "collect", "--source", "lab", "--out", out, "--namespace", "a", "--deployment", "b", "--loadsim-url", "http://x", "--prometheus-url", "http://y", "--replicas", "1,2.5"}, "--replicas: 2.5 is not a whole number"},
		{"weights do not sum to 1", []string{"moha", "decide", "--model", model, state, "--weights", "response_time=0.5,replicas=0.4"},
			"weights: sum to 0.9, must sum to 1"},
		{"range min > max", []string{"moha", "decide", "--model", model, state, "--ranges", "cpu_limit_millicores=500:300,memory_limit_mib=400:600,replicas=1:10"},
			"ranges.cpu_limit_millicores: min 500 > max 300"},
		{"current incomplete", []string{"moha", "decide", "--model", model, "--current", "replicas=2"}, "--current: "},
		{"not a model file", []string{"moha", "decide", "--model", fewRows, state}, "few.csv: model: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runMain(context.Background(), tc.args, &stdout, &stderr)
			var u usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v (usage error: %v), want a usage error containing %q", err, errors.As(err, &u), tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("bad input wrote %s", out)
			}
		})
	}
}

// TestMohaExitCode runs main in a child process: bad datasets exit with
// code 2 and say why on stderr.
func TestMohaExitCode(t *testing.T) {
	if args := os.Getenv("HCA_RUNTIME_TEST_MAIN"); args != "" {
		os.Args = append([]string{"hca-runtime"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	missing := writeFile(t, "missing.csv", "cpu_limit_millicores\n300\n")
	fewRows := writeFile(t, "few.csv", mohaHeader+"300,400,2,50,120,40,60\n")
	out := filepath.Join(t.TempDir(), "m.json")
	for _, tc := range []struct {
		name, dataset, want string
	}{
		{"missing column", missing, "dataset: missing column memory_limit_mib, replicas, requests_per_second, response_time_ms, cpu_usage_percent, memory_usage_percent"},
		{"too few rows", fewRows, "dataset: 1 rows, need at least 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMohaExitCode$")
			cmd.Env = append(os.Environ(), "HCA_RUNTIME_TEST_MAIN="+strings.Join([]string{"moha", "train", "--dataset", tc.dataset, "--out", out}, "\x1f"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want code 2; stderr: %s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.want)
			}
		})
	}
}

// trainedModel collects a synthetic dataset and trains a least-squares model
// on it (fast), returning the model file.
func trainedModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ds, model := filepath.Join(dir, "ds.csv"), filepath.Join(dir, "model.json")
	var out bytes.Buffer
	if err := runMain(context.Background(), []string{"moha", "collect", "--out", ds}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if err := runMain(context.Background(), []string{"moha", "train", "--dataset", ds, "--out", model, "--model", "ols", "--compare", "ols,bayes"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	return model
}

func TestMohaCollectTrainDecide(t *testing.T) {
	model := trainedModel(t)
	var out bytes.Buffer
	err := runMain(context.Background(), []string{"moha", "decide", "--model", model, "--weights", "resources",
		"--current", "cpu_limit_millicores=300,memory_limit_mib=400,replicas=2,requests_per_second=100,response_time_ms=1500,cpu_usage_percent=90,memory_usage_percent=60"}, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	// The eq. 1 values of this state are worked out in internal/moha's
	// TestVariations; the default ranges clamp memory to [400, 600].
	if !strings.Contains(out.String(), "| 1 | ") || !strings.Contains(out.String(), "| closeness |") {
		t.Errorf("no ranked table:\n%s", out.String())
	}
}
