package controller_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

func resourceMetric(name corev1.ResourceName, pct int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: name, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(pct)}}}
}

// TestFederatedHPA builds member HPAs from a spec and its partition.
func TestFederatedHPA(t *testing.T) {
	fa := func(ns, name string, kind hcav1.WorkloadKind, metrics ...hcav1.MetricSpec) *hcav1.FederatedAutoscaler {
		return &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: hcav1.FederatedAutoscalerSpec{
			Target: hcav1.TargetRef{Kind: kind, Name: "web"}, MinReplicas: 3, MaxReplicas: 10, Metrics: metrics,
			Members: []hcav1.FederatedMember{{Cluster: "a"}, {Cluster: "b"}}}}
	}
	res := func(name hcav1.ResourceName, pct int32) hcav1.MetricSpec {
		return hcav1.MetricSpec{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: name, TargetAverageUtilization: pct}}
	}
	long := strings.Repeat("n", 60)
	tests := []struct {
		name      string
		fa        *hcav1.FederatedAutoscaler
		cluster   string
		kind      string
		min, max  int32
		metrics   []autoscalingv2.MetricSpec
		label     string
		ownerNote string
	}{
		{"first member gets the remainders; default metric is cpu 80 %", fa("shop", "web-fa", ""), "a", "Deployment", 2, 5,
			[]autoscalingv2.MetricSpec{resourceMetric(corev1.ResourceCPU, 80)}, "shop.web-fa", "shop/web-fa"},
		{"second member", fa("shop", "web-fa", "", res(hcav1.ResourceCPU, 60)), "b", "Deployment", 1, 5,
			[]autoscalingv2.MetricSpec{resourceMetric(corev1.ResourceCPU, 60)}, "shop.web-fa", "shop/web-fa"},
		{"cpu and memory on a StatefulSet", fa("db", "pg", hcav1.WorkloadStatefulSet, res(hcav1.ResourceCPU, 70), res(hcav1.ResourceMemory, 90)), "a", "StatefulSet", 2, 5,
			[]autoscalingv2.MetricSpec{resourceMetric(corev1.ResourceCPU, 70), resourceMetric(corev1.ResourceMemory, 90)}, "db.pg", "db/pg"},
		{"long names get a hashed label", fa("shop", long, ""), "b", "Deployment", 1, 5,
			[]autoscalingv2.MetricSpec{resourceMetric(corev1.ResourceCPU, 80)}, "shop." + long[:47] + "-", "shop/" + long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shares, err := scaling.Partition(tt.fa.Spec.MinReplicas, tt.fa.Spec.MaxReplicas, []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			var share scaling.FederatedShare
			for _, s := range shares {
				if s.Cluster == tt.cluster {
					share = s
				}
			}
			h := controller.FederatedHPA(tt.fa, share)
			if h.Name != "web" || h.Namespace != tt.fa.Namespace {
				t.Errorf("HPA %s/%s, want %s/web", h.Namespace, h.Name, tt.fa.Namespace)
			}
			if got := *h.Spec.MinReplicas; got != tt.min || h.Spec.MaxReplicas != tt.max {
				t.Errorf("min/max = %d/%d, want %d/%d", got, h.Spec.MaxReplicas, tt.min, tt.max)
			}
			want := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: tt.kind, Name: "web"}
			if h.Spec.ScaleTargetRef != want {
				t.Errorf("scaleTargetRef = %+v, want %+v", h.Spec.ScaleTargetRef, want)
			}
			if !equality.Semantic.DeepEqual(h.Spec.Metrics, tt.metrics) {
				t.Errorf("metrics = %+v, want %+v", h.Spec.Metrics, tt.metrics)
			}
			l := h.Labels[controller.FederatedAutoscalerLabel]
			hashed := strings.HasSuffix(tt.label, "-") // a prefix followed by a hash
			if len(l) > 63 || !strings.HasPrefix(l, tt.label) || (!hashed && l != tt.label) || (hashed && len(l) != len(tt.label)+10) {
				t.Errorf("label %q, want %q (at most 63 characters)", l, tt.label)
			}
			if a := h.Annotations[controller.FederatedAutoscalerAnnotation]; a != tt.ownerNote {
				t.Errorf("owner annotation %q, want %q", a, tt.ownerNote)
			}
		})
	}
}

// TestFederatedMemberFromHPA: what the rebalance knows of a member HPA.
func TestFederatedMemberFromHPA(t *testing.T) {
	scaled := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	hpa := func(min *int32, max, cur, des int32, last *time.Time) *autoscalingv2.HorizontalPodAutoscaler {
		h := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: min, MaxReplicas: max},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: cur, DesiredReplicas: des}}
		if last != nil {
			h.Status.LastScaleTime = &metav1.Time{Time: *last}
		}
		return h
	}
	tests := []struct {
		name string
		hpa  *autoscalingv2.HorizontalPodAutoscaler
		want scaling.FederatedMember
	}{
		{"no HPA", nil, scaling.FederatedMember{Name: "a"}},
		{"fresh HPA is not observed", hpa(ptr.To[int32](2), 5, 0, 0, nil), scaling.FederatedMember{Name: "a", Min: 2, Max: 5}},
		{"unset minReplicas means 1", hpa(nil, 4, 0, 0, nil), scaling.FederatedMember{Name: "a", Min: 1, Max: 4}},
		{"saturated", hpa(ptr.To[int32](1), 5, 5, 5, &scaled),
			scaling.FederatedMember{Name: "a", Min: 1, Max: 5, Current: 5, Desired: 5, Observed: true, LastScaleTime: scaled}},
		{"pending pods: current below desired", hpa(ptr.To[int32](1), 5, 2, 4, nil),
			scaling.FederatedMember{Name: "a", Min: 1, Max: 5, Current: 2, Desired: 4, Observed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := controller.FederatedMemberFromHPA("a", tt.hpa); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// eventually polls cond every 100 ms until it reports true or ctx ends.
func eventually(t *testing.T, ctx context.Context, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		select {
		case <-ctx.Done():
			t.Fatalf("%s: gave up; last state: %s", what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// fedLab is two fresh lab clusters registered as HybridClusters in the
// private (control) cluster.
type fedLab struct {
	cfg     *rest.Config
	control client.Client
	members map[string]client.Client // by HybridCluster name
	names   []string
}

func newFedLab(t *testing.T, ctx context.Context, env map[string]string, id int) *fedLab {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	scheme := testScheme(t)
	control, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	fl := &fedLab{cfg: cfg, control: control, members: map[string]client.Client{}}
	clusters := labtest.Clusters(t)
	names := []string{fmt.Sprintf("fed-a-%d", id), fmt.Sprintf("fed-b-%d", id)}
	infos := make([]*lab.ClusterInfo, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		t.Cleanup(func() {
			if err := clusters.DeleteCluster(context.Background(), n); err != nil {
				t.Errorf("delete lab cluster %s: %v", n, err)
			}
		})
		wg.Go(func() {
			infos[i], errs[i] = clusters.CreateCluster(ctx, lab.ClusterSpec{Name: n, Pools: []lab.NodePool{{Name: "default", Count: 1, CPU: "4", Memory: "8Gi"}}})
		})
	}
	wg.Wait()
	for i, n := range names {
		if errs[i] != nil {
			t.Fatalf("create lab cluster %s: %v", n, errs[i])
		}
		kubeconfig, err := os.ReadFile(infos[i].KubeconfigPath)
		if err != nil {
			t.Fatal(err)
		}
		fl.register(t, ctx, n, kubeconfig)
		mcfg, err := clientcmd.BuildConfigFromFlags("", infos[i].KubeconfigPath)
		if err != nil {
			t.Fatal(err)
		}
		if fl.members[n], err = client.New(mcfg, client.Options{Scheme: scheme}); err != nil {
			t.Fatal(err)
		}
	}
	fl.names = names
	return fl
}

// register creates a HybridCluster named name with its kubeconfig Secret.
func (fl *fedLab) register(t *testing.T, ctx context.Context, name string, kubeconfig []byte) {
	t.Helper()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string][]byte{"kubeconfig": kubeconfig}}
	if err := fl.control.Create(ctx, sec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fl.control.Delete(context.Background(), sec) })
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderPrivate, Priority: 1,
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "default", Name: hcav1.ObjectName(name)}}}}
	if err := fl.control.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fl.control.Delete(context.Background(), hc) })
}

// startManager runs a FederatedAutoscalerReconciler in a new manager until
// the returned stop is called. It watches namespace ns only: other test
// processes sharing the lab's control cluster run their own reconcilers,
// with their own fake clocks, over their own namespaces.
// fedRounds waits until the federated autoscaler controller has finished n
// more reconciles (controller-runtime's reconcile counter), so that a check
// that nothing changed follows at least one full round that saw the change
// made before the call (a round already running may have read the state
// before it: hence n >= 2).
func fedRounds(t *testing.T, ctx context.Context, n float64) {
	t.Helper()
	count := func() float64 {
		mfs, err := ctrlmetrics.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, mf := range mfs {
			if mf.GetName() != "controller_runtime_reconcile_total" {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "controller" && l.GetValue() == "federatedautoscaler" {
						sum += m.GetCounter().GetValue()
					}
				}
			}
		}
		return sum
	}
	start := count()
	eventually(t, ctx, fmt.Sprintf("%v more federated autoscaler reconciles", n), func() (bool, string) {
		got := count() - start
		return got >= n, fmt.Sprintf("%v so far", got)
	})
}

func (fl *fedLab) startManager(t *testing.T, ctx context.Context, clk *clocktesting.FakeClock, ns string) (stop func()) {
	t.Helper()
	scheme := testScheme(t)
	mgr, err := ctrl.NewManager(fl.cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}}) // the restart test runs a second manager
	if err != nil {
		t.Fatal(err)
	}
	r := &controller.FederatedAutoscalerReconciler{Client: mgr.GetClient(), Clock: clk, Interval: 200 * time.Millisecond,
		Members:  &controller.Members{Control: mgr.GetAPIReader(), Options: client.Options{Scheme: scheme}},
		Recorder: mgr.GetEventRecorder("hca-runtime-test")}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	return func() { cancel(); <-done }
}

func (fl *fedLab) hpa(ctx context.Context, cluster, ns, name string) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	var h autoscalingv2.HorizontalPodAutoscaler
	if err := fl.members[cluster].Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// minMax reads every member HPA's min/max ("a=1-5 b=1-5").
func (fl *fedLab) minMax(ctx context.Context, ns, name string) (map[string][2]int32, string) {
	out := map[string][2]int32{}
	var desc []string
	for _, c := range fl.names {
		h, err := fl.hpa(ctx, c, ns, name)
		if err != nil {
			desc = append(desc, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		out[c] = [2]int32{ptr.Deref(h.Spec.MinReplicas, 1), h.Spec.MaxReplicas}
		desc = append(desc, fmt.Sprintf("%s=%d-%d", c, out[c][0], out[c][1]))
	}
	return out, strings.Join(desc, " ")
}

// setHPAStatus writes a member HPA's status as its HPA controller would.
func (fl *fedLab) setHPAStatus(t *testing.T, ctx context.Context, cluster, ns, name string, current, desired int32, lastScale time.Time) {
	t.Helper()
	for {
		h, err := fl.hpa(ctx, cluster, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		h.Status.CurrentReplicas, h.Status.DesiredReplicas = current, desired
		h.Status.LastScaleTime = &metav1.Time{Time: lastScale}
		err = fl.members[cluster].Status().Update(ctx, h)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("write status of HPA %s/%s in %s: %v", ns, name, cluster, err)
		}
	}
}

func clusterStatus(fa *hcav1.FederatedAutoscaler, name string) *hcav1.FederatedClusterStatus {
	for i := range fa.Status.Clusters {
		if string(fa.Status.Clusters[i].Cluster) == name {
			return &fa.Status.Clusters[i]
		}
	}
	return nil
}

// TestFederatedAutoscalerLab runs the reconciler against two fresh lab
// member clusters registered in the private cluster.
func TestFederatedAutoscalerLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_DIR")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id := rand.IntN(1e6)
	fl := newFedLab(t, ctx, env, id)
	a, b := fl.names[0], fl.names[1]
	ns, target := fmt.Sprintf("fed-%d", id), fmt.Sprintf("web-%d", id)
	// The workload's namespace, in the control cluster and every member.
	for _, c := range append([]client.Client{fl.control}, fl.members[a], fl.members[b]) {
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if err := c.Create(ctx, nsObj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = fl.control.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	clk := clocktesting.NewFakeClock(time.Now())
	stop := fl.startManager(t, ctx, clk, ns)
	defer func() { stop() }()

	fa := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("fa-%d", id)}, Spec: hcav1.FederatedAutoscalerSpec{
		Target: hcav1.TargetRef{Name: hcav1.ObjectName(target)}, MinReplicas: 2, MaxReplicas: 10,
		Members:              []hcav1.FederatedMember{{Cluster: hcav1.ClusterName(a)}, {Cluster: hcav1.ClusterName(b)}},
		Metrics:              []hcav1.MetricSpec{{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: hcav1.ResourceCPU, TargetAverageUtilization: 60}}},
		ScaleForbiddenWindow: &metav1.Duration{Duration: 30 * time.Second},
	}}
	if err := fl.control.Create(ctx, fa); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fl.control.Delete(context.Background(), fa) })
	key := client.ObjectKeyFromObject(fa)
	getFA := func() *hcav1.FederatedAutoscaler {
		var got hcav1.FederatedAutoscaler
		if err := fl.control.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		return &got
	}

	t.Run("partition HPAs appear in both members", func(t *testing.T) {
		eventually(t, ctx, "member HPAs with the partition", func() (bool, string) {
			mm, desc := fl.minMax(ctx, ns, target)
			return mm[a] == [2]int32{1, 5} && mm[b] == [2]int32{1, 5}, desc
		})
		h, err := fl.hpa(ctx, a, ns, target)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Labels[controller.FederatedAutoscalerLabel]; got != ns+"."+fa.Name {
			t.Errorf("owner label %q, want %q", got, ns+"."+fa.Name)
		}
		want := []autoscalingv2.MetricSpec{resourceMetric(corev1.ResourceCPU, 60)}
		if !equality.Semantic.DeepEqual(h.Spec.Metrics, want) || h.Spec.ScaleTargetRef.Name != target || h.Spec.ScaleTargetRef.Kind != "Deployment" {
			t.Errorf("HPA spec %+v, want target Deployment %s and metrics %+v", h.Spec, target, want)
		}
		eventually(t, ctx, "Ready status with both members", func() (bool, string) {
			got := getFA()
			ready := meta.IsStatusConditionTrue(got.Status.Conditions, hcav1.ConditionReady)
			ca, cb := clusterStatus(got, a), clusterStatus(got, b)
			return ready && ca != nil && cb != nil && ca.MaxReplicas+cb.MaxReplicas == 10 && ca.MinReplicas+cb.MinReplicas == 2 &&
				controllerutilHasFinalizer(got), fmt.Sprintf("%+v finalizers %v", got.Status, got.Finalizers)
		})
	})

	t.Run("saturation moves max only after the scale-forbidden window", func(t *testing.T) {
		// a scaled just now to its max and is saturated; b idles at 1 and
		// last scaled an hour ago.
		fl.setHPAStatus(t, ctx, a, ns, target, 5, 5, clk.Now())
		fl.setHPAStatus(t, ctx, b, ns, target, 1, 1, clk.Now().Add(-time.Hour))
		eventually(t, ctx, "the status to show the saturated member", func() (bool, string) {
			got := getFA()
			ca := clusterStatus(got, a)
			return ca != nil && ca.CurrentReplicas == 5 && ca.DesiredReplicas == 5 && got.Status.CurrentReplicas == 6, fmt.Sprintf("%+v", got.Status)
		})
		// The reconciler has read the saturation: inside a's window nothing moves.
		fedRounds(t, ctx, 2)
		if mm, desc := fl.minMax(ctx, ns, target); mm[a] != [2]int32{1, 5} || mm[b] != [2]int32{1, 5} {
			t.Fatalf("max moved inside the scale-forbidden window: %s", desc)
		}
		clk.Step(31 * time.Second)
		eventually(t, ctx, "one max replica moved from b to a", func() (bool, string) {
			mm, desc := fl.minMax(ctx, ns, target)
			return mm[a] == [2]int32{1, 6} && mm[b] == [2]int32{1, 4}, desc
		})
		// a is no longer saturated (max 6, desired 5): nothing else moves.
		fedRounds(t, ctx, 2)
		if mm, desc := fl.minMax(ctx, ns, target); mm[a] != [2]int32{1, 6} || mm[b] != [2]int32{1, 4} {
			t.Fatalf("after one move the partition is %s, want a=1-6 b=1-4", desc)
		}
		eventually(t, ctx, "status with the new partition", func() (bool, string) {
			got := getFA()
			ca, cb := clusterStatus(got, a), clusterStatus(got, b)
			return ca != nil && cb != nil && ca.MaxReplicas == 6 && cb.MaxReplicas == 4, fmt.Sprintf("%+v", got.Status)
		})
	})

	t.Run("a restarted runtime keeps the rebalanced partition", func(t *testing.T) {
		stop()
		stop = fl.startManager(t, ctx, clk, ns)
		// Touch the object so the new manager reconciles it now.
		got := getFA()
		before := got.DeepCopy()
		got.Annotations = map[string]string{"test/restart": "1"}
		if err := fl.control.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		fedRounds(t, ctx, 2)
		if mm, desc := fl.minMax(ctx, ns, target); mm[a] != [2]int32{1, 6} || mm[b] != [2]int32{1, 4} {
			t.Fatalf("after a restart the partition is %s, want a=1-6 b=1-4 (state comes from the member HPAs)", desc)
		}
	})

	t.Run("a spec change repartitions; a removed member loses its HPA", func(t *testing.T) {
		got := getFA()
		before := got.DeepCopy()
		got.Spec.MaxReplicas = 12
		if err := fl.control.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "the new max partitioned afresh", func() (bool, string) {
			mm, desc := fl.minMax(ctx, ns, target)
			return mm[a] == [2]int32{1, 6} && mm[b] == [2]int32{1, 6}, desc
		})
		got = getFA()
		before = got.DeepCopy()
		got.Spec.MaxReplicas = 10
		got.Spec.Members = got.Spec.Members[:1]
		if err := fl.control.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "all of min/max on the remaining member, none left on the removed one", func() (bool, string) {
			mm, desc := fl.minMax(ctx, ns, target)
			_, onB := mm[b]
			st := getFA().Status
			return mm[a] == [2]int32{2, 10} && !onB && len(st.Clusters) == 1, desc + fmt.Sprintf(" status %+v", st.Clusters)
		})
		// Put b back for the tests below: the HPAs are split evenly again.
		got = getFA()
		before = got.DeepCopy()
		got.Spec.Members = append(got.Spec.Members, hcav1.FederatedMember{Cluster: hcav1.ClusterName(b)})
		if err := fl.control.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "b back in the partition", func() (bool, string) {
			mm, desc := fl.minMax(ctx, ns, target)
			return mm[a] == [2]int32{1, 5} && mm[b] == [2]int32{1, 5}, desc
		})
	})

	t.Run("a schedule window raises min while in force, read in its time zone", func(t *testing.T) {
		// Asia/Kolkata is UTC+05:30: a start read in another zone would be
		// hours off and never open within this test.
		loc, err := time.LoadLocation("Asia/Kolkata")
		if err != nil {
			t.Fatal(err)
		}
		at := clk.Now().In(loc).Add(2 * time.Minute)
		got := getFA()
		before := got.DeepCopy()
		got.Spec.Schedules = []hcav1.ScheduleWindow{{Name: "peak", Start: fmt.Sprintf("%d %d * * *", at.Minute(), at.Hour()),
			Duration: metav1.Duration{Duration: 10 * time.Minute}, TimeZone: "Asia/Kolkata", MinReplicas: 6}}
		if err := fl.control.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		sumMin := func() (int32, string) {
			mm, desc := fl.minMax(ctx, ns, target)
			return mm[a][0] + mm[b][0], desc
		}
		fedRounds(t, ctx, 2)
		if n, desc := sumMin(); n != 2 {
			t.Fatalf("before the window the members' minReplicas sum to %d (%s), want spec.minReplicas 2", n, desc)
		}
		clk.Step(2 * time.Minute)
		eventually(t, ctx, "the window's floor 6 over the members", func() (bool, string) {
			n, desc := sumMin()
			return n == 6, desc
		})
		clk.Step(10 * time.Minute)
		eventually(t, ctx, "spec.minReplicas back after the window", func() (bool, string) {
			n, desc := sumMin()
			return n == 2, desc
		})
		got = getFA()
		before = got.DeepCopy()
		got.Spec.Schedules = nil
		if err := fl.control.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("an unreachable member is Degraded and left untouched", func(t *testing.T) {
		down := fmt.Sprintf("fed-down-%d", id)
		kubeconfig, err := os.ReadFile(env["HCA_LAB_PRIVATE_KUBECONFIG"])
		if err != nil {
			t.Fatal(err)
		}
		fl.register(t, ctx, down, []byte(strings.Replace(string(kubeconfig), "server: https://127.0.0.1:", "server: https://127.0.0.1:1#", 1)))
		fa2 := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("fa2-%d", id)}, Spec: hcav1.FederatedAutoscalerSpec{
			Target: hcav1.TargetRef{Name: hcav1.ObjectName("api-" + fmt.Sprint(id))}, MinReplicas: 2, MaxReplicas: 8,
			Members: []hcav1.FederatedMember{{Cluster: hcav1.ClusterName(a)}, {Cluster: hcav1.ClusterName(down)}}}}
		if err := fl.control.Create(ctx, fa2); err != nil {
			t.Fatal(err)
		}
		var got hcav1.FederatedAutoscaler
		eventually(t, ctx, "Degraded naming the unreachable member", func() (bool, string) {
			if err := fl.control.Get(ctx, client.ObjectKeyFromObject(fa2), &got); err != nil {
				t.Fatal(err)
			}
			c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionDegraded)
			return c != nil && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, "cluster "+down), fmt.Sprintf("%+v", got.Status)
		})
		if strings.Contains(fmt.Sprint(got.Status), "BEGIN") {
			t.Error("status leaks credentials")
		}
		if meta.IsStatusConditionTrue(got.Status.Conditions, hcav1.ConditionReady) {
			t.Error("Ready is True with a member unreachable")
		}
		// The reachable member got its half all the same.
		eventually(t, ctx, "the reachable member's HPA", func() (bool, string) {
			h, err := fl.hpa(ctx, a, ns, string(fa2.Spec.Target.Name))
			if err != nil {
				return false, err.Error()
			}
			return ptr.Deref(h.Spec.MinReplicas, 1) == 1 && h.Spec.MaxReplicas == 4, fmt.Sprintf("%+v", h.Spec)
		})
		// Deleting it is held while the member is unreachable (its HPA could
		// be scaling on there); removing the member from the spec is the way out.
		if err := fl.control.Delete(ctx, fa2); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "the reachable member's HPA deleted", func() (bool, string) {
			_, err := fl.hpa(ctx, a, ns, string(fa2.Spec.Target.Name))
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
		fedRounds(t, ctx, 2)
		if err := fl.control.Get(ctx, client.ObjectKeyFromObject(fa2), &got); err != nil {
			t.Fatalf("the FederatedAutoscaler went away with a member unreachable: %v", err)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionDegraded)
		if c == nil || c.Reason != "CleanupFailed" || !strings.Contains(c.Message, down) {
			t.Errorf("Degraded = %+v, want CleanupFailed naming %s", c, down)
		}
		hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: down}}
		if err := fl.control.Delete(ctx, hc); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "deletion to finish once the member's HybridCluster is gone", func() (bool, string) {
			err := fl.control.Get(ctx, client.ObjectKeyFromObject(fa2), &got)
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	})

	t.Run("deleting the FederatedAutoscaler deletes the member HPAs", func(t *testing.T) {
		if err := fl.control.Delete(ctx, fa); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, "member HPAs deleted and the object gone", func() (bool, string) {
			var left []string
			for _, c := range fl.names {
				if _, err := fl.hpa(ctx, c, ns, target); !apierrors.IsNotFound(err) {
					left = append(left, fmt.Sprintf("%s: %v", c, err))
				}
			}
			var got hcav1.FederatedAutoscaler
			err := fl.control.Get(ctx, key, &got)
			return len(left) == 0 && apierrors.IsNotFound(err), fmt.Sprintf("HPAs left %v; object: %v", left, err)
		})
	})

	t.Run("min greater than max is rejected by the CRD", func(t *testing.T) {
		bad := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("bad-%d", id)}, Spec: hcav1.FederatedAutoscalerSpec{
			Target: hcav1.TargetRef{Name: "web"}, MinReplicas: 5, MaxReplicas: 3,
			Members: []hcav1.FederatedMember{{Cluster: hcav1.ClusterName(a)}}}}
		err := fl.control.Create(ctx, bad)
		if err == nil {
			_ = fl.control.Delete(context.Background(), bad)
			t.Fatal("created a FederatedAutoscaler with minReplicas 5 > maxReplicas 3")
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.minReplicas: Invalid value") || !strings.Contains(err.Error(), "minReplicas must be <= maxReplicas") {
			t.Errorf("error %q, want Invalid on spec.minReplicas with \"minReplicas must be <= maxReplicas\"", err)
		}
	})
}

func controllerutilHasFinalizer(fa *hcav1.FederatedAutoscaler) bool {
	for _, f := range fa.Finalizers {
		if f == controller.FederatedAutoscalerFinalizer {
			return true
		}
	}
	return false
}
