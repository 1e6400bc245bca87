package v1alpha1

import (
	"fmt"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types shared by the kinds of this API. Controllers may add their own.
const (
	// ConditionReady is True when the object is fully reconciled and acting.
	ConditionReady = "Ready"
	// ConditionDegraded is True while the controller holds its last decision
	// because an input is missing (metrics unavailable, a cluster unreachable); its
	// message says which and why.
	ConditionDegraded = "Degraded"
	// ConditionReachable is True while a HybridCluster's API server answers.
	ConditionReachable = "Reachable"
	// ConditionMetricsAvailable is False while a metric query fails or returns
	// no data.
	ConditionMetricsAvailable = "MetricsAvailable"
	// ConditionPublished is True while a BurstPolicy's replicas are published
	// to Consul (spec.consul) and False while the catalog cannot be written;
	// absent without spec.consul.
	ConditionPublished = "Published"
)

// ClusterName is the name of a HybridCluster.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
type ClusterName string

// ObjectName is the name of a namespaced Kubernetes object (a DNS subdomain).
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
type ObjectName string

// WorkloadKind is the kind of a scalable workload in group apps/v1.
//
// +kubebuilder:validation:Enum=Deployment;StatefulSet
type WorkloadKind string

const (
	WorkloadDeployment  WorkloadKind = "Deployment"
	WorkloadStatefulSet WorkloadKind = "StatefulSet"
)

// TargetRef names the workload (apps/v1, in the referrer's namespace) an object
// scales.
type TargetRef struct {
	// Kind of the workload.
	//
	// +kubebuilder:default=Deployment
	// +optional
	Kind WorkloadKind `json:"kind,omitempty"`

	// Name of the workload.
	//
	// +required
	Name ObjectName `json:"name"`
}

// MetricSourceType says where a scaling metric comes from.
//
// +kubebuilder:validation:Enum=Resource;PromQL
type MetricSourceType string

const (
	// MetricResource is the average utilisation of a pod resource (CPU or memory)
	// relative to the pods' requests, as in autoscaling/v2.
	MetricResource MetricSourceType = "Resource"
	// MetricPromQL is the value of a Prometheus query.
	MetricPromQL MetricSourceType = "PromQL"
)

// MetricSpec is one metric the replica count is computed from; with several, the
// largest proposal wins (as in autoscaling/v2).
//
// +kubebuilder:validation:XValidation:rule="self.type != 'Resource' || (has(self.resource) && !has(self.promql))",message="type Resource requires resource (name and targetAverageUtilization) and no promql"
// +kubebuilder:validation:XValidation:rule="self.type != 'PromQL' || (has(self.promql) && !has(self.resource))",message="type PromQL requires promql (query and targetValue) and no resource"
type MetricSpec struct {
	// Type of the metric: Resource (pod CPU or memory utilisation) or PromQL.
	//
	// +required
	Type MetricSourceType `json:"type"`

	// Resource is the resource utilisation target; required for type Resource.
	//
	// +optional
	Resource *ResourceMetric `json:"resource,omitempty"`

	// PromQL is the query and its target; required for type PromQL.
	//
	// +optional
	PromQL *PromQLMetric `json:"promql,omitempty"`
}

// ResourceName is a pod resource whose utilisation can be a scaling metric.
//
// +kubebuilder:validation:Enum=cpu;memory
type ResourceName string

const (
	ResourceCPU    ResourceName = "cpu"
	ResourceMemory ResourceName = "memory"
)

// ResourceMetric targets the average utilisation of a resource over the target's
// pods, in percent of their requests.
type ResourceMetric struct {
	// Name of the resource: cpu or memory.
	//
	// +required
	Name ResourceName `json:"name"`

	// TargetAverageUtilization is the wanted mean utilisation, in percent of the
	// pods' requests (80 = 80 %).
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +required
	TargetAverageUtilization int32 `json:"targetAverageUtilization"`
}

// PromQLTargetType says how a PromQL metric's value is compared to its target.
//
// +kubebuilder:validation:Enum=AverageValue;Value
type PromQLTargetType string

const (
	// PromQLAverageValue divides the query's value by the number of replicas
	// before comparing it with the target (the query returns a total).
	PromQLAverageValue PromQLTargetType = "AverageValue"
	// PromQLValue compares the query's value with the target as it is.
	PromQLValue PromQLTargetType = "Value"
)

// PromQLMetric is a Prometheus query that returns one sample, and the value it
// should have.
//
// +kubebuilder:validation:XValidation:rule="quantity(string(self.targetValue)).isGreaterThan(quantity('0'))",message="promql.targetValue must be greater than 0",fieldPath=".targetValue"
type PromQLMetric struct {
	// Query is the PromQL expression; it must return a single sample.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +required
	Query string `json:"query"`

	// TargetValue is the value the query should have (per replica with
	// targetType AverageValue), as a quantity ("100", "0.25", "250m").
	//
	// +required
	TargetValue resource.Quantity `json:"targetValue"`

	// TargetType is AverageValue (the query returns a total that replicas share)
	// or Value.
	//
	// +kubebuilder:default=AverageValue
	// +optional
	TargetType PromQLTargetType `json:"targetType,omitempty"`
}

// Price is an amount of money as a non-negative decimal string with at most 9
// fractional digits ("0.0464"). It is a string, not a float (which the API
// conventions discourage) nor a resource.Quantity (which would print 0.0464 as
// "46400u"), so that it stays exact and reads as written.
//
// +kubebuilder:validation:MaxLength=32
// +kubebuilder:validation:Pattern=`^(0|[1-9][0-9]{0,15})(\.[0-9]{1,9})?$`
type Price string

// priceRE is Price's OpenAPI pattern.
var priceRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,15})(\.[0-9]{1,9})?$`)

// Float64 parses the price. The pattern enforced by the API server guarantees
// success for stored objects; the error is for values built in code.
func (p Price) Float64() (float64, error) {
	v, err := strconv.ParseFloat(string(p), 64)
	if err != nil || !priceRE.MatchString(string(p)) {
		return 0, fmt.Errorf("invalid price %q: use a non-negative decimal such as \"0.0464\"", string(p))
	}
	return v, nil
}

// StabilizationWindows delay changes in one direction until every proposal in
// the window agrees (the largest for scale-down, the smallest for scale-up).
type StabilizationWindows struct {
	// ScaleUp is the scale-up window (Go duration, e.g. "0s", "30s").
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="0s"
	// +optional
	ScaleUp *metav1.Duration `json:"scaleUp,omitempty"`

	// ScaleDown is the scale-down window (Go duration, e.g. "5m").
	//
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:default="5m"
	// +optional
	ScaleDown *metav1.Duration `json:"scaleDown,omitempty"`
}
