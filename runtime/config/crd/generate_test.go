package crd_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestGeneratedFilesAreFresh regenerates the CRDs and the deepcopy functions with
// the pinned controller-gen (tools/controller-gen) and fails if the committed
// files differ: they are outputs of the markers in internal/api, never edited by
// hand.
func TestGeneratedFilesAreFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := t.TempDir()
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, goBin, append([]string{"run", "sigs.k8s.io/controller-tools/cmd/controller-gen"}, args...)...)
		cmd.Dir = filepath.Join(repo, "tools", "controller-gen")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("controller-gen %v: %v\n%s", args, err, stderr.String())
		}
		return stdout
	}
	run("crd:crdVersions=v1", "paths=../../internal/api/...", "output:crd:dir="+out)
	deepcopy := run("object", "paths=../../internal/api/...", "output:object:stdout")

	generated, err := filepath.Glob(filepath.Join(out, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(generated) != len(committed) {
		t.Errorf("controller-gen writes %d CRDs, runtime/config/crd holds %d: run make generate", len(generated), len(committed))
	}
	for _, g := range generated {
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Base(g))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("runtime/config/crd/%s is stale or missing: run make generate", filepath.Base(g))
		}
	}
	got, err := os.ReadFile(filepath.Join(repo, "internal", "api", "v1alpha1", "zz_generated.deepcopy.go"))
	if err != nil || !bytes.Equal(got, deepcopy) {
		t.Errorf("internal/api/v1alpha1/zz_generated.deepcopy.go is stale: run make generate")
	}
}
