package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/interruption"
)

// This file is the burst controller's handling of spot interruption notices
// in burst clusters: replacements first, the leaving replicas removed after.
// The decision is interruption.Decide (pure); this file reads its input from
// a view and writes its output.

const (
	// SpotInterruptionTaint is the taint AWS Node Termination Handler (and
	// the lab's emulators) put on a node under a spot interruption notice
	// (NoSchedule): the node is reclaimed when the notice runs out (2 minutes
	// on EC2, about 5 on Alibaba ECS).
	SpotInterruptionTaint = "aws-node-termination-handler/spot-itn"
	// BurstSpotSurgeAnnotation, on a Deployment copy, is how many replicas the
	// controller added to the cluster's need to replace replicas on noticed
	// nodes. The copy's spec.replicas minus this is the need, so the surge is
	// never mistaken for a decision (and survives a restart).
	BurstSpotSurgeAnnotation = "hca.dev/spot-surge"
	// burstSpotRecheck is how often a round runs while a surge is on (pod
	// watches wake it sooner).
	burstSpotRecheck = 5 * time.Second
)

// burstNoticedNodes lists a cluster's nodes under a spot interruption notice
// (name: since when the taint was added, zero when unknown).
func burstNoticedNodes(ctx context.Context, c client.Reader) (map[string]time.Time, error) {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for i := range nodes.Items {
		burstNoticeOf(&nodes.Items[i], out)
	}
	return out, nil
}

// burstNoticeOf records n in out (name: since when the taint was added, zero
// when unknown) if it is under a spot interruption notice.
func burstNoticeOf(n *corev1.Node, out map[string]time.Time) {
	for _, t := range n.Spec.Taints {
		if t.Key == SpotInterruptionTaint {
			var since time.Time
			if t.TimeAdded != nil {
				since = t.TimeAdded.Time
			}
			out[n.Name] = since
			return
		}
	}
}

// burstNodeNoticed reports whether n is under a spot interruption notice.
func burstNodeNoticed(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == SpotInterruptionTaint {
			return true
		}
	}
	return false
}

// burstSpotSurge is the surge recorded on a copy (0: none or unreadable).
func burstSpotSurge(c *appsv1.Deployment) int32 {
	if c == nil {
		return 0
	}
	n, err := strconv.ParseInt(c.Annotations[BurstSpotSurgeAnnotation], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// burstCopyNeed is the replicas of the copy of deployment in v without the
// spot surge: what the placement decided for the cluster.
func burstCopyNeed(v *burstView, deployment string) int32 {
	c := v.copies[deployment]
	if c == nil {
		return 0
	}
	return max(0, burstPtrOr(c.Spec.Replicas, 1)-burstSpotSurge(c))
}

// burstSpotInput gathers interruption.Decide's input for the copy of d in v
// with need replicas.
func burstSpotInput(v *burstView, d *appsv1.Deployment, need int32) interruption.Input {
	in := interruption.Input{Need: need, Surge: burstSpotSurge(v.copies[d.Name])}
	of := burstOf(d.Namespace, d.Name)
	for i := range v.pods {
		pod := &v.pods[i]
		if pod.Labels[BurstOfLabel] != of || !burstPodActive(pod) {
			continue
		}
		_, unsched, _ := burstPodScheduling(pod)
		_, noticed := v.noticed[pod.Spec.NodeName]
		in.Pods = append(in.Pods, interruption.Pod{Name: pod.Name, Noticed: pod.Spec.NodeName != "" && noticed,
			Ready: burstPodReady(pod), Unschedulable: unsched,
			Marked: pod.Annotations[interruption.DeletionCostAnnotation] == interruption.LeavingCost})
	}
	return in
}

// burstSpotStep is one cluster's spot decision for one target this round.
type burstSpotStep struct {
	decision interruption.Decision
	// write: the copy's surge annotation changes, so replicas and annotation
	// go in one patch (writeSpot) instead of the usual copy update.
	write bool
}

// spotSteps decides, for each reachable cluster holding a copy of d, what its
// replicas on noticed nodes need, and marks those pods (their deletion cost)
// before any write scales the copy down. Clusters without a notice and without
// a surge are left out (the usual path).
func (r *BurstReconciler) spotSteps(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, views []*burstView, plan burstPlan) (map[string]burstSpotStep, error) {
	steps := map[string]burstSpotStep{}
	var errs []error
	for _, v := range views {
		want, ok := plan.Burst[v.name]
		c := v.copies[d.Name]
		if !ok || !v.reachable() || c == nil {
			continue
		}
		in := burstSpotInput(v, d, want)
		if v.hc != nil {
			cpu, _ := burstGrowable(v.hc, p.Spec.Capacity != nil && p.Spec.Capacity.AllowSpot)
			in.NodesComing = cpu > 0
		}
		dec, err := interruption.Decide(in)
		if err != nil {
			errs = append(errs, fmt.Errorf("decide spot replacements of %s/%s in %s: %w", d.Namespace, d.Name, v.name, err))
			continue
		}
		if !dec.Active() && in.Surge == 0 {
			continue
		}
		for _, name := range dec.Mark {
			// A pod not marked now is marked next round; Decide scales
			// down only once every leaving pod is read back marked.
			if err := r.markLeaving(ctx, v, d.Namespace, name); err != nil {
				errs = append(errs, err)
			}
		}
		steps[v.name] = burstSpotStep{decision: dec, write: dec.Surge != in.Surge}
		r.spotEvents(p, d, v, in, dec)
	}
	return steps, errors.Join(errs...)
}

// markLeaving gives a leaving pod the lowest deletion cost.
func (r *BurstReconciler) markLeaving(ctx context.Context, v *burstView, namespace, name string) error {
	cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
	defer cancel()
	raw := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, interruption.DeletionCostAnnotation, interruption.LeavingCost)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := v.member.Client.Patch(cctx, pod, client.RawPatch(types.MergePatchType, []byte(raw))); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("mark pod %s/%s in cluster %s for removal after its replacement: %w", namespace, name, v.name, err)
	}
	return nil
}

// writeSpot sets a copy's replicas and surge annotation in one merge patch
// (a crash cannot leave one without the other).
func (r *BurstReconciler) writeSpot(ctx context.Context, v *burstView, c *appsv1.Deployment, dec interruption.Decision) error {
	cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
	defer cancel()
	surge := "null"
	if dec.Surge > 0 {
		surge = strconv.Quote(strconv.Itoa(int(dec.Surge)))
	}
	// The resourceVersion read is a precondition: c may come from the
	// member informer, a moment behind the cluster (burstViewLoader).
	before := c.ResourceVersion
	raw := fmt.Sprintf(`{"metadata":{"resourceVersion":%q,"annotations":{%q:%s}},"spec":{"replicas":%d}}`, before, BurstSpotSurgeAnnotation, surge, dec.Replicas)
	if err := v.member.Client.Patch(cctx, c, client.RawPatch(types.MergePatchType, []byte(raw))); err != nil {
		return fmt.Errorf("scale deployment %s/%s in cluster %s to %d for spot replacements: %w", c.Namespace, c.Name, v.name, dec.Replicas, err)
	}
	r.objects.expect.wrote(v.name, c, before)
	return nil
}

// spotEvents reports a round's spot decision on the policy
// (ReplacementsUnschedulable when the stuck count changes).
func (r *BurstReconciler) spotEvents(p *hcav1.BurstPolicy, d *appsv1.Deployment, v *burstView, in interruption.Input, dec interruption.Decision) {
	switch {
	case dec.Started:
		r.event(p, d, corev1.EventTypeWarning, "SpotInterruption", "Replace",
			"%s/%s: %d replicas in %s are on nodes under a spot interruption notice: %d replacements requested (%d replicas until they are Ready, need %d)",
			d.Namespace, d.Name, dec.Leaving, v.name, dec.Surge, dec.Replicas, in.Need)
	case dec.Replaced:
		r.event(p, d, corev1.EventTypeNormal, "ReplacementsReady", "Replace",
			"%s/%s: %d replicas Ready in %s off the noticed nodes (need %d): removing the %d leaving replicas",
			d.Namespace, d.Name, dec.ReadyElsewhere, v.name, in.Need, dec.Leaving)
	case dec.Lost:
		r.event(p, d, corev1.EventTypeWarning, "SpotReplicasLost", "Replace",
			"%s/%s: the noticed nodes in %s were reclaimed before the replacements were Ready (%d Ready, need %d)",
			d.Namespace, d.Name, v.name, dec.ReadyElsewhere, in.Need)
	}
	key := p.Namespace + "/" + p.Name + "/" + d.Name + "/" + v.name
	r.mu.Lock()
	changed := r.stuck[key] != dec.Stuck
	if dec.Stuck > 0 {
		r.stuck[key] = dec.Stuck
	} else {
		delete(r.stuck, key)
	}
	r.mu.Unlock()
	if dec.Stuck > 0 && changed {
		r.event(p, d, corev1.EventTypeWarning, "ReplacementsUnschedulable", "Replace",
			"%s/%s: %d replacements in %s fit no node and no node group can grow; the %d leaving replicas are kept while their nodes live",
			d.Namespace, d.Name, dec.Stuck, v.name, dec.Leaving)
	}
}

// burstSetSurge records a spot surge on a desired copy (after its hash: the
// surge is not part of what a hash change updates).
func burstSetSurge(desired *appsv1.Deployment, surge int32) {
	if surge > 0 {
		desired.Annotations[BurstSpotSurgeAnnotation] = strconv.Itoa(int(surge))
	}
}
