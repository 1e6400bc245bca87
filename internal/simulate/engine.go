package simulate

import (
	"fmt"
	"math"
	"time"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// Epoch is the virtual time the simulation starts at (second 0 of the
// trace). Only differences matter; a fixed value keeps runs identical.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// ScheduleEpoch is the wall-clock time schedules (spec.schedules) read for
// second 0 of a trace: Monday 6 January 2025, 00:00 UTC, the start the
// reference traces assume (the week trace starts on a Monday at midnight,
// the diurnal one at midnight).
var ScheduleEpoch = time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)

// ControlIntervalFor is the decision interval the model gives algorithm:
// the model's, else policy.DecisionInterval (the HPA's sync period for
// kubernetes and frss, the KPA's tick for panic and adaptive), else 15 s.
func (m ClusterModel) ControlIntervalFor(algorithm string) time.Duration {
	if m.ControlInterval > 0 {
		return m.ControlInterval
	}
	if checkAlgorithmName(algorithm, "algorithm") == nil {
		return policy.DecisionInterval(hcav1.AlgorithmName(algorithm))
	}
	return 15 * time.Second
}

// Tick is one decision of the algorithm.
type Tick struct {
	// Second is the trace time of the decision.
	Second int
	// Current is the replica count before, Desired the one decided.
	Current, Desired int32
	Reason           string
	// Panicking is the panic algorithm's mode after the decision.
	Panicking bool
	// Compliance is the SLO output the decision acted on (SLO runs).
	Compliance int32
	// CPUMilli is the pods' CPU request decided (Vertical SLO strategy).
	CPUMilli int64
	// ForecastAt is the trace second the adaptive algorithm forecast the
	// load of (-1: no forecast); Forecast that load and Observed the load
	// it observed (the naive forecast).
	ForecastAt         int
	Forecast, Observed float64
}

// Series are per-second values; index i is trace second i.
type Series struct {
	Load   []float64
	Demand []int32
	// Desired is the total replica count the algorithm last decided.
	Desired []int32
	// Ready[c][i] and Scheduled[c][i] are the ready and the scheduled
	// (starting or ready) pods in cluster c (Result.Clusters order); in a
	// cluster with node groups a pod is scheduled once bound to a node.
	Ready, Scheduled [][]int32
	// Pending are pods the primary cluster could not schedule (yet).
	Pending []int32
	// MeanLatency and Latency are in seconds (+Inf without a ready pod):
	// the mean and the Result.LatencyPercentile-th percentile of the
	// response time, exact from the model's exponential distribution.
	MeanLatency, Latency []float64
	// Compliance is the SLO's last compliancePercent output (NaN before
	// the first, and for runs without an SLO).
	Compliance []float64
	// CPURequest is the pods' CPU request in effect, in cores (changes
	// only under a Vertical SLO strategy).
	CPURequest []float64
	// Errors is the requests that timed out in the backlog this second,
	// as a share of the second's offered load.
	Errors []float64
	// Backlog is the requests waiting at the end of the second.
	Backlog []float64
	// Nodes[c][i] and NodesReady[c][i] are the node-group nodes of cluster c
	// (ordered: booting or Ready) and the Ready ones; nil for a cluster
	// without node groups.
	Nodes, NodesReady [][]int32
	// Waiting[c][i] are the pods placed in cluster c that wait for a node
	// (Pending, Unschedulable); nil without node groups.
	Waiting [][]int32
}

// Result is one simulation run.
type Result struct {
	// Name labels the run (see Label); set by the caller.
	Name            string
	Algorithm       string
	Policy          Policy
	Model           ClusterModel
	Clusters        []string
	ControlInterval time.Duration
	// LatencyPercentile is the percentile of Series.Latency: the SLO's for
	// a latency SLO, else 95.
	LatencyPercentile float64
	Series            Series
	Ticks             []Tick
	Metrics           Metrics
}

type pod struct {
	id        int
	created   int // second scheduled (primary) or placed (burst)
	runningAt int // second its node is there (after a burst cluster's provisioning): Pending before
	readyAt   int
	// node is the id of the node-group node it is bound to (-1: none, or a
	// cluster without node groups).
	node int
}

type clusterState struct {
	spec ClusterSpec
	pods []pod
	// nodes are the node-group nodes (clusters with NodeGroups); surge the
	// replacements for replicas on noticed spot nodes, beyond the need.
	nodes []*simNode
	surge int32
	// req is one pod's requests (what a bound pod takes of its node).
	req capacity.Resources
}

// hasNodes reports whether c's nodes are modelled.
func (c *clusterState) hasNodes() bool { return len(c.spec.NodeGroups) > 0 }

// need is c's replica count without the spot surge.
func (c *clusterState) need() int32 { return int32(len(c.pods)) - c.surge }

// bound counts the pods bound to a node (all pods without node groups).
func (c *clusterState) bound() int32 {
	if !c.hasNodes() {
		return int32(len(c.pods))
	}
	var n int32
	for _, p := range c.pods {
		if p.node >= 0 {
			n++
		}
	}
	return n
}

func (c *clusterState) ready(t int) int32 {
	var n int32
	for _, p := range c.pods {
		if p.readyAt <= t {
			n++
		}
	}
	return n
}

// remove takes n pods away as the ReplicaSet controller picks them: pods
// without a node first, then not-ready ones, then those on a node under a
// spot notice (their deletion cost), then the newest.
func (c *clusterState) remove(n int32, t int) {
	noticed := map[int]bool{}
	for _, nd := range c.nodes {
		noticed[nd.id] = nd.noticed
	}
	for ; n > 0 && len(c.pods) > 0; n-- {
		best := -1
		for i, p := range c.pods {
			if best < 0 {
				best = i
				continue
			}
			b := c.pods[best]
			if pu, bu := p.node < 0 && c.hasNodes(), b.node < 0 && c.hasNodes(); pu != bu {
				if pu {
					best = i
				}
				continue
			}
			pNot, bNot := p.readyAt > t, b.readyAt > t
			if pNot != bNot {
				if pNot {
					best = i
				}
				continue
			}
			if pl, bl := p.node >= 0 && noticed[p.node], b.node >= 0 && noticed[b.node]; pl != bl {
				if pl {
					best = i
				}
				continue
			}
			if p.created > b.created || (p.created == b.created && p.id > b.id) {
				best = i
			}
		}
		if id := c.pods[best].node; id >= 0 {
			for _, nd := range c.nodes {
				if nd.id == id {
					nd.free = capacity.Resources{CPUMilli: nd.free.CPUMilli + c.req.CPUMilli, MemoryBytes: nd.free.MemoryBytes + c.req.MemoryBytes, Pods: nd.free.Pods + 1}
					nd.pods--
				}
			}
		}
		c.pods = append(c.pods[:best], c.pods[best+1:]...)
	}
}

// counters are the application's cumulative Prometheus counters (summed
// over the pods) that the SLO queries take rates of.
type counters struct {
	requests, errors, served, cpuSeconds float64
	buckets                              [workload.NumBuckets]float64
}

// scrape is what Prometheus stored at one scrape.
type scrape struct {
	at   int
	util float64 // pods' CPU utilisation, percent of request
	load float64 // offered requests/s
	ok   bool    // a pod was ready
	cum  counters
	// requestCores is the sum of the ready pods' CPU requests
	// (loadsim_cpu_request_cores); replicas the Deployment's spec.replicas.
	requestCores float64
	replicas     int32
	// podCPU and podMemGiB are one pod's requests (cost-efficiency).
	podCPU, podMemGiB float64
}

// Run simulates policy p on model m over trace tr: with p's algorithm, or,
// when p.SLO is set, with the SLO's control loop.
func Run(p Policy, m ClusterModel, tr workload.Trace) (*Result, error) {
	if len(tr) == 0 {
		return nil, inputErr("trace: no data lines")
	}
	if p.SLO != nil && p.SLO.Strategy != hcav1.StrategyBurst {
		p.Primary, p.BurstTargets = m.Primary().Name, nil
	}
	if err := m.CheckPolicy(p); err != nil {
		return nil, err
	}
	if p.floor > 0 && p.floor%time.Second != 0 {
		return nil, inputErr("reactive floor: control interval %v: use whole seconds", p.floor)
	}
	var (
		alg         scaling.Algorithm
		panicAlg    *scaling.Panic
		adaptiveAlg *scaling.Adaptive
		ctrl        time.Duration
		// metrics are the inputs of one decision: the one metric the
		// simulator models, decided through DecideMetrics as the runtime
		// decides over a policy's metrics (burstDecideMetrics).
		metrics [1]scaling.Input
	)
	switch {
	case p.floor > 0:
		ctrl = p.floor
	case p.SLO == nil:
		if !p.horizonSet {
			// The default horizons follow the model (as a policy naming
			// none should set them: see Policy.ReadyHorizon).
			p.adaptive.Horizon, p.adaptive.NodeHorizon = p.ReadyHorizon(m)
		}
		var err error
		if alg, err = p.NewAlgorithm(); err != nil {
			return nil, err
		}
		panicAlg, _ = alg.(*scaling.Panic)
		adaptiveAlg, _ = alg.(*scaling.Adaptive)
		ctrl = m.ControlIntervalFor(p.Algorithm)
		if adaptiveAlg != nil && len(p.history) > 0 {
			if err := warmFromHistory(adaptiveAlg, p.history); err != nil {
				return nil, err
			}
		}
	default:
		ctrl = p.SLO.Interval
	}
	ctrlS := int(ctrl / time.Second)
	scrapeS := int(m.ScrapeInterval / time.Second)
	staleS := int(m.MetricStaleness / time.Second)
	threshS := int(math.Ceil(p.PendingThreshold.Seconds()))
	startS := int(math.Ceil(m.Pod.StartupDelay.Seconds()))
	timeoutS := int(m.RequestTimeout / time.Second)
	if timeoutS < 1 {
		timeoutS = int(DefaultRequestTimeout / time.Second)
	}
	T := int(math.Ceil(tr.Duration())) + 1

	// Clusters: primary first, then the policy's burst targets in order.
	req := podResources(m.Pod)
	primary := &clusterState{spec: m.Primary(), req: req}
	clusters := []*clusterState{primary}
	for _, bt := range p.BurstTargets {
		spec, _ := m.Cluster(bt.Cluster)
		clusters = append(clusters, &clusterState{spec: spec, req: req})
	}
	res := &Result{Algorithm: p.Algorithm, Policy: p, Model: m, ControlInterval: ctrl, LatencyPercentile: p.LatencyPercentile()}
	for _, c := range clusters {
		res.Clusters = append(res.Clusters, c.spec.Name)
	}
	s := &res.Series
	s.Load = make([]float64, T)
	s.Demand = make([]int32, T)
	s.Desired = make([]int32, T)
	s.Pending = make([]int32, T)
	s.MeanLatency = make([]float64, T)
	s.Latency = make([]float64, T)
	s.Errors = make([]float64, T)
	s.Compliance = make([]float64, T)
	s.CPURequest = make([]float64, T)
	s.Backlog = make([]float64, T)
	s.Ready = make([][]int32, len(clusters))
	s.Scheduled = make([][]int32, len(clusters))
	s.Nodes = make([][]int32, len(clusters))
	s.NodesReady = make([][]int32, len(clusters))
	s.Waiting = make([][]int32, len(clusters))
	for i := range clusters {
		s.Ready[i] = make([]int32, T)
		s.Scheduled[i] = make([]int32, T)
		if clusters[i].hasNodes() {
			s.Nodes[i] = make([]int32, T)
			s.NodesReady[i] = make([]int32, T)
			s.Waiting[i] = make([]int32, T)
		}
	}

	// The pods' resources: the model's, changed by a Vertical strategy.
	// template is what the strategy reads and writes; the running pods get
	// it rollAt (a rolling update: the old pods serve until the new ones
	// are ready, a start-up delay later).
	podRes := workload.PodResources{Request: m.Pod.CPURequest, Limit: m.Pod.CPULimit}
	memGiB := m.Pod.MemoryGiB
	limitRatio := m.Pod.CPULimit / m.Pod.CPURequest
	template := slo.Resources{CPUMilli: int64(math.Round(m.Pod.CPURequest * 1000)), MemoryBytes: int64(math.Round(m.Pod.MemoryGiB * (1 << 30)))}
	rollAt, rollTo := -1, template

	podReq := scaling.PodRequests{CPUMilli: template.CPUMilli, MemoryBytes: template.MemoryBytes}
	hourly := func(c ClusterSpec) float64 { return podRes.Request*c.PricePerVCPUHour + memGiB*c.PricePerGiBHour }
	demand := demandFunc(p, m)
	nextID := 0
	podID := func() int { nextID++; return nextID - 1 }
	nodes := newNodeRun(p, m, req, startS, &res.Metrics, podID)
	for _, c := range clusters {
		if c.hasNodes() {
			nodes.start(c)
		}
	}
	var pending []int // second each pending pod became pending
	newPod := func(c *clusterState, t int) {
		if c.hasNodes() {
			// Pending until the scheduler binds it to a Ready node.
			c.pods = append(c.pods, pod{id: podID(), created: t, runningAt: never, readyAt: never, node: -1})
			return
		}
		prov := int(math.Ceil(c.spec.ProvisioningDelay.Seconds()))
		c.pods = append(c.pods, pod{id: podID(), created: t, runningAt: t + prov, readyAt: t + prov + startS, node: -1})
	}
	total := func() int32 {
		n := int32(len(pending))
		for _, c := range clusters {
			n += c.need()
		}
		return n
	}
	// Start warm: the trace's initial demand within [Min, Max], all ready,
	// in the primary (pending beyond its capacity, placed at second 0 like
	// any other deficit).
	load0, _ := tr.At(0)
	start := min(max(demand(load0), p.Min), p.Max)
	for i := int32(0); i < start; i++ {
		if primary.spec.CapacityPods == 0 || int32(len(primary.pods)) < primary.spec.CapacityPods {
			primary.pods = append(primary.pods, pod{id: podID(), created: -startS, runningAt: -startS, readyAt: 0, node: -1})
		} else {
			pending = append(pending, -threshS)
		}
	}
	desired := start
	// spare is how many of desired are the adaptive algorithm's headroom
	// (scaling.Decision.Headroom), placed where cheapest as the burst
	// controller does.
	var spare int32

	scrapes := make([]scrape, 0, T/max(scrapeS, 1)+1)
	var cum counters
	var bl backlog
	thr := m.SLOThreshold.Seconds()
	var pods []scaling.PodSample

	// SLO control loop state: the last output the strategy acted on (-1:
	// none), and the horizontal strategy's memory (runtime/controller
	// horizontalState) or the vertical one's last change.
	lastOut := int32(-1)
	var (
		history   []slo.Recommendation
		held      bool
		heldBase  int32
		retryAt   int
		lastScale time.Time
	)
	compliance := math.NaN()
	var burstTotal slo.BurstTotal

	// act applies one SLO output (out) to the strategy at second t; retry
	// is a held decision tried again for the same output.
	act := func(t int, now time.Time, out int32, retry bool) error {
		sl := p.SLO
		cur := total()
		tick := Tick{Second: t, Current: cur, Desired: cur, Compliance: out, CPUMilli: template.CPUMilli}
		switch sl.Strategy {
		case hcav1.StrategyHorizontal:
			base := cur
			if retry {
				base = heldBase
			}
			cfg := slo.HorizontalConfig{MinReplicas: max(sl.MinReplicas, 1), MaxReplicas: sl.MaxReplicas, Tolerance: sl.Tolerance, ScaleUpWindow: sl.UpWindow, ScaleDownWindow: sl.DownWindow}
			d, err := slo.Horizontal(now, base, float64(out), cfg, history)
			if err != nil {
				return inputErr("slo: %v", err)
			}
			history, heldBase, held = d.History, base, d.Stabilised
			if held {
				retryAt = t + int(retryAfter(sl.UpWindow, sl.DownWindow)/time.Second)
			}
			tick.Desired, tick.Reason = d.Desired, d.Reason
		case hcav1.StrategyVertical:
			d, err := slo.Vertical(now, template, float64(out), lastScale, sl.Vertical)
			if err != nil {
				return inputErr("slo: %v", err)
			}
			held = d.Stabilised
			if held {
				w := sl.Vertical.ScaleDownWindow
				if d.Direction == slo.ScaleUp {
					w = sl.Vertical.ScaleUpWindow
				}
				retryAt = t + max(int(math.Ceil(lastScale.Add(w).Sub(now).Seconds())), 1)
			}
			if d.Resources != template {
				template, lastScale = d.Resources, now
				rollAt, rollTo = t+startS, template
			}
			tick.CPUMilli, tick.Reason = template.CPUMilli, d.Reason
		default: // Burst: the burst controller's burstTotals.fromSLO, the same slo.BurstTotal.
			d, err := burstTotal.Apply(now, cur, float64(out), burstConfig(p))
			if err != nil {
				return inputErr("slo: %v", err)
			}
			tick.Desired, tick.Reason = d.Desired, d.Reason
		}
		res.Ticks = append(res.Ticks, tick)
		desired = tick.Desired
		return apply(p, clusters, &pending, tick.Desired, cur, t, podReq, newPod, nodes)
	}

	for t := 0; t < T; t++ {
		now := Epoch.Add(time.Duration(t) * time.Second)
		load, _ := tr.At(float64(t))
		if t == rollAt {
			podRes = workload.PodResources{Request: float64(rollTo.CPUMilli) / 1000, Limit: float64(rollTo.CPUMilli) / 1000 * limitRatio}
			memGiB = float64(rollTo.MemoryBytes) / (1 << 30)
		}

		// 1. The control loop decides and its decision is applied.
		if p.SLO != nil {
			if t > 0 && t%ctrlS == 0 {
				// The SLO controller evaluates over the scrapes of the last
				// minute it can see.
				ev, ok := sloMeasure(p, m, scrapes, t-1-staleS)
				if ok {
					if r, err := slo.Evaluate(p.SLO.Objective, ev); err == nil {
						out := compliancePercent(r.Compliance)
						compliance = float64(out)
						// A new output changes the strategy's generation: the
						// strategy acts once on it. A Burst strategy with a
						// window gets every evaluation (slo.EveryEvaluationIsOutput).
						if out != lastOut || p.SLO.Strategy == hcav1.StrategyBurst && slo.EveryEvaluationIsOutput(p.SLO.UpWindow, p.SLO.DownWindow) {
							lastOut = out
							if err := act(t, now, out, false); err != nil {
								return nil, err
							}
						}
					}
				}
			}
			if held && t >= retryAt && lastOut >= 0 && (len(res.Ticks) == 0 || res.Ticks[len(res.Ticks)-1].Second != t) {
				if err := act(t, now, lastOut, true); err != nil {
					return nil, err
				}
			}
		} else if t > 0 && t%ctrlS == 0 {
			// The latest scrape the algorithm can see.
			var sc *scrape
			for i := len(scrapes) - 1; i >= 0; i-- {
				if scrapes[i].at <= t-1-staleS {
					sc = &scrapes[i]
					break
				}
			}
			if sc != nil {
				cur := total()
				var d scaling.Decision
				if p.floor > 0 {
					// The reactive floor: the demand of the load it sees.
					d.Desired = min(max(demand(sc.load), p.Min), p.Max)
					d.Reason = "reactive floor: demand of the scraped load"
				} else {
					in := scaling.Input{Now: now, Current: cur, Min: p.Min, Max: p.Max, Target: p.Target}
					if adaptiveAlg != nil {
						r := room(clusters, pending, nodes, t)
						in.Room = &r
					}
					if p.Metric == MetricRequestRate {
						v := sc.load
						in.External = &v
					} else {
						// A pod without a node yet is Pending; one starting
						// runs, not Ready, with no sample (it served nothing
						// at the scrape).
						pods = pods[:0]
						for _, c := range clusters {
							for _, q := range c.pods {
								pods = append(pods, scaling.PodSample{Ready: q.readyAt <= t, Pending: q.runningAt > t, Missing: !sc.ok || q.readyAt > sc.at, Value: sc.util})
							}
						}
						for range pending {
							pods = append(pods, scaling.PodSample{Pending: true, Missing: true})
						}
						in.Pods = pods
					}
					metrics[0] = in
					d = alg.DecideMetrics(metrics[:])
					if p.schedule != nil {
						// The runtime's hook (burstScheduleFloor): raise to
						// the windows' floor, ahead by the lead time.
						f := p.schedule.Floor(ScheduleEpoch.Add(time.Duration(t)*time.Second), p.scheduleLead())
						if v, raised, why := scaling.RaiseToFloor(d.Desired, true, cur, p.Max, f); raised {
							d.Desired, d.Reason = v, d.Reason+"; "+why
						}
					}
				}
				tick := Tick{Second: t, Current: cur, Desired: d.Desired, Reason: d.Reason, ForecastAt: -1}
				if panicAlg != nil {
					tick.Panicking = panicAlg.Panicking()
				}
				if adaptiveAlg != nil {
					if f := adaptiveAlg.LastForecast(); !f.At.IsZero() {
						tick.ForecastAt = int(f.At.Sub(Epoch) / time.Second)
						tick.Forecast, tick.Observed = f.Load, f.Observed
					}
				}
				res.Ticks = append(res.Ticks, tick)
				desired, spare = d.Desired, min(d.Headroom, d.Desired)
				if err := apply(p, clusters, &pending, d.Desired, cur, t, podReq, newPod, nodes); err != nil {
					return nil, err
				}
			}
		}

		// 2. The burst controller places pods pending past the threshold.
		if n := countWaiting(pending, t, threshS); n > 0 && len(clusters) > 1 {
			targets := burstTargets(p, clusters, podReq, nodes, t)
			pl, err := scaling.PlaceWithHeadroom(n, spare, podReq, targets, p.Placement)
			if err != nil {
				return nil, fmt.Errorf("place %d pods: %w", n, err)
			}
			for _, a := range pl.Assignments {
				for _, c := range clusters[1:] {
					if c.spec.Name == a.Target {
						for k := int32(0); k < a.Replicas; k++ {
							newPod(c, t)
						}
					}
				}
			}
			// The placed pods leave the primary's pending list, oldest first.
			pending = pending[pl.Placed():]
		}

		// 2b. Burst clusters with node groups: spot notices, the scheduler
		// and the capacity controller's rounds.
		for _, c := range clusters[1:] {
			if c.hasNodes() {
				if err := nodes.step(c, t); err != nil {
					return nil, err
				}
			}
		}

		// 3. The ready pods serve the second's load (loadsim's model; the
		// load balancer spreads it evenly over all ready pods).
		var ready int32
		for i, c := range clusters {
			r := c.ready(t)
			ready += r
			s.Ready[i][t] = r
			s.Scheduled[i][t] = c.bound()
			h := float64(s.Scheduled[i][t]) / 3600
			res.Metrics.PodHours += h
			if c.hasNodes() {
				// Nodes are paid from the order to the release, full or not.
				n, nr, dollars := nodes.second(c, t)
				s.Nodes[i][t], s.NodesReady[i][t] = n, nr
				s.Waiting[i][t] = int32(len(c.pods)) - s.Scheduled[i][t]
				res.Metrics.NodeHours += float64(n) / 3600
				res.Metrics.Cost += dollars
			} else {
				res.Metrics.Cost += h * hourly(c.spec)
			}
			if i > 0 {
				res.Metrics.burstHours += h
			}
		}
		if spare > 0 {
			// What the spare replicas cost this second, priced where the
			// burst controller keeps them (status.headroom.costPerHour).
			hc, err := headroomCost(spare, podReq, clusters)
			if err != nil {
				return nil, fmt.Errorf("price the headroom at second %d: %w", t, err)
			}
			res.Metrics.HeadroomCost += hc / 3600
		}
		s.Load[t] = load
		s.Demand[t] = demand(load)
		s.Desired[t] = desired
		s.Pending[t] = int32(len(pending))
		s.Compliance[t] = compliance
		s.CPURequest[t] = podRes.Request
		q := res.LatencyPercentile / 100
		var util float64
		cum.requests += load
		sv := bl.serve(t, load, ready, m.Pod.CPUPerRequest, podRes, thr, q)
		util = sv.util
		s.MeanLatency[t], s.Latency[t] = sv.meanLatency, sv.latency
		timedOut := bl.expire(t, timeoutS)
		res.Metrics.addSecond(load, sv.served, timedOut, sv.slow, sv.latencySum)
		if load > 0 {
			s.Errors[t] = timedOut / load
		}
		s.Backlog[t] = bl.total()
		cum.errors += timedOut
		cum.served += sv.served
		cum.cpuSeconds += sv.cpu
		for b := range cum.buckets {
			cum.buckets[b] += sv.buckets[b]
		}

		// 4. Prometheus scrapes.
		if t%scrapeS == 0 {
			scrapes = append(scrapes, scrape{at: t, util: util, load: load, ok: ready > 0, cum: cum,
				requestCores: float64(ready) * podRes.Request, replicas: total(), podCPU: podRes.Request, podMemGiB: memGiB})
		}
	}
	// Requests still waiting at the end were late.
	res.Metrics.slow += bl.total()
	res.Metrics.compute(res)
	return res, nil
}

// sloMeasure is what the SLO controller's queries return at second at
// (the latest scrape at or before it): rates over the scrapes within the
// minute before, as Prometheus' rate() over [1m] (its extrapolation scales
// every rate by the same factor, so the ratios here are unaffected). ok is
// false with fewer than two scrapes in the window (no data: the controller
// holds).
func sloMeasure(p Policy, m ClusterModel, scrapes []scrape, at int) (slo.Measurement, bool) {
	last := -1
	for i := len(scrapes) - 1; i >= 0; i-- {
		if scrapes[i].at <= at {
			last = i
			break
		}
	}
	if last < 0 {
		return slo.Measurement{}, false
	}
	s1 := scrapes[last]
	first := last
	for first > 0 && scrapes[first-1].at > s1.at-int(sloWindow/time.Second) {
		first--
	}
	if first == last {
		return slo.Measurement{}, false
	}
	s0 := scrapes[first]
	dt := float64(s1.at - s0.at)
	d := func(a, b float64) float64 { return (a - b) / dt }
	ms := slo.Measurement{Observed: true}
	switch p.SLO.Type {
	case hcav1.SLOCPUUtilization:
		// sum(rate(cpu)) / sum(request) x 100; 0/0 is NaN, which Evaluate
		// treats as no data.
		ms.Value = d(s1.cum.cpuSeconds, s0.cum.cpuSeconds) / s1.requestCores * 100
	case hcav1.SLOLatency:
		var cum [workload.NumBuckets]float64
		for b := range cum {
			cum[b] = d(s1.cum.buckets[b], s0.cum.buckets[b])
		}
		ms.Value = workload.HistogramQuantile(p.SLO.Objective.Percentile/100, workload.Buckets[:], cum[:], d(s1.cum.served, s0.cum.served))
	case hcav1.SLOAvailability:
		ms.RequestsPerSecond = d(s1.cum.requests, s0.cum.requests)
		ms.ErrorsPerSecond = d(s1.cum.errors, s0.cum.errors)
	case hcav1.SLOCostEfficiency:
		ms.RequestsPerSecond = d(s1.cum.served, s0.cum.served)
		ms.FastRequestsPerSecond = d(s1.cum.buckets[p.SLO.fastBucket], s0.cum.buckets[p.SLO.fastBucket])
		// The controller's costPerHour: spec.replicas x the pod template's
		// requests x the primary cluster's prices.
		pr := m.Primary()
		ms.CostPerHour = float64(s1.replicas) * (s1.podCPU*pr.PricePerVCPUHour + s1.podMemGiB*pr.PricePerGiBHour)
	}
	return ms, true
}

// perPodRate is the requests/s one pod serves at the metric's target.
func perPodRate(p Policy, m ClusterModel) float64 {
	if p.Metric == MetricRequestRate {
		return p.Target
	}
	return m.Pod.CPURequest * p.Target / 100 / m.Pod.CPUPerRequest
}

// demandFunc returns the demand d(load) in pods. For a burst policy it is
// ceil(load / perPod), perPod being the requests/s one pod serves at the
// metric's target. For an SLO it is the fewest ready pods (of the model's
// pod resources) that would meet the SLO (compliance <= 100 from
// slo.Evaluate) in loadsim's steady state, with the latency percentile
// exact from the model's exponential response-time distribution.
func demandFunc(p Policy, m ClusterModel) func(float64) int32 {
	if p.SLO == nil {
		perPod := perPodRate(p, m)
		return func(load float64) int32 { return demandPods(load, perPod) }
	}
	cache := map[float64]int32{}
	res := []workload.PodResources{{Request: m.Pod.CPURequest, Limit: m.Pod.CPULimit}}
	var out [1]workload.PodLoad
	hourly := m.HourlyPrice(m.Primary())
	met := func(load float64, n int32) bool {
		workload.Compute(load/float64(n), m.Pod.CPUPerRequest, res, out[:])
		pl, k := out[0], float64(n)
		ms := slo.Measurement{Observed: true}
		switch p.SLO.Type {
		case hcav1.SLOCPUUtilization:
			ms.Value = pl.Utilisation * 100
		case hcav1.SLOLatency:
			ms.Value = pl.MeanLatency * -math.Log1p(-p.SLO.Objective.Percentile/100)
		case hcav1.SLOAvailability:
			ms.RequestsPerSecond, ms.ErrorsPerSecond = load, pl.Errors*k
		case hcav1.SLOCostEfficiency:
			ms.RequestsPerSecond, ms.FastRequestsPerSecond, ms.CostPerHour = pl.Served*k, pl.Buckets[p.SLO.fastBucket]*k, k*hourly
		}
		r, err := slo.Evaluate(p.SLO.Objective, ms)
		return err == nil && r.Compliance <= 100
	}
	return func(load float64) int32 {
		if load <= 0 {
			return 0
		}
		if v, ok := cache[load]; ok {
			return v
		}
		hi := int32(1)
		for !met(load, hi) && hi < 1<<20 {
			hi *= 2
		}
		lo := hi/2 + 1
		if hi == 1 {
			lo = 1
		}
		for lo < hi {
			mid := lo + (hi-lo)/2
			if met(load, mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		cache[load] = hi
		return hi
	}
}

// demandPods is the fewest pods that keep the load per pod at or under the
// target: ceil(load / perPod).
func demandPods(load, perPod float64) int32 {
	if load <= 0 {
		return 0
	}
	return int32(math.Ceil(load/perPod - 1e-9))
}

// room is how many replicas beyond the current ones start at t without
// waiting for a node (scaling.Input.Room): the primary's free room, the
// free pod slots of the burst clusters' Ready nodes (without a spot
// notice) and the free room of burst clusters without node groups or
// provisioning delay, less the pods waiting for a place (pending, and
// burst pods not bound to a node). Unlimited room counts as MaxInt32.
func room(clusters []*clusterState, pending []int, nodes *nodeRun, t int) int32 {
	const unlimited = int64(math.MaxInt32)
	var n, waiting int64
	waiting = int64(len(pending))
	for i, c := range clusters {
		switch {
		case c.hasNodes():
			for _, nd := range c.nodes {
				if nd.ready(t) && !nd.noticed {
					n += capacity.PerNode(capacity.Group{Allocatable: nd.free}, nodes.req) // what its free room holds
				}
			}
			waiting += int64(int32(len(c.pods)) - c.bound())
		case i > 0 && c.spec.ProvisioningDelay > 0:
		case c.spec.CapacityPods > 0:
			n += int64(max(c.spec.CapacityPods-int32(len(c.pods)), 0))
		default:
			n += unlimited
		}
	}
	return int32(min(max(n-waiting, 0), unlimited))
}

func countWaiting(pending []int, t, thresh int) int32 {
	var n int32
	for _, since := range pending {
		if t-since >= thresh {
			n++
		}
	}
	return n
}

func burstTargets(p Policy, clusters []*clusterState, req scaling.PodRequests, nodes *nodeRun, t int) []scaling.BurstTarget {
	const unlimited = int64(1) << 50
	out := make([]scaling.BurstTarget, 0, len(clusters)-1)
	for i, c := range clusters[1:] {
		bt := p.BurstTargets[i]
		free, freeMem := unlimited, unlimited
		var grow, growMem int64
		switch {
		case c.hasNodes():
			free, freeMem, grow, growMem = nodes.free(c, t)
		case c.spec.CapacityPods > 0:
			free = int64(c.spec.CapacityPods-int32(len(c.pods))) * req.CPUMilli
		}
		out = append(out, scaling.BurstTarget{
			Name: c.spec.Name, Priority: c.spec.Priority, Weight: bt.Weight, MaxReplicas: bt.MaxReplicas,
			Current: c.need(), Reachable: true, FreeCPUMilli: free, FreeMemoryBytes: freeMem,
			GrowCPUMilli: grow, GrowMemoryBytes: growMem,
			PricePerVCPUHour: c.spec.PricePerVCPUHour, PricePerGiBHour: c.spec.PricePerGiBHour,
		})
	}
	return out
}

// headroomCost is the hourly cost of spare replicas of the count as the
// runtime's status shows it (scaling.HeadroomCost): counted in the burst
// clusters first, cheapest per pod-hour first, up to the replicas each
// runs, the rest in the primary, each at its cluster's per-pod price.
func headroomCost(spare int32, req scaling.PodRequests, clusters []*clusterState) (float64, error) {
	primary := clusters[0]
	burst := make([]scaling.BurstTarget, 0, len(clusters)-1)
	for _, c := range clusters[1:] {
		burst = append(burst, scaling.BurstTarget{Name: c.spec.Name, Current: c.need(), Reachable: true,
			PricePerVCPUHour: c.spec.PricePerVCPUHour, PricePerGiBHour: c.spec.PricePerGiBHour})
	}
	prices := scaling.BurstTarget{PricePerVCPUHour: primary.spec.PricePerVCPUHour, PricePerGiBHour: primary.spec.PricePerGiBHour}
	hs, err := scaling.HeadroomCost(spare, req, primary.spec.Name, primary.need(), prices, burst)
	if err != nil {
		return 0, err
	}
	return hs.CostPerHour, nil
}

// apply makes the replica count desired: new pods go to the primary while
// it has room and wait as pending beyond; removals take pending pods first,
// then follow scaling.ScaleBack (burst clusters, most expensive first,
// primary last).
func apply(p Policy, clusters []*clusterState, pending *[]int, desired, cur int32, t int, req scaling.PodRequests, newPod func(*clusterState, int), nodes *nodeRun) error {
	primary := clusters[0]
	switch {
	case desired > cur:
		add := desired - cur
		for ; add > 0; add-- {
			if primary.spec.CapacityPods == 0 || int32(len(primary.pods)) < primary.spec.CapacityPods {
				newPod(primary, t)
			} else {
				*pending = append(*pending, t)
			}
		}
	case desired < cur:
		excess := cur - desired
		// Pending pods first, newest first.
		k := min(excess, int32(len(*pending)))
		*pending = (*pending)[:int32(len(*pending))-k]
		excess -= k
		if excess == 0 {
			return nil
		}
		targets := burstTargets(p, clusters, req, nodes, t)
		plan, err := scaling.ScaleBack(excess, req, primary.spec.Name, int32(len(primary.pods)), targets)
		if err != nil {
			return fmt.Errorf("scale back %d pods: %w", excess, err)
		}
		for _, r := range plan.Reductions {
			for _, c := range clusters {
				if c.spec.Name == r.Cluster {
					c.remove(r.Replicas, t)
				}
			}
		}
	}
	return nil
}

// burstConfig is what the Burst strategy of p's SLO decides with: the
// policy's bounds, the SLO's tolerance and windows (as the burst controller
// builds it from a BurstElasticityStrategy).
func burstConfig(p Policy) slo.HorizontalConfig {
	return slo.HorizontalConfig{MinReplicas: max(p.Min, 1), MaxReplicas: max(p.Max, max(p.Min, 1)), Tolerance: p.SLO.Tolerance,
		ScaleUpWindow: p.SLO.UpWindow, ScaleDownWindow: p.SLO.DownWindow}
}

// warmFromHistory warms a with the load of history (the span before second
// 0, ending at it) over a's HistoryWindow at its step, the samples a
// Prometheus query_range would return.
func warmFromHistory(a *scaling.Adaptive, history workload.Trace) error {
	window, step := a.HistoryWindow()
	end := history.Duration()
	var ts []time.Time
	var vs []float64
	for d := -window; d <= 0; d += step {
		sec := end + d.Seconds()
		if sec < 0 {
			continue
		}
		v, _ := history.At(sec)
		ts = append(ts, Epoch.Add(d))
		vs = append(vs, v)
	}
	if err := a.Warm(ts, vs, Epoch); err != nil {
		return inputErr("history: %v", err)
	}
	return nil
}
