package policy

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

func qty(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

func TestNewAlgorithm(t *testing.T) {
	tests := []struct {
		name     string
		alg      hcav1.Algorithm
		wantName string
		wantErr  string
	}{
		{"default is adaptive", hcav1.Algorithm{}, "adaptive", ""},
		{"adaptive", hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive}, "adaptive", ""},
		{"kubernetes", hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes}, "kubernetes", ""},
		{"adaptive horizon out of range", hcav1.Algorithm{Name: hcav1.AlgorithmAdaptive, Adaptive: &hcav1.AdaptiveAlgorithm{ForecastHorizon: &metav1.Duration{Duration: 2 * time.Hour}}}, "", "spec.algorithm.adaptive: adaptive algorithm: Horizon is 2h0m0s"},
		{"frss", hcav1.Algorithm{Name: hcav1.AlgorithmFRSS}, "frss", ""},
		{"panic", hcav1.Algorithm{Name: hcav1.AlgorithmPanic}, "panic", ""},
		{"unknown", hcav1.Algorithm{Name: "magic"}, "", `spec.algorithm.name "magic" is unknown`},
		{"tolerance out of range", hcav1.Algorithm{Name: hcav1.AlgorithmFRSS, FRSS: &hcav1.FRSSAlgorithm{Tolerance: qty("1")}}, "", "spec.algorithm.frss.tolerance is 1: use a value in [0, 1)"},
		{"panic window too long", hcav1.Algorithm{Name: hcav1.AlgorithmPanic, Panic: &hcav1.PanicAlgorithm{PanicWindow: &metav1.Duration{Duration: time.Minute}}}, "", "panicWindow (1m0s) is not shorter than stableWindow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAlgorithm(tt.alg, true)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Name() != tt.wantName {
				t.Fatalf("Name() = %q, want %q", a.Name(), tt.wantName)
			}
		})
	}
}

func TestDecisionInterval(t *testing.T) {
	for name, want := range map[hcav1.AlgorithmName]time.Duration{"": 2 * time.Second, hcav1.AlgorithmAdaptive: 2 * time.Second, hcav1.AlgorithmPanic: 2 * time.Second,
		hcav1.AlgorithmKubernetes: 15 * time.Second, hcav1.AlgorithmFRSS: 15 * time.Second} {
		if got := DecisionInterval(name); got != want {
			t.Errorf("DecisionInterval(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestConfigsOverDefaults(t *testing.T) {
	f, err := FRSSConfig(&hcav1.FRSSAlgorithm{DownWindow: &metav1.Duration{Duration: 10 * time.Second}, ShrinkStep: 4})
	if err != nil {
		t.Fatal(err)
	}
	def := scaling.DefaultFRSSConfig()
	if f.DownWindow != 10*time.Second || f.ShrinkStep != 4 || f.Tolerance != def.Tolerance || f.ScaleUpRate != def.ScaleUpRate {
		t.Fatalf("FRSSConfig = %+v, want down window 10s, shrink 4 and the defaults' tolerance %v and rate %v", f, def.Tolerance, def.ScaleUpRate)
	}
	k, err := KubernetesConfig(&hcav1.KubernetesAlgorithm{Tolerance: qty("0.05"), ScaleDown: &hcav1.ScalingRules{StabilizationWindow: &metav1.Duration{Duration: time.Minute}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if k.ScaleUp.Tolerance != 0.05 || k.ScaleDown.Tolerance != 0.05 || k.ScaleDown.StabilizationWindow != time.Minute || !k.Utilization {
		t.Fatalf("KubernetesConfig = %+v", k)
	}
	a, err := AdaptiveConfig(&hcav1.AdaptiveAlgorithm{ForecastHorizon: &metav1.Duration{Duration: 90 * time.Second}, SeasonalPeriod: &metav1.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	ad := scaling.DefaultAdaptiveConfig()
	if a.Horizon != 90*time.Second || a.SeasonalPeriod != 0 || a.ScaleDownWindow != ad.ScaleDownWindow || a.Step != ad.Step {
		t.Fatalf("AdaptiveConfig = %+v, want horizon 90s, no seasonal period and the defaults' window %v and step %v", a, ad.ScaleDownWindow, ad.Step)
	}
	h, err := AdaptiveConfig(&hcav1.AdaptiveAlgorithm{HeadroomPercent: 25, HeadroomReplicas: 2})
	if err != nil {
		t.Fatal(err)
	}
	if h.HeadroomPercent != 25 || h.HeadroomReplicas != 2 || h.Horizon != ad.Horizon {
		t.Fatalf("AdaptiveConfig = %+v, want headroom 25 %% / 2 replicas over the default horizon %v", h, ad.Horizon)
	}
	p, err := PanicConfig(&hcav1.PanicAlgorithm{StableWindow: &metav1.Duration{Duration: 120 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if p.PanicWindowPercentage != 5 {
		t.Fatalf("panic window percentage = %v, want 5 (6 s of 120 s)", p.PanicWindowPercentage)
	}
}

// TestKubernetesBehaviorBlock: Kubernetes fills the behavior defaults only
// when spec.behavior is given (SetDefaults_HorizontalPodAutoscalerBehavior
// checks Behavior != nil); without one horizontal.go takes the legacy
// normalizeDesiredReplicas. Our API's behavior block is scaleUp/scaleDown
// under algorithm.kubernetes.
func TestKubernetesBehaviorBlock(t *testing.T) {
	win := &hcav1.ScalingRules{StabilizationWindow: &metav1.Duration{Duration: time.Minute}}
	tests := []struct {
		name   string
		k      *hcav1.KubernetesAlgorithm
		legacy bool
	}{
		{"no kubernetes parameters", nil, true},
		{"only a tolerance", &hcav1.KubernetesAlgorithm{Tolerance: qty("0.2")}, true},
		{"scaleUp given", &hcav1.KubernetesAlgorithm{ScaleUp: win}, false},
		{"scaleDown given", &hcav1.KubernetesAlgorithm{ScaleDown: win}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := KubernetesConfig(tt.k, true)
			if err != nil {
				t.Fatal(err)
			}
			if c.Legacy != tt.legacy {
				t.Fatalf("Legacy = %v, want %v", c.Legacy, tt.legacy)
			}
		})
	}
}

// TestNewAlgorithmForMetrics: one instance decides over a policy's
// metrics, and for kubernetes readiness counts for CPU only (groupPods),
// per metric (IgnoreReadiness). Seen through a decision: 2 Ready pods at
// 80 % and a running pod that is not Ready at 20 %, target 50, current 3.
// CPU ignores the third pod and, the ratio 1.6 being above 1, counts it at
// 0: 160/3 = 53 %, within the 0.1 tolerance, hold 3. Memory counts it:
// 60 %, ratio 1.2, ceil(3.6) = 4; with both metrics the highest, 4, wins.
func TestNewAlgorithmForMetrics(t *testing.T) {
	pods := []scaling.PodSample{{Value: 80, Ready: true}, {Value: 80, Ready: true}, {Value: 20}}
	metric := func(r hcav1.ResourceName) hcav1.MetricSpec {
		return hcav1.MetricSpec{Type: hcav1.MetricResource, Resource: &hcav1.ResourceMetric{Name: r, TargetAverageUtilization: 50}}
	}
	for _, tt := range []struct {
		name string
		res  []hcav1.ResourceName
		want int32
	}{
		{"cpu", []hcav1.ResourceName{hcav1.ResourceCPU}, 3},
		{"memory", []hcav1.ResourceName{hcav1.ResourceMemory}, 4},
		{"cpu and memory", []hcav1.ResourceName{hcav1.ResourceCPU, hcav1.ResourceMemory}, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ms []hcav1.MetricSpec
			var ins []scaling.Input
			for _, r := range tt.res {
				m := metric(r)
				ms = append(ms, m)
				ins = append(ins, scaling.Input{Now: time.Unix(1e9, 0), Current: 3, Min: 1, Max: 10, Target: 50, Pods: pods, IgnoreReadiness: IgnoreReadiness(m)})
			}
			a, err := NewAlgorithmForMetrics(hcav1.Algorithm{Name: hcav1.AlgorithmKubernetes}, ms)
			if err != nil {
				t.Fatal(err)
			}
			if d := a.DecideMetrics(ins); d.Desired != tt.want {
				t.Fatalf("got %d, want %d (%s)", d.Desired, tt.want, d.Reason)
			}
		})
	}
	if a, err := NewAlgorithmForMetrics(hcav1.Algorithm{Name: hcav1.AlgorithmPanic}, []hcav1.MetricSpec{{Type: hcav1.MetricPromQL}}); err != nil || a.Name() != "panic" {
		t.Fatalf("panic: %v, %v", a, err)
	}
	if IgnoreReadiness(metric(hcav1.ResourceCPU)) || !IgnoreReadiness(metric(hcav1.ResourceMemory)) || !IgnoreReadiness(hcav1.MetricSpec{Type: hcav1.MetricPromQL}) {
		t.Fatal("IgnoreReadiness: want false for CPU only")
	}
}
