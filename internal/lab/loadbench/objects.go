package loadbench

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// The benchmark's workload: in every namespace one Deployment named
// workloadName of one 10m-CPU pod on the pool's kwok nodes.
const (
	workloadName = "web"
	// BenchLabel marks every object the benchmark creates (its value is the
	// run's class), so that cleanup finds them all.
	BenchLabel = "hca.dev/loadbench"
	// podCPUMilli is each pod's CPU request.
	podCPUMilli = 10
	// sloInterval is every SLO's evaluationInterval (the default, written out).
	sloInterval = 20 * time.Second
)

// sloMix is the share of each SLO type, in slots of 20: slot (2*ns + j) % 20
// gives namespace ns's j-th SLO its type. Request-based SLOs (latency,
// availability) dominate as on a web platform; cost efficiency and custom
// PromQL are the rarer, costlier kinds (custom queries do not batch).
var sloMix = [20]hcav1.SLOType{
	hcav1.SLOCPUUtilization, hcav1.SLOLatency, hcav1.SLOAvailability, hcav1.SLOLatency, hcav1.SLOCPUUtilization,
	hcav1.SLOAvailability, hcav1.SLOLatency, hcav1.SLOCostEfficiency, hcav1.SLOCPUUtilization, hcav1.SLOAvailability,
	hcav1.SLOLatency, hcav1.SLOCPUUtilization, hcav1.SLOAvailability, hcav1.SLOLatency, hcav1.SLOCustom,
	hcav1.SLOCPUUtilization, hcav1.SLOAvailability, hcav1.SLOLatency, hcav1.SLOCostEfficiency, hcav1.SLOCPUUtilization,
}

// sloTypes returns the types of namespace index i's two SLOs. Consecutive
// slots differ, so a namespace never has two SLOs of one type.
func sloTypes(i int) [2]hcav1.SLOType {
	return [2]hcav1.SLOType{sloMix[(2*i)%len(sloMix)], sloMix[(2*i+1)%len(sloMix)]}
}

// poolName is the private cluster's node pool a run's pods run on (one per
// run, so that runs on one lab do not resize each other's).
func poolName(class string) string { return class }

// namespaceName is the name of namespace index i of a run.
func namespaceName(class string, i int) string { return fmt.Sprintf("%s-%05d", class, i) }

// benchLabels are the labels of every object of a run.
func benchLabels(class string) map[string]string {
	return map[string]string{BenchLabel: class}
}

// deployment is namespace ns's workload: one 10m-CPU pod on the pool's nodes.
func deployment(class, ns string) *appsv1.Deployment {
	sel := map[string]string{"app": workloadName}
	podLabels := map[string]string{"app": workloadName, BenchLabel: class}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: workloadName, Namespace: ns, Labels: benchLabels(class)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"hca.dev/node-pool": poolName(class)},
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    *resource.NewMilliQuantity(podCPUMilli, resource.DecimalSI),
							corev1.ResourceMemory: resource.MustParse("32Mi"),
						}}}},
				},
			},
		},
	}
}

// slo is namespace ns's SLO of type typ on the workload, enforced by the
// Horizontal strategy. The exporter's series keep every SLO met (compliance
// within tolerance), so the strategies hold: the benchmark measures
// evaluation, not scaling. In namespaces with a BurstPolicy the strategy may
// not scale (maxReplicas 1): the policy owns the replica count there.
func slo(class, ns string, typ hcav1.SLOType, withPolicy bool) *hcav1.ServiceLevelObjective {
	maxR := int32(3)
	if withPolicy {
		maxR = 1
	}
	s := &hcav1.ServiceLevelObjective{
		ObjectMeta: metav1.ObjectMeta{Name: workloadName + "-" + string(typ), Namespace: ns, Labels: runLabels(class)},
		Spec: hcav1.ServiceLevelObjectiveSpec{
			Target:             hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: workloadName},
			EvaluationInterval: &metav1.Duration{Duration: sloInterval},
			ElasticityStrategy: hcav1.ElasticityStrategy{Kind: hcav1.StrategyHorizontal,
				Horizontal: &hcav1.HorizontalStaticConfig{MinReplicas: 1, MaxReplicas: maxR}},
			SLO: hcav1.SLOSpec{Type: typ},
		},
	}
	switch typ {
	case hcav1.SLOCPUUtilization:
		s.Spec.SLO.CPUUtilization = &hcav1.CPUUtilizationSLO{TargetAverageUtilization: 70}
	case hcav1.SLOLatency:
		s.Spec.SLO.Latency = &hcav1.LatencySLO{Percentile: resource.MustParse("99"), Threshold: metav1.Duration{Duration: 250 * time.Millisecond}}
	case hcav1.SLOAvailability:
		s.Spec.SLO.Availability = &hcav1.AvailabilitySLO{TargetPercent: resource.MustParse("99.5")}
	case hcav1.SLOCostEfficiency:
		s.Spec.SLO.CostEfficiency = &hcav1.CostEfficiencySLO{ResponseTimeThreshold: metav1.Duration{Duration: 100 * time.Millisecond},
			TargetCostEfficiency: resource.MustParse("1000")}
	case hcav1.SLOCustom:
		s.Spec.SLO.Custom = &hcav1.CustomSLO{
			Query:       fmt.Sprintf(`sum(rate(http_requests_total{namespace=%q,app=%q,code=~"5.."}[1m]))`, ns, workloadName),
			TargetValue: resource.MustParse("1"), Direction: hcav1.DirectionBelow}
	}
	return s
}

// runLabels are the labels of the objects the run's runtime takes: the
// benchmark's mark and the runtime's class.
func runLabels(class string) map[string]string {
	return map[string]string{BenchLabel: class, ClassLabel: class}
}

// ClassLabel is the runtime's class label (controller.ClassLabel; repeated
// here so that this package does not import the controllers).
const ClassLabel = "hca.dev/class"

// burstPolicy is namespace ns's BurstPolicy: the workload, the private
// cluster as primary, burst into cluster, scaled by the kubernetes (HPA)
// algorithm on CPU utilisation at 70 % (control interval 15 s). The exporter
// keeps the pods at 50 %, so the policies stay calm: one replica, nothing
// Unschedulable, nothing bursts.
func burstPolicy(class, ns, primary, cluster string) *hcav1.BurstPolicy {
	return &hcav1.BurstPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: workloadName, Namespace: ns, Labels: runLabels(class)},
		Spec: hcav1.BurstPolicySpec{
			Target:         hcav1.BurstTarget{DeploymentName: workloadName},
			PrimaryCluster: hcav1.ClusterName(primary),
			MinReplicas:    1,
			MaxReplicas:    4,
			BurstTargets:   []hcav1.BurstTargetCluster{{Cluster: hcav1.ClusterName(cluster)}},
			Algorithm:      hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes},
			Metrics: []hcav1.MetricSpec{{Type: hcav1.MetricResource,
				Resource: &hcav1.ResourceMetric{Name: hcav1.ResourceCPU, TargetAverageUtilization: 70}}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// PlatformSLOs returns the SLOs of a run of n namespaces whose first
// policies namespaces have a BurstPolicy, as setup creates them (for
// benchmarks that evaluate the same SLOs without the API server).
func PlatformSLOs(class string, n, policies int) []*hcav1.ServiceLevelObjective {
	out := make([]*hcav1.ServiceLevelObjective, 0, 2*n)
	for i := range n {
		for _, t := range sloTypes(i) {
			out = append(out, slo(class, namespaceName(class, i), t, i < policies))
		}
	}
	return out
}

// PlatformPods returns the pod names the exporter serves for a run of n
// namespaces without an API server: one pod per namespace, named as a
// Deployment's pod would be.
func PlatformPods(class string, n int) map[string][]string {
	out := make(map[string][]string, n)
	for i := range n {
		out[namespaceName(class, i)] = []string{fmt.Sprintf("%s-5d8f7c9b6-%05d", workloadName, i)}
	}
	return out
}
