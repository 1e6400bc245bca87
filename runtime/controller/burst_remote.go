package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// memberObjects keeps a policy's objects in burst clusters: the namespace,
// the Deployment copies and the ConfigMaps, Secrets and Services that
// spec.propagate selects, each through ensureObject with its rule.
//
// Inputs: the policy, a burst cluster's view, the copies to hold; the
// primary's objects to propagate (through primary, a cached reader). Outputs:
// objects created, updated, scaled (through /scale) or deleted in the burst
// cluster, and the view's copies kept current. Every call to one cluster is
// bounded by timeout.
type memberObjects struct {
	primary client.Reader
	timeout time.Duration
	// expect is told of every write of a copy (nil: nothing waits for
	// the informers).
	expect *burstExpectations
}

// namespaceRule: a namespace HCA created is kept as it is; one that existed
// before is used and never changed.
var namespaceRule = ensureRule{
	owned:   func(o client.Object) bool { return o.GetLabels()[BurstCreatedNamespaceLabel] == "true" },
	current: func(_, _ client.Object) bool { return true },
}

// copyRule: a Deployment copy HCA made for policy is updated when its hash
// (everything but the replica count) changes or it was paused; a Deployment
// of the same name HCA did not make is never touched.
func copyRule(policy, cluster string) ensureRule {
	return ensureRule{
		owned: func(o client.Object) bool { return burstOwned(o, policy) },
		foreign: func(o client.Object) error {
			return fmt.Errorf("cluster %s already has a deployment %s that HCA did not create: rename one of them or remove the cluster from burstTargets", cluster, objectKey(o))
		},
		current: func(desired, existing client.Object) bool {
			return sameHash(desired, existing) && !existing.(*appsv1.Deployment).Spec.Paused
		},
	}
}

// propagatedRule: a propagated object HCA made is updated when its hash
// changes, keeping what the burst cluster allocated for a Service; an object
// of the same name HCA did not make is left alone (and reported).
func propagatedRule(policy, cluster string) ensureRule {
	return ensureRule{
		owned: func(o client.Object) bool { return burstOwned(o, policy) },
		foreign: func(o client.Object) error {
			return fmt.Errorf("cluster %s already has %s %s that HCA did not create: it is not propagated", cluster, kindOf(o), objectKey(o))
		},
		keep: func(desired, existing client.Object) {
			if svc, ok := desired.(*corev1.Service); ok {
				c := existing.(*corev1.Service)
				svc.Spec.ClusterIP, svc.Spec.ClusterIPs = c.Spec.ClusterIP, c.Spec.ClusterIPs
				svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = c.Spec.IPFamilies, c.Spec.IPFamilyPolicy
			}
		},
	}
}

// ensureNamespace creates the policy's namespace in a burst cluster if it is
// missing, marked as created by HCA.
func (m memberObjects) ensureNamespace(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) error {
	ns := &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        p.Namespace,
			Labels:      map[string]string{BurstManagedByLabel: BurstManagedBy, BurstCreatedNamespaceLabel: "true"},
			Annotations: map[string]string{BurstSourceAnnotation: string(p.Spec.PrimaryCluster) + "/" + p.Namespace},
		},
	}
	_, err := ensureObject(ctx, v.member.Client, v.name, ns, nil, namespaceRule)
	return err
}

// ensureCopy makes v hold desired (namespace and propagated objects first, so
// that the pods find them); a change of the replica count alone goes through
// the scale subresource.
func (m memberObjects) ensureCopy(ctx context.Context, p *hcav1.BurstPolicy, v *burstView, desired *appsv1.Deployment) error {
	cctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var existing client.Object
	before := "" // the copy's version before this call's writes ("" none)
	if c := v.copies[desired.Name]; c != nil {
		existing, before = c, c.ResourceVersion
	} else {
		if err := m.ensureNamespace(cctx, p, v); err != nil {
			return err
		}
		if err := m.syncPropagated(cctx, p, v); err != nil {
			return err
		}
	}
	got, err := ensureObject(cctx, v.member.Client, v.name, desired, existing, copyRule(p.Name, v.name))
	if err != nil {
		return err
	}
	dep := got.(*appsv1.Deployment).DeepCopy()
	if existing == nil || dep.ResourceVersion != before { // created or updated
		m.expect.wrote(v.name, dep, before)
	}
	if want := *desired.Spec.Replicas; burstPtrOr(dep.Spec.Replicas, 1) != want {
		if err := scaleTo(cctx, v.member.Client, v.name, dep, want); err != nil {
			return err
		}
		m.expect.wrote(v.name, dep, dep.ResourceVersion) // the latest write is the one waited for
		dep.Spec.Replicas = &want
	}
	v.copies[desired.Name] = dep
	return nil
}

// deleteCopy deletes a Deployment copy (its pods follow in the background).
func (m memberObjects) deleteCopy(ctx context.Context, v *burstView, c *appsv1.Deployment) error {
	cctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	if err := deleteObject(cctx, v.member.Client, v.name, c, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		return err
	}
	m.expect.deleted(v.name, c)
	delete(v.copies, c.Name)
	return nil
}

// desiredPropagated returns the copies of the objects spec.propagate selects
// in the primary.
func (m memberObjects) desiredPropagated(ctx context.Context, p *hcav1.BurstPolicy) ([]client.Object, error) {
	pr := p.Spec.Propagate
	if pr == nil {
		return nil, nil
	}
	var out []client.Object
	for _, k := range []struct {
		sel  *hcav1.ObjectSelector
		list client.ObjectList
	}{{pr.ConfigMaps, &corev1.ConfigMapList{}}, {pr.Secrets, &corev1.SecretList{}}, {pr.Services, &corev1.ServiceList{}}} {
		if k.sel == nil {
			continue
		}
		if err := m.primary.List(ctx, k.list, client.InNamespace(p.Namespace)); err != nil {
			return nil, fmt.Errorf("list objects to propagate in %s: %w", p.Namespace, err)
		}
		if err := meta.EachListItem(k.list, func(o runtime.Object) error {
			obj := o.(client.Object)
			if obj.GetDeletionTimestamp() == nil && burstSelected(k.sel, obj) {
				if c := burstPropagatedCopy(obj, p.Name); c != nil {
					out = append(out, c)
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// actualPropagated lists what the controller propagated for p into v.
func (m memberObjects) actualPropagated(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) ([]client.Object, error) {
	var out []client.Object
	for _, list := range []client.ObjectList{&corev1.ConfigMapList{}, &corev1.SecretList{}, &corev1.ServiceList{}} {
		if err := v.member.Client.List(ctx, list, client.InNamespace(p.Namespace), client.MatchingLabels(burstOwnerLabels(p.Name))); err != nil {
			return nil, fmt.Errorf("list propagated objects in cluster %s: %w", v.name, err)
		}
		if err := meta.EachListItem(list, func(o runtime.Object) error {
			out = append(out, o.(client.Object))
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// syncPropagated makes v hold exactly the propagated copies spec.propagate
// selects: created, updated and deleted by diff.
func (m memberObjects) syncPropagated(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) error {
	desired, err := m.desiredPropagated(ctx, p)
	if err != nil {
		return err
	}
	actual, err := m.actualPropagated(ctx, p, v)
	if err != nil {
		return err
	}
	create, update, remove := burstObjectDiff(desired, actual)
	var errs []error
	for _, o := range append(create, update...) {
		if _, err := ensureObject(ctx, v.member.Client, v.name, o, nil, propagatedRule(p.Name, v.name)); err != nil {
			errs = append(errs, err)
		}
	}
	for _, o := range remove {
		errs = append(errs, deleteObject(ctx, v.member.Client, v.name, o))
	}
	return errors.Join(errs...)
}

// cleanup removes what p created in a cluster that holds no copy of it any
// more: propagated objects and the namespace (only if HCA created it and no
// Deployment is left in it). It returns how many objects it removed.
func (m memberObjects) cleanup(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	actual, err := m.actualPropagated(cctx, p, v)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, o := range actual {
		if err := deleteObject(cctx, v.member.Client, v.name, o); err != nil {
			return removed, err
		}
		removed++
	}
	var ns corev1.Namespace
	err = v.member.Client.Get(cctx, client.ObjectKey{Name: p.Namespace}, &ns)
	switch {
	case client.IgnoreNotFound(err) != nil:
		return removed, fmt.Errorf("get namespace %s in cluster %s: %w", p.Namespace, v.name, err)
	case err == nil && namespaceRule.owned(&ns) && ns.DeletionTimestamp == nil:
		var left appsv1.DeploymentList
		if err := v.member.Client.List(cctx, &left, client.InNamespace(p.Namespace)); err != nil {
			return removed, fmt.Errorf("list deployments in cluster %s: %w", v.name, err)
		}
		if len(left.Items) == 0 {
			if err := deleteObject(cctx, v.member.Client, v.name, &ns); err != nil {
				return removed, err
			}
			removed++
		}
	}
	return removed, nil
}
