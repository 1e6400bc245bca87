package controller

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// TestPodResize reads what DecideInPlace needs of a pod: whether its spec and
// its reported resources are at the wanted size, and its resize state.
func TestPodResize(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	rr := func(cpu string) corev1.ResourceRequirements {
		l := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Mi")}
		return corev1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}
	}
	want := map[string]corev1.ResourceRequirements{"app": rr("500m")}
	pod := func(spec, reported string, conds ...corev1.PodCondition) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		p.Spec.Containers = []corev1.Container{{Name: "app", Resources: rr(spec)}, {Name: "sidecar", Resources: rr("10m")}}
		r := rr(reported)
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Resources: &r}}
		p.Status.Conditions = conds
		return p
	}
	cond := func(typ corev1.PodConditionType, reason string) corev1.PodCondition {
		return corev1.PodCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(t0)}
	}
	tests := []struct {
		name    string
		pod     *corev1.Pod
		refused string
		want    scaling.PodResize
	}{
		// The sidecar is not in the wanted size: ignored.
		{"old size", pod("1", "1"), "", scaling.PodResize{Name: "p"}},
		{"asked (0.5 = 500m), not yet reported", pod("0.5", "1"), "", scaling.PodResize{Name: "p", SpecAtTarget: true}},
		{"at size", pod("500m", "500m"), "", scaling.PodResize{Name: "p", SpecAtTarget: true, StatusAtTarget: true}},
		{"in progress", pod("500m", "1", cond(corev1.PodResizeInProgress, "")), "",
			scaling.PodResize{Name: "p", SpecAtTarget: true, State: scaling.ResizeStateInProgress, Since: t0}},
		{"deferred", pod("500m", "1", cond(corev1.PodResizePending, corev1.PodReasonDeferred)), "",
			scaling.PodResize{Name: "p", SpecAtTarget: true, State: scaling.ResizeStateDeferred, Since: t0}},
		// Pending and in progress together (a new resize during one): the
		// pending state counts.
		{"infeasible over in progress", pod("500m", "1", cond(corev1.PodResizeInProgress, ""), cond(corev1.PodResizePending, corev1.PodReasonInfeasible)), "",
			scaling.PodResize{Name: "p", SpecAtTarget: true, State: scaling.ResizeStateInfeasible, Since: t0}},
		{"refused", pod("1", "1"), "no room", scaling.PodResize{Name: "p", Refused: "no room"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := podResize(tt.pod, want, tt.refused); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("podResize() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestInPlaceResourcesRoundTrip writes a pod spec's size into the annotation
// and back onto another spec.
func TestInPlaceResourcesRoundTrip(t *testing.T) {
	l := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("128Mi")}
	sized := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: l}}}}
	v := FormatInPlaceResources(sized)
	if v != `{"app":{"requests":{"cpu":"1500m","memory":"128Mi"}}}` {
		t.Errorf("annotation = %s", v)
	}
	m, err := ParseInPlaceResources(v)
	if err != nil {
		t.Fatal(err)
	}
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}, {Name: "other", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}
	applyInPlace(spec, m)
	if got := spec.Containers[0].Resources.Requests.Cpu().String(); got != "1500m" {
		t.Errorf("app cpu = %s, want 1500m", got)
	}
	if got := spec.Containers[1].Resources.Requests.Cpu().String(); got != "1" {
		t.Errorf("other cpu = %s, want 1 (not in the annotation)", got)
	}
	if _, err := ParseInPlaceResources("{"); err == nil {
		t.Error("a broken annotation parsed")
	}
}

// TestPodDeployment maps a pod to its Deployment through its ReplicaSet.
func TestPodDeployment(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-7d9f-abc", Labels: map[string]string{"pod-template-hash": "7d9f"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-api-7d9f"}}}}
	got := podDeployment(t.Context(), p)
	if len(got) != 1 || got[0].Namespace != "ns" || got[0].Name != "web-api" {
		t.Errorf("podDeployment = %v, want ns/web-api", got)
	}
	p.OwnerReferences[0].Kind = "StatefulSet"
	if got := podDeployment(t.Context(), p); len(got) != 0 {
		t.Errorf("a StatefulSet's pod maps to %v", got)
	}
}
