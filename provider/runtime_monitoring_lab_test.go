package provider

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// serviceMonitorCRDFile is the Prometheus Operator's published ServiceMonitor
// CRD (Apache-2.0, see testdata/prometheus-operator/README.md).
const serviceMonitorCRDFile = "testdata/prometheus-operator/monitoring.coreos.com_servicemonitors.yaml"

// installServiceMonitorCRD creates the ServiceMonitor CRD in the lab's
// private cluster, waits until it is Established and removes it after the
// test.
func installServiceMonitorCRD(t *testing.T, c client.Client) {
	t.Helper()
	b, err := os.ReadFile(serviceMonitorCRDFile)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatalf("decode %s: %v", serviceMonitorCRDFile, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Create(ctx, &crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create the ServiceMonitor CRD: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := deleteAndWait(ctx, c, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: crd.ObjectMeta}, time.Minute); err != nil {
			t.Errorf("delete the ServiceMonitor CRD: %v", err)
		}
	})
	err = pollUntil(ctx, 200*time.Millisecond, time.Minute, "the ServiceMonitor CRD", func(ctx context.Context) (bool, string, error) {
		ok, err := serviceMonitorCRDPresent(ctx, c)
		return ok, "not Established", err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// requireNoServiceMonitorCRD fails when the lab's private cluster serves
// ServiceMonitors (a test that did not clean up).
func requireNoServiceMonitorCRD(t *testing.T, c client.Client) {
	t.Helper()
	if present, err := serviceMonitorCRDPresent(context.Background(), c); err != nil || present {
		t.Fatalf("the lab's private cluster must not have the ServiceMonitor CRD for this test (present %v, %v): kubectl delete crd %s", present, err, serviceMonitorCRD)
	}
}

// checkScrape checks how the lab's cluster wires the install in ns for
// Prometheus: with a ServiceMonitor (labels wantLabels, and no prometheus.io
// annotations on the pod template and the Service) or with annotations and
// no ServiceMonitor.
func checkScrape(c client.Client, ns string, serviceMonitor bool, wantLabels map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		var d appsv1.Deployment
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: config.Name}, &d); err != nil {
			return fmt.Errorf("get Deployment: %w", err)
		}
		var svc corev1.Service
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: config.Name + "-metrics"}, &svc); err != nil {
			return fmt.Errorf("get metrics Service: %w", err)
		}
		there, err := serviceMonitorExists(ctx, c, ns)
		if err != nil {
			return err
		}
		podScrape, svcScrape := d.Spec.Template.Annotations["prometheus.io/scrape"], svc.Annotations["prometheus.io/scrape"]
		if !serviceMonitor {
			if there || podScrape != "true" || svcScrape != "true" || d.Spec.Template.Annotations["prometheus.io/port"] != config.MetricsPort {
				return fmt.Errorf("want annotations only: ServiceMonitor %v, pod annotations %v, Service annotations %v", there, d.Spec.Template.Annotations, svc.Annotations)
			}
			return nil
		}
		if !there || podScrape != "" || svcScrape != "" {
			return fmt.Errorf("want a ServiceMonitor only: ServiceMonitor %v, pod annotations %v, Service annotations %v", there, d.Spec.Template.Annotations, svc.Annotations)
		}
		sm := serviceMonitorKey(ns)
		if err := c.Get(ctx, client.ObjectKeyFromObject(sm), sm); err != nil {
			return err
		}
		want := installLabels()
		maps.Copy(want, wantLabels)
		if !maps.Equal(sm.GetLabels(), want) {
			return fmt.Errorf("ServiceMonitor labels %v, want %v", sm.GetLabels(), want)
		}
		return nil
	}
}

// checkNoServiceMonitor checks that no ServiceMonitor of the install is left.
func checkNoServiceMonitor(c client.Client, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if there, err := serviceMonitorExists(context.Background(), c, ns); err != nil || there {
			return fmt.Errorf("ServiceMonitor %s/%s left (exists %v, %v)", ns, config.Name, there, err)
		}
		return nil
	}
}

// TestAccRuntimeResource_monitoringAnnotations: in a cluster without the
// Prometheus Operator, the runtime is scraped through annotations; asking
// for a ServiceMonitor fails before anything is installed; once the
// Operator's CRD is installed, an unset service_monitor switches.
func TestAccRuntimeResource_monitoringAnnotations(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	requireNoServiceMonitorCRD(t, c)
	ns := fmt.Sprintf("hca-tf-rt-mon-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		CheckDestroy: checkRuntimeGone(c, ns),
		Steps: []resource.TestStep{{
			// Refused at plan time: no namespace, RBAC or Deployment is made.
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = { service_monitor = true }`),
			ExpectError: errorRe("Missing ServiceMonitor CRD", "monitoring.service_monitor is true", "has no ServiceMonitor CRD (servicemonitors.monitoring.coreos.com)"),
		}, {
			PreConfig: func() {
				if err := checkRuntimeGone(c, ns)(nil); err != nil {
					t.Errorf("after the refused create: %v", err)
				}
			},
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_runtime.this", "metrics_scrape", "annotations"),
				checkScrape(c, ns, false, nil),
			),
		}, {
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = { service_monitor = false }`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_runtime.this", "metrics_scrape", "annotations"),
				checkScrape(c, ns, false, nil),
			),
		}, {
			// The Operator installed later: with service_monitor unset, the
			// next plan switches to a ServiceMonitor.
			PreConfig: func() { installServiceMonitorCRD(t, c) },
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_runtime.this", "metrics_scrape", "service_monitor"),
				checkScrape(c, ns, true, nil),
			),
		}},
	})
}

// TestAccRuntimeResource_monitoringServiceMonitor: with the Prometheus
// Operator's CRD installed, an unset service_monitor creates a ServiceMonitor
// (and drops the annotations); false switches back to annotations and
// deletes it; destroy removes it; a failed create leaves none.
func TestAccRuntimeResource_monitoringServiceMonitor(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	installServiceMonitorCRD(t, c)
	ns := fmt.Sprintf("hca-tf-rt-sm-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkRuntimeGone(c, ns), checkNoServiceMonitor(c, ns)),
		Steps: []resource.TestStep{{
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = {
    labels   = { release = "kube-prometheus-stack" }
    interval = "30s"
  }`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_runtime.this", "metrics_scrape", "service_monitor"),
				checkScrape(c, ns, true, map[string]string{"release": "kube-prometheus-stack"}),
			),
		}, {
			// The ServiceMonitor deleted out of band: the plan puts it back.
			PreConfig: func() {
				if err := c.Delete(context.Background(), serviceMonitorKey(ns)); err != nil {
					t.Fatalf("delete the ServiceMonitor: %v", err)
				}
			},
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = {
    labels   = { release = "kube-prometheus-stack" }
    interval = "30s"
  }`),
			Check: checkScrape(c, ns, true, map[string]string{"release": "kube-prometheus-stack"}),
		}, {
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = { service_monitor = false }`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_runtime.this", "metrics_scrape", "annotations"),
				checkScrape(c, ns, false, nil),
			),
		}, {
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = { service_monitor = true }`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_runtime.this", "metrics_scrape", "service_monitor"),
				checkScrape(c, ns, true, nil),
			),
		}},
	})
}

// TestAccRuntimeResource_monitoringRollback: a create that fails after it
// applied the ServiceMonitor (the rollout never completes) deletes it with
// the rest.
func TestAccRuntimeResource_monitoringRollback(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	installServiceMonitorCRD(t, c)
	ns := fmt.Sprintf("hca-tf-rt-smrb-%06d", rand.IntN(1e6))
	accTest(t, resource.TestCase{
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkRuntimeGone(c, ns), checkNoServiceMonitor(c, ns)),
		Steps: []resource.TestStep{{
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"
  monitoring = { service_monitor = true }
  resources  = { cpu_request = "100000" }
  timeouts   = { create = "20s" }`),
			ExpectError: errorRe("Error installing runtime", fmt.Sprintf("The Deployment %s/hca-runtime did not roll out:", ns)),
		}, {
			PreConfig: func() {
				if err := checkRuntimeGone(c, ns)(nil); err != nil {
					t.Errorf("after the failed create: %v", err)
				}
				if err := checkNoServiceMonitor(c, ns)(nil); err != nil {
					t.Errorf("after the failed create: %v", err)
				}
			},
			Config: runtimeHCL(lab, ns, `force_destroy = true # the lab holds other tests' hca objects
  image = "hca-runtime:v1"`),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
