package simulate

import "math"

// Metrics summarise a run. Demand d_t is the fewest pods that keep the
// load per pod at or under the policy's target; supply s_t is the number
// of ready pods in all clusters; t runs over the T seconds of the trace.
type Metrics struct {
	// Seconds is T.
	Seconds int

	// SPEC Research Group elasticity metrics (Herbst et al.), in percent,
	// with Δt = 1 s:
	//
	//	UnderAccuracy  θU = 100/T Σ max(d_t − s_t, 0) / max(d_t, 1)
	//	OverAccuracy   θO = 100/T Σ max(s_t − d_t, 0) / max(d_t, 1)
	//	UnderTimeshare τU = 100/T Σ [d_t > s_t]
	//	OverTimeshare  τO = 100/T Σ [s_t > d_t]
	//	Instability    υ  = 100/(T−1) Σ_{t≥2} min(|sgn Δs_t − sgn Δd_t|, 1)
	//	Jitter         j  = (E_S − E_D) / T  (per hour here)
	//
	// E_S and E_D count the seconds where supply and demand change.
	UnderAccuracy, OverAccuracy     float64
	UnderTimeshare, OverTimeshare   float64
	Instability, JitterPerHour      float64
	UnderPodMinutes, OverPodMinutes float64

	// SLAViolationRate is the share of requests not answered within the SLO
	// threshold (errors included); ErrorRate the share answered 503.
	SLAViolationRate, ErrorRate float64
	// MeanLatency is the served requests' mean response time in seconds.
	MeanLatency float64

	// Steps are the load steps found in the trace (demand up by at least
	// 50 % and 2 pods from one second to the next).
	Steps int
	// TimeToDecide and TimeToReady are the worst, over the steps, time in
	// seconds from a step until the decided, and until the ready, replica
	// count reaches the step's demand (capped at max replicas). NaN: no
	// step; +Inf: never reached.
	TimeToDecide, TimeToReady float64

	// ScalingActions counts decisions that changed the replica count;
	// Reversals the changes of direction between consecutive actions;
	// ReExpansions the scale-ups that follow a scale-down.
	ScalingActions, Reversals, ReExpansions int
	// MaxDesired is the highest replica count decided.
	MaxDesired int32

	// PodHours are the scheduled (starting or ready) pods' hours, in all
	// clusters; BurstShare the part of them in burst clusters.
	PodHours, BurstShare float64
	// Cost is the run's cost in $, CostPerDay the same rate over 24 h:
	// pod-hours x (cpuRequest x $/vCPU-hour + memoryGiB x $/GiB-hour) of
	// each cluster.
	Cost, CostPerDay float64

	offered, served, errors, slow, latencySum float64
	burstHours                                float64
}

func (m *Metrics) addSecond(offered, served, errors, slow, meanLatency float64) {
	m.offered += offered
	m.served += served
	m.errors += errors
	m.slow += slow
	m.latencySum += served * meanLatency
}

func sgn(x int32) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func (m *Metrics) compute(r *Result) {
	s := &r.Series
	T := len(s.Load)
	m.Seconds = T
	supply := make([]int32, T)
	for t := 0; t < T; t++ {
		for c := range s.Ready {
			supply[t] += s.Ready[c][t]
		}
	}
	var es, ed, unstable int
	for t := 0; t < T; t++ {
		d, sp := s.Demand[t], supply[t]
		den := float64(max(d, 1))
		if d > sp {
			m.UnderAccuracy += float64(d-sp) / den
			m.UnderTimeshare++
			m.UnderPodMinutes += float64(d-sp) / 60
		}
		if sp > d {
			m.OverAccuracy += float64(sp-d) / den
			m.OverTimeshare++
			m.OverPodMinutes += float64(sp-d) / 60
		}
		if t > 0 {
			ds, dd := sgn(sp-supply[t-1]), sgn(d-s.Demand[t-1])
			if ds != 0 {
				es++
			}
			if dd != 0 {
				ed++
			}
			if ds != dd {
				unstable++
			}
		}
	}
	m.UnderAccuracy *= 100 / float64(T)
	m.OverAccuracy *= 100 / float64(T)
	m.UnderTimeshare *= 100 / float64(T)
	m.OverTimeshare *= 100 / float64(T)
	if T > 1 {
		m.Instability = 100 * float64(unstable) / float64(T-1)
	}
	m.JitterPerHour = float64(es-ed) / float64(T) * 3600

	if m.offered > 0 {
		m.SLAViolationRate = (m.slow + m.errors) / m.offered
		m.ErrorRate = m.errors / m.offered
	}
	if m.served > 0 {
		m.MeanLatency = m.latencySum / m.served
	}

	// Actions and reversals.
	last := 0
	for _, tk := range r.Ticks {
		m.MaxDesired = max(m.MaxDesired, tk.Desired)
		dir := sgn(tk.Desired - tk.Current)
		if dir == 0 {
			continue
		}
		m.ScalingActions++
		if last != 0 && dir != last {
			m.Reversals++
			if dir > 0 {
				m.ReExpansions++
			}
		}
		last = dir
	}

	// Steps.
	m.TimeToDecide, m.TimeToReady = math.NaN(), math.NaN()
	prev := int32(-1)
	for t := 0; t < T; t++ {
		d := s.Demand[t]
		if prev >= 0 && d >= prev+2 && float64(d) >= 1.5*float64(prev) {
			m.Steps++
			need := min(d, r.Policy.Max)
			dec, rdy := math.Inf(1), math.Inf(1)
			for u := t; u < T; u++ {
				if math.IsInf(dec, 1) && s.Desired[u] >= need {
					dec = float64(u - t)
				}
				if supply[u] >= need {
					rdy = float64(u - t)
					break
				}
			}
			if math.IsNaN(m.TimeToDecide) || dec > m.TimeToDecide {
				m.TimeToDecide = dec
			}
			if math.IsNaN(m.TimeToReady) || rdy > m.TimeToReady {
				m.TimeToReady = rdy
			}
		}
		prev = d
	}

	// Cost: PodHours, Cost and burstHours were summed second by second in
	// Run, at the pods' requests of that second.
	if m.PodHours > 0 {
		m.BurstShare = m.burstHours / m.PodHours
	}
	m.CostPerDay = m.Cost * 86400 / float64(T)
}
