package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterRole is what a HybridCluster is for.
//
// +kubebuilder:validation:Enum=primary;burst
type ClusterRole string

const (
	// RolePrimary clusters run workloads normally (the private cloud).
	RolePrimary ClusterRole = "primary"
	// RoleBurst clusters receive the overflow of primary clusters.
	RoleBurst ClusterRole = "burst"
)

// ClusterProvider says who runs a HybridCluster and so how the runtime
// authenticates to it.
//
// +kubebuilder:validation:Enum=private;eks;ack
type ClusterProvider string

const (
	// ProviderPrivate is a self-managed cluster reached with a kubeconfig.
	ProviderPrivate ClusterProvider = "private"
	// ProviderEKS is Amazon EKS: the runtime mints short-lived tokens itself.
	ProviderEKS ClusterProvider = "eks"
	// ProviderACK is Alibaba Cloud Container Service for Kubernetes, reached with
	// a kubeconfig.
	ProviderACK ClusterProvider = "ack"
)

// HybridClusterSpec describes a member cluster of the hybrid cloud.
//
// +kubebuilder:validation:XValidation:rule="self.provider != 'eks' || has(self.credentials.eks)",message="credentials.eks (clusterName and region) is required when provider is eks",fieldPath=".credentials"
// +kubebuilder:validation:XValidation:rule="self.provider == 'eks' || has(self.credentials.secretRef)",message="credentials.secretRef (a Secret holding a kubeconfig) is required when provider is private or ack",fieldPath=".credentials"
// +kubebuilder:validation:XValidation:rule="self.provider == 'eks' || !has(self.credentials.eks)",message="credentials.eks is only valid with provider eks: remove it or set provider to eks",fieldPath=".credentials"
// +kubebuilder:validation:XValidation:rule="self.provider != 'eks' || !has(self.credentials.secretRef)",message="credentials.secretRef is not used with provider eks (the runtime mints EKS tokens with its own AWS identity): remove it",fieldPath=".credentials"
type HybridClusterSpec struct {
	// Role is primary (runs workloads normally) or burst (receives overflow).
	//
	// +required
	Role ClusterRole `json:"role"`

	// Provider is private, eks or ack. It cannot change: delete and recreate the
	// HybridCluster instead.
	//
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provider is immutable: delete and recreate the HybridCluster to change it"
	// +required
	Provider ClusterProvider `json:"provider"`

	// Credentials say how the runtime reaches the cluster's API server.
	//
	// +required
	Credentials ClusterCredentials `json:"credentials"`

	// Priority ranks the cluster for placement "priority": higher values are
	// used first; equal priorities keep the order of a BurstPolicy's burstTargets.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +kubebuilder:default=0
	// +optional
	Priority int32 `json:"priority"`

	// Prices of the cluster's capacity, used by placement "cheapest", by cost
	// metrics and to scale back the most expensive replicas first. Unset: free.
	//
	// +optional
	Prices *ClusterPrices `json:"prices,omitempty"`

	// Limits cap what the hybrid cloud may use in this cluster. Unset: its free
	// capacity.
	//
	// +optional
	Limits *ClusterLimits `json:"limits,omitempty"`

	// NodeGroups are the cluster's node groups the runtime grows for bursts
	// and releases after them (scale from zero). Empty: the cluster's nodes
	// are fixed and placement uses its free capacity only.
	//
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +optional
	NodeGroups []NodeGroup `json:"nodeGroups,omitempty"`
}

// CapacityType says whether a node group's nodes are on-demand or spot.
//
// +kubebuilder:validation:Enum=OnDemand;Spot
type CapacityType string

const (
	CapacityOnDemand CapacityType = "OnDemand"
	CapacitySpot     CapacityType = "Spot"
)

// NodeGroup is a group of identical nodes the runtime may grow and shrink:
// an EKS managed node group or an ACK node pool. Its size is the runtime's
// to set: Terraform creates the group (hca_eks_cluster, hca_ack_cluster) and
// leaves its desired size alone.
//
// +kubebuilder:validation:XValidation:rule="self.minNodes <= self.maxNodes",message="minNodes must be <= maxNodes",fieldPath=".minNodes"
// +kubebuilder:validation:XValidation:rule="has(self.eks) != has(self.ack)",message="set exactly one of eks (an EKS managed node group) or ack (an ACK node pool)"
type NodeGroup struct {
	// Name identifies the group in statuses ("burst-spot").
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// EKS is the managed node group the group is (exactly one of eks, ack).
	//
	// +optional
	EKS *EKSNodeGroupRef `json:"eks,omitempty"`

	// ACK is the ACK node pool the group is (exactly one of eks, ack).
	//
	// +optional
	ACK *ACKNodePoolRef `json:"ack,omitempty"`

	// InstanceType of the nodes ("m5.xlarge"), for statuses and events.
	//
	// +kubebuilder:validation:MaxLength=64
	// +optional
	InstanceType string `json:"instanceType,omitempty"`

	// CapacityType of the nodes: OnDemand or Spot (interruptible, cheaper;
	// used only for policies that allow spot).
	//
	// +kubebuilder:default=OnDemand
	// +optional
	CapacityType CapacityType `json:"capacityType,omitempty"`

	// Allocatable is what one node offers pods.
	//
	// +required
	Allocatable NodeAllocatable `json:"allocatable"`

	// PricePerHour is one node's price in dollars per hour ("0.192").
	//
	// +required
	PricePerHour Price `json:"pricePerHour"`

	// MinNodes is the fewest nodes the runtime leaves (0: scale to zero).
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinNodes int32 `json:"minNodes"`

	// MaxNodes is the most nodes the runtime asks for.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +required
	MaxNodes int32 `json:"maxNodes"`

	// Labels the group's nodes carry (for pods' node selectors).
	//
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Taints the group's nodes carry (pods must tolerate them).
	//
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Taints []corev1.Taint `json:"taints,omitempty"`
}

// EKSNodeGroupRef names an EKS managed node group.
type EKSNodeGroupRef struct {
	// ClusterName is the EKS cluster's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=100
	// +required
	ClusterName string `json:"clusterName"`

	// Region of the cluster ("eu-west-1").
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +required
	Region string `json:"region"`

	// NodegroupName is the managed node group's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	NodegroupName string `json:"nodegroupName"`
}

// ACKNodePoolRef names an Alibaba Cloud ACK node pool. Its nodes carry the
// label alibabacloud.com/nodepool-id with NodePoolID.
type ACKNodePoolRef struct {
	// ClusterID is the ACK cluster's ID ("c82e6987e2961451182edacd74faf0000").
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	ClusterID string `json:"clusterID"`

	// Region of the cluster ("cn-hangzhou").
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +required
	Region string `json:"region"`

	// NodePoolID is the node pool's ID ("np1234abcd").
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	NodePoolID string `json:"nodePoolID"`
}

// NodeAllocatable is what one node offers pods.
type NodeAllocatable struct {
	// CPU allocatable per node ("3920m").
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="allocatable.cpu must be greater than 0"
	// +required
	CPU resource.Quantity `json:"cpu"`

	// Memory allocatable per node ("15Gi").
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="allocatable.memory must be greater than 0"
	// +required
	Memory resource.Quantity `json:"memory"`

	// Pods per node.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=110
	// +optional
	Pods int32 `json:"pods,omitempty"`
}

// NodeGroupStatus is what the runtime last saw of and did with a node group.
type NodeGroupStatus struct {
	// Name of the group (spec.nodeGroups).
	Name string `json:"name"`

	// DesiredNodes is the cloud's desired size.
	//
	// +optional
	DesiredNodes int32 `json:"desiredNodes"`

	// ReadyNodes are the group's Ready nodes in the cluster.
	//
	// +optional
	ReadyNodes int32 `json:"readyNodes"`

	// RequestedNodes are asked for and not Ready yet (booting).
	//
	// +optional
	RequestedNodes int32 `json:"requestedNodes"`

	// LastScaleTime is when the runtime last changed the desired size.
	//
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// Reason the group cannot grow now (NotFound, NotActive, LaunchFailures,
	// MaxReached, Throttled, CloudUnavailable: the cloud API answered a
	// server error, CloudError); empty when it can.
	//
	// +optional
	Reason string `json:"reason,omitempty"`

	// Message says more about Reason.
	//
	// +optional
	Message string `json:"message,omitempty"`

	// RecentBoots are the last boots of the group's nodes that the runtime
	// timed, from its order to the node's Ready, oldest first (at most 20).
	// The adaptive algorithm's derived forecast horizon takes their 90th
	// percentile; kept here, they outlive a restart of the runtime.
	//
	// +optional
	// +kubebuilder:validation:MaxItems=20
	RecentBoots []metav1.Duration `json:"recentBoots,omitempty"`
}

// ClusterCredentials hold either a reference to a kubeconfig Secret (private,
// ack) or what the runtime needs to mint EKS tokens itself (eks), so that no
// long-lived EKS token is ever stored.
type ClusterCredentials struct {
	// SecretRef points at a Secret holding a kubeconfig; required for providers
	// private and ack, not allowed for eks.
	//
	// +optional
	SecretRef *SecretKeyRef `json:"secretRef,omitempty"`

	// EKS identifies an Amazon EKS cluster; required for provider eks.
	//
	// +optional
	EKS *EKSCredentials `json:"eks,omitempty"`
}

// SecretKeyRef names a key of a Secret. HybridCluster is cluster-scoped, so the
// namespace is explicit.
type SecretKeyRef struct {
	// Namespace of the Secret.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Namespace string `json:"namespace"`

	// Name of the Secret.
	//
	// +required
	Name ObjectName `json:"name"`

	// Key of the kubeconfig in the Secret's data.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:default=kubeconfig
	// +optional
	Key string `json:"key,omitempty"`
}

// EKSCredentials identify an EKS cluster. The runtime finds its endpoint and CA
// with eks:DescribeCluster and signs STS GetCallerIdentity requests as bearer
// tokens (valid 15 minutes), assuming RoleARN first when set.
type EKSCredentials struct {
	// ClusterName is the EKS cluster's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:Pattern=`^[0-9A-Za-z][A-Za-z0-9\-_]*$`
	// +required
	ClusterName string `json:"clusterName"`

	// Region is the AWS region of the cluster ("eu-west-1").
	//
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z]{2}(-[a-z]+)+-[0-9]+$`
	// +required
	Region string `json:"region"`

	// RoleARN is an IAM role the runtime assumes before signing tokens.
	//
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^arn:aws[a-zA-Z-]*:iam::[0-9]{12}:role/.+$`
	// +optional
	RoleARN string `json:"roleARN,omitempty"`
}

// ClusterPrices are what one hour of capacity costs in the cluster, in the
// operator's currency.
type ClusterPrices struct {
	// PerVCPUHour is the price of one vCPU for one hour ("0.0464").
	//
	// +required
	PerVCPUHour Price `json:"perVCPUHour"`

	// PerGiBHour is the price of one GiB of memory for one hour ("0.0058").
	//
	// +required
	PerGiBHour Price `json:"perGiBHour"`
}

// ClusterLimits cap the hybrid cloud's use of a cluster.
type ClusterLimits struct {
	// MaxCPU is the most CPU (sum of requests) HCA may place there ("64").
	//
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="limits.maxCPU must be greater than 0: remove it for no limit"
	// +optional
	MaxCPU *resource.Quantity `json:"maxCPU,omitempty"`

	// MaxPods is the most pods HCA may place there.
	//
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxPods *int32 `json:"maxPods,omitempty"`
}

// HybridClusterStatus is what the runtime's prober last observed.
type HybridClusterStatus struct {
	// ObservedGeneration is the spec generation the prober last acted on.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Reachable is true when the last probe reached the API server.
	//
	// +optional
	Reachable bool `json:"reachable"`

	// KubernetesVersion is the API server's version ("v1.36.3").
	//
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`

	// Allocatable is the sum of the Ready nodes' allocatable resources.
	//
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`

	// Free is allocatable minus the requests of scheduled pods, capped by
	// spec.limits minus what HCA already placed there.
	//
	// +optional
	Free corev1.ResourceList `json:"free,omitempty"`

	// LastProbeTime is when the cluster was last probed.
	//
	// +optional
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`

	// NodeGroups are the node groups' sizes and why one cannot grow.
	//
	// +listType=map
	// +listMapKey=name
	// +optional
	NodeGroups []NodeGroupStatus `json:"nodeGroups,omitempty"`

	// Conditions: Reachable, Ready.
	//
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// HybridCluster is a member cluster of the hybrid cloud: how the runtime reaches
// it, what its capacity costs and how much of it HCA may use.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=hc,categories=hca
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.spec.role`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Reachable",type=boolean,JSONPath=`.status.reachable`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.kubernetesVersion`
// +kubebuilder:printcolumn:name="Free-CPU",type=string,JSONPath=`.status.free.cpu`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type HybridCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec HybridClusterSpec `json:"spec"`
	// +optional
	Status HybridClusterStatus `json:"status,omitempty"`
}

// HybridClusterList is a list of HybridClusters.
//
// +kubebuilder:object:root=true
type HybridClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HybridCluster `json:"items"`
}
