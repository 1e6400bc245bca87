package loadbench

import (
	"bytes"
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestLoadBenchSmoke runs the benchmark at a small scale (100 SLOs over 50
// namespaces, 10 BurstPolicies, 2 cycles) with the real hca-runtime binary,
// so that `make bench-load` cannot rot. It asserts what is observable, never
// a timing: every SLO evaluated with data and every policy reconciled with
// data; the runtime's metric expressions reach Prometheus batched (fewer
// requests than expressions); and nothing of the run is left behind.
func TestLoadBenchSmoke(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_DIR", "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR")
	repo := labtest.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "hca-runtime")
	build := exec.Command("go", "build", "-o", bin, "./runtime/cmd/hca-runtime")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build hca-runtime: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var log bytes.Buffer
	res, err := Run(ctx, Config{
		LabDir: env["HCA_LAB_DIR"], RepoDir: repo, Kubeconfig: env["HCA_LAB_PRIVATE_KUBECONFIG"],
		PrometheusURL: env["HCA_LAB_PROMETHEUS_URL"], TargetsDir: env["HCA_LAB_PROMETHEUS_TARGETS_DIR"],
		RuntimeBinary: bin, Namespaces: 50, Policies: 10, Cycles: 2, Warmup: time.Second, Log: &log,
		Churn: 0.5, // half the SLOs change at every evaluation: their strategies decide
	})
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	var table bytes.Buffer
	if err := WriteTable(&table, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())

	if res.SLOs != 100 || res.SLOsReady != res.SLOs {
		t.Errorf("%d of %d SLOs Ready with data at the end, want all 100", res.SLOsReady, res.SLOs)
	}
	if res.Policies != 10 || res.PoliciesReconciled != res.Policies {
		t.Errorf("%d of %d policies reconciled with data at the end, want all 10", res.PoliciesReconciled, res.Policies)
	}
	if res.SLOEvaluations == 0 || res.PolicyEvaluations == 0 {
		t.Errorf("in the window: %v SLO and %v policy evaluations, want some of each", res.SLOEvaluations, res.PolicyEvaluations)
	}
	// 100 SLOs are about 150 expressions a cycle (request-based types have
	// two); merged across namespaces they are a few dozen requests.
	if res.RuntimeQueriesPerCycle == 0 || res.PromQueriesPerCycle >= res.RuntimeQueriesPerCycle/2 {
		t.Errorf("Prometheus got %.0f requests a cycle for the runtime's %.0f expressions: the SLO batches are not merged", res.PromQueriesPerCycle, res.RuntimeQueriesPerCycle)
	}
	if res.StrategyReconciles == 0 || math.IsNaN(res.StrategyQueueWaitP99) {
		t.Errorf("in the window: %v strategy reconciles (queue wait p99 %v s), want the changing SLOs' strategies to decide", res.StrategyReconciles, res.StrategyQueueWaitP99)
	}
	if res.CPU <= 0 || res.HWMMiB <= 0 {
		t.Errorf("runtime CPU %v vCPU and VmHWM %v MiB: the /proc readings are missing", res.CPU, res.HWMMiB)
	}

	// Nothing left: no namespace, policy, SLO or HybridCluster of the run.
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = hcav1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	sel := client.MatchingLabels{BenchLabel: res.Class}
	for _, l := range []client.ObjectList{&corev1.NamespaceList{}, &hcav1.BurstPolicyList{}, &hcav1.ServiceLevelObjectiveList{}, &hcav1.HybridClusterList{}} {
		if err := c.List(ctx, l, sel); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(items); n > 0 {
			t.Errorf("%d %T objects of run %s left after cleanup", n, l, res.Class)
		}
	}
}
