package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Placement is how a replica deficit is spread over burst targets.
//
// +kubebuilder:validation:Enum=priority;cheapest;weighted;capacity
type Placement string

const (
	// PlacementPriority fills burst targets in order (HybridCluster priority,
	// then the burstTargets order) up to each one's limit.
	PlacementPriority Placement = "priority"
	// PlacementCheapest fills the cheapest targets first (HybridCluster prices x
	// the pod's requests).
	PlacementCheapest Placement = "cheapest"
	// PlacementWeighted splits the deficit in proportion to the targets' weights.
	PlacementWeighted Placement = "weighted"
	// PlacementCapacity fills the targets with the most free capacity first.
	PlacementCapacity Placement = "capacity"
)

// AlgorithmName selects the scaling algorithm.
//
// +kubebuilder:validation:Enum=adaptive;kubernetes;frss;panic
type AlgorithmName string

const (
	// AlgorithmAdaptive is HCA's default: the panic mode's speed on steps,
	// the HPA's scale-down stabilisation, and a load forecast on top.
	AlgorithmAdaptive AlgorithmName = "adaptive"
	// AlgorithmKubernetes is the Horizontal Pod Autoscaler's algorithm.
	AlgorithmKubernetes AlgorithmName = "kubernetes"
	// AlgorithmFRSS is Fast-Response/Slow-Shrinkage.
	AlgorithmFRSS AlgorithmName = "frss"
	// AlgorithmPanic is Knative's KPA with stable and panic windows.
	AlgorithmPanic AlgorithmName = "panic"
)

// BurstPhase summarises what a BurstPolicy is doing.
//
// +kubebuilder:validation:Enum=Watching;Bursting;ScalingBack;Degraded
type BurstPhase string

const (
	// PhaseWatching: every replica runs in the primary cluster.
	PhaseWatching BurstPhase = "Watching"
	// PhaseBursting: replicas run, or are being placed, in burst clusters.
	PhaseBursting BurstPhase = "Bursting"
	// PhaseScalingBack: load fell and burst replicas are being removed.
	PhaseScalingBack BurstPhase = "ScalingBack"
	// PhaseDegraded: the controller holds its last decision because an input
	// (metrics, a cluster) is missing; the Degraded condition says which.
	PhaseDegraded BurstPhase = "Degraded"
)

// BurstPolicySpec is the desired scaling and bursting of a workload.
//
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must be <= maxReplicas",fieldPath=".minReplicas"
// +kubebuilder:validation:XValidation:rule="!self.burstTargets.exists(t, t.cluster == self.primaryCluster)",message="burstTargets must not list primaryCluster: list only the clusters to burst into",fieldPath=".burstTargets"
// +kubebuilder:validation:XValidation:rule="self.placement != 'weighted' || self.burstTargets.exists(t, t.weight > 0)",message="placement weighted needs at least one burstTargets entry with weight > 0",fieldPath=".burstTargets"
// +kubebuilder:validation:XValidation:rule="!has(self.schedules) || self.schedules.all(w, w.minReplicas <= self.maxReplicas)",message="schedules[].minReplicas must be <= maxReplicas: lower the window's floor or raise maxReplicas",fieldPath=".schedules"
type BurstPolicySpec struct {
	// Target selects the workload: a Deployment by name, or the Deployments
	// carrying matchLabels (exactly one of the two).
	//
	// +required
	Target BurstTarget `json:"target"`

	// PrimaryCluster is the HybridCluster where the target runs and is scaled
	// first (usually the private cluster).
	//
	// +required
	PrimaryCluster ClusterName `json:"primaryCluster"`

	// BurstTargets are the clusters that receive the replicas the primary cannot
	// schedule, in order of preference.
	//
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +required
	BurstTargets []BurstTargetCluster `json:"burstTargets"`

	// Placement spreads a replica deficit over the burst targets: priority,
	// cheapest, weighted or capacity. Priority, cheapest and capacity fill
	// room on running nodes first, in their order, then the room node groups
	// must buy; weighted keeps its split.
	//
	// +kubebuilder:default=priority
	// +optional
	Placement Placement `json:"placement,omitempty"`

	// MinReplicas is the fewest replicas the target keeps (all clusters).
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`

	// MaxReplicas is the most replicas the target may have (all clusters).
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	MaxReplicas int32 `json:"maxReplicas"`

	// Metrics the replica count is computed from; the largest proposal wins.
	// Unset: CPU at 80 % of requests, as the Horizontal Pod Autoscaler.
	//
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:default={{type: Resource, resource: {name: cpu, targetAverageUtilization: 80}}}
	// +optional
	Metrics []MetricSpec `json:"metrics,omitempty"`

	// Algorithm turns metrics into a replica count. Unset: adaptive with its
	// parameter defaults (as an algorithm block that names no algorithm).
	//
	// +kubebuilder:default={name: adaptive}
	// +optional
	Algorithm Algorithm `json:"algorithm,omitempty"`

	// Propagate are the objects copied, with the workload, into each burst
	// cluster it reaches (and deleted there when it leaves).
	//
	// +optional
	Propagate *Propagation `json:"propagate,omitempty"`

	// Consul registers the replicas of every cluster in Consul so that the load
	// balancer covers them. Unset: no registration.
	//
	// +optional
	Consul *ConsulRegistration `json:"consul,omitempty"`

	// PendingThreshold is how long a target pod must stay Unschedulable before
	// the deficit bursts (Go duration; "0s" bursts at the first Unschedulable pod).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="5s"
	// +optional
	PendingThreshold *metav1.Duration `json:"pendingThreshold,omitempty"`

	// FailoverAfter is how long a burst cluster holding replicas may stay
	// unreachable before its replicas stop counting and are placed again
	// elsewhere (the primary first if it has room, then the other burst
	// targets in placement order). The stale replicas left there are
	// removed when the cluster is seen again (or kept in place of primary
	// replicas still without a node). Go duration, at most 1h; "0s" never
	// fails over (the replicas are held until the cluster answers); absent:
	// 90s.
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('1h')",message="failoverAfter must be at most 1h (\"0s\" never fails over)"
	// +kubebuilder:default="90s"
	// +optional
	FailoverAfter *metav1.Duration `json:"failoverAfter,omitempty"`

	// Capacity says which nodes the runtime may buy for this policy's burst
	// replicas in burst clusters with node groups, and when it gives them
	// back.
	//
	// +optional
	Capacity *BurstCapacity `json:"capacity,omitempty"`

	// Schedules are windows that raise the floor of the total replica count
	// (e.g. before a known Monday-morning peak).
	//
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Schedules []ScheduleWindow `json:"schedules,omitempty"`
}

// BurstCapacity is a policy's say in the burst clusters' node groups.
type BurstCapacity struct {
	// AllowSpot lets the runtime buy spot nodes (cheaper, interruptible) for
	// the policy's replicas; spot groups are then used first.
	//
	// +optional
	AllowSpot bool `json:"allowSpot,omitempty"`

	// ScaleDownDelay is how long a node must be empty before it is released
	// (Go duration; default 2m: about the time a replacement node takes to
	// serve, boot plus pod start-up; Cluster Autoscaler's is 10m,
	// Karpenter's consolidateAfter 0s).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="2m"
	// +optional
	ScaleDownDelay *metav1.Duration `json:"scaleDownDelay,omitempty"`
}

// BurstTarget selects the workload of a BurstPolicy, in the policy's namespace.
//
// +kubebuilder:validation:XValidation:rule="has(self.deploymentName) != has(self.matchLabels)",message="target: set exactly one of deploymentName or matchLabels"
type BurstTarget struct {
	// DeploymentName is the Deployment to scale and burst.
	//
	// +optional
	DeploymentName ObjectName `json:"deploymentName,omitempty"`

	// MatchLabels selects the Deployments carrying all these labels; each is
	// scaled and burst on its own.
	//
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=32
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// BurstTargetCluster is a cluster replicas may burst into.
type BurstTargetCluster struct {
	// Cluster is the HybridCluster's name.
	//
	// +required
	Cluster ClusterName `json:"cluster"`

	// Weight is the cluster's share under placement weighted (0 = never used by
	// weighted placement).
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=1
	// +optional
	Weight *int32 `json:"weight,omitempty"`

	// MaxReplicas caps the replicas placed in this cluster. Unset: only the
	// cluster's free capacity and limits cap them.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxReplicas *int32 `json:"maxReplicas,omitempty"`
}

// Algorithm selects the scaling algorithm and its parameters. Only the
// parameters of the chosen algorithm may be set; unset parameters take the
// algorithm's defaults.
//
// +kubebuilder:validation:XValidation:rule="!has(self.kubernetes) || self.name == 'kubernetes'",messageExpression="'algorithm.kubernetes is set but algorithm.name is ' + self.name + ': set name to kubernetes or remove kubernetes'"
// +kubebuilder:validation:XValidation:rule="!has(self.frss) || self.name == 'frss'",messageExpression="'algorithm.frss is set but algorithm.name is ' + self.name + ': set name to frss or remove frss'"
// +kubebuilder:validation:XValidation:rule="!has(self.panic) || self.name == 'panic'",messageExpression="'algorithm.panic is set but algorithm.name is ' + self.name + ': set name to panic or remove panic'"
// +kubebuilder:validation:XValidation:rule="!has(self.adaptive) || self.name == 'adaptive'",messageExpression="'algorithm.adaptive is set but algorithm.name is ' + self.name + ': set name to adaptive or remove adaptive'"
type Algorithm struct {
	// Name is adaptive (the default), kubernetes, frss or panic.
	//
	// +kubebuilder:default=adaptive
	// +optional
	Name AlgorithmName `json:"name,omitempty"`

	// Adaptive are the parameters of algorithm adaptive.
	//
	// +optional
	Adaptive *AdaptiveAlgorithm `json:"adaptive,omitempty"`

	// Kubernetes are the parameters of algorithm kubernetes.
	//
	// +optional
	Kubernetes *KubernetesAlgorithm `json:"kubernetes,omitempty"`

	// FRSS are the parameters of algorithm frss.
	//
	// +optional
	FRSS *FRSSAlgorithm `json:"frss,omitempty"`

	// Panic are the parameters of algorithm panic.
	//
	// +optional
	Panic *PanicAlgorithm `json:"panic,omitempty"`
}

// KubernetesAlgorithm are the Horizontal Pod Autoscaler's parameters. Unset
// fields take Kubernetes' defaults: tolerance 0.1; scale-up window 0 s with
// max(4 pods, 100 %) per 15 s; scale-down window 300 s with 100 % per 15 s.
type KubernetesAlgorithm struct {
	// Tolerance is the relative distance from the target within which the
	// replica count does not change, in [0, 1) ("0.1" = 10 %).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0')) && quantity(string(self)).isLessThan(quantity('1'))",message="tolerance must be in [0, 1), e.g. \"0.1\" for 10 %"
	// +optional
	Tolerance *resource.Quantity `json:"tolerance,omitempty"`

	// ScaleUp are the rules for increasing the replica count.
	//
	// +optional
	ScaleUp *ScalingRules `json:"scaleUp,omitempty"`

	// ScaleDown are the rules for decreasing the replica count.
	//
	// +optional
	ScaleDown *ScalingRules `json:"scaleDown,omitempty"`
}

// SelectPolicy picks among the results of several scaling policies.
//
// +kubebuilder:validation:Enum=Max;Min;Disabled
type SelectPolicy string

const (
	SelectMax      SelectPolicy = "Max"
	SelectMin      SelectPolicy = "Min"
	SelectDisabled SelectPolicy = "Disabled"
)

// ScalingRules are the behaviour of one direction, as autoscaling/v2's
// HPAScalingRules.
type ScalingRules struct {
	// StabilizationWindow is how far back proposals are considered (Go
	// duration, at most 1h).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('1h')",message="stabilizationWindow must be at most 1h"
	// +optional
	StabilizationWindow *metav1.Duration `json:"stabilizationWindow,omitempty"`

	// Tolerance overrides algorithm.kubernetes.tolerance in this direction, in
	// [0, 1).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0')) && quantity(string(self)).isLessThan(quantity('1'))",message="tolerance must be in [0, 1), e.g. \"0.1\" for 10 %"
	// +optional
	Tolerance *resource.Quantity `json:"tolerance,omitempty"`

	// SelectPolicy picks the policy allowing the largest change (Max), the
	// smallest (Min), or forbids changes in this direction (Disabled).
	//
	// +kubebuilder:default=Max
	// +optional
	SelectPolicy SelectPolicy `json:"selectPolicy,omitempty"`

	// Policies limit the change per period.
	//
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Policies []ScalingPolicy `json:"policies,omitempty"`
}

// ScalingPolicyType is the unit of a scaling policy's value.
//
// +kubebuilder:validation:Enum=Pods;Percent
type ScalingPolicyType string

const (
	ScalingPods    ScalingPolicyType = "Pods"
	ScalingPercent ScalingPolicyType = "Percent"
)

// ScalingPolicy allows a change of at most Value pods (or percent of the current
// replicas) per Period.
type ScalingPolicy struct {
	// Type is Pods or Percent.
	//
	// +required
	Type ScalingPolicyType `json:"type"`

	// Value is the allowed change, in pods or percent.
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	Value int32 `json:"value"`

	// Period is the window the change is measured over (Go duration, in
	// (0s, 30m]).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('30m')",message="period must be in (0s, 30m], e.g. \"15s\""
	// +required
	Period metav1.Duration `json:"period"`
}

// FRSSAlgorithm are Fast-Response/Slow-Shrinkage's parameters: scale up at once
// by up to scaleUpRate x the current replicas, shrink by shrinkStep pods per
// downWindow. Desired = ceil(sum of pod utilisations / target).
type FRSSAlgorithm struct {
	// Tolerance is the relative distance from the target within which nothing
	// changes, in [0, 1).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0')) && quantity(string(self)).isLessThan(quantity('1'))",message="tolerance must be in [0, 1), e.g. \"0.2\" for 20 %"
	// +kubebuilder:default="0.2"
	// +optional
	Tolerance *resource.Quantity `json:"tolerance,omitempty"`

	// ScaleUpRate bounds one scale-up step to current x (1 + scaleUpRate)
	// replicas (the paper's 9: up to x10).
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=9
	// +optional
	ScaleUpRate int32 `json:"scaleUpRate,omitempty"`

	// UpWindow is the scale-up stabilisation window (Go duration).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="0s"
	// +optional
	UpWindow *metav1.Duration `json:"upWindow,omitempty"`

	// DownWindow is how long load must stay low before each shrink step (Go
	// duration).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="9m"
	// +optional
	DownWindow *metav1.Duration `json:"downWindow,omitempty"`

	// ShrinkStep is the number of pods removed per downWindow.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	ShrinkStep int32 `json:"shrinkStep,omitempty"`
}

// PanicAlgorithm are Knative KPA's parameters: the replica count follows the
// stable window's average, unless the panic window's average exceeds
// panicThresholdPercent of the current capacity; then it only rises until the
// load has stayed below the threshold for a stable window.
//
// +kubebuilder:validation:XValidation:rule="duration(self.panicWindow) < duration(self.stableWindow)",message="panicWindow must be shorter than stableWindow",fieldPath=".panicWindow"
type PanicAlgorithm struct {
	// StableWindow is the averaging window in normal mode (Go duration, in
	// [6s, 1h]).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('6s') && duration(self) <= duration('1h')",message="stableWindow must be in [6s, 1h]"
	// +kubebuilder:default="60s"
	// +optional
	StableWindow *metav1.Duration `json:"stableWindow,omitempty"`

	// PanicWindow is the averaging window that detects bursts (Go duration,
	// at least 1s and shorter than stableWindow).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="panicWindow must be at least 1s"
	// +kubebuilder:default="6s"
	// +optional
	PanicWindow *metav1.Duration `json:"panicWindow,omitempty"`

	// PanicThresholdPercent is the panic window's load, in percent of the
	// current capacity, that starts panic mode.
	//
	// +kubebuilder:validation:Minimum=110
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=200
	// +optional
	PanicThresholdPercent int32 `json:"panicThresholdPercent,omitempty"`

	// MaxScaleUpRate bounds one step to current x maxScaleUpRate replicas; > 1.
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('1'))",message="maxScaleUpRate must be greater than 1"
	// +kubebuilder:default="1000"
	// +optional
	MaxScaleUpRate *resource.Quantity `json:"maxScaleUpRate,omitempty"`

	// MaxScaleDownRate bounds one step to current / maxScaleDownRate replicas;
	// > 1.
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('1'))",message="maxScaleDownRate must be greater than 1"
	// +kubebuilder:default="2"
	// +optional
	MaxScaleDownRate *resource.Quantity `json:"maxScaleDownRate,omitempty"`
}

// AdaptiveAlgorithm are the adaptive algorithm's parameters: the replica
// count follows the load at once when it rises by a step (to twice what
// the count serves, or more), a smaller rise once the next metric step
// shows it too (and the load forecast horizon ahead when that is higher),
// and falls only to the highest count recommended within
// scaleDownStabilizationWindow.
type AdaptiveAlgorithm struct {
	// ScaleDownStabilizationWindow keeps the highest recommendation of this
	// trailing window, as the HPA's scale-down stabilisation, unless the
	// load fell by a step: once every recommendation of the last minute is
	// at most half the window's highest, the last minute's highest is kept
	// instead (Go duration, in [0s, 1h]).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('1h')",message="scaleDownStabilizationWindow must be in [0s, 1h]"
	// +kubebuilder:default="5m"
	// +optional
	ScaleDownStabilizationWindow *metav1.Duration `json:"scaleDownStabilizationWindow,omitempty"`

	// ForecastHorizon is the time needed to make capacity ready; the count
	// covers the load forecast this far ahead. Unset, the runtime derives
	// it: the metric's age (15 s) plus the pod start-up it measures on the
	// target's pods (creation to Ready, 90th percentile; 10 s until a pod
	// is Ready), in whole 15 s steps; and, when a burst target has node
	// groups, the replicas that do not fit where they start without a new
	// node are forecast further, by the node boot the capacity controller
	// observed (75 s until it timed one) and its round. The
	// MetricsAvailable condition's message says the horizons used. Set, it
	// is the horizon of every replica; 0s turns forecasting off (Go
	// duration, in [0s, 1h]).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('1h')",message="forecastHorizon must be in [0s, 1h]"
	// +optional
	ForecastHorizon *metav1.Duration `json:"forecastHorizon,omitempty"`

	// SeasonalPeriod is the period of the seasonal forecast (24h for a
	// daily pattern, 168h for a weekly one); 0s turns it off (Go duration,
	// at most 192h).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('192h')",message="seasonalPeriod must be in [0s, 192h]"
	// +kubebuilder:default="24h"
	// +optional
	SeasonalPeriod *metav1.Duration `json:"seasonalPeriod,omitempty"`

	// HeadroomPercent keeps this percentage of the replicas the load needs
	// ready on top, rounded up (0 to 1000; 0: none). With
	// headroomReplicas, the larger of the two wins. Spare replicas are
	// kept where they are cheapest: they are the last replicas of the
	// count, so they run in the primary while it has room; those it cannot
	// run go, after the load's burst replicas (placed by spec.placement),
	// to the burst target cheapest per pod-hour with room (its
	// HybridCluster's spec.prices). status.headroom shows where they are
	// and their cost per hour.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	HeadroomPercent int32 `json:"headroomPercent,omitempty"`

	// HeadroomReplicas keeps this many replicas ready on top of the count
	// the load needs (0: none). With headroomPercent, the larger of the two
	// wins. Spare replicas are kept where they are cheapest, as with
	// headroomPercent.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	HeadroomReplicas int32 `json:"headroomReplicas,omitempty"`
}

// ScheduleWindow is a scheduled scaling window: from each time start
// matches in timeZone's wall clock, for duration, the target keeps at least
// minReplicas (raised at once, and started ahead by the adaptive
// algorithm's forecastHorizon, the time the workload needs to make replicas
// ready). A start whose wall-clock time is skipped by a daylight-saving jump
// happens at the end of the jump; one that occurs twice happens once, at
// the first occurrence. Overlapping windows keep the highest floor.
type ScheduleWindow struct {
	// Name identifies the window in status and events (lower case letters,
	// digits and '-', at most 63).
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// Start is a standard 5-field cron expression (minute hour
	// day-of-month month day-of-week), e.g. "0 8 * * MON-FRI". No seconds,
	// no @descriptors, no CRON_TZ= prefix: set timeZone.
	//
	// +kubebuilder:validation:MinLength=9
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.split(' ').filter(f, f != '').size() == 5",message="start must be a 5-field cron expression (minute hour day-of-month month day-of-week), e.g. \"0 8 * * MON-FRI\""
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="start must not carry a CRON_TZ= or TZ= prefix: set timeZone instead"
	// +required
	Start string `json:"start"`

	// Duration is how long the window lasts from each start, in elapsed time
	// (Go duration, in (0s, 168h]).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('168h')",message="duration must be in (0s, 168h], e.g. \"8h\""
	// +required
	Duration metav1.Duration `json:"duration"`

	// TimeZone is the IANA time zone start is read in, e.g.
	// "Europe/Berlin" (default UTC; "Local" is refused).
	//
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$`
	// +kubebuilder:validation:XValidation:rule="self != 'Local'",message="timeZone Local depends on the runtime's machine: name an IANA zone such as Europe/Berlin or UTC"
	// +kubebuilder:default=UTC
	// +optional
	TimeZone string `json:"timeZone,omitempty"`

	// MinReplicas is the floor during the window (at most the policy's
	// maxReplicas).
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	MinReplicas int32 `json:"minReplicas"`
}

// Propagation lists the objects, in the policy's namespace, copied into burst
// clusters with the workload.
type Propagation struct {
	// ConfigMaps to copy.
	//
	// +optional
	ConfigMaps *ObjectSelector `json:"configMaps,omitempty"`

	// Secrets to copy.
	//
	// +optional
	Secrets *ObjectSelector `json:"secrets,omitempty"`

	// Services to copy (without cluster IPs and node ports).
	//
	// +optional
	Services *ObjectSelector `json:"services,omitempty"`
}

// ObjectSelector selects objects of one kind by name, by labels, or both (an
// object matching either is selected).
//
// +kubebuilder:validation:XValidation:rule="has(self.names) || has(self.matchLabels)",message="set names or matchLabels (or both) to select objects to propagate"
type ObjectSelector struct {
	// Names of the objects.
	//
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Names []ObjectName `json:"names,omitempty"`

	// MatchLabels selects the objects carrying all these labels.
	//
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=32
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// ConsulRegistration is how the target's replicas appear in Consul: one
// service instance per cluster (an external node per member cluster), tagged
// with the cluster and its weight, healthy while its pods are ready.
type ConsulRegistration struct {
	// ServiceName is the Consul service (a DNS label).
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	ServiceName string `json:"serviceName"`

	// Port is the port the load balancer sends traffic to.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +required
	Port int32 `json:"port"`

	// Tags added to every registered instance (besides cluster and weight).
	//
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=255
	// +optional
	Tags []string `json:"tags,omitempty"`
}

// BurstPolicyStatus is what the burst controller last did.
type BurstPolicyStatus struct {
	// ObservedGeneration is the spec generation the controller last acted on.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Phase is Watching, Bursting, ScalingBack or Degraded.
	//
	// +optional
	Phase BurstPhase `json:"phase,omitempty"`

	// Replicas of the target per cluster (primary and burst targets).
	//
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=33
	// +optional
	Replicas []ClusterReplicas `json:"replicas,omitempty"`

	// LastDecision is the controller's latest scaling or placement decision.
	//
	// +optional
	LastDecision *Decision `json:"lastDecision,omitempty"`

	// Headroom is the spare replicas the adaptive algorithm keeps on top of
	// the load's need (spec.algorithm.adaptive.headroomReplicas and
	// headroomPercent), summed over the targets, where they are counted and
	// what they cost; absent without spare replicas.
	//
	// +optional
	Headroom *HeadroomStatus `json:"headroom,omitempty"`

	// Conditions: Ready, Degraded, MetricsAvailable.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// HeadroomStatus is a policy's spare replicas and their cost.
type HeadroomStatus struct {
	// Replicas is the number of spare replicas (all targets).
	//
	// +kubebuilder:validation:Minimum=0
	// +required
	Replicas int32 `json:"replicas"`

	// CostPerHour is what the spare replicas cost per hour, in the prices'
	// currency: each one's CPU and memory requests at the prices
	// (spec.prices) of the cluster it is counted in ("0.12"); a cluster
	// without prices counts 0.
	//
	// +required
	CostPerHour Price `json:"costPerHour"`

	// Clusters lists where the spare replicas are counted: the burst
	// clusters that hold replicas, cheapest per pod-hour first, then the
	// primary (the last replicas of the count are the spare ones).
	//
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=33
	// +optional
	Clusters []ClusterHeadroom `json:"clusters,omitempty"`
}

// ClusterHeadroom is the part of the spare replicas one cluster holds.
type ClusterHeadroom struct {
	// Cluster is the HybridCluster's name.
	//
	// +required
	Cluster ClusterName `json:"cluster"`

	// Replicas is the spare replicas counted there.
	//
	// +kubebuilder:validation:Minimum=0
	// +required
	Replicas int32 `json:"replicas"`

	// CostPerHour is what they cost per hour there.
	//
	// +required
	CostPerHour Price `json:"costPerHour"`
}

// ClusterReplicas counts a workload's replicas in one cluster.
type ClusterReplicas struct {
	// Cluster is the HybridCluster's name.
	//
	// +required
	Cluster ClusterName `json:"cluster"`

	// Desired is the replica count set in that cluster.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	Desired int32 `json:"desired"`

	// Ready is the number of ready pods there.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	Ready int32 `json:"ready"`

	// Pending is the number of Unschedulable pods there.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	Pending int32 `json:"pending"`

	// Interrupted is the number of pods there on nodes under a spot
	// interruption notice: they keep serving until their replacements are
	// Ready, then they are removed.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	Interrupted int32 `json:"interrupted,omitempty"`

	// NodesReady and NodesRequested are the cluster's node-group nodes
	// Ready and booting (burst clusters with node groups).
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	NodesReady int32 `json:"nodesReady,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	NodesRequested int32 `json:"nodesRequested,omitempty"`

	// UnreachableSince is when the burst controller first found the cluster
	// unreachable (cleared once it answers again).
	//
	// +optional
	UnreachableSince *metav1.Time `json:"unreachableSince,omitempty"`

	// FailedOverAt is when the cluster's replicas were written off after
	// spec.failoverAfter unreachable and placed elsewhere; the replicas left
	// there are stale and are dealt with in the first round the cluster
	// answers (removed, or kept in place of primary replicas still without
	// a node), then this is cleared.
	//
	// +optional
	FailedOverAt *metav1.Time `json:"failedOverAt,omitempty"`
}

// Decision records one decision of a controller.
type Decision struct {
	// Time of the decision.
	//
	// +required
	Time metav1.Time `json:"time"`

	// Desired is the total replica count decided.
	//
	// +kubebuilder:validation:Minimum=0
	// +required
	Desired int32 `json:"desired"`

	// Reason explains the decision (metric values, deficit, placement).
	//
	// +kubebuilder:validation:MaxLength=1024
	// +required
	Reason string `json:"reason"`
}

// BurstPolicy scales a workload in its primary cluster with the chosen
// algorithm and, when pods stay Unschedulable there, bursts the deficit into
// burst clusters (the HCA Operator's HCAJob).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=bp,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Deployment",type=string,JSONPath=`.spec.target.deploymentName`
// +kubebuilder:printcolumn:name="Primary",type=string,JSONPath=`.spec.primaryCluster`
// +kubebuilder:printcolumn:name="Placement",type=string,JSONPath=`.spec.placement`
// +kubebuilder:printcolumn:name="Min",type=integer,JSONPath=`.spec.minReplicas`
// +kubebuilder:printcolumn:name="Max",type=integer,JSONPath=`.spec.maxReplicas`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.lastDecision.desired`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.lastDecision.reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BurstPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec BurstPolicySpec `json:"spec"`
	// +optional
	Status BurstPolicyStatus `json:"status,omitempty"`
}

// BurstPolicyList is a list of BurstPolicies.
//
// +kubebuilder:object:root=true
type BurstPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BurstPolicy `json:"items"`
}
