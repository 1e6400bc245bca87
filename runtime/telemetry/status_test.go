package telemetry

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func TestPolicySamples(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "shop", Name: "web"}
	tests := []struct {
		name   string
		status hcav1.BurstPolicyStatus
		want   []Sample
	}{
		{"never reconciled", hcav1.BurstPolicyStatus{}, nil},
		{"bursting into one cluster", hcav1.BurstPolicyStatus{Phase: hcav1.PhaseBursting, Replicas: []hcav1.ClusterReplicas{
			{Cluster: "private", Desired: 8, Ready: 8},
			{Cluster: "eks", Desired: 4, Ready: 1, Pending: 3},
		}}, []Sample{
			{"hca_ready_replicas", []string{"shop/web", "private"}, 8},
			{"hca_pending_replicas", []string{"shop/web", "private"}, 0},
			{"hca_ready_replicas", []string{"shop/web", "eks"}, 1},
			{"hca_pending_replicas", []string{"shop/web", "eks"}, 3},
			{"hca_burst_ready_replicas", []string{"shop/web"}, 1}, // eks's 1; private is the primary
			{"hca_burst_phase", []string{"shop/web", "Watching"}, 0},
			{"hca_burst_phase", []string{"shop/web", "Bursting"}, 1},
			{"hca_burst_phase", []string{"shop/web", "ScalingBack"}, 0},
			{"hca_burst_phase", []string{"shop/web", "Degraded"}, 0},
		}},
		{"degraded, no replicas reported", hcav1.BurstPolicyStatus{Phase: hcav1.PhaseDegraded}, []Sample{
			{"hca_burst_phase", []string{"shop/web", "Watching"}, 0},
			{"hca_burst_phase", []string{"shop/web", "Bursting"}, 0},
			{"hca_burst_phase", []string{"shop/web", "ScalingBack"}, 0},
			{"hca_burst_phase", []string{"shop/web", "Degraded"}, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &hcav1.BurstPolicy{ObjectMeta: meta, Status: tt.status}
			p.Spec.PrimaryCluster = "private"
			got := PolicySamples(p)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("PolicySamples =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestSLOSamples(t *testing.T) {
	pct := func(v int32) *int32 { return &v }
	tests := []struct {
		name   string
		typ    hcav1.SLOType
		status hcav1.ServiceLevelObjectiveStatus
		want   []Sample
	}{
		{"not evaluated yet", hcav1.SLOLatency, hcav1.ServiceLevelObjectiveStatus{}, nil},
		// 183.0ms is 0.183 s; compliance 125 % is a ratio of 1.25 (violated).
		{"latency violated", hcav1.SLOLatency, hcav1.ServiceLevelObjectiveStatus{CurrentValue: "183.0ms", CompliancePercent: pct(125)}, []Sample{
			{"hca_slo_compliance_ratio", []string{"shop/web-latency", "latency"}, 1.25},
			{"hca_slo_current_value", []string{"shop/web-latency", "latency"}, 0.183},
		}},
		{"cost efficiency: compliance only", hcav1.SLOCostEfficiency, hcav1.ServiceLevelObjectiveStatus{CurrentValue: "0.12/h (fast 90.0%)", CompliancePercent: pct(80)}, []Sample{
			{"hca_slo_compliance_ratio", []string{"shop/web-latency", "cost-efficiency"}, 0.8},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-latency"}, Status: tt.status}
			s.Spec.SLO.Type = tt.typ
			got := SLOSamples(s)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SLOSamples =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestParseSLOValue(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"183.0ms", 0.183, true},
		{"1m2.5s", 62.5, true},
		{"62.0%", 0.62, true},
		{"99.950%", 0.9995, true},
		{"0.5", 0.5, true},
		{"", 0, false},
		{"inf (fast 0.0%)", 0, false},
		{"0.12/h (fast 90.0%)", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseSLOValue(tt.in)
			if ok != tt.ok || (ok && (got-tt.want > 1e-9 || tt.want-got > 1e-9)) {
				t.Fatalf("ParseSLOValue(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestClusterSamples(t *testing.T) {
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: "eks-burst"}}
	hc.Spec.NodeGroups = []hcav1.NodeGroup{{Name: "spot", PricePerHour: "0.0416"}, {Name: "unpriced"}}
	hc.Status.NodeGroups = []hcav1.NodeGroupStatus{{Name: "spot", DesiredNodes: 5, ReadyNodes: 2, RequestedNodes: 3}}
	want := []Sample{
		{"hca_node_group_desired_nodes", []string{"eks-burst", "spot"}, 5},
		{"hca_node_group_ready_nodes", []string{"eks-burst", "spot"}, 2},
		{"hca_node_group_requested_nodes", []string{"eks-burst", "spot"}, 3},
		{"hca_node_group_node_hourly_price_dollars", []string{"eks-burst", "spot"}, 0.0416},
	}
	if got := ClusterSamples(hc); !reflect.DeepEqual(got, want) {
		t.Fatalf("ClusterSamples =\n%v\nwant\n%v", got, want)
	}
}

func metav1ObjectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}
