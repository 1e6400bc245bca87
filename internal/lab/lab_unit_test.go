package lab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateClusterName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr bool
	}{
		{"private", false},
		{"eks-burst-1", false},
		{"a", false},
		{"", true},
		{"Private", true},
		{"1abc", true},
		{"ends-", true},
		{"has_underscore", true},
		{strings.Repeat("a", 41), true},
		{strings.Repeat("a", 40), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateClusterName(tt.name)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ValidateClusterName(%q) = %v, want error %v", tt.name, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "lowercase letters") {
				t.Errorf("error %q does not say how to fix the name", err)
			}
		})
	}
}

func TestValidatePool(t *testing.T) {
	tests := []struct {
		name    string
		pool    NodePool
		wantErr string
	}{
		{"ok", NodePool{Name: "default", Count: 2, CPU: "4", Memory: "8Gi"}, ""},
		{"remove needs no size", NodePool{Name: "default", Count: 0}, ""},
		{"negative count", NodePool{Name: "default", Count: -1, CPU: "4", Memory: "8Gi"}, "count -1 is negative"},
		{"bad cpu", NodePool{Name: "default", Count: 1, CPU: "four", Memory: "8Gi"}, `cpu "four" is not a positive Kubernetes quantity`},
		{"zero memory", NodePool{Name: "default", Count: 1, CPU: "4", Memory: "0"}, `memory "0" is not a positive`},
		{"bad name", NodePool{Name: "Big", Count: 1, CPU: "4", Memory: "8Gi"}, "invalid cluster name"},
		{"bad taint", NodePool{Name: "p", Count: 1, CPU: "1", Memory: "1Gi", Taints: []Taint{{Key: "k", Effect: "Never"}}}, `effect "Never"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validatePool(tt.pool)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"1.11.4", true}, {"1.5.7", true}, {"1.5", true}, {"v1.6.0", true}, {"2.0.0", true},
		{"1.4.9", false}, {"0.15.5", false}, {"", false}, {"abc", false},
	}
	for _, tt := range tests {
		t.Run(tt.v, func(t *testing.T) {
			if got := versionAtLeast(tt.v, 1, 5); got != tt.want {
				t.Fatalf("versionAtLeast(%q, 1, 5) = %v, want %v", tt.v, got, tt.want)
			}
		})
	}
}

func TestBinariesErrors(t *testing.T) {
	t.Run("missing apt package", func(t *testing.T) {
		old := systemBinDirs
		systemBinDirs = []string{t.TempDir()}
		t.Cleanup(func() { systemBinDirs = old })
		t.Setenv("PATH", t.TempDir())
		_, err := (&Binaries{CacheDir: t.TempDir()}).Path(context.Background(), BinPrometheus)
		if err == nil || !strings.Contains(err.Error(), "apt-get install -y prometheus nginx") {
			t.Fatalf("error = %v, want the apt-get command to run", err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	})
	t.Run("build failure", func(t *testing.T) {
		repo := t.TempDir()
		mod := filepath.Join(repo, "tools", "etcd")
		if err := os.MkdirAll(mod, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module broken\n\ngo 1.26\n"), 0o644)
		os.WriteFile(filepath.Join(mod, "main.go"), []byte("package main\n\nfunc main() { undefinedCall() }\n"), 0o644)
		cache := t.TempDir()
		_, err := (&Binaries{RepoDir: repo, CacheDir: cache}).Path(context.Background(), BinEtcd)
		if err == nil {
			t.Fatal("building a broken module succeeded")
		}
		msg := err.Error()
		for _, want := range []string{"build etcd failed", "undefined: undefinedCall", filepath.Join(cache, "build-etcd.log")} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not contain %q", msg, want)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("error is not one line: %q", msg)
		}
		if _, ok := (&Binaries{RepoDir: repo, CacheDir: cache}).cached(BinEtcd, strings.Repeat("0", 64)); ok {
			t.Error("a failed build left a binary in the cache")
		}
	})
	t.Run("unknown binary", func(t *testing.T) {
		_, err := (&Binaries{}).Path(context.Background(), "kubelet")
		if err == nil || !strings.Contains(err.Error(), `unknown lab binary "kubelet"`) {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestUnknownCluster(t *testing.T) {
	dir := t.TempDir()
	c := NewClusters(dir, &Binaries{})
	os.MkdirAll(filepath.Join(dir, "clusters", "private"), 0o755)
	os.WriteFile(filepath.Join(dir, "clusters", "private", "cluster.json"), []byte(`{"name":"private"}`), 0o600)
	_, err := c.Get("nope")
	if err == nil || !strings.Contains(err.Error(), `unknown lab cluster "nope" (known: private)`) {
		t.Fatalf("error = %v", err)
	}
	if err := c.SetNodePool(context.Background(), "nope", NodePool{Name: "x", Count: 0}); err == nil || !strings.Contains(err.Error(), "unknown lab cluster") {
		t.Fatalf("SetNodePool on unknown cluster: %v", err)
	}
	if err := c.DeleteCluster(context.Background(), "never-created"); err != nil {
		t.Fatalf("deleting an unknown cluster should be a no-op, got %v", err)
	}
}

func TestWriteEnvFileQuotes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "env")
	if err := writeEnvFile(p, map[string]string{"B": "two words", "A": `q"uote`}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	want := "export A=\"q\\\"uote\"\nexport B=\"two words\"\n"
	if !strings.HasSuffix(string(raw), want) {
		t.Fatalf("env file:\n%s\nwant suffix:\n%s", raw, want)
	}
}

// TestCredentialsEnv checks that .lab/env exports the emulators' credentials
// under the names the AWS SDK's default chain and the provider's alicloud
// fallbacks read.
func TestCredentialsEnv(t *testing.T) {
	want := map[string]string{
		"AWS_ACCESS_KEY_ID": AWSAccessKeyID, "AWS_SECRET_ACCESS_KEY": AWSSecretAccessKey,
		"ALICLOUD_ACCESS_KEY": AlicloudAccessKey, "ALICLOUD_SECRET_KEY": AlicloudAccessSecret,
	}
	got := credentialsEnv()
	if len(got) != len(want) {
		t.Errorf("credentialsEnv has %d variables, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
