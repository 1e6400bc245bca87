package controller

import (
	"context"
	"fmt"
	"math"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// burstPrices is a cluster's prices as placement reads them (zero without
// a HybridCluster or its spec.prices).
func burstPrices(hc *hcav1.HybridCluster) scaling.BurstTarget {
	var t scaling.BurstTarget
	if hc != nil && hc.Spec.Prices != nil {
		t.PricePerVCPUHour, _ = hc.Spec.Prices.PerVCPUHour.Float64()
		t.PricePerGiBHour, _ = hc.Spec.Prices.PerGiBHour.Float64()
	}
	return t
}

// primaryPrices reads the primary cluster's prices from its HybridCluster
// (none registered: zero, its replicas cost nothing more).
func (r *BurstReconciler) primaryPrices(ctx context.Context, p *hcav1.BurstPolicy) (scaling.BurstTarget, error) {
	var hc hcav1.HybridCluster
	if err := r.client.Get(ctx, types.NamespacedName{Name: string(p.Spec.PrimaryCluster)}, &hc); err != nil {
		if apierrors.IsNotFound(err) {
			return scaling.BurstTarget{}, nil
		}
		return scaling.BurstTarget{}, fmt.Errorf("read primary cluster %s for its prices: %w", p.Spec.PrimaryCluster, err)
	}
	return burstPrices(&hc), nil
}

// burstHeadroomStatus sums the targets' spare replicas (burstPlan.Headroom)
// where scaling.HeadroomCost counts them, after this round's writes (the
// primary's replicas and each burst cluster's achieved ones), priced by
// each cluster's prices for the target's pod requests. nil: no spare
// replicas.
func burstHeadroomStatus(primary string, primaryPrices scaling.BurstTarget, views []*burstView, results []*burstTargetResult) (*hcav1.HeadroomStatus, error) {
	type share struct {
		replicas int32
		cost     float64
	}
	byCluster := map[string]*share{}
	var order []string
	var st hcav1.HeadroomStatus
	var cost float64
	for _, t := range results {
		if t.plan.Headroom <= 0 || t.dep == nil {
			continue
		}
		burst := make([]scaling.BurstTarget, 0, len(views))
		for _, v := range views {
			b := burstPrices(v.hc)
			b.Name, b.Current = v.name, t.achieved[v.name]
			burst = append(burst, b)
		}
		spread, err := scaling.HeadroomCost(t.plan.Headroom, burstPodRequests(&t.dep.Spec.Template.Spec), primary, t.primary, primaryPrices, burst)
		if err != nil {
			return nil, fmt.Errorf("headroom of %s: %w", t.dep.Name, err)
		}
		for _, s := range spread.Shares {
			sh := byCluster[s.Cluster]
			if sh == nil {
				sh = &share{}
				byCluster[s.Cluster] = sh
				order = append(order, s.Cluster)
			}
			sh.replicas += s.Replicas
			sh.cost += s.CostPerHour
		}
		st.Replicas += spread.Replicas
		cost += spread.CostPerHour
	}
	if st.Replicas == 0 {
		return nil, nil
	}
	st.CostPerHour = burstPrice(cost)
	for _, c := range order {
		st.Clusters = append(st.Clusters, hcav1.ClusterHeadroom{Cluster: hcav1.ClusterName(c), Replicas: byCluster[c].replicas, CostPerHour: burstPrice(byCluster[c].cost)})
	}
	return &st, nil
}

// burstPrice writes an amount as a Price, to the millionth.
func burstPrice(v float64) hcav1.Price {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return "0"
	}
	return hcav1.Price(strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64))
}
