package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestMultiObjectiveSLOLab: an SLO of kind MultiObjective, end to end. The
// SLO controller refuses to write the strategy while the model ConfigMap is
// missing (Ready=False, StrategyInvalid, naming the ConfigMap), then writes a
// MultiObjectiveElasticityStrategy named after the SLO, with its class, its
// target and its 100 ms latency threshold as the desired response time; the
// MultiObjective controller acts on it: at 60 req/s nothing changes, at 200
// req/s replicas and pod resources change in one patch and the response time
// comes back under 100 ms (the average the strategy measures, and the SLO's
// median). Switching the SLO's kind to Horizontal removes the object.
func TestMultiObjectiveSLOLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	l := newSLOLab(t, ctx)
	prom, err := metrics.NewPrometheus(l.prom, metrics.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ns := l.namespace(t, ctx, "slomoha")
	l.startManager(t, ctx, ns, prom)
	l.startMOHAManager(t, ctx, ns, prom)

	l.mohaDeployment(t, ctx, ns, "web")
	l.mohaLoad(t, ns, "web", 60)
	s := latencySLO(ns, "web-latency", "web", 100*time.Millisecond, 1, 10)
	s.Spec.SLO.Latency.Percentile = resource.MustParse("50")
	s.Spec.ElasticityStrategy.Kind = hcav1.StrategyMultiObjective
	s.Spec.ElasticityStrategy.MultiObjective = &hcav1.MultiObjectiveSLOConfig{Desired: &mohaUsage, MultiObjectiveStaticConfig: mohaStatic("web-model")}
	if err := l.c.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: s.Name}
	var mo hcav1.MultiObjectiveElasticityStrategy

	t.Run("missing model ConfigMap: StrategyInvalid, no strategy", func(t *testing.T) {
		sloEventually(t, 60*time.Second, "Ready=False StrategyInvalid", func() (bool, string) {
			got := getSLO(t, l.c, ns, s.Name)
			c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionReady)
			return c != nil && c.Status == metav1.ConditionFalse && c.Reason == "StrategyInvalid" &&
				strings.Contains(c.Message, "spec.elasticityStrategy.multiObjective.model.configMapName: ConfigMap "+ns+"/web-model does not exist"), describeSLO(got)
		})
		if err := l.c.Get(ctx, key, &mo); !apierrors.IsNotFound(err) {
			t.Fatalf("strategy object without a model: err %v", err)
		}
	})

	t.Run("the SLO writes the strategy object", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-model"}, Data: map[string]string{"model.json": mohaModelJSON(t)}}
		if err := l.c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		sloEventually(t, 30*time.Second, "the MultiObjective strategy written", func() (bool, string) {
			got := getSLO(t, l.c, ns, s.Name)
			return l.c.Get(ctx, key, &mo) == nil && meta.IsStatusConditionTrue(got.Status.Conditions, hcav1.ConditionReady) &&
				got.Status.Strategy != nil && got.Status.Strategy.Kind == controller.KindMultiObjective, describeSLO(got)
		})
		if mo.Labels[controller.ClassLabel] != sloClass || mo.Labels[controller.SLOLabel] != s.Name || !metav1.IsControlledBy(&mo, getSLO(t, l.c, ns, s.Name)) {
			t.Errorf("strategy labels %v, owners %+v: want the SLO's class and name, controlled by it", mo.Labels, mo.OwnerReferences)
		}
		if mo.Spec.Target.Name != "web" || mo.Spec.Desired.ResponseTimeMillis != 100 || mo.Spec.Desired.CPUUsagePercent != 80 ||
			mo.Spec.Model.ConfigMapName != "web-model" || mo.Spec.Ranges.MaxReplicas != 10 || mo.Spec.Interval.Duration != 3*time.Second {
			t.Errorf("strategy spec %+v: want target web, 100 ms from the threshold, the SLO's static configuration", mo.Spec)
		}
	})

	t.Run("load step changes replicas and resources together", func(t *testing.T) {
		var rounds []time.Time
		sloEventually(t, 90*time.Second, "three decisions at 60 req/s", func() (bool, string) {
			m := getMOHA(t, l, ns, s.Name)
			if !meta.IsStatusConditionTrue(m.Status.Conditions, hcav1.ConditionReady) || m.Status.LastDecisionTime == nil {
				return false, describeMOHA(m)
			}
			if rps := measured(m, "requestsPerSecond"); rps < 55 || rps > 65 {
				return false, describeMOHA(m)
			}
			if len(rounds) == 0 || !m.Status.LastDecisionTime.Time.Equal(rounds[len(rounds)-1]) {
				rounds = append(rounds, m.Status.LastDecisionTime.Time)
			}
			return len(rounds) >= 3, describeMOHA(m)
		})
		if _, d := sloReplicas(t, l.c, ns, "web"); podConfig(d) != "1 x 300m/400Mi" || d.Generation != 1 {
			t.Fatalf("at 60 req/s the Deployment changed to %s (generation %d)", podConfig(d), d.Generation)
		}

		l.mohaLoad(t, ns, "web", 200)
		sloEventually(t, 90*time.Second, "the first change after the load step", func() (bool, string) {
			_, d := sloReplicas(t, l.c, ns, "web")
			if d.Generation == 1 {
				return false, podConfig(d) + "; " + describeMOHA(getMOHA(t, l, ns, s.Name))
			}
			c := d.Spec.Template.Spec.Containers[0]
			if *d.Spec.Replicas < 2 || (c.Resources.Limits.Cpu().Cmp(resource.MustParse("300m")) == 0 && c.Resources.Limits.Memory().Cmp(resource.MustParse("400Mi")) == 0) {
				t.Errorf("first change %s: want more replicas and other pod resources in one patch", podConfig(d))
			}
			t.Logf("first change: %s", podConfig(d))
			return true, ""
		})
		sloEventually(t, 4*time.Minute, "200 req/s served within 100 ms, the SLO met", func() (bool, string) {
			m, got := getMOHA(t, l, ns, s.Name), getSLO(t, l.c, ns, s.Name)
			_, d := sloReplicas(t, l.c, ns, "web")
			rps, rt := measured(m, "requestsPerSecond"), measured(m, "responseTimeMillis")
			c := got.Status.CompliancePercent
			return rps > 190 && rt >= 0 && rt <= 100 && c != nil && *c <= 100, podConfig(d) + "; " + describeMOHA(m) + "; SLO " + describeSLO(got)
		})
		_, d := sloReplicas(t, l.c, ns, "web")
		t.Logf("settled: %s; %s; SLO %s", podConfig(d), describeMOHA(getMOHA(t, l, ns, s.Name)), describeSLO(getSLO(t, l.c, ns, s.Name)))
		// The SLO's evaluations (every 2 s) did not rewrite the strategy's spec.
		if g := getMOHA(t, l, ns, s.Name).Generation; g != 1 {
			t.Errorf("strategy generation %d, want 1: the SLO controller rewrote an unchanged spec", g)
		}
	})

	t.Run("switching to Horizontal removes the MultiObjective strategy", func(t *testing.T) {
		got := getSLO(t, l.c, ns, s.Name)
		before := got.DeepCopy()
		got.Spec.ElasticityStrategy.Kind = hcav1.StrategyHorizontal
		if err := l.c.Patch(ctx, got, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		sloEventually(t, 60*time.Second, "MultiObjective strategy gone, Horizontal written", func() (bool, string) {
			got := getSLO(t, l.c, ns, s.Name)
			gone := apierrors.IsNotFound(l.c.Get(ctx, key, &hcav1.MultiObjectiveElasticityStrategy{}))
			var hes hcav1.HorizontalElasticityStrategy
			return gone && l.c.Get(ctx, key, &hes) == nil && got.Status.Strategy != nil && got.Status.Strategy.Kind == controller.KindHorizontalStrategy, describeSLO(got)
		})
	})
}
