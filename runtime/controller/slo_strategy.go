package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// Strategy object kinds and the label that ties a strategy object to its SLO.
const (
	KindHorizontalStrategy = "HorizontalElasticityStrategy"
	KindVerticalStrategy   = "VerticalElasticityStrategy"
	KindBurstPolicy        = "BurstPolicy"
	// SLOLabel names, on a strategy object, the SLO that wrote it.
	SLOLabel = "hca.dev/slo"
	// SLOOutputAnnotation carries, on the BurstPolicy of a Burst strategy, the
	// SLO's output as JSON (see SLOOutputValue). The burst controller reads it;
	// the SLO controller removes it when the SLO switches to another strategy.
	SLOOutputAnnotation = "hca.dev/slo-output"
)

// SLOOutputValue is the JSON of SLOOutputAnnotation.
type SLOOutputValue struct {
	// SLO is the name of the ServiceLevelObjective (same namespace).
	SLO string `json:"slo"`
	// CompliancePercent: 100 met, > 100 violated, < 100 outperformed.
	CompliancePercent int32 `json:"compliancePercent"`
	// Tolerance is the band around 100 % in which nothing should change ("0.1").
	Tolerance string `json:"tolerance"`
	// ScaleUpWindow and ScaleDownWindow are the SLO's stabilisation windows
	// (Go durations; empty: act at once), which the burst controller applies
	// to the recommendations as the Horizontal strategy does.
	ScaleUpWindow   string `json:"scaleUpWindow,omitempty"`
	ScaleDownWindow string `json:"scaleDownWindow,omitempty"`
	// EvaluatedAt (RFC 3339) is set with a window: each evaluation is then a
	// new output, so that the windows see every recommendation.
	EvaluatedAt string `json:"evaluatedAt,omitempty"`
}

// ParseSLOOutput reads the SLO output a Burst strategy wrote on a BurstPolicy
// (nil when there is none).
func ParseSLOOutput(bp *hcav1.BurstPolicy) (*SLOOutputValue, error) {
	s, ok := bp.Annotations[SLOOutputAnnotation]
	if !ok {
		return nil, nil
	}
	var v SLOOutputValue
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("annotation %s of burst policy %s/%s is not valid JSON: %w", SLOOutputAnnotation, bp.Namespace, bp.Name, err)
	}
	return &v, nil
}

// strategyRef is the object the SLO's current strategy kind writes.
func strategyRef(s *hcav1.ServiceLevelObjective) hcav1.StrategyRef {
	switch s.Spec.ElasticityStrategy.Kind {
	case hcav1.StrategyVertical:
		return hcav1.StrategyRef{Kind: KindVerticalStrategy, Name: hcav1.ObjectName(s.Name)}
	case hcav1.StrategyBurst:
		name := hcav1.ObjectName("")
		if b := s.Spec.ElasticityStrategy.Burst; b != nil {
			name = b.BurstPolicyName
		}
		return hcav1.StrategyRef{Kind: KindBurstPolicy, Name: name}
	default:
		return hcav1.StrategyRef{Kind: KindHorizontalStrategy, Name: hcav1.ObjectName(s.Name)}
	}
}

func sloOwnerRef(s *hcav1.ServiceLevelObjective) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: hcav1.GroupVersion.String(), Kind: "ServiceLevelObjective",
		Name: s.Name, UID: s.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}

func sloOutput(s *hcav1.ServiceLevelObjective, compliance int32) hcav1.SLOOutput {
	out := hcav1.SLOOutput{CompliancePercent: compliance}
	if s.Spec.Tolerance != nil {
		t := s.Spec.Tolerance.DeepCopy()
		out.Tolerance = &t
	}
	return out
}

func targetOf(s *hcav1.ServiceLevelObjective) hcav1.TargetRef {
	t := s.Spec.Target
	if t.Kind == "" {
		t.Kind = hcav1.WorkloadDeployment
	}
	return t
}

// buildStrategy returns the Horizontal or Vertical strategy object the SLO
// should own for the given compliance: named after the SLO, in its namespace,
// labelled with it and controlled by it. It is pure. For Burst it returns an
// error: that strategy is an annotation on an existing BurstPolicy.
func buildStrategy(s *hcav1.ServiceLevelObjective, compliance int32) (client.Object, error) {
	meta := metav1.ObjectMeta{
		Name: s.Name, Namespace: s.Namespace,
		Labels:          strategyLabels(s),
		OwnerReferences: []metav1.OwnerReference{sloOwnerRef(s)},
	}
	var stab *hcav1.StabilizationWindows
	if s.Spec.Stabilization != nil {
		stab = s.Spec.Stabilization.DeepCopy()
	}
	es := s.Spec.ElasticityStrategy
	switch es.Kind {
	case hcav1.StrategyHorizontal:
		if es.Horizontal == nil {
			return nil, fmt.Errorf("%w: spec.elasticityStrategy.horizontal (minReplicas, maxReplicas) is required for kind Horizontal", errSpec)
		}
		return &hcav1.HorizontalElasticityStrategy{ObjectMeta: meta, Spec: hcav1.HorizontalElasticityStrategySpec{
			Target: targetOf(s), SLOOutput: sloOutput(s, compliance), StaticConfig: *es.Horizontal, Stabilization: stab}}, nil
	case hcav1.StrategyVertical:
		if es.Vertical == nil {
			return nil, fmt.Errorf("%w: spec.elasticityStrategy.vertical (minCPU, maxCPU, minMemory, maxMemory) is required for kind Vertical", errSpec)
		}
		return &hcav1.VerticalElasticityStrategy{ObjectMeta: meta, Spec: hcav1.VerticalElasticityStrategySpec{
			Target: targetOf(s), SLOOutput: sloOutput(s, compliance), StaticConfig: *es.Vertical.DeepCopy(), Stabilization: stab}}, nil
	}
	return nil, fmt.Errorf("%w: spec.elasticityStrategy.kind %q has no strategy object: use Horizontal or Vertical (Burst writes %s on the BurstPolicy)", errSpec, es.Kind, SLOOutputAnnotation)
}

// burstAnnotation is the SLOOutputAnnotation value for the SLO's output.
func burstAnnotation(s *hcav1.ServiceLevelObjective, compliance int32) string {
	v := SLOOutputValue{SLO: s.Name, CompliancePercent: compliance, Tolerance: "0.1"}
	if s.Spec.Tolerance != nil {
		v.Tolerance = s.Spec.Tolerance.String()
	}
	// The windows of the Horizontal strategy, with the same defaults.
	up, down := windows(s.Spec.Stabilization)
	if up > 0 {
		v.ScaleUpWindow = up.String()
	}
	if down > 0 {
		v.ScaleDownWindow = down.String()
	}
	if (up > 0 || down > 0) && s.Status.LastEvaluationTime != nil {
		v.EvaluatedAt = s.Status.LastEvaluationTime.UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(v) // a struct of strings and ints always marshals
	return string(b)
}

func strategyLabels(s *hcav1.ServiceLevelObjective) map[string]string {
	l := map[string]string{SLOLabel: s.Name}
	if c, ok := s.Labels[ClassLabel]; ok {
		l[ClassLabel] = c
	}
	return l
}

func controlledBy(obj metav1.Object, s *hcav1.ServiceLevelObjective) bool {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == s.UID && r.Controller != nil && *r.Controller {
			return true
		}
	}
	return false
}

// writeStrategy creates or updates the object of the SLO's current strategy.
func writeStrategy(ctx context.Context, c client.Client, s *hcav1.ServiceLevelObjective, compliance int32) error {
	if s.Spec.ElasticityStrategy.Kind == hcav1.StrategyBurst {
		return writeBurst(ctx, c, s, compliance)
	}
	want, err := buildStrategy(s, compliance)
	if err != nil {
		return err
	}
	key := client.ObjectKeyFromObject(want)
	var have client.Object
	switch want.(type) {
	case *hcav1.HorizontalElasticityStrategy:
		have = &hcav1.HorizontalElasticityStrategy{}
	default:
		have = &hcav1.VerticalElasticityStrategy{}
	}
	if err := c.Get(ctx, key, have); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("get %s %s: %w", strategyRef(s).Kind, key, err)
		}
		if err := c.Create(ctx, want); err != nil {
			return fmt.Errorf("create %s %s: %w", strategyRef(s).Kind, key, err)
		}
		return nil
	}
	if !controlledBy(have, s) {
		return fmt.Errorf("%w: %s %s exists and is not controlled by this SLO: delete or rename it", errSpec, strategyRef(s).Kind, key)
	}
	before := have.DeepCopyObject().(client.Object)
	switch h := have.(type) {
	case *hcav1.HorizontalElasticityStrategy:
		h.Spec = want.(*hcav1.HorizontalElasticityStrategy).Spec
	case *hcav1.VerticalElasticityStrategy:
		h.Spec = want.(*hcav1.VerticalElasticityStrategy).Spec
	}
	labels := have.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range strategyLabels(s) {
		labels[k] = v
	}
	have.SetLabels(labels)
	if equality.Semantic.DeepEqual(before, have) {
		return nil
	}
	if err := c.Patch(ctx, have, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("patch %s %s: %w", strategyRef(s).Kind, key, err)
	}
	return nil
}

func writeBurst(ctx context.Context, c client.Client, s *hcav1.ServiceLevelObjective, compliance int32) error {
	ref := strategyRef(s)
	var bp hcav1.BurstPolicy
	key := types.NamespacedName{Namespace: s.Namespace, Name: string(ref.Name)}
	if err := c.Get(ctx, key, &bp); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%w: spec.elasticityStrategy.burst.burstPolicyName: burst policy %s does not exist: create it or fix the name", errSpec, key)
		}
		return fmt.Errorf("get burst policy %s: %w", key, err)
	}
	if cur, err := ParseSLOOutput(&bp); err == nil && cur != nil && cur.SLO != s.Name {
		return fmt.Errorf("%w: burst policy %s is already driven by SLO %s: one SLO per burst policy", errSpec, key, cur.SLO)
	}
	v := burstAnnotation(s, compliance)
	if bp.Annotations[SLOOutputAnnotation] == v {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{SLOOutputAnnotation: v}}})
	if err := c.Patch(ctx, &bp, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotate burst policy %s: %w", key, err)
	}
	return nil
}

// removeStrategies deletes what the SLO wrote for strategies other than its
// current one: Horizontal/Vertical objects it controls, and its annotation on a
// BurstPolicy it drove before (named in status.strategy).
func removeStrategies(ctx context.Context, c client.Client, s *hcav1.ServiceLevelObjective) error {
	want := strategyRef(s)
	key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
	for _, obj := range []client.Object{&hcav1.HorizontalElasticityStrategy{}, &hcav1.VerticalElasticityStrategy{}} {
		kind := KindHorizontalStrategy
		if _, ok := obj.(*hcav1.VerticalElasticityStrategy); ok {
			kind = KindVerticalStrategy
		}
		if kind == want.Kind {
			continue
		}
		if err := c.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("get %s %s: %w", kind, key, err)
		}
		if !controlledBy(obj, s) {
			continue
		}
		if err := c.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete %s %s: %w", kind, key, err)
		}
	}
	if old := s.Status.Strategy; old != nil && old.Kind == KindBurstPolicy && *old != want {
		var bp hcav1.BurstPolicy
		bkey := types.NamespacedName{Namespace: s.Namespace, Name: string(old.Name)}
		if err := c.Get(ctx, bkey, &bp); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("get burst policy %s: %w", bkey, err)
		}
		if cur, err := ParseSLOOutput(&bp); err != nil || cur == nil || cur.SLO != s.Name {
			return nil
		}
		patch := []byte(`{"metadata":{"annotations":{"` + SLOOutputAnnotation + `":null}}}`)
		if err := c.Patch(ctx, &bp, client.RawPatch(types.MergePatchType, patch)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("remove %s from burst policy %s: %w", SLOOutputAnnotation, bkey, err)
		}
	}
	return nil
}
