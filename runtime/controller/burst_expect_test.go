package controller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

func TestBurstExpectations(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	obj := func(ns, name, uid, rv string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid), ResourceVersion: rv}}
	}
	type held struct{ uid, rv string }
	tests := []struct {
		name  string
		write func(e *burstExpectations)
		store map[string]held // namespace/name -> what the store holds
		after time.Duration   // since the write
		want  bool
	}{
		{"nothing written", func(*burstExpectations) {}, nil, 0, true},
		{"created, not in the store yet", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u1", "5"), "") },
			nil, time.Second, false},
		{"created, in the store", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u1", "5"), "") },
			map[string]held{"shop/web": {"u1", "5"}}, time.Second, true},
		{"created, the store holds an older object of that name", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u2", "9"), "") },
			map[string]held{"shop/web": {"u1", "5"}}, time.Second, false},
		{"scaled, the store still at the version before", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u1", "5"), "5") },
			map[string]held{"shop/web": {"u1", "5"}}, time.Second, false},
		{"scaled, the store at a later version", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u1", "5"), "5") },
			map[string]held{"shop/web": {"u1", "7"}}, time.Second, true},
		{"scaled, then gone from the store (deleted by someone): wait for the TTL", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u1", "5"), "5") },
			nil, time.Second, false},
		{"deleted, still in the store", func(e *burstExpectations) { e.deleted("b1", obj("shop", "web", "u1", "5")) },
			map[string]held{"shop/web": {"u1", "5"}}, time.Second, false},
		{"deleted, gone from the store", func(e *burstExpectations) { e.deleted("b1", obj("shop", "web", "u1", "5")) },
			nil, time.Second, true},
		{"deleted, a new object of that name in the store", func(e *burstExpectations) { e.deleted("b1", obj("shop", "web", "u1", "5")) },
			map[string]held{"shop/web": {"u2", "8"}}, time.Second, true},
		{"a write in another namespace does not count", func(e *burstExpectations) { e.wrote("b1", obj("other", "web", "u1", "5"), "5") },
			nil, time.Second, true},
		{"a write in another cluster does not count", func(e *burstExpectations) { e.wrote("b2", obj("shop", "web", "u1", "5"), "5") },
			nil, time.Second, true},
		{"not shown after the TTL: the store is trusted again", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "u1", "5"), "5") },
			map[string]held{"shop/web": {"u1", "5"}}, burstExpectTTL, true},
		{"the latest write counts", func(e *burstExpectations) {
			e.wrote("b1", obj("shop", "web", "u1", "5"), "")
			e.wrote("b1", obj("shop", "web", "u1", "5"), "5")
		}, map[string]held{"shop/web": {"u1", "5"}}, time.Second, false},
		{"an object without a UID is not waited for", func(e *burstExpectations) { e.wrote("b1", obj("shop", "web", "", "5"), "5") },
			map[string]held{"shop/web": {"u1", "5"}}, time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0
			e := newBurstExpectations(func() time.Time { return now })
			tt.write(e)
			now = now.Add(tt.after)
			get := func(k types.NamespacedName) (types.UID, string, bool) {
				h, ok := tt.store[k.String()]
				return types.UID(h.uid), h.rv, ok
			}
			if got := e.met("b1", "shop", get); got != tt.want {
				t.Fatalf("met = %v, want %v", got, tt.want)
			}
			// Once met, forgotten: met with an empty store too (a gone
			// object is the one case met with an empty store anyway).
			if tt.want {
				if got := e.met("b1", "shop", func(types.NamespacedName) (types.UID, string, bool) { return "", "", false }); !got {
					t.Error("a met write is still waited for")
				}
			}
		})
	}
}

// staticMembers hands out one real member cluster by name.
type staticMembers map[string]*Member

func (s staticMembers) Get(_ context.Context, name string) (*Member, error) {
	if m, ok := s[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("no cluster %s", name)
}

// TestBurstViewOwnWritesLab: a round's view of a burst cluster shows the
// controller's own last writes of copies even when the cluster's informers
// have not seen them. The informers are stopped after their first list (a
// store behind the cluster, as on a busy machine); the copy is then scaled
// from 2 to 0 and deleted through memberObjects, and each view read after
// a write must show it. Without the expectations the frozen store answers 2.
func TestBurstViewOwnWritesLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	raw, err := os.ReadFile(env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const cluster = "b1"
	m := &Member{Config: cfg, Client: c, Kube: kube}
	ns := fmt.Sprintf("view-writes-%06d", rand.IntN(1e6))
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	p := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: hcav1.BurstPolicySpec{PrimaryCluster: "private"}}
	src := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	objects := memberObjects{primary: c, timeout: 10 * time.Second}
	view := func() *burstView { return &burstView{name: cluster} }

	// The copy with 2 replicas, then informers that list it once and stop.
	v := view()
	v.member, v.copies = m, map[string]*appsv1.Deployment{}
	if err := objects.ensureCopy(ctx, p, v, burstDeploymentCopy(src, p.Name, "private", 2)); err != nil {
		t.Fatal(err)
	}
	w := newMemberWatches(func(context.Context, string, string) []types.NamespacedName { return nil }, time.Now)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = w.Start(wctx) }()
	for started := false; !started; time.Sleep(10 * time.Millisecond) {
		w.mu.Lock()
		started = w.base != nil
		w.mu.Unlock()
	}
	w.ensure(cluster, m)
	var mw *burstMemberWatch
	for end := time.Now().Add(30 * time.Second); mw == nil; time.Sleep(50 * time.Millisecond) {
		if mw = w.cached(cluster, cfg); mw == nil && time.Now().After(end) {
			t.Fatal("the informers did not sync")
		}
	}
	// The store must be behind the controller's own writes only: wait until
	// the Deployment controller has finished with the copy (its rollout
	// complete, so it writes no more status) and the informer shows that
	// last version. A status written after the informer stops would make the
	// next scale's resourceVersion precondition fail (a busy lab, CI).
	settled := func(d *appsv1.Deployment) bool {
		st := d.Status
		if ptr.Deref(d.Spec.Replicas, 1) != 2 || st.ObservedGeneration < d.Generation || st.Replicas != 2 || st.UpdatedReplicas != 2 || st.ReadyReplicas != 2 || st.AvailableReplicas != 2 {
			return false
		}
		for _, c := range st.Conditions {
			if c.Type == appsv1.DeploymentProgressing {
				return c.Reason == "NewReplicaSetAvailable"
			}
		}
		return false
	}
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var live appsv1.Deployment
		o, ok, _ := mw.deployments.GetIndexer().GetByKey(ns + "/web")
		if ok && settled(o.(*appsv1.Deployment)) && c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &live) == nil &&
			live.ResourceVersion == o.(*appsv1.Deployment).ResourceVersion {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the informer does not show the copy with its rollout complete")
		}
	}
	close(mw.stop)                // the store stays as it is: behind every later write
	mw.stop = make(chan struct{}) // for Start to close

	replicas := func(l burstViewLoader) int32 {
		t.Helper()
		v := view()
		l.loadOne(ctx, p, v)
		if v.err != nil {
			t.Fatal(v.err)
		}
		if d := v.copies["web"]; d != nil {
			return ptr.Deref(d.Spec.Replicas, 1)
		}
		return -1
	}
	trusting := burstViewLoader{members: staticMembers{cluster: m}, control: c, timeout: 10 * time.Second, watches: &memberWatches{watches: w.watches}}
	loader := burstViewLoader{members: staticMembers{cluster: m}, control: c, timeout: 10 * time.Second, watches: w}
	objects.expect = w.expect

	steps := []struct {
		name  string
		write func(v *burstView) error
		want  int32 // replicas in the view; -1 no copy
	}{
		{"scaled to 0", func(v *burstView) error {
			return objects.ensureCopy(ctx, p, v, burstDeploymentCopy(src, p.Name, "private", 0))
		}, 0},
		{"deleted", func(v *burstView) error { return objects.deleteCopy(ctx, v, v.copies["web"]) }, -1},
	}
	for _, s := range steps {
		v := view()
		loader.loadOne(ctx, p, v)
		if v.err != nil {
			t.Fatal(v.err)
		}
		if err := s.write(v); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := replicas(trusting); got != 2 {
			t.Fatalf("%s: the stopped informer answers %d, want the 2 it listed (the test needs a store behind the cluster)", s.name, got)
		}
		if got := replicas(loader); got != s.want {
			t.Errorf("%s: the view shows %d replicas, want %d (the controller's own write)", s.name, got, s.want)
		}
	}
}
