package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

func TestObjects(t *testing.T) {
	tests := []struct {
		name     string
		opts     config.Options
		wantErr  string
		wantArgs []string
		noArgs   []string
	}{
		{"defaults", config.Options{Image: "hca-runtime:dev"}, "", []string{"run", "--log-level=info"}, []string{"--leader-elect=true"}},
		{"irsa annotation", config.Options{Image: "i", ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/hca"}}, "", nil, nil},
		{"ha with prometheus and consul", config.Options{Image: "i", Replicas: 2, PrometheusURL: "http://prom:9090", ConsulAddr: "consul:8500", LogLevel: "debug"}, "",
			[]string{"--leader-elect=true", "--leader-election-namespace=hca-system", "--prometheus-url=http://prom:9090", "--consul-addr=consul:8500", "--log-level=debug"}, nil},
		{"eks access and intervals", config.Options{Image: "i", AWSRegion: "eu-west-1", EKSEndpoint: "http://127.0.0.1:9000", STSEndpoint: "http://127.0.0.1:9001", ProbeInterval: 5 * time.Second, ControlInterval: 2 * time.Second}, "",
			[]string{"--aws-region=eu-west-1", "--eks-endpoint=http://127.0.0.1:9000", "--sts-endpoint=http://127.0.0.1:9001", "--cluster-probe-interval=5s", "--burst-metrics-interval=2s"}, nil},
		{"runtime defaults for what is unset", config.Options{Image: "i"}, "", nil,
			[]string{"--aws-region", "--eks-endpoint", "--sts-endpoint", "--cluster-probe-interval", "--burst-metrics-interval"}},
		{"negative interval", config.Options{Image: "i", ControlInterval: -time.Second}, "must not be negative", nil, nil},
		{"no image", config.Options{}, "image is empty", nil, nil},
		{"bad namespace", config.Options{Image: "i", Namespace: "HCA"}, `namespace "HCA" is not a DNS label`, nil, nil},
		{"bad log level", config.Options{Image: "i", LogLevel: "trace"}, `log level "trace"`, nil, nil},
		{"negative replicas", config.Options{Image: "i", Replicas: -1}, "replicas -1 is negative", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := config.Objects(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var dep *appsv1.Deployment
			kinds := []string{}
			for _, o := range objs {
				kinds = append(kinds, fmt.Sprintf("%T", o))
				if d, ok := o.(*appsv1.Deployment); ok {
					dep = d
				}
			}
			if dep == nil {
				t.Fatalf("no Deployment among %v", kinds)
			}
			args := dep.Spec.Template.Spec.Containers[0].Args
			for _, a := range tt.wantArgs {
				if !slices.Contains(args, a) {
					t.Errorf("args %v lack %q", args, a)
				}
			}
			for _, a := range tt.noArgs {
				if slices.ContainsFunc(args, func(arg string) bool { return strings.HasPrefix(arg, a) }) {
					t.Errorf("args %v should not have %q", args, a)
				}
			}
			for _, o := range objs {
				if sa, ok := o.(*corev1.ServiceAccount); ok && !maps.Equal(sa.Annotations, tt.opts.ServiceAccountAnnotations) {
					t.Errorf("service account annotations %v, want %v", sa.Annotations, tt.opts.ServiceAccountAnnotations)
				}
			}
			if _, ok := objs[0].(*corev1.Namespace); !ok {
				t.Errorf("first object is %T, want the Namespace (apply order)", objs[0])
			}
		})
	}
}

func TestClusterRoleIsLeastPrivilege(t *testing.T) {
	role, err := config.ClusterRole()
	if err != nil {
		t.Fatal(err)
	}
	if len(role.Rules) == 0 {
		t.Fatal("generated ClusterRole has no rules")
	}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v == "*" {
				t.Errorf("rule %+v grants every verb", r)
			}
		}
		for _, res := range r.Resources {
			if res == "*" {
				t.Errorf("rule %+v grants every resource", r)
			}
			if (res == "secrets" || res == "clusterroles" || res == "clusterrolebindings") && (slices.Contains(r.Verbs, "create") || slices.Contains(r.Verbs, "update") || slices.Contains(r.Verbs, "delete")) {
				t.Errorf("rule %+v writes %s in the control cluster; the runtime only reads them", r, res)
			}
		}
	}
}

// TestInstalledRBACSuffices applies the install to the lab's private cluster and
// runs the hybrid cluster prober impersonating the runtime's service account: the
// generated role must let it do its work, and nothing more is granted.
func TestInstalledRBACSuffices(t *testing.T) {
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
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = hcav1.AddToScheme(scheme)
	admin, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("hca-rbac-%d", rand.IntN(1e6))
	objs, err := config.Objects(config.Options{Namespace: ns, Image: "hca-runtime:test"})
	if err != nil {
		t.Fatal(err)
	}
	// A ClusterRole per test namespace so parallel runs do not fight over one.
	for _, o := range objs {
		switch v := o.(type) {
		case *rbacv1.ClusterRole:
			v.Name = ns
		case *rbacv1.ClusterRoleBinding:
			v.Name, v.RoleRef.Name = ns, ns
		}
	}
	if err := config.Apply(ctx, admin, objs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bg := context.Background()
		_ = admin.Delete(bg, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		_ = admin.Delete(bg, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		_ = admin.Delete(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	// Applying again is a no-op (idempotent install).
	if err := config.Apply(ctx, admin, objs); err != nil {
		t.Fatalf("second apply: %v", err)
	}

	raw, _ := os.ReadFile(env["HCA_LAB_PRIVATE_KUBECONFIG"])
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "private", Namespace: ns}, Data: map[string][]byte{"kubeconfig": raw}}
	if err := admin.Create(ctx, sec); err != nil {
		t.Fatal(err)
	}
	hcName := ns + "-private"
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: hcName, Labels: map[string]string{controller.ClassLabel: ns}}, Spec: hcav1.HybridClusterSpec{Role: hcav1.RolePrimary, Provider: hcav1.ProviderPrivate,
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: ns, Name: "private"}}}}
	if err := admin.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), hc) })

	sa := rest.CopyConfig(cfg)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + config.Name}
	saClient, err := client.New(sa, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	// Not granted: writing Secrets or RBAC (no escalation), deleting Deployments.
	if err := saClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}}); err == nil {
		t.Error("the runtime's service account can create Secrets")
	}
	if err := saClient.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-escalate"}}); err == nil {
		t.Error("the runtime's service account can create ClusterRoles")
	}
	if err := saClient.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: config.Name, Namespace: ns}}); err == nil {
		t.Error("the runtime's service account can delete Deployments")
	}
	mgr, err := ctrl.NewManager(sa, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &controller.HybridClusterReconciler{Client: mgr.GetClient(), Clock: clock.RealClock{}, Interval: time.Second, Recorder: mgr.GetEventRecorder("hca-runtime"), Class: ns,
		Members: &controller.Members{Control: mgr.GetAPIReader(), Options: client.Options{Scheme: scheme}}}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = mgr.Start(mctx) }()
	for {
		var got hcav1.HybridCluster
		if err := admin.Get(ctx, types.NamespacedName{Name: hcName}, &got); err != nil {
			t.Fatal(err)
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionReachable); c != nil {
			if c.Status != metav1.ConditionTrue {
				t.Fatalf("prober under the runtime's RBAC: %s: %s", c.Reason, c.Message)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the prober, running as the runtime's service account, never wrote status (missing RBAC?)")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestObjectsAlicloud: the AccessKey lands in a Secret applied before the
// Deployment, which references it by env valueFrom; neither the key ID nor
// the secret appears anywhere in the Deployment.
func TestObjectsAlicloud(t *testing.T) {
	const id, secret = "LTAI5tTESTKEYID0000001", "s3cr3tAccessKeySecretValue000001"
	objs, err := config.Objects(config.Options{Image: "i", AutoScalingEndpoint: "http://127.0.0.1:9002",
		Alicloud: &config.Alicloud{AccessKeyID: id, AccessKeySecret: secret, Endpoint: "http://127.0.0.1:9003"}})
	if err != nil {
		t.Fatal(err)
	}
	secretAt, depAt := -1, -1
	var dep *appsv1.Deployment
	for i, o := range objs {
		switch x := o.(type) {
		case *corev1.Secret:
			secretAt = i
			if x.Name != config.AlicloudSecretName || x.Namespace != "hca-system" || string(x.Data[config.AlicloudKeyIDKey]) != id || string(x.Data[config.AlicloudKeySecretKey]) != secret {
				t.Errorf("secret %s/%s with keys %v, want %s/hca-system holding the key", x.Namespace, x.Name, slices.Sorted(maps.Keys(x.Data)), config.AlicloudSecretName)
			}
		case *appsv1.Deployment:
			depAt, dep = i, x
		}
	}
	if secretAt < 0 || depAt < 0 || secretAt > depAt {
		t.Fatalf("secret at %d, deployment at %d: want the Secret applied before the Deployment", secretAt, depAt)
	}
	raw, err := json.Marshal(dep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), id) || strings.Contains(string(raw), secret) {
		t.Errorf("the Deployment spec holds the AccessKey: %s", raw)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	for _, a := range []string{"--ack-endpoint=http://127.0.0.1:9003", "--autoscaling-endpoint=http://127.0.0.1:9002"} {
		if !slices.Contains(ctr.Args, a) {
			t.Errorf("args %v lack %q", ctr.Args, a)
		}
	}
	want := map[string]string{"ALIBABA_CLOUD_ACCESS_KEY_ID": config.AlicloudKeyIDKey, "ALIBABA_CLOUD_ACCESS_KEY_SECRET": config.AlicloudKeySecretKey}
	for _, e := range ctr.Env {
		if e.Name == "GOMEMLIMIT" {
			continue // no secret (TestObjectsGoMemLimit)
		}
		if r := e.ValueFrom; r == nil || r.SecretKeyRef == nil || r.SecretKeyRef.Name != config.AlicloudSecretName || r.SecretKeyRef.Key != want[e.Name] {
			t.Errorf("env %s = %+v, want a reference to %s key %s", e.Name, e.ValueFrom, config.AlicloudSecretName, want[e.Name])
		}
		delete(want, e.Name)
	}
	if len(want) > 0 {
		t.Errorf("env lacks %v", want)
	}
	// A new key changes the pod template (the pods roll); the same key does not.
	again, _ := config.Objects(config.Options{Image: "i", AutoScalingEndpoint: "http://127.0.0.1:9002",
		Alicloud: &config.Alicloud{AccessKeyID: id, AccessKeySecret: secret, Endpoint: "http://127.0.0.1:9003"}})
	rotated, _ := config.Objects(config.Options{Image: "i", AutoScalingEndpoint: "http://127.0.0.1:9002",
		Alicloud: &config.Alicloud{AccessKeyID: id, AccessKeySecret: secret + "x", Endpoint: "http://127.0.0.1:9003"}})
	sum := func(objs []any) string {
		for _, o := range objs {
			if d, ok := o.(*appsv1.Deployment); ok {
				return d.Spec.Template.Annotations[config.AlicloudChecksumAnnotation]
			}
		}
		return ""
	}
	if sum(objs) == "" || sum(objs) != sum(again) || sum(objs) == sum(rotated) {
		t.Errorf("checksums %q, %q (same key), %q (new key): want equal for the same key, different for a new one", sum(objs), sum(again), sum(rotated))
	}

	if _, err := config.Objects(config.Options{Image: "i", Alicloud: &config.Alicloud{AccessKeyID: id}}); err == nil || !strings.Contains(err.Error(), "alicloud access key ID and secret are both required") {
		t.Errorf("half a key: %v, want the both-required error", err)
	}
}

func TestGoMemLimit(t *testing.T) {
	mem := func(q string) *corev1.ResourceRequirements {
		return &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(q)}}
	}
	tests := []struct {
		name   string
		res    *corev1.ResourceRequirements
		want   string
		wantOK bool
	}{
		// 256 Mi = 268435456 bytes: the 40 MiB reserve (41943040) is more
		// than a tenth.
		{"256Mi", mem("256Mi"), "226492416", true},
		// 300 Mi = 314572800 bytes, less 40 MiB: 260 Mi.
		{"300Mi", mem("300Mi"), "272629760", true},
		// 1 Gi = 1073741824: a tenth (107374182) is more than 40 MiB.
		{"1Gi", mem("1Gi"), "966367642", true},
		// 128 Mi = 134217728: 40 MiB would be more than a quarter
		// (33554432), so a quarter.
		{"128Mi", mem("128Mi"), "100663296", true},
		// 64 Mi = 67108864: a quarter, 16777216.
		{"64Mi", mem("64Mi"), "50331648", true},
		{"cpu limit only", &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}, "", false},
		{"no resources", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := config.GoMemLimit(tt.res)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("GoMemLimit = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestObjectsGoMemLimit: the runtime container's environment carries
// GOMEMLIMIT for its memory limit (the default one too), and none without a
// memory limit.
func TestObjectsGoMemLimit(t *testing.T) {
	tests := []struct {
		name string
		res  *corev1.ResourceRequirements
		want string // "" for no GOMEMLIMIT
	}{
		{"default 256Mi limit", nil, "226492416"},
		{"512Mi", &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}, "483183821"},
		{"requests only", &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := config.Objects(config.Options{Image: "i", Resources: tt.res})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, o := range objs {
				if d, ok := o.(*appsv1.Deployment); ok {
					for _, e := range d.Spec.Template.Spec.Containers[0].Env {
						if e.Name == "GOMEMLIMIT" {
							got = e.Value
						}
					}
				}
			}
			if got != tt.want {
				t.Errorf("GOMEMLIMIT = %q, want %q", got, tt.want)
			}
		})
	}
}
