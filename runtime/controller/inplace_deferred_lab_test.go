package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestInPlaceDeferredFallbackLab: a resize that fits a node but not beside
// the pods already on it is Deferred by the (lab's) kubelet; past the bound
// (5 s here, 5 minutes by default) the in-place controller rolls instead.
// Two 4-CPU nodes each hold a 2.5-CPU filler pod and a 1-CPU web pod; the web
// pods are asked 2 CPU in place (2.5 + 2 > 4 on each node, 2 <= 4 alone).
func TestInPlaceDeferredFallbackLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := newSLOLab(t, ctx)
	ns := l.namespace(t, ctx, "inplace-deferred")
	filler := func(name string, replicas int32, cpu string) {
		labels := map[string]string{"app.kubernetes.io/name": name}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: appsv1.DeploymentSpec{
			Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				NodeSelector: map[string]string{"hca.dev/node-pool": l.pool},
				Tolerations:  []corev1.Toleration{{Key: "hca.dev/test", Operator: corev1.TolerationOpEqual, Value: l.taint, Effect: corev1.TaintEffectNoSchedule}},
				Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
			}}}}
		if err := l.c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	filler("filler", 2, "2500m")
	l.deployment(t, ctx, ns, "web", 2) // 1 CPU each
	pods := func(name string) []corev1.Pod {
		var pl corev1.PodList
		if err := l.c.List(ctx, &pl, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/name": name}); err != nil {
			t.Fatal(err)
		}
		return pl.Items
	}
	describe := func() string {
		var b strings.Builder
		for _, p := range append(pods("filler"), pods("web")...) {
			fmt.Fprintf(&b, "%s on %s %s cpu %s", p.Name, p.Spec.NodeName, p.Status.Phase, p.Spec.Containers[0].Resources.Requests.Cpu())
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodResizePending || c.Type == corev1.PodResizeInProgress {
					fmt.Fprintf(&b, " %s/%s", c.Type, c.Reason)
				}
			}
			b.WriteString("; ")
		}
		return b.String()
	}
	sloEventually(t, 2*time.Minute, "2 fillers and 2 web pods running", func() (bool, string) {
		n := 0
		for _, p := range append(pods("filler"), pods("web")...) {
			if p.Status.Phase == corev1.PodRunning {
				n++
			}
		}
		return n == 4, describe()
	})

	mgr, err := ctrl.NewManager(l.cfg, ctrl.Options{
		Scheme: testScheme(t), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      controller.CacheOptionsIn(ns),
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&controller.InPlaceResizeReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("hca-runtime-test"), DeferredBound: 5 * time.Second}).SetupWithManager(mgr); err != nil {
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

	// What a strategy with resizePolicy InPlaceOrRecreate writes.
	var d appsv1.Deployment
	if err := l.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
		t.Fatal(err)
	}
	before := d.DeepCopy()
	sized := d.Spec.Template.Spec.DeepCopy()
	sized.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
	d.Annotations = map[string]string{controller.InPlaceResourcesAnnotation: controller.FormatInPlaceResources(sized)}
	if err := l.c.Patch(ctx, &d, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	sloEventually(t, 60*time.Second, "the web pods resized in place and Deferred", func() (bool, string) {
		deferred := 0
		for _, p := range pods("web") {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodResizePending && c.Reason == corev1.PodReasonDeferred {
					deferred++
				}
			}
		}
		return deferred > 0, describe()
	})
	sloEventually(t, 60*time.Second, "the rolling update: template at 2 CPU, annotation gone", func() (bool, string) {
		var d appsv1.Deployment
		if err := l.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
			t.Fatal(err)
		}
		_, annotated := d.Annotations[controller.InPlaceResourcesAnnotation]
		cpu := d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu()
		return cpu.Cmp(resource.MustParse("2")) == 0 && !annotated, fmt.Sprintf("template cpu %s, annotated %v; %s", cpu, annotated, describe())
	})
	var evs corev1.EventList
	if err := l.c.List(ctx, &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range evs.Items {
		if e.Reason == "InPlaceResizeFallback" && strings.Contains(e.Message, "Deferred for more than 5s") {
			found = true
			t.Logf("event: %s", e.Message)
		}
	}
	if !found {
		t.Error("no InPlaceResizeFallback event naming the Deferred bound")
	}
}
