package lab_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestPodStartupDelay starts a cluster whose pods start after a delay: a pod is
// bound but not Ready while the delay runs, a pod whose annotation asks for no
// delay is Ready before it, and the delayed pod is Ready afterwards.
func TestPodStartupDelay(t *testing.T) {
	clusters := labtest.Clusters(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	name := fmt.Sprintf("pst-%d", rand.IntN(1e6))
	t.Cleanup(func() { _ = clusters.DeleteCluster(context.Background(), name) })
	info, err := clusters.CreateCluster(ctx, lab.ClusterSpec{Name: name, PodStartupDelay: 4 * time.Second,
		Pools: []lab.NodePool{{Name: "default", Count: 1, CPU: "4", Memory: "8Gi"}}})
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	cs := clientFor(t, info.KubeconfigPath)
	pod := func(name string, annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
		}
	}
	for _, p := range []*corev1.Pod{pod("slow", nil), pod("fast", map[string]string{"pod-ready.stage.kwok.x-k8s.io/delay": "0s"})} {
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create pod %s: %v", p.Name, err)
		}
	}
	ready := func(name string) (bound, isReady bool) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get pod %s: %v", name, err)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				isReady = true
			}
		}
		return p.Spec.NodeName != "", isReady
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			if ctx.Err() != nil {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("pod fast Ready", func() bool { _, r := ready("fast"); return r })
	if bound, r := ready("slow"); !bound || r {
		t.Errorf("pod slow when fast is Ready: bound %v Ready %v, want bound and not Ready during its start-up delay", bound, r)
	}
	wait("pod slow Ready", func() bool { _, r := ready("slow"); return r })
}
