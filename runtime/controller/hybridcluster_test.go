package controller_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

func q(s string) resource.Quantity { return resource.MustParse(s) }

func node(name, cpu, mem string, pods int64, unschedulable bool) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Unschedulable: unschedulable},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem), corev1.ResourcePods: *resource.NewQuantity(pods, resource.DecimalSI)}}}
}

func pod(nodeName, cpu, mem string, phase corev1.PodPhase) corev1.Pod {
	return corev1.Pod{Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem)}}}}},
		Status: corev1.PodStatus{Phase: phase}}
}

func TestCapacity(t *testing.T) {
	maxCPU := q("3")
	maxPods := int32(2)
	tests := []struct {
		name              string
		nodes             []corev1.Node
		pods              []corev1.Pod
		limits            *hcav1.ClusterLimits
		allocCPU, freeCPU string
		freeMem           string
		freePods          int64
	}{
		{"empty", nil, nil, nil, "0", "0", "0", 0},
		{"two nodes, one pod", []corev1.Node{node("a", "4", "8Gi", 110, false), node("b", "4", "8Gi", 110, false)},
			[]corev1.Pod{pod("a", "1500m", "1Gi", corev1.PodRunning)}, nil, "8", "6500m", "15Gi", 219},
		{"pending and finished pods do not count", []corev1.Node{node("a", "4", "8Gi", 110, false)},
			[]corev1.Pod{pod("", "1", "1Gi", corev1.PodPending), pod("a", "1", "1Gi", corev1.PodSucceeded)}, nil, "4", "4", "8Gi", 110},
		{"cordoned node is excluded", []corev1.Node{node("a", "4", "8Gi", 110, false), node("b", "4", "8Gi", 110, true)},
			[]corev1.Pod{pod("b", "1", "1Gi", corev1.PodRunning)}, nil, "4", "4", "8Gi", 110},
		{"overcommitted clamps at zero", []corev1.Node{node("a", "1", "1Gi", 110, false)},
			[]corev1.Pod{pod("a", "2", "2Gi", corev1.PodRunning)}, nil, "1", "0", "0", 109},
		{"limits cap free", []corev1.Node{node("a", "8", "8Gi", 110, false)},
			[]corev1.Pod{pod("a", "1", "1Gi", corev1.PodRunning)}, &hcav1.ClusterLimits{MaxCPU: &maxCPU, MaxPods: &maxPods}, "8", "2", "7Gi", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alloc, free := controller.Capacity(tt.nodes, tt.pods, tt.limits)
			check := func(what string, got resource.Quantity, want string) {
				if w := q(want); got.Cmp(w) != 0 {
					t.Errorf("%s = %s, want %s", what, got.String(), want)
				}
			}
			check("allocatable cpu", alloc[corev1.ResourceCPU], tt.allocCPU)
			check("free cpu", free[corev1.ResourceCPU], tt.freeCPU)
			check("free memory", free[corev1.ResourceMemory], tt.freeMem)
			if fp := free[corev1.ResourcePods]; fp.Value() != tt.freePods {
				t.Errorf("free pods = %d, want %d", fp.Value(), tt.freePods)
			}
		})
	}
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := hcav1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHybridClusterProber runs the prober in a manager against the lab's private
// cluster: a HybridCluster whose kubeconfig Secret reaches the private cluster gets
// Reachable with the real version and capacity; one whose kubeconfig points at a
// closed port is reported unreachable with the cause.
func TestHybridClusterProber(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	scheme := testScheme(t)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	members := &controller.Members{Control: mgr.GetAPIReader(), Options: client.Options{Scheme: scheme}}
	id := rand.IntN(1e6)
	class := fmt.Sprintf("probe-%d", id) // this test's clusters only, not those of the tests beside it
	r := &controller.HybridClusterReconciler{Client: mgr.GetClient(), Members: members, Clock: clock.RealClock{}, Interval: time.Second, Class: class}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = mgr.Start(mctx) }()

	c := mgr.GetAPIReader()
	w, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	broken := []byte(strings.Replace(string(kubeconfig), "server: https://127.0.0.1:", "server: https://127.0.0.1:1#", 1))
	tests := []struct {
		name       string
		kubeconfig []byte
		reachable  bool
		message    string
	}{
		{fmt.Sprintf("probe-ok-%d", id), kubeconfig, true, "Kubernetes v1.36.3"},
		{fmt.Sprintf("probe-down-%d", id), broken, false, "read server version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: tt.name, Namespace: "default"}, Data: map[string][]byte{"kubeconfig": tt.kubeconfig}}
			if err := w.Create(ctx, sec); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Delete(context.Background(), sec) })
			hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: tt.name, Labels: map[string]string{controller.ClassLabel: class}}, Spec: hcav1.HybridClusterSpec{
				Role: hcav1.RoleBurst, Provider: hcav1.ProviderPrivate, Priority: 1,
				Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "default", Name: hcav1.ObjectName(tt.name)}}}}
			if err := w.Create(ctx, hc); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Delete(context.Background(), hc) })
			var got hcav1.HybridCluster
			for {
				if err := c.Get(ctx, types.NamespacedName{Name: tt.name}, &got); err != nil {
					t.Fatal(err)
				}
				if cond := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionReachable); cond != nil {
					if got.Status.Reachable != tt.reachable || !strings.Contains(cond.Message, tt.message) {
						t.Fatalf("reachable=%v condition %+v, want reachable=%v and message containing %q", got.Status.Reachable, cond, tt.reachable, tt.message)
					}
					break
				}
				select {
				case <-ctx.Done():
					t.Fatal("the prober never set the Reachable condition")
				case <-time.After(100 * time.Millisecond):
				}
			}
			if tt.reachable {
				if got.Status.KubernetesVersion != "v1.36.3" {
					t.Errorf("kubernetesVersion = %q", got.Status.KubernetesVersion)
				}
				cpu := got.Status.Allocatable[corev1.ResourceCPU]
				if cpu.Sign() <= 0 {
					t.Errorf("allocatable cpu = %s, want the nodes' sum", cpu.String())
				}
				if got.Status.LastProbeTime == nil {
					t.Error("lastProbeTime not set")
				}
			}
			if strings.Contains(fmt.Sprint(got.Status), "BEGIN") {
				t.Error("status leaks credentials")
			}
		})
	}
}
