// Package labtest gives tests the running lab's coordinates, or skips them when the lab
// is not up. With HCA_LAB_REQUIRED=1 (set by `make test` and CI) a missing lab fails
// the test instead, so a broken lab can never turn the suite green by skipping.
package labtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// Require returns the values of the named environment variables (written by
// `go run ./tools/lab up` to .lab/env and exported by `make test`). It skips the test
// when one is empty, or fails it when HCA_LAB_REQUIRED=1.
func Require(t testing.TB, names ...string) map[string]string {
	t.Helper()
	vals := make(map[string]string, len(names))
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			if os.Getenv("HCA_LAB_REQUIRED") == "1" {
				t.Fatalf("lab variable %s is not set: run `go run ./tools/lab up` and source .lab/env (HCA_LAB_REQUIRED=1 forbids skipping)", n)
			}
			t.Skipf("lab variable %s is not set: run `go run ./tools/lab up` and source .lab/env", n)
		}
		vals[n] = v
	}
	return vals
}

// RepoRoot returns the project root (the directory holding tools/kube/go.mod),
// which the lab needs to find the nested modules its binaries are built from.
func RepoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "tools", "kube", "go.mod")); err == nil {
			return d
		}
	}
	t.Fatalf("repository root not found above %s", wd)
	return ""
}

// Clusters returns the running lab's cluster manager (HCA_LAB_DIR), for tests
// that start clusters of their own or resize node pools.
func Clusters(t testing.TB) *lab.Clusters {
	t.Helper()
	env := Require(t, "HCA_LAB_DIR")
	return lab.NewClusters(env["HCA_LAB_DIR"], &lab.Binaries{RepoDir: RepoRoot(t)})
}

// NodeBootDelay is the running lab's node boot delay ($HCA_LAB_NODE_BOOT_DELAY):
// how long a node asked of the lab daemon's emulators takes to be Ready. A lab
// whose daemon predates the variable boots nodes at once: 0.
func NodeBootDelay(t testing.TB) time.Duration { return envDelay(t, "HCA_LAB_NODE_BOOT_DELAY") }

// PodStartupDelay is the running lab's pod start-up delay
// ($HCA_LAB_POD_STARTUP_DELAY), 0 when unset.
func PodStartupDelay(t testing.TB) time.Duration { return envDelay(t, "HCA_LAB_POD_STARTUP_DELAY") }

func envDelay(t testing.TB, name string) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("$%s is %q, not a Go duration: source the lab's env (. .lab/env)", name, v)
	}
	return d
}
