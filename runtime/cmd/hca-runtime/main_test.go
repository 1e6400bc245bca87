package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"start"}, `unknown command "start"`},
		{"unknown flag", []string{"run", "--prometheus=http://x"}, "flag provided but not defined: -prometheus"},
		{"extra argument", []string{"run", "now"}, `unexpected argument "now"`},
		{"bad log level", []string{"run", "--log-level=loud"}, `--log-level "loud": use debug, info, warn or error`},
		{"bad log format", []string{"run", "--log-format=xml"}, `--log-format "xml": use json or text`},
		{"bad prometheus url", []string{"run", "--prometheus-url=localhost:9090"}, `--prometheus-url "localhost:9090": use an absolute http(s) URL`},
		{"bad interval", []string{"run", "--cluster-probe-interval=soon"}, `--cluster-probe-interval "soon"`},
		{"bad ack endpoint", []string{"run", "--ack-endpoint=cs.cn-hangzhou.aliyuncs.com"}, `--ack-endpoint "cs.cn-hangzhou.aliyuncs.com": use an absolute http(s) URL`},
		{"zero api qps", []string{"run", "--kube-api-qps=0"}, `--kube-api-qps 0 and --kube-api-burst 300: use a positive rate`},
		{"zero api burst", []string{"run", "--kube-api-burst=0"}, `--kube-api-qps 200 and --kube-api-burst 0: use a positive rate`},
		{"bad autoscaling endpoint", []string{"run", "--autoscaling-endpoint=ftp://x"}, `--autoscaling-endpoint "ftp://x": use an absolute http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := runMain(context.Background(), tt.args, &out, &errOut)
			var u usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v (usage error: %v), want a usage error containing %q", err, errors.As(err, &u), tt.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := runMain(context.Background(), []string{"version"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.String()) != version {
		t.Fatalf("version printed %q, want %q", out.String(), version)
	}
}

// TestRunServesProbesAndMetrics starts the whole runtime against the lab's private
// cluster and checks its health endpoints and its own hca_ metrics.
func TestRunServesProbesAndMetrics(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL", "CONSUL_HTTP_ADDR")
	metricsAddr, probeAddr := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runMain(ctx, []string{"run", "--kubeconfig=" + env["HCA_LAB_PRIVATE_KUBECONFIG"],
			"--prometheus-url=" + env["HCA_LAB_PROMETHEUS_URL"], "--consul-addr=" + env["CONSUL_HTTP_ADDR"],
			"--metrics-bind-address=" + metricsAddr, "--health-probe-bind-address=" + probeAddr, "--log-level=warn"}, io.Discard, io.Discard)
	}()
	for _, path := range []string{"/healthz", "/readyz"} {
		waitOK(t, "http://"+probeAddr+path, "")
	}
	waitOK(t, "http://"+metricsAddr+"/metrics", "controller_runtime_reconcile_total")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancel, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop within 30 s of cancellation")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitOK(t *testing.T, url, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = fmt.Sprintf("%s: %.200s", resp.Status, b)
			if resp.StatusCode == 200 && strings.Contains(string(b), want) {
				return
			}
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s never answered 200 with %q; last: %s", url, want, last)
}
