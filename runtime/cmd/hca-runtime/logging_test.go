package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestLogger logs as controller-runtime does (through logr, the reconciled
// object under its kind) and checks the fields operators filter on.
func TestLogger(t *testing.T) {
	tests := []struct {
		name, format string
		log          func(l logr.Logger)
		want         map[string]any // JSON fields; for text, key=value substrings
		absent       []string
	}{
		{"burst policy reconcile", "json", func(l logr.Logger) {
			l.WithValues("controller", "burstpolicy", "BurstPolicy", klog.KRef("shop", "web"), "reconcileID", "3f2a").Info("burst decision", "actions", []string{"burst"})
		}, map[string]any{"controller": "burstpolicy", "policy": "shop/web", "reconcileID": "3f2a", "msg": "burst decision", "level": "INFO"}, nil},
		{"cluster as a call's value", "json", func(l logr.Logger) {
			l.Info("probe failed", "HybridCluster", klog.KRef("", "eks-burst"))
		}, map[string]any{"cluster": "eks-burst"}, nil},
		{"credentials redacted", "json", func(l logr.Logger) {
			l.Info("client", "secretAccessKey", "hcalabsecret", "bearerToken", "abc", "kubeconfig", "apiVersion: v1")
		}, map[string]any{"secretAccessKey": "[REDACTED]", "bearerToken": "[REDACTED]", "kubeconfig": "[REDACTED]"}, []string{"hcalabsecret", "abc\"", "apiVersion"}},
		{"debug filtered at info", "json", func(l logr.Logger) { l.V(1).Info("noise") }, nil, []string{"noise"}},
		{"a logger's values redacted", "json", func(l logr.Logger) {
			l.WithValues("token", "abc").Info("minted")
		}, map[string]any{"token": "[REDACTED]", "msg": "minted"}, []string{"abc\""}},
		{"values before a group stay outside it", "json", func(l logr.Logger) {
			l.WithValues("controller", "slo").WithName("eval").WithValues("HybridCluster", klog.KRef("", "ack")).Info("probe")
		}, map[string]any{"controller": "slo", "cluster": "ack", "logger": "eval"}, nil},
		{"text format", "text", func(l logr.Logger) {
			l.WithValues("BurstPolicy", klog.KRef("shop", "web")).Info("burst decision")
		}, map[string]any{"policy": "shop/web", "msg": "\"burst decision\""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l, err := newLogger(tt.format, "info", &buf)
			if err != nil {
				t.Fatal(err)
			}
			tt.log(logr.FromSlogHandler(l.Handler()))
			out := buf.String()
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("log contains %q:\n%s", a, out)
				}
			}
			if tt.want == nil {
				return
			}
			if tt.format == "text" {
				for k, v := range tt.want {
					if !strings.Contains(out, k+"="+v.(string)) {
						t.Errorf("text log lacks %s=%v:\n%s", k, v, out)
					}
				}
				return
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not one JSON object: %v\n%s", err, out)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("field %s = %v, want %v\n%s", k, got[k], v, out)
				}
			}
		})
	}
}

// TestLoggerGroups: attributes given before a group are written outside it,
// those given after it inside, as slog's handlers do.
func TestLoggerGroups(t *testing.T) {
	var buf bytes.Buffer
	l, err := newLogger("json", "info", &buf)
	if err != nil {
		t.Fatal(err)
	}
	l.With("controller", "slo").WithGroup("round").With("n", 1).Info("done", "took", "2s")
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, buf.String())
	}
	round, _ := got["round"].(map[string]any)
	if got["controller"] != "slo" || round["n"] != float64(1) || round["took"] != "2s" || got["n"] != nil {
		t.Errorf("got %s, want controller outside the group, n and took inside", buf.String())
	}
}

// BenchmarkReconcileLogger is what controller-runtime does for each
// reconcile: a logger with the controller, the object and a reconcileID,
// then (mostly) nothing logged at info.
func BenchmarkReconcileLogger(b *testing.B) {
	l, err := newLogger("json", "info", io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	base := logr.FromSlogHandler(l.Handler()).WithValues("controller", "servicelevelobjective", "controllerGroup", "hca.dev", "controllerKind", "ServiceLevelObjective")
	b.ReportAllocs()
	for b.Loop() {
		lg := base.WithValues("ServiceLevelObjective", klog.KRef("shop", "latency"), "namespace", "shop", "name", "latency", "reconcileID", "3f2a9c")
		lg.V(1).Info("evaluated")
	}
}
