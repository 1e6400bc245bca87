package simulate

import (
	"fmt"
	"math"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/loadsim"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// Epoch is the virtual time the simulation starts at (second 0 of the
// trace). Only differences matter; a fixed value keeps runs identical.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Default control intervals per algorithm: the HPA's sync period for
// kubernetes (and frss, which runs in the same loop), the KPA's tick for
// panic.
var defaultControlInterval = map[string]time.Duration{
	"kubernetes": 15 * time.Second,
	"frss":       15 * time.Second,
	"panic":      2 * time.Second,
}

// ControlIntervalFor is the decision interval the model gives algorithm.
func (m ClusterModel) ControlIntervalFor(algorithm string) time.Duration {
	if m.ControlInterval > 0 {
		return m.ControlInterval
	}
	if d, ok := defaultControlInterval[algorithm]; ok {
		return d
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
}

// Series are per-second values; index i is trace second i.
type Series struct {
	Load   []float64
	Demand []int32
	// Desired is the total replica count the algorithm last decided.
	Desired []int32
	// Ready[c][i] and Scheduled[c][i] are the ready and the scheduled
	// (starting or ready) pods in cluster c (Result.Clusters order).
	Ready, Scheduled [][]int32
	// Pending are pods the primary cluster could not schedule (yet).
	Pending []int32
	// MeanLatency and P95Latency are in seconds (+Inf without a ready pod).
	MeanLatency, P95Latency []float64
	// Errors is the share of the second's requests answered with 503.
	Errors []float64
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
	Series          Series
	Ticks           []Tick
	Metrics         Metrics
}

type pod struct {
	id      int
	created int // second scheduled (primary) or placed (burst)
	readyAt int
}

type clusterState struct {
	spec ClusterSpec
	pods []pod
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

// remove takes n pods away: not-ready ones first, then the newest.
func (c *clusterState) remove(n int32, t int) {
	for ; n > 0 && len(c.pods) > 0; n-- {
		best := -1
		for i, p := range c.pods {
			if best < 0 {
				best = i
				continue
			}
			b := c.pods[best]
			pNot, bNot := p.readyAt > t, b.readyAt > t
			if pNot != bNot {
				if pNot {
					best = i
				}
				continue
			}
			if p.created > b.created || (p.created == b.created && p.id > b.id) {
				best = i
			}
		}
		c.pods = append(c.pods[:best], c.pods[best+1:]...)
	}
}

// Run simulates policy p on model m over trace tr, with p's algorithm.
func Run(p Policy, m ClusterModel, tr loadsim.Trace) (*Result, error) {
	if len(tr) == 0 {
		return nil, inputErr("trace: no data lines")
	}
	if err := m.CheckPolicy(p); err != nil {
		return nil, err
	}
	alg, err := p.NewAlgorithm()
	if err != nil {
		return nil, err
	}
	panicAlg, _ := alg.(*scaling.Panic)
	ctrl := m.ControlIntervalFor(p.Algorithm)
	ctrlS := int(ctrl / time.Second)
	scrapeS := int(m.ScrapeInterval / time.Second)
	staleS := int(m.MetricStaleness / time.Second)
	threshS := int(math.Ceil(p.PendingThreshold.Seconds()))
	startS := int(math.Ceil(m.Pod.StartupDelay.Seconds()))
	T := int(math.Ceil(tr.Duration())) + 1

	// Clusters: primary first, then the policy's burst targets in order.
	primary := &clusterState{spec: m.Primary()}
	clusters := []*clusterState{primary}
	for _, bt := range p.BurstTargets {
		spec, _ := m.Cluster(bt.Cluster)
		clusters = append(clusters, &clusterState{spec: spec})
	}
	res := &Result{Algorithm: p.Algorithm, Policy: p, Model: m, ControlInterval: ctrl}
	for _, c := range clusters {
		res.Clusters = append(res.Clusters, c.spec.Name)
	}
	s := &res.Series
	s.Load = make([]float64, T)
	s.Demand = make([]int32, T)
	s.Desired = make([]int32, T)
	s.Pending = make([]int32, T)
	s.MeanLatency = make([]float64, T)
	s.P95Latency = make([]float64, T)
	s.Errors = make([]float64, T)
	s.Ready = make([][]int32, len(clusters))
	s.Scheduled = make([][]int32, len(clusters))
	for i := range clusters {
		s.Ready[i] = make([]int32, T)
		s.Scheduled[i] = make([]int32, T)
	}

	podReq := scaling.PodRequests{CPUMilli: int64(math.Round(m.Pod.CPURequest * 1000)), MemoryBytes: int64(math.Round(m.Pod.MemoryGiB * (1 << 30)))}
	res.Metrics.podHourly = make([]float64, len(clusters))
	for i, c := range clusters {
		res.Metrics.podHourly[i] = m.HourlyPrice(c.spec)
	}
	perPod := perPodRate(p, m)
	nextID := 0
	var pending []int // second each pending pod became pending
	newPod := func(c *clusterState, t int) {
		delay := startS + int(math.Ceil(c.spec.ProvisioningDelay.Seconds()))
		c.pods = append(c.pods, pod{id: nextID, created: t, readyAt: t + delay})
		nextID++
	}
	total := func() int32 {
		n := int32(len(pending))
		for _, c := range clusters {
			n += int32(len(c.pods))
		}
		return n
	}
	// Start warm: the trace's initial demand within [Min, Max], all ready,
	// in the primary (pending beyond its capacity, placed at second 0 like
	// any other deficit).
	load0, _ := tr.At(0)
	start := min(max(demandPods(load0, perPodRate(p, m)), p.Min), p.Max)
	for i := int32(0); i < start; i++ {
		if primary.spec.CapacityPods == 0 || int32(len(primary.pods)) < primary.spec.CapacityPods {
			primary.pods = append(primary.pods, pod{id: nextID, created: -startS, readyAt: 0})
			nextID++
		} else {
			pending = append(pending, -threshS)
		}
	}
	desired := start

	// Scrapes: the utilisation (percent of request) and the load seen at
	// the last scrape; -1 before the first.
	type scrape struct {
		at   int
		util float64
		load float64
		ok   bool
	}
	scrapes := make([]scrape, 0, T/max(scrapeS, 1)+1)
	var out [1]loadsim.PodLoad
	res_ := loadsim.PodResources{Request: m.Pod.CPURequest, Limit: m.Pod.CPULimit}
	thr := m.SLOThreshold.Seconds()
	var pods []scaling.PodSample

	for t := 0; t < T; t++ {
		now := Epoch.Add(time.Duration(t) * time.Second)
		load, _ := tr.At(float64(t))

		// 1. The control loop decides and its decision is applied.
		if t > 0 && t%ctrlS == 0 {
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
				in := scaling.Input{Now: now, Current: cur, Min: p.Min, Max: p.Max, Target: p.Target}
				if p.Metric == MetricRequestRate {
					v := sc.load
					in.External = &v
				} else {
					pods = pods[:0]
					for _, c := range clusters {
						for _, q := range c.pods {
							ready := q.readyAt <= t
							pods = append(pods, scaling.PodSample{Ready: ready, Missing: !sc.ok || q.readyAt > sc.at, Value: sc.util})
						}
					}
					for range pending {
						pods = append(pods, scaling.PodSample{})
					}
					in.Pods = pods
				}
				d := alg.Decide(in)
				tick := Tick{Second: t, Current: cur, Desired: d.Desired, Reason: d.Reason}
				if panicAlg != nil {
					tick.Panicking = panicAlg.Panicking()
				}
				res.Ticks = append(res.Ticks, tick)
				desired = d.Desired
				if err := apply(p, clusters, &pending, d.Desired, cur, t, podReq, newPod); err != nil {
					return nil, err
				}
			}
		}

		// 2. The burst controller places pods pending past the threshold.
		if n := countWaiting(pending, t, threshS); n > 0 {
			targets := burstTargets(p, clusters, podReq)
			pl, err := scaling.Place(n, podReq, targets, p.Placement)
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

		// 3. The ready pods serve the second's load (loadsim's model; the
		// load balancer spreads it evenly over all ready pods).
		var ready int32
		for i, c := range clusters {
			r := c.ready(t)
			ready += r
			s.Ready[i][t] = r
			s.Scheduled[i][t] = int32(len(c.pods))
		}
		s.Load[t] = load
		s.Demand[t] = demandPods(load, perPod)
		s.Desired[t] = desired
		s.Pending[t] = int32(len(pending))
		var util float64
		if ready > 0 {
			loadsim.Compute(load/float64(ready), m.Pod.CPUPerRequest, []loadsim.PodResources{res_}, out[:])
			pl := out[0]
			util = pl.Utilisation * 100
			s.MeanLatency[t] = pl.MeanLatency
			s.P95Latency[t] = pl.MeanLatency * math.Log(20)
			served, errs := pl.Served*float64(ready), pl.Errors*float64(ready)
			slow := served * math.Exp(-thr/pl.MeanLatency)
			res.Metrics.addSecond(load, served, errs, slow, pl.MeanLatency)
			if load > 0 {
				s.Errors[t] = errs / load
			}
		} else {
			s.MeanLatency[t] = math.Inf(1)
			s.P95Latency[t] = math.Inf(1)
			res.Metrics.addSecond(load, 0, load, 0, 0)
			if load > 0 {
				s.Errors[t] = 1
			}
		}

		// 4. Prometheus scrapes.
		if t%scrapeS == 0 {
			scrapes = append(scrapes, scrape{at: t, util: util, load: load, ok: ready > 0})
		}
	}
	res.Metrics.compute(res)
	return res, nil
}

// perPodRate is the requests/s one pod serves at the metric's target.
func perPodRate(p Policy, m ClusterModel) float64 {
	if p.Metric == MetricRequestRate {
		return p.Target
	}
	return m.Pod.CPURequest * p.Target / 100 / m.Pod.CPUPerRequest
}

// demandPods is the fewest pods that keep the load per pod at or under the
// target: ceil(load / perPod).
func demandPods(load, perPod float64) int32 {
	if load <= 0 {
		return 0
	}
	return int32(math.Ceil(load/perPod - 1e-9))
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

func burstTargets(p Policy, clusters []*clusterState, req scaling.PodRequests) []scaling.BurstTarget {
	const unlimited = int64(1) << 50
	out := make([]scaling.BurstTarget, 0, len(clusters)-1)
	for i, c := range clusters[1:] {
		bt := p.BurstTargets[i]
		free := unlimited
		if c.spec.CapacityPods > 0 {
			free = int64(c.spec.CapacityPods-int32(len(c.pods))) * req.CPUMilli
		}
		out = append(out, scaling.BurstTarget{
			Name: c.spec.Name, Priority: c.spec.Priority, Weight: bt.Weight, MaxReplicas: bt.MaxReplicas,
			Current: int32(len(c.pods)), Reachable: true, FreeCPUMilli: free, FreeMemoryBytes: unlimited,
			PricePerVCPUHour: c.spec.PricePerVCPUHour, PricePerGiBHour: c.spec.PricePerGiBHour,
		})
	}
	return out
}

// apply makes the replica count desired: new pods go to the primary while
// it has room and wait as pending beyond; removals take pending pods first,
// then follow scaling.ScaleBack (burst clusters, most expensive first,
// primary last).
func apply(p Policy, clusters []*clusterState, pending *[]int, desired, cur int32, t int, req scaling.PodRequests, newPod func(*clusterState, int)) error {
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
		targets := burstTargets(p, clusters, req)
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
