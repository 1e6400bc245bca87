package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FederatedAutoscalerSpec is one replica range over a workload deployed in
// several member clusters (the Federated Pod Autoscaler design, alternative 1).
// The runtime partitions minReplicas and maxReplicas over the members and
// creates an autoscaling/v2 HPA with its partition in each, so that scaling
// goes on in every member while the runtime is down.
//
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must be <= maxReplicas",fieldPath=".minReplicas"
// +kubebuilder:validation:XValidation:rule="self.maxReplicas >= size(self.members)",message="maxReplicas must be at least the number of members (each member's HPA needs maxReplicas >= 1)",fieldPath=".maxReplicas"
// +kubebuilder:validation:XValidation:rule="!has(self.schedules) || self.schedules.all(w, w.minReplicas <= self.maxReplicas)",message="schedules[].minReplicas must be <= maxReplicas: lower the window's floor or raise maxReplicas",fieldPath=".schedules"
type FederatedAutoscalerSpec struct {
	// Target is the workload, deployed under the same name and namespace in
	// every member.
	//
	// +required
	Target TargetRef `json:"target"`

	// Members are the HybridClusters the workload runs in.
	//
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +required
	Members []FederatedMember `json:"members"`

	// MinReplicas is the fewest replicas over all members.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`

	// MaxReplicas is the most replicas over all members.
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	MaxReplicas int32 `json:"maxReplicas"`

	// Metrics of the members' HPAs. Only type Resource: member HPAs read the
	// members' resource metrics. Unset: CPU at 80 % of requests.
	//
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.all(m, m.type == 'Resource')",message="metrics: only type Resource is supported, because each member's autoscaling/v2 HPA evaluates them without Prometheus"
	// +kubebuilder:default={{type: Resource, resource: {name: cpu, targetAverageUtilization: 80}}}
	// +optional
	Metrics []MetricSpec `json:"metrics,omitempty"`

	// ScaleForbiddenWindow is how long after a member's last scale its
	// partition is left alone by rebalancing (Go duration).
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="1m"
	// +optional
	ScaleForbiddenWindow *metav1.Duration `json:"scaleForbiddenWindow,omitempty"`

	// Schedules are windows that raise minReplicas over all members while
	// they are in force (the partition gives each member its share).
	//
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Schedules []ScheduleWindow `json:"schedules,omitempty"`
}

// FederatedMember is a member cluster of a FederatedAutoscaler.
type FederatedMember struct {
	// Cluster is the HybridCluster's name.
	//
	// +required
	Cluster ClusterName `json:"cluster"`
}

// FederatedClusterStatus is one member's partition and replicas.
type FederatedClusterStatus struct {
	// Cluster is the HybridCluster's name.
	//
	// +required
	Cluster ClusterName `json:"cluster"`

	// MinReplicas is the member HPA's minReplicas (0: not placed there).
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinReplicas int32 `json:"minReplicas"`

	// MaxReplicas is the member HPA's maxReplicas.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxReplicas int32 `json:"maxReplicas"`

	// CurrentReplicas reported by the member HPA.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	CurrentReplicas int32 `json:"currentReplicas"`

	// DesiredReplicas reported by the member HPA.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas"`

	// LastScaleTime reported by the member HPA.
	//
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`
}

// FederatedAutoscalerStatus is the partition the runtime last applied.
type FederatedAutoscalerStatus struct {
	// ObservedGeneration is the spec generation last acted on.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// CurrentReplicas is the sum over members.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	CurrentReplicas int32 `json:"currentReplicas"`

	// DesiredReplicas is the sum over members.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas"`

	// Clusters are the members' partitions and replicas.
	//
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Clusters []FederatedClusterStatus `json:"clusters,omitempty"`

	// Conditions: Ready, Degraded.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// FederatedAutoscaler keeps one replica range over a workload deployed in
// several member clusters by partitioning it into per-member HPAs.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=fa,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target.name`
// +kubebuilder:printcolumn:name="Min",type=integer,JSONPath=`.spec.minReplicas`
// +kubebuilder:printcolumn:name="Max",type=integer,JSONPath=`.spec.maxReplicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type FederatedAutoscaler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec FederatedAutoscalerSpec `json:"spec"`
	// +optional
	Status FederatedAutoscalerStatus `json:"status,omitempty"`
}

// FederatedAutoscalerList is a list of FederatedAutoscalers.
//
// +kubebuilder:object:root=true
type FederatedAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FederatedAutoscaler `json:"items"`
}
