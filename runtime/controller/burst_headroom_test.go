package controller

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

func TestBurstHeadroomStatus(t *testing.T) {
	dep := func(cpu string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Name = "web"
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}
		return d
	}
	priced := func(name, perVCPU string) *burstView {
		return &burstView{name: name, hc: &hcav1.HybridCluster{Spec: hcav1.HybridClusterSpec{Prices: &hcav1.ClusterPrices{PerVCPUHour: hcav1.Price(perVCPU), PerGiBHour: "0.5"}}}}
	}
	views := []*burstView{priced("dear", "0.2"), priced("cheap", "0.0464"), {name: "unpriced"}}
	tests := []struct {
		name    string
		primary scaling.BurstTarget
		results []*burstTargetResult
		want    *hcav1.HeadroomStatus
	}{
		{
			name:    "no spare replicas: none",
			results: []*burstTargetResult{{dep: dep("1"), primary: 4, achieved: map[string]int32{"cheap": 2}}},
		},
		{
			name:    "counted in the cheapest burst cluster holding replicas, priced by its requests",
			results: []*burstTargetResult{{dep: dep("1"), primary: 4, plan: burstPlan{Headroom: 2}, achieved: map[string]int32{"dear": 2, "cheap": 2}}},
			want:    &hcav1.HeadroomStatus{Replicas: 2, CostPerHour: "0.0928", Clusters: []hcav1.ClusterHeadroom{{Cluster: "cheap", Replicas: 2, CostPerHour: "0.0928"}}},
		},
		{
			name:    "an unpriced cluster counts 0; the rest in the primary at its prices; targets summed",
			primary: scaling.BurstTarget{PricePerVCPUHour: 0.01},
			results: []*burstTargetResult{
				{dep: dep("1"), primary: 4, plan: burstPlan{Headroom: 3}, achieved: map[string]int32{"unpriced": 1}},
				{dep: dep("500m"), primary: 2, plan: burstPlan{Headroom: 1}, achieved: map[string]int32{"cheap": 1}},
			},
			want: &hcav1.HeadroomStatus{Replicas: 4, CostPerHour: "0.0432", Clusters: []hcav1.ClusterHeadroom{
				{Cluster: "unpriced", Replicas: 1, CostPerHour: "0"}, {Cluster: "private", Replicas: 2, CostPerHour: "0.02"}, {Cluster: "cheap", Replicas: 1, CostPerHour: "0.0232"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := burstHeadroomStatus("private", tt.primary, views, tt.results)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
