package crd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

// labAPI is a fresh lab cluster with the embedded CRDs installed and Established.
type labAPI struct {
	cfg       *rest.Config
	dyn       dynamic.Interface
	cs        kubernetes.Interface
	namespace string
	// resources maps a kind to its resource and whether it is namespaced.
	resources map[string]resourceInfo
	crds      map[string]*apiextensionsv1.CustomResourceDefinition
}

type resourceInfo struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// startLabAPI starts a cluster of its own in the running lab (CRDs are
// cluster-wide, so a private API server keeps this test and the tests of other
// packages from seeing each other's versions), deleted when the test ends.
func startLabAPI(t *testing.T, ctx context.Context) *labAPI {
	t.Helper()
	env := labtest.Require(t, "HCA_LAB_DIR")
	clusters := lab.NewClusters(env["HCA_LAB_DIR"], &lab.Binaries{RepoDir: labtest.RepoRoot(t), Log: testLog{t}})
	name := fmt.Sprintf("crd-%06d", rand.IntN(1e6))
	start := time.Now()
	info, err := clusters.CreateCluster(ctx, lab.ClusterSpec{Name: name})
	if err != nil {
		t.Fatalf("create lab cluster %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := clusters.DeleteCluster(context.Background(), name); err != nil {
			t.Errorf("delete lab cluster %s: %v", name, err)
		}
	})
	t.Logf("lab cluster %s up in %s", name, time.Since(start).Round(time.Millisecond))
	cfg, err := clientcmd.BuildConfigFromFlags("", info.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400 // client-go's default 5 QPS would dominate the test's time
	a := &labAPI{cfg: cfg, namespace: "crd-test", resources: map[string]resourceInfo{}, crds: map[string]*apiextensionsv1.CustomResourceDefinition{}}
	if a.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	installCRDs(t, ctx, cfg, a)
	if a.cs, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := a.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return a
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// installCRDs creates every embedded CRD and waits until the API server reports
// it Established (so its schema, defaults and CEL rules compiled).
func installCRDs(t *testing.T, ctx context.Context, cfg *rest.Config, a *labAPI) {
	t.Helper()
	crds, err := crd.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range crds {
		if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create CRD %s: %v", c.Name, err)
		}
		a.resources[c.Spec.Names.Kind] = resourceInfo{
			gvr:        schema.GroupVersionResource{Group: c.Spec.Group, Version: c.Spec.Versions[0].Name, Resource: c.Spec.Names.Plural},
			namespaced: c.Spec.Scope == apiextensionsv1.NamespaceScoped,
		}
		a.crds[c.Spec.Names.Kind] = c
	}
	for _, c := range crds {
		var last *apiextensionsv1.CustomResourceDefinition
		for {
			got, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, c.Name, metav1.GetOptions{})
			if err == nil {
				last = got
				if established(got) {
					break
				}
			}
			select {
			case <-ctx.Done():
				t.Fatalf("CRD %s not Established: %v (conditions %+v)", c.Name, ctx.Err(), last.Status.Conditions)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

func established(c *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextensionsv1.NonStructuralSchema && cond.Status == apiextensionsv1.ConditionTrue {
			return false
		}
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// client returns the dynamic client for obj's kind and sets its namespace.
func (a *labAPI) client(t *testing.T, obj *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	ri, ok := a.resources[obj.GetKind()]
	if !ok {
		t.Fatalf("no CRD for kind %q", obj.GetKind())
	}
	if ri.namespaced {
		obj.SetNamespace(a.namespace)
		return a.dyn.Resource(ri.gvr).Namespace(a.namespace)
	}
	return a.dyn.Resource(ri.gvr)
}

func (a *labAPI) create(t *testing.T, ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	t.Helper()
	return a.client(t, obj).Create(ctx, obj, metav1.CreateOptions{})
}

// Valid manifests, one per kind, written as a user would. Cases patch them.
var bases = map[string]string{
	"HybridCluster": `
apiVersion: hca.dev/v1alpha1
kind: HybridCluster
spec:
  role: primary
  provider: private
  priority: 10
  credentials:
    secretRef: {namespace: hca-system, name: private-kubeconfig}
  prices: {perVCPUHour: "0.0464", perGiBHour: "0.0058"}
  limits: {maxCPU: "64", maxPods: 200}
`,
	"BurstPolicy": `
apiVersion: hca.dev/v1alpha1
kind: BurstPolicy
spec:
  target: {deploymentName: web}
  primaryCluster: private
  burstTargets:
  - {cluster: eks-burst, weight: 2, maxReplicas: 10}
  - {cluster: ack-burst}
  placement: cheapest
  minReplicas: 2
  maxReplicas: 20
  metrics:
  - type: Resource
    resource: {name: cpu, targetAverageUtilization: 60}
  - type: PromQL
    promql: {query: 'sum(rate(http_requests_total{app="web"}[1m]))', targetValue: "50"}
  algorithm:
    name: frss
    frss: {tolerance: "0.2", scaleUpRate: 9, downWindow: 9m}
  propagate:
    configMaps: {names: [web-config]}
    secrets: {matchLabels: {app: web}}
    services: {names: [web], matchLabels: {expose: "true"}}
  consul: {serviceName: web, port: 8080, tags: [v1]}
  pendingThreshold: 2s
`,
	"ServiceLevelObjective": `
apiVersion: hca.dev/v1alpha1
kind: ServiceLevelObjective
spec:
  target: {name: web}
  slo:
    type: latency
    latency: {percentile: "99", threshold: 200ms}
  tolerance: "0.1"
  evaluationInterval: 10s
  stabilization: {scaleUp: 0s, scaleDown: 1m}
  elasticityStrategy:
    kind: Horizontal
    horizontal: {minReplicas: 1, maxReplicas: 10}
    burst: {burstPolicyName: web}
`,
	"HorizontalElasticityStrategy": `
apiVersion: hca.dev/v1alpha1
kind: HorizontalElasticityStrategy
spec:
  target: {name: web}
  sloOutput: {compliancePercent: 130, tolerance: "0.1"}
  staticConfig: {minReplicas: 1, maxReplicas: 10}
  stabilization: {scaleDown: 1m}
`,
	"VerticalElasticityStrategy": `
apiVersion: hca.dev/v1alpha1
kind: VerticalElasticityStrategy
spec:
  target: {kind: StatefulSet, name: db}
  sloOutput: {compliancePercent: 80}
  staticConfig: {container: db, minCPU: 250m, maxCPU: "2", minMemory: 256Mi, maxMemory: 4Gi, cpuStep: 250m}
`,
	"FederatedAutoscaler": `
apiVersion: hca.dev/v1alpha1
kind: FederatedAutoscaler
spec:
  target: {name: web}
  members: [{cluster: private}, {cluster: eks-burst}]
  minReplicas: 2
  maxReplicas: 12
  metrics:
  - type: Resource
    resource: {name: memory, targetAverageUtilization: 70}
  scaleForbiddenWindow: 30s
`,
}

// manifest returns the base manifest of kind with patch (a JSON merge patch in
// YAML: maps merge, null deletes, lists replace) applied.
func manifest(t *testing.T, kind, patch string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(bases[kind]), &obj); err != nil {
		t.Fatalf("base %s: %v", kind, err)
	}
	if patch != "" {
		var p map[string]any
		if err := yaml.Unmarshal([]byte(patch), &p); err != nil {
			t.Fatalf("patch %q: %v", patch, err)
		}
		obj = mergePatch(obj, p).(map[string]any)
	}
	return &unstructured.Unstructured{Object: obj}
}

// mergePatch applies an RFC 7386 JSON merge patch.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// TestCRDsOnLabAPIServer installs the CRDs into a real kube-apiserver and checks
// that it accepts valid objects, rejects invalid ones with messages naming the
// field and the fix, applies the defaults, validates status updates and
// immutability, and serves the printer columns.
func TestCRDsOnLabAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := startLabAPI(t, ctx)

	t.Run("valid", func(t *testing.T) { testValid(t, ctx, a) })
	t.Run("invalid", func(t *testing.T) { testInvalid(t, ctx, a) })
	t.Run("defaults", func(t *testing.T) { testDefaults(t, ctx, a) })
	t.Run("status", func(t *testing.T) { testStatus(t, ctx, a) })
	t.Run("immutable provider", func(t *testing.T) { testImmutableProvider(t, ctx, a) })
	t.Run("printer columns", func(t *testing.T) { testPrinterColumns(t, ctx, a) })
}

func testValid(t *testing.T, ctx context.Context, a *labAPI) {
	cases := []struct{ name, kind, patch string }{
		{"HybridCluster private", "HybridCluster", ""},
		{"HybridCluster eks with role", "HybridCluster", `spec: {role: burst, provider: eks, credentials: {secretRef: null, eks: {clusterName: burst-1, region: eu-west-1, roleARN: "arn:aws:iam::123456789012:role/hca"}}}`},
		{"HybridCluster eks without role", "HybridCluster", `spec: {role: burst, provider: eks, credentials: {secretRef: null, eks: {clusterName: burst-1, region: us-east-1}}}`},
		{"HybridCluster ack, no prices or limits", "HybridCluster", `spec: {role: burst, provider: ack, credentials: {secretRef: {key: config}}, prices: null, limits: null}`},
		{"HybridCluster integer price", "HybridCluster", `spec: {prices: {perVCPUHour: "1", perGiBHour: "0"}}`},
		{"BurstPolicy full", "BurstPolicy", ""},
		{"BurstPolicy matchLabels target", "BurstPolicy", `spec: {target: {deploymentName: null, matchLabels: {app: web}}}`},
		{"BurstPolicy min equals max", "BurstPolicy", `spec: {minReplicas: 20}`},
		{"BurstPolicy required fields only", "BurstPolicy", `spec: {placement: null, minReplicas: null, metrics: null, algorithm: null, propagate: null, consul: null, pendingThreshold: null}`},
		{"BurstPolicy kubernetes algorithm with behaviour", "BurstPolicy", `spec: {algorithm: {name: kubernetes, frss: null, kubernetes: {tolerance: "0.05", scaleUp: {stabilizationWindow: 0s, selectPolicy: Max, policies: [{type: Pods, value: 4, period: 15s}, {type: Percent, value: 100, period: 15s}]}, scaleDown: {stabilizationWindow: 5m, tolerance: "0", policies: [{type: Percent, value: 100, period: 15s}]}}}}`},
		{"BurstPolicy panic algorithm", "BurstPolicy", `spec: {algorithm: {name: panic, frss: null, panic: {stableWindow: 60s, panicWindow: 6s, panicThresholdPercent: 200, maxScaleUpRate: "1000", maxScaleDownRate: "2"}}}`},
		{"BurstPolicy weighted", "BurstPolicy", `spec: {placement: weighted, burstTargets: [{cluster: eks-burst, weight: 0}, {cluster: ack-burst, weight: 3}]}`},
		{"BurstPolicy zero pending threshold", "BurstPolicy", `spec: {pendingThreshold: "0s"}`},
		{"BurstPolicy failover off", "BurstPolicy", `spec: {failoverAfter: "0s"}`},
		{"BurstPolicy failover after an hour", "BurstPolicy", `spec: {failoverAfter: 1h}`},
		{"SLO latency horizontal", "ServiceLevelObjective", ""},
		{"SLO cpu-utilization vertical", "ServiceLevelObjective", `spec: {slo: {type: cpu-utilization, latency: null, cpuUtilization: {targetAverageUtilization: 70}}, elasticityStrategy: {kind: Vertical, vertical: {minCPU: 100m, maxCPU: "1", minMemory: 128Mi, maxMemory: 1Gi}}}`},
		{"SLO cost-efficiency burst", "ServiceLevelObjective", `spec: {slo: {type: cost-efficiency, latency: null, costEfficiency: {responseTimeThreshold: 100ms, targetCostEfficiency: "1000", minRequestsPercentile: 90}}, elasticityStrategy: {kind: Burst}}`},
		{"SLO availability", "ServiceLevelObjective", `spec: {slo: {type: availability, latency: null, availability: {targetPercent: "99.9"}}}`},
		{"SLO latency multi-objective", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: web-model}, ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 10}, desired: {cpuUsagePercent: 70}, weightPreset: ResourcesFirst}}}`},
		{"SLO custom above", "ServiceLevelObjective", `spec: {slo: {type: custom, latency: null, custom: {query: 'sum(rate(http_requests_total{code="200"}[1m]))', targetValue: "150", direction: above}}}`},
		{"HorizontalElasticityStrategy", "HorizontalElasticityStrategy", ""},
		{"VerticalElasticityStrategy", "VerticalElasticityStrategy", ""},
		{"FederatedAutoscaler", "FederatedAutoscaler", ""},
		{"FederatedAutoscaler default metrics", "FederatedAutoscaler", `spec: {metrics: null, minReplicas: null, scaleForbiddenWindow: null}`},
		{"BurstPolicy schedules and headroom", "BurstPolicy", `spec: {algorithm: {name: adaptive, frss: null, adaptive: {headroomPercent: 20, headroomReplicas: 1}}, schedules: [{name: business, start: "0 8 * * MON-FRI", duration: 10h, timeZone: Europe/Berlin, minReplicas: 6}, {name: batch, start: "30 22 * * *", duration: 90m, minReplicas: 20}]}`},
		{"FederatedAutoscaler schedule", "FederatedAutoscaler", `spec: {schedules: [{name: monday, start: "0 7 * * 1", duration: 3h, timeZone: America/New_York, minReplicas: 12}]}`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := manifest(t, tc.kind, tc.patch)
			obj.SetName(fmt.Sprintf("valid-%d", i))
			if _, err := a.create(t, ctx, obj); err != nil {
				t.Fatalf("rejected: %v", err)
			}
		})
	}
}

func testInvalid(t *testing.T, ctx context.Context, a *labAPI) {
	cases := []struct {
		name, kind, patch string
		// want are substrings of the API server's error: the field path and the
		// message.
		want []string
	}{
		// HybridCluster
		{"unknown role", "HybridCluster", `spec: {role: edge}`,
			[]string{`spec.role: Unsupported value: "edge": supported values: "primary", "burst"`}},
		{"unknown provider", "HybridCluster", `spec: {provider: gke}`,
			[]string{`spec.provider: Unsupported value: "gke": supported values: "private", "eks", "ack"`}},
		{"eks without eks credentials", "HybridCluster", `spec: {provider: eks, credentials: {secretRef: null}}`,
			[]string{"spec.credentials", "credentials.eks (clusterName and region) is required when provider is eks"}},
		{"eks with a kubeconfig secret", "HybridCluster", `spec: {provider: eks, credentials: {eks: {clusterName: b, region: eu-west-1}}}`,
			[]string{"spec.credentials", "credentials.secretRef is not used with provider eks"}},
		{"private without secretRef", "HybridCluster", `spec: {credentials: {secretRef: null}}`,
			[]string{"spec.credentials", "credentials.secretRef (a Secret holding a kubeconfig) is required when provider is private or ack"}},
		{"ack with eks credentials", "HybridCluster", `spec: {provider: ack, credentials: {eks: {clusterName: b, region: eu-west-1}}}`,
			[]string{"spec.credentials", "credentials.eks is only valid with provider eks: remove it or set provider to eks"}},
		{"eks without region", "HybridCluster", `spec: {provider: eks, credentials: {secretRef: null, eks: {clusterName: b}}}`,
			[]string{"spec.credentials.eks.region: Required value"}},
		{"eks bad role ARN", "HybridCluster", `spec: {provider: eks, credentials: {secretRef: null, eks: {clusterName: b, region: eu-west-1, roleARN: hca-role}}}`,
			[]string{"spec.credentials.eks.roleARN", "should match"}},
		{"secret without namespace", "HybridCluster", `spec: {credentials: {secretRef: {namespace: null}}}`,
			[]string{"spec.credentials.secretRef.namespace: Required value"}},
		{"price as a float", "HybridCluster", `spec: {prices: {perVCPUHour: 0.05}}`,
			[]string{"spec.prices.perVCPUHour", "must be of type string"}},
		{"negative price", "HybridCluster", `spec: {prices: {perGiBHour: "-0.01"}}`,
			[]string{"spec.prices.perGiBHour", "should match"}},
		{"zero maxCPU", "HybridCluster", `spec: {limits: {maxCPU: "0"}}`,
			[]string{"spec.limits.maxCPU", "limits.maxCPU must be greater than 0: remove it for no limit"}},
		{"negative priority", "HybridCluster", `spec: {priority: -1}`,
			[]string{"spec.priority", "should be greater than or equal to 0"}},

		// BurstPolicy
		{"min above max", "BurstPolicy", `spec: {minReplicas: 21}`,
			[]string{"spec.minReplicas", "minReplicas must be <= maxReplicas"}},
		{"both target forms", "BurstPolicy", `spec: {target: {matchLabels: {app: web}}}`,
			[]string{"spec.target", "target: set exactly one of deploymentName or matchLabels"}},
		{"no target", "BurstPolicy", `spec: {target: {deploymentName: null}}`,
			[]string{"spec.target", "target: set exactly one of deploymentName or matchLabels"}},
		{"primary among burst targets", "BurstPolicy", `spec: {burstTargets: [{cluster: private}]}`,
			[]string{"spec.burstTargets", "burstTargets must not list primaryCluster"}},
		{"duplicate burst target", "BurstPolicy", `spec: {burstTargets: [{cluster: eks-burst}, {cluster: eks-burst, weight: 3}]}`,
			[]string{"spec.burstTargets[1]: Duplicate value"}},
		{"no burst targets", "BurstPolicy", `spec: {burstTargets: []}`,
			[]string{"spec.burstTargets", "should have at least 1 items"}},
		{"invalid cluster name", "BurstPolicy", `spec: {primaryCluster: Private_1}`,
			[]string{"spec.primaryCluster", "should match"}},
		{"weighted with zero weights", "BurstPolicy", `spec: {placement: weighted, burstTargets: [{cluster: eks-burst, weight: 0}]}`,
			[]string{"spec.burstTargets", "placement weighted needs at least one burstTargets entry with weight > 0"}},
		{"unknown placement", "BurstPolicy", `spec: {placement: random}`,
			[]string{`spec.placement: Unsupported value: "random": supported values: "priority", "cheapest", "weighted", "capacity"`}},
		{"PromQL metric without promql", "BurstPolicy", `spec: {metrics: [{type: PromQL, resource: {name: cpu, targetAverageUtilization: 50}}]}`,
			[]string{"spec.metrics[0]", "type PromQL requires promql (query and targetValue) and no resource"}},
		{"Resource metric without resource", "BurstPolicy", `spec: {metrics: [{type: Resource}]}`,
			[]string{"spec.metrics[0]", "type Resource requires resource (name and targetAverageUtilization) and no promql"}},
		{"PromQL metric without query", "BurstPolicy", `spec: {metrics: [{type: PromQL, promql: {targetValue: "5"}}]}`,
			[]string{"spec.metrics[0].promql.query: Required value"}},
		{"PromQL metric without target", "BurstPolicy", `spec: {metrics: [{type: PromQL, promql: {query: up}}]}`,
			[]string{"spec.metrics[0].promql.targetValue: Required value"}},
		{"PromQL target zero", "BurstPolicy", `spec: {metrics: [{type: PromQL, promql: {query: up, targetValue: "0"}}]}`,
			[]string{"spec.metrics[0].promql.targetValue", "promql.targetValue must be greater than 0"}},
		{"unknown resource metric", "BurstPolicy", `spec: {metrics: [{type: Resource, resource: {name: gpu, targetAverageUtilization: 50}}]}`,
			[]string{`spec.metrics[0].resource.name: Unsupported value: "gpu"`}},
		{"utilisation zero", "BurstPolicy", `spec: {metrics: [{type: Resource, resource: {name: cpu, targetAverageUtilization: 0}}]}`,
			[]string{"spec.metrics[0].resource.targetAverageUtilization", "should be greater than or equal to 1"}},
		{"unknown algorithm", "BurstPolicy", `spec: {algorithm: {name: magic, frss: null}}`,
			[]string{`spec.algorithm.name: Unsupported value: "magic": supported values: "adaptive", "kubernetes", "frss", "panic"`}},
		{"parameters of another algorithm", "BurstPolicy", `spec: {algorithm: {name: kubernetes}}`,
			[]string{"spec.algorithm", "algorithm.frss is set but algorithm.name is kubernetes: set name to frss or remove frss"}},
		{"frss tolerance one", "BurstPolicy", `spec: {algorithm: {frss: {tolerance: "1"}}}`,
			[]string{"spec.algorithm.frss.tolerance", "tolerance must be in [0, 1)"}},
		{"kubernetes negative tolerance", "BurstPolicy", `spec: {algorithm: {name: kubernetes, frss: null, kubernetes: {tolerance: "-0.1"}}}`,
			[]string{"spec.algorithm.kubernetes.tolerance", "tolerance must be in [0, 1)"}},
		{"kubernetes tolerance not a quantity", "BurstPolicy", `spec: {algorithm: {name: kubernetes, frss: null, kubernetes: {tolerance: "ten percent"}}}`,
			[]string{"spec.algorithm.kubernetes.tolerance", "should match"}},
		{"policy period zero", "BurstPolicy", `spec: {algorithm: {name: kubernetes, frss: null, kubernetes: {scaleUp: {policies: [{type: Pods, value: 4, period: 0s}]}}}}`,
			[]string{"spec.algorithm.kubernetes.scaleUp.policies[0].period", "period must be in (0s, 30m]"}},
		{"unknown select policy", "BurstPolicy", `spec: {algorithm: {name: kubernetes, frss: null, kubernetes: {scaleDown: {selectPolicy: Average}}}}`,
			[]string{`spec.algorithm.kubernetes.scaleDown.selectPolicy: Unsupported value: "Average"`}},
		{"panic window not shorter", "BurstPolicy", `spec: {algorithm: {name: panic, frss: null, panic: {stableWindow: 10s, panicWindow: 10s}}}`,
			[]string{"spec.algorithm.panic.panicWindow", "panicWindow must be shorter than stableWindow"}},
		{"panic scale-down rate one", "BurstPolicy", `spec: {algorithm: {name: panic, frss: null, panic: {maxScaleDownRate: "1"}}}`,
			[]string{"spec.algorithm.panic.maxScaleDownRate", "maxScaleDownRate must be greater than 1"}},
		{"panic threshold too low", "BurstPolicy", `spec: {algorithm: {name: panic, frss: null, panic: {panicThresholdPercent: 100}}}`,
			[]string{"spec.algorithm.panic.panicThresholdPercent", "should be greater than or equal to 110"}},
		{"pending threshold not a duration", "BurstPolicy", `spec: {pendingThreshold: soon}`,
			[]string{"spec.pendingThreshold", "should match"}},
		{"failover after not a duration", "BurstPolicy", `spec: {failoverAfter: "2 minutes"}`,
			[]string{"spec.failoverAfter", "should match"}},
		{"failover after too long", "BurstPolicy", `spec: {failoverAfter: 61m}`,
			[]string{"spec.failoverAfter", "failoverAfter must be at most 1h"}},
		{"empty propagation selector", "BurstPolicy", `spec: {propagate: {configMaps: {names: null}}}`,
			[]string{"spec.propagate.configMaps", "set names or matchLabels (or both) to select objects to propagate"}},
		{"consul port zero", "BurstPolicy", `spec: {consul: {port: 0}}`,
			[]string{"spec.consul.port", "should be greater than or equal to 1"}},
		{"consul service name invalid", "BurstPolicy", `spec: {consul: {serviceName: "Web App"}}`,
			[]string{"spec.consul.serviceName", "should match"}},

		// ServiceLevelObjective
		{"latency type with cpu parameters", "ServiceLevelObjective", `spec: {slo: {latency: null, cpuUtilization: {targetAverageUtilization: 50}}}`,
			[]string{"slo.latency (percentile and threshold) is required when slo.type is latency",
				"slo.cpuUtilization is set but slo.type is latency: remove cpuUtilization or set type to cpu-utilization"}},
		{"latency without threshold", "ServiceLevelObjective", `spec: {slo: {latency: {threshold: null}}}`,
			[]string{"spec.slo.latency.threshold: Required value"}},
		{"latency without percentile", "ServiceLevelObjective", `spec: {slo: {latency: {percentile: null}}}`,
			[]string{"spec.slo.latency.percentile: Required value"}},
		{"latency percentile 100", "ServiceLevelObjective", `spec: {slo: {latency: {percentile: "100"}}}`,
			[]string{"spec.slo.latency.percentile", "latency.percentile must be in (0, 100)"}},
		{"latency threshold zero", "ServiceLevelObjective", `spec: {slo: {latency: {threshold: 0s}}}`,
			[]string{"spec.slo.latency.threshold", "latency.threshold must be greater than 0"}},
		{"unknown SLO type", "ServiceLevelObjective", `spec: {slo: {type: throughput}}`,
			[]string{`spec.slo.type: Unsupported value: "throughput": supported values: "cpu-utilization", "latency", "cost-efficiency", "availability", "custom"`}},
		{"cost-efficiency without target", "ServiceLevelObjective", `spec: {slo: {type: cost-efficiency, latency: null, costEfficiency: {responseTimeThreshold: 100ms}}}`,
			[]string{"spec.slo.costEfficiency.targetCostEfficiency: Required value"}},
		{"availability above 100", "ServiceLevelObjective", `spec: {slo: {type: availability, latency: null, availability: {targetPercent: "100.1"}}}`,
			[]string{"spec.slo.availability.targetPercent", "availability.targetPercent must be in (0, 100]"}},
		{"custom without query", "ServiceLevelObjective", `spec: {slo: {type: custom, latency: null, custom: {targetValue: "1"}}}`,
			[]string{"spec.slo.custom.query: Required value"}},
		{"custom target zero", "ServiceLevelObjective", `spec: {slo: {type: custom, latency: null, custom: {query: up, targetValue: "0"}}}`,
			[]string{"spec.slo.custom.targetValue", "custom.targetValue must be greater than 0"}},
		{"custom unknown direction", "ServiceLevelObjective", `spec: {slo: {type: custom, latency: null, custom: {query: up, targetValue: "1", direction: sideways}}}`,
			[]string{`spec.slo.custom.direction: Unsupported value: "sideways": supported values: "below", "above"`}},
		{"tolerance above one", "ServiceLevelObjective", `spec: {tolerance: "1.5"}`,
			[]string{"spec.tolerance", "tolerance must be in [0, 1)"}},
		{"evaluation interval too short", "ServiceLevelObjective", `spec: {evaluationInterval: 500ms}`,
			[]string{"spec.evaluationInterval", "evaluationInterval must be at least 1s"}},
		{"unknown strategy kind", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: Diagonal}}`,
			[]string{`spec.elasticityStrategy.kind: Unsupported value: "Diagonal": supported values: "Horizontal", "Vertical", "Burst", "MultiObjective"`}},
		{"multi-objective strategy without config", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: MultiObjective}}`,
			[]string{"spec.elasticityStrategy", "elasticityStrategy.multiObjective (model and ranges) is required when kind is MultiObjective"}},
		{"multi-objective strategy on a cpu SLO", "ServiceLevelObjective", `spec: {slo: {type: cpu-utilization, latency: null, cpuUtilization: {targetAverageUtilization: 70}}, elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: web-model}, ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 10}}}}`,
			[]string{"spec", "elasticityStrategy.kind MultiObjective needs an objective on the response time: slo.type latency, whose threshold is the desired response time (slo.type is cpu-utilization)"}},
		{"multi-objective strategy on a StatefulSet", "ServiceLevelObjective", `spec: {target: {kind: StatefulSet}, elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: web-model}, ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 10}}}}`,
			[]string{"spec", "elasticityStrategy.kind MultiObjective scales a Deployment: set target.kind to Deployment"}},
		{"multi-objective ranges inverted", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: web-model}, ranges: {minCPU: 600m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 10}}}}`,
			[]string{"spec.elasticityStrategy.multiObjective.ranges.minCPU", "ranges.minCPU must be <= ranges.maxCPU"}},
		{"multi-objective weights and preset", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: web-model}, ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 10}, weightPreset: Balanced, weights: {responseTime: "0.5", cpuUsage: "0.1", memoryUsage: "0.1", cpuLimit: "0.1", memoryLimit: "0.1", replicas: "0.1"}}}}`,
			[]string{"spec.elasticityStrategy.multiObjective", "set weights or weightPreset, not both"}},
		{"multi-objective weights sum", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: MultiObjective, multiObjective: {model: {configMapName: web-model}, ranges: {minCPU: 300m, maxCPU: 500m, minMemory: 400Mi, maxMemory: 600Mi, maxReplicas: 10}, weights: {responseTime: "0.6", cpuUsage: "0.1", memoryUsage: "0.1", cpuLimit: "0.1", memoryLimit: "0.1", replicas: "0.1"}}}}`,
			[]string{"spec.elasticityStrategy.multiObjective.weights", "weights must sum to 1"}},
		{"vertical strategy without config", "ServiceLevelObjective", `spec: {elasticityStrategy: {kind: Vertical}}`,
			[]string{"spec.elasticityStrategy", "elasticityStrategy.vertical (minCPU, maxCPU, minMemory and maxMemory) is required when kind is Vertical"}},
		{"horizontal strategy without config", "ServiceLevelObjective", `spec: {elasticityStrategy: {horizontal: null}}`,
			[]string{"spec.elasticityStrategy", "elasticityStrategy.horizontal (minReplicas and maxReplicas) is required when kind is Horizontal"}},
		{"horizontal config min above max", "ServiceLevelObjective", `spec: {elasticityStrategy: {horizontal: {minReplicas: 11}}}`,
			[]string{"spec.elasticityStrategy.horizontal.minReplicas", "minReplicas must be <= maxReplicas"}},
		{"unknown target kind", "ServiceLevelObjective", `spec: {target: {kind: DaemonSet}}`,
			[]string{`spec.target.kind: Unsupported value: "DaemonSet": supported values: "Deployment", "StatefulSet"`}},

		// Strategies
		{"horizontal min above max", "HorizontalElasticityStrategy", `spec: {staticConfig: {minReplicas: 11}}`,
			[]string{"spec.staticConfig.minReplicas", "minReplicas must be <= maxReplicas"}},
		{"negative compliance", "HorizontalElasticityStrategy", `spec: {sloOutput: {compliancePercent: -1}}`,
			[]string{"spec.sloOutput.compliancePercent", "should be greater than or equal to 0"}},
		{"strategy tolerance one", "HorizontalElasticityStrategy", `spec: {sloOutput: {tolerance: "1"}}`,
			[]string{"spec.sloOutput.tolerance", "tolerance must be in [0, 1)"}},
		{"vertical minCPU above maxCPU", "VerticalElasticityStrategy", `spec: {staticConfig: {minCPU: "3"}}`,
			[]string{"spec.staticConfig.minCPU", "minCPU must be <= maxCPU"}},
		{"vertical minMemory above maxMemory", "VerticalElasticityStrategy", `spec: {staticConfig: {minMemory: 8Gi}}`,
			[]string{"spec.staticConfig.minMemory", "minMemory must be <= maxMemory"}},
		{"vertical zero memory step", "VerticalElasticityStrategy", `spec: {staticConfig: {memoryStep: "0"}}`,
			[]string{"spec.staticConfig.memoryStep", "memoryStep must be greater than 0"}},
		{"vertical without maxCPU", "VerticalElasticityStrategy", `spec: {staticConfig: {maxCPU: null}}`,
			[]string{"spec.staticConfig.maxCPU: Required value"}},

		{"schedule floor above max", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 8 * * *", duration: 1h, minReplicas: 21}]}`,
			[]string{"spec.schedules", "schedules[].minReplicas must be <= maxReplicas"}},
		{"schedule with six cron fields", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 0 8 * * *", duration: 1h, minReplicas: 2}]}`,
			[]string{"spec.schedules[0].start", "start must be a 5-field cron expression"}},
		{"schedule with a CRON_TZ prefix", "BurstPolicy", `spec: {schedules: [{name: peak, start: "CRON_TZ=UTC 0 8 * *", duration: 1h, minReplicas: 2}]}`,
			[]string{"spec.schedules[0].start", "set timeZone instead"}},
		{"schedule too long", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 8 * * *", duration: 169h, minReplicas: 2}]}`,
			[]string{"spec.schedules[0].duration", "duration must be in (0s, 168h]"}},
		{"schedule zero duration", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 8 * * *", duration: 0s, minReplicas: 2}]}`,
			[]string{"spec.schedules[0].duration", "duration must be in (0s, 168h]"}},
		{"schedule Local time zone", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 8 * * *", duration: 1h, timeZone: Local, minReplicas: 2}]}`,
			[]string{"spec.schedules[0].timeZone", "name an IANA zone"}},
		{"schedule time zone with spaces", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 8 * * *", duration: 1h, timeZone: "Europe/ Berlin", minReplicas: 2}]}`,
			[]string{"spec.schedules[0].timeZone", "should match"}},
		{"duplicate schedule name", "BurstPolicy", `spec: {schedules: [{name: peak, start: "0 8 * * *", duration: 1h, minReplicas: 2}, {name: peak, start: "0 9 * * *", duration: 1h, minReplicas: 3}]}`,
			[]string{"spec.schedules[1]: Duplicate value"}},
		{"headroom above 1000 percent", "BurstPolicy", `spec: {algorithm: {name: adaptive, frss: null, adaptive: {headroomPercent: 1001}}}`,
			[]string{"spec.algorithm.adaptive.headroomPercent", "should be less than or equal to 1000"}},
		{"headroom on another algorithm", "BurstPolicy", `spec: {algorithm: {name: kubernetes, frss: null, adaptive: {headroomPercent: 10}}}`,
			[]string{"algorithm.adaptive is set but algorithm.name is kubernetes"}},
		{"federated schedule floor above max", "FederatedAutoscaler", `spec: {schedules: [{name: monday, start: "0 7 * * 1", duration: 3h, minReplicas: 13}]}`,
			[]string{"spec.schedules", "schedules[].minReplicas must be <= maxReplicas"}},

		// FederatedAutoscaler
		{"federated min above max", "FederatedAutoscaler", `spec: {minReplicas: 13}`,
			[]string{"spec.minReplicas", "minReplicas must be <= maxReplicas"}},
		{"federated PromQL metric", "FederatedAutoscaler", `spec: {metrics: [{type: PromQL, promql: {query: up, targetValue: "1"}}]}`,
			[]string{"spec.metrics", "metrics: only type Resource is supported"}},
		{"federated max below members", "FederatedAutoscaler", `spec: {minReplicas: 1, maxReplicas: 1}`,
			[]string{"spec.maxReplicas", "maxReplicas must be at least the number of members"}},
		{"federated no members", "FederatedAutoscaler", `spec: {members: []}`,
			[]string{"spec.members", "should have at least 1 items"}},
		{"federated duplicate member", "FederatedAutoscaler", `spec: {members: [{cluster: private}, {cluster: private}]}`,
			[]string{"spec.members[1]: Duplicate value"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := manifest(t, tc.kind, tc.patch)
			obj.SetName(fmt.Sprintf("invalid-%d", i))
			_, err := a.create(t, ctx, obj)
			if err == nil {
				t.Fatalf("accepted, want rejection with %q", tc.want)
			}
			t.Logf("rejected: %v", err)
			if !apierrors.IsInvalid(err) {
				t.Fatalf("error %v is not 422 Invalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// roundTrip creates a typed object and returns what the API server stored,
// decoded into out.
func roundTrip(t *testing.T, ctx context.Context, a *labAPI, in runtime.Object, out any) {
	t.Helper()
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(in)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: raw}
	kind := reflectKind(in)
	obj.SetAPIVersion(v1alpha1.GroupVersion.String())
	obj.SetKind(kind)
	got, err := a.create(t, ctx, obj)
	if err != nil {
		t.Fatalf("create %s: %v", kind, err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got.Object, out); err != nil {
		t.Fatalf("decode stored %s: %v", kind, err)
	}
}

func reflectKind(obj runtime.Object) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*v1alpha1.")
}

// testDefaults creates objects from the Go types with only the required fields
// and checks the defaults the API server filled in.
func testDefaults(t *testing.T, ctx context.Context, a *labAPI) {
	t.Run("HybridCluster", func(t *testing.T) {
		var got v1alpha1.HybridCluster
		roundTrip(t, ctx, a, &v1alpha1.HybridCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: v1alpha1.HybridClusterSpec{Role: v1alpha1.RolePrimary, Provider: v1alpha1.ProviderPrivate,
				Credentials: v1alpha1.ClusterCredentials{SecretRef: &v1alpha1.SecretKeyRef{Namespace: "hca-system", Name: "kc"}}},
		}, &got)
		if got.Spec.Credentials.SecretRef.Key != "kubeconfig" || got.Spec.Priority != 0 {
			t.Errorf("secretRef.key %q priority %d, want kubeconfig and 0", got.Spec.Credentials.SecretRef.Key, got.Spec.Priority)
		}
	})
	t.Run("BurstPolicy", func(t *testing.T) {
		var got v1alpha1.BurstPolicy
		roundTrip(t, ctx, a, &v1alpha1.BurstPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: v1alpha1.BurstPolicySpec{
				Target:         v1alpha1.BurstTarget{DeploymentName: "web"},
				PrimaryCluster: "private",
				BurstTargets:   []v1alpha1.BurstTargetCluster{{Cluster: "eks-burst"}},
				MaxReplicas:    20,
			},
		}, &got)
		s := got.Spec
		if s.Placement != v1alpha1.PlacementPriority || s.MinReplicas != 1 || s.Algorithm.Name != v1alpha1.AlgorithmAdaptive {
			t.Errorf("placement %q minReplicas %d algorithm %q, want priority, 1, adaptive", s.Placement, s.MinReplicas, s.Algorithm.Name)
		}
		if w := s.BurstTargets[0].Weight; w == nil || *w != 1 {
			t.Errorf("burstTargets[0].weight = %v, want 1", w)
		}
		if len(s.Metrics) != 1 || s.Metrics[0].Type != v1alpha1.MetricResource || s.Metrics[0].Resource == nil ||
			s.Metrics[0].Resource.Name != v1alpha1.ResourceCPU || s.Metrics[0].Resource.TargetAverageUtilization != 80 {
			t.Errorf("metrics = %+v, want CPU at 80 %%", s.Metrics)
		}
		if s.PendingThreshold == nil || s.PendingThreshold.Duration != 5*time.Second {
			t.Errorf("pendingThreshold = %v, want 5s", s.PendingThreshold)
		}
		if s.FailoverAfter == nil || s.FailoverAfter.Duration != 90*time.Second {
			t.Errorf("failoverAfter = %v, want 90s", s.FailoverAfter)
		}
	})
	// A manifest applied with kubectl or GitOps has no algorithm key at all
	// (the Go types above always send algorithm: {}, which takes the name's
	// own default): spec.algorithm's default must name adaptive too, the
	// default the provider and the simulator apply.
	t.Run("BurstPolicy manifest without algorithm", func(t *testing.T) {
		for _, tc := range []struct{ name, patch string }{
			{"no algorithm key", `spec: {algorithm: null}`},
			{"empty algorithm", `spec: {algorithm: {name: null, frss: null}}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				obj := manifest(t, "BurstPolicy", tc.patch)
				obj.SetName("defaults-yaml-" + strings.ReplaceAll(tc.name, " ", "-"))
				if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "algorithm", "name"); found {
					t.Fatalf("manifest sets spec.algorithm.name: %v", obj.Object["spec"])
				}
				got, err := a.create(t, ctx, obj)
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				name, _, _ := unstructured.NestedString(got.Object, "spec", "algorithm", "name")
				if name != string(v1alpha1.AlgorithmAdaptive) {
					alg, _, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "algorithm")
					t.Errorf("spec.algorithm = %v, want name adaptive", alg)
				}
			})
		}
	})
	t.Run("BurstPolicy frss and panic parameters", func(t *testing.T) {
		var frss, panic v1alpha1.BurstPolicy
		base := v1alpha1.BurstPolicySpec{Target: v1alpha1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: "private",
			BurstTargets: []v1alpha1.BurstTargetCluster{{Cluster: "eks-burst"}}, MaxReplicas: 20}
		spec := base
		spec.Algorithm = v1alpha1.Algorithm{Name: v1alpha1.AlgorithmFRSS, FRSS: &v1alpha1.FRSSAlgorithm{}}
		roundTrip(t, ctx, a, &v1alpha1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Name: "defaults-frss"}, Spec: spec}, &frss)
		f := frss.Spec.Algorithm.FRSS
		if f.Tolerance == nil || f.Tolerance.Cmp(resource.MustParse("0.2")) != 0 || f.ScaleUpRate != 9 || f.ShrinkStep != 1 ||
			f.UpWindow == nil || f.UpWindow.Duration != 0 || f.DownWindow == nil || f.DownWindow.Duration != 9*time.Minute {
			t.Errorf("frss = %+v, want tolerance 0.2, scaleUpRate 9, shrinkStep 1, upWindow 0s, downWindow 9m", f)
		}
		spec = base
		spec.Algorithm = v1alpha1.Algorithm{Name: v1alpha1.AlgorithmPanic, Panic: &v1alpha1.PanicAlgorithm{}}
		roundTrip(t, ctx, a, &v1alpha1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Name: "defaults-panic"}, Spec: spec}, &panic)
		p := panic.Spec.Algorithm.Panic
		if p.StableWindow.Duration != time.Minute || p.PanicWindow.Duration != 6*time.Second || p.PanicThresholdPercent != 200 ||
			p.MaxScaleUpRate.Cmp(resource.MustParse("1000")) != 0 || p.MaxScaleDownRate.Cmp(resource.MustParse("2")) != 0 {
			t.Errorf("panic = %+v, want stable 60s, panic 6s, threshold 200, rates 1000 and 2", p)
		}
	})
	t.Run("ServiceLevelObjective", func(t *testing.T) {
		var got v1alpha1.ServiceLevelObjective
		roundTrip(t, ctx, a, &v1alpha1.ServiceLevelObjective{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: v1alpha1.ServiceLevelObjectiveSpec{
				Target: v1alpha1.TargetRef{Name: "web"},
				SLO: v1alpha1.SLOSpec{Type: v1alpha1.SLOLatency, Latency: &v1alpha1.LatencySLO{
					Percentile: resource.MustParse("99"), Threshold: metav1.Duration{Duration: 200 * time.Millisecond}}},
				ElasticityStrategy: v1alpha1.ElasticityStrategy{Kind: v1alpha1.StrategyHorizontal,
					Horizontal: &v1alpha1.HorizontalStaticConfig{MaxReplicas: 10}},
			},
		}, &got)
		s := got.Spec
		if s.Target.Kind != v1alpha1.WorkloadDeployment || s.Tolerance.Cmp(resource.MustParse("0.1")) != 0 ||
			s.EvaluationInterval.Duration != 20*time.Second || s.SLO.Latency.HistogramMetric != "http_request_duration_seconds" ||
			s.ElasticityStrategy.Horizontal.MinReplicas != 1 {
			t.Errorf("spec = %+v, want target kind Deployment, tolerance 0.1, interval 20s, histogram http_request_duration_seconds, minReplicas 1", s)
		}
	})
	t.Run("VerticalElasticityStrategy", func(t *testing.T) {
		var got v1alpha1.VerticalElasticityStrategy
		roundTrip(t, ctx, a, &v1alpha1.VerticalElasticityStrategy{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: v1alpha1.VerticalElasticityStrategySpec{
				Target:    v1alpha1.TargetRef{Name: "web"},
				SLOOutput: v1alpha1.SLOOutput{CompliancePercent: 100},
				StaticConfig: v1alpha1.VerticalStaticConfig{MinCPU: resource.MustParse("100m"), MaxCPU: resource.MustParse("1"),
					MinMemory: resource.MustParse("64Mi"), MaxMemory: resource.MustParse("1Gi")},
			},
		}, &got)
		c := got.Spec.StaticConfig
		if c.CPUStep.Cmp(resource.MustParse("100m")) != 0 || c.MemoryStep.Cmp(resource.MustParse("64Mi")) != 0 ||
			got.Spec.SLOOutput.Tolerance.Cmp(resource.MustParse("0.1")) != 0 {
			t.Errorf("cpuStep %v memoryStep %v tolerance %v, want 100m, 64Mi, 0.1", c.CPUStep, c.MemoryStep, got.Spec.SLOOutput.Tolerance)
		}
	})
	t.Run("FederatedAutoscaler", func(t *testing.T) {
		var got v1alpha1.FederatedAutoscaler
		roundTrip(t, ctx, a, &v1alpha1.FederatedAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: v1alpha1.FederatedAutoscalerSpec{Target: v1alpha1.TargetRef{Name: "web"},
				Members: []v1alpha1.FederatedMember{{Cluster: "private"}, {Cluster: "eks-burst"}}, MaxReplicas: 10},
		}, &got)
		if got.Spec.MinReplicas != 1 || got.Spec.ScaleForbiddenWindow.Duration != time.Minute || len(got.Spec.Metrics) != 1 {
			t.Errorf("spec = %+v, want minReplicas 1, scaleForbiddenWindow 1m, one default metric", got.Spec)
		}
	})
}

// testStatus writes status through the status subresource: the spec is not
// touched by it, and status values are validated too.
func testStatus(t *testing.T, ctx context.Context, a *labAPI) {
	obj := manifest(t, "BurstPolicy", "")
	obj.SetName("status")
	created, err := a.create(t, ctx, obj)
	if err != nil {
		t.Fatal(err)
	}
	var bp v1alpha1.BurstPolicy
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(created.Object, &bp); err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	bp.Status = v1alpha1.BurstPolicyStatus{
		ObservedGeneration: bp.Generation,
		Phase:              v1alpha1.PhaseBursting,
		Replicas: []v1alpha1.ClusterReplicas{
			{Cluster: "private", Desired: 8, Ready: 8},
			{Cluster: "eks-burst", Desired: 4, Ready: 3, Pending: 1},
		},
		LastDecision: &v1alpha1.Decision{Time: now, Desired: 12, Reason: "4 pods Unschedulable for 2s; placed 4 on eks-burst (cheapest)"},
		Conditions: []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Bursting",
			Message: "overflow placed", LastTransitionTime: now, ObservedGeneration: bp.Generation}},
	}
	bp.Spec.MaxReplicas = 99 // must be ignored by the status subresource
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&bp)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: raw}
	updated, err := a.client(t, u).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	var got v1alpha1.BurstPolicy
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(updated.Object, &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.MaxReplicas != 20 {
		t.Errorf("spec.maxReplicas = %d after a status update, want 20 (status subresource must not write spec)", got.Spec.MaxReplicas)
	}
	if got.Status.Phase != v1alpha1.PhaseBursting || len(got.Status.Replicas) != 2 || got.Status.LastDecision.Desired != 12 ||
		len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != v1alpha1.ConditionReady {
		t.Errorf("status = %+v, want what was written", got.Status)
	}

	cases := []struct {
		name string
		edit func(s *v1alpha1.BurstPolicyStatus)
		want string
	}{
		{"unknown phase", func(s *v1alpha1.BurstPolicyStatus) { s.Phase = "Exploding" },
			`status.phase: Unsupported value: "Exploding": supported values: "Watching", "Bursting", "ScalingBack", "Degraded"`},
		{"duplicate cluster", func(s *v1alpha1.BurstPolicyStatus) {
			s.Replicas = append(s.Replicas, v1alpha1.ClusterReplicas{Cluster: "private", Desired: 1})
		}, `status.replicas[2]: Duplicate value`},
		{"duplicate condition", func(s *v1alpha1.BurstPolicyStatus) {
			s.Conditions = append(s.Conditions, s.Conditions[0])
		}, `status.conditions[1]: Duplicate value`},
		{"negative desired", func(s *v1alpha1.BurstPolicyStatus) { s.LastDecision.Desired = -1 },
			"status.lastDecision.desired: Invalid value: -1: lastDecision.desired in body should be greater than or equal to 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := got.DeepCopy()
			tc.edit(&bad.Status)
			raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(bad)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: raw}
			_, err = a.client(t, u).UpdateStatus(ctx, u, metav1.UpdateOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("status update error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func testImmutableProvider(t *testing.T, ctx context.Context, a *labAPI) {
	obj := manifest(t, "HybridCluster", "")
	obj.SetName("immutable")
	created, err := a.create(t, ctx, obj)
	if err != nil {
		t.Fatal(err)
	}
	c := a.client(t, created)
	patch := []byte(`{"spec":{"provider":"ack"}}`)
	_, err = c.Patch(ctx, created.GetName(), "application/merge-patch+json", patch, metav1.PatchOptions{})
	want := "provider is immutable: delete and recreate the HybridCluster to change it"
	if err == nil || !strings.Contains(err.Error(), "spec.provider") || !strings.Contains(err.Error(), want) {
		t.Errorf("changing provider: error = %v, want spec.provider: ... %q", err, want)
	}
	if _, err := c.Patch(ctx, created.GetName(), "application/merge-patch+json", []byte(`{"spec":{"priority":5}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("changing priority: %v", err)
	}
}

// testPrinterColumns asks the API server for tables (what kubectl get shows) and
// checks the columns and their values for one object of each kind.
func testPrinterColumns(t *testing.T, ctx context.Context, a *labAPI) {
	want := map[string]map[string]string{
		"HybridCluster":                {"Role": "primary", "Provider": "private", "Priority": "10"},
		"BurstPolicy":                  {"Deployment": "web", "Primary": "private", "Placement": "cheapest", "Min": "2", "Max": "20"},
		"ServiceLevelObjective":        {"Type": "latency", "Target": "web", "Strategy": "Horizontal"},
		"HorizontalElasticityStrategy": {"Target": "web", "Compliance": "130", "Min": "1", "Max": "10"},
		"VerticalElasticityStrategy":   {"Target": "db", "Compliance": "80"},
		"FederatedAutoscaler":          {"Target": "web", "Min": "2", "Max": "12"},
	}
	rc := a.cs.CoreV1().RESTClient()
	for kind, cells := range want {
		t.Run(kind, func(t *testing.T) {
			obj := manifest(t, kind, "")
			obj.SetName("columns")
			if _, err := a.create(t, ctx, obj); err != nil {
				t.Fatal(err)
			}
			ri := a.resources[kind]
			path := "/apis/hca.dev/v1alpha1/" + ri.gvr.Resource + "/columns"
			if ri.namespaced {
				path = "/apis/hca.dev/v1alpha1/namespaces/" + a.namespace + "/" + ri.gvr.Resource + "/columns"
			}
			raw, err := rc.Get().AbsPath(path).SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var table metav1.Table
			if err := json.Unmarshal(raw, &table); err != nil {
				t.Fatal(err)
			}
			cols := a.crds[kind].Spec.Versions[0].AdditionalPrinterColumns
			if len(table.ColumnDefinitions) != len(cols)+1 || len(table.Rows) != 1 {
				t.Fatalf("table has %d columns and %d rows, want Name + %d printer columns and 1 row", len(table.ColumnDefinitions), len(table.Rows), len(cols))
			}
			got := map[string]string{}
			for i, cd := range table.ColumnDefinitions {
				got[cd.Name] = fmt.Sprint(table.Rows[0].Cells[i])
			}
			for name, v := range cells {
				if got[name] != v {
					t.Errorf("column %s = %q, want %q (row %v)", name, got[name], v, got)
				}
			}
		})
	}
}
