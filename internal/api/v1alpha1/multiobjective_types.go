package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WeightPreset names one of the paper's TOPSIS weight sets.
//
// +kubebuilder:validation:Enum=Balanced;ResponseTimeFirst;ResourcesFirst
type WeightPreset string

// The MOHA paper's weight sets (its Table 5): response time against the five
// resource criteria together.
const (
	// WeightsBalanced: response time 0.5, each resource criterion 0.1.
	WeightsBalanced WeightPreset = "Balanced"
	// WeightsResponseTimeFirst: response time 0.9, each resource criterion 0.02.
	WeightsResponseTimeFirst WeightPreset = "ResponseTimeFirst"
	// WeightsResourcesFirst: response time 0.1, each resource criterion 0.18.
	WeightsResourcesFirst WeightPreset = "ResourcesFirst"
)

// MultiObjectiveModelRef names the trained performance model: a key of a
// ConfigMap in the strategy's namespace holding the JSON written by
// `hca-runtime moha train`. A model is not secret but can be hundreds of
// kilobytes (an SVR keeps its support vectors), too large for a spec.
type MultiObjectiveModelRef struct {
	// ConfigMapName is the ConfigMap holding the model.
	//
	// +required
	ConfigMapName ObjectName `json:"configMapName"`

	// Key of the model in the ConfigMap's data.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:default="model.json"
	// +optional
	Key string `json:"key,omitempty"`
}

// MultiObjectiveDesired are the targets eq. 1 aims at (the paper: 1 s, 80 %
// and 80 %).
type MultiObjectiveDesired struct {
	// ResponseTimeMillis is the desired average response time in milliseconds.
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	ResponseTimeMillis int32 `json:"responseTimeMillis"`

	MultiObjectiveDesiredUsage `json:",inline"`
}

// MultiObjectiveDesiredUsage are the desired usages of eq. 1; an SLO of
// kind MultiObjective sets them (its threshold is the response time).
type MultiObjectiveDesiredUsage struct {
	// CPUUsagePercent is the desired CPU usage of a pod, in % of its CPU
	// limit. The default 85 (the paper's is 80) is safe because the loop
	// also keeps the model's predicted response time 20 % under the desired
	// one.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=85
	// +optional
	CPUUsagePercent int32 `json:"cpuUsagePercent,omitempty"`

	// MemoryUsagePercent is the desired memory usage of a pod, in % of its
	// memory limit.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=80
	// +optional
	MemoryUsagePercent int32 `json:"memoryUsagePercent,omitempty"`
}

// MultiObjectiveRanges bound the three parameters the strategy chooses.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.minCPU)).compareTo(quantity(string(self.maxCPU))) <= 0",message="ranges.minCPU must be <= ranges.maxCPU",fieldPath=".minCPU"
// +kubebuilder:validation:XValidation:rule="quantity(string(self.minMemory)).compareTo(quantity(string(self.maxMemory))) <= 0",message="ranges.minMemory must be <= ranges.maxMemory",fieldPath=".minMemory"
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="ranges.minReplicas must be <= ranges.maxReplicas",fieldPath=".minReplicas"
type MultiObjectiveRanges struct {
	// MinCPU is the smallest CPU limit of the container (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="ranges.minCPU must be greater than 0, e.g. \"300m\""
	// +required
	MinCPU resource.Quantity `json:"minCPU"`

	// MaxCPU is the largest CPU limit of the container.
	//
	// +required
	MaxCPU resource.Quantity `json:"maxCPU"`

	// MinMemory is the smallest memory limit of the container (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="ranges.minMemory must be greater than 0, e.g. \"400Mi\""
	// +required
	MinMemory resource.Quantity `json:"minMemory"`

	// MaxMemory is the largest memory limit of the container.
	//
	// +required
	MaxMemory resource.Quantity `json:"maxMemory"`

	// MinReplicas is the fewest replicas.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`

	// MaxReplicas is the most replicas.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	// +required
	MaxReplicas int32 `json:"maxReplicas"`
}

// MultiObjectiveWeights are explicit TOPSIS weights, decimals that sum to 1.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.responseTime)).add(quantity(string(self.cpuUsage))).add(quantity(string(self.memoryUsage))).add(quantity(string(self.cpuLimit))).add(quantity(string(self.memoryLimit))).add(quantity(string(self.replicas))).compareTo(quantity('1')) == 0",message="weights must sum to 1 (responseTime + cpuUsage + memoryUsage + cpuLimit + memoryLimit + replicas)"
type MultiObjectiveWeights struct {
	// ResponseTime weighs minimising the response time (>= 0).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weights.responseTime must be >= 0"
	// +required
	ResponseTime resource.Quantity `json:"responseTime"`
	// CPUUsage weighs maximising the pods' CPU usage (>= 0).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weights.cpuUsage must be >= 0"
	// +required
	CPUUsage resource.Quantity `json:"cpuUsage"`
	// MemoryUsage weighs maximising the pods' memory usage (>= 0).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weights.memoryUsage must be >= 0"
	// +required
	MemoryUsage resource.Quantity `json:"memoryUsage"`
	// CPULimit weighs minimising the CPU limit (>= 0). With MemoryLimit it
	// weighs one criterion, the configuration's cost per hour (replicas ×
	// the pod's CPU and memory limits at the MOHA paper's prices): the two
	// weights are added.
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weights.cpuLimit must be >= 0"
	// +required
	CPULimit resource.Quantity `json:"cpuLimit"`
	// MemoryLimit weighs minimising the memory limit (>= 0); added to
	// CPULimit as the weight of the configuration's cost per hour.
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weights.memoryLimit must be >= 0"
	// +required
	MemoryLimit resource.Quantity `json:"memoryLimit"`
	// Replicas weighs minimising the replica count (>= 0).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weights.replicas must be >= 0"
	// +required
	Replicas resource.Quantity `json:"replicas"`
}

// MultiObjectiveMetrics are the PromQL queries of the four measured inputs;
// each must return one sample. "$namespace" and "$name" are replaced by the
// target's namespace and name. Unset: the queries of the documented metric
// names (http_requests_total, http_request_duration_seconds,
// container_cpu_usage_seconds_total with loadsim_cpu_limit_cores,
// container_memory_working_set_bytes with loadsim_memory_limit_bytes, by the
// pods' app label).
type MultiObjectiveMetrics struct {
	// RequestsPerSecond: the request rate offered to the service.
	//
	// +optional
	RequestsPerSecond string `json:"requestsPerSecond,omitempty"`
	// ResponseTimeMillis: the average response time in milliseconds.
	//
	// +optional
	ResponseTimeMillis string `json:"responseTimeMillis,omitempty"`
	// CPUUsagePercent: the pods' average CPU usage in % of their CPU limit.
	//
	// +optional
	CPUUsagePercent string `json:"cpuUsagePercent,omitempty"`
	// MemoryUsagePercent: the pods' average memory usage in % of their memory
	// limit.
	//
	// +optional
	MemoryUsagePercent string `json:"memoryUsagePercent,omitempty"`
}

// MultiObjectiveElasticityStrategySpec configures the MultiObjective
// strategy: its target, its desired values and the static configuration an
// SLO of kind MultiObjective carries too (the SLO controller writes such an
// object, named after the SLO, from it).
//
// +kubebuilder:validation:XValidation:rule="!(has(self.weights) && has(self.weightPreset))",message="set weights or weightPreset, not both"
type MultiObjectiveElasticityStrategySpec struct {
	// Target is the Deployment whose replicas and container limits change.
	// When a BurstPolicy distributes it (its hca.dev/burst-total annotation),
	// the replicas are the total across clusters: read from that annotation
	// and requested through hca.dev/burst-requested-total, which the policy
	// takes as its total (spec.replicas is then the primary's share).
	//
	// +kubebuilder:validation:XValidation:rule="!has(self.kind) || self.kind == 'Deployment'",message="target.kind must be Deployment"
	// +required
	Target TargetRef `json:"target"`

	// Desired are the targets of eq. 1.
	//
	// +required
	Desired MultiObjectiveDesired `json:"desired"`

	MultiObjectiveStaticConfig `json:",inline"`
}

// MultiObjectiveStaticConfig is the MultiObjective strategy's configuration
// besides its target and desired values: the fields of a
// MultiObjectiveElasticityStrategy's spec, and of an SLO's
// spec.elasticityStrategy.multiObjective.
type MultiObjectiveStaticConfig struct {
	// Container whose CPU and memory limits (and requests, set equal) change.
	// Unset: the pod template's first container.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Container string `json:"container,omitempty"`

	// Model is the ConfigMap key holding the trained performance model.
	//
	// +required
	Model MultiObjectiveModelRef `json:"model"`

	// Ranges bound the CPU limit, memory limit and replicas.
	//
	// +required
	Ranges MultiObjectiveRanges `json:"ranges"`

	// WeightPreset is one of the paper's weight sets; Balanced when neither
	// it nor weights is set.
	//
	// +optional
	WeightPreset WeightPreset `json:"weightPreset,omitempty"`

	// Weights are explicit TOPSIS weights (they must sum to 1).
	//
	// +optional
	Weights *MultiObjectiveWeights `json:"weights,omitempty"`

	// TolerancePercent is the band, in percentage points around the desired
	// usages, within which (with the response time at most the desired one)
	// nothing changes: the paper's 70-90 % around 80 % is 10.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=10
	// +optional
	TolerancePercent int32 `json:"tolerancePercent,omitempty"`

	// Interval between decisions.
	//
	// +kubebuilder:default="30s"
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// Cooldown is the scale-down stabilisation: after a change, no change
	// that lowers the capacity (total CPU, or memory at equal CPU) for this
	// long, so the pods restart and the metrics settle. Increases are made
	// at once, as the Kubernetes HPA and Knative do.
	//
	// +kubebuilder:default="2m"
	// +optional
	Cooldown *metav1.Duration `json:"cooldown,omitempty"`

	// ResizePolicy is how a new pod size reaches the pods. Recreate (the
	// default) patches the pod template with the replicas, which rolls the
	// pods. InPlaceOrRecreate writes the replicas and keeps the template:
	// the size goes into the Deployment's hca.dev/inplace-resources
	// annotation and the runtime resizes the running pods, and each new pod
	// once it starts, through the pods/resize subresource (Kubernetes 1.33+);
	// it falls back to the template patch where the cluster has no
	// pods/resize, a BurstPolicy distributes the Deployment (the burst copies
	// follow the template), or a pod's resize is refused, Infeasible,
	// Deferred for more than 5 minutes or in progress for more than an hour.
	//
	// +kubebuilder:validation:Enum=Recreate;InPlaceOrRecreate
	// +kubebuilder:default=Recreate
	// +optional
	ResizePolicy string `json:"resizePolicy,omitempty"`

	// Metrics override the queries of the measured inputs.
	//
	// +optional
	Metrics *MultiObjectiveMetrics `json:"metrics,omitempty"`
}

// MultiObjectiveChoice is one ranked configuration.
type MultiObjectiveChoice struct {
	// CPU limit of the container.
	CPU resource.Quantity `json:"cpu"`
	// Memory limit of the container.
	Memory resource.Quantity `json:"memory"`
	// Replicas of the Deployment.
	Replicas int32 `json:"replicas"`
	// From says which target eq. 1 computed each parameter from
	// (CPU/memory/replicas, e.g. "response_time/memory_usage/cpu_usage"), or
	// "load/load/load" for the fewest replicas the model predicts within the
	// response-time limit, "range/range/load" for a pod size of the ranges'
	// grid (each range's min, midpoint and max) with those replicas.
	From string `json:"from"`
	// Closeness is the TOPSIS score in [0, 1] (higher is better), as a decimal.
	Closeness string `json:"closeness"`
	// PredictedResponseTimeMillis is the model's response time at the current load.
	PredictedResponseTimeMillis string `json:"predictedResponseTimeMillis"`
	// PredictedCPUUsagePercent is the model's CPU usage at the current load.
	PredictedCPUUsagePercent string `json:"predictedCPUUsagePercent"`
	// PredictedMemoryUsagePercent is the model's memory usage at the current load.
	PredictedMemoryUsagePercent string `json:"predictedMemoryUsagePercent"`
}

// MultiObjectiveElasticityStrategyStatus is what the strategy last measured
// and decided.
type MultiObjectiveElasticityStrategyStatus struct {
	// ObservedGeneration is the spec generation last decided with.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// LastDecisionTime is when the strategy last decided (changed or held).
	//
	// +optional
	LastDecisionTime *metav1.Time `json:"lastDecisionTime,omitempty"`

	// LastScaleTime is when the strategy last changed the Deployment.
	//
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// Replicas, CPU and Memory are the Deployment's configuration after the
	// last decision (replicas: the total across clusters when a BurstPolicy
	// distributes it).
	//
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`

	// Measured are the inputs of the last decision, as decimals:
	// requestsPerSecond, responseTimeMillis, cpuUsagePercent, memoryUsagePercent.
	//
	// +optional
	Measured map[string]string `json:"measured,omitempty"`

	// Chosen is the best-ranked variation of the last decision that ranked.
	//
	// +optional
	Chosen *MultiObjectiveChoice `json:"chosen,omitempty"`

	// Candidates are all ranked variations of that decision, best first (at
	// most 12).
	//
	// +optional
	Candidates []MultiObjectiveChoice `json:"candidates,omitempty"`

	// Remembered are measurements of configurations the strategy ran, oldest
	// first: the mean response time its pods served at a request rate per
	// pod, over an interval in which the configuration had not changed for
	// two intervals or the cooldown, whichever is longer. At most one per pod size and 10 % band of rate per pod,
	// at most 128 (the oldest go). Decisions take a remembered response time over the
	// model's prediction for the same pod size at the same or a slightly
	// higher rate per pod (within 10 %).
	//
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Remembered []MultiObjectiveMeasurement `json:"remembered,omitempty"`

	// Conditions: Ready (the last decision was made and applied), Degraded.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// MultiObjectiveMeasurement is one remembered measurement: pods of CPU and
// Memory limits served RequestsPerSecondPerPod at a mean of
// ResponseTimeMillis (both decimals).
type MultiObjectiveMeasurement struct {
	CPU    resource.Quantity `json:"cpu"`
	Memory resource.Quantity `json:"memory"`
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	RequestsPerSecondPerPod string `json:"requestsPerSecondPerPod"`
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	ResponseTimeMillis string `json:"responseTimeMillis"`
}

// MultiObjectiveElasticityStrategy scales a Deployment's replicas and its
// container's CPU and memory limits together (MOHA): every interval it
// measures request rate, response time and usages, builds the paper's 12
// parameter variations around the current configuration (eq. 1), predicts
// each one's targets with a trained model and applies the TOPSIS winner.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=moes,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target.name`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.status.replicas`
// +kubebuilder:printcolumn:name="CPU",type=string,JSONPath=`.status.cpu`
// +kubebuilder:printcolumn:name="Memory",type=string,JSONPath=`.status.memory`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MultiObjectiveElasticityStrategy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec MultiObjectiveElasticityStrategySpec `json:"spec"`
	// +optional
	Status MultiObjectiveElasticityStrategyStatus `json:"status,omitempty"`
}

// MultiObjectiveElasticityStrategyList is a list of
// MultiObjectiveElasticityStrategies.
//
// +kubebuilder:object:root=true
type MultiObjectiveElasticityStrategyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiObjectiveElasticityStrategy `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &MultiObjectiveElasticityStrategy{}, &MultiObjectiveElasticityStrategyList{})
		return nil
	})
}
