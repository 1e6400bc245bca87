package controller

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func burstSourceDeployment() *appsv1.Deployment {
	replicas, prio := int32(10), int32(1000)
	ctrlTrue := true
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "shop", UID: "uid-1", ResourceVersion: "42", Generation: 7,
			CreationTimestamp: metav1.Now(),
			Labels:            map[string]string{"app": "web"},
			Annotations: map[string]string{
				"deployment.kubernetes.io/revision":                "3",
				"kubectl.kubernetes.io/last-applied-configuration": "{}",
				BurstTotalAnnotation:                               "10",
				BurstPrimaryAnnotation:                             "6",
				"team":                                             "payments",
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Thing", Name: "o", UID: "x", Controller: &ctrlTrue}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
			Finalizers:      []string{"example.com/keep"},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					PriorityClassName: "high", Priority: &prio,
					Containers: []corev1.Container{{Name: "app", Image: "web:1"}},
				},
			},
		},
		Status: appsv1.DeploymentStatus{ReadyReplicas: 6, ObservedGeneration: 7},
	}
}

func TestBurstDeploymentCopy(t *testing.T) {
	src := burstSourceDeployment()
	cp := burstDeploymentCopy(src, "web-burst", "private", 4)

	if cp.Name != "web" || cp.Namespace != "shop" {
		t.Errorf("copy is %s/%s, want shop/web", cp.Namespace, cp.Name)
	}
	if cp.UID != "" || cp.ResourceVersion != "" || cp.Generation != 0 || !cp.CreationTimestamp.IsZero() ||
		cp.OwnerReferences != nil || cp.ManagedFields != nil || cp.Finalizers != nil {
		t.Errorf("cluster-specific metadata copied: %+v", cp.ObjectMeta)
	}
	if cp.Status.ReadyReplicas != 0 || cp.Status.ObservedGeneration != 0 {
		t.Errorf("status copied: %+v", cp.Status)
	}
	for _, k := range []string{"deployment.kubernetes.io/revision", "kubectl.kubernetes.io/last-applied-configuration", BurstTotalAnnotation, BurstPrimaryAnnotation} {
		if _, ok := cp.Annotations[k]; ok {
			t.Errorf("annotation %s copied", k)
		}
	}
	wantLabels := map[string]string{"app": "web", BurstOfLabel: "shop.web", BurstPolicyLabel: "web-burst", BurstManagedByLabel: BurstManagedBy}
	for k, v := range wantLabels {
		if cp.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cp.Labels[k], v)
		}
	}
	if cp.Annotations["team"] != "payments" || cp.Annotations[BurstSourceAnnotation] != "private/shop/web" || cp.Annotations[BurstHashAnnotation] == "" {
		t.Errorf("annotations %v", cp.Annotations)
	}
	if *cp.Spec.Replicas != 4 {
		t.Errorf("replicas %d, want 4", *cp.Spec.Replicas)
	}
	tl := cp.Spec.Template.Labels
	if tl["app"] != "web" || tl[BurstPolicyLabel] != "web-burst" || tl[BurstOfLabel] != "shop.web" {
		t.Errorf("template labels %v", tl)
	}
	if cp.Spec.Template.Spec.PriorityClassName != "" || cp.Spec.Template.Spec.Priority != nil {
		t.Error("priority copied")
	}
	sel, _ := metav1.LabelSelectorAsSelector(cp.Spec.Selector)
	if !sel.Matches(labels.Set(tl)) {
		t.Error("the copy's selector does not match its own template")
	}
	// The source is untouched.
	if src.Spec.Template.Spec.PriorityClassName != "high" || len(src.Spec.Template.Labels) != 1 || src.Annotations[BurstTotalAnnotation] != "10" {
		t.Error("the source was modified")
	}
}

func TestBurstDeploymentNeedsUpdate(t *testing.T) {
	src := burstSourceDeployment()
	desired := burstDeploymentCopy(src, "p", "private", 3)
	changedImage := burstSourceDeployment()
	changedImage.Spec.Template.Spec.Containers[0].Image = "web:2"
	scaledSource := burstSourceDeployment()
	*scaledSource.Spec.Replicas = 99 // the source's own count does not matter

	tests := []struct {
		name   string
		actual *appsv1.Deployment
		want   bool
	}{
		{"identical", burstDeploymentCopy(src, "p", "private", 3), false},
		{"source replicas differ only", burstDeploymentCopy(scaledSource, "p", "private", 3), false},
		{"replicas differ", burstDeploymentCopy(src, "p", "private", 2), true},
		{"template changed", burstDeploymentCopy(changedImage, "p", "private", 3), true},
		{"paused by someone", func() *appsv1.Deployment {
			d := burstDeploymentCopy(src, "p", "private", 3)
			d.Spec.Paused = true
			return d
		}(), true},
		{"hash annotation removed", func() *appsv1.Deployment {
			d := burstDeploymentCopy(src, "p", "private", 3)
			delete(d.Annotations, BurstHashAnnotation)
			return d
		}(), true},
		{"server-side fields differ", func() *appsv1.Deployment {
			d := burstDeploymentCopy(src, "p", "private", 3)
			d.ResourceVersion, d.UID, d.Status.ReadyReplicas = "9", "u", 3
			return d
		}(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstDeploymentNeedsUpdate(desired, tc.actual); got != tc.want {
				t.Errorf("needs update %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBurstPropagatedCopy(t *testing.T) {
	base := metav1.ObjectMeta{Name: "cfg", Namespace: "shop", UID: "u", ResourceVersion: "5", Labels: map[string]string{"app": "web"},
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}", "a": "b"}}
	tests := []struct {
		name  string
		in    client.Object
		nilOK bool
		check func(t *testing.T, out client.Object)
	}{
		{name: "configmap", in: &corev1.ConfigMap{ObjectMeta: base, Data: map[string]string{"k": "v"}}, check: func(t *testing.T, out client.Object) {
			cm := out.(*corev1.ConfigMap)
			if cm.Data["k"] != "v" || cm.UID != "" || cm.ResourceVersion != "" {
				t.Errorf("copy %+v", cm)
			}
			if _, ok := cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; ok || cm.Annotations["a"] != "b" {
				t.Errorf("annotations %v", cm.Annotations)
			}
			if !burstOwned(cm, "pol") || cm.Labels["app"] != "web" {
				t.Errorf("labels %v", cm.Labels)
			}
		}},
		{name: "kube-root-ca.crt is per cluster", in: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "shop"}}, nilOK: true},
		{name: "service account token is per cluster", in: &corev1.Secret{ObjectMeta: base, Type: corev1.SecretTypeServiceAccountToken}, nilOK: true},
		{name: "secret", in: &corev1.Secret{ObjectMeta: base, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"p": []byte("s")}}, check: func(t *testing.T, out client.Object) {
			s := out.(*corev1.Secret)
			if string(s.Data["p"]) != "s" || s.Type != corev1.SecretTypeOpaque {
				t.Errorf("copy %+v", s)
			}
		}},
		{name: "service loses its allocated addresses and ports", in: &corev1.Service{ObjectMeta: base, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.5", ClusterIPs: []string{"10.0.0.5"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080}},
		}}, check: func(t *testing.T, out client.Object) {
			s := out.(*corev1.Service)
			if s.Spec.ClusterIP != "" || s.Spec.ClusterIPs != nil || s.Spec.IPFamilies != nil || s.Spec.Ports[0].NodePort != 0 {
				t.Errorf("allocated fields kept: %+v", s.Spec)
			}
			if s.Spec.Selector["app"] != "web" || s.Spec.Ports[0].Port != 80 || s.Spec.Type != corev1.ServiceTypeNodePort {
				t.Errorf("spec lost: %+v", s.Spec)
			}
		}},
		{name: "headless service stays headless", in: &corev1.Service{ObjectMeta: base, Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}, check: func(t *testing.T, out client.Object) {
			if out.(*corev1.Service).Spec.ClusterIP != corev1.ClusterIPNone {
				t.Error("headless lost")
			}
		}},
		{name: "the kubernetes service", in: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"}}, nilOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := burstPropagatedCopy(tc.in, "pol")
			if tc.nilOK {
				if out != nil {
					t.Fatalf("copied %T %s, want nothing", out, out.GetName())
				}
				return
			}
			if out == nil {
				t.Fatal("not copied")
			}
			if out.GetAnnotations()[BurstHashAnnotation] == "" {
				t.Error("no hash annotation")
			}
			tc.check(t, out)
		})
	}
}

func TestBurstObjectDiff(t *testing.T) {
	cm := func(name, data string) client.Object {
		return burstPropagatedCopy(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Data: map[string]string{"k": data}}, "p")
	}
	sec := func(name string) client.Object {
		return burstPropagatedCopy(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}, "p")
	}
	names := func(objs []client.Object) string {
		var s []string
		for _, o := range objs {
			k := "cm"
			if _, ok := o.(*corev1.Secret); ok {
				k = "secret"
			}
			s = append(s, k+"/"+o.GetName())
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		name                   string
		desired, actual        []client.Object
		create, update, remove string
	}{
		{"nothing", nil, nil, "", "", ""},
		{"all new", []client.Object{cm("b", "1"), cm("a", "1")}, nil, "cm/a,cm/b", "", ""},
		{"in sync", []client.Object{cm("a", "1")}, []client.Object{cm("a", "1")}, "", "", ""},
		{"changed data", []client.Object{cm("a", "2")}, []client.Object{cm("a", "1")}, "", "cm/a", ""},
		{"no longer selected", nil, []client.Object{cm("a", "1"), sec("s")}, "", "", "cm/a,secret/s"},
		{"same name, different kinds", []client.Object{cm("x", "1")}, []client.Object{sec("x")}, "cm/x", "", "secret/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, u, r := burstObjectDiff(tc.desired, tc.actual)
			if names(c) != tc.create || names(u) != tc.update || names(r) != tc.remove {
				t.Errorf("create %q update %q remove %q, want %q %q %q", names(c), names(u), names(r), tc.create, tc.update, tc.remove)
			}
		})
	}
}

func TestBurstSelected(t *testing.T) {
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Labels: map[string]string{"app": "web", "tier": "fe"}}}
	tests := []struct {
		name string
		sel  *hcav1.ObjectSelector
		want bool
	}{
		{"nil", nil, false},
		{"by name", &hcav1.ObjectSelector{Names: []hcav1.ObjectName{"other", "cfg"}}, true},
		{"other name", &hcav1.ObjectSelector{Names: []hcav1.ObjectName{"other"}}, false},
		{"by labels", &hcav1.ObjectSelector{MatchLabels: map[string]string{"app": "web"}}, true},
		{"labels must all match", &hcav1.ObjectSelector{MatchLabels: map[string]string{"app": "web", "tier": "be"}}, false},
		{"name or labels", &hcav1.ObjectSelector{Names: []hcav1.ObjectName{"x"}, MatchLabels: map[string]string{"tier": "fe"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstSelected(tc.sel, obj); got != tc.want {
				t.Errorf("selected %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBurstLabelValue(t *testing.T) {
	long := strings.Repeat("a", 40) + "." + strings.Repeat("b", 40)
	long2 := strings.Repeat("a", 40) + "." + strings.Repeat("b", 39) + "c"
	tests := []struct{ in, want string }{
		{"shop.web", "shop.web"},
		{strings.Repeat("x", 63), strings.Repeat("x", 63)},
	}
	for _, tc := range tests {
		if got := burstLabelValue(tc.in); got != tc.want {
			t.Errorf("burstLabelValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a, b := burstLabelValue(long), burstLabelValue(long2)
	if len(a) > 63 || len(b) > 63 || a == b {
		t.Errorf("long values %q and %q: want distinct, at most 63 characters", a, b)
	}
	if a != burstLabelValue(long) {
		t.Error("not deterministic")
	}
}

func TestBurstPrimaryPatch(t *testing.T) {
	six := int32(6)
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		moving string
		ignore bool // the requested total is ignored (a conflict of totals)
		want   string
	}{
		{"a move back starts", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}, Spec: appsv1.DeploymentSpec{Replicas: &six}}, "2@2026-03-01T12:00:00Z", false,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-moving-back","value":"2@2026-03-01T12:00:00Z"}]`},
		{"a move back ends", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BurstMovingBackAnnotation: "2@2026-03-01T12:00:00Z"}}, Spec: appsv1.DeploymentSpec{Replicas: &six}}, "", false,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"test","path":"/metadata/annotations/hca.dev~1burst-moving-back","value":"2@2026-03-01T12:00:00Z"},{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"},` +
				`{"op":"remove","path":"/metadata/annotations/hca.dev~1burst-moving-back"}]`},
		{"the controller's annotations as read are tested", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BurstPrimaryAnnotation: "6", BurstTotalAnnotation: "8"}}, Spec: appsv1.DeploymentSpec{Replicas: &six}}, "", false,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"test","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"6"},{"op":"test","path":"/metadata/annotations/hca.dev~1burst-total","value":"8"},` +
				`{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"}]`},
		{"annotated", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}, Spec: appsv1.DeploymentSpec{Replicas: &six}}, "", false,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"}]`},
		{"no annotations yet", &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &six}}, "", false,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations","value":{"hca.dev/burst-primary-replicas":"4","hca.dev/burst-total":"6"}}]`},
		{"a requested total is taken", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BurstRequestedTotalAnnotation: "6"}}, Spec: appsv1.DeploymentSpec{Replicas: &six}}, "", false,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"},` +
				`{"op":"test","path":"/metadata/annotations/hca.dev~1burst-requested-total","value":"6"},{"op":"remove","path":"/metadata/annotations/hca.dev~1burst-requested-total"}]`},
		{"an ignored requested total stays", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BurstRequestedTotalAnnotation: "3"}}, Spec: appsv1.DeploymentSpec{Replicas: &six}}, "", true,
			`[{"op":"test","path":"/spec/replicas","value":6},{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"}]`},
		{"replicas unset (1)", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{}}}, "", false,
			`[{"op":"add","path":"/spec/replicas","value":4},` +
				`{"op":"add","path":"/metadata/annotations/hca.dev~1burst-primary-replicas","value":"4"},{"op":"add","path":"/metadata/annotations/hca.dev~1burst-total","value":"6"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(burstPrimaryPatch(tc.d, 4, 6, tc.moving, !tc.ignore))
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.want {
				t.Errorf("patch\n%s\nwant\n%s", raw, tc.want)
			}
		})
	}
}

func TestBurstMovingBack(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, value string
		present     bool
		want        int32
		since       time.Time
	}{
		{"absent", "", false, 0, time.Time{}},
		{"written by the controller", burstMovingBackValue(3, at), true, 3, at},
		{"no time", "3", true, 0, time.Time{}},
		{"not a number", "x@2026-03-01T12:00:00Z", true, 0, time.Time{}},
		{"negative", "-1@2026-03-01T12:00:00Z", true, 0, time.Time{}},
		{"bad time", "3@yesterday", true, 0, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &appsv1.Deployment{}
			if tc.present {
				d.Annotations = map[string]string{BurstMovingBackAnnotation: tc.value}
			}
			got, since := burstMovingBack(d)
			if got != tc.want || !since.Equal(tc.since) {
				t.Errorf("burstMovingBack(%q) = %d, %v; want %d, %v", tc.value, got, since, tc.want, tc.since)
			}
		})
	}
}
