package loadbench

import (
	"bytes"
	"context"
	"errors"
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
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

// Config is one benchmark run.
type Config struct {
	// LabDir is the running lab's directory (HCA_LAB_DIR; required).
	LabDir string
	// RepoDir is the project root, for the lab's cluster binaries (required).
	RepoDir string
	// Kubeconfig of the lab's private cluster (HCA_LAB_PRIVATE_KUBECONFIG;
	// required): the primary and the runtime's control cluster.
	Kubeconfig string
	// PrometheusURL is the lab's Prometheus (HCA_LAB_PROMETHEUS_URL; required).
	PrometheusURL string
	// TargetsDir is the Prometheus file_sd directory
	// (HCA_LAB_PROMETHEUS_TARGETS_DIR; required).
	TargetsDir string
	// RuntimeBinary is the hca-runtime executable to measure (required).
	RuntimeBinary string
	// Namespaces, each with one Deployment and two SLOs (required, >= 1).
	Namespaces int
	// Policies is the number of BurstPolicies, one in each of the first
	// Policies namespaces (0 <= Policies <= Namespaces).
	Policies int
	// Cycles is the number of 20 s SLO cycles measured (default 5).
	Cycles int
	// Warmup runs the runtime for this long after every SLO has been
	// evaluated and every policy reconciled, before measuring (default
	// 5 min, the SLO status heartbeat: the first statuses, the strategies'
	// first actions and their Events are written, the 1-minute rate windows
	// are full and the compliances settled, so the window sees the platform
	// running, not starting; a 90 s warm-up measured the start's writes).
	Warmup time.Duration
	// Concurrency of the setup's and the cleanup's API calls (default 32).
	Concurrency int
	// Churn is the share of namespaces (0 to 1; default 0, a steady load)
	// whose load alternates between 1.3 and 0.7 times the steady one every
	// SLO cycle, so that their SLOs change value, compliance and strategy
	// output at every evaluation: the cost of a platform that changes, set
	// on purpose rather than left to chance.
	Churn float64
	// ScrapeInterval of the exporter's series (default 10s; the lab's
	// Prometheus scrapes everything else every second).
	ScrapeInterval time.Duration
	// ProfileDir, if set, receives the runtime's CPU profile over the
	// window (cpu.pb.gz) and its heap profiles at the window's start and end
	// (heap-start.pb.gz, heap.pb.gz),
	// through its --pprof-bind-address.
	ProfileDir string
	// MemoryLimitMiB is the memory limit of the runtime's container the run
	// stands for: the runtime gets the GOMEMLIMIT the hca_runtime resource
	// sets for it (config.GoMemLimit) (0: no GOMEMLIMIT, the Go default).
	MemoryLimitMiB int
	// Log receives progress lines (nil: discarded).
	Log io.Writer
	// OnResult, if set, receives the figures as soon as they are measured,
	// before the cleanup (minutes at full scale), so that they are kept
	// even if the cleanup is interrupted; its error is the run's.
	OnResult func(*Result) error
}

func (c *Config) defaults() error {
	if c.LabDir == "" || c.RepoDir == "" || c.Kubeconfig == "" || c.PrometheusURL == "" || c.TargetsDir == "" || c.RuntimeBinary == "" {
		return errors.New("loadbench config: LabDir, RepoDir, Kubeconfig, PrometheusURL, TargetsDir and RuntimeBinary are required (source the lab's .lab/env)")
	}
	if c.Namespaces < 1 || c.Policies < 0 || c.Policies > c.Namespaces {
		return fmt.Errorf("loadbench config: %d namespaces and %d policies: want at least 1 namespace and 0 to namespaces policies", c.Namespaces, c.Policies)
	}
	if c.Churn < 0 || c.Churn > 1 {
		return fmt.Errorf("loadbench config: churn %v: want a share from 0 to 1", c.Churn)
	}
	if c.Cycles <= 0 {
		c.Cycles = 5
	}
	if c.Warmup <= 0 {
		c.Warmup = 5 * time.Minute
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.ScrapeInterval <= 0 {
		c.ScrapeInterval = 10 * time.Second
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

// Result are a run's figures.
type Result struct {
	// Class is the run's runtime class and the value of BenchLabel on its
	// objects.
	Class                      string
	Namespaces, SLOs, Policies int
	// Churn is Config.Churn.
	Churn float64
	// GoMemLimitMiB is the GOMEMLIMIT the runtime ran with (0: none).
	GoMemLimitMiB int
	// SetupTime: objects created and every pod Running; ReadyTime: from the
	// runtime's start until every SLO was evaluated with data, every policy
	// reconciled and every strategy object decided (the strategy
	// controller's queue empty).
	SetupTime, ReadyTime time.Duration
	// Window is the measured time (Cycles x 20 s), Cycles its SLO cycles.
	Window time.Duration
	Cycles int

	// CPU is the runtime's mean CPU use over the window in vCPU; RSSMaxMiB
	// the largest VmRSS sampled each second, HWMMiB the VmHWM at the end.
	CPU, RSSMaxMiB, HWMMiB float64
	// HWMStartMiB is the VmHWM at the window's start (equal to HWMMiB: the
	// peak came before the window, in the start or warm-up); AnonMiB and
	// FileMiB split the largest VmRSS sample into the Go runtime's memory
	// and the binary's mapped pages.
	HWMStartMiB, AnonMiB, FileMiB float64

	// SLOEvaluations are the SLO evaluations in the window and SLOExpected
	// SLOs x cycles. SLOLateP99 and SLOLateMax bound the lateness of their
	// start against the schedule, SLOBatchMax the duration of a batch (upper
	// bounds: histogram buckets, seconds).
	SLOEvaluations, SLOExpected         float64
	SLOLateP99, SLOLateMax, SLOBatchMax float64
	// SLOBatchMean is the mean duration of a batch as the SLOs saw it
	// (each SLO observes its batch's duration).
	SLOBatchMean float64
	// PolicyEvaluations are the policies' metric evaluations in the window,
	// PolicyExpected policies x window / 15 s; lateness as for SLOs.
	PolicyEvaluations, PolicyExpected float64
	PolicyLateP99, PolicyLateMax      float64
	// PolicyReconciles, PolicyReconcileMean and PolicyQueueWaitMean are the
	// BurstPolicy controller's reconciles in the window, their mean duration
	// and their mean wait in the work queue (controller-runtime's
	// reconcile_time and workqueue_queue_duration): where a late policy
	// evaluation waited.
	PolicyReconciles, PolicyReconcileMean, PolicyQueueWaitMean float64
	// StrategyReconciles, StrategyReconcileMean and StrategyQueueWaitMean
	// are the same for the HorizontalElasticityStrategy controller, which
	// acts on each new SLO output; StrategyQueueWaitP99 bounds the wait of
	// 99 % of them (a histogram bucket's upper bound, seconds) and
	// StrategyQueueDepth is its queue at the window's end.
	StrategyReconciles, StrategyReconcileMean, StrategyQueueWaitMean float64
	StrategyQueueWaitP99, StrategyQueueDepth                         float64
	// LoadAverage is the machine's 1-minute load average at the window's end.
	LoadAverage float64

	// PromQueriesPerCycle are the queries Prometheus answered per SLO cycle
	// (its prometheus_http_requests_total on /api/v1/query and query_range);
	// RuntimeQueriesPerCycle the runtime's hca_metric_queries_total.
	PromQueriesPerCycle, RuntimeQueriesPerCycle float64
	// APIServerWritesPerSec are the private API server's write requests per
	// second from every client (apiserver_request_total: POST, PUT, PATCH,
	// DELETE, APPLY; kwok's node leases and pod status included);
	// RuntimeWritesPerSec the runtime's own to it, by method
	// (rest_client_requests_total); RuntimeBurstRequestsPerSec its requests
	// of any method to the burst cluster.
	APIServerWritesPerSec float64
	// APIServerWrites are those writes per second by "VERB resource
	// [subresource]".
	APIServerWrites            map[string]float64
	RuntimeWritesPerSec        map[string]float64
	RuntimeBurstRequestsPerSec float64
	// Errors are the runtime's hca_errors_total in the window.
	Errors float64

	// SLOsReady counts the SLOs whose status says Ready with data
	// (MetricsAvailable=True) at the end; PoliciesReconciled the policies
	// whose status observed their generation with MetricsAvailable=True.
	SLOsReady, PoliciesReconciled int
}

// policyInterval is the kubernetes algorithm's control interval.
const policyInterval = 15 * time.Second

// bench is one run's state.
type bench struct {
	cfg      Config
	class    string
	rest     *rest.Config
	c        client.Client
	cs       *kubernetes.Clientset
	clusters *lab.Clusters
	burst    string // lab burst cluster (and HybridCluster) name
	exporter *Exporter
	srv      *http.Server
	runtime  *exec.Cmd
	metrics  string // the runtime's /metrics URL
	pprof    string // the runtime's pprof base URL ("" without ProfileDir)
	burstSrv string // the burst cluster's API server host
	privSrv  string
}

func (b *bench) logf(format string, a ...any) {
	fmt.Fprintf(b.cfg.Log, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, a...)...)
}

// Run sets up the objects, runs and measures the runtime, and removes
// everything it created, also on failure.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cfg.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", cfg.Kubeconfig, err)
	}
	rc.QPS, rc.Burst = 1000, 2000
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), hcav1.AddToScheme(scheme)); err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, class: fmt.Sprintf("lb%04d", rand.IntN(10000)), rest: rc, privSrv: hostOf(rc.Host),
		clusters: lab.NewClusters(cfg.LabDir, &lab.Binaries{RepoDir: cfg.RepoDir})}
	if b.c, err = client.New(rc, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	if b.cs, err = kubernetes.NewForConfig(rc); err != nil {
		return nil, err
	}
	defer func() {
		// Cleanup gets its own context: an interrupted run still cleans up.
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if cerr := b.cleanup(cctx); cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
		}
	}()
	res = &Result{Class: b.class, Churn: cfg.Churn, Namespaces: cfg.Namespaces, SLOs: 2 * cfg.Namespaces, Policies: cfg.Policies, Cycles: cfg.Cycles, GoMemLimitMiB: int(goMemLimit(cfg.MemoryLimitMiB) >> 20)}
	start := time.Now()
	if err := b.setup(ctx); err != nil {
		return nil, err
	}
	res.SetupTime = time.Since(start)
	b.logf("setup done in %s", res.SetupTime.Round(time.Second))
	if err := b.startRuntime(ctx); err != nil {
		return nil, err
	}
	start = time.Now()
	if err := b.waitReady(ctx, res); err != nil {
		return nil, err
	}
	res.ReadyTime = time.Since(start)
	b.logf("every SLO evaluated and every policy reconciled %s after the runtime's start; warming up for %s", res.ReadyTime.Round(time.Second), cfg.Warmup)
	if err := sleep(ctx, cfg.Warmup); err != nil {
		return nil, err
	}
	if err := b.measure(ctx, res); err != nil {
		return nil, err
	}
	if err := b.finalState(ctx, res); err != nil {
		return nil, err
	}
	// The figures before the cleanup, which takes minutes at scale.
	b.logf("measured:")
	_ = WriteTable(cfg.Log, res)
	if cfg.OnResult != nil {
		if err := cfg.OnResult(res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func hostOf(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	h, _, _ := strings.Cut(u, "/")
	return h
}

// setup creates the node pool, the burst cluster and its HybridCluster, the
// exporter, and every namespace's objects, and waits for every pod to run.
func (b *bench) setup(ctx context.Context) error {
	n, p := b.cfg.Namespaces, b.cfg.Policies
	if err := crd.Install(ctx, b.rest); err != nil {
		return fmt.Errorf("install CRDs: %w", err)
	}
	nodes := (n + 199) / 200
	b.logf("node pool %s: %d kwok nodes of 200 pods", poolName(b.class), nodes)
	if err := b.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: poolName(b.class), Count: nodes, CPU: "64", Memory: "256Gi", Pods: 250}); err != nil {
		return fmt.Errorf("node pool: %w", err)
	}
	if p > 0 {
		b.burst = b.class + "-burst"
		b.logf("burst cluster %s", b.burst)
		info, err := b.clusters.CreateCluster(ctx, lab.ClusterSpec{Name: b.burst})
		if err != nil {
			b.burst = ""
			return fmt.Errorf("create lab cluster: %w", err)
		}
		b.burstSrv = hostOf(info.Server)
		kc, err := os.ReadFile(info.KubeconfigPath)
		if err != nil {
			return err
		}
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hc-" + b.burst, Namespace: "default", Labels: benchLabels(b.class)}, Data: map[string][]byte{"kubeconfig": kc}}
		hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: b.burst, Labels: runLabels(b.class)}, Spec: hcav1.HybridClusterSpec{
			Role: hcav1.RoleBurst, Provider: hcav1.ProviderPrivate, Priority: 1,
			Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "default", Name: hcav1.ObjectName(sec.Name)}}}}
		if err := errors.Join(b.c.Create(ctx, sec), b.c.Create(ctx, hc)); err != nil {
			return fmt.Errorf("register the burst cluster: %w", err)
		}
	}
	if err := b.startExporter(); err != nil {
		return err
	}
	b.logf("creating %d namespaces with a Deployment and 2 SLOs each, and %d BurstPolicies (%d workers)", n, p, b.cfg.Concurrency)
	err := parallel(ctx, n, b.cfg.Concurrency, func(ctx context.Context, i int) error {
		ns := namespaceName(b.class, i)
		objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: benchLabels(b.class)}}, deployment(b.class, ns)}
		for _, t := range sloTypes(i) {
			objs = append(objs, slo(b.class, ns, t, i < p))
		}
		if i < p {
			objs = append(objs, burstPolicy(b.class, ns, lab.PrivateCluster, b.burst))
		}
		for _, o := range objs {
			if err := b.c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("create %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
			}
		}
		return nil
	}, func(done int) { b.logf("created %d/%d namespaces", done, n) })
	if err != nil {
		return err
	}
	return b.waitPods(ctx)
}

// parallel runs f for 0..n-1 on workers goroutines; it stops at the first
// error. progress, if set, is called every 10 %.
func parallel(ctx context.Context, n, workers int, f func(context.Context, int) error, progress func(int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var mu sync.Mutex
	var first error
	done := 0
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				err := f(ctx, i)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				done++
				if progress != nil && n >= 10 && done%(n/10) == 0 {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// startExporter serves the series on a loopback port and has the lab's
// Prometheus scrape it every ScrapeInterval.
func (b *bench) startExporter() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("exporter: %w", err)
	}
	b.exporter = NewExporter(time.Now)
	b.exporter.SetChurn(b.cfg.Churn)
	b.srv = &http.Server{Handler: b.exporter, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	iv := b.cfg.ScrapeInterval
	return lab.WriteScrapeTarget(b.cfg.TargetsDir, "loadbench-"+b.class, ln.Addr().String(), map[string]string{
		"job": "loadbench", "__scrape_interval__": iv.String(), "__scrape_timeout__": (iv * 8 / 10).String()})
}

// waitPods waits until every namespace's pod is Running and gives the
// exporter their names.
func (b *bench) waitPods(ctx context.Context) error {
	// Fail only when no pod started for 3 minutes: the rate is the lab's
	// kube-controller-manager's and scheduler's, not a fixed time.
	deadline, last := time.Now().Add(3*time.Minute), -1
	for {
		var pods corev1.PodList
		if err := b.c.List(ctx, &pods, client.MatchingLabels{BenchLabel: b.class}); err != nil {
			return fmt.Errorf("list pods: %w", err)
		}
		byNS := map[string][]string{}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				byNS[p.Namespace] = append(byNS[p.Namespace], p.Name)
			}
		}
		if len(byNS) == b.cfg.Namespaces {
			b.exporter.SetPods(byNS)
			b.logf("%d pods Running; exporting their series", len(pods.Items))
			return nil
		}
		if len(byNS) > last {
			deadline, last = time.Now().Add(3*time.Minute), len(byNS)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d namespaces have a Running pod, none more for 3 minutes: is the lab's scheduler up?", len(byNS), b.cfg.Namespaces)
		}
		b.logf("%d of %d namespaces have a Running pod", len(byNS), b.cfg.Namespaces)
		if err := sleep(ctx, 5*time.Second); err != nil {
			return err
		}
	}
}

// startRuntime runs the hca-runtime binary for the run's class and waits
// for /healthz.
func (b *bench) startRuntime(ctx context.Context) error {
	ports := make([]int, 3)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	logPath := filepath.Join(b.cfg.LabDir, "logs", "loadbench-"+b.class+"-runtime.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("runtime log: %w", err)
	}
	args := []string{"run", "--kubeconfig=" + b.cfg.Kubeconfig, "--prometheus-url=" + b.cfg.PrometheusURL,
		"--class=" + b.class, fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[0]),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", ports[1]), "--log-format=json"}
	if b.cfg.ProfileDir != "" {
		args = append(args, fmt.Sprintf("--pprof-bind-address=127.0.0.1:%d", ports[2]))
		b.pprof = fmt.Sprintf("http://127.0.0.1:%d/debug/pprof", ports[2])
	}
	cmd := exec.Command(b.cfg.RuntimeBinary, args...)
	if l := goMemLimit(b.cfg.MemoryLimitMiB); l > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprintf("GOMEMLIMIT=%d", l))
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return fmt.Errorf("start %s: %w", b.cfg.RuntimeBinary, err)
	}
	lf.Close()
	b.runtime = cmd
	b.metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[0])
	b.logf("hca-runtime pid %d, log %s", cmd.Process.Pid, logPath)
	health := fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[1])
	for deadline := time.Now().Add(time.Minute); ; {
		resp, err := http.Get(health)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("hca-runtime did not answer /healthz within a minute (log %s)", logPath)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// counts returns the SLOs Ready with data and the policies that observed
// their generation with data.
func (b *bench) counts(ctx context.Context) (slos, policies int, err error) {
	// In pages of 1,000: one response of 10,000 SLOs (about 20 MB) was cut
	// off by a busy API server ("stream error ... INTERNAL_ERROR").
	for cont := ""; ; {
		var sl hcav1.ServiceLevelObjectiveList
		if err := b.c.List(ctx, &sl, client.MatchingLabels{BenchLabel: b.class}, client.Limit(1000), client.Continue(cont)); err != nil {
			return 0, 0, fmt.Errorf("list SLOs: %w", err)
		}
		for _, s := range sl.Items {
			if s.Status.LastEvaluationTime != nil && meta.IsStatusConditionTrue(s.Status.Conditions, hcav1.ConditionReady) &&
				meta.IsStatusConditionTrue(s.Status.Conditions, hcav1.ConditionMetricsAvailable) {
				slos++
			}
		}
		if cont = sl.Continue; cont == "" {
			break
		}
	}
	var pl hcav1.BurstPolicyList
	if err := b.c.List(ctx, &pl, client.MatchingLabels{BenchLabel: b.class}); err != nil {
		return 0, 0, fmt.Errorf("list policies: %w", err)
	}
	for _, p := range pl.Items {
		if p.Status.ObservedGeneration == p.Generation && meta.IsStatusConditionTrue(p.Status.Conditions, hcav1.ConditionMetricsAvailable) {
			policies++
		}
	}
	return slos, policies, nil
}

// waitReady waits until every SLO was evaluated with data, every policy
// reconciled with data and the strategy controller's queue is empty.
func (b *bench) waitReady(ctx context.Context, res *Result) error {
	// Fail only after 3 minutes without progress.
	deadline, last, lastDepth := time.Now().Add(3*time.Minute), -1, -1
	for {
		s, p, err := b.counts(ctx)
		if err != nil {
			// A list of 10,000 SLOs may time out on a busy API server: the
			// next poll tries again, the deadline still applies.
			b.logf("counting: %v", err)
			s, p = 0, 0
		}
		if s+p > last {
			deadline, last = time.Now().Add(3*time.Minute), s+p
		}
		if s == res.SLOs && p == res.Policies {
			// Every SLO has written its strategy object: ready once the
			// strategy controller has decided on each (its queue empty).
			// A shorter queue is progress too.
			if m, serr := scrapeMetrics(ctx, b.metrics); serr == nil {
				depth := int(m.sum("workqueue_depth", map[string]string{"name": strategyController}))
				if depth == 0 {
					return nil
				}
				if lastDepth < 0 || depth < lastDepth {
					deadline, lastDepth = time.Now().Add(3*time.Minute), depth
				}
				b.logf("%d strategy objects wait for a decision", depth)
			}
		}
		if b.runtime.ProcessState != nil || syscall.Kill(b.runtime.Process.Pid, 0) != nil {
			return errors.New("hca-runtime exited: see its log")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no progress for 3 minutes: %d of %d SLOs are Ready with metrics, %d of %d policies reconciled with metrics, %d strategy objects wait for a decision (runtime log in %s/logs)", s, res.SLOs, p, res.Policies, max(lastDepth, 0), b.cfg.LabDir)
		}
		if err == nil {
			b.logf("%d/%d SLOs evaluated with data, %d/%d policies reconciled", s, res.SLOs, p, res.Policies)
		}
		// Each poll lists every SLO (about 20 MB of JSON at 10,000), work
		// for the API server the runtime competes with: every 15 s.
		if err := sleep(ctx, 15*time.Second); err != nil {
			return err
		}
	}
}

// strategyController is the name of the runtime's controller of the
// strategy objects the benchmark's SLOs write (all Horizontal).
const strategyController = "horizontalelasticitystrategy"

// reconciles are controller name's reconciles between the scrapes before
// and after, their mean duration and mean wait in the work queue
// (controller-runtime's reconcile_time and workqueue_queue_duration), and
// the waits' histogram.
func reconciles(before, after scrape, name string) (n, mean, waitMean float64, wait hist) {
	rt := after.histogram("controller_runtime_reconcile_time_seconds", map[string]string{"controller": name}).
		minus(before.histogram("controller_runtime_reconcile_time_seconds", map[string]string{"controller": name}))
	if n = rt.count(); n > 0 {
		mean = rt.sum / n
	}
	wait = after.histogram("workqueue_queue_duration_seconds", map[string]string{"name": name}).
		minus(before.histogram("workqueue_queue_duration_seconds", map[string]string{"name": name}))
	if c := wait.count(); c > 0 {
		waitMean = wait.sum / c
	}
	return n, mean, waitMean, wait
}

// snapshot is what is read at each end of the window.
type snapshot struct {
	at                 time.Time
	cpu                float64
	runtime, prom, api scrape
}

func (b *bench) snapshot(ctx context.Context) (snapshot, error) {
	s := snapshot{at: time.Now()}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", b.runtime.Process.Pid))
	if err != nil {
		return s, fmt.Errorf("read the runtime's /proc stat: %w", err)
	}
	if s.cpu, err = cpuSeconds(string(stat)); err != nil {
		return s, err
	}
	if s.runtime, err = scrapeMetrics(ctx, b.metrics); err != nil {
		return s, err
	}
	if s.prom, err = scrapeMetrics(ctx, strings.TrimSuffix(b.cfg.PrometheusURL, "/")+"/metrics"); err != nil {
		return s, err
	}
	raw, err := b.cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return s, fmt.Errorf("scrape the API server: %w", err)
	}
	if s.api, err = parseScrape(bytes.NewReader(raw)); err != nil {
		return s, err
	}
	return s, nil
}

// scrapeMetrics reads the Prometheus metrics served at url.
func scrapeMetrics(ctx context.Context, url string) (scrape, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	return parseScrape(resp.Body)
}

// windowStart is the first instant at or after now half-way between two
// SLO grid instants (the runtime evaluates SLOs of one interval at multiples
// of it), so that a window of whole cycles holds exactly that many batches.
func windowStart(now time.Time, interval time.Duration) time.Time {
	t := now.Truncate(interval).Add(interval / 2)
	if t.Before(now) {
		t = t.Add(interval)
	}
	return t
}

var apiWrites = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true, "DELETECOLLECTION": true, "APPLY": true}

// runtimeMemory reads the measured runtime's /proc status.
func (b *bench) runtimeMemory() (procMemory, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.runtime.Process.Pid))
	if err != nil {
		return procMemory{}, fmt.Errorf("read the runtime's /proc status: %w", err)
	}
	return memoryMiB(string(raw))
}

// measure measures the window.
func (b *bench) measure(ctx context.Context, res *Result) error {
	if err := sleep(ctx, time.Until(windowStart(time.Now(), sloInterval))); err != nil {
		return err
	}
	res.Window = time.Duration(b.cfg.Cycles) * sloInterval
	b.logf("measuring %d SLO cycles (%s)", b.cfg.Cycles, res.Window)
	if b.pprof != "" {
		// The heap profile's allocations are counted from the runtime's
		// start: with this one, go tool pprof -base heap-start.pb.gz
		// heap.pb.gz shows the window's alone (taken before the window, whose
		// CPU it would add to).
		if err := b.saveProfile(ctx, "/heap", "heap-start.pb.gz"); err != nil {
			return err
		}
	}
	if m, err := b.runtimeMemory(); err == nil {
		res.HWMStartMiB = m.HWM
	}
	before, err := b.snapshot(ctx)
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var profErr error
	if b.pprof != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			profErr = b.saveProfile(ctx, fmt.Sprintf("/profile?seconds=%d", int(res.Window.Seconds())-2), "cpu.pb.gz")
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if m, err := b.runtimeMemory(); err == nil && m.RSS > res.RSSMaxMiB {
				res.RSSMaxMiB, res.AnonMiB, res.FileMiB = m.RSS, m.Anon, m.File
			}
			select {
			case <-sctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	err = sleep(ctx, time.Until(before.at.Add(res.Window)))
	stop()
	wg.Wait()
	if err != nil {
		return err
	}
	after, err := b.snapshot(ctx)
	if err != nil {
		return err
	}
	if b.pprof != "" {
		if err := errors.Join(profErr, b.saveProfile(ctx, "/heap", "heap.pb.gz")); err != nil {
			return err
		}
	}
	m, err := b.runtimeMemory()
	if err != nil {
		return err
	}
	res.HWMMiB = m.HWM
	secs := after.at.Sub(before.at).Seconds()
	cycles := secs / sloInterval.Seconds()
	res.CPU = (after.cpu - before.cpu) / secs

	late := func(loop string) hist {
		w := map[string]string{"loop": loop}
		return after.runtime.histogram("hca_schedule_lateness_seconds", w).minus(before.runtime.histogram("hca_schedule_lateness_seconds", w))
	}
	sl := late("slo")
	res.SLOEvaluations, res.SLOExpected = sl.count(), float64(res.SLOs)*float64(b.cfg.Cycles)
	res.SLOLateP99, res.SLOLateMax = sl.upperBound(0.99), sl.upperBound(1)
	eval := after.runtime.histogram("hca_slo_evaluation_duration_seconds", nil).minus(before.runtime.histogram("hca_slo_evaluation_duration_seconds", nil))
	res.SLOBatchMax = eval.upperBound(1)
	if n := eval.count(); n > 0 {
		res.SLOBatchMean = eval.sum / n
	}
	pl := late("burst")
	res.PolicyEvaluations, res.PolicyExpected = pl.count(), float64(res.Policies)*secs/policyInterval.Seconds()
	res.PolicyLateP99, res.PolicyLateMax = pl.upperBound(0.99), pl.upperBound(1)
	var qw hist
	res.PolicyReconciles, res.PolicyReconcileMean, res.PolicyQueueWaitMean, _ = reconciles(before.runtime, after.runtime, "burstpolicy")
	res.StrategyReconciles, res.StrategyReconcileMean, res.StrategyQueueWaitMean, qw = reconciles(before.runtime, after.runtime, strategyController)
	res.StrategyQueueWaitP99 = qw.upperBound(0.99)
	res.StrategyQueueDepth = after.runtime.sum("workqueue_depth", map[string]string{"name": strategyController})
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(raw)); len(f) > 0 {
			res.LoadAverage, _ = strconv.ParseFloat(f[0], 64)
		}
	}

	queries := func(s scrape) float64 {
		by := s.sumBy("prometheus_http_requests_total", []string{"handler"}, nil)
		return by["/api/v1/query"] + by["/api/v1/query_range"]
	}
	res.PromQueriesPerCycle = (queries(after.prom) - queries(before.prom)) / cycles
	res.RuntimeQueriesPerCycle = (after.runtime.sum("hca_metric_queries_total", nil) - before.runtime.sum("hca_metric_queries_total", nil)) / cycles

	by := []string{"verb", "resource", "subresource"}
	ab, aa := before.api.sumBy("apiserver_request_total", by, nil), after.api.sumBy("apiserver_request_total", by, nil)
	res.APIServerWrites = map[string]float64{}
	for k, v := range aa {
		verb, _, _ := strings.Cut(k, " ")
		if d := (v - ab[k]) / secs; apiWrites[verb] && d > 0 {
			res.APIServerWritesPerSec += d
			res.APIServerWrites[strings.TrimSpace(k)] = d
		}
	}
	res.RuntimeWritesPerSec = map[string]float64{}
	rb := before.runtime.sumBy("rest_client_requests_total", []string{"method"}, map[string]string{"host": b.privSrv})
	ra := after.runtime.sumBy("rest_client_requests_total", []string{"method"}, map[string]string{"host": b.privSrv})
	for m, v := range ra {
		if apiWrites[m] {
			res.RuntimeWritesPerSec[m] = (v - rb[m]) / secs
		}
	}
	if b.burstSrv != "" {
		w := map[string]string{"host": b.burstSrv}
		res.RuntimeBurstRequestsPerSec = (after.runtime.sum("rest_client_requests_total", w) - before.runtime.sum("rest_client_requests_total", w)) / secs
	}
	res.Errors = after.runtime.sum("hca_errors_total", nil) - before.runtime.sum("hca_errors_total", nil)
	return nil
}

// saveProfile saves the runtime's pprof path to name in ProfileDir.
func (b *bench) saveProfile(ctx context.Context, path, name string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.pprof+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: %s", path, resp.Status)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("profile %s: %w", path, err)
	}
	if err := os.MkdirAll(b.cfg.ProfileDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(b.cfg.ProfileDir, name), raw, 0o644)
}

func (b *bench) finalState(ctx context.Context, res *Result) error {
	var err error
	res.SLOsReady, res.PoliciesReconciled, err = b.counts(ctx)
	return err
}

// stopRuntime stops the runtime (SIGTERM, then SIGKILL after 15 s).
func (b *bench) stopRuntime() {
	if b.runtime == nil || b.runtime.Process == nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = b.runtime.Wait(); close(done) }()
	_ = b.runtime.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = b.runtime.Process.Kill()
		<-done
	}
	b.runtime = nil
}

// cleanup removes everything the run created: the policies (while the
// runtime still runs, so that it removes their finalizers and burst
// objects), the runtime, the namespaces, the HybridCluster and its Secret,
// the burst cluster, the node pool and the scrape target.
func (b *bench) cleanup(ctx context.Context) error {
	var errs []error
	sel := client.MatchingLabels{BenchLabel: b.class}
	var pl hcav1.BurstPolicyList
	if err := b.c.List(ctx, &pl, sel); err != nil {
		errs = append(errs, err)
	}
	if len(pl.Items) > 0 {
		b.logf("deleting %d BurstPolicies", len(pl.Items))
		_ = parallel(ctx, len(pl.Items), b.cfg.Concurrency, func(ctx context.Context, i int) error {
			if err := b.c.Delete(ctx, &pl.Items[i]); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			return nil
		}, nil)
		for deadline := time.Now().Add(2 * time.Minute); b.runtime != nil && time.Now().Before(deadline); {
			var left hcav1.BurstPolicyList
			if err := b.c.List(ctx, &left, sel); err != nil || len(left.Items) == 0 {
				break
			}
			_ = sleep(ctx, 2*time.Second)
		}
	}
	b.stopRuntime()
	// Finalizers the runtime did not get to (it failed to start, or timed out).
	var left hcav1.BurstPolicyList
	if err := b.c.List(ctx, &left, sel); err == nil {
		for i := range left.Items {
			p := &left.Items[i]
			if len(p.Finalizers) > 0 {
				patch := client.MergeFrom(p.DeepCopy())
				p.Finalizers = nil
				if err := b.c.Patch(ctx, p, patch); err != nil && !apierrors.IsNotFound(err) {
					errs = append(errs, err)
				}
			}
		}
	}
	var nss corev1.NamespaceList
	if err := b.c.List(ctx, &nss, sel); err != nil {
		errs = append(errs, err)
	}
	b.logf("deleting %d namespaces", len(nss.Items))
	if err := parallel(ctx, len(nss.Items), b.cfg.Concurrency, func(ctx context.Context, i int) error {
		if err := b.c.Delete(ctx, &nss.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}, nil); err != nil {
		errs = append(errs, fmt.Errorf("delete namespaces: %w", err))
	}
	if b.burst != "" {
		for _, o := range []client.Object{&hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: b.burst}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hc-" + b.burst, Namespace: "default"}}} {
			if err := b.c.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		if err := b.clusters.DeleteCluster(ctx, b.burst); err != nil {
			errs = append(errs, fmt.Errorf("delete lab cluster %s: %w", b.burst, err))
		}
	}
	if b.srv != nil {
		_ = b.srv.Close()
		if err := os.Remove(filepath.Join(b.cfg.TargetsDir, "loadbench-"+b.class+".json")); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	// Wait for the namespaces to go before removing the nodes their pods
	// are bound to (the namespace controller deletes the pods).
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); {
		var left corev1.NamespaceList
		if err := b.c.List(ctx, &left, sel); err != nil || len(left.Items) == 0 {
			break
		}
		b.logf("%d namespaces terminating", len(left.Items))
		_ = sleep(ctx, 5*time.Second)
	}
	if err := b.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: poolName(b.class), Count: 0}); err != nil {
		errs = append(errs, fmt.Errorf("remove node pool %s: %w", poolName(b.class), err))
	}
	return errors.Join(errs...)
}

// goMemLimit is the GOMEMLIMIT in bytes hca_runtime gives the runtime for a
// container memory limit in MiB (config.GoMemLimit; 0 for no limit).
func goMemLimit(limitMiB int) int64 {
	v, ok := config.GoMemLimit(&corev1.ResourceRequirements{Limits: corev1.ResourceList{
		corev1.ResourceMemory: *resource.NewQuantity(int64(limitMiB)<<20, resource.BinarySI)}})
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}
