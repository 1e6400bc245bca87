package lab_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

func TestLocalRuntimeArgs(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr string
	}{
		{
			name: "installed defaults",
			in:   []string{"run", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081", "--log-level=info", "--prometheus-url=http://p:9090"},
			want: []string{"run", "--kubeconfig=/k", "--metrics-bind-address=127.0.0.1:1001", "--health-probe-bind-address=127.0.0.1:1002", "--log-level=info", "--prometheus-url=http://p:9090"},
		},
		{
			name: "a kubeconfig in the args is replaced",
			in:   []string{"run", "--kubeconfig=/in/cluster", "--leader-elect=true"},
			want: []string{"run", "--kubeconfig=/k", "--metrics-bind-address=127.0.0.1:1001", "--health-probe-bind-address=127.0.0.1:1002", "--leader-elect=true"},
		},
		{name: "not the runtime", in: []string{"serve"}, wantErr: "do not start with the run command"},
		{name: "no args", in: nil, wantErr: "do not start with the run command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lab.LocalRuntimeArgs(tt.in, "/k", 1001, 1002)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestStartRuntime installs the runtime's manifests into a lab cluster of its
// own (so that it acts on nothing of other tests), runs the Deployment as a
// local process and sees it do its job: a HybridCluster registered with the
// cluster's own kubeconfig is probed and becomes Reachable. StopRuntime ends
// the process.
func TestContainerEnv(t *testing.T) {
	secrets := map[string]string{"hca-runtime-alicloud/id": "LTAIexample", "hca-runtime-alicloud/secret": "s3cr3t"}
	get := func(name, key string) (string, error) {
		if v, ok := secrets[name+"/"+key]; ok {
			return v, nil
		}
		return "", fmt.Errorf("secrets %q not found", name)
	}
	ref := func(name, key string, optional bool) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: &optional}}
	}
	tests := []struct {
		name    string
		env     []corev1.EnvVar
		want    []string
		wantErr string
	}{
		{name: "none"},
		{name: "literal and secret keys, in order",
			env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "ALIBABA_CLOUD_ACCESS_KEY_ID", ValueFrom: ref("hca-runtime-alicloud", "id", false)},
				{Name: "ALIBABA_CLOUD_ACCESS_KEY_SECRET", ValueFrom: ref("hca-runtime-alicloud", "secret", false)}},
			want: []string{"A=1", "ALIBABA_CLOUD_ACCESS_KEY_ID=LTAIexample", "ALIBABA_CLOUD_ACCESS_KEY_SECRET=s3cr3t"}},
		{name: "a missing optional key is left out",
			env:  []corev1.EnvVar{{Name: "X", ValueFrom: ref("gone", "k", true)}, {Name: "B", Value: ""}},
			want: []string{"B="}},
		{name: "a missing required key stops the start, as the kubelet",
			env:     []corev1.EnvVar{{Name: "X", ValueFrom: ref("gone", "k", false)}},
			wantErr: "env X from secret gone key k"},
		{name: "a field reference is refused by name",
			env:     []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			wantErr: "env POD: only literal values and secretKeyRef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lab.ContainerEnv(corev1.Container{Env: tt.env}, get)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("env = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStartRuntime(t *testing.T) {
	clusters := labtest.Clusters(t)
	root := labtest.RepoRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	name := fmt.Sprintf("rt%d", rand.IntN(1e6))
	info, err := clusters.CreateCluster(ctx, lab.ClusterSpec{Name: name, Pools: []lab.NodePool{{Name: "default", Count: 1, CPU: "4", Memory: "8Gi"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clusters.DeleteCluster(context.Background(), name) })

	cfg, err := clientcmd.BuildConfigFromFlags("", info.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = hcav1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := config.Objects(config.Options{Image: "hca-runtime:lab", ProbeInterval: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := config.Apply(ctx, c, objs); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "hca-runtime")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./runtime/cmd/hca-runtime")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build hca-runtime: %v\n%s", err, out)
	}
	l := lab.New(t.TempDir(), &lab.Binaries{RepoDir: root}, nil, nil)
	p, err := l.StartRuntime(ctx, lab.LocalRuntime{Binary: bin, Kubeconfig: info.KubeconfigPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.StopRuntime() })
	if !slices.Contains(p.Args, "--cluster-probe-interval=2s") || !slices.Contains(p.Args, "--kubeconfig="+info.KubeconfigPath) {
		t.Errorf("process args %q lack the Deployment's probe interval or the kubeconfig", p.Args)
	}

	raw, err := os.ReadFile(info.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "self", Namespace: "hca-system"}, Data: map[string][]byte{"kubeconfig": raw}}); err != nil {
		t.Fatal(err)
	}
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: "self"}, Spec: hcav1.HybridClusterSpec{Role: hcav1.RolePrimary, Provider: hcav1.ProviderPrivate,
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "hca-system", Name: "self"}}}}
	if err := c.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	var last string
	for {
		if err := c.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
			t.Fatal(err)
		}
		cond := meta.FindStatusCondition(hc.Status.Conditions, hcav1.ConditionReachable)
		if cond != nil && cond.Status == metav1.ConditionTrue {
			break
		}
		last = fmt.Sprintf("%+v", cond)
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(p.Log)
			t.Fatalf("the HybridCluster never became Reachable (last %s); runtime log:\n%s", last, log)
		case <-time.After(200 * time.Millisecond):
		}
	}

	var health string
	for _, a := range p.Args {
		if v, ok := strings.CutPrefix(a, "--health-probe-bind-address="); ok {
			health = "http://" + v + "/healthz"
		}
	}
	if resp, err := http.Get(health); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz %s before StopRuntime: %v", health, err)
	}
	if err := l.StopRuntime(); err != nil {
		t.Fatal(err)
	}
	// StopRuntime returns once the process is gone (a zombie not yet reaped
	// by this test process counts as gone): nothing answers on its port.
	if resp, err := http.Get(health); err == nil {
		resp.Body.Close()
		t.Errorf("hca-runtime pid %d still answers %s after StopRuntime", p.PID, health)
	}
}
