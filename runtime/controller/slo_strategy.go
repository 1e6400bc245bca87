package controller

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
)

// Strategy object kinds and the label that ties a strategy object to its SLO.
const (
	KindHorizontalStrategy = "HorizontalElasticityStrategy"
	KindVerticalStrategy   = "VerticalElasticityStrategy"
	KindBurstStrategy      = "BurstElasticityStrategy"
	KindMultiObjective     = "MultiObjectiveElasticityStrategy"
	// SLOLabel names, on a strategy object, the SLO that wrote it.
	SLOLabel = "hca.dev/slo"
	// LegacySLOOutputAnnotation is where runtimes before the typed
	// BurstElasticityStrategy wrote a Burst strategy's output, as JSON on the
	// BurstPolicy. Nothing reads it any more: the burst controller removes it
	// from the policies it handles.
	LegacySLOOutputAnnotation = "hca.dev/slo-output"
)

// strategyRef is the object the SLO's current strategy kind writes.
func strategyRef(s *hcav1.ServiceLevelObjective) hcav1.StrategyRef {
	switch s.Spec.ElasticityStrategy.Kind {
	case hcav1.StrategyVertical:
		return hcav1.StrategyRef{Kind: KindVerticalStrategy, Name: hcav1.ObjectName(s.Name)}
	case hcav1.StrategyBurst:
		return hcav1.StrategyRef{Kind: KindBurstStrategy, Name: hcav1.ObjectName(s.Name)}
	case hcav1.StrategyMultiObjective:
		return hcav1.StrategyRef{Kind: KindMultiObjective, Name: hcav1.ObjectName(s.Name)}
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

// buildStrategy returns the Horizontal, Vertical, Burst or MultiObjective
// strategy object the SLO should own for the given compliance: named after
// the SLO, in its namespace, labelled with it and controlled by it. A
// MultiObjective strategy gets no compliance: it measures the response time
// itself and aims at the SLO's threshold (policy.MultiObjectiveFromSLO), so
// its spec changes only with the SLO's. It is pure.
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
	case hcav1.StrategyBurst:
		if es.Burst == nil || es.Burst.BurstPolicyName == "" {
			return nil, fmt.Errorf("%w: spec.elasticityStrategy.burst.burstPolicyName is required for kind Burst", errSpec)
		}
		spec := hcav1.BurstElasticityStrategySpec{BurstPolicyName: es.Burst.BurstPolicyName, SLOOutput: sloOutput(s, compliance), Stabilization: stab}
		// With a window, each evaluation is a new output (generation) so that
		// the window sees every recommendation; without one, an unchanged
		// output must not be applied again (it would compound).
		if up, down := windows(s.Spec.Stabilization); slo.EveryEvaluationIsOutput(up, down) && s.Status.LastEvaluationTime != nil {
			at := *s.Status.LastEvaluationTime.DeepCopy()
			spec.EvaluatedAt = &at
		}
		return &hcav1.BurstElasticityStrategy{ObjectMeta: meta, Spec: spec}, nil
	case hcav1.StrategyMultiObjective:
		spec, err := policy.MultiObjectiveFromSLO(&s.Spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", errSpec, strings.TrimPrefix(err.Error(), policy.ErrNotMultiObjective.Error()+": "))
		}
		return &hcav1.MultiObjectiveElasticityStrategy{ObjectMeta: meta, Spec: spec}, nil
	}
	return nil, fmt.Errorf("%w: spec.elasticityStrategy.kind %q is unknown: use Horizontal, Vertical, Burst or MultiObjective", errSpec, es.Kind)
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

// strategyKinds are the strategy objects an SLO may own, by kind.
func strategyKinds() map[string]client.Object {
	out := make(map[string]client.Object, len(strategyKindNames))
	for _, k := range strategyKindNames {
		out[k] = newStrategy(k)
	}
	return out
}

var strategyKindNames = []string{KindHorizontalStrategy, KindVerticalStrategy, KindBurstStrategy, KindMultiObjective}

// newStrategy returns an empty strategy object of kind (nil for another
// kind): one object, where strategyKinds makes all four and a map.
func newStrategy(kind string) client.Object {
	switch kind {
	case KindHorizontalStrategy:
		return &hcav1.HorizontalElasticityStrategy{}
	case KindVerticalStrategy:
		return &hcav1.VerticalElasticityStrategy{}
	case KindBurstStrategy:
		return &hcav1.BurstElasticityStrategy{}
	case KindMultiObjective:
		return &hcav1.MultiObjectiveElasticityStrategy{}
	}
	return nil
}

// copySpec sets dst's spec to src's (both of the same strategy kind).
func copySpec(dst, src client.Object) {
	switch d := dst.(type) {
	case *hcav1.HorizontalElasticityStrategy:
		d.Spec = src.(*hcav1.HorizontalElasticityStrategy).Spec
	case *hcav1.VerticalElasticityStrategy:
		d.Spec = src.(*hcav1.VerticalElasticityStrategy).Spec
	case *hcav1.BurstElasticityStrategy:
		d.Spec = src.(*hcav1.BurstElasticityStrategy).Spec
	case *hcav1.MultiObjectiveElasticityStrategy:
		d.Spec = src.(*hcav1.MultiObjectiveElasticityStrategy).Spec
	}
}

// sameSpec says whether a and b are strategies of one kind with equal specs.
func sameSpec(a, b client.Object) bool {
	sa, sb := specOf(a), specOf(b)
	return sa != nil && reflect.TypeOf(sa) == reflect.TypeOf(sb) && equality.Semantic.DeepEqual(sa, sb)
}

// specOf is a strategy object's spec (nil for other objects).
func specOf(o client.Object) any {
	switch x := o.(type) {
	case *hcav1.HorizontalElasticityStrategy:
		return x.Spec
	case *hcav1.VerticalElasticityStrategy:
		return x.Spec
	case *hcav1.BurstElasticityStrategy:
		return x.Spec
	case *hcav1.MultiObjectiveElasticityStrategy:
		return x.Spec
	}
	return nil
}

// hasLabels says whether have holds every label of want with its value.
func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// writeStrategy creates or updates the object of the SLO's current strategy.
func writeStrategy(ctx context.Context, c client.Client, s *hcav1.ServiceLevelObjective, compliance int32) error {
	want, err := buildStrategy(s, compliance)
	if err != nil {
		return err
	}
	switch w := want.(type) {
	case *hcav1.BurstElasticityStrategy:
		if err := checkBurstTarget(ctx, c, s, w.Spec.BurstPolicyName); err != nil {
			return err
		}
	case *hcav1.MultiObjectiveElasticityStrategy:
		if err := checkMultiObjectiveModel(ctx, c, s.Namespace, w.Spec.Model); err != nil {
			return err
		}
	}
	kind := strategyRef(s).Kind
	key := client.ObjectKeyFromObject(want)
	have := newStrategy(kind)
	if have == nil {
		return fmt.Errorf("strategy kind %q is not one of %v", kind, strategyKindNames)
	}
	// The cache's own object, not a copy (every evaluation reads it, few
	// change it): copied below before it is changed.
	if err := c.Get(ctx, key, have, client.UnsafeDisableDeepCopy); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("get %s %s: %w", kind, key, err)
		}
		if err := c.Create(ctx, want); err != nil {
			return fmt.Errorf("create %s %s: %w", kind, key, err)
		}
		return nil
	}
	if !controlledBy(have, s) {
		return fmt.Errorf("%w: %s %s exists and is not controlled by this SLO: delete or rename it", errSpec, kind, key)
	}
	labelled := hasLabels(have.GetLabels(), strategyLabels(s))
	if labelled && sameSpec(have, want) {
		return nil // the common case, every evaluation: no copy to compare
	}
	if labelled {
		// A new compliance (most writes): the spec alone, with no copy of
		// the cache's object and no marshalling of it whole (target is only
		// its name, to address the patch).
		target := newStrategy(kind)
		target.SetNamespace(have.GetNamespace())
		target.SetName(have.GetName())
		if err := patchLean(ctx, c, target, specMergeFrom(specOf(have), specOf(want)), false); err != nil {
			return fmt.Errorf("patch %s %s: %w", kind, key, err)
		}
		return nil
	}
	before := have // the cache's, only read by the patch
	have = have.DeepCopyObject().(client.Object)
	copySpec(have, want)
	labels := have.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range strategyLabels(s) {
		labels[k] = v
	}
	have.SetLabels(labels)
	if err := patchLean(ctx, c, have, client.MergeFrom(before), false); err != nil {
		return fmt.Errorf("patch %s %s: %w", kind, key, err)
	}
	return nil
}

// checkBurstTarget refuses a Burst strategy whose BurstPolicy does not exist or
// is already driven by another SLO's strategy (one SLO per burst policy).
func checkBurstTarget(ctx context.Context, c client.Client, s *hcav1.ServiceLevelObjective, policy hcav1.ObjectName) error {
	key := types.NamespacedName{Namespace: s.Namespace, Name: string(policy)}
	if err := c.Get(ctx, key, &hcav1.BurstPolicy{}); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%w: spec.elasticityStrategy.burst.burstPolicyName: burst policy %s does not exist: create it or fix the name", errSpec, key)
		}
		return fmt.Errorf("get burst policy %s: %w", key, err)
	}
	var list hcav1.BurstElasticityStrategyList
	if err := c.List(ctx, &list, client.InNamespace(s.Namespace)); err != nil {
		return fmt.Errorf("list burst strategies in %s: %w", s.Namespace, err)
	}
	for i := range list.Items {
		o := &list.Items[i]
		if o.Spec.BurstPolicyName == policy && !controlledBy(o, s) && o.DeletionTimestamp == nil {
			return fmt.Errorf("%w: burst policy %s is already driven by SLO %s: one SLO per burst policy", errSpec, key, o.Labels[SLOLabel])
		}
	}
	return nil
}

// checkMultiObjectiveModel refuses a MultiObjective strategy whose model
// ConfigMap or key does not exist, so that the SLO says what is missing
// (the strategy object is written once it exists; its controller parses the
// model).
func checkMultiObjectiveModel(ctx context.Context, c client.Reader, ns string, ref hcav1.MultiObjectiveModelRef) error {
	key := types.NamespacedName{Namespace: ns, Name: string(ref.ConfigMapName)}
	k := ref.Key
	if k == "" {
		k = "model.json"
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, key, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("%w: spec.elasticityStrategy.multiObjective.model.configMapName: ConfigMap %s does not exist: create it with the model file of `hca-runtime moha train` under key %q, or fix the name", errSpec, key, k)
		}
		return fmt.Errorf("get model ConfigMap %s: %w", key, err)
	}
	if _, ok := cm.Data[k]; !ok {
		return fmt.Errorf("%w: spec.elasticityStrategy.multiObjective.model.key: ConfigMap %s has no key %q: put the model file there, or fix the key", errSpec, key, k)
	}
	return nil
}

// removeStrategies deletes the strategy objects the SLO controls other than
// the one of its current kind.
func removeStrategies(ctx context.Context, c client.Client, s *hcav1.ServiceLevelObjective) error {
	want := strategyRef(s)
	key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
	for kind, obj := range strategyKinds() {
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
	return nil
}
