package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// labCollector measures a real Deployment over a grid: for each
// configuration it patches the Deployment's replicas and its first
// container's CPU and memory (requests = limits), waits for the rollout, then
// for each request rate sets the load generator (the lab's loadsim API:
// PUT {loadsim}/v1/apps/{namespace}/{name}) and, after twice settle, reads the four
// inputs from Prometheus with the MultiObjective strategy's default queries
// over the last settle (the first is for the load to take hold).
type labCollector struct {
	kube       kubernetes.Interface
	prom       metrics.Source
	httpClient *http.Client
	loadsimURL string
	namespace  string
	deployment string
	app        moha.App
	settle     time.Duration
	rollout    time.Duration
	progress   io.Writer
}

// collect measures every point of g, in grid order (configurations outer,
// rates inner); on an error it returns what it measured and the error.
func (c *labCollector) collect(ctx context.Context, g moha.Grid) ([]moha.Sample, error) {
	var out []moha.Sample
	for _, cpu := range g.CPUMilli {
		for _, mem := range g.MemoryMiB {
			for _, n := range g.Replicas {
				if err := c.configure(ctx, cpu, mem, n); err != nil {
					return out, err
				}
				for _, rps := range g.RPS {
					s, err := c.measure(ctx, cpu, mem, n, rps)
					if err != nil {
						return out, err
					}
					out = append(out, s)
					if c.progress != nil {
						fmt.Fprintf(c.progress, "%d x %gm/%gMi at %g req/s: %.1f ms, CPU %.1f %%, memory %.1f %%\n", n, cpu, mem, rps, s.ResponseTimeMs, s.CPUUsagePercent, s.MemoryUsagePercent)
					}
				}
			}
		}
	}
	return out, nil
}

// configure patches the Deployment and waits until exactly n updated pods
// are ready.
func (c *labCollector) configure(ctx context.Context, cpu, mem float64, n int) error {
	deps := c.kube.AppsV1().Deployments(c.namespace)
	var d *appsv1.Deployment
	replicas := int32(n)
	// Another writer (the Deployment controller's status, a label) may
	// change the object between get and update: read again and retry.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		d, err = deps.Get(ctx, c.deployment, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get Deployment %s/%s: %w", c.namespace, c.deployment, err)
		}
		if len(d.Spec.Template.Spec.Containers) == 0 {
			return fmt.Errorf("Deployment %s/%s has no container", c.namespace, c.deployment)
		}
		d.Spec.Replicas = &replicas
		ct := &d.Spec.Template.Spec.Containers[0]
		res := corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(cpu), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(mem)<<20, resource.BinarySI),
		}
		ct.Resources.Requests, ct.Resources.Limits = res, res.DeepCopy()
		d, err = deps.Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update Deployment %s/%s to %d x %gm/%gMi: %w", c.namespace, c.deployment, n, cpu, mem, err)
	}
	gen := d.Generation
	var last *appsv1.Deployment
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, c.rollout, true, func(ctx context.Context) (bool, error) {
		d, err := deps.Get(ctx, c.deployment, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = d
		st := d.Status
		return st.ObservedGeneration >= gen && st.UpdatedReplicas == replicas && st.ReadyReplicas == replicas && st.Replicas == replicas, nil
	})
	if err != nil {
		status := "never read"
		if last != nil {
			status = fmt.Sprintf("%d replicas, %d updated, %d ready", last.Status.Replicas, last.Status.UpdatedReplicas, last.Status.ReadyReplicas)
		}
		return fmt.Errorf("wait for Deployment %s/%s to roll out %d x %gm/%gMi (last: %s): %w", c.namespace, c.deployment, n, cpu, mem, status, err)
	}
	return nil
}

// scrapeLag is how long a sample takes to reach Prometheus' answers (the
// lab scrapes every second).
const scrapeLag = 2 * time.Second

// measure sets the load, waits twice settle and reads the four inputs over
// the last settle.
func (c *labCollector) measure(ctx context.Context, cpu, mem float64, n int, rps float64) (moha.Sample, error) {
	s := moha.Sample{CPULimitMilli: cpu, MemoryLimitMiB: mem, Replicas: float64(n), RequestsPerSecond: rps}
	body, _ := json.Marshal(map[string]any{"rps": rps, "cpuPerRequest": c.app.CPUPerRequest,
		"memory": map[string]float64{"baseMiB": c.app.Memory.BaseMiB, "perRequestMiB": c.app.Memory.PerRequestMiB, "gcCost": c.app.Memory.GCCost}})
	url := fmt.Sprintf("%s/v1/apps/%s/%s", strings.TrimRight(c.loadsimURL, "/"), c.namespace, c.deployment)
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		return s, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return s, fmt.Errorf("set the load: %w", err)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("set the load: PUT %s: %s: %s", url, resp.Status, msg)
	}
	// settle for the new load (and a pod just made Ready) to take hold, then
	// as long again, plus Prometheus' scrape lag, so that the queries' window
	// (settle long) holds only samples of the settled load: a window that
	// began at the change read the first sample of a grid 12-20 % low.
	select {
	case <-ctx.Done():
		return s, ctx.Err()
	case <-time.After(2*c.settle + scrapeLag):
	}
	window := "[" + strconv.Itoa(int(c.settle/time.Second)) + "s]"
	repl := strings.NewReplacer("$namespace", c.namespace, "$name", c.deployment, "[1m]", window)
	into := []*float64{nil, &s.ResponseTimeMs, &s.CPUUsagePercent, &s.MemoryUsagePercent}
	for i, q := range controller.DefaultMultiObjectiveQueries {
		if into[i] == nil {
			continue // the offered rate is the one set
		}
		vec, err := c.prom.Instant(ctx, metrics.Raw(repl.Replace(q)), time.Time{})
		if err != nil {
			return s, fmt.Errorf("%d x %gm/%gMi at %g req/s: %w", n, cpu, mem, rps, err)
		}
		if len(vec) != 1 {
			return s, fmt.Errorf("%d x %gm/%gMi at %g req/s: query %s: %d series, want 1", n, cpu, mem, rps, repl.Replace(q), len(vec))
		}
		*into[i] = vec[0].Value
	}
	return s, nil
}

// parseFloats parses "a,b,c" for the named flag.
func parseFloats(flagName, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, usageError{fmt.Sprintf("moha collect: --%s: %q is not a number > 0", flagName, f)}
		}
		out = append(out, v)
	}
	return out, nil
}

// labGrid reads the grid flags; errors name the flag.
func labGrid(cpu, mem, replicas, rps string) (moha.Grid, error) {
	var g moha.Grid
	var err error
	if g.CPUMilli, err = parseFloats("cpu", cpu); err != nil {
		return g, err
	}
	if g.MemoryMiB, err = parseFloats("memory", mem); err != nil {
		return g, err
	}
	if g.RPS, err = parseFloats("rps", rps); err != nil {
		return g, err
	}
	rs, err := parseFloats("replicas", replicas)
	if err != nil {
		return g, err
	}
	for _, r := range rs {
		if r != float64(int(r)) {
			return g, usageError{fmt.Sprintf("moha collect: --replicas: %v is not a whole number", r)}
		}
		g.Replicas = append(g.Replicas, int(r))
	}
	return g, nil
}

var errNoLabFlags = errors.New("--source lab needs --namespace, --deployment, --loadsim-url and --prometheus-url")
