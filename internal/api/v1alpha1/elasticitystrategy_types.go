package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HorizontalStaticConfig bounds the Horizontal strategy.
//
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must be <= maxReplicas",fieldPath=".minReplicas"
type HorizontalStaticConfig struct {
	// MinReplicas is the fewest replicas the strategy sets.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`

	// MaxReplicas is the most replicas the strategy sets.
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	MaxReplicas int32 `json:"maxReplicas"`
}

// VerticalStaticConfig bounds the Vertical strategy, which moves the pods' CPU
// and memory requests in steps.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.minCPU)).compareTo(quantity(string(self.maxCPU))) <= 0",message="minCPU must be <= maxCPU",fieldPath=".minCPU"
// +kubebuilder:validation:XValidation:rule="quantity(string(self.minMemory)).compareTo(quantity(string(self.maxMemory))) <= 0",message="minMemory must be <= maxMemory",fieldPath=".minMemory"
type VerticalStaticConfig struct {
	// Container whose requests change. Unset: every container, in proportion.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Container string `json:"container,omitempty"`

	// MinCPU is the smallest CPU request (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="minCPU must be greater than 0, e.g. \"100m\""
	// +required
	MinCPU resource.Quantity `json:"minCPU"`

	// MaxCPU is the largest CPU request.
	//
	// +required
	MaxCPU resource.Quantity `json:"maxCPU"`

	// MinMemory is the smallest memory request (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="minMemory must be greater than 0, e.g. \"64Mi\""
	// +required
	MinMemory resource.Quantity `json:"minMemory"`

	// MaxMemory is the largest memory request.
	//
	// +required
	MaxMemory resource.Quantity `json:"maxMemory"`

	// CPUStep is the CPU added or removed per step (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="cpuStep must be greater than 0, e.g. \"100m\""
	// +kubebuilder:default="100m"
	// +optional
	CPUStep *resource.Quantity `json:"cpuStep,omitempty"`

	// MemoryStep is the memory added or removed per step (> 0).
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="memoryStep must be greater than 0, e.g. \"64Mi\""
	// +kubebuilder:default="64Mi"
	// +optional
	MemoryStep *resource.Quantity `json:"memoryStep,omitempty"`

	// ResizePolicy is how a new size reaches the pods of a Deployment.
	// Recreate (the default) patches the pod template, which rolls the pods.
	// InPlaceOrRecreate resizes the running pods in place (the pods/resize
	// subresource, Kubernetes 1.33+) and leaves the template as it is: the
	// runtime keeps the size in the Deployment's hca.dev/inplace-resources
	// annotation and resizes each new pod after it starts; it falls back to
	// patching the template (a rolling update) where the cluster has no
	// pods/resize, the target is a StatefulSet, or a pod's resize is refused,
	// Infeasible, Deferred for more than 5 minutes or in progress for more
	// than an hour.
	//
	// +kubebuilder:validation:Enum=Recreate;InPlaceOrRecreate
	// +kubebuilder:default=Recreate
	// +optional
	ResizePolicy string `json:"resizePolicy,omitempty"`
}

// BurstStaticConfig configures the Burst strategy.
type BurstStaticConfig struct {
	// BurstPolicyName is the BurstPolicy, in the SLO's namespace, whose replica
	// count the strategy drives.
	//
	// +required
	BurstPolicyName ObjectName `json:"burstPolicyName"`
}

// SLOOutput is what the SLO controller tells a strategy: how far the SLO is
// from being met.
type SLOOutput struct {
	// CompliancePercent: 100 = met exactly, > 100 violated, < 100 outperformed.
	//
	// +kubebuilder:validation:Minimum=0
	// +required
	CompliancePercent int32 `json:"compliancePercent"`

	// Tolerance is the relative distance of compliance from 100 % within which
	// the strategy changes nothing, in [0, 1).
	//
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0')) && quantity(string(self)).isLessThan(quantity('1'))",message="tolerance must be in [0, 1), e.g. \"0.1\" for 10 %"
	// +kubebuilder:default="0.1"
	// +optional
	Tolerance *resource.Quantity `json:"tolerance,omitempty"`
}

// HorizontalElasticityStrategySpec is the SLO controller's instruction to the
// horizontal strategy controller.
type HorizontalElasticityStrategySpec struct {
	// Target is the workload to scale.
	//
	// +required
	Target TargetRef `json:"target"`

	// SLOOutput is the latest compliance and its tolerance.
	//
	// +required
	SLOOutput SLOOutput `json:"sloOutput"`

	// StaticConfig bounds the replica count.
	//
	// +required
	StaticConfig HorizontalStaticConfig `json:"staticConfig"`

	// Stabilization windows of the scaling.
	//
	// +optional
	Stabilization *StabilizationWindows `json:"stabilization,omitempty"`
}

// HorizontalElasticityStrategyStatus is what the horizontal strategy last did.
type HorizontalElasticityStrategyStatus struct {
	// ObservedGeneration is the spec generation last acted on.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// CurrentReplicas of the target when last observed.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	CurrentReplicas int32 `json:"currentReplicas"`

	// DesiredReplicas is the replica count the strategy last set.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas"`

	// LastScaleTime is when the strategy last changed the replica count.
	//
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// Conditions: Ready, Degraded.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// HorizontalElasticityStrategy scales a workload's replicas toward SLO
// compliance: desired = ceil(current x compliance / 100), within tolerance,
// stabilisation windows and min/max. Written by the SLO controller.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=hes,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target.name`
// +kubebuilder:printcolumn:name="Compliance",type=integer,JSONPath=`.spec.sloOutput.compliancePercent`
// +kubebuilder:printcolumn:name="Min",type=integer,JSONPath=`.spec.staticConfig.minReplicas`
// +kubebuilder:printcolumn:name="Max",type=integer,JSONPath=`.spec.staticConfig.maxReplicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type HorizontalElasticityStrategy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec HorizontalElasticityStrategySpec `json:"spec"`
	// +optional
	Status HorizontalElasticityStrategyStatus `json:"status,omitempty"`
}

// HorizontalElasticityStrategyList is a list of HorizontalElasticityStrategies.
//
// +kubebuilder:object:root=true
type HorizontalElasticityStrategyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HorizontalElasticityStrategy `json:"items"`
}

// VerticalElasticityStrategySpec is the SLO controller's instruction to the
// vertical strategy controller.
type VerticalElasticityStrategySpec struct {
	// Target is the workload whose pods' requests change.
	//
	// +required
	Target TargetRef `json:"target"`

	// SLOOutput is the latest compliance and its tolerance.
	//
	// +required
	SLOOutput SLOOutput `json:"sloOutput"`

	// StaticConfig bounds the requests and sets the step.
	//
	// +required
	StaticConfig VerticalStaticConfig `json:"staticConfig"`

	// Stabilization windows of the changes.
	//
	// +optional
	Stabilization *StabilizationWindows `json:"stabilization,omitempty"`
}

// VerticalElasticityStrategyStatus is what the vertical strategy last did.
type VerticalElasticityStrategyStatus struct {
	// ObservedGeneration is the spec generation last acted on.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// CurrentCPU is the CPU request the strategy last set (per pod, the
	// configured container or all of them).
	//
	// +optional
	CurrentCPU *resource.Quantity `json:"currentCPU,omitempty"`

	// CurrentMemory is the memory request the strategy last set.
	//
	// +optional
	CurrentMemory *resource.Quantity `json:"currentMemory,omitempty"`

	// LastScaleTime is when the strategy last changed the requests.
	//
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// Conditions: Ready, Degraded.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// VerticalElasticityStrategy moves a workload's CPU and memory requests toward
// SLO compliance in steps within bounds. Written by the SLO controller.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=ves,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target.name`
// +kubebuilder:printcolumn:name="Compliance",type=integer,JSONPath=`.spec.sloOutput.compliancePercent`
// +kubebuilder:printcolumn:name="CPU",type=string,JSONPath=`.status.currentCPU`
// +kubebuilder:printcolumn:name="Memory",type=string,JSONPath=`.status.currentMemory`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type VerticalElasticityStrategy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec VerticalElasticityStrategySpec `json:"spec"`
	// +optional
	Status VerticalElasticityStrategyStatus `json:"status,omitempty"`
}

// VerticalElasticityStrategyList is a list of VerticalElasticityStrategies.
//
// +kubebuilder:object:root=true
type VerticalElasticityStrategyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VerticalElasticityStrategy `json:"items"`
}

// BurstElasticityStrategySpec is the SLO controller's instruction to the burst
// controller: the total replica count of a BurstPolicy follows the SLO.
type BurstElasticityStrategySpec struct {
	// BurstPolicyName is the BurstPolicy, in the strategy's namespace, whose
	// total replica count (all clusters) the strategy drives.
	//
	// +required
	BurstPolicyName ObjectName `json:"burstPolicyName"`

	// SLOOutput is the latest compliance and its tolerance.
	//
	// +required
	SLOOutput SLOOutput `json:"sloOutput"`

	// Stabilization windows of the total (the SLO's; unset: up at once, down
	// after 5 minutes, as the Horizontal strategy).
	//
	// +optional
	Stabilization *StabilizationWindows `json:"stabilization,omitempty"`

	// EvaluatedAt is when the SLO produced this output. Each evaluation is a
	// new output (a new generation), so that the stabilisation windows see
	// every recommendation, also when compliance does not change.
	//
	// +optional
	EvaluatedAt *metav1.Time `json:"evaluatedAt,omitempty"`
}

// BurstElasticityStrategyStatus is what the burst controller last did with the
// strategy's output.
type BurstElasticityStrategyStatus struct {
	// ObservedGeneration is the spec generation (SLO output) last applied.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// DesiredReplicas is the total (all clusters) last decided from the output.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas"`

	// Conditions: Ready (the output was applied to the policy's total), Degraded.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// BurstElasticityStrategy drives a BurstPolicy's total replica count toward SLO
// compliance: total = ceil(total x compliance / 100), within tolerance,
// stabilisation windows and the policy's min/max; the overflow bursts as the
// policy says. Written by the SLO controller (one per SLO of kind Burst, named
// after it), read by the burst controller.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=bes,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.spec.burstPolicyName`
// +kubebuilder:printcolumn:name="Compliance",type=integer,JSONPath=`.spec.sloOutput.compliancePercent`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BurstElasticityStrategy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec BurstElasticityStrategySpec `json:"spec"`
	// +optional
	Status BurstElasticityStrategyStatus `json:"status,omitempty"`
}

// BurstElasticityStrategyList is a list of BurstElasticityStrategies.
//
// +kubebuilder:object:root=true
type BurstElasticityStrategyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BurstElasticityStrategy `json:"items"`
}
