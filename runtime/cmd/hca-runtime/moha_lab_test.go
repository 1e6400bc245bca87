package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
)

// TestMohaCollectLab runs `hca-runtime moha collect --source lab` on a small
// grid against a Deployment in the lab: every sample must be the workload
// model's steady state (what loadsim serves, moha.DefaultApp.Measure) within
// 10 %, the lab's measurement error (rate windows of 6 s at 1 s scrapes).
func TestMohaCollectLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_LOADSIM_URL")
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ns := fmt.Sprintf("moha-collect-%06d", rand.IntN(1e6))
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		req, _ := http.NewRequest(http.MethodDelete, env["HCA_LAB_LOADSIM_URL"]+"/v1/apps/"+ns+"/svc", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	labels := map[string]string{"app.kubernetes.io/name": "svc"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}}}}}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "lab.csv")
	var stdout, stderr bytes.Buffer
	err = runMain(ctx, []string{"moha", "collect", "--source", "lab", "--out", out,
		"--kubeconfig", env["HCA_LAB_PRIVATE_KUBECONFIG"], "--namespace", ns, "--deployment", "svc",
		"--loadsim-url", env["HCA_LAB_LOADSIM_URL"], "--prometheus-url", env["HCA_LAB_PROMETHEUS_URL"],
		"--cpu", "300,500", "--memory", "400", "--replicas", "1,2", "--rps", "60,120", "--settle", "6s"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("collect: %v\n%s", err, stderr.String())
	}
	t.Logf("%s%s", stderr.String(), stdout.String())
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// ReadDataset wants 20 rows or more: read the 8 by hand, in the header's
	// column order (moha.Columns, as WriteDataset writes them).
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(moha.Columns, ",") {
		t.Fatalf("header %v, want %v", rows[0], moha.Columns)
	}
	var samples []moha.Sample
	for _, r := range rows[1:] {
		var v [7]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(r[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		samples = append(samples, moha.Sample{CPULimitMilli: v[0], MemoryLimitMiB: v[1], Replicas: v[2], RequestsPerSecond: v[3],
			ResponseTimeMs: v[4], CPUUsagePercent: v[5], MemoryUsagePercent: v[6]})
	}
	if len(samples) != 8 {
		t.Fatalf("%d samples, want 2 CPU x 1 memory x 2 replicas x 2 rates = 8", len(samples))
	}
	for _, s := range samples {
		want := moha.DefaultApp.Measure(s.CPULimitMilli, s.MemoryLimitMiB, int(s.Replicas), s.RequestsPerSecond)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"response time", s.ResponseTimeMs, want.ResponseTimeMs}, {"CPU usage", s.CPUUsagePercent, want.CPUUsagePercent}, {"memory usage", s.MemoryUsagePercent, want.MemoryUsagePercent}} {
			if math.Abs(c.got-c.want) > 0.1*c.want {
				t.Errorf("%v x %vm/%vMi at %v req/s: %s %.2f, the model's steady state %.2f", s.Replicas, s.CPULimitMilli, s.MemoryLimitMiB, s.RequestsPerSecond, c.name, c.got, c.want)
			}
		}
	}
	if !strings.Contains(stdout.String(), "wrote 8 samples") {
		t.Errorf("stdout %q", stdout.String())
	}
}
