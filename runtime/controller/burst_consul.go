package controller

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
)

// endpointCatalog is what the burst controller needs of Consul
// (runtime/catalog.Publisher is the implementation).
type endpointCatalog interface {
	Sync(ctx context.Context, s catalog.Service) (catalog.Result, error)
	Remove(ctx context.Context, name, owner, cluster string) (catalog.Result, error)
	MarkUnreachable(ctx context.Context, name, owner, cluster string) (catalog.Result, error)
}

// burstPublisher publishes a policy's replicas to Consul so that nginx
// (through consul-template) balances across clusters.
//
// Inputs: the policy's spec.consul, the pods of the primary Deployments and of
// the copies in each reachable burst cluster. Output: one Consul service
// instance set per cluster (an external node per cluster, health from pod
// readiness, weight from the burst target). The instances of an unreachable
// burst cluster are marked critical until it answers again (their readiness
// is unknown), and those of stale copies (written off at failover) that a
// round failed to remove are deregistered. It owns nothing else.
type burstPublisher struct {
	catalog endpointCatalog
}

// sync publishes the replicas of every cluster that runs some: the primary
// and the burst clusters holding copies. Clusters left without copies are
// deregistered by remove (through the cleanup plan).
func (b *burstPublisher) sync(ctx context.Context, p *hcav1.BurstPolicy, primaryPods []corev1.Pod, views []*burstView) error {
	c := p.Spec.Consul
	if c == nil || b == nil {
		return nil
	}
	owner := p.Namespace + "/" + p.Name
	service := func(cluster string, weight int32, pods []corev1.Pod) catalog.Service {
		weight = max(weight, 1)
		tags := append([]string{"weight=" + strconv.Itoa(int(weight))}, c.Tags...)
		s := catalog.Service{Name: c.ServiceName, Owner: owner, Cluster: cluster, Weight: int(weight), Tags: tags}
		for i := range pods {
			pod := &pods[i]
			if !burstPodActive(pod) || pod.Status.PodIP == "" {
				continue
			}
			s.Endpoints = append(s.Endpoints, catalog.Endpoint{ID: pod.Name, Address: pod.Status.PodIP, Port: int(c.Port), Ready: burstPodReady(pod)})
		}
		return s
	}
	var errs []string
	if _, err := b.catalog.Sync(ctx, service(string(p.Spec.PrimaryCluster), 1, primaryPods)); err != nil {
		errs = append(errs, err.Error())
	}
	for _, v := range views {
		if !v.reachable() {
			if !v.gone {
				if _, err := b.catalog.MarkUnreachable(ctx, c.ServiceName, owner, v.name); err != nil {
					errs = append(errs, err.Error())
				}
			}
			continue
		}
		if len(v.copies) == 0 {
			continue
		}
		if v.failover.Mode == scaling.FailoverStale && v.failed {
			// Its stale copies could not be removed or kept: nothing
			// there takes traffic until a round succeeds.
			if _, err := b.catalog.Sync(ctx, service(v.name, 1, nil)); err != nil {
				errs = append(errs, err.Error())
			}
			continue
		}
		weight := int32(1)
		if v.target != nil && v.target.Weight != nil {
			weight = *v.target.Weight
		}
		var pods []corev1.Pod
		for i := range v.pods {
			if burstPodOfCopies(&v.pods[i], v) {
				pods = append(pods, v.pods[i])
			}
		}
		if _, err := b.catalog.Sync(ctx, service(v.name, weight, pods)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("consul: %s", strings.Join(errs, "; "))
	}
	return nil
}

// remove deregisters p's instances in cluster.
func (b *burstPublisher) remove(ctx context.Context, p *hcav1.BurstPolicy, cluster string) error {
	c := p.Spec.Consul
	if c == nil || b == nil {
		return nil
	}
	if _, err := b.catalog.Remove(ctx, c.ServiceName, p.Namespace+"/"+p.Name, cluster); err != nil {
		return fmt.Errorf("consul: deregister %s in %s: %w", c.ServiceName, cluster, err)
	}
	return nil
}

// burstPodOfCopies reports whether a burst cluster's pod belongs to one of
// the copies still there (by its burst-of label).
func burstPodOfCopies(pod *corev1.Pod, v *burstView) bool {
	for _, c := range v.copies {
		if c.Labels[BurstOfLabel] == pod.Labels[BurstOfLabel] {
			return true
		}
	}
	return false
}
