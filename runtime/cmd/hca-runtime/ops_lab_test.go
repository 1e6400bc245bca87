package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
	"github.com/hca-project/terraform-provider-hca/runtime/config/dashboards"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// runtimeProc is an hca-runtime process a lab test started.
type runtimeProc struct {
	cmd             *exec.Cmd
	log             string // path of its stderr
	metrics, probes string // addresses
	exited          chan struct{}
	exitErr         error
}

// buildBinary builds hca-runtime once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "hca-runtime")
	cmd := exec.Command("go", "build", "-o", out, "./runtime/cmd/hca-runtime")
	cmd.Dir = labtest.RepoRoot(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build hca-runtime: %v\n%s", err, b)
	}
	return out
}

// startProc starts bin run with args (plus its own metrics and probe
// addresses) and stops it (SIGTERM) at cleanup.
func startProc(t *testing.T, bin string, args ...string) *runtimeProc {
	t.Helper()
	p := &runtimeProc{metrics: freeAddr(t), probes: freeAddr(t), log: filepath.Join(t.TempDir(), "runtime.log"), exited: make(chan struct{})}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"run", "--metrics-bind-address=" + p.metrics, "--health-probe-bind-address=" + p.probes}, args...)
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.exitErr = p.cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

func (p *runtimeProc) stop(t *testing.T) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("hca-runtime did not stop within 30 s of SIGTERM")
	}
}

// get returns the status code and body of url ("" and the error text when it
// cannot be reached).
func get(u string) (int, string) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, b.String()
}

func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last: %s", timeout, what, last)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func labScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := hcav1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// scrape parses the runtime's /metrics.
func scrape(t *testing.T, addr string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	code, body := get("http://" + addr + "/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams, body
}

// tryScrape is scrape for polling: nil while the endpoint does not answer.
func tryScrape(addr string) map[string]*dto.MetricFamily {
	code, body := get("http://" + addr + "/metrics")
	if code != 200 {
		return nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil
	}
	return fams
}

// sample is the value of name's series whose labels include want (false: none).
// labelsMatch tells whether m carries every label of want.
func labelsMatch(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
			return false
		}
	}
	return true
}

func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if !labelsMatch(m, want) {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		default:
			return 1, true
		}
	}
	return 0, false
}

// TestOperateBurstLab runs the built hca-runtime against the lab while a
// workload bursts (5 one-CPU replicas, room for 2 in the private cluster, the
// rest placed in a second lab cluster), with the lab's Prometheus scraping it.
// Then:
//   - the scrape passes `promtool check metrics` and holds the series an
//     operator needs while bursting, with the values the policy's status and
//     the clusters hold;
//   - two custom SLOs (one met at half its target, one with a query that does
//     not parse) feed the SLO, metric query and error series;
//   - every query of the Grafana dashboard is accepted by the lab's Prometheus,
//     and all but the cloud capacity row's (TestOperateCapacityLab) return
//     series;
//   - once the policy is deleted (and cleaned up by the runtime), its series
//     leave /metrics;
//   - the JSON log has controller, reconcileID and policy on the decision,
//     and none of the lab's credentials.
func TestOperateBurstLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_DIR", "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR",
		"HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT", "AWS_SECRET_ACCESS_KEY", "ALICLOUD_SECRET_KEY", "CONSUL_HTTP_ADDR")
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: run scripts/install-deps (Prometheus ships it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	id := rand.IntN(1e6)
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	scheme := labScheme(t)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	clusters := labtest.Clusters(t)
	burst := fmt.Sprintf("ops-burst-%d", id)
	t.Cleanup(func() { _ = clusters.DeleteCluster(context.Background(), burst) })
	info, err := clusters.CreateCluster(ctx, lab.ClusterSpec{Name: burst})
	if err != nil {
		t.Fatal(err)
	}
	pool := fmt.Sprintf("ops%d", id)
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	for cl, cpu := range map[string]string{lab.PrivateCluster: "2", burst: "32"} {
		if err := clusters.SetNodePool(ctx, cl, lab.NodePool{Name: pool, Count: 1, CPU: cpu, Memory: "16Gi", Taints: []lab.Taint{taint}}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = clusters.SetNodePool(context.Background(), cl, lab.NodePool{Name: pool, Count: 0}) })
	}
	kubeconfig, err := os.ReadFile(info.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("ops-%d", id)
	// The runtime handles this test's objects only (its --class), not those
	// of the tests running beside it on the same lab.
	class := map[string]string{controller.ClassLabel: ns}
	mustCreate := func(o client.Object) {
		t.Helper()
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), o) })
	}
	mustCreate(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	mustCreate(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hc-" + burst, Namespace: ns}, Data: map[string][]byte{"kubeconfig": kubeconfig}})
	mustCreate(&hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: burst, Labels: class}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderPrivate, Priority: 1,
		Prices:      &hcav1.ClusterPrices{PerVCPUHour: "0.0464", PerGiBHour: "0.0058"},
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: ns, Name: hcav1.ObjectName("hc-" + burst)}}}})
	replicas := int32(5)
	labels := map[string]string{"app": "web"}
	mustCreate(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"hca.dev/node-pool": pool},
			Tolerations:  []corev1.Toleration{{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}})
	policy := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: class}, Spec: hcav1.BurstPolicySpec{
		Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: lab.PrivateCluster,
		BurstTargets: []hcav1.BurstTargetCluster{{Cluster: hcav1.ClusterName(burst)}},
		MinReplicas:  1, MaxReplicas: 10, PendingThreshold: &metav1.Duration{Duration: time.Second},
		Consul: &hcav1.ConsulRegistration{ServiceName: ns, Port: 8080, Tags: []string{"ops-test"}}}}
	// With a metric source the policy scales on metrics; this one asks for
	// exactly the 5 replicas the Deployment has (50 at 10 per replica).
	if err := json.Unmarshal([]byte(`[{"type": "PromQL", "promql": {"query": "vector(50)", "targetValue": "10", "targetType": "AverageValue"}}]`), &policy.Spec.Metrics); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The runtime is stopped by now: drop the finalizer it set.
		_ = c.Delete(context.Background(), policy)
		var p hcav1.BurstPolicy
		if c.Get(context.Background(), client.ObjectKeyFromObject(policy), &p) == nil && len(p.Finalizers) > 0 {
			patch := client.MergeFrom(p.DeepCopy())
			p.Finalizers = nil
			_ = c.Patch(context.Background(), &p, patch)
		}
	})

	// Two custom SLOs on a workload of their own: one at half its target
	// (compliance 0.5), one whose query does not parse (a bad_query and an
	// SLO error). A single replica, min = max, so nothing scales.
	one := int32(1)
	mustCreate(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "idle", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "idle"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "idle"}}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.example/idle:1"}}}}}})
	for name, query := range map[string]string{"good": "vector(42)", "broken": "sum(rate(http_requests_total["} {
		mustCreate(&hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: class}, Spec: hcav1.ServiceLevelObjectiveSpec{
			Target:             hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "idle"},
			SLO:                hcav1.SLOSpec{Type: hcav1.SLOCustom, Custom: &hcav1.CustomSLO{Query: query, TargetValue: resource.MustParse("84")}},
			EvaluationInterval: &metav1.Duration{Duration: 2 * time.Second},
			ElasticityStrategy: hcav1.ElasticityStrategy{Kind: hcav1.StrategyHorizontal, Horizontal: &hcav1.HorizontalStaticConfig{MinReplicas: 1, MaxReplicas: 1}}}})
	}

	bin := buildBinary(t)
	rt := startProc(t, bin, "--kubeconfig="+env["HCA_LAB_PRIVATE_KUBECONFIG"], "--class="+ns, "--cluster-probe-interval=2s", "--consul-addr="+env["CONSUL_HTTP_ADDR"],
		"--prometheus-url="+env["HCA_LAB_PROMETHEUS_URL"],
		"--aws-region=eu-central-1", "--eks-endpoint="+env["HCA_LAB_EKS_ENDPOINT"], "--sts-endpoint="+env["HCA_LAB_STS_ENDPOINT"],
		"--log-level=debug", "--log-format=json")
	scrapeTarget(t, env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], rt.metrics)

	key := ns + "/web"
	start := time.Now()
	var got hcav1.BurstPolicy
	eventually(t, 3*time.Minute, "the policy to burst 3 ready replicas into "+burst, func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(policy), &got); err != nil {
			return false, err.Error()
		}
		for _, r := range got.Status.Replicas {
			if string(r.Cluster) == burst && r.Ready >= 3 && got.Status.Phase == hcav1.PhaseBursting {
				return true, ""
			}
		}
		return false, fmt.Sprintf("phase %q replicas %+v", got.Status.Phase, got.Status.Replicas)
	})
	t.Logf("bursting with 3 ready replicas in %s after %s", burst, time.Since(start).Round(time.Second))

	// 1. The scrape: promtool, and the series an operator looks at.
	fams, body := scrape(t, rt.metrics)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics on the runtime's /metrics: %v\n%s", err, out)
	}
	var burstDesired, burstReady float64
	for _, r := range got.Status.Replicas {
		if string(r.Cluster) == burst {
			burstDesired, burstReady = float64(r.Desired), float64(r.Ready)
		}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   func(v float64) bool
		what   string
	}{
		{"hca_burst_phase", map[string]string{"policy": key, "phase": "Bursting"}, func(v float64) bool { return v == 1 }, "1"},
		{"hca_burst_phase", map[string]string{"policy": key, "phase": "Watching"}, func(v float64) bool { return v == 0 }, "0"},
		{"hca_replicas", map[string]string{"policy": key, "cluster": burst}, func(v float64) bool { return v >= 3 }, ">= 3"},
		{"hca_ready_replicas", map[string]string{"policy": key, "cluster": burst}, func(v float64) bool { return v >= 3 }, ">= 3"},
		{"hca_burst_ready_replicas", map[string]string{"policy": key}, func(v float64) bool { return v >= 3 }, ">= 3"},
		{"hca_decisions_total", map[string]string{"policy": key, "direction": "burst", "reason": "unschedulable"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_cluster_reachable", map[string]string{"cluster": burst}, func(v float64) bool { return v == 1 }, "1"},
		{"hca_build_info", map[string]string{"version": "dev"}, func(v float64) bool { return v == 1 }, "1"},
		{"hca_consul_requests_total", map[string]string{"operation": "register"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_slo_compliance_ratio", map[string]string{"slo": ns + "/good", "type": "custom"}, func(v float64) bool { return v == 0.5 }, "0.5 (42 of 84)"},
		{"hca_slo_current_value", map[string]string{"slo": ns + "/good", "type": "custom"}, func(v float64) bool { return v == 42 }, "42"},
		{"hca_metric_queries_total", map[string]string{"result": "ok"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_metric_queries_total", map[string]string{"result": "bad_query"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_errors_total", map[string]string{"controller": "slo"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_status_list_errors_total", nil, func(v float64) bool { return v == 0 }, "0"},
	} {
		v, ok := sample(fams, c.name, c.labels)
		if !ok || !c.want(v) {
			t.Errorf("%s%v = %v (present %v), want %s", c.name, c.labels, v, ok, c.what)
		}
	}
	var reconciles float64 // every result: success, requeue, requeue_after, error
	for _, m := range fams["controller_runtime_reconcile_total"].GetMetric() {
		if slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == "controller" && l.GetValue() == "burstpolicy" }) {
			reconciles += m.GetCounter().GetValue()
		}
	}
	if reconciles < 1 {
		t.Errorf("controller_runtime_reconcile_total{controller=\"burstpolicy\"} sums to %v, want >= 1", reconciles)
	}
	t.Logf("status: burst cluster desired %v ready %v", burstDesired, burstReady)

	// 2. The dashboard against the lab's Prometheus.
	// The cloud row needs node groups: TestOperateCapacityLab feeds it.
	fed, parsed := checkDashboard(t, ctx, env["HCA_LAB_PROMETHEUS_URL"], func(q dashboards.Query) bool { return q.Row != "Cloud capacity and cost" })
	t.Logf("dashboard: %d queries returned series, %d (cloud capacity) parsed", fed, parsed)

	// 3. Deleting the policy while the runtime runs: it cleans the burst
	// cluster and Consul and drops its finalizer; the policy's state series go.
	if err := c.Delete(ctx, policy); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "the runtime to finish the deleted policy", func() (bool, string) {
		err := c.Get(ctx, client.ObjectKeyFromObject(policy), &got)
		return apierrors.IsNotFound(err), fmt.Sprintf("%v finalizers %v", err, got.Finalizers)
	})
	eventually(t, 30*time.Second, "the deleted policy's series to leave /metrics", func() (bool, string) {
		fams, _ := scrape(t, rt.metrics)
		_, ok := sample(fams, "hca_burst_phase", map[string]string{"policy": key})
		return !ok, "hca_burst_phase still exported"
	})

	// 4. The log.
	rt.stop(t)
	raw, err := os.ReadFile(rt.log)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{env["AWS_SECRET_ACCESS_KEY"], env["ALICLOUD_SECRET_KEY"], string(kubeconfig), secretOf(t, kubeconfig)} {
		if secret != "" && strings.Contains(string(raw), secret) {
			t.Errorf("the runtime's log contains a lab credential (%.12s...)", secret)
		}
	}
	var decision bool
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %d is not JSON: %v: %s", i+1, err, line)
		}
		if rec["msg"] == "burst decision" && rec["policy"] == key {
			decision = true
			for _, f := range []string{"controller", "reconcileID", "actions", "replicas"} {
				if rec[f] == nil {
					t.Errorf("decision log line lacks %s: %s", f, line)
				}
			}
		}
	}
	if !decision {
		t.Errorf("no \"burst decision\" line for policy %s in the log (%d bytes)", key, len(raw))
	}
}

// checkDashboard runs every query of the dashboard against the lab's
// Prometheus: each must be accepted, and those fed selects must return series
// within a minute. It returns how many did and how many were only parsed.
func checkDashboard(t *testing.T, ctx context.Context, prom string, fed func(dashboards.Query) bool) (withData, parsed int) {
	t.Helper()
	for _, q := range dashboards.Queries() {
		expr := expand(q.Expr)
		if !fed(q) {
			if _, err := promQuery(ctx, prom, expr); err != nil {
				t.Errorf("%s / %s: Prometheus refused %q: %v", q.Row, q.Panel, expr, err)
			}
			parsed++
			continue
		}
		eventually(t, time.Minute, fmt.Sprintf("panel %s / %s to return series from Prometheus", q.Row, q.Panel), func() (bool, string) {
			n, err := promQuery(ctx, prom, expr)
			if err != nil {
				return false, err.Error()
			}
			return n > 0, fmt.Sprintf("%q: %d series", expr, n)
		})
		withData++
	}
	return withData, parsed
}

// scrapeTarget makes the lab's Prometheus scrape addr (file_sd, every second).
func scrapeTarget(t *testing.T, dir, addr string) {
	t.Helper()
	target := filepath.Join(dir, fmt.Sprintf("ops-runtime-%d.json", rand.IntN(1e9)))
	if err := os.WriteFile(target, []byte(fmt.Sprintf(`[{"targets": [%q], "labels": {"job": "hca-runtime"}}]`, addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(target) })
}

// secretOf is the client key of a lab kubeconfig (base64, as in the file).
func secretOf(t *testing.T, kubeconfig []byte) string {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		if len(a.ClientKeyData) > 0 {
			// The PEM body's first line is long and specific enough.
			lines := strings.Split(string(a.ClientKeyData), "\n")
			if len(lines) > 1 {
				return lines[1]
			}
		}
		if a.Token != "" {
			return a.Token
		}
	}
	return ""
}

// expand replaces the dashboard's Grafana variables as Grafana would with
// "All" policies selected and the lab's 1 s scrape interval.
func expand(expr string) string {
	return dashboards.Expand(expr, ".*", 30*time.Second)
}

// promQuery runs an instant query; an error means Prometheus refused it.
func promQuery(ctx context.Context, base, expr string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/query?query="+url.QueryEscape(expr), nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Status, Error string
		Data          struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, fmt.Errorf("decode answer (%s): %w", resp.Status, err)
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("%s: %s", resp.Status, r.Error)
	}
	return len(r.Data.Result), nil
}
