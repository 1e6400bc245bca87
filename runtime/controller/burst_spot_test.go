package controller

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/hca-project/terraform-provider-hca/internal/interruption"
)

func TestBurstSpotInput(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	of := map[string]string{BurstOfLabel: burstOf("shop", "web")}
	ready := []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	unsched := []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	pod := func(name, node string, conds []corev1.PodCondition, mods ...func(*corev1.Pod)) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: of}, Spec: corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: conds}}
		for _, m := range mods {
			m(&p)
		}
		return p
	}
	marked := func(p *corev1.Pod) {
		p.Annotations = map[string]string{interruption.DeletionCostAnnotation: interruption.LeavingCost}
	}
	v := &burstView{
		copies: map[string]*appsv1.Deployment{"web": {ObjectMeta: metav1.ObjectMeta{Name: "web",
			Annotations: map[string]string{BurstSpotSurgeAnnotation: "1"}}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(4))}}},
		noticed: map[string]time.Time{"spot-1": {}},
		pods: []corev1.Pod{
			pod("a", "spot-1", ready, marked), // leaving, marked
			pod("b", "od-1", ready),           // Ready elsewhere
			pod("c", "", unsched),             // a replacement without room
			pod("d", "spot-1", ready, func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} }),                               // terminating: not active
			pod("e", "spot-1", ready, func(p *corev1.Pod) { p.Labels = map[string]string{BurstOfLabel: burstOf("shop", "api")} }), // another workload
			pod("f", "spot-1", nil), // leaving, not Ready, not marked
		},
	}
	// The copy's 4 replicas include a surge of 1: the need is 3.
	if got := burstCopyNeed(v, "web"); got != 3 {
		t.Errorf("burstCopyNeed = %d, want 3", got)
	}
	got := burstSpotInput(v, d, 3)
	want := interruption.Input{Need: 3, Surge: 1, Pods: []interruption.Pod{
		{Name: "a", Noticed: true, Ready: true, Marked: true},
		{Name: "b", Ready: true},
		{Name: "c", Unschedulable: true},
		{Name: "f", Noticed: true},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("burstSpotInput:\n got %+v\nwant %+v", got, want)
	}
}

func TestBurstSpotSurge(t *testing.T) {
	tests := []struct {
		annotation string
		want       int32
	}{{"", 0}, {"2", 2}, {"-1", 0}, {"x", 0}}
	for _, tt := range tests {
		t.Run(tt.annotation, func(t *testing.T) {
			c := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BurstSpotSurgeAnnotation: tt.annotation}}}
			if got := burstSpotSurge(c); got != tt.want {
				t.Errorf("burstSpotSurge(%q) = %d, want %d", tt.annotation, got, tt.want)
			}
		})
	}
}
