package loadsim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: s3cr3t-token}
`

func TestDirSource(t *testing.T) {
	write := func(t *testing.T, dir, name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "clusters", name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "clusters", name, "kubeconfig"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		setup     func(t *testing.T, dir string)
		want      []string
		wantErrIn string // substring of the error; "" for no error
	}{
		{"no clusters directory", func(*testing.T, string) {}, nil, ""},
		{"two clusters", func(t *testing.T, d string) {
			write(t, d, "private", testKubeconfig)
			write(t, d, "eks-burst-1", testKubeconfig)
			if err := os.MkdirAll(filepath.Join(d, "clusters", "starting"), 0o700); err != nil { // no kubeconfig yet
				t.Fatal(err)
			}
		}, []string{"eks-burst-1", "private"}, ""},
		{"empty kubeconfig is skipped silently", func(t *testing.T, d string) {
			write(t, d, "private", testKubeconfig)
			write(t, d, "half-written", "")
		}, []string{"private"}, ""},
		{"invalid kubeconfig is reported, others kept", func(t *testing.T, d string) {
			write(t, d, "private", testKubeconfig)
			write(t, d, "broken", "users: [token: s3cr3t-token")
		}, []string{"private"}, `cluster "broken": kubeconfig`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			got, err := DirSource(dir)(context.Background())
			if tc.wantErrIn == "" && err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if tc.wantErrIn != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrIn) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErrIn)
				}
				if strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("error leaks kubeconfig contents: %v", err)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("clusters = %v, want %v", keys(got), tc.want)
			}
			for _, name := range tc.want {
				cfg := got[name]
				if cfg == nil || cfg.Host != "https://127.0.0.1:6443" || cfg.BearerToken != "s3cr3t-token" {
					t.Errorf("cluster %q: config %v, want the kubeconfig's server and token", name, cfg != nil)
				}
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
