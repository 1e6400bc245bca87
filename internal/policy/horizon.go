package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// DefaultMetricAge is the age of a metric sample the runtime assumes when
// deriving the forecast horizon: one 15 s scrape interval (Prometheus'
// usual, the simulator's ScrapeInterval); the runtime does not know the
// scrape interval of the Prometheus it queries.
const DefaultMetricAge = 15 * time.Second

// DefaultCapacityRound is the capacity controller's round
// (runtime/controller DefaultCapacityInterval): a replica waiting for a
// node waits up to one round before the node is ordered.
const DefaultCapacityRound = 10 * time.Second

// ReadyFigures are what the runtime knows of the time a policy's target
// needs to make a replica ready, from which [DeriveHorizons] derives the
// adaptive algorithm's horizons when spec.algorithm.adaptive.forecastHorizon
// is unset.
type ReadyFigures struct {
	// MetricAge is the age of the samples the metrics read (0:
	// DefaultMetricAge).
	MetricAge time.Duration
	// PodStartups are measured start-ups of the target's pods (creation
	// to Ready); none: workload.DefaultPodStartupDelay.
	PodStartups []time.Duration
	// NodeGroups: some burst target has node groups the policy may use,
	// so replicas beyond the room wait for a node to boot.
	NodeGroups bool
	// NodeBoots are observed boots (order to Ready) of those groups'
	// nodes; none: capacity.DefaultNodeBootDelay.
	NodeBoots []time.Duration
	// CapacityRound is the capacity controller's round (0:
	// DefaultCapacityRound).
	CapacityRound time.Duration
}

// Horizons are the adaptive algorithm's forecast horizons for a policy and
// what they were derived from.
type Horizons struct {
	// Pods is AdaptiveConfig.Horizon, Nodes AdaptiveConfig.NodeHorizon (0:
	// none, every replica has Pods).
	Pods, Nodes time.Duration
	// Derived: forecastHorizon is unset and the horizons follow the
	// figures below; otherwise Pods is forecastHorizon and the rest is 0.
	Derived bool
	// MetricAge, PodStartup and NodeBoot are the figures used; measured
	// counts the pod start-ups and node boots measured (0: the default).
	MetricAge, PodStartup, NodeBoot, CapacityRound time.Duration
	PodsMeasured, NodesMeasured                    int
}

// DeriveHorizons is the adaptive algorithm's horizons for ad (nil: no
// parameters): forecastHorizon for Pods when set (0s turns forecasting
// off, and with it the node horizon). Unset, Pods is
// scaling.ReadyHorizon of the metric's age and the pod start-up (the 90th
// percentile of the measured start-ups, nearest rank, so that most
// replicas are ready in time; the default when none is measured) and,
// when f.NodeGroups, Nodes adds the node boot (the 90th percentile of the
// observed boots, or the default) and the capacity round. Both are
// rounded up to whole steps of the algorithm (15 s), the resolution it
// forecasts at, so that a start-up that moves by a second does not
// rebuild the algorithm.
func DeriveHorizons(ad *hcav1.AdaptiveAlgorithm, f ReadyFigures) Horizons {
	if ad != nil && ad.ForecastHorizon != nil {
		return Horizons{Pods: ad.ForecastHorizon.Duration}
	}
	h := Horizons{Derived: true, MetricAge: f.MetricAge, PodStartup: percentile90(f.PodStartups), PodsMeasured: len(f.PodStartups)}
	if h.MetricAge <= 0 {
		h.MetricAge = DefaultMetricAge
	}
	if h.PodsMeasured == 0 {
		h.PodStartup = workload.DefaultPodStartupDelay
	}
	step := scaling.DefaultAdaptiveConfig().Step
	h.Pods = roundUp(scaling.ReadyHorizon(h.MetricAge, h.PodStartup, 0, 0), step)
	if f.NodeGroups {
		h.NodeBoot, h.NodesMeasured, h.CapacityRound = percentile90(f.NodeBoots), len(f.NodeBoots), f.CapacityRound
		if h.NodesMeasured == 0 {
			h.NodeBoot = capacity.DefaultNodeBootDelay
		}
		if h.CapacityRound <= 0 {
			h.CapacityRound = DefaultCapacityRound
		}
		h.Nodes = roundUp(scaling.ReadyHorizon(h.MetricAge, h.PodStartup, h.NodeBoot, h.CapacityRound), step)
	}
	return h
}

// String says which horizons are used and, when derived, from what, for
// the policy's status: "forecast horizon 30s (derived: metric age 15s +
// pod start-up 12s measured over 4 pods); 1m45s for replicas that wait for
// a node (+ node boot 1m15s default + capacity round 10s)".
func (h Horizons) String() string {
	var b strings.Builder
	if !h.Derived {
		if h.Pods == 0 {
			return "forecasting off (forecastHorizon 0s)"
		}
		return fmt.Sprintf("forecast horizon %v (forecastHorizon)", h.Pods)
	}
	fmt.Fprintf(&b, "forecast horizon %v (derived: metric age %v + pod start-up %v %s)", h.Pods, h.MetricAge, h.PodStartup, measured(h.PodsMeasured, "pod"))
	if h.Nodes > 0 {
		fmt.Fprintf(&b, "; %v for replicas that wait for a node (+ node boot %v %s + capacity round %v)", h.Nodes, h.NodeBoot, measured(h.NodesMeasured, "node"), h.CapacityRound)
	}
	return b.String()
}

func measured(n int, what string) string {
	switch n {
	case 0:
		return "default"
	case 1:
		return "measured on 1 " + what
	}
	return fmt.Sprintf("measured, p90 of %d %ss", n, what)
}

// percentile90 is the nearest-rank 90th percentile of ds (0: none).
func percentile90(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (9*len(s)+9)/10 - 1 // ceil(0.9 n) - 1
	return s[max(i, 0)]
}

func roundUp(d, step time.Duration) time.Duration {
	return (d + step - 1) / step * step
}

// AdaptiveConfigFor is AdaptiveConfig with the horizons h
// (DeriveHorizons) in place of forecastHorizon's.
func AdaptiveConfigFor(ad *hcav1.AdaptiveAlgorithm, h Horizons) (scaling.AdaptiveConfig, error) {
	c, err := AdaptiveConfig(ad)
	if err != nil {
		return c, err
	}
	c.Horizon, c.NodeHorizon = h.Pods, h.Nodes
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("spec.algorithm.adaptive: %w", err)
	}
	return c, nil
}

// TargetRoom is what the runtime knows of a burst target's room for
// [Room].
type TargetRoom struct {
	// Usable: replicas may be placed there (reachable, healthy, a target
	// rather than a cluster being drained).
	Usable bool
	// Probed: FreeCPUMilli and FreeMemoryBytes are the prober's free
	// capacity on the cluster's Ready nodes, less the replicas placed
	// since the probe. Unprobed, a cluster with node groups has no known
	// room and one without is unlimited (as placement assumes).
	Probed                        bool
	FreeCPUMilli, FreeMemoryBytes int64
	NodeGroups                    bool
	// Spare is how many more replicas its maxReplicas or maxPods allow
	// (negative: no limit).
	Spare int32
}

// Room is scaling.Input.Room: how many replicas beyond the current ones
// start without waiting for a node, the primaryFit replicas that fit in
// the primary's free capacity plus what the usable burst targets' free
// capacity holds (pod: one replica's requests; a replica requesting
// nothing fits anywhere). Unlimited room is math.MaxInt32.
func Room(primaryFit int32, targets []TargetRoom, pod scaling.PodRequests) int32 {
	const unlimited = int64(1<<31 - 1)
	n := int64(max(primaryFit, 0))
	for _, t := range targets {
		if !t.Usable {
			continue
		}
		fit := unlimited
		switch {
		case t.Probed:
			if pod.CPUMilli > 0 {
				fit = min(fit, max(t.FreeCPUMilli, 0)/pod.CPUMilli)
			}
			if pod.MemoryBytes > 0 {
				fit = min(fit, max(t.FreeMemoryBytes, 0)/pod.MemoryBytes)
			}
		case t.NodeGroups:
			fit = 0
		}
		if t.Spare >= 0 {
			fit = min(fit, int64(t.Spare))
		}
		n = min(n+fit, unlimited)
	}
	return int32(n)
}
