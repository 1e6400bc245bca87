package lab_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	consul "github.com/hashicorp/consul/api"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

const (
	// outageService is the service the outage test registers.
	outageService = "outage"
	// consulOutage is how long Consul stays down. 35 s puts Consul's return just
	// after consul-template's default retry schedule (250ms doubling: attempts
	// 0.25, 0.75, 1.75, 3.75, 7.75, 15.75, 31.75 then 63.75 s after the
	// failure), so without a bounded backoff nginx stays stale for about 28 s.
	consulOutage = 35 * time.Second
	// outageRecoveryBound is how soon after Consul's return nginx must match the
	// catalog (issue 14: "within seconds").
	outageRecoveryBound = 15 * time.Second
)

// TestConsulOutageNginxFollowsCatalog runs its own Consul, nginx and
// consul-template (not the shared lab's), registers six instances backed by
// real HTTP servers, kills Consul for consulOutage and starts it again on the
// same ports. Consul -dev comes back with an empty catalog, so the test
// registers four other instances (as the runtime re-syncs) and checks that,
// within outageRecoveryBound of Consul's return, the rendered upstream file
// lists exactly the catalog's addresses and nginx balances over exactly those
// backends (the old ones still answer, so a stale nginx would be seen).
func TestConsulOutageNginxFollowsCatalog(t *testing.T) {
	labtest.Require(t, "HCA_LAB_DIR") // the binary cache is built by `lab up`
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	dir := t.TempDir()
	l := lab.New(dir, &lab.Binaries{RepoDir: labtest.RepoRoot(t)}, nil, &out)
	t.Cleanup(func() {
		if t.Failed() {
			ct, _ := os.ReadFile(filepath.Join(dir, "logs", "consul-template.log"))
			t.Logf("lab output:\n%s\nconsul-template log (tail):\n%s", out.String(), ct[max(0, len(ct)-3000):])
		}
		_ = l.Down(context.Background(), false)
	})
	b, err := l.UpBalancer(ctx)
	if err != nil {
		t.Fatalf("start balancer: %v\n%s", err, out.String())
	}
	client, err := consul.NewClient(&consul.Config{Address: b.ConsulAddr})
	if err != nil {
		t.Fatal(err)
	}

	before := startBackends(t, 6)
	registerInstances(t, client, "before", before)
	waitNginxMatches(t, ctx, client, b, before, 30*time.Second)

	pid := componentPID(t, l, "consul")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("consul (pid %d) killed; down for %s", pid, consulOutage)
	select {
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	case <-time.After(consulOutage):
	}
	b2, err := l.UpBalancer(ctx)
	if err != nil {
		t.Fatalf("restart consul: %v\n%s", err, out.String())
	}
	if b2 != b {
		t.Fatalf("the balancer moved when Consul restarted: %+v, was %+v", b2, b)
	}
	if got := componentPID(t, l, "consul"); got == pid {
		t.Fatalf("consul was not restarted (pid %d)", got)
	}
	back := time.Now()

	after := startBackends(t, 4)
	registerInstances(t, client, "after", after)
	waitNginxMatches(t, ctx, client, b, after, outageRecoveryBound)
	t.Logf("nginx matched the catalog %s after Consul's return (bound %s)", time.Since(back).Round(10*time.Millisecond), outageRecoveryBound)
}

// backend is one real HTTP server standing for a replica: it answers its own
// address, so a response through nginx tells which upstream served it.
type backend struct{ addr string }

func startBackends(t *testing.T, n int) []backend {
	t.Helper()
	var bs []backend
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, addr)
		}), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		bs = append(bs, backend{addr: addr})
	}
	return bs
}

// registerInstances publishes the backends as instances of outageService on one
// external node, the way the runtime publishes remote replicas.
func registerInstances(t *testing.T, c *consul.Client, prefix string, bs []backend) {
	t.Helper()
	for i, b := range bs {
		host, portStr, err := net.SplitHostPort(b.addr)
		if err != nil {
			t.Fatal(err)
		}
		port, err := strconv.Atoi(portStr)
		if err != nil {
			t.Fatal(err)
		}
		reg := &consul.CatalogRegistration{
			Node: "outage-node", Address: "127.0.0.1",
			NodeMeta: map[string]string{"external-node": "true", "external-probe": "false"},
			Service:  &consul.AgentService{ID: fmt.Sprintf("%s-%d", prefix, i), Service: outageService, Address: host, Port: port},
		}
		if _, err := c.Catalog().Register(reg, nil); err != nil {
			t.Fatalf("register %s: %v", b.addr, err)
		}
	}
}

var serverLine = regexp.MustCompile(`^\s*server (\S+?)(?: weight=\d+)?;`)

// renderedUpstream returns the server addresses of outageService's upstream in
// the rendered file, sorted.
func renderedUpstream(s string) []string {
	var addrs []string
	in := false
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "upstream "+outageService+" {"):
			in = true
		case in && strings.HasPrefix(line, "}"):
			in = false
		case in:
			if m := serverLine.FindStringSubmatch(line); m != nil {
				addrs = append(addrs, m[1])
			}
		}
	}
	slices.Sort(addrs)
	return addrs
}

// catalogAddrs returns the address:port of every instance of outageService in
// Consul's catalog, sorted.
func catalogAddrs(c *consul.Client) ([]string, error) {
	svcs, _, err := c.Catalog().Service(outageService, "", nil)
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, s := range svcs {
		addrs = append(addrs, net.JoinHostPort(s.ServiceAddress, fmt.Sprint(s.ServicePort)))
	}
	slices.Sort(addrs)
	return addrs, nil
}

// waitNginxMatches waits at most limit until the catalog lists exactly want, the
// rendered upstream lists exactly the catalog's addresses, and a round of
// requests through nginx is served by exactly want's backends.
func waitNginxMatches(t *testing.T, ctx context.Context, c *consul.Client, b lab.Balancer, want []backend, limit time.Duration) {
	t.Helper()
	var wantAddrs []string
	for _, w := range want {
		wantAddrs = append(wantAddrs, w.addr)
	}
	slices.Sort(wantAddrs)
	deadline := time.Now().Add(limit)
	var why string
	for {
		why = nginxMismatch(c, b, wantAddrs)
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not match the catalog within %s: %s", limit, why)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%v: %s", ctx.Err(), why)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// nginxMismatch says how the catalog, the rendered file and nginx's answers
// differ from want ("" when they all match).
func nginxMismatch(c *consul.Client, b lab.Balancer, want []string) string {
	cat, err := catalogAddrs(c)
	if err != nil {
		return fmt.Sprintf("read catalog: %v", err)
	}
	if !slices.Equal(cat, want) {
		return fmt.Sprintf("catalog has %v, want %v", cat, want)
	}
	raw, err := os.ReadFile(b.Upstreams)
	if err != nil {
		return err.Error()
	}
	if got := renderedUpstream(string(raw)); !slices.Equal(got, cat) {
		return fmt.Sprintf("upstream file has %v, catalog %v", got, cat)
	}
	// Round robin over equal weights: 3 rounds reach every server; a stale
	// server (whose backend still answers) would show up among them.
	seen := map[string]bool{}
	for range 3 * len(want) {
		resp, err := http.Get(b.NginxURL + "/" + outageService + "/")
		if err != nil {
			return fmt.Sprintf("request through nginx: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("nginx answered %d: %s", resp.StatusCode, body)
		}
		seen[string(body)] = true
	}
	served := make([]string, 0, len(seen))
	for a := range seen {
		served = append(served, a)
	}
	slices.Sort(served)
	if !slices.Equal(served, want) {
		return fmt.Sprintf("nginx served from %v, catalog %v", served, want)
	}
	return ""
}

func componentPID(t *testing.T, l *lab.Lab, name string) int {
	t.Helper()
	sts, err := l.Status()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.Name == name {
			return s.PID
		}
	}
	t.Fatalf("no %s in the lab's status %v", name, sts)
	return 0
}
