package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	refDir     = "../../../examples/traces/"
	refPolicy  = refDir + "policy.yaml"
	refCluster = refDir + "cluster.yaml"
	refSLO     = refDir + "slo.yaml"
	flashCrowd = refDir + "flash-crowd.csv"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimulateBadInput(t *testing.T) {
	badLine := writeFile(t, "bad.csv", "seconds,requests_per_second\n0,10\n30 40\n")
	negative := writeFile(t, "neg.csv", "0,10\n30,-1\n")
	nonNumeric := writeFile(t, "nan.csv", "0,10\n30,many\n")
	noMax := writeFile(t, "nomax.yaml", "apiVersion: hca.dev/v1alpha1\nkind: BurstPolicy\nspec:\n  primaryCluster: private\n  burstTargets: [{cluster: eks}]\n")
	badAlg := writeFile(t, "alg.yaml", "apiVersion: hca.dev/v1alpha1\nkind: BurstPolicy\nspec:\n  primaryCluster: private\n  burstTargets: [{cluster: eks}]\n  maxReplicas: 5\n  algorithm: {name: hpa}\n")
	noCap := writeFile(t, "cluster.yaml", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nclusters:\n  - name: private\n    role: primary\n")
	sloHead := "apiVersion: hca.dev/v1alpha1\nkind: ServiceLevelObjective\nmetadata: {name: s}\nspec:\n  target: {name: web}\n"
	sloStrategy := "  elasticityStrategy: {kind: Horizontal, horizontal: {maxReplicas: 5}}\n"
	sloBadType := writeFile(t, "slotype.yaml", sloHead+"  slo: {type: throughput}\n"+sloStrategy)
	sloNoThreshold := writeFile(t, "slothr.yaml", sloHead+"  slo: {type: latency, latency: {percentile: \"90\"}}\n"+sloStrategy)
	otherPrimary := writeFile(t, "other.yaml", "apiVersion: simulate.hca.dev/v1alpha1\nkind: ClusterModel\nclusters:\n  - {name: onprem, role: primary, capacityPods: 10}\n  - {name: eks, role: burst, capacityPods: 10}\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no trace", []string{}, "--trace is required"},
		{"missing trace file", []string{"--trace", "/nonexistent.csv"}, "no such file"},
		{"malformed trace line", []string{"--trace", badLine}, "trace line 3: want 2 comma-separated fields"},
		{"negative load", []string{"--trace", negative}, `trace line 2: requests_per_second "-1" is negative`},
		{"non-numeric load", []string{"--trace", nonNumeric}, `trace line 2: requests_per_second "many" is not a number`},
		{"unknown algorithm in compare", []string{"--trace", flashCrowd, "--compare", "kubernetes,hpa"}, `algorithm "hpa" is unknown: use adaptive, kubernetes, frss, panic`},
		{"empty compare entry", []string{"--trace", flashCrowd, "--compare", "kubernetes,,frss"}, "empty entry"},
		{"unknown algorithm in policy", []string{"--trace", flashCrowd, "--policy", badAlg}, `spec.algorithm.name "hpa" is unknown`},
		{"missing policy field", []string{"--trace", flashCrowd, "--policy", noMax}, "spec.maxReplicas is missing"},
		{"missing model field", []string{"--trace", flashCrowd, "--cluster", noCap}, "clusters[0].capacityPods is missing"},
		{"policy and model disagree", []string{"--trace", flashCrowd, "--policy", refPolicy, "--cluster", otherPrimary}, `spec.primaryCluster "private" is not the cluster model's primary cluster "onprem"`},
		{"unknown SLO type", []string{"--trace", flashCrowd, "--policy", sloBadType}, `spec.slo.type "throughput" is unknown`},
		{"SLO missing threshold", []string{"--trace", flashCrowd, "--policy", sloNoThreshold}, "spec.slo.latency.threshold is missing"},
		{"SLO missing threshold in compare", []string{"--trace", flashCrowd, "--policy", refPolicy, "--compare", "kubernetes," + sloNoThreshold}, "spec.slo.latency.threshold is missing"},
		{"algorithm against an SLO policy", []string{"--trace", flashCrowd, "--policy", refSLO, "--compare", "frss"}, `the policy is ServiceLevelObjective "web-latency"`},
		{"unknown flag", []string{"--trace", flashCrowd, "--seed", "1"}, "flag provided but not defined: -seed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runMain(context.Background(), append([]string{"simulate"}, tt.args...), &out, io.Discard)
			var u usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v (usage error, exit 2: %v), want a usage error containing %q", err, errors.As(err, &u), tt.want)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q on bad input", out.String())
			}
		})
	}
}

// TestSimulateCompare runs the three algorithms twice on the reference
// flash crowd: identical output, one chart per algorithm.
func TestSimulateCompare(t *testing.T) {
	runOnce := func(dir string) (string, map[string][]byte) {
		var out bytes.Buffer
		args := []string{"simulate", "--trace", flashCrowd, "--policy", refPolicy, "--cluster", refCluster, "--compare", "kubernetes,frss,panic", "--out", dir}
		if err := runMain(context.Background(), args, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		charts := map[string][]byte{}
		for _, alg := range []string{"kubernetes", "frss", "panic"} {
			b, err := os.ReadFile(filepath.Join(dir, "flash-crowd-"+alg+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("<svg ")) || !bytes.Contains(b, []byte("SLO 200ms")) {
				t.Fatalf("%s chart is not the expected SVG: %.80s", alg, b)
			}
			charts[alg] = b
		}
		return out.String(), charts
	}
	out1, charts1 := runOnce(t.TempDir())
	out2, charts2 := runOnce(t.TempDir())
	if out1 != out2 {
		t.Fatalf("two runs printed different tables:\n%s\n%s", out1, out2)
	}
	for alg := range charts1 {
		if !bytes.Equal(charts1[alg], charts2[alg]) {
			t.Fatalf("two runs drew different %s charts", alg)
		}
	}
	// The HPA without a behavior block: 2 -> 4 -> 8 -> 16 -> 20, 18 (within
	// 10 % of 20) decided at the fourth 15 s sync; the last column is the
	// reactive floor.
	for _, want := range []string{"| metric | kubernetes | frss | panic | reactive floor |", "| time to required replicas (decided, within 10 %) | 60 s (4.0 intervals) | 15 s (1.0 intervals) |", "| under-provisioning accuracy θU |"} {
		if !strings.Contains(out1, want) {
			t.Fatalf("table lacks %q:\n%s", want, out1)
		}
	}
}

// TestSimulateSLO runs the reference SLO beside an algorithm: the SLO's run
// is labelled by its file, charts its percentile against its threshold,
// and states its demand.
func TestSimulateSLO(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"simulate", "--trace", flashCrowd, "--policy", refPolicy, "--cluster", refCluster, "--compare", "kubernetes," + refSLO, "--out", dir}
	if err := runMain(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| metric | kubernetes | slo |", "| control interval | 15s | 20s |", "SLO latency p90 < 200ms"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("table lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "flash-crowd-slo.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("p90 latency")) || !bytes.Contains(b, []byte("SLO 200ms")) {
		t.Fatalf("SLO chart lacks the p90 latency or the SLO line")
	}
}
