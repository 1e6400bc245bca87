package controller

// The release half of the capacity controller: which node-group nodes are
// empty and since when (EmptySinceAnnotation), and removing the nodes
// capacity.Release picked, exactly those, never below a group's minimum.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// markEmpty keeps EmptySinceAnnotation on the groups' nodes current and
// returns them as capacity.Release sees them.
func (r *CapacityReconciler) markEmpty(ctx context.Context, m *Member, groups []*capacityGroup, nodes []corev1.Node, use map[string]nodeUse, now time.Time) ([]capacity.Node, error) {
	var out []capacity.Node
	var errs []error
	for i := range nodes {
		n := &nodes[i]
		group, ok := groupOf(groups, n)
		if !ok || n.DeletionTimestamp != nil {
			continue
		}
		empty := !use[n.Name].workload
		since, marked := n.Annotations[EmptySinceAnnotation]
		var patch string
		switch {
		case empty && !marked:
			since = now.UTC().Format(time.RFC3339)
			patch = fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, EmptySinceAnnotation, since)
		case !empty && marked:
			patch = fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, EmptySinceAnnotation)
		}
		if patch != "" {
			if err := m.Client.Patch(ctx, n, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("mark node %s: %w", n.Name, err))
			}
		}
		obs := capacity.Node{Cluster: m.Cluster.Name, Group: group, Name: n.Name, Ready: burstNodeReady(n) && !n.Spec.Unschedulable, Empty: empty}
		if empty {
			if t, err := time.Parse(time.RFC3339, since); err == nil {
				obs.EmptySince = t
			} else {
				obs.EmptySince = now // an unreadable mark restarts the clock
			}
		}
		out = append(out, obs)
	}
	return out, errors.Join(errs...)
}

// nodeUse is what a node's active pods take: their requests and count, and
// whether one of them is a workload (keeps the node busy).
type nodeUse struct {
	capacity.Resources
	workload bool
}

// nodeUsage sums, per node, the requests of its active pods.
func nodeUsage(pods []corev1.Pod) map[string]nodeUse {
	out := map[string]nodeUse{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || !burstPodActive(p) {
			continue
		}
		req := burstPodRequests(&p.Spec)
		u := out[p.Spec.NodeName]
		u.CPUMilli += req.CPUMilli
		u.MemoryBytes += req.MemoryBytes
		u.Pods++
		u.workload = u.workload || !workloadless(p)
		out[p.Spec.NodeName] = u
	}
	return out
}

// workloadless reports pods that do not keep a node busy: DaemonSet pods
// and static (mirror) pods, as Cluster Autoscaler counts them.
func workloadless(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// release cordons the nodes picked for release and removes exactly those
// from their groups (never below a group's minimum).
func (r *CapacityReconciler) release(ctx context.Context, m *Member, hc *hcav1.HybridCluster, groups []*capacityGroup, nodes []corev1.Node, removals []capacity.Removal, now time.Time) error {
	per := map[string][]capacity.Removal{}
	for _, rm := range removals {
		per[rm.Group] = append(per[rm.Group], rm)
	}
	byName := map[string]*corev1.Node{}
	for i := range nodes {
		byName[nodes[i].Name] = &nodes[i]
	}
	var errs []error
	for _, g := range groups {
		list := per[g.spec.Name]
		if len(list) == 0 || g.status.Reason == "NotFound" || g.cloud.Status != "ACTIVE" {
			continue
		}
		// Never below the minimum, whatever the planner said.
		list = list[:max(0, min(len(list), int(g.cloud.Desired-g.plan.Min)))]
		var gone []member.GroupNode
		var names []string
		for _, rm := range list {
			n := byName[rm.Node]
			if n == nil || !inGroup(g.spec, n) {
				continue
			}
			if !n.Spec.Unschedulable {
				if err := m.Client.Patch(ctx, n, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`))); err != nil {
					if !apierrors.IsNotFound(err) {
						errs = append(errs, fmt.Errorf("cordon node %s: %w", rm.Node, err))
					}
					continue
				}
			}
			gone = append(gone, member.GroupNode{Name: n.Name, ProviderID: n.Spec.ProviderID})
			names = append(names, n.Name)
		}
		if len(gone) == 0 {
			continue
		}
		if err := r.Cloud.RemoveNodes(ctx, g.spec, gone); err != nil {
			r.recordRelease(hc.Name, g.spec.Name, err)
			g.status.Reason, g.status.Message = cloudReason(err), err.Error()
			r.event(hc, corev1.EventTypeWarning, "NodeReleaseFailed", "could not release %s of node group %s: %v", strings.Join(names, ", "), g.spec.Name, err)
			errs = append(errs, err)
			continue
		}
		r.recordRelease(hc.Name, g.spec.Name, nil)
		want := g.cloud.Desired - int32(len(gone))
		g.status.DesiredNodes = want
		t := metav1.NewTime(now)
		g.status.LastScaleTime = &t
		r.event(hc, corev1.EventTypeNormal, "NodesReleased", "node group %s: %d -> %d nodes, released %s: %s",
			g.spec.Name, g.cloud.Desired, want, strings.Join(names, ", "), list[0].Reason)
	}
	return errors.Join(errs...)
}
