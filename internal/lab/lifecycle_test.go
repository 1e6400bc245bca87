package lab_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestLabLifecycle runs a second, independent lab (without the emulator daemon) in
// a temporary directory from the same binary cache: up is idempotent, a killed
// component is reported by Status and restarted by the next Up, and Down leaves no
// process and no listening port behind.
func TestLabLifecycle(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_DIR")
	root := labtest.RepoRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var out bytes.Buffer
	l := lab.New(dir, &lab.Binaries{RepoDir: root}, nil, &out)
	t.Cleanup(func() { _ = l.Down(context.Background(), false) })
	_ = env

	first, err := l.Up(ctx, lab.Options{PrivateNodes: 1, NodeCPU: "2", NodeMemory: "2Gi"})
	if err != nil {
		t.Fatalf("up: %v\n%s", err, out.String())
	}
	pids := statusPIDs(t, l)
	if len(pids) < 9 { // 4 components + 5 cluster processes
		t.Fatalf("want at least 9 lab processes, got %v", pids)
	}

	// Idempotent: a second up starts nothing new.
	second, err := l.Up(ctx, lab.Options{PrivateNodes: 1, NodeCPU: "2", NodeMemory: "2Gi"})
	if err != nil {
		t.Fatal(err)
	}
	if got := statusPIDs(t, l); !equalMaps(got, pids) {
		t.Fatalf("second up changed processes: before %v after %v", pids, got)
	}
	if first["CONSUL_HTTP_ADDR"] != second["CONSUL_HTTP_ADDR"] || first["HCA_LAB_PRIVATE_KUBECONFIG"] != second["HCA_LAB_PRIVATE_KUBECONFIG"] {
		t.Fatalf("second up changed the environment: %v vs %v", first, second)
	}

	// A crashed component is reported and restarted.
	if err := syscall.Kill(pids["consul"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, func() bool {
		for _, s := range mustStatus(t, l) {
			if s.Name == "consul" && !s.Running {
				return true
			}
		}
		return false
	}, "status to report consul as crashed")
	if _, err := l.Up(ctx, lab.Options{PrivateNodes: 1, NodeCPU: "2", NodeMemory: "2Gi"}); err != nil {
		t.Fatal(err)
	}
	after := statusPIDs(t, l)
	if after["consul"] == pids["consul"] || after["consul"] == 0 {
		t.Fatalf("consul was not restarted: %v", after)
	}
	for name, pid := range pids {
		if name != "consul" && after[name] != pid {
			t.Errorf("%s was restarted although it was healthy (%d -> %d)", name, pid, after[name])
		}
	}

	ports := listeningPorts(t, second)
	if err := l.Down(ctx, false); err != nil {
		t.Fatal(err)
	}
	for name, pid := range after {
		if err := syscall.Kill(pid, 0); err == nil && !zombie(pid) {
			t.Errorf("%s (pid %d) still runs after down", name, pid)
		}
	}
	for _, p := range ports {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p), time.Second); err == nil {
			c.Close()
			t.Errorf("port %d still accepts connections after down", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "env")); !os.IsNotExist(err) {
		t.Errorf("env file left after down: %v", err)
	}
}

func statusPIDs(t *testing.T, l *lab.Lab) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, s := range mustStatus(t, l) {
		if !s.Running {
			t.Fatalf("%s is not running", s.Name)
		}
		m[s.Name] = s.PID
	}
	return m
}

func mustStatus(t *testing.T, l *lab.Lab) []lab.ComponentStatus {
	t.Helper()
	sts, err := l.Status()
	if err != nil {
		t.Fatal(err)
	}
	return sts
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// listeningPorts extracts the loopback ports from the lab environment's URLs.
func listeningPorts(t *testing.T, env map[string]string) []int {
	t.Helper()
	var ports []int
	for _, k := range []string{"HCA_LAB_PROMETHEUS_URL", "CONSUL_HTTP_ADDR", "HCA_LAB_NGINX_URL"} {
		v := env[k]
		i := strings.LastIndexByte(v, ':')
		p, err := strconv.Atoi(v[i+1:])
		if err != nil {
			t.Fatalf("%s=%q has no port", k, v)
		}
		ports = append(ports, p)
	}
	return ports
}

func waitUntil(t *testing.T, ctx context.Context, ok func() bool, what string) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
