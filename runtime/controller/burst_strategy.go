package controller

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// This file is the burst controller's side of the SLO hand-off: the SLO
// controller writes a BurstElasticityStrategy (named after the SLO, naming the
// policy in spec.burstPolicyName); the burst controller finds it here, turns
// its output into the total (burstTotals.fromSLO) and reports back in its
// status, as the Horizontal and Vertical strategy controllers do in theirs.

// strategyFor returns the SLO's Burst strategy that drives p (nil: none). If
// several name p (the SLO controller refuses the second), the oldest wins.
func (r *BurstReconciler) strategyFor(ctx context.Context, p *hcav1.BurstPolicy) (*hcav1.BurstElasticityStrategy, error) {
	var list hcav1.BurstElasticityStrategyList
	if err := r.client.List(ctx, &list, client.InNamespace(p.Namespace)); err != nil {
		return nil, fmt.Errorf("list burst strategies in %s: %w", p.Namespace, err)
	}
	var found []*hcav1.BurstElasticityStrategy
	for i := range list.Items {
		s := &list.Items[i]
		if string(s.Spec.BurstPolicyName) == p.Name && s.DeletionTimestamp == nil {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return nil, nil
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i].CreationTimestamp, found[j].CreationTimestamp
		if !a.Equal(&b) {
			return a.Before(&b)
		}
		return found[i].Name < found[j].Name
	})
	return found[0], nil
}

// patchStrategyStatus records on the SLO's strategy what became of its output.
func (r *BurstReconciler) patchStrategyStatus(ctx context.Context, p *hcav1.BurstPolicy, s *hcav1.BurstElasticityStrategy, results []*burstTargetResult) error {
	if s == nil {
		return nil
	}
	before := s.DeepCopy()
	applied, total := len(results) > 0, int32(0)
	var problems []string
	for _, t := range results {
		total += t.plan.Total
		switch {
		case t.err != nil:
			applied = false
			problems = append(problems, t.dep.Name+": "+t.err.Error())
		case t.metrics == nil || !t.metrics.available:
			applied = false
			if t.metrics != nil {
				problems = append(problems, t.dep.Name+": "+t.metrics.message)
			}
		}
	}
	cond := metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Applied", ObservedGeneration: s.Generation,
		Message: fmt.Sprintf("compliance %d%% applied to burst policy %s: total %d", s.Spec.SLOOutput.CompliancePercent, p.Name, total)}
	switch {
	case len(results) == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, BurstReasonNoTarget, "burst policy "+p.Name+" has no target Deployment"
	case !applied:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, BurstReasonError, burstTrim(strings.Join(problems, "; "))
	default:
		s.Status.ObservedGeneration = s.Generation
		s.Status.DesiredReplicas = total
	}
	meta.SetStatusCondition(&s.Status.Conditions, cond)
	if equality.Semantic.DeepEqual(before.Status, s.Status) {
		return nil
	}
	if err := writeStatus(ctx, r.client, s, statusMergeFrom(before.Status, s.Status)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("patch status of burst strategy %s/%s: %w", s.Namespace, s.Name, err)
	}
	return nil
}
