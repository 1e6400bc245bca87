package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMultiObjectiveInPlaceLab is TestMultiObjectiveLab's load step with
// resizePolicy InPlaceOrRecreate: the strategy changes replicas and pod size
// together, the running pod keeps its UID and is resized in place, the pods
// the scale-up adds are resized once they run, the pod template and its
// ReplicaSet stay, and the response-time target is met at the full load
// (loadsim serves with the resources the lab's kubelet reports).
func TestMultiObjectiveInPlaceLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	l := newSLOLab(t, ctx)
	prom, err := metrics.NewPrometheus(l.prom, metrics.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ns := l.namespace(t, ctx, "moha-inplace")
	mgr, err := ctrl.NewManager(l.cfg, ctrl.Options{
		Scheme: testScheme(t), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      controller.CacheOptionsIn(ns),
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := mgr.GetEventRecorder("hca-runtime-test")
	if err := (&controller.MultiObjectiveStrategyReconciler{Client: mgr.GetClient(), Source: prom, Recorder: rec, Class: sloClass}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := (&controller.InPlaceResizeReconciler{Client: mgr.GetClient(), Recorder: rec}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { stop(); <-done })

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-model"}, Data: map[string]string{"model.json": mohaModelJSON(t)}}
	if err := l.c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	l.mohaDeployment(t, ctx, ns, "web")
	pods := func() []corev1.Pod {
		var pl corev1.PodList
		if err := l.c.List(ctx, &pl, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/name": "web"}); err != nil {
			t.Fatal(err)
		}
		return pl.Items
	}
	size := func(r corev1.ResourceRequirements) string {
		return fmt.Sprintf("%s/%s", r.Limits.Cpu(), r.Limits.Memory())
	}
	describe := func() string {
		var b strings.Builder
		for _, p := range pods() {
			reported := "-"
			if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].Resources != nil {
				reported = size(*p.Status.ContainerStatuses[0].Resources)
			}
			fmt.Fprintf(&b, "%s %s spec %s reported %s; ", p.Name, p.Status.Phase, size(p.Spec.Containers[0].Resources), reported)
		}
		return b.String()
	}
	sloEventually(t, 2*time.Minute, "the pod running", func() (bool, string) {
		ps := pods()
		return len(ps) == 1 && ps[0].Status.Phase == corev1.PodRunning, describe()
	})
	firstPod := pods()[0]
	l.mohaLoad(t, ns, "web", 200)
	s := mohaStrategy(ns, "web", "web", "web-model")
	s.Spec.ResizePolicy = string(scaling.ResizeInPlaceOrRecreate)
	if err := l.c.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	deploy := func() *appsv1.Deployment {
		var d appsv1.Deployment
		if err := l.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	// The first change with a new pod size: replicas in spec, size in the
	// annotation.
	var want corev1.ResourceRequirements
	sloEventually(t, 2*time.Minute, "replicas and an in-place size written", func() (bool, string) {
		d := deploy()
		v, ok := d.Annotations[controller.InPlaceResourcesAnnotation]
		if !ok {
			return false, podConfig(d) + "; " + describeMOHA(getMOHA(t, l, ns, "web"))
		}
		m, err := controller.ParseInPlaceResources(v)
		if err != nil {
			t.Fatal(err)
		}
		want = m["app"]
		return *d.Spec.Replicas >= 2, fmt.Sprintf("%s, in place %s", podConfig(d), v)
	})
	d := deploy()
	if got := podConfig(d); !strings.HasSuffix(got, " x 300m/400Mi") {
		t.Errorf("template %s: in place leaves the template at 300m/400Mi", got)
	}
	t.Logf("first change: %d replicas, in place %s (template %s)", *d.Spec.Replicas, size(want), podConfig(d))

	// Every pod, the first one kept, runs with the new size.
	sloEventually(t, 2*time.Minute, "every pod running with the in-place size", func() (bool, string) {
		d := deploy()
		ps := pods()
		v := d.Annotations[controller.InPlaceResourcesAnnotation]
		m, err := controller.ParseInPlaceResources(v)
		if err != nil {
			return false, err.Error()
		}
		want = m["app"]
		ok := len(ps) == int(*d.Spec.Replicas)
		for _, p := range ps {
			cs := p.Status.ContainerStatuses
			ok = ok && p.Status.Phase == corev1.PodRunning && size(p.Spec.Containers[0].Resources) == size(want) &&
				len(cs) == 1 && cs[0].Resources != nil && size(*cs[0].Resources) == size(want)
		}
		return ok, fmt.Sprintf("%d replicas, in place %s: %s", *d.Spec.Replicas, size(want), describe())
	})
	kept := false
	for _, p := range pods() {
		kept = kept || p.UID == firstPod.UID
	}
	if !kept {
		t.Errorf("the first pod %s (%s) is gone: an in-place resize keeps it; now %s", firstPod.Name, firstPod.UID, describe())
	}
	var rsl appsv1.ReplicaSetList
	if err := l.c.List(ctx, &rsl, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(rsl.Items) != 1 {
		t.Errorf("replica sets = %d, want 1: nothing rolled", len(rsl.Items))
	}
	// The response-time target is met at the full load.
	sloEventually(t, 4*time.Minute, "200 req/s served within 100 ms", func() (bool, string) {
		s := getMOHA(t, l, ns, "web")
		rps, rt := measured(s, "requestsPerSecond"), measured(s, "responseTimeMillis")
		return rps > 190 && rt >= 0 && rt <= 100, describe() + "; " + describeMOHA(s)
	})
	t.Logf("settled: %s", describe())
}
