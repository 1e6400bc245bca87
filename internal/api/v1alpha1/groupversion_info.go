package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of every HCA kind.
const Group = "hca.dev"

var (
	// GroupVersion is hca.dev/v1alpha1.
	GroupVersion = schema.GroupVersion{Group: Group, Version: "v1alpha1"}

	// SchemeBuilder registers this version's kinds with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds every kind of hca.dev/v1alpha1 (and their lists) to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource returns the group-qualified resource for an unqualified name
// ("burstpolicies").
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&HybridCluster{}, &HybridClusterList{},
		&BurstPolicy{}, &BurstPolicyList{},
		&ServiceLevelObjective{}, &ServiceLevelObjectiveList{},
		&HorizontalElasticityStrategy{}, &HorizontalElasticityStrategyList{},
		&VerticalElasticityStrategy{}, &VerticalElasticityStrategyList{},
		&BurstElasticityStrategy{}, &BurstElasticityStrategyList{},
		&FederatedAutoscaler{}, &FederatedAutoscalerList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
