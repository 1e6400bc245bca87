package controller

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestBurstExportReplicas: a round exports the status's replicas per
// cluster and drops the series of a cluster the status no longer lists,
// leaving other policies' series alone.
func TestBurstExportReplicas(t *testing.T) {
	policy := func(name string, clusters ...string) *hcav1.BurstPolicy {
		p := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		for i, c := range clusters {
			p.Status.Replicas = append(p.Status.Replicas, hcav1.ClusterReplicas{Cluster: hcav1.ClusterName(c), Desired: int32(i + 1)})
		}
		return p
	}
	tests := []struct {
		name   string
		rounds []*hcav1.BurstPolicy
		want   string
	}{
		{"first round", []*hcav1.BurstPolicy{policy("a", "private", "burst")}, "ns/a private=1, ns/a burst=2"},
		{"a cluster leaves the status", []*hcav1.BurstPolicy{policy("a", "private", "burst"), policy("a", "private")}, "ns/a private=1"},
		{"other policies untouched", []*hcav1.BurstPolicy{policy("a", "private", "burst"), policy("b", "private", "burst"), policy("a", "private")},
			"ns/a private=1, ns/b private=1, ns/b burst=2"},
		{"a cluster comes back", []*hcav1.BurstPolicy{policy("a", "private", "burst"), policy("a", "private"), policy("a", "private", "burst")}, "ns/a private=1, ns/a burst=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "replicas"}, []string{"policy", "cluster"})
			r := NewBurstReconciler(nil, BurstOptions{})
			for _, p := range tt.rounds {
				r.exportReplicas(g, p)
			}
			if got := gaugeSeries(t, g); got != sortedSeries(tt.want) {
				t.Errorf("series %q, want %q", got, sortedSeries(tt.want))
			}
		})
	}
}

func gaugeSeries(t *testing.T, g *prometheus.GaugeVec) string {
	t.Helper()
	ch := make(chan prometheus.Metric, 16)
	g.Collect(ch)
	close(ch)
	var out []string
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		l := map[string]string{}
		for _, lp := range d.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		out = append(out, fmt.Sprintf("%s %s=%g", l["policy"], l["cluster"], d.GetGauge().GetValue()))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func sortedSeries(s string) string {
	parts := strings.Split(s, ", ")
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
