package controller_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// BenchmarkBurstReaction measures the burst controller's reaction time on the
// lab: from the first Unschedulable pod event (as a watch on the primary sees
// it) to the Deployment copy existing in the burst cluster (as a watch there
// sees it), with pendingThreshold 0. Each iteration scales the target from 4
// replicas (what its dedicated pool holds) to 5, waits for the copy, then
// scales to 3 (the copy goes) and back to 4, untimed. It reports p50 and p99
// over b.N iterations (run with -benchtime=50x for a meaningful p99).
func BenchmarkBurstReaction(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	bl := newBurstLab(b, ctx)
	pool := "bp-bench"
	bl.pool(b, ctx, pool, "4")
	ns := bl.namespace(b, ctx, "burst-bench")
	// The namespace exists in the burst cluster beforehand (HCA does not own
	// it), as in a prepared burst cluster: each iteration measures the copy.
	if err := bl.member.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	bl.deploy(b, ctx, ns, pool, 4)
	bl.startManager(b, ctx, clock.RealClock{})
	if err := bl.control.Create(ctx, bl.policy(ns, 0, hcav1.ClusterName(bl.burst))); err != nil {
		b.Fatal(err)
	}
	steady := func(primary int32) {
		burstEventually(b, ctx, "steady state", func() (bool, string) {
			s := bl.state(ctx, ns)
			return s.err == nil && len(s.copies) == 0 && s.primary == primary && s.pendingPods == 0 && s.phase == hcav1.PhaseWatching, s.String()
		})
	}
	steady(4)

	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		var pods corev1.PodList
		if err := bl.control.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		var deps appsv1.DeploymentList
		if err := bl.member.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		pw, err := bl.control.Watch(ctx, &corev1.PodList{}, client.InNamespace(ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: pods.ResourceVersion}})
		if err != nil {
			b.Fatal(err)
		}
		dw, err := bl.member.Watch(ctx, &appsv1.DeploymentList{}, client.InNamespace(ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: deps.ResourceVersion}})
		if err != nil {
			b.Fatal(err)
		}
		first := make(chan time.Time, 1)
		go func() {
			for ev := range pw.ResultChan() {
				if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type != watch.Deleted && burstUnschedulable(p) {
					first <- time.Now()
					return
				}
			}
		}()
		copied := make(chan time.Time, 1)
		go func() {
			for ev := range dw.ResultChan() {
				if d, ok := ev.Object.(*appsv1.Deployment); ok && ev.Type == watch.Added && d.Labels[controller.BurstOfLabel] != "" {
					copied <- time.Now()
					return
				}
			}
		}()
		b.StartTimer()
		bl.scale(b, ctx, ns, 5)
		var t0, t1 time.Time
		for t0.IsZero() || t1.IsZero() {
			select {
			case t0 = <-first:
			case t1 = <-copied:
			case <-ctx.Done():
				b.Fatal("no burst")
			}
		}
		b.StopTimer()
		pw.Stop()
		dw.Stop()
		lat = append(lat, t1.Sub(t0))
		burstEventually(b, ctx, "burst", func() (bool, string) {
			s := bl.state(ctx, ns)
			return s.err == nil && len(s.copies) == 1 && ptr.Deref(s.copies[0].Spec.Replicas, 0) == 1 && s.primary == 4 && s.pendingPods == 0, s.String()
		})
		bl.scale(b, ctx, ns, 3) // total 3: the copy goes
		steady(3)
		bl.scale(b, ctx, ns, 4)
		steady(4)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(lat)
	// Nearest-rank percentiles.
	pct := func(q float64) time.Duration { return lat[max(0, int(math.Ceil(q*float64(len(lat))))-1)] }
	b.ReportMetric(float64(pct(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(0, "ns/op") // wall time per op includes the untimed scale-back; the percentiles are the figure
}

func burstUnschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}
