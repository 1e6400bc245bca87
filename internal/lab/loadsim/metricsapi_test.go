package loadsim

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// TestMetricsAPIHandler reads pod metrics as the HPA controller does, per
// cluster and label selector.
func TestMetricsAPIHandler(t *testing.T) {
	s, clk := newTestSim(t, nil)
	web, api := appKey{"shop", "web"}, appKey{"shop", "api"}
	s.setLoad(web, 75, 0.002) // 25 req/s to each of 3 pods: 0.05 cores each
	s.setLoad(api, 0, 0.002)
	pod := func(name, app string) observedPod {
		return observedPod{name: name, res: workload.PodResources{Request: 0.1, Limit: 0.1},
			labels: map[string]string{"app": app}, containers: []string{"app", "sidecar"}}
	}
	s.mu.Lock()
	s.update(s.getOrCreate(web), map[string]clusterResult{"private": {pods: []observedPod{pod("a", "web"), pod("b", "web")}},
		"burst": {pods: []observedPod{pod("c", "web")}}}, clk.Now())
	s.update(s.getOrCreate(api), map[string]clusterResult{"private": {pods: []observedPod{pod("d", "api")}}}, clk.Now())
	s.mu.Unlock()
	private, burst := serve(t, s.MetricsAPIHandler("private")), serve(t, s.MetricsAPIHandler("burst"))

	get := func(t *testing.T, url string, v any) int {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v in %s", url, err, body)
		}
		return resp.StatusCode
	}
	const pods = "/apis/metrics.k8s.io/v1beta1/namespaces/"
	tests := []struct {
		name, base, path string
		code             int
		want             []string // pod names, in order
	}{
		{"one app's pods in one cluster", private, pods + "shop/pods?labelSelector=app%3Dweb", 200, []string{"a", "b"}},
		{"no selector: every app's pods", private, pods + "shop/pods", 200, []string{"a", "b", "d"}},
		{"the other cluster sees its own pod only", burst, pods + "shop/pods?labelSelector=app%3Dweb", 200, []string{"c"}},
		{"another namespace is empty", private, pods + "other/pods", 200, []string{}},
		{"set-based selector", private, pods + "shop/pods?labelSelector=app+in+(api)", 200, []string{"d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var list podMetricsList
			if code := get(t, tt.base+tt.path, &list); code != tt.code {
				t.Fatalf("status %d, want %d", code, tt.code)
			}
			names := []string{}
			for _, it := range list.Items {
				names = append(names, it.Name)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("pods %v, want %v", names, tt.want)
			}
		})
	}

	t.Run("one pod: its CPU on its first container", func(t *testing.T) {
		var pm podMetrics
		if code := get(t, private+pods+"shop/pods/a", &pm); code != 200 {
			t.Fatalf("status %d", code)
		}
		if len(pm.Containers) != 2 || pm.Containers[0].Name != "app" || pm.Containers[1].Name != "sidecar" {
			t.Fatalf("containers %+v, want app and sidecar", pm.Containers)
		}
		cpu, side := pm.Containers[0].Usage["cpu"], pm.Containers[1].Usage["cpu"]
		if cpu.MilliValue() != 50 || side.MilliValue() != 0 {
			t.Errorf("cpu app %s sidecar %s, want 50m (25 req/s × 0.002) and 0", cpu.String(), side.String())
		}
		if pm.Window.Duration != s.opts.TickInterval {
			t.Errorf("window %v, want the tick interval %v", pm.Window.Duration, s.opts.TickInterval)
		}
	})
	t.Run("a pod of another cluster is not found", func(t *testing.T) {
		var st metav1.Status
		if code := get(t, private+pods+"shop/pods/c", &st); code != 404 || st.Reason != metav1.StatusReasonNotFound {
			t.Errorf("status %d reason %q, want 404 NotFound", code, st.Reason)
		}
	})
	t.Run("a bad selector is a 400", func(t *testing.T) {
		var st metav1.Status
		if code := get(t, private+pods+"shop/pods?labelSelector=a%3D%3D%3Db", &st); code != 400 || st.Reason != metav1.StatusReasonBadRequest {
			t.Errorf("status %d reason %q, want 400 BadRequest", code, st.Reason)
		}
	})
	t.Run("discovery lists pods", func(t *testing.T) {
		var rl metav1.APIResourceList
		if code := get(t, private+"/apis/metrics.k8s.io/v1beta1", &rl); code != 200 || rl.GroupVersion != MetricsGroupVersion ||
			len(rl.APIResources) != 1 || rl.APIResources[0].Name != "pods" {
			t.Errorf("status %d, %+v", code, rl)
		}
	})
}
