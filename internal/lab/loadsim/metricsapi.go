package loadsim

import (
	"net/http"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// MetricsGroupVersion is the resource metrics API MetricsAPIHandler serves.
const MetricsGroupVersion = "metrics.k8s.io/v1beta1"

// podMetrics is metrics.k8s.io/v1beta1 PodMetrics (k8s.io/metrics' type,
// spelled out here: the lab needs its JSON only).
type podMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Timestamp         metav1.Time        `json:"timestamp"`
	Window            metav1.Duration    `json:"window"`
	Containers        []containerMetrics `json:"containers"`
}

type containerMetrics struct {
	Name  string                       `json:"name"`
	Usage map[string]resource.Quantity `json:"usage"`
}

type podMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []podMetrics `json:"items"`
}

// MetricsAPIHandler serves the resource metrics API (metrics.k8s.io/v1beta1,
// what metrics-server serves from the kubelets) for the pods the Sim sees in
// cluster, so that a real HPA controller in a lab cluster scales on the
// simulated CPU usage. Register it in the cluster as an APIService whose
// Service is an ExternalName pointing at the handler's TLS listener.
//
//	GET /apis, /apis/metrics.k8s.io, /apis/metrics.k8s.io/v1beta1   discovery
//	GET /apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods     PodMetricsList (?labelSelector=)
//	GET /apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods/{name}
//
// A pod's usage is its CPU (cores) and working set (MiB) at the last tick,
// all on its first container (the HPA sums a pod's containers); the sample's
// window is the tick interval. Only Ready pods of registered apps have
// metrics, as metrics-server has none for pods that have not started.
func (s *Sim) MetricsAPIHandler(cluster string) http.Handler {
	mux := http.NewServeMux()
	group := metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: "metrics.k8s.io",
		Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: MetricsGroupVersion, Version: "v1beta1"}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: MetricsGroupVersion, Version: "v1beta1"}}
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{group}})
	})
	mux.HandleFunc("GET /apis/metrics.k8s.io", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, group)
	})
	mux.HandleFunc("GET /apis/metrics.k8s.io/v1beta1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: MetricsGroupVersion,
			APIResources: []metav1.APIResource{{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}}}})
	})
	mux.HandleFunc("GET /apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods", func(w http.ResponseWriter, r *http.Request) {
		sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
		if err != nil {
			writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "labelSelector: "+err.Error())
			return
		}
		items := s.podMetrics(cluster, r.PathValue("namespace"), "", sel)
		writeJSON(w, http.StatusOK, podMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: MetricsGroupVersion}, Items: items})
	})
	mux.HandleFunc("GET /apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods/{name}", func(w http.ResponseWriter, r *http.Request) {
		items := s.podMetrics(cluster, r.PathValue("namespace"), r.PathValue("name"), labels.Everything())
		if len(items) == 0 {
			writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "podmetrics.metrics.k8s.io \""+r.PathValue("name")+"\" not found")
			return
		}
		writeJSON(w, http.StatusOK, items[0])
	})
	return mux
}

// writeStatus writes a Kubernetes Status error, as API clients expect.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	writeJSON(w, code, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Code: int32(code), Reason: reason, Message: msg})
}

// podMetrics lists the metrics of the pods of cluster in namespace that
// match sel (and are named name, unless name is empty), sorted by name.
func (s *Sim) podMetrics(cluster, namespace, name string, sel labels.Selector) []podMetrics {
	s.mu.RLock()
	defer s.mu.RUnlock()
	at := s.tickAt
	if at.IsZero() {
		at = s.clk.Now()
	}
	items := []podMetrics{}
	for k, a := range s.apps {
		if k.namespace != namespace {
			continue
		}
		for pk, p := range a.pods {
			if pk.cluster != cluster || (name != "" && pk.pod != name) || !sel.Matches(labels.Set(p.labels)) {
				continue
			}
			pm := podMetrics{TypeMeta: metav1.TypeMeta{Kind: "PodMetrics", APIVersion: MetricsGroupVersion},
				ObjectMeta: metav1.ObjectMeta{Name: pk.pod, Namespace: namespace, Labels: p.labels, CreationTimestamp: metav1.Time{Time: at}},
				Timestamp:  metav1.Time{Time: at.Truncate(time.Second)}, Window: metav1.Duration{Duration: s.opts.TickInterval}}
			for i, c := range p.containers {
				cpu, mem := 0.0, 0.0
				if i == 0 {
					cpu, mem = p.load.CPU, p.load.Memory
				}
				pm.Containers = append(pm.Containers, containerMetrics{Name: c, Usage: map[string]resource.Quantity{
					"cpu":    *resource.NewMilliQuantity(int64(cpu*1000+0.5), resource.DecimalSI),
					"memory": *resource.NewQuantity(int64(mem*(1<<20)), resource.BinarySI),
				}})
			}
			items = append(items, pm)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}
