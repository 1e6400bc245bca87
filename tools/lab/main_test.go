package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunErrors checks that bad input and faults give one-line errors saying what
// to do (usage errors exit 2, see main).
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HCA_LAB_DIR", dir)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	tests := []struct {
		name      string
		args      []string
		want      string
		wantUsage bool
	}{
		{"no command", nil, "no command given", true},
		{"unknown command", []string{"start"}, `unknown command "start"`, true},
		{"unknown cluster", []string{"cluster", "delete", "nope"}, `unknown lab cluster "nope"`, false},
		{"bad cluster name", []string{"cluster", "create", "Bad_Name"}, `invalid cluster name "Bad_Name"`, false},
		{"cluster needs a name", []string{"cluster", "create"}, "cluster create needs a NAME", true},
		{"bad flag", []string{"up", "--nodes=many"}, `invalid value "many"`, true},
		{"env before up", []string{"env"}, "the lab is not up", false},
		{"port taken", []string{"serve", "--dir=" + dir, "--aws-port=" + port, "--ack-port=" + port, "--loadsim-port=" + port, "--oidc-port=" + port, "--alicloud-sts-port=" + port},
			"port taken? run `go run ./tools/lab down` and retry", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tt.args, &out)
			if err == nil {
				t.Fatalf("run(%v) succeeded, want error containing %q", tt.args, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %q, want it to contain %q", err, tt.want)
			}
			var u usageError
			if errors.As(err, &u) != tt.wantUsage {
				t.Fatalf("usage error = %v, want %v (%v)", !tt.wantUsage, tt.wantUsage, err)
			}
			if !tt.wantUsage && strings.Contains(strings.TrimSpace(err.Error()), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "clusters", "Bad_Name")); !os.IsNotExist(err) {
		t.Errorf("a rejected cluster left files behind: %v", err)
	}
}
