package controller

// Carrying out a cleanup plan (burstCleanupPlanFor decides it) and a deleted
// policy's finalizer: writes to the primary, the burst clusters and Consul.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// executeCleanup carries out a cleanup plan, in its order.
func (r *BurstReconciler) executeCleanup(ctx context.Context, p *hcav1.BurstPolicy, deps []*appsv1.Deployment, views []*burstView, plan burstCleanupPlan) error {
	byName := map[string]*burstView{}
	for _, v := range views {
		byName[v.name] = v
	}
	for _, rs := range plan.Restore {
		for _, d := range deps {
			if d.Name == rs.Name {
				if err := r.restorePrimary(ctx, d, rs.Add); err != nil {
					return err
				}
			}
		}
	}
	var errs []error
	failed := map[string]bool{}
	for _, ref := range plan.DeleteCopies {
		v := byName[ref.Cluster]
		c := v.copies[ref.Name]
		if c == nil {
			continue
		}
		if err := r.objects.deleteCopy(ctx, v, c); err != nil {
			errs = append(errs, err)
			failed[v.name] = true
			continue
		}
		if !plan.Finalize {
			r.event(p, nil, corev1.EventTypeNormal, "CopyRemoved", "Cleanup", "deleted %s/%s in %s: its source is gone or no longer a target", c.Namespace, c.Name, v.name)
		}
	}
	for _, name := range plan.Sync {
		cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
		errs = append(errs, r.objects.syncPropagated(cctx, p, byName[name]))
		cancel()
	}
	for _, name := range plan.Clean {
		if failed[name] {
			continue
		}
		removed, err := r.objects.cleanup(ctx, p, byName[name])
		if err == nil {
			err = r.publisher.remove(ctx, p, name)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if removed > 0 {
			r.event(p, nil, corev1.EventTypeNormal, "ClusterCleaned", "Cleanup", "removed %d objects HCA created in %s (no replicas left there)", removed, name)
		}
	}
	if plan.Finalize {
		errs = append(errs, r.publisher.remove(ctx, p, string(p.Spec.PrimaryCluster)))
	}
	return errors.Join(errs...)
}

// restorePrimary gives a deleted policy's burst replicas back to the primary
// Deployment d and removes the controller's annotations, in one JSON patch
// that tests spec.replicas is still what was read.
func (r *BurstReconciler) restorePrimary(ctx context.Context, d *appsv1.Deployment, add int32) error {
	var ops []burstJSONPatchOp
	if d.Spec.Replicas != nil {
		ops = append(ops, burstJSONPatchOp{Op: "test", Path: "/spec/replicas", Value: *d.Spec.Replicas})
	}
	// Replicas moving back are in spec.replicas already.
	moving, _ := burstMovingBack(d)
	add = max(0, add-moving)
	ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/spec/replicas", Value: burstPtrOr(d.Spec.Replicas, 1) + add})
	for _, k := range []string{BurstPrimaryAnnotation, BurstTotalAnnotation, BurstSLOAppliedAnnotation, BurstRequestedTotalAnnotation, BurstMovingBackAnnotation} {
		if _, ok := d.Annotations[k]; ok {
			ops = append(ops, burstJSONPatchOp{Op: "remove", Path: "/metadata/annotations/" + strings.ReplaceAll(k, "/", "~1")})
		}
	}
	raw, err := json.Marshal(ops)
	if err == nil {
		err = r.client.Patch(ctx, d, client.RawPatch(types.JSONPatchType, raw))
	}
	if err == nil {
		r.fresh.note(d)
	}
	if err != nil {
		return fmt.Errorf("restore deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}

// finalize undoes a deleted policy (the cleanup plan with Deleting: burst
// replicas back to the primary, the annotations, copies, propagated objects,
// created namespaces and Consul registrations removed); then the finalizer
// goes. A burst cluster that cannot be reached blocks it, with an Event.
func (r *BurstReconciler) finalize(ctx context.Context, p *hcav1.BurstPolicy) error {
	if !controllerutil.ContainsFinalizer(p, BurstFinalizer) {
		return nil
	}
	deps, err := burstTargets(ctx, r.fresh, p)
	if err != nil {
		return err
	}
	views := r.views.load(ctx, p, burstStatusClusters(p))
	burstFailovers(p, views, r.clock.Now())
	plan := burstCleanupPlanFor(r.cleanupInput(p, deps, views, true))
	if len(plan.Blocked) > 0 {
		err := fmt.Errorf("cannot clean up cluster %s (remove finalizer %s by hand to give up)", strings.Join(plan.Blocked, "; cluster "), BurstFinalizer)
		r.event(p, nil, corev1.EventTypeWarning, "CleanupBlocked", "Cleanup", "%v", err)
		return err
	}
	if err := r.executeCleanup(ctx, p, deps, views, plan); err != nil {
		return err
	}
	patch := client.MergeFromWithOptions(p.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(p, BurstFinalizer)
	if err := r.client.Patch(ctx, p, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove finalizer of burst policy %s/%s: %w", p.Namespace, p.Name, err)
	}
	r.totals.forget(p.Namespace + "/" + p.Name + "/")
	r.fresh.forget(p.UID)
	r.mu.Lock()
	for k := range r.stuck {
		if strings.HasPrefix(k, p.Namespace+"/"+p.Name+"/") {
			delete(r.stuck, k)
		}
	}
	for k := range r.waiting {
		if strings.HasPrefix(k, string(p.UID)+"/") {
			delete(r.waiting, k)
		}
	}
	delete(r.exported, p.Namespace+"/"+p.Name)
	delete(r.statusAt, p.UID)
	r.mu.Unlock()
	if tm := r.opts.Telemetry; tm != nil {
		tm.Replicas.DeletePartialMatch(map[string]string{"policy": p.Namespace + "/" + p.Name})
		tm.Failovers.DeletePartialMatch(map[string]string{"policy": p.Namespace + "/" + p.Name})
	}
	return nil
}
