package controller

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestSLOEvaluatedHandlerFair: SLOs queued by the initial list (at
// handler.LowPriority) are not overtaken by evaluation results of SLOs
// already registered, however often those come back; the queue hands them
// out in the order they were first queued.
func TestSLOEvaluatedHandlerFair(t *testing.T) {
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: name}}
	}
	evaluated := func(name string) event.GenericEvent {
		return event.GenericEvent{Object: &hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}}
	}
	q := priorityqueue.New[reconcile.Request]("slo-test")
	defer q.ShutDown()
	// The initial list queued two SLOs never reconciled yet.
	q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, req("new-1"), req("new-2"))
	// Two registered SLOs' results arrive, one of them three times.
	h := sloEvaluatedHandler()
	for _, name := range []string{"old-1", "old-2", "old-1", "old-1"} {
		h.Generic(context.Background(), evaluated(name), q)
	}
	want := []string{"new-1", "new-2", "old-1", "old-2"}
	for i, w := range want {
		got, prio, shutdown := q.GetWithPriority()
		if shutdown {
			t.Fatal("queue shut down")
		}
		if got.Name != w || prio != handler.LowPriority {
			t.Errorf("item %d = %s at priority %d, want %s at %d", i, got.Name, prio, w, handler.LowPriority)
		}
		q.Done(got)
	}
	if n := q.Len(); n != 0 {
		t.Errorf("%d items left, want 0 (results of one SLO are merged)", n)
	}
}

// TestSLOEvaluatedHandlerPlainQueue: without a priority queue the result is
// queued as usual.
func TestSLOEvaluatedHandlerPlainQueue(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	sloEvaluatedHandler().Generic(context.Background(),
		event.GenericEvent{Object: &hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}}, q)
	got, _ := q.Get()
	if got.Name != "web" || got.Namespace != "shop" {
		t.Errorf("got %v, want shop/web", got)
	}
}
