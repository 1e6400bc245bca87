package loadsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape fetches and parses base/metrics.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := call(t, "GET", base+"/metrics", "")
	if code != 200 {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return mfs
}

// series returns the metrics of family name whose labels include want.
func series(mfs map[string]*dto.MetricFamily, name string, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
	mf := mfs[name]
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// value returns the single counter or gauge value of name with labels want.
func value(t *testing.T, mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	ms := series(mfs, name, want)
	if len(ms) != 1 {
		t.Fatalf("%s%v: %d series, want 1", name, want, len(ms))
	}
	switch {
	case ms[0].Counter != nil:
		return ms[0].Counter.GetValue()
	case ms[0].Gauge != nil:
		return ms[0].Gauge.GetValue()
	}
	t.Fatalf("%s%v is neither counter nor gauge", name, want)
	return 0
}

func TestNoReadyPodsCountsAllLoadAsErrors(t *testing.T) {
	s, clk := newTestSim(t, nil)
	base := serve(t, s.Handler())
	ctx := context.Background()
	app := map[string]string{"namespace": "shop", "app": "web"}
	unassigned := map[string]string{"namespace": "shop", "app": "web", "code": "503", "pod": "", "cluster": ""}

	call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 10}`)
	s.rescan(ctx)
	s.tick(ctx) // first tick: starts the clock for this app
	clk.Step(2 * time.Second)
	s.tick(ctx)
	mfs := scrape(t, base)
	if got := value(t, mfs, "http_requests_total", unassigned); got != 20 {
		t.Errorf("503 without pod after 2 s at 10 rps = %v, want 20", got)
	}
	if got := value(t, mfs, "loadsim_offered_load_rps", app); got != 10 {
		t.Errorf("offered = %v, want 10", got)
	}
	if got := value(t, mfs, "loadsim_ready_pods", app); got != 0 {
		t.Errorf("ready pods = %v, want 0", got)
	}
	if n := len(series(mfs, "container_cpu_usage_seconds_total", app)); n != 0 {
		t.Errorf("%d CPU series without pods, want 0", n)
	}

	// dt-aware integration: a 3 s gap at the new rate adds 3×40.
	call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 40}`)
	clk.Step(3 * time.Second)
	s.tick(ctx)
	mfs = scrape(t, base)
	if got := value(t, mfs, "http_requests_total", unassigned); got != 140 {
		t.Errorf("503 after 3 s more at 40 rps = %v, want 140", got)
	}

	call(t, "DELETE", base+"/v1/apps/shop/web", "")
	mfs = scrape(t, base)
	for _, name := range []string{"http_requests_total", "loadsim_offered_load_rps", "loadsim_ready_pods"} {
		if n := len(series(mfs, name, app)); n != 0 {
			t.Errorf("%s: %d series after DELETE, want 0", name, n)
		}
	}
}

// TestUpdateAcrossClusters drives the per-tick bookkeeping with observations
// as the clusters would report them.
func TestUpdateAcrossClusters(t *testing.T) {
	s, clk := newTestSim(t, nil)
	base := serve(t, s.Handler())
	k := appKey{"shop", "web"}
	s.setLoad(k, 80, 0.002) // μ = 0.1/0.002 = 50 req/s per pod
	pod := func(name string) observedPod {
		return observedPod{name: name, res: workload.PodResources{Request: 0.1, Limit: 0.1}}
	}
	tick := func(obs map[string]clusterResult) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.update(s.apps[k], obs, clk.Now())
	}
	podLabels := func(cluster, name string) map[string]string {
		return map[string]string{"cluster": cluster, "namespace": "shop", "pod": name, "app": "web"}
	}

	// Two pods in the private cluster, the burst cluster has no Deployment.
	tick(map[string]clusterResult{"private": {pods: []observedPod{pod("a"), pod("b")}}, "burst": {absent: true}})
	clk.Step(time.Second)
	tick(map[string]clusterResult{"private": {pods: []observedPod{pod("a"), pod("b")}}, "burst": {absent: true}})
	mfs := scrape(t, base)
	for _, p := range []string{"a", "b"} {
		l := podLabels("private", p)
		if got := value(t, mfs, "container_cpu_usage_seconds_total", map[string]string{"pod": p, "cluster": "private", "container": "app"}); math.Abs(got-0.08) > 1e-12 {
			t.Errorf("pod %s CPU after 1 s = %v, want 40 req/s × 0.002 = 0.08", p, got)
		}
		if got := value(t, mfs, "loadsim_cpu_request_cores", l); got != 0.1 {
			t.Errorf("pod %s request = %v, want 0.1", p, got)
		}
		if got := value(t, mfs, "loadsim_cpu_limit_cores", l); got != 0.1 {
			t.Errorf("pod %s limit = %v, want 0.1", p, got)
		}
		if got := value(t, mfs, "http_requests_total", map[string]string{"pod": p, "code": "200"}); got != 40 {
			t.Errorf("pod %s 200s = %v, want 40", p, got)
		}
		h := series(mfs, "http_request_duration_seconds", l)
		if len(h) != 1 || h[0].Histogram.GetSampleCount() != 40 {
			t.Fatalf("pod %s histogram = %v, want count 40", p, h)
		}
		// θ = 50-40 = 10/s: the le=0.25 bucket holds 40×(1-e^-2.5) = 36.7 → 36.
		for _, b := range h[0].Histogram.Bucket {
			if b.GetUpperBound() == 0.25 && b.GetCumulativeCount() != 36 {
				t.Errorf("pod %s bucket le=0.25 = %d, want 36", p, b.GetCumulativeCount())
			}
		}
	}

	// A burst cluster joins with two more pods: each of the four now gets 20.
	clk.Step(time.Second)
	four := map[string]clusterResult{"private": {pods: []observedPod{pod("a"), pod("b")}}, "burst": {pods: []observedPod{pod("a"), pod("c")}}}
	tick(four)
	st, _ := s.App("shop", "web")
	if st.ReadyPods != 4 {
		t.Fatalf("ready pods = %d, want 4 (same pod name in two clusters is two pods)", st.ReadyPods)
	}
	for _, p := range st.Pods {
		if p.ShareRPS != 20 || math.Abs(p.Utilisation-0.4) > 1e-12 {
			t.Errorf("%s/%s: share %v utilisation %v, want 20 and 0.4", p.Cluster, p.Pod, p.ShareRPS, p.Utilisation)
		}
	}

	// The burst cluster stops answering: its pods keep their share until
	// StaleAfter, then are dropped and their series removed.
	clk.Step(time.Second)
	tick(map[string]clusterResult{"private": four["private"], "burst": {err: errors.New("connection refused")}})
	if st, _ = s.App("shop", "web"); st.ReadyPods != 4 || st.ClusterErrors["burst"] == "" {
		t.Errorf("right after an error: %d pods, errors %v; want 4 pods and an error for burst", st.ReadyPods, st.ClusterErrors)
	}
	clk.Step(s.opts.StaleAfter)
	tick(map[string]clusterResult{"private": four["private"], "burst": {err: errors.New("connection refused")}})
	if st, _ = s.App("shop", "web"); st.ReadyPods != 2 {
		t.Errorf("after StaleAfter: %d pods, want 2", st.ReadyPods)
	}
	mfs = scrape(t, base)
	if n := len(series(mfs, "container_cpu_usage_seconds_total", map[string]string{"cluster": "burst"})); n != 0 {
		t.Errorf("%d CPU series left for the burst cluster's pods, want 0", n)
	}
	if n := len(series(mfs, "http_request_duration_seconds", map[string]string{"cluster": "private"})); n != 2 {
		t.Errorf("%d histogram series for the private cluster, want 2", n)
	}

	// The cluster leaves the lab entirely and pod b goes away.
	clk.Step(time.Second)
	tick(map[string]clusterResult{"private": {pods: []observedPod{pod("a")}}})
	if st, _ = s.App("shop", "web"); st.ReadyPods != 1 || st.Pods[0].Pod != "a" || st.Pods[0].ErrorRPS != 30 {
		t.Errorf("one pod left: %+v, want pod a with 80-50 = 30 error rps", st.Pods)
	}
}

// TestCountersGrowBetweenTicks: a scrape reads the counters as of its own
// time, so a tick that runs late does not make a rate read low, and a load
// change applies from the moment it is made, never to the time before it (a
// counter never goes down). Two pods at 80 req/s × 0.002 CPU-s: 0.08 cores each.
func TestCountersGrowBetweenTicks(t *testing.T) {
	s, clk := newTestSim(t, nil)
	base := serve(t, s.Handler())
	k := appKey{"shop", "web"}
	call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 80, "cpuPerRequest": 0.002}`)
	obs := map[string]clusterResult{"private": {pods: []observedPod{
		{name: "a", res: workload.PodResources{Request: 0.1, Limit: 0.1}}, {name: "b", res: workload.PodResources{Request: 0.1, Limit: 0.1}}}}}
	tick := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.update(s.apps[k], obs, clk.Now())
	}
	cpu := func() float64 {
		return value(t, scrape(t, base), "container_cpu_usage_seconds_total", map[string]string{"pod": "a", "container": "app"})
	}
	tick()
	steps := []struct {
		name string
		do   func()
		want float64
	}{
		{"a tick 1 s later", func() { clk.Step(time.Second); tick() }, 0.08},
		{"a scrape 0.5 s after it, the next tick late", func() { clk.Step(500 * time.Millisecond) }, 0.12},
		{"the load cut to 20 req/s at that moment", func() { call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 20, "cpuPerRequest": 0.002}`) }, 0.12},
		{"the late tick 1 s later, at the new load", func() { clk.Step(time.Second); tick() }, 0.14},
		{"a scrape 2 s later with no tick", func() { clk.Step(2 * time.Second) }, 0.18},
	}
	for _, st := range steps {
		st.do()
		if got := cpu(); math.Abs(got-st.want) > 1e-9 {
			t.Errorf("%s: CPU counter %v, want %v", st.name, got, st.want)
		}
	}
}

// BenchmarkTickUpdate is one tick's bookkeeping (model plus counter
// integration, under the lock) for 100 apps of 10 pods, without the
// Kubernetes calls.
func BenchmarkTickUpdate(b *testing.B) {
	s, err := New(Options{Clusters: StaticSource(nil)})
	if err != nil {
		b.Fatal(err)
	}
	obs := map[appKey]map[string]clusterResult{}
	for a := range 100 {
		k := appKey{"bench", fmt.Sprintf("app-%d", a)}
		s.setLoad(k, float64(10+a), workload.DefaultCPUPerRequest)
		pods := make([]observedPod, 10)
		for p := range pods {
			pods[p] = observedPod{name: fmt.Sprintf("app-%d-%d", a, p), res: workload.PodResources{Request: 0.25, Limit: 0.5}}
		}
		obs[k] = map[string]clusterResult{"private": {pods: pods[:6]}, "burst": {pods: pods[6:]}}
	}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Second)
		s.mu.Lock()
		for k, a := range s.apps {
			s.update(a, obs[k], now)
		}
		s.mu.Unlock()
	}
}

func TestRunTicksOnTheClock(t *testing.T) {
	s, clk := newTestSim(t, nil)
	s.setLoad(appKey{"shop", "web"}, 5, workload.DefaultCPUPerRequest)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	unserved := func() float64 {
		s.mu.RLock()
		defer s.mu.RUnlock()
		return s.apps[appKey{"shop", "web"}].unserved
	}
	// Each Step fires the ticker once Run waits on it; the first tick is at start.
	deadline := time.Now().Add(10 * time.Second)
	for unserved() < 15 {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s of stepping, unserved = %v, want >= 15 (3 ticks of 1 s at 5 rps)", unserved())
		}
		if clk.HasWaiters() {
			clk.Step(time.Second)
		}
		time.Sleep(time.Millisecond)
	}
	if got := unserved(); math.Mod(got, 5) != 0 {
		t.Errorf("unserved = %v, want a multiple of 5 (whole 1 s ticks)", got)
	}
	if err := s.Run(ctx); err == nil {
		t.Error("second concurrent Run returned nil, want an error")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

// TestMemoryModel: with a memory model, a pod's memory limit slows it down
// and its working set is exported. Two pods of 300m and 400Mi offered 100
// req/s: each gets 50, holds W = 250 + 1×50 = 300 MiB, pressure x = 0.75,
// GC overhead g = 0.05×0.75/0.25 = 0.15, so each request costs
// 0.002×1.15 = 0.0023 CPU-s and the pod uses 50×0.0023 = 0.115 cores.
func TestMemoryModel(t *testing.T) {
	s, clk := newTestSim(t, nil)
	base := serve(t, s.Handler())
	call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 100, "cpuPerRequest": 0.002, "memory": {"baseMiB": 250, "perRequestMiB": 1, "gcCost": 0.05}}`)
	k := appKey{"shop", "web"}
	pod := func(name string) observedPod {
		return observedPod{name: name, res: workload.PodResources{Request: 0.3, Limit: 0.3, MemoryLimit: 400}}
	}
	obs := map[string]clusterResult{"private": {pods: []observedPod{pod("a"), pod("b")}}}
	for range 2 {
		s.mu.Lock()
		s.update(s.apps[k], obs, clk.Now())
		s.mu.Unlock()
		clk.Step(time.Second)
	}
	mfs := scrape(t, base)
	l := map[string]string{"cluster": "private", "namespace": "shop", "pod": "a", "app": "web"}
	if got := value(t, mfs, "container_memory_working_set_bytes", l); got != 300<<20 {
		t.Errorf("working set = %v, want 300 MiB = %v", got, 300<<20)
	}
	if got := value(t, mfs, "loadsim_memory_limit_bytes", l); got != 400<<20 {
		t.Errorf("memory limit = %v, want %v", got, 400<<20)
	}
	st, _ := s.App("shop", "web")
	if len(st.Pods) != 2 || math.Abs(st.Pods[0].CPUCores-0.115) > 1e-12 || st.Pods[0].MemoryMiB != 300 {
		t.Errorf("pods %+v, want 0.115 cores and 300 MiB each", st.Pods)
	}
	// Without the memory model the same pods use 50×0.002 = 0.1 cores.
	call(t, "PUT", base+"/v1/apps/shop/web", `{"rps": 100, "cpuPerRequest": 0.002}`)
	s.mu.Lock()
	s.update(s.apps[k], obs, clk.Now())
	s.mu.Unlock()
	if st, _ := s.App("shop", "web"); math.Abs(st.Pods[0].CPUCores-0.1) > 1e-12 || st.Pods[0].MemoryMiB != 0 {
		t.Errorf("without a memory model: pods %+v, want 0.1 cores and no memory", st.Pods)
	}
}
