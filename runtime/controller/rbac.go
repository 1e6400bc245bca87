package controller

// The runtime's permissions in the control cluster, in one place. controller-gen
// reads these markers (`make generate`) into runtime/config/rbac/role.yaml, the
// ClusterRole the provider installs. Member clusters are reached with their own
// credentials (HybridCluster Secrets or EKS tokens), not with this role.
//
// Why each rule:
// - hca.dev objects: the runtime's API (status and finalizers of what it owns;
//   SLOs create and delete the elasticity strategy objects; SLOs with the Burst
//   strategy annotate BurstPolicies).
// - secrets get/list/watch: credentials of HybridClusters (get) and the Secrets a
//   BurstPolicy propagates to burst clusters (watched so changes follow).
// - pods, nodes, configmaps, services: pending pods of targets, room in the
//   primary, and the propagated objects.
// - deployments (+ scale): the targets the runtime scales and bursts.
// - events.k8s.io: an Event per decision.

// +kubebuilder:rbac:groups=hca.dev,resources=hybridclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=hybridclusters/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=hca.dev,resources=burstpolicies,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hca.dev,resources=burstpolicies/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=hca.dev,resources=burstpolicies/finalizers,verbs=update
// +kubebuilder:rbac:groups=hca.dev,resources=servicelevelobjectives,verbs=get;list;watch
// +kubebuilder:rbac:groups=hca.dev,resources=servicelevelobjectives/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=hca.dev,resources=horizontalelasticitystrategies;verticalelasticitystrategies;burstelasticitystrategies;multiobjectiveelasticitystrategies,verbs=get;list;watch;create;patch;update;delete
// +kubebuilder:rbac:groups=hca.dev,resources=horizontalelasticitystrategies/status;verticalelasticitystrategies/status;burstelasticitystrategies/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=hca.dev,resources=federatedautoscalers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hca.dev,resources=federatedautoscalers/status,verbs=get;patch;update
// +kubebuilder:rbac:groups=hca.dev,resources=federatedautoscalers/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets;configmaps;services;pods;nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments/scale;statefulsets/scale,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
