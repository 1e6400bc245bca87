package loadsim

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/workload"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
)

// Options configures a Sim. Only Clusters is required.
type Options struct {
	// Clusters lists the lab clusters; see DirSource.
	Clusters ClusterSource
	// Clock drives ticks and timestamps (default: the real clock).
	Clock clock.WithTicker
	// TickInterval is how often pods are observed and counters integrated
	// (default 1s).
	TickInterval time.Duration
	// RescanInterval is how often Clusters is called (default 5s).
	RescanInterval time.Duration
	// StaleAfter is how long the last pods seen in a cluster keep their load
	// while that cluster fails to answer (default 10s); after that its pods
	// are dropped.
	StaleAfter time.Duration
	// RequestTimeout bounds one tick's Kubernetes calls to one cluster
	// (default 5s).
	RequestTimeout time.Duration
	// Logger receives rescan and observation errors (default: discarded).
	Logger *slog.Logger
}

// Sim is the workload simulator. Create it with New, serve Handler and call
// Run. All methods are safe for concurrent use.
type Sim struct {
	opts Options
	clk  clock.WithTicker
	log  *slog.Logger

	mu       sync.RWMutex
	apps     map[appKey]*app
	clusters map[string]*clusterClient
	scanErr  string
	scanAt   time.Time
	tickAt   time.Time
	running  bool
}

type appKey struct{ namespace, name string }

func (k appKey) String() string { return k.namespace + "/" + k.name }

type app struct {
	key           appKey
	cpuPerRequest float64
	memory        workload.Memory // zero: no memory model
	rps           float64         // fixed load, and the load before a trace's first point
	trace         workload.Trace
	traceStart    time.Time

	offered    float64   // load at the last tick or load change
	unassigned float64   // load with no ready pod since then (req/s)
	unserved   float64   // integral of unassigned (requests) up to at
	at         time.Time // when the counters were last integrated
	lastTick   time.Time // the last observation of the app's pods
	pods       map[podKey]*podState
	seen       map[string]observation // last good observation per cluster
	clusterErr map[string]string
}

type podKey struct{ cluster, pod string }

type podState struct {
	key        podKey
	res        workload.PodResources
	labels     map[string]string // the pod's labels (for the metrics API's selectors)
	containers []string          // the pod's container names
	load       workload.PodLoad
	at         time.Time // when the counters were last integrated
	cpuSeconds float64
	served     float64
	errors     float64
	bucketSum  [workload.NumBuckets]float64
	count      float64
	latencySum float64
}

type observedPod struct {
	name       string
	res        workload.PodResources
	labels     map[string]string
	containers []string
}

type observation struct {
	pods []observedPod
	at   time.Time
}

type clusterClient struct {
	name        string
	fingerprint [32]byte
	client      kubernetes.Interface
}

// New checks opts and returns a Sim with no apps.
func New(opts Options) (*Sim, error) {
	if opts.Clusters == nil {
		return nil, errors.New("loadsim: Options.Clusters is nil: pass DirSource(labDir) or StaticSource(...)")
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
		n   string
	}{
		{&opts.TickInterval, time.Second, "TickInterval"},
		{&opts.RescanInterval, 5 * time.Second, "RescanInterval"},
		{&opts.StaleAfter, 10 * time.Second, "StaleAfter"},
		{&opts.RequestTimeout, 5 * time.Second, "RequestTimeout"},
	} {
		if *d.p < 0 {
			return nil, fmt.Errorf("loadsim: Options.%s is negative (%v): use 0 for the default %v", d.n, *d.p, d.def)
		}
		if *d.p == 0 {
			*d.p = d.def
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Sim{
		opts:     opts,
		clk:      opts.Clock,
		log:      opts.Logger,
		apps:     map[appKey]*app{},
		clusters: map[string]*clusterClient{},
	}, nil
}

// Run scans the clusters and ticks until ctx is done, then returns nil. It
// returns an error at once if the Sim is already running.
func (s *Sim) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return errors.New("loadsim: Run called while already running")
	}
	s.running = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()

	s.rescan(ctx)
	tick := s.clk.NewTicker(s.opts.TickInterval)
	defer tick.Stop()
	scan := s.clk.NewTicker(s.opts.RescanInterval)
	defer scan.Stop()
	s.tick(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-scan.C():
			s.rescan(ctx)
		case <-tick.C():
			s.tick(ctx)
		}
	}
}

// rescan refreshes the cluster clients from the source, reusing a client
// while its cluster's connection settings are unchanged.
func (s *Sim) rescan(ctx context.Context) {
	cfgs, err := s.opts.Clusters(ctx)
	now := s.clk.Now()
	next := make(map[string]*clusterClient, len(cfgs))
	var errs []error
	s.mu.RLock()
	old := s.clusters
	s.mu.RUnlock()
	for name, cfg := range cfgs {
		if cfg == nil {
			continue
		}
		fp := fingerprint(cfg)
		if c, ok := old[name]; ok && c.fingerprint == fp {
			next[name] = c
			continue
		}
		cfg = rest.CopyConfig(cfg)
		// One tick makes two requests per app; the client-go default of 5 QPS
		// would throttle a handful of apps.
		cfg.QPS, cfg.Burst = 500, 1000
		cs, cerr := kubernetes.NewForConfig(cfg)
		if cerr != nil {
			errs = append(errs, fmt.Errorf("cluster %q: create client: %w", name, cerr))
			continue
		}
		next[name] = &clusterClient{name: name, fingerprint: fp, client: cs}
	}
	if err != nil {
		errs = append([]error{err}, errs...)
	}
	err = errors.Join(errs...)
	if err != nil {
		s.log.Warn("loadsim: cluster scan", "err", err)
	}
	s.mu.Lock()
	s.clusters = next
	s.scanAt = now
	s.scanErr = ""
	if err != nil {
		s.scanErr = err.Error()
	}
	s.mu.Unlock()
}

// fingerprint identifies a cluster's connection settings without keeping them.
func fingerprint(c *rest.Config) [32]byte {
	h := sha256.New()
	for _, part := range [][]byte{
		[]byte(c.Host), []byte(c.APIPath), c.CAData, []byte(c.CAFile), c.CertData, []byte(c.CertFile),
		c.KeyData, []byte(c.KeyFile), []byte(c.BearerToken), []byte(c.BearerTokenFile),
		[]byte(c.Username), []byte(c.Password), []byte(c.ServerName), []byte(fmt.Sprint(c.Insecure)),
	} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// clusterResult is what one cluster said about one app in a tick.
type clusterResult struct {
	pods   []observedPod
	absent bool // no such Deployment in the cluster
	err    error
}

// tick observes every app's ready pods in every cluster, recomputes the
// model and integrates the counters over the time since the last tick. The
// rates found at a tick apply from it on (a load set through the API applies
// from the moment it is set), and a scrape between ticks reads the counters
// grown at the current rates up to its own time.
func (s *Sim) tick(ctx context.Context) {
	s.mu.RLock()
	keys := make([]appKey, 0, len(s.apps))
	for k := range s.apps {
		keys = append(keys, k)
	}
	clusters := make([]*clusterClient, 0, len(s.clusters))
	for _, c := range s.clusters {
		clusters = append(clusters, c)
	}
	s.mu.RUnlock()

	results := make([]map[appKey]clusterResult, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() {
			results[i] = s.observeCluster(ctx, c, keys)
		})
	}
	wg.Wait()

	now := s.clk.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tickAt = now
	for _, k := range keys {
		a, ok := s.apps[k]
		if !ok {
			continue // deleted while observing
		}
		byCluster := make(map[string]clusterResult, len(clusters))
		for i, c := range clusters {
			byCluster[c.name] = results[i][k]
		}
		s.update(a, byCluster, now)
	}
}

// observeCluster fetches each app's Deployment in one cluster and lists its
// Running, Ready, not terminating pods.
func (s *Sim) observeCluster(ctx context.Context, c *clusterClient, keys []appKey) map[appKey]clusterResult {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	out := make(map[appKey]clusterResult, len(keys))
	for _, k := range keys {
		pods, absent, err := observeApp(ctx, c.client, k)
		if err != nil {
			err = fmt.Errorf("cluster %q: app %s: %w", c.name, k, err)
		}
		out[k] = clusterResult{pods: pods, absent: absent, err: err}
	}
	return out
}

func observeApp(ctx context.Context, cs kubernetes.Interface, k appKey) (pods []observedPod, absent bool, err error) {
	dep, err := cs.AppsV1().Deployments(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("get deployment: %w", err)
	}
	if dep.Spec.Selector == nil {
		return nil, false, errors.New("deployment has no selector")
	}
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		return nil, false, fmt.Errorf("deployment selector: %w", err)
	}
	list, err := cs.CoreV1().Pods(k.namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, false, fmt.Errorf("list pods: %w", err)
	}
	for i := range list.Items {
		p := &list.Items[i]
		if ready(p) {
			var names []string
			for _, c := range p.Spec.Containers {
				names = append(names, c.Name)
			}
			pods = append(pods, observedPod{name: p.Name, res: podResources(p), labels: p.Labels, containers: names})
		}
	}
	return pods, false, nil
}

// ready reports whether p would receive traffic: Running, Ready=True and not
// terminating (endpoints stop routing to terminating pods).
func ready(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podResources sums CPU requests and limits and memory limits (MiB) over the
// pod's containers; a container without a CPU limit counts its request as its
// limit. A container runs with the resources the kubelet reports
// (status.containerStatuses[].resources, which lag the spec during an
// in-place resize), the spec's where none are reported.
func podResources(p *corev1.Pod) workload.PodResources {
	var r workload.PodResources
	for _, c := range p.Spec.Containers {
		res := c.Resources
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name == c.Name && cs.Resources != nil {
				res = *cs.Resources
			}
		}
		r.MemoryLimit += float64(res.Limits.Memory().Value()) / (1 << 20)
		req := res.Requests.Cpu().AsApproximateFloat64()
		lim := res.Limits.Cpu().AsApproximateFloat64()
		if lim == 0 {
			lim = req
		}
		r.Request += req
		r.Limit += lim
	}
	return r
}

// update applies one tick's observations to a. Caller holds s.mu.
func (s *Sim) update(a *app, byCluster map[string]clusterResult, now time.Time) {
	prevErr := a.clusterErr
	a.clusterErr = map[string]string{}
	var current []observedPod
	var owners []string
	for cluster, r := range byCluster {
		var pods []observedPod
		switch {
		case r.err != nil:
			a.clusterErr[cluster] = r.err.Error()
			if prevErr[cluster] != a.clusterErr[cluster] {
				s.log.Warn("loadsim: observe", "err", r.err) // once per new error, not every tick
			}
			if o, ok := a.seen[cluster]; ok && now.Sub(o.at) <= s.opts.StaleAfter {
				pods = o.pods
			}
		case r.absent:
			delete(a.seen, cluster)
		default:
			a.seen[cluster] = observation{pods: r.pods, at: now}
			pods = r.pods
		}
		for _, p := range pods {
			current = append(current, p)
			owners = append(owners, cluster)
		}
	}
	for cluster := range a.seen {
		if _, ok := byCluster[cluster]; !ok {
			delete(a.seen, cluster) // the cluster left the lab
		}
	}

	a.advance(now)
	next := make(map[podKey]*podState, len(current))
	for i, p := range current {
		k := podKey{cluster: owners[i], pod: p.name}
		ps, ok := a.pods[k]
		if !ok {
			ps = &podState{key: k, at: now}
		}
		ps.res = p.res
		ps.labels, ps.containers = p.labels, p.containers
		next[k] = ps
	}
	a.pods = next
	a.lastTick = now
	a.assign(now)
}

// advance integrates a's counters up to now at the rates they have had since
// the last change: counters grow continuously, and a change of pods or load
// applies from the moment it is seen, never to the time before it.
func (a *app) advance(now time.Time) {
	a.unserved = a.unservedAt(now)
	a.at = now
	for _, p := range a.pods {
		p.integrate(now)
	}
}

// unservedAt is the unserved counter grown at the current rate up to now.
func (a *app) unservedAt(now time.Time) float64 {
	if dt := now.Sub(a.at).Seconds(); !a.at.IsZero() && dt > 0 {
		return a.unserved + a.unassigned*dt
	}
	return a.unserved
}

// assign recomputes the offered load and its share on each of a's pods at
// now. Call advance first: the new rates apply from now on.
func (a *app) assign(now time.Time) {
	a.offered = a.loadAt(now)
	pods := make([]*podState, 0, len(a.pods))
	res := make([]workload.PodResources, 0, len(a.pods))
	for _, p := range a.pods {
		pods, res = append(pods, p), append(res, p.res)
	}
	loads := make([]workload.PodLoad, len(pods))
	a.unassigned = workload.ComputeMemory(a.offered, a.cpuPerRequest, a.memory, res, loads)
	for i, p := range pods {
		p.load = loads[i]
	}
}

// integrate adds the current rates times the time since they were last
// integrated.
func (p *podState) integrate(now time.Time) {
	dt := now.Sub(p.at).Seconds()
	p.at = now
	if dt <= 0 {
		return
	}
	l := &p.load
	p.cpuSeconds += l.CPU * dt
	p.served += l.Served * dt
	p.errors += l.Errors * dt
	p.count += l.Served * dt
	p.latencySum += l.Served * l.MeanLatency * dt
	for i := range p.bucketSum {
		p.bucketSum[i] += l.Buckets[i] * dt
	}
}

// loadAt is the offered load at now: the trace's step value when a trace is
// playing and has reached its first point, else the fixed load.
func (a *app) loadAt(now time.Time) float64 {
	if len(a.trace) > 0 {
		if v, ok := a.trace.At(now.Sub(a.traceStart).Seconds()); ok {
			return v
		}
	}
	return a.rps
}

// setLoad registers or replaces an app with a fixed load and no memory
// model, stopping any trace.
func (s *Sim) setLoad(k appKey, rps, cpuPerRequest float64) {
	s.setLoadMemory(k, rps, cpuPerRequest, workload.Memory{})
}

// setLoadMemory is setLoad with the app's memory model.
func (s *Sim) setLoadMemory(k appKey, rps, cpuPerRequest float64, mem workload.Memory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.getOrCreate(k)
	now := s.clk.Now()
	a.advance(now)
	a.rps = rps
	a.cpuPerRequest = cpuPerRequest
	a.memory = mem
	a.trace = nil
	a.assign(now)
}

// setTrace registers an app if needed and replays tr from now. cpuPerRequest
// 0 keeps the app's cost (or the default for a new app).
func (s *Sim) setTrace(k appKey, tr workload.Trace, cpuPerRequest float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.getOrCreate(k)
	now := s.clk.Now()
	a.advance(now)
	if cpuPerRequest > 0 {
		a.cpuPerRequest = cpuPerRequest
	}
	a.trace = tr
	a.traceStart = now
	a.assign(now)
}

func (s *Sim) getOrCreate(k appKey) *app {
	a, ok := s.apps[k]
	if !ok {
		a = &app{
			key:           k,
			cpuPerRequest: workload.DefaultCPUPerRequest,
			pods:          map[podKey]*podState{},
			seen:          map[string]observation{},
		}
		s.apps[k] = a
	}
	return a
}

func (s *Sim) deleteApp(k appKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.apps[k]
	delete(s.apps, k)
	return ok
}

// AppStatus is an app's state as the API reports it.
type AppStatus struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// RPS is the offered load now (req/s).
	RPS           float64 `json:"rps"`
	CPUPerRequest float64 `json:"cpuPerRequest"`
	// Trace is set while a trace is loaded.
	Trace *TraceStatus `json:"trace,omitempty"`
	// ReadyPods counts the pods sharing the load at the last tick.
	ReadyPods int `json:"readyPods"`
	// UnassignedRPS is load that had no ready pod at the last tick; it is
	// counted as 503 errors without a pod label.
	UnassignedRPS float64     `json:"unassignedRps"`
	Pods          []PodStatus `json:"pods"`
	// ClusterErrors holds the last tick's errors by cluster.
	ClusterErrors map[string]string `json:"clusterErrors,omitempty"`
	// ObservedAt is the time of the last tick that saw this app.
	ObservedAt *time.Time `json:"observedAt,omitempty"`
}

// TraceStatus describes a loaded trace's progress.
type TraceStatus struct {
	Points          int     `json:"points"`
	DurationSeconds float64 `json:"durationSeconds"`
	ElapsedSeconds  float64 `json:"elapsedSeconds"`
	Done            bool    `json:"done"`
}

// PodStatus is one ready pod's share of the load at the last tick.
type PodStatus struct {
	Cluster            string  `json:"cluster"`
	Pod                string  `json:"pod"`
	ShareRPS           float64 `json:"shareRps"`
	ServedRPS          float64 `json:"servedRps"`
	ErrorRPS           float64 `json:"errorRps"`
	CapacityRPS        float64 `json:"capacityRps"`
	CPUCores           float64 `json:"cpuCores"`
	CPURequestCores    float64 `json:"cpuRequestCores"`
	CPULimitCores      float64 `json:"cpuLimitCores"`
	Utilisation        float64 `json:"utilisation"`
	MeanLatencySeconds float64 `json:"meanLatencySeconds"`
	// MemoryMiB is the working set (0 without a memory model or limit).
	MemoryMiB      float64 `json:"memoryMiB,omitempty"`
	MemoryLimitMiB float64 `json:"memoryLimitMiB,omitempty"`
}

// Apps returns the status of every app, sorted by namespace and name.
func (s *Sim) Apps() []AppStatus {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.clk.Now()
	out := make([]AppStatus, 0, len(s.apps))
	for _, a := range s.apps {
		out = append(out, a.status(now))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// App returns one app's status; ok is false if it is not registered.
func (s *Sim) App(namespace, name string) (st AppStatus, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a, ok := s.apps[appKey{namespace, name}]
	if !ok {
		return AppStatus{}, false
	}
	return a.status(s.clk.Now()), true
}

func (a *app) status(now time.Time) AppStatus {
	st := AppStatus{
		Namespace:     a.key.namespace,
		Name:          a.key.name,
		RPS:           a.loadAt(now),
		CPUPerRequest: a.cpuPerRequest,
		ReadyPods:     len(a.pods),
		UnassignedRPS: a.unassigned,
		Pods:          make([]PodStatus, 0, len(a.pods)),
	}
	if len(a.trace) > 0 {
		el := now.Sub(a.traceStart).Seconds()
		st.Trace = &TraceStatus{
			Points:          len(a.trace),
			DurationSeconds: a.trace.Duration(),
			ElapsedSeconds:  el,
			Done:            el >= a.trace.Duration(),
		}
	}
	if !a.lastTick.IsZero() {
		t := a.lastTick
		st.ObservedAt = &t
	}
	if len(a.clusterErr) > 0 {
		st.ClusterErrors = make(map[string]string, len(a.clusterErr))
		for k, v := range a.clusterErr {
			st.ClusterErrors[k] = v
		}
	}
	for _, p := range a.pods {
		st.Pods = append(st.Pods, PodStatus{
			Cluster:            p.key.cluster,
			Pod:                p.key.pod,
			ShareRPS:           p.load.Share,
			ServedRPS:          p.load.Served,
			ErrorRPS:           p.load.Errors,
			CapacityRPS:        p.load.Capacity,
			CPUCores:           p.load.CPU,
			CPURequestCores:    p.res.Request,
			CPULimitCores:      p.res.EffectiveLimit(),
			Utilisation:        p.load.Utilisation,
			MeanLatencySeconds: p.load.MeanLatency,
			MemoryMiB:          p.load.Memory,
			MemoryLimitMiB:     p.res.MemoryLimit,
		})
	}
	sort.Slice(st.Pods, func(i, j int) bool {
		if st.Pods[i].Cluster != st.Pods[j].Cluster {
			return st.Pods[i].Cluster < st.Pods[j].Cluster
		}
		return st.Pods[i].Pod < st.Pods[j].Pod
	})
	return st
}

// Health is the simulator's own state for /healthz.
type Health struct {
	Status    string     `json:"status"`
	Running   bool       `json:"running"`
	Clusters  []string   `json:"clusters"`
	ScanError string     `json:"scanError,omitempty"`
	LastScan  *time.Time `json:"lastScan,omitempty"`
	LastTick  *time.Time `json:"lastTick,omitempty"`
	Apps      int        `json:"apps"`
}

func (s *Sim) health() Health {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := Health{Status: "ok", Running: s.running, ScanError: s.scanErr, Apps: len(s.apps), Clusters: []string{}}
	for name := range s.clusters {
		h.Clusters = append(h.Clusters, name)
	}
	sort.Strings(h.Clusters)
	if !s.scanAt.IsZero() {
		t := s.scanAt
		h.LastScan = &t
	}
	if !s.tickAt.IsZero() {
		t := s.tickAt
		h.LastTick = &t
	}
	return h
}
