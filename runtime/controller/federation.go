package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

const (
	// FederatedAutoscalerLabel marks a member HPA as created by the
	// FederatedAutoscaler <namespace>.<name> (shortened with a hash when longer
	// than a label value may be).
	FederatedAutoscalerLabel = "hca.dev/federated-autoscaler"
	// FederatedAutoscalerAnnotation holds the owner's full <namespace>/<name>.
	FederatedAutoscalerAnnotation = "hca.dev/federated-autoscaler"
	// FederatedAutoscalerFinalizer makes deleting a FederatedAutoscaler delete
	// its member HPAs first.
	FederatedAutoscalerFinalizer = "hca.dev/federated-autoscaler-cleanup"

	// DefaultFederationInterval is how often member HPAs are read and
	// rebalanced: the HPA controller's default sync period.
	DefaultFederationInterval = 15 * time.Second
)

// FederatedAutoscalerReconciler keeps, in every member cluster of a
// FederatedAutoscaler, an autoscaling/v2 HPA with that member's part of the
// total min/max (scaling.Partition), so that each member goes on scaling
// while the runtime is down. Every Interval it reads the member HPAs' status
// and moves max from members that cannot use it to saturated ones
// (scaling.Rebalance). Everything it decides from is read from the member
// HPAs, so a restarted runtime carries on where the last one stopped.
// Its control-cluster permissions are in rbac.go.
type FederatedAutoscalerReconciler struct {
	Client  client.Client
	Members *Members
	// Clock gives the decision time handed to scaling.Rebalance.
	Clock    clock.PassiveClock
	Recorder events.EventRecorder
	// Interval between two reads of the member HPAs (default
	// DefaultFederationInterval).
	Interval time.Duration
	// Class selects the FederatedAutoscalers handled: those whose ClassLabel
	// equals it (the default "": those without the label).
	Class string
}

// SetupWithManager registers the reconciler.
func (r *FederatedAutoscalerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&hcav1.FederatedAutoscaler{}, builder.WithPredicates(classPredicate(r.Class))).Named("federatedautoscaler").Complete(r)
}

// federationLabelValue is the FederatedAutoscalerLabel value for the
// FederatedAutoscaler namespace/name.
func federationLabelValue(namespace, name string) string {
	s := namespace + "." + name
	if len(s) <= 63 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return strings.TrimRight(s[:52], "-_.") + "-" + hex.EncodeToString(sum[:])[:10]
}

// FederatedHPA is the HPA a member cluster gets for share (share.Placed()
// must hold): named after the target, in the FederatedAutoscaler's namespace,
// labelled as owned by it, with the share's min/max and the spec's metrics
// (default: CPU at 80 % of requests).
func FederatedHPA(fa *hcav1.FederatedAutoscaler, share scaling.FederatedShare) *autoscalingv2.HorizontalPodAutoscaler {
	kind := string(fa.Spec.Target.Kind)
	if kind == "" {
		kind = string(hcav1.WorkloadDeployment)
	}
	metrics := fa.Spec.Metrics
	if len(metrics) == 0 {
		metrics = []hcav1.MetricSpec{{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: hcav1.ResourceCPU, TargetAverageUtilization: 80}}}
	}
	var hm []autoscalingv2.MetricSpec
	for _, m := range metrics {
		if m.Type != hcav1.MetricResource || m.Resource == nil {
			continue // the CRD admits Resource metrics only
		}
		hm = append(hm, autoscalingv2.MetricSpec{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceName(m.Resource.Name),
				Target: autoscalingv2.MetricTarget{
					Type:               autoscalingv2.UtilizationMetricType,
					AverageUtilization: ptr.To(m.Resource.TargetAverageUtilization),
				},
			},
		})
	}
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{
			Name:        string(fa.Spec.Target.Name),
			Namespace:   fa.Namespace,
			Labels:      map[string]string{FederatedAutoscalerLabel: federationLabelValue(fa.Namespace, fa.Name)},
			Annotations: map[string]string{FederatedAutoscalerAnnotation: fa.Namespace + "/" + fa.Name},
		},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: kind, Name: string(fa.Spec.Target.Name)},
			MinReplicas:    ptr.To(share.Min),
			MaxReplicas:    share.Max,
			Metrics:        hm,
		},
	}
}

// ownedBy reports whether hpa was created for the FederatedAutoscaler fa.
func ownedBy(hpa *autoscalingv2.HorizontalPodAutoscaler, fa *hcav1.FederatedAutoscaler) bool {
	return hpa.Labels[FederatedAutoscalerLabel] == federationLabelValue(fa.Namespace, fa.Name) &&
		hpa.Annotations[FederatedAutoscalerAnnotation] == fa.Namespace+"/"+fa.Name
}

// FederatedMemberFromHPA is what scaling.Rebalance knows of a member from its
// HPA (nil: no HPA there). A member is Observed once its HPA controller has
// reported replicas (a fresh HPA, or one whose target cannot be read, reports
// 0 current and 0 desired and must not look like it needs nothing).
func FederatedMemberFromHPA(cluster string, hpa *autoscalingv2.HorizontalPodAutoscaler) scaling.FederatedMember {
	m := scaling.FederatedMember{Name: cluster}
	if hpa == nil {
		return m
	}
	m.Min = 1
	if hpa.Spec.MinReplicas != nil {
		m.Min = *hpa.Spec.MinReplicas
	}
	m.Max = hpa.Spec.MaxReplicas
	m.Current, m.Desired = hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas
	m.Observed = m.Current > 0 || m.Desired > 0
	if hpa.Status.LastScaleTime != nil {
		m.LastScaleTime = hpa.Status.LastScaleTime.Time
	}
	return m
}

// fedMember is one member cluster during a reconcile.
type fedMember struct {
	name string
	m    *Member
	hpa  *autoscalingv2.HorizontalPodAutoscaler // nil: none there
	err  error                                  // unreachable, or the HPA is someone else's
	// foreign: an HPA of the target's name exists there but is not ours.
	foreign bool
}

// errHybridClusterGone marks a member whose HybridCluster no longer exists.
var errHybridClusterGone = errors.New("hybrid cluster not found")

// readMember reaches cluster and reads the HPA of fa there.
func (r *FederatedAutoscalerReconciler) readMember(ctx context.Context, fa *hcav1.FederatedAutoscaler, cluster string) fedMember {
	fm := fedMember{name: cluster}
	m, err := r.Members.Get(ctx, cluster)
	if err != nil {
		if apierrors.IsNotFound(err) {
			// The HybridCluster, or only its credentials Secret, is missing.
			var hc hcav1.HybridCluster
			if gerr := r.Members.Control.Get(ctx, types.NamespacedName{Name: cluster}, &hc); apierrors.IsNotFound(gerr) {
				err = fmt.Errorf("%w: create HybridCluster %s or remove it from spec.members", errHybridClusterGone, cluster)
			}
		}
		fm.err = err
		return fm
	}
	fm.m = m
	var hpa autoscalingv2.HorizontalPodAutoscaler
	err = m.Client.Get(ctx, types.NamespacedName{Namespace: fa.Namespace, Name: string(fa.Spec.Target.Name)}, &hpa)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		fm.err = fmt.Errorf("read HPA %s/%s: %w", fa.Namespace, fa.Spec.Target.Name, err)
	case !ownedBy(&hpa, fa):
		fm.foreign = true
		fm.err = fmt.Errorf("HPA %s/%s exists and was not created by this FederatedAutoscaler: delete or rename it, or remove the cluster from spec.members", hpa.Namespace, hpa.Name)
	default:
		fm.hpa = &hpa
	}
	return fm
}

// Reconcile partitions, applies and rebalances one FederatedAutoscaler.
func (r *FederatedAutoscalerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	interval := r.Interval
	if interval <= 0 {
		interval = DefaultFederationInterval
	}
	var fa hcav1.FederatedAutoscaler
	if err := r.Client.Get(ctx, req.NamespacedName, &fa); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if fa.Labels[ClassLabel] != r.Class {
		return ctrl.Result{}, nil
	}
	if !fa.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &fa, interval)
	}
	if !controllerutil.ContainsFinalizer(&fa, FederatedAutoscalerFinalizer) {
		before := fa.DeepCopy()
		controllerutil.AddFinalizer(&fa, FederatedAutoscalerFinalizer)
		if err := r.Client.Patch(ctx, &fa, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, fmt.Errorf("add finalizer to federated autoscaler %s/%s: %w", fa.Namespace, fa.Name, err)
		}
	}
	before := fa.DeepCopy()
	now := r.Clock.Now()

	// Read every member's HPA: the partition last applied is there.
	members := make([]fedMember, len(fa.Spec.Members))
	input := make([]scaling.FederatedMember, len(fa.Spec.Members))
	inSpec := map[string]bool{}
	for i, sm := range fa.Spec.Members {
		name := string(sm.Cluster)
		inSpec[name] = true
		members[i] = r.readMember(ctx, &fa, name)
		if members[i].err != nil {
			// Left untouched: assume it keeps what it last had.
			input[i] = previousMember(&fa, name)
			continue
		}
		input[i] = FederatedMemberFromHPA(name, members[i].hpa)
	}
	totalMin := max(fa.Spec.MinReplicas, 1)
	totalMin, requeue, schedProblem := federationScheduleMin(&fa, totalMin, interval, now)
	window := scaling.DefaultScaleForbiddenWindow
	if fa.Spec.ScaleForbiddenWindow != nil {
		window = fa.Spec.ScaleForbiddenWindow.Duration
	}
	res, err := decide(now, totalMin, fa.Spec.MaxReplicas, input, members, window)
	if err != nil {
		// The CRD's validation admits no such spec; say so and wait for an edit.
		meta.SetStatusCondition(&fa.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: "InvalidSpec", Message: err.Error(), ObservedGeneration: fa.Generation})
		return ctrl.Result{}, r.patchStatus(ctx, before, &fa)
	}

	// Apply the partition to every reachable member.
	var clusters []hcav1.FederatedClusterStatus
	var problems []string
	for i := range members {
		fm := &members[i]
		want := res.Members[i]
		st := hcav1.FederatedClusterStatus{Cluster: hcav1.ClusterName(fm.name)}
		if fm.err == nil {
			fm.err = r.apply(ctx, &fa, fm, scaling.FederatedShare{Cluster: fm.name, Min: want.Min, Max: want.Max})
		}
		if fm.err != nil {
			problems = append(problems, fmt.Sprintf("cluster %s: %v", fm.name, fm.err))
			prev := input[i]
			st.MinReplicas, st.MaxReplicas, st.CurrentReplicas, st.DesiredReplicas = prev.Min, prev.Max, prev.Current, prev.Desired
			if !prev.LastScaleTime.IsZero() {
				st.LastScaleTime = &metav1.Time{Time: prev.LastScaleTime}
			}
		} else {
			st.MinReplicas, st.MaxReplicas = want.Min, want.Max
			if fm.hpa != nil {
				st.CurrentReplicas, st.DesiredReplicas = fm.hpa.Status.CurrentReplicas, fm.hpa.Status.DesiredReplicas
				st.LastScaleTime = fm.hpa.Status.LastScaleTime
			}
		}
		clusters = append(clusters, st)
	}

	// Members removed from the spec: delete what was created there.
	for _, prev := range fa.Status.Clusters {
		name := string(prev.Cluster)
		if inSpec[name] {
			continue
		}
		if err := r.deleteMemberHPA(ctx, &fa, name); err != nil {
			problems = append(problems, fmt.Sprintf("cluster %s (removed from spec.members): %v", name, err))
			clusters = append(clusters, prev)
		}
	}

	r.recordDecision(&fa, res)
	fa.Status.ObservedGeneration = fa.Generation
	fa.Status.Clusters = clusters
	fa.Status.CurrentReplicas, fa.Status.DesiredReplicas = 0, 0
	for _, c := range clusters {
		fa.Status.CurrentReplicas += c.CurrentReplicas
		fa.Status.DesiredReplicas += c.DesiredReplicas
	}
	if schedProblem != "" {
		problems = append(problems, schedProblem)
	}
	r.setConditions(&fa, problems, len(members))
	if err := r.patchStatus(ctx, before, &fa); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// federationScheduleMin is the total minReplicas with fa's spec.schedules
// in force at now (their floor, capped at maxReplicas), and when to
// reconcile next: interval, or sooner when a window opens or closes. The
// member HPAs start the replicas themselves, so no lead time is known: a
// window's floor applies from its start. A schedule that does not compile
// is returned as a problem and ignored.
func federationScheduleMin(fa *hcav1.FederatedAutoscaler, specMin int32, interval time.Duration, now time.Time) (int32, time.Duration, string) {
	sched, err := policy.Schedule(fa.Spec.Schedules)
	if err != nil {
		return specMin, interval, err.Error()
	}
	f := sched.Floor(now, 0)
	requeue := interval
	if !f.NextChange.IsZero() {
		requeue = min(requeue, max(f.NextChange.Sub(now), time.Second))
	}
	return max(specMin, min(f.Min, fa.Spec.MaxReplicas)), requeue, ""
}

// decide is scaling.Rebalance, except that when a reachable member is placed
// (has an HPA) where a fresh scaling.Partition would not place it, or the
// other way round, the fresh partition wins. Rebalance alone counts a member
// without HPA as consistent (Max 0 adds nothing to the sums), so a member
// added to spec.members would otherwise never get one.
func decide(now time.Time, totalMin, totalMax int32, input []scaling.FederatedMember, members []fedMember, window time.Duration) (scaling.RebalanceResult, error) {
	names := make([]string, len(input))
	for i, m := range input {
		names[i] = m.Name
	}
	shares, err := scaling.Partition(totalMin, totalMax, names)
	if err != nil {
		return scaling.RebalanceResult{}, err
	}
	for i, s := range shares {
		if members[i].err == nil && s.Placed() != (input[i].Max > 0) {
			res := scaling.RebalanceResult{Members: make([]scaling.FederatedMember, len(input)), Repartitioned: true}
			copy(res.Members, input)
			for j, s := range shares {
				res.Members[j].Min, res.Members[j].Max = s.Min, s.Max
			}
			return res, nil
		}
	}
	return scaling.Rebalance(now, totalMin, totalMax, input, scaling.RebalanceOptions{ScaleForbiddenWindow: window})
}

// previousMember is the last recorded state of a member that cannot be read
// now. It is not Observed, so scaling.Rebalance never changes it.
func previousMember(fa *hcav1.FederatedAutoscaler, name string) scaling.FederatedMember {
	m := scaling.FederatedMember{Name: name}
	for _, c := range fa.Status.Clusters {
		if string(c.Cluster) == name {
			m.Min, m.Max, m.Current, m.Desired = c.MinReplicas, c.MaxReplicas, c.CurrentReplicas, c.DesiredReplicas
			if c.LastScaleTime != nil {
				m.LastScaleTime = c.LastScaleTime.Time
			}
		}
	}
	return m
}

// apply makes fm's HPA carry share: created, updated, or (share not placed)
// deleted. On success fm.hpa is the HPA as it now is (nil if none).
func (r *FederatedAutoscalerReconciler) apply(ctx context.Context, fa *hcav1.FederatedAutoscaler, fm *fedMember, share scaling.FederatedShare) error {
	if !share.Placed() {
		if fm.hpa == nil {
			return nil
		}
		if err := fm.m.Client.Delete(ctx, fm.hpa, client.Preconditions{UID: &fm.hpa.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("delete HPA %s/%s: %w", fm.hpa.Namespace, fm.hpa.Name, err)
		}
		fm.hpa = nil
		return nil
	}
	want := FederatedHPA(fa, share)
	if fm.hpa == nil {
		if err := fm.m.Client.Create(ctx, want); err != nil {
			return fmt.Errorf("create HPA %s/%s: %w", want.Namespace, want.Name, err)
		}
		fm.hpa = want
		return nil
	}
	got := fm.hpa.DeepCopy()
	if equality.Semantic.DeepEqual(got.Spec, want.Spec) && hasAll(got.Labels, want.Labels) && hasAll(got.Annotations, want.Annotations) {
		return nil
	}
	got.Spec = want.Spec
	got.Labels = mergeMaps(got.Labels, want.Labels)
	got.Annotations = mergeMaps(got.Annotations, want.Annotations)
	if err := fm.m.Client.Update(ctx, got); err != nil {
		return fmt.Errorf("update HPA %s/%s: %w", got.Namespace, got.Name, err)
	}
	fm.hpa = got
	return nil
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func mergeMaps(dst, src map[string]string) map[string]string {
	if dst == nil {
		dst = map[string]string{}
	}
	maps.Copy(dst, src)
	return dst
}

// deleteMemberHPA deletes the HPA fa created in cluster, if any. A cluster
// whose HybridCluster is gone has nothing left to clean.
func (r *FederatedAutoscalerReconciler) deleteMemberHPA(ctx context.Context, fa *hcav1.FederatedAutoscaler, cluster string) error {
	fm := r.readMember(ctx, fa, cluster)
	switch {
	case errors.Is(fm.err, errHybridClusterGone):
		return nil
	case fm.foreign:
		return nil // someone else's: not ours to delete
	case fm.err != nil:
		return fm.err
	case fm.hpa == nil:
		return nil
	}
	if err := fm.m.Client.Delete(ctx, fm.hpa, client.Preconditions{UID: &fm.hpa.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete HPA %s/%s: %w", fm.hpa.Namespace, fm.hpa.Name, err)
	}
	return nil
}

// finalize deletes the member HPAs of a FederatedAutoscaler being deleted,
// then lets it go. A member that cannot be reached keeps the finalizer (and
// says why in Degraded) until it can: its HPA would otherwise scale on alone.
func (r *FederatedAutoscalerReconciler) finalize(ctx context.Context, fa *hcav1.FederatedAutoscaler, interval time.Duration) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(fa, FederatedAutoscalerFinalizer) {
		return ctrl.Result{}, nil
	}
	seen := map[string]bool{}
	var names []string
	for _, m := range fa.Spec.Members {
		if !seen[string(m.Cluster)] {
			seen[string(m.Cluster)] = true
			names = append(names, string(m.Cluster))
		}
	}
	for _, c := range fa.Status.Clusters {
		if !seen[string(c.Cluster)] {
			seen[string(c.Cluster)] = true
			names = append(names, string(c.Cluster))
		}
	}
	var problems []string
	for _, name := range names {
		if err := r.deleteMemberHPA(ctx, fa, name); err != nil {
			problems = append(problems, fmt.Sprintf("cluster %s: %v", name, err))
		}
	}
	if len(problems) > 0 {
		before := fa.DeepCopy()
		meta.SetStatusCondition(&fa.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionTrue,
			Reason: "CleanupFailed", ObservedGeneration: fa.Generation,
			Message: "cannot delete member HPAs yet; deletion waits: " + strings.Join(problems, "; ")})
		if err := r.patchStatus(ctx, before, fa); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: interval}, nil
	}
	before := fa.DeepCopy()
	controllerutil.RemoveFinalizer(fa, FederatedAutoscalerFinalizer)
	if err := r.Client.Patch(ctx, fa, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("remove finalizer from federated autoscaler %s/%s: %w", fa.Namespace, fa.Name, err)
	}
	return ctrl.Result{}, nil
}

// recordDecision emits an Event for a repartition or a move of max replicas.
func (r *FederatedAutoscalerReconciler) recordDecision(fa *hcav1.FederatedAutoscaler, res scaling.RebalanceResult) {
	if r.Recorder == nil {
		return
	}
	if res.Repartitioned {
		parts := make([]string, len(res.Members))
		for i, m := range res.Members {
			parts[i] = fmt.Sprintf("%s %d-%d", m.Name, m.Min, m.Max)
		}
		r.Recorder.Eventf(fa, nil, corev1.EventTypeNormal, "Partitioned", "Partition",
			"min %d / max %d over members: %s", max(fa.Spec.MinReplicas, 1), fa.Spec.MaxReplicas, strings.Join(parts, ", "))
	}
	for _, mv := range res.Moves {
		r.Recorder.Eventf(fa, nil, corev1.EventTypeNormal, "Rebalanced", "Rebalance",
			"moved %d max replicas from %s (cannot use them) to %s (saturated)", mv.Replicas, mv.From, mv.To)
	}
}

// setConditions sets Ready and Degraded from the members' problems.
func (r *FederatedAutoscalerReconciler) setConditions(fa *hcav1.FederatedAutoscaler, problems []string, n int) {
	if len(problems) == 0 {
		meta.SetStatusCondition(&fa.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: "Partitioned", Message: fmt.Sprintf("HPAs of all %d members carry their partition", n), ObservedGeneration: fa.Generation})
		meta.SetStatusCondition(&fa.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse,
			Reason: "MembersReachable", Message: "every member cluster answered", ObservedGeneration: fa.Generation})
		return
	}
	msg := "left untouched: " + strings.Join(problems, "; ")
	if len(msg) > 32000 {
		msg = msg[:32000]
	}
	meta.SetStatusCondition(&fa.Status.Conditions, metav1.Condition{Type: hcav1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: "MembersDegraded", Message: fmt.Sprintf("%d of %d members could not be updated (see Degraded)", len(problems), n), ObservedGeneration: fa.Generation})
	meta.SetStatusCondition(&fa.Status.Conditions, metav1.Condition{Type: hcav1.ConditionDegraded, Status: metav1.ConditionTrue,
		Reason: "MemberUnavailable", Message: msg, ObservedGeneration: fa.Generation})
}

// patchStatus writes fa's status if it differs from before's.
func (r *FederatedAutoscalerReconciler) patchStatus(ctx context.Context, before, fa *hcav1.FederatedAutoscaler) error {
	if equality.Semantic.DeepEqual(before.Status, fa.Status) {
		return nil
	}
	if err := writeStatus(ctx, r.Client, fa, statusMergeFrom(before.Status, fa.Status)); err != nil {
		return fmt.Errorf("patch status of federated autoscaler %s/%s: %w", fa.Namespace, fa.Name, err)
	}
	return nil
}
