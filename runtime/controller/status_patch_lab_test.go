package controller

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

// answers records the content type and length of every PATCH answer.
type answers struct {
	rt http.RoundTripper
	mu sync.Mutex
	ct []string
	n  []int64
}

func (a *answers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.rt.RoundTrip(r)
	if err == nil && r.Method == http.MethodPatch {
		a.mu.Lock()
		a.ct = append(a.ct, resp.Header.Get("Content-Type"))
		a.n = append(a.n, resp.ContentLength)
		a.mu.Unlock()
	}
	return resp, err
}

func (a *answers) reset() {
	a.mu.Lock()
	a.ct, a.n = nil, nil
	a.mu.Unlock()
}

// checkMetadataAnswer: one PATCH was answered, with the object's metadata
// alone. A custom resource's whole object comes back as JSON (custom
// resources have no protobuf form); its PartialObjectMetadata as protobuf,
// a few hundred bytes.
func checkMetadataAnswer(t *testing.T, a *answers) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.ct) != 1 || a.ct[0] != "application/vnd.kubernetes.protobuf" || a.n[0] > 1024 {
		t.Errorf("PATCH answers %q of %v bytes, want one, a protobuf PartialObjectMetadata under 1 kB", a.ct, a.n)
	}
}

// TestWriteStatusLab: writeStatus writes a status through the lab's API
// server, with and without the optimistic lock, and the server answers with
// the object's metadata alone (as=PartialObjectMetadata), not the whole
// object; the object written gets the new resourceVersion, and a lock on a
// stale one is refused.
func TestWriteStatusLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	rec := &answers{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.rt = rt; return rec })
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := hcav1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("write-status-%d", time.Now().UnixNano()%1e9)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	s := &hcav1.ServiceLevelObjective{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: hcav1.ServiceLevelObjectiveSpec{
			Target:             hcav1.TargetRef{Kind: hcav1.WorkloadDeployment, Name: "web"},
			ElasticityStrategy: hcav1.ElasticityStrategy{Kind: hcav1.StrategyHorizontal, Horizontal: &hcav1.HorizontalStaticConfig{MinReplicas: 1, MaxReplicas: 3}},
			SLO:                hcav1.SLOSpec{Type: hcav1.SLOCustom, Custom: &hcav1.CustomSLO{Query: `vector(1)`, TargetValue: resource.MustParse("2")}},
		}}
	if err := c.Create(ctx, s); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		locked bool
	}{
		{"merge patch", false},
		{"merge patch over the version read", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got hcav1.ServiceLevelObjective
			if err := c.Get(ctx, client.ObjectKeyFromObject(s), &got); err != nil {
				t.Fatal(err)
			}
			before := got.DeepCopy()
			got.Status.CompliancePercent = ptr.To(int32(40 + i))
			got.Status.CurrentValue = "0.5"
			p := statusMergeFrom(before.Status, got.Status)
			if tt.locked {
				p = statusMergeFromLocked(before.Status, got.Status, before.ResourceVersion)
			}
			rec.reset()
			if err := writeStatus(ctx, c, &got, p); err != nil {
				t.Fatalf("writeStatus: %v", err)
			}
			var after hcav1.ServiceLevelObjective
			if err := c.Get(ctx, client.ObjectKeyFromObject(s), &after); err != nil {
				t.Fatal(err)
			}
			if after.Status.CompliancePercent == nil || *after.Status.CompliancePercent != int32(40+i) || after.Status.CurrentValue != "0.5" {
				t.Errorf("status read back %+v, want compliance %d and value 0.5", after.Status, 40+i)
			}
			if got.ResourceVersion != after.ResourceVersion || got.ResourceVersion == before.ResourceVersion {
				t.Errorf("resourceVersion after the write %q, want the new one %q (was %q)", got.ResourceVersion, after.ResourceVersion, before.ResourceVersion)
			}
			checkMetadataAnswer(t, rec)
			if tt.locked {
				stale := before.DeepCopy()
				stale.Status.CompliancePercent = ptr.To(int32(99))
				err := writeStatus(ctx, c, stale, statusMergeFromLocked(before.Status, stale.Status, before.ResourceVersion))
				if err == nil || !strings.Contains(err.Error(), "the object has been modified") {
					t.Errorf("write over the stale version %s: %v, want a conflict", before.ResourceVersion, err)
				}
			}
		})
	}

	// A patch that changes nothing is not sent, unless it carries a lock
	// for the API server to check.
	t.Run("unchanged status", func(t *testing.T) {
		for _, locked := range []bool{false, true} {
			var got hcav1.ServiceLevelObjective
			if err := c.Get(ctx, client.ObjectKeyFromObject(s), &got); err != nil {
				t.Fatal(err)
			}
			p := statusMergeFrom(got.Status, got.Status)
			if locked {
				p = statusMergeFromLocked(got.Status, got.Status, "1")
			}
			rv := got.ResourceVersion
			rec.reset()
			err := writeStatus(ctx, c, &got, p)
			rec.mu.Lock()
			sent := len(rec.ct)
			rec.mu.Unlock()
			switch {
			case !locked && (err != nil || sent != 0 || got.ResourceVersion != rv):
				t.Errorf("unchanged status: %v, %d PATCH requests, resourceVersion %q (was %q); want no request and nothing changed", err, sent, got.ResourceVersion, rv)
			case locked && (sent != 1 || err == nil || !strings.Contains(err.Error(), "the object has been modified")):
				t.Errorf("unchanged status locked on a stale version: %v after %d PATCH requests, want one request refused with a conflict", err, sent)
			}
		}
	})

	t.Run("object patch", func(t *testing.T) {
		var got hcav1.ServiceLevelObjective
		if err := c.Get(ctx, client.ObjectKeyFromObject(s), &got); err != nil {
			t.Fatal(err)
		}
		before := got.DeepCopy()
		got.Labels = map[string]string{"hca.dev/test": "lean"}
		rec.reset()
		if err := patchLean(ctx, c, &got, client.MergeFrom(before), false); err != nil {
			t.Fatalf("patchLean: %v", err)
		}
		var after hcav1.ServiceLevelObjective
		if err := c.Get(ctx, client.ObjectKeyFromObject(s), &after); err != nil {
			t.Fatal(err)
		}
		if after.Labels["hca.dev/test"] != "lean" || after.Spec.SLO.Custom == nil || after.Spec.SLO.Custom.Query != "vector(1)" {
			t.Errorf("read back labels %v, spec %+v: want the label added and the spec kept", after.Labels, after.Spec.SLO)
		}
		if got.ResourceVersion != after.ResourceVersion {
			t.Errorf("resourceVersion after the write %q, want %q", got.ResourceVersion, after.ResourceVersion)
		}
		checkMetadataAnswer(t, rec)
	})
}
