package lab_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	consul "github.com/hashicorp/consul/api"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestConsulServiceRendersNginxUpstream registers a service backed by a real HTTP
// server in Consul's catalog (as an external node, the way the runtime publishes
// remote replicas) and checks that consul-template renders it into the nginx
// upstream file, that nginx still validates and proxies to it, and that
// deregistering removes it again.
func TestConsulServiceRendersNginxUpstream(t *testing.T) {
	env := labtest.Require(t, "CONSUL_HTTP_ADDR", "HCA_LAB_NGINX_UPSTREAMS", "HCA_LAB_NGINX_URL", "HCA_LAB_NGINX_CONF")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// A real backend the upstream points at.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "backend saw %s", r.URL.Path)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port

	client, err := consul.NewClient(&consul.Config{Address: env["CONSUL_HTTP_ADDR"]})
	if err != nil {
		t.Fatal(err)
	}
	svc := fmt.Sprintf("labtest-%d", rand.IntN(1e6))
	node := "burst-" + svc
	reg := &consul.CatalogRegistration{
		Node: node, Address: "127.0.0.1",
		NodeMeta: map[string]string{"external-node": "true", "external-probe": "false"},
		Service: &consul.AgentService{ID: svc + "-1", Service: svc, Address: "127.0.0.1", Port: port,
			Tags: []string{"cluster=eks-burst"}, Meta: map[string]string{"weight": "3", "cluster": "eks-burst"}},
	}
	if _, err := client.Catalog().Register(reg, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = client.Catalog().Deregister(&consul.CatalogDeregistration{Node: node}, nil) })

	wantServer := fmt.Sprintf("server 127.0.0.1:%d weight=3;", port)
	waitFile(t, ctx, env["HCA_LAB_NGINX_UPSTREAMS"], func(s string) bool {
		return strings.Contains(s, "upstream "+svc+" {") && strings.Contains(s, wantServer)
	}, "upstream "+svc+" with "+wantServer)
	nginxValidates(t, env["HCA_LAB_NGINX_CONF"])

	// nginx was reloaded with the new upstream and balances to the backend.
	var body string
	for {
		resp, err := http.Get(env["HCA_LAB_NGINX_URL"] + "/" + svc + "/hello")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if resp.StatusCode == 200 && body == "backend saw /hello" {
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("nginx never proxied /%s/hello to the backend; last body %q", svc, body)
		case <-time.After(200 * time.Millisecond):
		}
	}

	if _, err := client.Catalog().Deregister(&consul.CatalogDeregistration{Node: node}, nil); err != nil {
		t.Fatal(err)
	}
	waitFile(t, ctx, env["HCA_LAB_NGINX_UPSTREAMS"], func(s string) bool {
		return !strings.Contains(s, "upstream "+svc+" {")
	}, "no upstream "+svc)
	nginxValidates(t, env["HCA_LAB_NGINX_CONF"])
}

func waitFile(t *testing.T, ctx context.Context, path string, ok func(string) bool, what string) {
	t.Helper()
	var last []byte
	for {
		b, err := os.ReadFile(path)
		if err == nil && ok(string(b)) {
			return
		}
		last = b
		select {
		case <-ctx.Done():
			t.Fatalf("%s never showed %s; last content:\n%s", path, what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func nginxValidates(t *testing.T, conf string) {
	t.Helper()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
	}
	dir := filepath.Dir(conf)
	out, err := exec.Command(nginx, "-t", "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "test is successful") {
		t.Fatalf("nginx -t failed (%v):\n%s", err, out)
	}
}
