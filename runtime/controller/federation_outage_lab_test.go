package controller_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/loadsim"
)

// memberMetrics gives a lab member cluster a resource metrics API
// (metrics.k8s.io) fed by its own workload simulator, so that the member's
// real HPA controller scales on the simulated CPU usage: an APIService whose
// ExternalName Service points at a loopback TLS listener. It returns a
// function setting the load (req/s) offered to namespace/name there.
func memberMetrics(t *testing.T, ctx context.Context, name string, cfg *rest.Config, c client.Client) (setLoad func(namespace, app string, rps float64)) {
	t.Helper()
	sim, err := loadsim.New(loadsim.Options{Clusters: loadsim.StaticSource(map[string]*rest.Config{name: cfg})})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = sim.Run(sctx) }()
	t.Cleanup(func() { cancel(); <-done })
	srv := httptest.NewTLSServer(sim.MetricsAPIHandler(name))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lab-metrics"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
		Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}}}
	if err := c.Create(ctx, svc); err != nil {
		t.Fatalf("create metrics service in %s: %v", name, err)
	}
	as := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1beta1.metrics.k8s.io"},
		"spec": map[string]any{"group": "metrics.k8s.io", "version": "v1beta1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"service": map[string]any{"namespace": "default", "name": "lab-metrics", "port": int64(port)}},
	}}
	if err := c.Create(ctx, as); err != nil {
		t.Fatalf("register the metrics API in %s: %v", name, err)
	}
	api := sim.Handler()
	return func(namespace, app string, rps float64) {
		t.Helper()
		body := fmt.Sprintf(`{"rps": %g, "cpuPerRequest": 0.01}`, rps)
		req := httptest.NewRequest(http.MethodPut, "/v1/apps/"+namespace+"/"+app, strings.NewReader(body))
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("set load of %s/%s in %s: %d %s", namespace, app, name, rec.Code, rec.Body)
		}
	}
}

// TestFederatedScalingWithoutControlPlaneLab is the Federated Pod
// Autoscaler design's use case 2: with the control cluster's apiserver
// stopped, a member whose load rises keeps scaling through its own HPA, up
// to the max of its last partition and no further; when the control plane
// returns nothing was lost or doubled (one HPA per member, the partition
// and the replicas as they were) and the rebalance moves max to the
// saturated member. Each member's HPA controller (kube-controller-manager)
// reads CPU from a resource metrics API fed by the workload simulator.
func TestFederatedScalingWithoutControlPlaneLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_DIR")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	id := rand.IntN(1e6)
	clusters := labtest.Clusters(t)
	// The control cluster is a lab cluster of this test's own: stopping the
	// shared private cluster's apiserver would fail whatever other test
	// package runs against the lab meanwhile (make test runs them at once).
	controlName := fmt.Sprintf("fed-ctl-%d", id)
	t.Cleanup(func() {
		if err := clusters.DeleteCluster(context.Background(), controlName); err != nil {
			t.Errorf("delete lab cluster %s: %v", controlName, err)
		}
	})
	controlInfo, err := clusters.CreateCluster(ctx, lab.ClusterSpec{Name: controlName})
	if err != nil {
		t.Fatalf("create lab cluster %s: %v", controlName, err)
	}
	env["HCA_LAB_PRIVATE_KUBECONFIG"] = controlInfo.KubeconfigPath
	fl := newFedLab(t, ctx, env, id)
	a, b := fl.names[0], fl.names[1]
	ns, target := fmt.Sprintf("fedout-%d", id), "web"
	for _, c := range append([]client.Client{fl.control}, fl.members[a], fl.members[b]) {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = fl.control.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	// The same Deployment in both members: 100m requested, up to 1 core
	// used, so that one pod's CPU can say "16 pods" at a 50 % target.
	setLoad := map[string]func(string, string, float64){}
	for _, m := range fl.names {
		st, err := clusters.Get(m)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", st.KubeconfigPath)
		if err != nil {
			t.Fatal(err)
		}
		setLoad[m] = memberMetrics(t, ctx, m, cfg, fl.members[m])
		labels := map[string]string{"app": target}
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: target}, Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}}
		if err := fl.members[m].Create(ctx, dep); err != nil {
			t.Fatal(err)
		}
		setLoad[m](ns, target, 0)
	}

	clk := clocktesting.NewFakeClock(time.Now())
	stop := fl.startManager(t, ctx, clk, ns)
	defer func() { stop() }()
	fa := &hcav1.FederatedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: hcav1.FederatedAutoscalerSpec{
		Target: hcav1.TargetRef{Name: hcav1.ObjectName(target)}, MinReplicas: 2, MaxReplicas: 10,
		Members:              []hcav1.FederatedMember{{Cluster: hcav1.ClusterName(a)}, {Cluster: hcav1.ClusterName(b)}},
		Metrics:              []hcav1.MetricSpec{{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: hcav1.ResourceCPU, TargetAverageUtilization: 50}}},
		ScaleForbiddenWindow: &metav1.Duration{Duration: 30 * time.Second},
	}}
	if err := fl.control.Create(ctx, fa); err != nil {
		t.Fatal(err)
	}
	getFA := func() (*hcav1.FederatedAutoscaler, error) {
		var got hcav1.FederatedAutoscaler
		return &got, fl.control.Get(ctx, client.ObjectKeyFromObject(fa), &got)
	}
	replicas := func(m string) (int32, error) {
		var d appsv1.Deployment
		if err := fl.members[m].Get(ctx, types.NamespacedName{Namespace: ns, Name: target}, &d); err != nil {
			return 0, err
		}
		return ptr.Deref(d.Spec.Replicas, 0), nil
	}
	// ScalingActive=True: the member's HPA controller reads the metrics.
	scalingActive := func(m string) (bool, string) {
		h, err := fl.hpa(ctx, m, ns, target)
		if err != nil {
			return false, err.Error()
		}
		for _, c := range h.Status.Conditions {
			if c.Type == autoscalingv2.ScalingActive {
				return c.Status == corev1.ConditionTrue, fmt.Sprintf("%s: ScalingActive=%s %s: %s", m, c.Status, c.Reason, c.Message)
			}
		}
		return false, m + ": no ScalingActive condition yet"
	}

	eventually(t, ctx, "both member HPAs with the partition, reading metrics", func() (bool, string) {
		mm, desc := fl.minMax(ctx, ns, target)
		okA, sa := scalingActive(a)
		okB, sb := scalingActive(b)
		return mm[a] == [2]int32{1, 5} && mm[b] == [2]int32{1, 5} && okA && okB, desc + "; " + sa + "; " + sb
	})
	eventually(t, ctx, "the status Ready with both members", func() (bool, string) {
		got, err := getFA()
		if err != nil {
			return false, err.Error()
		}
		return meta.IsStatusConditionTrue(got.Status.Conditions, hcav1.ConditionReady) && len(got.Status.Clusters) == 2, fmt.Sprintf("%+v", got.Status)
	})

	// The control plane goes away; then a's load rises to 0.8 cores' worth
	// (16 pods at 50 % of 100m): a must scale to its max 5 and no further.
	downAt := time.Now()
	if err := clusters.StopAPIServer(ctx, controlName); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = clusters.StartAPIServer(context.Background(), controlName)
		}
	})
	if _, err := getFA(); err == nil {
		t.Fatal("the control cluster still answers with its apiserver stopped")
	}
	setLoad[a](ns, target, 80)
	var maxA int32
	eventually(t, ctx, "member a scaled to its partition's max 5 with the control plane down", func() (bool, string) {
		ra, errA := replicas(a)
		rb, errB := replicas(b)
		if errA != nil || errB != nil {
			return false, fmt.Sprintf("a: %v, b: %v", errA, errB)
		}
		maxA = max(maxA, ra)
		if ra > 5 {
			t.Fatalf("member a scaled to %d replicas, above its partition's max 5", ra)
		}
		return ra == 5 && rb == 1, fmt.Sprintf("a=%d b=%d", ra, rb)
	})
	h, err := fl.hpa(ctx, a, ns, target)
	if err != nil {
		t.Fatal(err)
	}
	if h.Status.DesiredReplicas != 5 {
		t.Errorf("member a's HPA wants %d replicas, want 5 (its max)", h.Status.DesiredReplicas)
	}
	// Keep the control plane down for 30 s at least, and check a stays at 5.
	for time.Since(downAt) < 30*time.Second {
		time.Sleep(time.Second)
		if ra, err := replicas(a); err == nil && ra > 5 {
			t.Fatalf("member a scaled to %d replicas, above its partition's max 5", ra)
		}
	}
	t.Logf("control plane down %s; member a scaled 1 -> 5 without it", time.Since(downAt).Round(time.Second))
	if err := clusters.StartAPIServer(ctx, controlName); err != nil {
		t.Fatal(err)
	}
	restarted = true
	backAt := time.Now()

	// Back: the status shows what the members did, nothing lost or doubled.
	eventually(t, ctx, "the status to show a at 5 and b at 1", func() (bool, string) {
		got, err := getFA()
		if err != nil {
			return false, err.Error()
		}
		ca, cb := clusterStatus(got, a), clusterStatus(got, b)
		return ca != nil && cb != nil && ca.CurrentReplicas == 5 && cb.CurrentReplicas == 1 && got.Status.CurrentReplicas == 6,
			fmt.Sprintf("%+v", got.Status)
	})
	t.Logf("the status caught up %s after the control apiserver was started", time.Since(backAt).Round(time.Second))
	for _, m := range fl.names {
		var list autoscalingv2.HorizontalPodAutoscalerList
		if err := fl.members[m].List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 {
			t.Errorf("member %s holds %d HPAs in %s after the outage, want 1", m, len(list.Items), ns)
		}
	}
	if mm, desc := fl.minMax(ctx, ns, target); mm[a][1]+mm[b][1] != 10 || mm[a][0]+mm[b][0] != 2 {
		t.Errorf("after the outage the partition is %s, want min 2 and max 10 in all", desc)
	}
	if ra, _ := replicas(a); ra != 5 {
		t.Errorf("member a has %d replicas after the outage, want 5", ra)
	}
	if rb, _ := replicas(b); rb != 1 {
		t.Errorf("member b has %d replicas after the outage, want 1", rb)
	}

	// The control plane rebalances once a's scale-forbidden window is over
	// (a scaled in real time; the reconciler's clock is moved past it).
	clk.SetTime(time.Now().Add(31 * time.Second))
	eventually(t, ctx, "one max replica moved from b to a, and a scaling into it", func() (bool, string) {
		mm, desc := fl.minMax(ctx, ns, target)
		ra, err := replicas(a)
		return mm[a] == [2]int32{1, 6} && mm[b] == [2]int32{1, 4} && ra == 6, fmt.Sprintf("%s a replicas %d (%v)", desc, ra, err)
	})
	t.Logf("rebalanced and a at 6 replicas %s after the control apiserver was started", time.Since(backAt).Round(time.Second))

	if err := fl.control.Delete(ctx, fa); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, "member HPAs deleted with the FederatedAutoscaler", func() (bool, string) {
		var left []string
		for _, m := range fl.names {
			if _, err := fl.hpa(ctx, m, ns, target); err == nil {
				left = append(left, m)
			}
		}
		_, err := getFA()
		return len(left) == 0 && err != nil, fmt.Sprintf("HPAs left in %v; object: %v", left, err)
	})
}
