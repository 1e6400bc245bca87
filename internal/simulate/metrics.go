package simulate

import (
	"math"

	"github.com/hca-project/terraform-provider-hca/internal/forecast"
)

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
	// E_S and E_D count the adaptations of supply and demand per resource
	// unit (pod), as the SPEC RG report (SPEC-RG-2016-01, jitter metric)
	// defines them: a change of several pods at once is that many
	// adaptations. E_S = Σ |s_t − s_{t−1}|, E_D = Σ |d_t − d_{t−1}|.
	UnderAccuracy, OverAccuracy     float64
	UnderTimeshare, OverTimeshare   float64
	Instability, JitterPerHour      float64
	UnderPodMinutes, OverPodMinutes float64

	// SLAViolationRate is the share of requests not answered within the SLO
	// threshold (timed-out, late and slow requests); ErrorRate the share that
	// timed out in the backlog.
	SLAViolationRate, ErrorRate float64
	// MeanLatency is the served requests' mean response time in seconds.
	MeanLatency float64

	// Rises are the rises of demand found in the trace (see [Rises]).
	Rises int
	// TimeToDecide and TimeToReady are the worst, over the rises, time to
	// required replicas in seconds: from the first second the demand
	// reaches the rise's required count to the first second the decided
	// (ready) count does, 0 if it already had. The required count is
	// ceil((1 − RiseTolerance) × min(peak demand, Max)). NaN: no rise;
	// +Inf: never reached.
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
	// each cluster, except that a burst cluster with node groups costs its
	// nodes' hours (from order to release) at their group's price per hour.
	Cost, CostPerDay float64
	// HeadroomCost is the part of Cost that paid for the adaptive
	// algorithm's spare replicas (scaling.Decision.Headroom), second by
	// second at the per-pod price of the cluster the runtime's status
	// places them in (scaling.HeadroomCost: burst clusters cheapest first,
	// then the primary); HeadroomCostPerDay the same rate over 24 h. Zero
	// without headroom.
	HeadroomCost, HeadroomCostPerDay float64
	// NodeHours are the hours of the burst clusters' node-group nodes, from
	// the order to the release (with node groups, Cost counts these at the
	// group's price instead of the pods' requests); Interruptions the spot
	// interruption notices.
	NodeHours     float64
	Interruptions int

	// ForecastMAPE is the mean absolute percentage error of the adaptive
	// algorithm's load forecasts against the load at the second forecast
	// (decisions whose second is in the trace and whose load is not 0);
	// NaiveMAPE the same for the load it observed (the forecast "no
	// change"). Forecasts counts those decisions. NaN without forecasts.
	ForecastMAPE, NaiveMAPE float64
	Forecasts               int

	offered, served, errors, slow, latencySum float64
	burstHours                                float64
}

func (m *Metrics) addSecond(offered, served, errors, slow, latencySum float64) {
	m.offered += offered
	m.served += served
	m.errors += errors
	m.slow += slow
	m.latencySum += latencySum
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
	var actual, fc, naive []float64
	for _, tk := range r.Ticks {
		if tk.ForecastAt > tk.Second && tk.ForecastAt < T {
			actual = append(actual, s.Load[tk.ForecastAt])
			fc = append(fc, tk.Forecast)
			naive = append(naive, tk.Observed)
		}
	}
	m.Forecasts = len(actual)
	m.ForecastMAPE, m.NaiveMAPE = forecast.MAPE(actual, fc), forecast.MAPE(actual, naive)
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
			es += int(abs32(sp - supply[t-1]))
			ed += int(abs32(d - s.Demand[t-1]))
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

	// Rises.
	m.TimeToDecide, m.TimeToReady = math.NaN(), math.NaN()
	rises := Rises(s.Demand)
	m.Rises = len(rises)
	for _, rs := range rises {
		need := max(1, int32(math.Ceil((1-RiseTolerance)*float64(min(rs.Peak, r.Policy.Max))-1e-9)))
		from := rs.Start
		for from < T && s.Demand[from] < need {
			from++
		}
		dec := timeTo(s.Desired, rs.Start, from, need)
		rdy := timeTo(supply, rs.Start, from, need)
		if math.IsNaN(m.TimeToDecide) || dec > m.TimeToDecide {
			m.TimeToDecide = dec
		}
		if math.IsNaN(m.TimeToReady) || rdy > m.TimeToReady {
			m.TimeToReady = rdy
		}
	}

	// Cost: PodHours, Cost and burstHours were summed second by second in
	// Run, at the pods' requests of that second.
	if m.PodHours > 0 {
		m.BurstShare = m.burstHours / m.PodHours
	}
	m.CostPerDay = m.Cost * 86400 / float64(T)
	m.HeadroomCostPerDay = m.HeadroomCost * 86400 / float64(T)
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// RiseTolerance is the share of a rise's required replicas a scaler may
// lack and still count as having reached them: the HPA's default tolerance,
// so a count an algorithm holds within its tolerance reads as reached.
const RiseTolerance = 0.1

// Rise is a rise of demand: from a trough at Start to its Peak (pods) at
// PeakAt.
type Rise struct {
	Start, PeakAt int
	Trough, Peak  int32
}

// Rises finds the rises of a demand series with hysteresis, so that noise
// does not count and a ramp is one rise like a step: a rise starts at the
// last second of a trough and is confirmed once demand is at least 50 %
// and 2 pods above the trough; it ends, at its highest point, once demand
// has fallen to at most 2/3 of the peak and 2 pods below it (or at the
// end of the series), and the search for the next trough starts there.
func Rises(d []int32) []Rise {
	var out []Rise
	if len(d) == 0 {
		return nil
	}
	trough, start := d[0], 0
	rising := false
	var peak int32
	var peakAt int
	for t, v := range d {
		if !rising {
			if v <= trough {
				trough, start = v, t
			}
			if v >= trough+2 && float64(v) >= 1.5*float64(trough) {
				rising, peak, peakAt = true, v, t
			}
			continue
		}
		if v > peak {
			peak, peakAt = v, t
		}
		if v <= peak-2 && float64(v) <= float64(peak)/1.5 {
			out = append(out, Rise{Start: start, PeakAt: peakAt, Trough: trough, Peak: peak})
			rising, trough, start = false, v, t
		}
	}
	if rising {
		out = append(out, Rise{Start: start, PeakAt: peakAt, Trough: trough, Peak: peak})
	}
	return out
}

// timeTo is the time from second from until count first reaches need,
// searching from second start (0 when it had before from); +Inf if never.
func timeTo(count []int32, start, from int, need int32) float64 {
	for u := start; u < len(count); u++ {
		if count[u] >= need {
			return math.Max(0, float64(u-from))
		}
	}
	return math.Inf(1)
}
