package controller

import (
	"context"
	"fmt"
	"reflect"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// This file is the one way the runtime puts an object into a member cluster
// (like the ACK runtime's generic reconciler): Deployment copies, namespaces
// and propagated ConfigMaps, Secrets and Services all go through ensureObject,
// and differ only in their ensureRule.

// ensureRule says how ensureObject treats one kind of object.
type ensureRule struct {
	// owned reports whether an object found in the cluster was created by
	// HCA for this purpose (and so may be updated).
	owned func(existing client.Object) bool
	// foreign is the error for an object of the same name HCA did not create;
	// nil leaves such an object as it is and uses it (a namespace the user
	// made).
	foreign func(existing client.Object) error
	// current reports whether existing already holds what desired says (nil:
	// their BurstHashAnnotation values are equal).
	current func(desired, existing client.Object) bool
	// keep copies onto desired, before an update, what the member cluster
	// owns in existing (a Service's allocated addresses); nil: nothing.
	keep func(desired, existing client.Object)
}

// ensureObject makes cluster (reached through c) hold desired: it creates the
// object, or updates one HCA created when it differs from desired. existing is
// the object as the caller last read it (nil: read it here). It returns what
// the cluster now holds. An object being deleted is an error (retried by the
// next round), never recreated under the deletion.
func ensureObject(ctx context.Context, c client.Client, cluster string, desired, existing client.Object, rule ensureRule) (client.Object, error) {
	key := client.ObjectKeyFromObject(desired)
	what := func() string { return fmt.Sprintf("%s %s", kindOf(desired), objectKey(desired)) }
	if existing == nil {
		cur := desired.DeepCopyObject().(client.Object)
		err := c.Get(ctx, key, cur)
		switch {
		case apierrors.IsNotFound(err):
			obj := desired.DeepCopyObject().(client.Object)
			err := c.Create(ctx, obj)
			if err == nil {
				return obj, nil
			}
			if !apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("create %s in cluster %s: %w", what(), cluster, err)
			}
			if err := c.Get(ctx, key, cur); err != nil {
				return nil, fmt.Errorf("get %s in cluster %s: %w", what(), cluster, err)
			}
		case err != nil:
			return nil, fmt.Errorf("get %s in cluster %s: %w", what(), cluster, err)
		}
		existing = cur
	}
	if existing.GetDeletionTimestamp() != nil {
		return nil, fmt.Errorf("%s in cluster %s is being deleted: retrying once it is gone", what(), cluster)
	}
	if !rule.owned(existing) {
		if rule.foreign == nil {
			return existing, nil
		}
		return nil, rule.foreign(existing)
	}
	current := rule.current
	if current == nil {
		current = sameHash
	}
	if current(desired, existing) {
		return existing, nil
	}
	upd := desired.DeepCopyObject().(client.Object)
	upd.SetResourceVersion(existing.GetResourceVersion())
	if rule.keep != nil {
		rule.keep(upd, existing)
	}
	if err := c.Update(ctx, upd); err != nil {
		return nil, fmt.Errorf("update %s in cluster %s: %w", what(), cluster, err)
	}
	return upd, nil
}

// deleteObject deletes obj from cluster if it is still the object that was
// read (UID precondition); an object already gone is not an error.
func deleteObject(ctx context.Context, c client.Client, cluster string, obj client.Object, opts ...client.DeleteOption) error {
	uid := obj.GetUID()
	if uid != "" {
		opts = append(opts, client.Preconditions{UID: &uid})
	}
	if err := c.Delete(ctx, obj, opts...); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s in cluster %s: %w", kindOf(obj), objectKey(obj), cluster, err)
	}
	return nil
}

func sameHash(desired, existing client.Object) bool {
	return existing.GetAnnotations()[BurstHashAnnotation] == desired.GetAnnotations()[BurstHashAnnotation]
}

// kindOf names an object's kind for messages: its TypeMeta kind, else its Go
// type (objects read by a typed client have no TypeMeta).
func kindOf(obj client.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// objectKey renders "namespace/name", or "name" for cluster-scoped objects.
func objectKey(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// scaleTo sets obj's replicas through its scale subresource (a merge patch of
// spec.replicas: nothing else of the object is written), on condition that
// obj's resourceVersion, if it has one, is still the object's.
func scaleTo(ctx context.Context, c client.Client, cluster string, obj client.Object, replicas int32) error {
	raw := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))
	if rv := obj.GetResourceVersion(); rv != "" {
		// A precondition: obj may come from an informer a moment behind
		// the cluster; a stale read fails with a conflict and the round is
		// retried instead of scaling from a replica count that is gone.
		raw = []byte(fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"replicas":%d}}`, rv, replicas))
	}
	if err := c.SubResource("scale").Patch(ctx, obj, client.RawPatch(types.MergePatchType, raw), client.WithSubResourceBody(&autoscalingv1.Scale{})); err != nil {
		return fmt.Errorf("scale %s %s in cluster %s to %d: %w", kindOf(obj), objectKey(obj), cluster, replicas, err)
	}
	return nil
}
