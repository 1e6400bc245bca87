package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SLOType is the kind of service level objective.
//
// +kubebuilder:validation:Enum=cpu-utilization;latency;cost-efficiency;availability;custom
type SLOType string

const (
	// SLOCPUUtilization: mean CPU utilisation of the pods, in percent of requests.
	SLOCPUUtilization SLOType = "cpu-utilization"
	// SLOLatency: a percentile of the response time under a threshold.
	SLOLatency SLOType = "latency"
	// SLOCostEfficiency: requests per second faster than a threshold, divided by
	// the workload's cost per hour (Polaris' cost efficiency).
	SLOCostEfficiency SLOType = "cost-efficiency"
	// SLOAvailability: the share of requests answered without a server error.
	SLOAvailability SLOType = "availability"
	// SLOCustom: a PromQL query compared with a target in a direction.
	SLOCustom SLOType = "custom"
)

// ServiceLevelObjectiveSpec maps an SLO on a workload to the elasticity strategy
// that enforces it (Polaris' SloMapping). Changing elasticityStrategy.kind swaps
// the strategy without touching the SLO controller.
//
// +kubebuilder:validation:XValidation:rule="self.elasticityStrategy.kind != 'MultiObjective' || self.slo.type == 'latency'",messageExpression="'elasticityStrategy.kind MultiObjective needs an objective on the response time: slo.type latency, whose threshold is the desired response time (slo.type is ' + self.slo.type + ')'"
// +kubebuilder:validation:XValidation:rule="self.elasticityStrategy.kind != 'MultiObjective' || !has(self.target.kind) || self.target.kind == 'Deployment'",message="elasticityStrategy.kind MultiObjective scales a Deployment: set target.kind to Deployment"
type ServiceLevelObjectiveSpec struct {
	// Target is the workload the SLO is about.
	//
	// +required
	Target TargetRef `json:"target"`

	// SLO is the objective: its type and the type's parameters.
	//
	// +required
	SLO SLOSpec `json:"slo"`

	// Tolerance is the relative distance of compliance from 100 % within which
	// the strategy changes nothing, in [0, 1) ("0.1": 90-110 % is compliant).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0')) && quantity(string(self)).isLessThan(quantity('1'))",message="tolerance must be in [0, 1), e.g. \"0.1\" for 10 %"
	// +kubebuilder:default="0.1"
	// +optional
	Tolerance *resource.Quantity `json:"tolerance,omitempty"`

	// EvaluationInterval is how often the SLO is evaluated (Go duration, at
	// least 1s).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="evaluationInterval must be at least 1s, e.g. \"20s\""
	// +kubebuilder:default="20s"
	// +optional
	EvaluationInterval *metav1.Duration `json:"evaluationInterval,omitempty"`

	// Stabilization windows applied by the strategy. Unset: scale up at once,
	// scale down after 5m.
	//
	// +optional
	Stabilization *StabilizationWindows `json:"stabilization,omitempty"`

	// ElasticityStrategy is the strategy that enforces the SLO and its static
	// configuration.
	//
	// +required
	ElasticityStrategy ElasticityStrategy `json:"elasticityStrategy"`
}

// SLOSpec is a typed union: type says which one of the other fields applies,
// and only that one may be set.
//
// +kubebuilder:validation:XValidation:rule="self.type == 'cpu-utilization' ? has(self.cpuUtilization) : !has(self.cpuUtilization)",messageExpression="self.type == 'cpu-utilization' ? 'slo.cpuUtilization (targetAverageUtilization) is required when slo.type is cpu-utilization' : 'slo.cpuUtilization is set but slo.type is ' + self.type + ': remove cpuUtilization or set type to cpu-utilization'"
// +kubebuilder:validation:XValidation:rule="self.type == 'latency' ? has(self.latency) : !has(self.latency)",messageExpression="self.type == 'latency' ? 'slo.latency (percentile and threshold) is required when slo.type is latency' : 'slo.latency is set but slo.type is ' + self.type + ': remove latency or set type to latency'"
// +kubebuilder:validation:XValidation:rule="self.type == 'cost-efficiency' ? has(self.costEfficiency) : !has(self.costEfficiency)",messageExpression="self.type == 'cost-efficiency' ? 'slo.costEfficiency (responseTimeThreshold and targetCostEfficiency) is required when slo.type is cost-efficiency' : 'slo.costEfficiency is set but slo.type is ' + self.type + ': remove costEfficiency or set type to cost-efficiency'"
// +kubebuilder:validation:XValidation:rule="self.type == 'availability' ? has(self.availability) : !has(self.availability)",messageExpression="self.type == 'availability' ? 'slo.availability (targetPercent) is required when slo.type is availability' : 'slo.availability is set but slo.type is ' + self.type + ': remove availability or set type to availability'"
// +kubebuilder:validation:XValidation:rule="self.type == 'custom' ? has(self.custom) : !has(self.custom)",messageExpression="self.type == 'custom' ? 'slo.custom (query and targetValue) is required when slo.type is custom' : 'slo.custom is set but slo.type is ' + self.type + ': remove custom or set type to custom'"
type SLOSpec struct {
	// Type is cpu-utilization, latency, cost-efficiency, availability or custom.
	//
	// +required
	Type SLOType `json:"type"`

	// CPUUtilization parameters; required for type cpu-utilization.
	//
	// +optional
	CPUUtilization *CPUUtilizationSLO `json:"cpuUtilization,omitempty"`

	// Latency parameters; required for type latency.
	//
	// +optional
	Latency *LatencySLO `json:"latency,omitempty"`

	// CostEfficiency parameters; required for type cost-efficiency.
	//
	// +optional
	CostEfficiency *CostEfficiencySLO `json:"costEfficiency,omitempty"`

	// Availability parameters; required for type availability.
	//
	// +optional
	Availability *AvailabilitySLO `json:"availability,omitempty"`

	// Custom parameters; required for type custom.
	//
	// +optional
	Custom *CustomSLO `json:"custom,omitempty"`
}

// CPUUtilizationSLO is met while the pods' mean CPU utilisation equals the
// target (compliance = utilisation / target x 100).
type CPUUtilizationSLO struct {
	// TargetAverageUtilization is the wanted mean CPU use, in percent of the
	// pods' requests.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +required
	TargetAverageUtilization int32 `json:"targetAverageUtilization"`
}

// LatencySLO is met while the given percentile of the response time stays under
// the threshold (compliance = percentile latency / threshold x 100).
type LatencySLO struct {
	// Percentile of the response time, in (0, 100) ("99", "99.9").
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0')) && quantity(string(self)).isLessThan(quantity('100'))",message="latency.percentile must be in (0, 100), e.g. \"99\""
	// +required
	Percentile resource.Quantity `json:"percentile"`

	// Threshold is the response time the percentile must stay under (Go
	// duration, > 0).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="latency.threshold must be greater than 0, e.g. \"200ms\""
	// +required
	Threshold metav1.Duration `json:"threshold"`

	// HistogramMetric is the Prometheus histogram of response times in seconds
	// (without the _bucket suffix), labelled with the pods' namespace and app.
	//
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_:][a-zA-Z0-9_:]*$`
	// +kubebuilder:default=http_request_duration_seconds
	// +optional
	HistogramMetric string `json:"histogramMetric,omitempty"`
}

// CostEfficiencySLO is Polaris' cost efficiency: requests per second answered
// faster than responseTimeThreshold, divided by the workload's cost per hour
// (HybridCluster prices x the pods' requests). It is met at targetCostEfficiency.
type CostEfficiencySLO struct {
	// ResponseTimeThreshold is the response time under which a request counts
	// as fast (Go duration, > 0).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="costEfficiency.responseTimeThreshold must be greater than 0, e.g. \"100ms\""
	// +required
	ResponseTimeThreshold metav1.Duration `json:"responseTimeThreshold"`

	// TargetCostEfficiency is the wanted fast requests per second per unit of
	// cost per hour (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="costEfficiency.targetCostEfficiency must be greater than 0"
	// +required
	TargetCostEfficiency resource.Quantity `json:"targetCostEfficiency"`

	// MinRequestsPercentile is the share of requests, in percent, that must be
	// faster than the threshold whatever the cost: below it the SLO is violated.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MinRequestsPercentile *int32 `json:"minRequestsPercentile,omitempty"`

	// HistogramMetric is the Prometheus histogram of response times in seconds
	// (without the _bucket suffix).
	//
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_:][a-zA-Z0-9_:]*$`
	// +kubebuilder:default=http_request_duration_seconds
	// +optional
	HistogramMetric string `json:"histogramMetric,omitempty"`
}

// AvailabilitySLO is met while the share of requests answered without a server
// error reaches targetPercent.
type AvailabilitySLO struct {
	// TargetPercent is the wanted share of successful requests, in (0, 100]
	// ("99.9").
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0')) && quantity(string(self)).compareTo(quantity('100')) <= 0",message="availability.targetPercent must be in (0, 100], e.g. \"99.9\""
	// +required
	TargetPercent resource.Quantity `json:"targetPercent"`

	// RequestsMetric is the Prometheus counter of requests, with a code label.
	//
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_:][a-zA-Z0-9_:]*$`
	// +kubebuilder:default=http_requests_total
	// +optional
	RequestsMetric string `json:"requestsMetric,omitempty"`

	// ErrorCodes is the regular expression (PromQL =~) of the code label
	// values that count as failures.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:default="5.."
	// +optional
	ErrorCodes string `json:"errorCodes,omitempty"`
}

// Direction says on which side of its target a custom SLO's value is good.
//
// +kubebuilder:validation:Enum=below;above
type Direction string

const (
	// DirectionBelow: met while value <= target (latency, errors);
	// compliance = value / target x 100.
	DirectionBelow Direction = "below"
	// DirectionAbove: met while value >= target (throughput);
	// compliance = target / value x 100.
	DirectionAbove Direction = "above"
)

// CustomSLO compares a PromQL query's value with a target.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.targetValue)).isGreaterThan(quantity('0'))",message="custom.targetValue must be greater than 0 (compliance divides by it)",fieldPath=".targetValue"
type CustomSLO struct {
	// Query is the PromQL expression; it must return a single sample.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +required
	Query string `json:"query"`

	// TargetValue is the value at which the SLO is exactly met.
	//
	// +required
	TargetValue resource.Quantity `json:"targetValue"`

	// Direction is below (smaller is better) or above (larger is better).
	//
	// +kubebuilder:default=below
	// +optional
	Direction Direction `json:"direction,omitempty"`
}

// StrategyKind names an elasticity strategy.
//
// +kubebuilder:validation:Enum=Horizontal;Vertical;Burst;MultiObjective
type StrategyKind string

const (
	// StrategyHorizontal changes the replica count (HorizontalElasticityStrategy).
	StrategyHorizontal StrategyKind = "Horizontal"
	// StrategyVertical changes the pods' CPU and memory requests
	// (VerticalElasticityStrategy).
	StrategyVertical StrategyKind = "Vertical"
	// StrategyBurst drives a BurstPolicy's replica count (BurstElasticityStrategy), so that the overflow
	// runs in burst clusters.
	StrategyBurst StrategyKind = "Burst"
	// StrategyMultiObjective changes replicas and the pods' CPU and memory
	// limits together from a performance model (MOHA,
	// MultiObjectiveElasticityStrategy), aiming at the latency SLO's threshold.
	StrategyMultiObjective StrategyKind = "MultiObjective"
)

// ElasticityStrategy names the strategy enforcing an SLO and carries the static
// configuration of each strategy. Configurations of other kinds may stay set, so
// that swapping strategy is an edit of kind alone.
//
// +kubebuilder:validation:XValidation:rule="self.kind != 'Horizontal' || has(self.horizontal)",message="elasticityStrategy.horizontal (minReplicas and maxReplicas) is required when kind is Horizontal"
// +kubebuilder:validation:XValidation:rule="self.kind != 'Vertical' || has(self.vertical)",message="elasticityStrategy.vertical (minCPU, maxCPU, minMemory and maxMemory) is required when kind is Vertical"
// +kubebuilder:validation:XValidation:rule="self.kind != 'Burst' || has(self.burst)",message="elasticityStrategy.burst (burstPolicyName) is required when kind is Burst"
// +kubebuilder:validation:XValidation:rule="self.kind != 'MultiObjective' || has(self.multiObjective)",message="elasticityStrategy.multiObjective (model and ranges) is required when kind is MultiObjective"
type ElasticityStrategy struct {
	// Kind is Horizontal, Vertical, Burst or MultiObjective.
	//
	// +required
	Kind StrategyKind `json:"kind"`

	// Horizontal is the static configuration of the Horizontal strategy.
	//
	// +optional
	Horizontal *HorizontalStaticConfig `json:"horizontal,omitempty"`

	// Vertical is the static configuration of the Vertical strategy.
	//
	// +optional
	Vertical *VerticalStaticConfig `json:"vertical,omitempty"`

	// Burst is the static configuration of the Burst strategy.
	//
	// +optional
	Burst *BurstStaticConfig `json:"burst,omitempty"`

	// MultiObjective is the static configuration of the MultiObjective
	// strategy. The SLO controller writes a MultiObjectiveElasticityStrategy
	// named after the SLO with it, the SLO's target, and the latency
	// threshold as the desired (average) response time.
	//
	// +optional
	MultiObjective *MultiObjectiveSLOConfig `json:"multiObjective,omitempty"`
}

// MultiObjectiveSLOConfig configures the MultiObjective strategy of an SLO:
// every field of a MultiObjectiveElasticityStrategy's spec but the target
// and the desired response time, which come from the SLO.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.weights) && has(self.weightPreset))",message="set weights or weightPreset, not both"
type MultiObjectiveSLOConfig struct {
	// Desired are the desired CPU and memory usages of eq. 1 (defaults 85
	// and 80 %).
	//
	// +optional
	Desired *MultiObjectiveDesiredUsage `json:"desired,omitempty"`

	MultiObjectiveStaticConfig `json:",inline"`
}

// StrategyRef names the strategy object an SLO controller wrote.
type StrategyRef struct {
	// Kind of the object (HorizontalElasticityStrategy, ...).
	//
	// +kubebuilder:validation:MaxLength=63
	// +required
	Kind string `json:"kind"`

	// Name of the object, in the SLO's namespace.
	//
	// +required
	Name ObjectName `json:"name"`
}

// ServiceLevelObjectiveStatus is the latest evaluation of the SLO.
type ServiceLevelObjectiveStatus struct {
	// ObservedGeneration is the spec generation last evaluated.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// CurrentValue is the SLO metric's latest value, formatted with its unit
	// ("183ms", "62%").
	//
	// +kubebuilder:validation:MaxLength=64
	// +optional
	CurrentValue string `json:"currentValue,omitempty"`

	// CompliancePercent: 100 = met exactly, > 100 violated, < 100 outperformed.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	CompliancePercent *int32 `json:"compliancePercent,omitempty"`

	// LastEvaluationTime is when the evaluation written here was made. A
	// change of compliance, strategy or conditions is written at once; while
	// only the current value changes, the status is written at least every
	// status heartbeat (hca-runtime --slo-status-heartbeat, default 5m), so
	// it may be up to that old.
	//
	// +optional
	LastEvaluationTime *metav1.Time `json:"lastEvaluationTime,omitempty"`

	// Strategy is the elasticity strategy object the SLO currently writes.
	//
	// +optional
	Strategy *StrategyRef `json:"strategy,omitempty"`

	// Conditions: Ready, MetricsAvailable, Degraded.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// ServiceLevelObjective is an SLO on a workload and the elasticity strategy
// that enforces it (Polaris' SloMapping).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=slo,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.slo.type`
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target.name`
// +kubebuilder:printcolumn:name="Strategy",type=string,JSONPath=`.spec.elasticityStrategy.kind`
// +kubebuilder:printcolumn:name="Value",type=string,JSONPath=`.status.currentValue`
// +kubebuilder:printcolumn:name="Compliance",type=integer,JSONPath=`.status.compliancePercent`
// +kubebuilder:printcolumn:name="Evaluated",type=date,JSONPath=`.status.lastEvaluationTime`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ServiceLevelObjective struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ServiceLevelObjectiveSpec `json:"spec"`
	// +optional
	Status ServiceLevelObjectiveStatus `json:"status,omitempty"`
}

// ServiceLevelObjectiveList is a list of ServiceLevelObjectives.
//
// +kubebuilder:object:root=true
type ServiceLevelObjectiveList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ServiceLevelObjective `json:"items"`
}
