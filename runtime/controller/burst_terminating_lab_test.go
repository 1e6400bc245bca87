package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// policyEventsOf are the Events regarding the BurstPolicy object uid, as
// "Type Reason: note" lines, and how many times each reason was recorded
// (an Event series counts as its count).
func (bl *burstLab) policyEventsOf(t *testing.T, ctx context.Context, ns string, uid types.UID) (string, map[string]int) {
	t.Helper()
	var evs eventsv1.EventList
	if err := bl.control.List(ctx, &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	counts := map[string]int{}
	for _, e := range evs.Items {
		if e.Regarding.Kind != "BurstPolicy" || e.Regarding.UID != uid {
			continue
		}
		n := 1
		if e.Series != nil {
			n = int(e.Series.Count)
		}
		counts[e.Type+" "+e.Reason] += n
		fmt.Fprintf(&b, "%s %s (x%d): %s\n", e.Type, e.Reason, n, e.Note)
	}
	return b.String(), counts
}

// TestBurstNamespaceTerminatingLab recreates a policy while the namespace
// its predecessor's cleanup deleted in the burst cluster is still
// Terminating (held by a finalizer): the burst cluster is not ready, not
// failing. One Warning NamespaceTerminating Event and a Degraded condition
// name it; nothing is written there, no BurstFailed Event, no Normal Event
// claiming a distribution that did not happen; the overflow waits in the
// primary. Once the namespace is gone, the policy bursts there.
func TestBurstNamespaceTerminatingLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	pool := fmt.Sprintf("bp-term-%d", bl.id)
	bl.pool(t, ctx, pool, "4")
	ns := bl.namespace(t, ctx, "burst-term")
	bl.deploy(t, ctx, ns, pool, 6)
	bl.startManager(t, ctx, clock.RealClock{})
	if err := bl.control.Create(ctx, bl.policy(ns, time.Second, hcav1.ClusterName(bl.burst))); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "2 of 6 replicas burst", func() (bool, string) {
		s := bl.state(ctx, ns)
		return s.bursting(2, 4), s.String()
	})

	// Something else in the burst cluster's namespace holds its deletion.
	hold := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hold", Finalizers: []string{"hca.dev/test-hold"}}}
	if err := bl.member.Create(ctx, hold); err != nil {
		t.Fatal(err)
	}
	release := func() {
		var cm corev1.ConfigMap
		if err := bl.member.Get(context.Background(), client.ObjectKeyFromObject(hold), &cm); err == nil && len(cm.Finalizers) > 0 {
			cm.Finalizers = nil
			if err := bl.member.Update(context.Background(), &cm); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("release the hold on namespace %s: %v", ns, err)
			}
		}
	}
	t.Cleanup(release)

	if err := bl.control.Delete(ctx, bl.getPolicy(t, ctx, ns)); err != nil {
		t.Fatal(err)
	}
	burstEventually(t, wctx, "the policy gone, its namespace in the burst cluster Terminating", func() (bool, string) {
		s := bl.state(ctx, ns)
		var nsObj corev1.Namespace
		err := bl.member.Get(ctx, types.NamespacedName{Name: ns}, &nsObj)
		terminating := err == nil && nsObj.DeletionTimestamp != nil
		return !s.policyExists && len(s.copies) == 0 && terminating && s.primary == 6, fmt.Sprintf("%s; namespace terminating=%v (%v)", s, terminating, err)
	})

	// The policy again, at once.
	p := bl.policy(ns, time.Second, hcav1.ClusterName(bl.burst))
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	// The window: 15 s after the creation.
	time.Sleep(time.Until(created.Add(15 * time.Second)))
	notes, counts := bl.policyEventsOf(t, ctx, ns, p.UID)
	t.Logf("the policy's Events in the 15 s after its creation:\n%s", notes)
	if n := counts["Warning "+controller.BurstReasonNamespaceTerminating]; n != 1 {
		t.Errorf("%d NamespaceTerminating Events in 15 s, want 1; events:\n%s", n, notes)
	}
	if !strings.Contains(notes, "burst cluster "+bl.burst+" is not ready: namespace "+ns+" is being deleted") {
		t.Errorf("no Event naming %s and the namespace; events:\n%s", bl.burst, notes)
	}
	if n := counts["Warning BurstFailed"]; n != 0 {
		t.Errorf("%d BurstFailed Events while the namespace is being deleted, want 0 (nothing is written there); events:\n%s", n, notes)
	}
	for reason, n := range counts {
		if strings.HasPrefix(reason, "Normal ") && n > 0 && reason != "Normal Published" {
			t.Errorf("%d %s Events while nothing could be placed; events:\n%s", n, reason, notes)
		}
	}
	cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
	defer ccancel()
	burstEventually(t, cctx, "the policy Degraded naming the namespace being deleted", func() (bool, string) {
		got := bl.getPolicy(t, ctx, ns)
		c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionDegraded)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == controller.BurstReasonNamespaceTerminating &&
			strings.Contains(c.Message, bl.burst+": namespace "+ns+" is being deleted"), fmt.Sprintf("%+v", c)
	})
	if s := bl.state(ctx, ns); len(s.copies) != 0 || s.primary != 6 {
		t.Errorf("while the namespace is being deleted: %s; want no copy and the 6 replicas waiting in the primary", s)
	}

	// The namespace goes: the overflow bursts there.
	release()
	released := time.Now()
	burstEventually(t, wctx, "2 of 6 replicas burst once the namespace is gone", func() (bool, string) {
		s := bl.state(ctx, ns)
		return s.bursting(2, 4), s.String()
	})
	t.Logf("burst %v after the namespace's hold was released", time.Since(released).Round(time.Second))
	if c := meta.FindStatusCondition(bl.getPolicy(t, ctx, ns).Status.Conditions, hcav1.ConditionDegraded); c == nil || c.Reason == controller.BurstReasonNamespaceTerminating {
		t.Errorf("Degraded %+v after the namespace is gone, want another reason", c)
	}
}
