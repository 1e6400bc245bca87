package config_test

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// TestScrapeAnnotations: a Prometheus without the Operator finds the runtime
// through the pod's and the Service's prometheus.io annotations, on the port
// the container names "metrics" and its --metrics-bind-address.
func TestScrapeAnnotations(t *testing.T) {
	objs, err := config.Objects(config.Options{Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8080", "prometheus.io/path": "/metrics"}
	var seen int
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			seen++
			if got := o.Spec.Template.Annotations; !maps.Equal(got, want) {
				t.Errorf("pod template annotations %v, want %v", got, want)
			}
			c := o.Spec.Template.Spec.Containers[0]
			if !strings.Contains(strings.Join(c.Args, " "), "--metrics-bind-address=:8080") || c.Ports[0].Name != "metrics" || c.Ports[0].ContainerPort != 8080 {
				t.Errorf("container args %v ports %v do not serve metrics on 8080", c.Args, c.Ports)
			}
		case *corev1.Service:
			seen++
			if !maps.Equal(o.Annotations, want) {
				t.Errorf("service annotations %v, want %v", o.Annotations, want)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("found %d of the Deployment and the Service", seen)
	}
}

// TestScrapeAnnotationsWithServiceMonitor: with a ServiceMonitor the
// prometheus.io annotations go from the pod template and the Service (no
// double scrape), and the alicloud checksum annotation stays.
func TestScrapeAnnotationsWithServiceMonitor(t *testing.T) {
	tests := []struct {
		name     string
		alicloud *config.Alicloud
		wantPod  []string
	}{
		{"no alicloud", nil, nil},
		{"alicloud checksum stays", &config.Alicloud{AccessKeyID: "id", AccessKeySecret: "secret"}, []string{config.AlicloudChecksumAnnotation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := config.Objects(config.Options{Image: "i", ServiceMonitor: true, Alicloud: tt.alicloud})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				switch o := o.(type) {
				case *appsv1.Deployment:
					got := slices.Sorted(maps.Keys(o.Spec.Template.Annotations))
					if !slices.Equal(got, tt.wantPod) {
						t.Errorf("pod template annotations %v, want the keys %v", o.Spec.Template.Annotations, tt.wantPod)
					}
				case *corev1.Service:
					if len(o.Annotations) != 0 {
						t.Errorf("service annotations %v, want none", o.Annotations)
					}
				}
			}
		})
	}
}

func TestServiceMonitor(t *testing.T) {
	tests := []struct {
		name, ns, interval string
		wantErr            string
	}{
		{"default namespace", "", "", ""},
		{"own namespace and interval", "monitoring-hca", "15s", ""},
		{"bad namespace", "Hca", "", `namespace "Hca" is not a DNS label`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm, err := config.ServiceMonitor(tt.ns, tt.interval)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantNS := tt.ns
			if wantNS == "" {
				wantNS = "hca-system"
			}
			if sm.GetNamespace() != wantNS || sm.GetKind() != "ServiceMonitor" {
				t.Errorf("got %s in %q, want a ServiceMonitor in %q", sm.GetKind(), sm.GetNamespace(), wantNS)
			}
			// It must select the metrics Service Objects installs, on its port name.
			objs, _ := config.Objects(config.Options{Image: "i", Namespace: wantNS})
			var svc *corev1.Service
			for _, o := range objs {
				if s, ok := o.(*corev1.Service); ok {
					svc = s
				}
			}
			sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
			for k, v := range sel {
				if svc.Labels[k] != v {
					t.Errorf("selector %v does not match the Service's labels %v", sel, svc.Labels)
				}
			}
			eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
			ep := eps[0].(map[string]any)
			if ep["port"] != svc.Spec.Ports[0].Name {
				t.Errorf("endpoint port %v, Service port %q", ep["port"], svc.Spec.Ports[0].Name)
			}
			if got, _ := ep["interval"].(string); got != tt.interval {
				t.Errorf("interval %q, want %q", got, tt.interval)
			}
		})
	}
}

// TestServiceMonitorFileIsGenerated fails when servicemonitor.yaml is stale.
func TestServiceMonitorFileIsGenerated(t *testing.T) {
	want, err := config.ServiceMonitorYAML()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(config.ServiceMonitorFileContent(), want) {
		t.Fatalf("%s is stale: run `make generate` and commit it", config.ServiceMonitorFile)
	}
}
