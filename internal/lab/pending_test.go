package lab_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestOverflowPodsStayPending checks the trigger of cloud bursting on the private
// cluster: pods whose CPU requests exceed the nodes' allocatable stay Pending with
// reason Unschedulable, and scaling down removes them. The test adds its own tainted
// node pool (1 node x 2 CPU) to the private cluster so other tests' pods cannot
// change the capacity it counts on.
func TestOverflowPodsStayPending(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_DIR", "HCA_LAB_PRIVATE_KUBECONFIG")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	clusters := lab.NewClusters(env["HCA_LAB_DIR"], &lab.Binaries{})
	pool := fmt.Sprintf("pending-%d", rand.IntN(1e6))
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "2", Memory: "4Gi", Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	cs := clientFor(t, env["HCA_LAB_PRIVATE_KUBECONFIG"])
	ns := createNamespace(t, ctx, cs, "pending")

	replicas := int32(3) // 3 x 1 CPU on one 2-CPU node: 2 run, 1 overflows
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"hca.dev/node-pool": pool},
					Tolerations:  []corev1.Toleration{{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: taint.Value, Effect: corev1.TaintEffectNoSchedule}},
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
				},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, ctx, cs, ns, 2, 1)

	replicas = 2
	if _, err := cs.AppsV1().Deployments(ns).Patch(ctx, "web", "application/merge-patch+json",
		[]byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, ctx, cs, ns, 2, 0)
}

// waitPods waits until the namespace has exactly running Running pods and pending
// Pending pods whose PodScheduled condition is False with reason Unschedulable.
func waitPods(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns string, running, pending int) {
	t.Helper()
	var last string
	for {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			r, p, other := 0, 0, 0
			for _, pod := range pods.Items {
				if pod.DeletionTimestamp != nil {
					other++
					continue
				}
				switch pod.Status.Phase {
				case corev1.PodRunning:
					r++
				case corev1.PodPending:
					if unschedulable(pod) {
						p++
					} else {
						other++
					}
				default:
					other++
				}
			}
			last = fmt.Sprintf("running=%d unschedulable=%d other=%d", r, p, other)
			if r == running && p == pending && other == 0 {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("want running=%d unschedulable=%d, last seen %s", running, pending, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func unschedulable(pod corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

func clientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func createNamespace(t *testing.T, ctx context.Context, cs kubernetes.Interface, prefix string) string {
	t.Helper()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) })
	return ns.Name
}
