package controller

import (
	"maps"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestCacheStripPod(t *testing.T) {
	now := metav1.Now()
	prio := int32(5)
	req := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}
	always := corev1.ContainerRestartPolicyAlways
	meta := metav1.ObjectMeta{Name: "web-1", Namespace: "shop", Labels: map[string]string{"app": "web"},
		Annotations:     map[string]string{corev1.MirrorPodAnnotationKey: "x", lastApplied: "{...}"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-abc"}}, DeletionTimestamp: &now,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	in := &corev1.Pod{ObjectMeta: meta,
		Spec: corev1.PodSpec{NodeName: "n1", NodeSelector: map[string]string{"zone": "a"}, Priority: &prio,
			Tolerations: []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}},
			Affinity:    &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}},
			Overhead:    corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("10Mi")},
			Volumes:     []corev1.Volume{{Name: "token"}},
			Containers: []corev1.Container{{Name: "app", Image: "web:1", Resources: req, Env: []corev1.EnvVar{{Name: "A", Value: "b"}},
				Command: []string{"serve"}, VolumeMounts: []corev1.VolumeMount{{Name: "token"}}, ReadinessProbe: &corev1.Probe{}}},
			InitContainers: []corev1.Container{{Name: "proxy", Resources: req, RestartPolicy: &always, Args: []string{"-v"}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7", StartTime: &now,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: "web:1", ImageID: "sha256:1", RestartCount: 2,
				State: running, Resources: &req, AllocatedResources: req.Requests}}}}
	wantMeta := *meta.DeepCopy()
	delete(wantMeta.Annotations, lastApplied)
	wantMeta.ManagedFields = nil
	want := &corev1.Pod{ObjectMeta: wantMeta,
		Spec: corev1.PodSpec{NodeName: "n1", NodeSelector: map[string]string{"zone": "a"}, Priority: &prio,
			Tolerations:    []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}},
			Affinity:       &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}},
			Overhead:       corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("10Mi")},
			Containers:     []corev1.Container{{Name: "app", Image: "web:1", Resources: req}},
			InitContainers: []corev1.Container{{Name: "proxy", Resources: req, RestartPolicy: &always}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7", StartTime: &now,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: running, Resources: &req}}}}
	tomb := toolscache.DeletedFinalStateUnknown{Key: "shop/web-1"}
	for _, tc := range []struct {
		name    string
		in, out any
	}{
		{"pod keeps what the controllers read", in, want},
		{"tombstone passes unchanged", tomb, tomb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chain(cache.TransformStripManagedFields(), cacheStripPod)(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.out) {
				t.Errorf("got %#v\nwant %#v", got, tc.out)
			}
		})
	}
}

func TestCacheStripNode(t *testing.T) {
	in := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}},
		Spec: corev1.NodeSpec{Unschedulable: true, Taints: []corev1.Taint{{Key: "spot", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")},
			Conditions:   []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Images:       []corev1.ContainerImage{{Names: []string{"web:1"}, SizeBytes: 1 << 20}},
			VolumesInUse: []corev1.UniqueVolumeName{"v"}}}
	want := in.DeepCopy()
	want.Status.Images, want.Status.VolumesInUse = nil, nil
	got, err := cacheStripNode(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

// TestCacheStripPropagated: the cache keeps of ConfigMaps, Secrets and
// Services what their copies in burst clusters carry (the copy built from the
// cached object equals the copy built from the whole one) and drops the
// content of the objects every cluster makes for itself.
func TestCacheStripPropagated(t *testing.T) {
	applied := map[string]string{lastApplied: `{"kind":"ConfigMap","data":{"k":"v"}}`, "team": "web"}
	cases := []struct {
		name     string
		in, want client.Object
	}{
		{"ConfigMap loses last-applied only",
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "a", Annotations: maps.Clone(applied)}, Data: map[string]string{"k": "v"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "a", Annotations: map[string]string{"team": "web"}}, Data: map[string]string{"k": "v"}}},
		{"kube-root-ca.crt loses its data",
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "a"}, Data: map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "a"}}},
		{"Opaque Secret keeps its data",
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "a", Annotations: maps.Clone(applied)}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"p": []byte("x")}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "a", Annotations: map[string]string{"team": "web"}}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"p": []byte("x")}}},
		{"service-account token loses its data",
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tok", Namespace: "a"}, Type: corev1.SecretTypeServiceAccountToken, Data: map[string][]byte{"token": []byte("x")}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tok", Namespace: "a"}, Type: corev1.SecretTypeServiceAccountToken}},
		{"Service loses last-applied only",
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "a", Annotations: maps.Clone(applied)}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "a", Annotations: map[string]string{"team": "web"}}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			whole := tc.in.DeepCopyObject().(client.Object)
			got, err := cacheStripPropagated(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v\nwant %#v", got, tc.want)
			}
			if a, b := burstPropagatedCopy(whole, "p"), burstPropagatedCopy(got.(client.Object), "p"); !reflect.DeepEqual(a, b) {
				t.Errorf("the copy from the cached object differs from the copy of the whole one:\n%#v\n%#v", b, a)
			}
		})
	}
}
