package controller_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestCacheConfigMapsLab: the manager's cache, built from CacheOptions against
// the lab's API server, lists a namespace's own ConfigMaps and leaves out its
// kube-root-ca.crt (the API server accepts the field selector; a ConfigMap
// that is not kube-root-ca.crt is never lost to it).
func TestCacheConfigMapsLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := newSLOLab(t, ctx)
	ns := l.namespace(t, ctx, "cache-cm")
	for _, name := range []string{"app", "kube-root-ca"} {
		if err := l.c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"k": "v"}}); err != nil {
			t.Fatal(err)
		}
	}
	// The lab runs no kube-controller-manager to publish the root CA: the
	// test puts one where the control plane would.
	root := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: ns}, Data: map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----"}}
	if err := l.c.Create(ctx, root); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	c, err := cache.New(l.cfg, controller.CacheOptionsIn(ns))
	if err != nil {
		t.Fatal(err)
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = c.Start(cctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not start")
	}
	var got []string
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var cms corev1.ConfigMapList
		if err := c.List(ctx, &cms, client.InNamespace(ns)); err != nil {
			t.Fatalf("list ConfigMaps from the cache: %v", err)
		}
		got = got[:0]
		for _, cm := range cms.Items {
			got = append(got, cm.Name)
		}
		slices.Sort(got)
		if len(got) >= 2 || time.Now().After(end) {
			break
		}
	}
	if want := []string{"app", "kube-root-ca"}; !slices.Equal(got, want) {
		t.Errorf("cached ConfigMaps %v, want %v (kube-root-ca.crt left out)", got, want)
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app"}, &cm); err != nil || cm.Data["k"] != "v" {
		t.Errorf("get app from the cache: %+v, %v; want its data", cm.Data, err)
	}
}
