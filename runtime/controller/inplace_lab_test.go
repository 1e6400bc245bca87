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

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestVerticalInPlaceLab drives a VerticalElasticityStrategy with
// resizePolicy InPlaceOrRecreate on the lab (kube-apiserver 1.36, the lab's
// kubelet part for resize on kwok nodes of 4 CPU):
//  1. an SLO violation raises the CPU request 1 -> 1.5: the running pods are
//     resized in place (same UIDs, spec and reported resources 1.5), the pod
//     template keeps 1;
//  2. a pod created afterwards (scale 2 -> 3) is resized to 1.5 once it runs;
//  3. a step to 4.5 CPU, beyond the nodes' 4 allocatable, is refused in place
//     and falls back to the rolling update: the template gets 4.5, the
//     annotation goes, a new ReplicaSet appears.
func TestVerticalInPlaceLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	l := newSLOLab(t, ctx)
	ns := l.namespace(t, ctx, "inplace")
	l.deployment(t, ctx, ns, "web", 2)

	mgr, err := ctrl.NewManager(l.cfg, ctrl.Options{
		Scheme: testScheme(t), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      controller.CacheOptionsIn(ns),
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := mgr.GetEventRecorder("hca-runtime-test")
	if err := (&controller.VerticalStrategyReconciler{Client: mgr.GetClient(), Recorder: rec, Class: sloClass}).SetupWithManager(mgr); err != nil {
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

	pods := func() []corev1.Pod {
		var pl corev1.PodList
		if err := l.c.List(ctx, &pl, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/name": "web"}); err != nil {
			t.Fatal(err)
		}
		return pl.Items
	}
	cpuOf := func(r corev1.ResourceRequirements) string {
		q := r.Requests[corev1.ResourceCPU]
		return q.String()
	}
	describe := func() string {
		var b strings.Builder
		for _, p := range pods() {
			reported := "-"
			if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].Resources != nil {
				reported = cpuOf(*p.Status.ContainerStatuses[0].Resources)
			}
			fmt.Fprintf(&b, "%s(%s) %s spec %s reported %s; ", p.Name, p.UID, p.Status.Phase, cpuOf(p.Spec.Containers[0].Resources), reported)
		}
		return b.String()
	}
	// every running pod asks and runs with cpu.
	allAt := func(cpu string, n int) (bool, string) {
		ps := pods()
		ok := len(ps) == n
		for _, p := range ps {
			cs := p.Status.ContainerStatuses
			ok = ok && p.Status.Phase == corev1.PodRunning && cpuOf(p.Spec.Containers[0].Resources) == cpu &&
				len(cs) == 1 && cs[0].Resources != nil && cpuOf(*cs[0].Resources) == cpu
		}
		return ok, describe()
	}
	sloEventually(t, 2*time.Minute, "2 pods running with 1 CPU", func() (bool, string) { return allAt("1", 2) })
	uids := map[types.UID]bool{}
	for _, p := range pods() {
		uids[p.UID] = true
	}

	vs := &hcav1.VerticalElasticityStrategy{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: map[string]string{controller.ClassLabel: sloClass}},
		Spec: hcav1.VerticalElasticityStrategySpec{
			Target:    hcav1.TargetRef{Kind: "Deployment", Name: "web"},
			SLOOutput: hcav1.SLOOutput{CompliancePercent: 150},
			StaticConfig: hcav1.VerticalStaticConfig{MinCPU: resource.MustParse("500m"), MaxCPU: resource.MustParse("8"),
				MinMemory: resource.MustParse("64Mi"), MaxMemory: resource.MustParse("64Mi"), CPUStep: ptr.To(resource.MustParse("500m")),
				ResizePolicy: string(scaling.ResizeInPlaceOrRecreate)},
			Stabilization: &hcav1.StabilizationWindows{ScaleUp: &metav1.Duration{}, ScaleDown: &metav1.Duration{}},
		},
	}
	if err := l.c.Create(ctx, vs); err != nil {
		t.Fatal(err)
	}
	deploy := func() *appsv1.Deployment {
		var d appsv1.Deployment
		if err := l.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}

	// (1) In place: same pods, new size, template untouched.
	sloEventually(t, 90*time.Second, "both pods resized in place to 1500m", func() (bool, string) { return allAt("1500m", 2) })
	for _, p := range pods() {
		if !uids[p.UID] {
			t.Errorf("pod %s (%s) is new: an in-place resize keeps the pods", p.Name, p.UID)
		}
	}
	d := deploy()
	if got := cpuOf(d.Spec.Template.Spec.Containers[0].Resources); got != "1" {
		t.Errorf("template cpu = %s, want 1: an in-place resize leaves the template", got)
	}
	if _, ok := d.Annotations[controller.InPlaceResourcesAnnotation]; !ok {
		t.Errorf("deployment annotations = %v, want %s", d.Annotations, controller.InPlaceResourcesAnnotation)
	}

	// (2) A new pod (scale up) starts from the template and is resized.
	before := d.DeepCopy()
	d.Spec.Replicas = ptr.To(int32(3))
	if err := l.c.Patch(ctx, d, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	sloEventually(t, 2*time.Minute, "3 pods running with 1500m", func() (bool, string) { return allAt("1500m", 3) })
	var rsl appsv1.ReplicaSetList
	if err := l.c.List(ctx, &rsl, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(rsl.Items) != 1 {
		t.Errorf("replica sets = %d, want 1: nothing rolled", len(rsl.Items))
	}

	// (3) Beyond the node (1.5 + 3 = 4.5 CPU > 4): the rolling update.
	var cur hcav1.VerticalElasticityStrategy
	if err := l.c.Get(ctx, client.ObjectKeyFromObject(vs), &cur); err != nil {
		t.Fatal(err)
	}
	prev := cur.DeepCopy()
	cur.Spec.SLOOutput.CompliancePercent = 160
	cur.Spec.StaticConfig.CPUStep = ptr.To(resource.MustParse("3"))
	if err := l.c.Patch(ctx, &cur, client.MergeFrom(prev)); err != nil {
		t.Fatal(err)
	}
	sloEventually(t, 90*time.Second, "template at 4500m, annotation gone, a new ReplicaSet", func() (bool, string) {
		d := deploy()
		_, annotated := d.Annotations[controller.InPlaceResourcesAnnotation]
		var rsl appsv1.ReplicaSetList
		if err := l.c.List(ctx, &rsl, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		got := cpuOf(d.Spec.Template.Spec.Containers[0].Resources)
		return got == "4500m" && !annotated && len(rsl.Items) == 2, fmt.Sprintf("template cpu %s, annotated %v, %d replica sets; %s", got, annotated, len(rsl.Items), describe())
	})
	var evs corev1.EventList
	if err := l.c.List(ctx, &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	fallback := false
	for _, e := range evs.Items {
		if e.Reason == "InPlaceResizeFallback" {
			fallback = true
			t.Logf("event: %s", e.Message)
		}
	}
	if !fallback {
		t.Errorf("no InPlaceResizeFallback event")
	}
}
