package loadsim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// The lab tests' workload: pods with 100m CPU (request = limit) and 2m of
// CPU per request, so each pod serves at most μ = 50 req/s. 80 req/s over 2
// pods is 40 req/s each (utilisation 0.8, ρ = 0.8); over 4 pods 20 req/s
// each (utilisation 0.4, ρ = 0.4).
const (
	labPodCPU     = "100m"
	labRPS        = 80.0
	labCostPerReq = 0.002
	// labTolerance is the relative tolerance on rates read from Prometheus
	// (scrape jitter and rate() extrapolation over a 10 s window); steady
	// state measured in the lab is within 1 %.
	labTolerance = 0.05
	// labStable is how many consecutive polls (500 ms apart) must agree with
	// the model, so a 10 s window still mixing the old and new state cannot
	// pass merely by sweeping through the tolerance band.
	labStable = 3
)

// expectedLab is the model's answer for the lab workload over n pods.
func expectedLab(n int) (util, p90 float64) {
	out := make([]workload.PodLoad, n)
	res := make([]workload.PodResources, n)
	for i := range res {
		res[i] = workload.PodResources{Request: 0.1, Limit: 0.1}
	}
	workload.Compute(labRPS, labCostPerReq, res, out)
	// What histogram_quantile computes from these buckets (linear interpolation).
	return out[0].Utilisation, workload.HistogramQuantile(0.9, workload.Buckets[:], out[0].Buckets[:], out[0].Served)
}

func randSuffix(t *testing.T) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// labApp creates a namespace with a Deployment "web" of replicas pods in the
// cluster of kubeconfig, waits for them to be ready and deletes the
// namespace when the test ends.
func labApp(t *testing.T, kubeconfig string, replicas int32) (kubernetes.Interface, string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("load kubeconfig: %v", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	ctx := context.Background()
	ns := "loadsim-" + randSuffix(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete namespace %s: %v", ns, err)
		}
	})
	cpu := resource.MustParse(labPodCPU)
	labels := map[string]string{"app.kubernetes.io/name": "web"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "app", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: cpu},
						Limits:   corev1.ResourceList{corev1.ResourceCPU: cpu},
					},
				}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	waitReady(t, cs, ns, int(replicas))
	return cs, ns
}

// waitReady polls until exactly n pods of web are Running and Ready.
func waitReady(t *testing.T, cs kubernetes.Interface, ns string, n int) {
	t.Helper()
	var got int
	err := poll(90*time.Second, func() (bool, error) {
		list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=web"})
		if err != nil {
			return false, err
		}
		got = 0
		for i := range list.Items {
			if ready(&list.Items[i]) {
				got++
			}
		}
		return got == n, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d ready pods in %s (have %d): %v", n, ns, got, err)
	}
}

func scale(t *testing.T, cs kubernetes.Interface, ns string, n int32) {
	t.Helper()
	ctx := context.Background()
	sc, err := cs.AppsV1().Deployments(ns).GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get scale: %v", err)
	}
	sc.Spec.Replicas = n
	if _, err := cs.AppsV1().Deployments(ns).UpdateScale(ctx, "web", sc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("scale to %d: %v", n, err)
	}
	waitReady(t, cs, ns, int(n))
}

// poll calls cond every 500 ms until it returns true, an error persists past
// the timeout, or the timeout passes.
func poll(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("timed out after %v: %w", timeout, last)
			}
			return fmt.Errorf("timed out after %v", timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// TestLabPrometheusLoop is the closed loop through the lab: the lab's loadsim
// drives a Deployment of the private cluster and the lab's Prometheus scrapes
// it. Scaling from 2 to 4 pods must halve each pod's CPU utilisation and
// lower the p90 latency.
func TestLabPrometheusLoop(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_LOADSIM_URL")
	cs, ns := labApp(t, env["HCA_LAB_PRIVATE_KUBECONFIG"], 2)
	sim := strings.TrimRight(env["HCA_LAB_LOADSIM_URL"], "/")

	code, body := call(t, "PUT", fmt.Sprintf("%s/v1/apps/%s/web", sim, ns), fmt.Sprintf(`{"rps": %v, "cpuPerRequest": %v}`, labRPS, labCostPerReq))
	if code != 200 {
		t.Fatalf("PUT load to the lab's loadsim: %d %s", code, body)
	}
	t.Cleanup(func() { call(t, "DELETE", fmt.Sprintf("%s/v1/apps/%s/web", sim, ns), "") })

	pc, err := promapi.NewClient(promapi.Config{Address: env["HCA_LAB_PROMETHEUS_URL"]})
	if err != nil {
		t.Fatalf("prometheus client: %v", err)
	}
	prom := promv1.NewAPI(pc)
	sel := fmt.Sprintf(`namespace=%q,app="web"`, ns)
	utilQuery := fmt.Sprintf(`sum by (pod) (rate(container_cpu_usage_seconds_total{%[1]s,container="app"}[10s])) / on(pod) sum by (pod) (loadsim_cpu_request_cores{%[1]s})`, sel)
	p90Query := fmt.Sprintf(`histogram_quantile(0.9, sum by (le) (rate(http_request_duration_seconds_bucket{%s}[10s])))`, sel)

	query := func(q string) (model.Vector, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		v, _, _, err := prom.Query(ctx, q, time.Now())
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q, err)
		}
		vec, ok := v.(model.Vector)
		if !ok {
			return nil, fmt.Errorf("query %s: got %s, want a vector", q, v.Type())
		}
		return vec, nil
	}
	// settle waits until every one of n pods' utilisation and the p90 are
	// within tolerance of the model, and returns the p90.
	settle := func(n int) float64 {
		t.Helper()
		wantUtil, wantP90 := expectedLab(n)
		var lastUtil model.Vector
		var p90 float64
		check := func() (bool, error) {
			vec, err := query(utilQuery)
			if err != nil {
				return false, err
			}
			lastUtil = vec
			if len(vec) != n {
				return false, nil
			}
			for _, s := range vec {
				if !within(float64(s.Value), wantUtil, labTolerance) {
					return false, nil
				}
			}
			lat, err := query(p90Query)
			if err != nil || len(lat) != 1 {
				return false, err
			}
			p90 = float64(lat[0].Value)
			return within(p90, wantP90, labTolerance), nil
		}
		good := 0
		err := poll(120*time.Second, func() (bool, error) {
			ok, err := check()
			if !ok {
				good = 0
				return false, err
			}
			good++
			return good >= labStable, nil
		})
		if err != nil {
			t.Fatalf("%d pods: want each pod's utilisation %.3f and p90 %.4fs (±%.0f%%); last utilisation %v, p90 %.4fs: %v",
				n, wantUtil, wantP90, labTolerance*100, lastUtil, p90, err)
		}
		t.Logf("%d pods: utilisation %v, p90 %.4fs (model %.3f, %.4fs)", n, lastUtil, p90, wantUtil, wantP90)
		return p90
	}

	p90two := settle(2)
	scale(t, cs, ns, 4)
	p90four := settle(4)
	if !(p90four < p90two) {
		t.Errorf("p90 with 4 pods %.4fs is not below p90 with 2 pods %.4fs", p90four, p90two)
	}
}

// TestLabInProcess runs a Sim of its own (not the lab's) against the real
// private cluster, with an injected clock so counters are exact, and reads
// its /metrics. It also checks the split across clusters by presenting the
// private cluster twice under two names, then removing one.
func TestLabInProcess(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_DIR")
	kubeconfig := env["HCA_LAB_PRIVATE_KUBECONFIG"]
	cs, ns := labApp(t, kubeconfig, 2)
	ctx := context.Background()
	appSel := map[string]string{"namespace": ns, "app": "web"}

	// cpuRates advances the clock by 1 s between two ticks and returns each
	// pod's CPU-seconds gained (= cores, = utilisation×0.1) keyed cluster/pod.
	cpuRates := func(s *Sim, base string, clk interface{ Step(time.Duration) }) map[string]float64 {
		t.Helper()
		s.tick(ctx)
		before := cpuByPod(scrape(t, base), appSel)
		clk.Step(time.Second)
		s.tick(ctx)
		after := cpuByPod(scrape(t, base), appSel)
		out := map[string]float64{}
		for k, v := range after {
			out[k] = v - before[k]
		}
		return out
	}

	t.Run("DirSource of the lab", func(t *testing.T) {
		clusterName := filepath.Base(filepath.Dir(kubeconfig))
		s, clk := newTestSim(t, DirSource(env["HCA_LAB_DIR"]))
		base := serve(t, s.Handler())
		s.rescan(ctx)
		if h := s.health(); !contains(h.Clusters, clusterName) {
			t.Fatalf("DirSource(%s) found clusters %v, want %q among them (scan error %q)", env["HCA_LAB_DIR"], h.Clusters, clusterName, h.ScanError)
		}
		call(t, "PUT", fmt.Sprintf("%s/v1/apps/%s/web", base, ns), fmt.Sprintf(`{"rps": %v, "cpuPerRequest": %v}`, labRPS, labCostPerReq))
		rates := cpuRates(s, base, clk)
		if len(rates) != 2 {
			t.Fatalf("CPU series %v, want 2 pods", rates)
		}
		for k, v := range rates {
			if !strings.HasPrefix(k, clusterName+"/") || math.Abs(v/0.1-0.8) > 1e-9 {
				t.Errorf("%s: utilisation %v over 1 s, want 0.8 in cluster %s", k, v/0.1, clusterName)
			}
		}
		st, _ := s.App(ns, "web")
		if len(st.ClusterErrors) > 0 {
			t.Logf("cluster errors (other lab clusters): %v", st.ClusterErrors)
		}

		scale(t, cs, ns, 4)
		rates = cpuRates(s, base, clk)
		if len(rates) != 4 {
			t.Fatalf("CPU series after scaling %v, want 4 pods", rates)
		}
		for k, v := range rates {
			if math.Abs(v/0.1-0.4) > 1e-9 {
				t.Errorf("%s: utilisation %v over 1 s after scaling, want 0.4", k, v/0.1)
			}
		}
		scale(t, cs, ns, 2)
		s.tick(ctx)
		if n := len(series(scrape(t, base), "container_cpu_usage_seconds_total", appSel)); n != 2 {
			t.Errorf("%d CPU series after scaling back to 2, want 2 (removed pods' series must go)", n)
		}
	})

	t.Run("two clusters, then one", func(t *testing.T) {
		raw, err := os.ReadFile(kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, name := range []string{"twin-a", "twin-b"} {
			if err := os.MkdirAll(filepath.Join(dir, "clusters", name), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "clusters", name, "kubeconfig"), raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		s, clk := newTestSim(t, DirSource(dir))
		base := serve(t, s.Handler())
		s.rescan(ctx)
		call(t, "PUT", fmt.Sprintf("%s/v1/apps/%s/web", base, ns), fmt.Sprintf(`{"rps": %v, "cpuPerRequest": %v}`, labRPS, labCostPerReq))
		rates := cpuRates(s, base, clk)
		if len(rates) != 4 {
			t.Fatalf("CPU series %v, want 2 pods in each of twin-a and twin-b", rates)
		}
		for k, v := range rates {
			if math.Abs(v/0.1-0.4) > 1e-9 {
				t.Errorf("%s: utilisation %v, want 0.4 (80 req/s over 4 pods)", k, v/0.1)
			}
		}
		if err := os.RemoveAll(filepath.Join(dir, "clusters", "twin-b")); err != nil {
			t.Fatal(err)
		}
		s.rescan(ctx)
		rates = cpuRates(s, base, clk)
		if len(rates) != 2 {
			t.Fatalf("CPU series after twin-b left %v, want twin-a's 2 pods", rates)
		}
		for k, v := range rates {
			if !strings.HasPrefix(k, "twin-a/") || math.Abs(v/0.1-0.8) > 1e-9 {
				t.Errorf("%s: utilisation %v, want 0.8 in twin-a", k, v/0.1)
			}
		}
		// Back to 2 pods: ρ = 0.8, so the mean latency is 1/(50-40) s.
		st, _ := s.App(ns, "web")
		if math.Abs(st.Pods[0].MeanLatencySeconds-0.1) > 1e-9 {
			t.Errorf("mean latency with 2 pods = %v, want 1/(50-40) = 0.1", st.Pods[0].MeanLatencySeconds)
		}
	})
}

func cpuByPod(mfs map[string]*dto.MetricFamily, sel map[string]string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range series(mfs, "container_cpu_usage_seconds_total", sel) {
		var cluster, pod string
		for _, l := range m.Label {
			switch l.GetName() {
			case "cluster":
				cluster = l.GetValue()
			case "pod":
				pod = l.GetValue()
			}
		}
		out[cluster+"/"+pod] = m.Counter.GetValue()
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
