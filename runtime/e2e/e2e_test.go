package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	consul "github.com/hashicorp/consul/api"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

// TestBurstEndToEnd is the end-to-end scenario. The private cluster gets a
// dedicated pool with room for 8 replicas of the app (2 nodes x 2 CPU, 500m per
// pod); loadsim offers 200 req/s, and the policy targets 10 req/s per pod, so about
// 20 replicas are needed: the runtime scales up, the overflow goes Pending and then
// runs in a second lab cluster, which Consul and the nginx upstream list. The
// runtime is killed and restarted mid-burst: nothing is duplicated or orphaned.
// Then the load drops, the replicas come back slowly (short windows for the test),
// the burst cluster is emptied and cleaned and Consul deregistered. While the load
// drops, Prometheus is stopped: the runtime holds and says why, then resumes.
func TestBurstEndToEnd(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_DIR", "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL",
		"CONSUL_HTTP_ADDR", "HCA_LAB_LOADSIM_URL", "HCA_LAB_NGINX_UPSTREAMS")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	root := labtest.RepoRoot(t)
	id := rand.IntN(1e6)
	pool := fmt.Sprintf("e2e%d", id)
	taint := lab.Taint{Key: "hca.dev/e2e", Value: pool, Effect: "NoSchedule"}
	clusters := lab.NewClusters(env["HCA_LAB_DIR"], &lab.Binaries{RepoDir: root})

	// Capacity: 8 pods in the private cluster, plenty in the burst cluster.
	if err := clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 2, CPU: "2", Memory: "8Gi", Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	burstName := fmt.Sprintf("e2e-burst-%d", id)
	burstInfo, err := clusters.CreateCluster(ctx, lab.ClusterSpec{Name: burstName, Pools: []lab.NodePool{{Name: pool, Count: 1, CPU: "16", Memory: "32Gi", Taints: []lab.Taint{taint}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clusters.DeleteCluster(context.Background(), burstName) })

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = hcav1.AddToScheme(scheme)
	privCfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, privCfg); err != nil {
		t.Fatal(err)
	}
	priv, err := client.New(privCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	burstCfg, err := clientcmd.BuildConfigFromFlags("", burstInfo.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	burst, err := client.New(burstCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	// Registration of both clusters, credentials in Secrets.
	ns := fmt.Sprintf("shop-%d", id)
	hcNS := fmt.Sprintf("hca-e2e-%d", id)
	for _, n := range []string{ns, hcNS} {
		must(t, priv.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
		n := n
		t.Cleanup(func() {
			_ = priv.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
		})
	}
	privName, burstHC := fmt.Sprintf("e2e-private-%d", id), fmt.Sprintf("e2e-burst-%d", id)
	for name, kubeconfig := range map[string]string{privName: env["HCA_LAB_PRIVATE_KUBECONFIG"], burstHC: burstInfo.KubeconfigPath} {
		raw, err := os.ReadFile(kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		must(t, priv.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: hcNS}, Data: map[string][]byte{"kubeconfig": raw}}))
		role, priority := hcav1.RoleBurst, int32(10)
		if name == privName {
			role, priority = hcav1.RolePrimary, 100
		}
		hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: hcav1.HybridClusterSpec{Role: role, Provider: hcav1.ProviderPrivate, Priority: priority,
			Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: hcNS, Name: hcav1.ObjectName(name)}},
			Prices:      &hcav1.ClusterPrices{PerVCPUHour: "0.0464", PerGiBHour: "0.0058"}}}
		must(t, priv.Create(ctx, hc))
		t.Cleanup(func() { _ = priv.Delete(context.Background(), hc) })
	}

	// The workload and what travels with it.
	must(t, priv.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: ns}, Data: map[string]string{"greeting": "hello"}}))
	two := int32(2)
	cpu := resource.MustParse("500m")
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &two,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"hca.dev/node-pool": pool},
					Tolerations:  []corev1.Toleration{{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: taint.Value, Effect: corev1.TaintEffectNoSchedule}},
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1",
						Ports:     []corev1.ContainerPort{{ContainerPort: 8080}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpu}, Limits: corev1.ResourceList{corev1.ResourceCPU: cpu}}}},
				},
			},
		},
	}
	must(t, priv.Create(ctx, dep))
	service := fmt.Sprintf("web-%d", id)
	policy := &hcav1.BurstPolicy{}
	policyYAML := fmt.Sprintf(`{
	  "apiVersion": "hca.dev/v1alpha1", "kind": "BurstPolicy",
	  "metadata": {"name": "web", "namespace": %q},
	  "spec": {
	    "target": {"deploymentName": "web"},
	    "primaryCluster": %q,
	    "burstTargets": [{"cluster": %q}],
	    "minReplicas": 2, "maxReplicas": 30,
	    "metrics": [{"type": "PromQL", "promql": {"query": "sum(rate(http_requests_total{namespace=\"%s\",app=\"web\"}[10s]))", "targetValue": "10", "targetType": "AverageValue"}}],
	    "algorithm": {"name": "frss", "frss": {"downWindow": "10s", "shrinkStep": 4}},
	    "pendingThreshold": "2s",
	    "propagate": {"configMaps": {"names": ["web-config"]}},
	    "consul": {"serviceName": %q, "port": 8080, "tags": ["e2e"]}
	  }}`, ns, privName, burstHC, ns, service)
	must(t, json.Unmarshal([]byte(policyYAML), policy))
	must(t, priv.Create(ctx, policy))

	// The runtime, as a process.
	bin := buildRuntime(t, root)
	var metricsAddr string // of the running process
	var logs []string      // the runtimes' log files
	start := func() *exec.Cmd {
		metricsAddr = freeAddr(t)
		cmd := exec.Command(bin, "run", "--kubeconfig="+env["HCA_LAB_PRIVATE_KUBECONFIG"],
			"--prometheus-url="+env["HCA_LAB_PROMETHEUS_URL"], "--consul-addr="+env["CONSUL_HTTP_ADDR"],
			"--cluster-probe-interval=2s", "--burst-metrics-interval=3s",
			"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+freeAddr(t), "--log-level=info")
		logf, err := os.OpenFile(filepath.Join(t.TempDir(), "runtime.log"), os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		must(t, cmd.Start())
		t.Logf("hca-runtime pid %d, log %s", cmd.Process.Pid, logf.Name())
		logs = append(logs, logf.Name())
		return cmd
	}
	rt := start()
	// Registered after the log's temporary directory, so it runs before the
	// directory is removed.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		// The runtime's last decisions say why the replicas are what they are.
		for _, f := range logs {
			b, _ := os.ReadFile(f)
			var last []string
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "burst decision") || strings.Contains(l, `"level":"ERROR"`) {
					last = append(last, l)
				}
			}
			t.Logf("last decisions and errors in %s:\n%s", f, strings.Join(last[max(0, len(last)-8):], "\n"))
		}
	})
	t.Cleanup(func() { _ = rt.Process.Kill(); _, _ = rt.Process.Wait() })

	// Load that needs about 20 replicas.
	setLoad(t, env["HCA_LAB_LOADSIM_URL"], ns, "web", 200)
	t.Cleanup(func() { deleteLoad(env["HCA_LAB_LOADSIM_URL"], ns, "web") })

	consulClient, err := consul.NewClient(&consul.Config{Address: env["CONSUL_HTTP_ADDR"]})
	if err != nil {
		t.Fatal(err)
	}
	// consulPassing counts the passing instances published for the burst cluster;
	// consulAll counts the passing instances of every cluster (the private pods are
	// published too, so nginx balances over both clouds).
	var consulAll int32
	snapshot := func() (primary, burstReplicas, burstReady, consulPassing int32, cm bool) {
		var d appsv1.Deployment
		if err := priv.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err == nil && d.Spec.Replicas != nil {
			primary = *d.Spec.Replicas
		}
		var copies appsv1.DeploymentList
		if err := burst.List(ctx, &copies, client.InNamespace(ns)); err == nil {
			if len(copies.Items) > 1 {
				t.Fatalf("%d Deployment copies in the burst cluster, want at most 1", len(copies.Items))
			}
			for _, c := range copies.Items {
				if c.Spec.Replicas != nil {
					burstReplicas = *c.Spec.Replicas
				}
				burstReady = c.Status.ReadyReplicas
			}
		}
		var c corev1.ConfigMap
		cm = burst.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web-config"}, &c) == nil
		entries, _, err := consulClient.Health().Service(service, "", true, nil)
		if err == nil {
			consulAll = int32(len(entries))
			for _, e := range entries {
				if e.Service.Meta["cluster"] == burstHC {
					consulPassing++
				}
			}
		}
		return
	}
	waitFor(t, ctx, 4*time.Minute, "the overflow to run in the burst cluster and be listed in Consul and nginx", func() (bool, string) {
		p, b, ready, passing, cm := snapshot()
		ups, _ := os.ReadFile(env["HCA_LAB_NGINX_UPSTREAMS"])
		inNginx := strings.Count(upstreamBlock(string(ups), service), "server ")
		ok := p <= 8 && b >= 10 && p+b >= 18 && ready == b && passing == b && int32(inNginx) == consulAll && cm
		return ok, fmt.Sprintf("primary=%d burst=%d ready=%d consul(burst)=%d consul(all)=%d nginx=%d configmap=%v", p, b, ready, passing, consulAll, inNginx, cm)
	})
	var got hcav1.BurstPolicy
	must(t, priv.Get(ctx, client.ObjectKeyFromObject(policy), &got))
	if got.Status.Phase != hcav1.PhaseBursting {
		t.Errorf("phase = %q while bursting, want Bursting", got.Status.Phase)
	}

	// Kill the runtime mid-burst and start a new one: no duplicate, no orphan.
	p1, b1, _, c1, _ := snapshot()
	must(t, rt.Process.Signal(syscall.SIGKILL))
	_, _ = rt.Process.Wait()
	rt = start()
	// Several full rounds of the new process (its own reconcile counter), so
	// that the check below cannot pass before it acted.
	burstRounds(t, ctx, metricsAddr, 3)
	p2, b2, _, c2, _ := snapshot()
	if p2+b2 < p1+b1-2 || p2+b2 > p1+b1+2 || c2 > b2 {
		t.Fatalf("after restart: primary %d burst %d consul %d; before: primary %d burst %d consul %d", p2, b2, c2, p1, b1, c1)
	}
	if c2 != b2 {
		waitFor(t, ctx, time.Minute, "Consul to list exactly the burst replicas after the restart", func() (bool, string) {
			_, b, ready, passing, _ := snapshot()
			return passing == ready && ready == b, fmt.Sprintf("burst=%d ready=%d consul(burst)=%d", b, ready, passing)
		})
	}

	// Prometheus stops while the load drops: the runtime must hold (never scale down
	// on missing data) and say why; when Prometheus is back, scale-back proceeds.
	_, bBefore, _, _, _ := snapshot()
	stopPrometheus(t, env["HCA_LAB_DIR"])
	setLoad(t, env["HCA_LAB_LOADSIM_URL"], ns, "web", 20)
	waitFor(t, ctx, time.Minute, "the policy to report metrics unavailable", func() (bool, string) {
		must(t, priv.Get(ctx, client.ObjectKeyFromObject(policy), &got))
		c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionMetricsAvailable)
		if c == nil {
			return false, "no MetricsAvailable condition"
		}
		return c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "never scaling down"), fmt.Sprintf("MetricsAvailable=%s: %s", c.Status, c.Message)
	})
	burstRounds(t, ctx, metricsAddr, 3) // rounds without metrics, each of which could have scaled down
	if _, b, _, _, _ := snapshot(); b < bBefore {
		t.Fatalf("burst replicas fell from %d to %d while Prometheus was down", bBefore, b)
	}
	labUp(t, root, env["HCA_LAB_DIR"])
	back := time.Now()
	var firstDrop time.Time

	// Load dropped: back to the private cluster, slowly; the burst cluster is cleaned.
	waitFor(t, ctx, 4*time.Minute, "the burst cluster to be emptied and cleaned and Consul deregistered", func() (bool, string) {
		p, b, _, passing, cm := snapshot()
		if b < bBefore && firstDrop.IsZero() {
			firstDrop = time.Now()
		}
		var copies appsv1.DeploymentList
		_ = burst.List(ctx, &copies, client.InNamespace(ns))
		all, _, _ := consulClient.Catalog().Service(service, "", nil)
		var remote int
		for _, s := range all {
			if s.ServiceMeta["cluster"] == burstHC {
				remote++
			}
		}
		node, _, _ := consulClient.Catalog().Node("hca-"+burstHC, nil)
		must(t, priv.Get(ctx, client.ObjectKeyFromObject(policy), &got))
		ok := b == 0 && len(copies.Items) == 0 && passing == 0 && remote == 0 && node == nil && !cm && got.Status.Phase == hcav1.PhaseWatching && p <= 8
		return ok, fmt.Sprintf("primary=%d burst=%d copies=%d consul(burst)=%d node=%v configmap=%v phase=%s", p, b, len(copies.Items), remote, node != nil, cm, got.Status.Phase)
	})
	// No scale-down on the first fresh samples after the outage (a rate over
	// them reads low): the runtime waits for a full 1-minute window.
	if d := firstDrop.Sub(back); d < 50*time.Second {
		t.Errorf("the burst shrank %v after Prometheus returned: want no scale-down before a full minute of fresh data", d.Round(time.Second))
	}
}

// burstRounds waits until the runtime serving metrics on addr has finished n
// more burst policy reconciles (controller-runtime's
// controller_runtime_reconcile_total{controller="burstpolicy"}).
func burstRounds(t *testing.T, ctx context.Context, addr string, n float64) {
	t.Helper()
	count := func() (float64, error) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, err
		}
		var sum float64
		for _, line := range strings.Split(string(raw), "\n") {
			if !strings.HasPrefix(line, "controller_runtime_reconcile_total{") || !strings.Contains(line, `controller="burstpolicy"`) {
				continue
			}
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				return 0, fmt.Errorf("metric line %q: %w", line, err)
			}
			sum += v
		}
		return sum, nil
	}
	var start float64
	waitFor(t, ctx, time.Minute, "the runtime's metrics endpoint", func() (bool, string) {
		v, err := count()
		start = v
		return err == nil, fmt.Sprint(err)
	})
	waitFor(t, ctx, 2*time.Minute, fmt.Sprintf("%v more burst policy reconciles", n), func() (bool, string) {
		v, err := count()
		return err == nil && v-start >= n, fmt.Sprintf("%v so far (%v)", v-start, err)
	})
}

// stopPrometheus stops the lab's Prometheus (the pid recorded in state.json).
func stopPrometheus(t *testing.T, labDir string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(labDir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Procs map[string]struct{ PID int } `json:"procs"`
	}
	must(t, json.Unmarshal(raw, &st))
	pid := st.Procs["prometheus"].PID
	if pid == 0 {
		t.Fatal("no prometheus pid in the lab state")
	}
	must(t, syscall.Kill(pid, syscall.SIGTERM))
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	t.Cleanup(func() { labUp(t, labtest.RepoRoot(t), labDir) }) // never leave the lab without Prometheus
}

// labUp runs `lab up`, which restarts what is not running.
func labUp(t *testing.T, root, labDir string) {
	t.Helper()
	cmd := exec.Command("go", "run", "./tools/lab", "up")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HCA_LAB_DIR="+labDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lab up: %v\n%s", err, out)
	}
}

func upstreamBlock(conf, name string) string {
	i := strings.Index(conf, "upstream "+name+" {")
	if i < 0 {
		return ""
	}
	rest := conf[i:]
	return rest[:strings.Index(rest, "}")]
}

func setLoad(t *testing.T, base, ns, name string, rps float64) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"rps": rps, "cpuPerRequest": 0.025})
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/v1/apps/%s/%s", base, ns, name), bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("loadsim PUT answered %s", resp.Status)
	}
}

func deleteLoad(base, ns, name string) {
	req, _ := http.NewRequest(http.MethodDelete, fmt.Sprintf("%s/v1/apps/%s/%s", base, ns, name), nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

func waitFor(t *testing.T, ctx context.Context, timeout time.Duration, what string, check func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, state := check()
		if state != last {
			t.Logf("%s: %s", time.Now().Format("15:04:05"), state)
			last = state
		}
		if ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("timed out waiting for %s; last state: %s", what, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func buildRuntime(t *testing.T, root string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "hca-runtime")
	cmd := exec.Command("go", "build", "-o", out, "./runtime/cmd/hca-runtime")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build hca-runtime: %v\n%s", err, b)
	}
	return out
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
