package simulate

import (
	"bytes"
	"math"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/capacity"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// Default prices: GKE europe-west3, as in MOHA.
const (
	DefaultPricePerVCPUHour = 0.0573
	DefaultPricePerGiBHour  = 0.0063421
)

// ClusterModel is the simulated infrastructure: one primary (private)
// cluster, burst clusters, the application's pods and the metric pipeline.
type ClusterModel struct {
	Pod      PodModel
	Clusters []ClusterSpec
	// ScrapeInterval is how often metrics are scraped; the algorithm sees
	// the values of the latest scrape.
	ScrapeInterval time.Duration
	// MetricStaleness delays what the algorithm sees further (metric
	// pipeline lag): it reads the latest scrape at or before now minus
	// MetricStaleness.
	MetricStaleness time.Duration
	// ControlInterval is the time between two decisions; 0 uses the
	// algorithm's own (15 s HPA sync period for kubernetes and frss, 2 s
	// KPA tick for panic).
	ControlInterval time.Duration
	// SLOThreshold: a request slower than this violates the SLA.
	SLOThreshold time.Duration
	// RequestTimeout is how long a request waits in the backlog (requests
	// beyond the ready pods' capacity, carried from one second to the
	// next) before its client gives up: it then counts as an error and an
	// SLA violation. Whole seconds, at least 1 s (default 30 s).
	RequestTimeout time.Duration
	// CapacityInterval is how often node groups are looked at (the capacity
	// controller's round, controller.DefaultCapacityInterval: 10 s).
	CapacityInterval time.Duration
	// SpotNotice is the warning before a spot node is reclaimed
	// (capacity.DefaultSpotNotice, EC2's two minutes).
	SpotNotice time.Duration
	// Seed seeds the spot interruptions (the same seed, the same run).
	Seed uint64
}

// DefaultCapacityInterval is the capacity round of the model when none is
// given: the runtime's (controller.DefaultCapacityInterval).
const DefaultCapacityInterval = 10 * time.Second

// DefaultRequestTimeout is the model's request timeout when none is given.
const DefaultRequestTimeout = 30 * time.Second

// PodModel is one replica of the application.
type PodModel struct {
	// CPURequest and CPULimit are in cores; MemoryGiB in GiB (cost only).
	CPURequest, CPULimit, MemoryGiB float64
	// CPUPerRequest is the CPU-seconds one request costs (loadsim's model).
	CPUPerRequest float64
	// StartupDelay is the time from scheduling to Ready.
	StartupDelay time.Duration
}

// ClusterSpec is one cluster of the model.
type ClusterSpec struct {
	Name    string
	Primary bool
	// CapacityPods is how many replicas fit (from capacityPods, or
	// floor(capacityCPU / cpuRequest)); 0 means unlimited.
	CapacityPods int32
	// PricePerVCPUHour and PricePerGiBHour price the pods' requests (with
	// NodeGroups only the placement's and the scale-back's order: the nodes
	// are the cost).
	PricePerVCPUHour, PricePerGiBHour float64
	// ProvisioningDelay is added to a pod's start-up in this cluster (node
	// provisioning in a burst cluster without NodeGroups; 0 with them: the
	// nodes' boot delay is modelled instead).
	ProvisioningDelay time.Duration
	// NodeGroups, in a burst cluster, are its node groups (EKS managed node
	// groups, ACK node pools): with them the cluster starts with each
	// group's minimum of nodes, its replicas wait Pending for a node, nodes
	// are bought and released as the runtime's capacity controller does
	// (capacity.Plan and capacity.Release) and the cluster costs its
	// node-hours, not its pods' requests. CapacityPods is then what the
	// groups can hold at their maximum.
	NodeGroups []NodeGroupSpec
	// Priority orders burst clusters for placement priority (higher first).
	Priority int
}

// Primary returns the primary cluster.
func (m ClusterModel) Primary() ClusterSpec {
	for _, c := range m.Clusters {
		if c.Primary {
			return c
		}
	}
	return ClusterSpec{}
}

// hasNodeGroups reports whether a burst cluster of m has node groups.
func (m ClusterModel) hasNodeGroups() bool {
	for _, c := range m.Clusters {
		if len(c.NodeGroups) > 0 {
			return true
		}
	}
	return false
}

// Cluster returns the cluster named name.
func (m ClusterModel) Cluster(name string) (ClusterSpec, bool) {
	for _, c := range m.Clusters {
		if c.Name == name {
			return c, true
		}
	}
	return ClusterSpec{}, false
}

// HourlyPrice is the price of one pod-hour in c.
func (m ClusterModel) HourlyPrice(c ClusterSpec) float64 {
	return m.Pod.CPURequest*c.PricePerVCPUHour + m.Pod.MemoryGiB*c.PricePerGiBHour
}

// DefaultPodModel: 0.5 CPU requested, 1 CPU limit, 1 GiB, loadsim's 10 m
// CPU per request/s, the lab's start-up (workload.DefaultPodStartupDelay,
// 10 s).
func DefaultPodModel() PodModel {
	return PodModel{CPURequest: 0.5, CPULimit: 1, MemoryGiB: 1, CPUPerRequest: workload.DefaultCPUPerRequest, StartupDelay: workload.DefaultPodStartupDelay}
}

// DefaultClusterModel is the model used without --cluster: the default pod,
// a primary cluster of unlimited capacity named primary, the given burst
// clusters (unlimited, no provisioning delay), all at the default prices;
// 15 s scrape interval, no extra staleness, 200 ms SLO threshold, 30 s
// request timeout.
func DefaultClusterModel(primary string, burst ...string) ClusterModel {
	m := ClusterModel{Pod: DefaultPodModel(), ScrapeInterval: 15 * time.Second, SLOThreshold: 200 * time.Millisecond, RequestTimeout: DefaultRequestTimeout,
		CapacityInterval: DefaultCapacityInterval, SpotNotice: capacity.DefaultSpotNotice}
	m.Clusters = append(m.Clusters, ClusterSpec{Name: primary, Primary: true, PricePerVCPUHour: DefaultPricePerVCPUHour, PricePerGiBHour: DefaultPricePerGiBHour})
	for _, b := range burst {
		m.Clusters = append(m.Clusters, ClusterSpec{Name: b, PricePerVCPUHour: DefaultPricePerVCPUHour, PricePerGiBHour: DefaultPricePerGiBHour})
	}
	return m
}

// clusterModelFile is the YAML form of a cluster model.
type clusterModelFile struct {
	APIVersion      string           `json:"apiVersion"`
	Kind            string           `json:"kind"`
	Pod             *podFile         `json:"pod,omitempty"`
	ScrapeInterval  *metav1.Duration `json:"scrapeInterval,omitempty"`
	MetricStaleness *metav1.Duration `json:"metricStaleness,omitempty"`
	ControlInterval *metav1.Duration `json:"controlInterval,omitempty"`
	SLOThreshold    *metav1.Duration `json:"sloThreshold,omitempty"`
	RequestTimeout  *metav1.Duration `json:"requestTimeout,omitempty"`
	// CapacityInterval, SpotNotice and Seed: node groups (see ClusterModel).
	CapacityInterval *metav1.Duration `json:"capacityInterval,omitempty"`
	SpotNotice       *metav1.Duration `json:"spotNotice,omitempty"`
	Seed             *uint64          `json:"seed,omitempty"`
	Clusters         []clusterFile    `json:"clusters"`
	Description      string           `json:"description,omitempty"`
}

type podFile struct {
	CPURequest    *float64         `json:"cpuRequest,omitempty"`
	CPULimit      *float64         `json:"cpuLimit,omitempty"`
	MemoryGiB     *float64         `json:"memoryGiB,omitempty"`
	CPUPerRequest *float64         `json:"cpuPerRequest,omitempty"`
	StartupDelay  *metav1.Duration `json:"startupDelay,omitempty"`
}

type clusterFile struct {
	Name              string           `json:"name"`
	Role              string           `json:"role"`
	CapacityPods      *int32           `json:"capacityPods,omitempty"`
	CapacityCPU       *float64         `json:"capacityCPU,omitempty"`
	PricePerVCPUHour  *float64         `json:"pricePerVCPUHour,omitempty"`
	PricePerGiBHour   *float64         `json:"pricePerGiBHour,omitempty"`
	ProvisioningDelay *metav1.Duration `json:"provisioningDelay,omitempty"`
	Priority          int              `json:"priority,omitempty"`
	NodeGroups        []nodeGroupFile  `json:"nodeGroups,omitempty"`
}

// ClusterModelKind is the kind of a cluster model file.
const ClusterModelKind = "ClusterModel"

// ParseClusterModel decodes a cluster model (apiVersion
// simulate.hca.dev/v1alpha1, kind ClusterModel) strictly. See
// examples/traces/cluster.yaml for every field.
func ParseClusterModel(data []byte) (ClusterModel, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return ClusterModel{}, inputErr("cluster model: the file is empty: give a ClusterModel (see examples/traces/cluster.yaml)")
	}
	var f clusterModelFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return ClusterModel{}, inputErr("cluster model: %v", cleanYAMLError(err))
	}
	if f.APIVersion != "simulate.hca.dev/v1alpha1" || f.Kind != ClusterModelKind {
		return ClusterModel{}, inputErr("cluster model: apiVersion %q and kind %q: want apiVersion simulate.hca.dev/v1alpha1 and kind ClusterModel", f.APIVersion, f.Kind)
	}
	m := ClusterModel{Pod: DefaultPodModel(), ScrapeInterval: 15 * time.Second, SLOThreshold: 200 * time.Millisecond, RequestTimeout: DefaultRequestTimeout,
		CapacityInterval: DefaultCapacityInterval, SpotNotice: capacity.DefaultSpotNotice}
	if f.Seed != nil {
		m.Seed = *f.Seed
	}
	if p := f.Pod; p != nil {
		for _, v := range []struct {
			in    *float64
			out   *float64
			field string
		}{{p.CPURequest, &m.Pod.CPURequest, "pod.cpuRequest"}, {p.CPULimit, &m.Pod.CPULimit, "pod.cpuLimit"}, {p.MemoryGiB, &m.Pod.MemoryGiB, "pod.memoryGiB"}, {p.CPUPerRequest, &m.Pod.CPUPerRequest, "pod.cpuPerRequest"}} {
			if v.in == nil {
				continue
			}
			if !(*v.in > 0) || math.IsInf(*v.in, 0) {
				return ClusterModel{}, inputErr("cluster model: %s is %v: set a finite value above 0", v.field, *v.in)
			}
			*v.out = *v.in
		}
		if p.StartupDelay != nil {
			if p.StartupDelay.Duration < 0 {
				return ClusterModel{}, inputErr("cluster model: pod.startupDelay is %v: use 0s or more", p.StartupDelay.Duration)
			}
			m.Pod.StartupDelay = p.StartupDelay.Duration
		}
	}
	if m.Pod.CPULimit < m.Pod.CPURequest {
		return ClusterModel{}, inputErr("cluster model: pod.cpuLimit (%v) is below pod.cpuRequest (%v): raise the limit", m.Pod.CPULimit, m.Pod.CPURequest)
	}
	for _, d := range []struct {
		in    *metav1.Duration
		out   *time.Duration
		field string
		min   time.Duration
	}{{f.ScrapeInterval, &m.ScrapeInterval, "scrapeInterval", time.Second}, {f.MetricStaleness, &m.MetricStaleness, "metricStaleness", 0}, {f.ControlInterval, &m.ControlInterval, "controlInterval", time.Second}, {f.SLOThreshold, &m.SLOThreshold, "sloThreshold", time.Millisecond}, {f.RequestTimeout, &m.RequestTimeout, "requestTimeout", time.Second},
		{f.CapacityInterval, &m.CapacityInterval, "capacityInterval", time.Second}, {f.SpotNotice, &m.SpotNotice, "spotNotice", time.Second}} {
		if d.in == nil {
			continue
		}
		if d.in.Duration < d.min {
			return ClusterModel{}, inputErr("cluster model: %s is %v: use at least %v", d.field, d.in.Duration, d.min)
		}
		if d.field != "sloThreshold" && d.in.Duration%time.Second != 0 {
			return ClusterModel{}, inputErr("cluster model: %s is %v: use whole seconds (the simulation steps by 1s)", d.field, d.in.Duration)
		}
		*d.out = d.in.Duration
	}
	if len(f.Clusters) == 0 {
		return ClusterModel{}, inputErr("cluster model: clusters is missing: list the primary cluster (role primary) and the burst clusters (role burst)")
	}
	primaries := 0
	for i, c := range f.Clusters {
		field := func(s string) string { return "clusters[" + itoa(i) + "]." + s }
		if c.Name == "" {
			return ClusterModel{}, inputErr("cluster model: %s is missing: name the cluster as the policy does", field("name"))
		}
		if _, dup := m.Cluster(c.Name); dup {
			return ClusterModel{}, inputErr("cluster model: %s %q is listed twice: list each cluster once", field("name"), c.Name)
		}
		cs := ClusterSpec{Name: c.Name, PricePerVCPUHour: DefaultPricePerVCPUHour, PricePerGiBHour: DefaultPricePerGiBHour, Priority: c.Priority}
		switch c.Role {
		case "primary":
			cs.Primary = true
			primaries++
		case "burst":
		case "":
			return ClusterModel{}, inputErr("cluster model: %s is missing: use primary or burst", field("role"))
		default:
			return ClusterModel{}, inputErr("cluster model: %s %q is unknown: use primary or burst", field("role"), c.Role)
		}
		switch {
		case len(c.NodeGroups) > 0:
			if cs.Primary {
				return ClusterModel{}, inputErr("cluster model: %s is set on the primary cluster: node groups belong to burst clusters; give the primary capacityPods or capacityCPU", field("nodeGroups"))
			}
			if c.CapacityPods != nil || c.CapacityCPU != nil || c.ProvisioningDelay != nil {
				return ClusterModel{}, inputErr("cluster model: %s is set with capacityPods, capacityCPU or provisioningDelay: the node groups give the capacity (maxNodes) and the delay (bootDelay); remove those", field("nodeGroups"))
			}
			var err error
			if cs.NodeGroups, err = parseNodeGroups(c.NodeGroups, field("nodeGroups"), m.Pod); err != nil {
				return ClusterModel{}, err
			}
			cs.CapacityPods = groupsCapacity(cs.NodeGroups, m.Pod)
		case c.CapacityPods != nil && c.CapacityCPU != nil:
			return ClusterModel{}, inputErr("cluster model: %s and %s are both set: give one", field("capacityPods"), field("capacityCPU"))
		case c.CapacityPods != nil:
			if *c.CapacityPods < 0 {
				return ClusterModel{}, inputErr("cluster model: %s is %d: use 0 (unlimited) or more", field("capacityPods"), *c.CapacityPods)
			}
			cs.CapacityPods = *c.CapacityPods
		case c.CapacityCPU != nil:
			if !(*c.CapacityCPU > 0) || math.IsInf(*c.CapacityCPU, 0) {
				return ClusterModel{}, inputErr("cluster model: %s is %v: set the cores available to the workload, above 0", field("capacityCPU"), *c.CapacityCPU)
			}
			cs.CapacityPods = int32(math.Floor(*c.CapacityCPU/m.Pod.CPURequest + 1e-9))
			if cs.CapacityPods == 0 {
				return ClusterModel{}, inputErr("cluster model: %s is %v: not one pod of %v CPU fits; raise it", field("capacityCPU"), *c.CapacityCPU, m.Pod.CPURequest)
			}
		default:
			return ClusterModel{}, inputErr("cluster model: %s is missing: set capacityPods (0 = unlimited) or capacityCPU", field("capacityPods"))
		}
		for _, p := range []struct {
			in    *float64
			out   *float64
			field string
		}{{c.PricePerVCPUHour, &cs.PricePerVCPUHour, "pricePerVCPUHour"}, {c.PricePerGiBHour, &cs.PricePerGiBHour, "pricePerGiBHour"}} {
			if p.in == nil {
				continue
			}
			if *p.in < 0 || math.IsNaN(*p.in) || math.IsInf(*p.in, 0) {
				return ClusterModel{}, inputErr("cluster model: %s is %v: use a finite price, 0 or more", field(p.field), *p.in)
			}
			*p.out = *p.in
		}
		if c.ProvisioningDelay != nil {
			if c.ProvisioningDelay.Duration < 0 {
				return ClusterModel{}, inputErr("cluster model: %s is %v: use 0s or more", field("provisioningDelay"), c.ProvisioningDelay.Duration)
			}
			cs.ProvisioningDelay = c.ProvisioningDelay.Duration
		}
		m.Clusters = append(m.Clusters, cs)
	}
	if primaries != 1 {
		return ClusterModel{}, inputErr("cluster model: %d clusters have role primary: mark exactly one", primaries)
	}
	return m, nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// CheckPolicy reports the first mismatch between the policy and the model:
// the policy's primary and burst clusters must be the model's.
func (m ClusterModel) CheckPolicy(p Policy) error {
	c, ok := m.Cluster(p.Primary)
	if !ok || !c.Primary {
		return inputErr("policy: spec.primaryCluster %q is not the cluster model's primary cluster %q: use the same name", p.Primary, m.Primary().Name)
	}
	for i, t := range p.BurstTargets {
		c, ok := m.Cluster(t.Cluster)
		if !ok {
			return inputErr("policy: spec.burstTargets[%d].cluster %q is not in the cluster model: add it there with role burst", i, t.Cluster)
		}
		if c.Primary {
			return inputErr("policy: spec.burstTargets[%d].cluster %q is the model's primary cluster", i, t.Cluster)
		}
	}
	return nil
}
