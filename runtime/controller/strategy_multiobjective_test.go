package controller

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
)

func TestMultiObjectiveConfig(t *testing.T) {
	dep := func(res corev1.ResourceRequirements, replicas *int32, annotations ...string) *appsv1.Deployment {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
		for i := 0; i+1 < len(annotations); i += 2 {
			metav1.SetMetaDataAnnotation(&d.ObjectMeta, annotations[i], annotations[i+1])
		}
		d.Spec.Replicas = replicas
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar"}, {Name: "app", Resources: res}}
		return d
	}
	rl := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		want     moha.State
		bursting bool
		err      string
	}{
		{"limits", dep(corev1.ResourceRequirements{Limits: rl("0.5", "1Gi"), Requests: rl("100m", "64Mi")}, ptr.To[int32](3)),
			moha.State{CPULimitMilli: 500, MemoryLimitMiB: 1024, Replicas: 3}, false, ""},
		{"requests where no limit, replicas unset is 1", dep(corev1.ResourceRequirements{Requests: rl("250m", "300Mi")}, nil),
			moha.State{CPULimitMilli: 250, MemoryLimitMiB: 300, Replicas: 1}, false, ""},
		{"burst policy: the total, not the primary's share", dep(corev1.ResourceRequirements{Limits: rl("300m", "400Mi")}, ptr.To[int32](2),
			BurstTotalAnnotation, "6", BurstPrimaryAnnotation, "2"),
			moha.State{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 6}, true, ""},
		{"burst policy, request pending: the requested total", dep(corev1.ResourceRequirements{Limits: rl("300m", "400Mi")}, ptr.To[int32](2),
			BurstTotalAnnotation, "6", BurstRequestedTotalAnnotation, "9"),
			moha.State{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 9}, true, ""},
		{"nothing declared", dep(corev1.ResourceRequirements{}, ptr.To[int32](1)), moha.State{}, false,
			`container "app" of Deployment shop/web declares no CPU or memory limit (or request): set resources.limits.cpu and resources.limits.memory`},
		{"scaled to zero", dep(corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, ptr.To[int32](0)), moha.State{}, false,
			"Deployment shop/web is scaled to 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := containerIndex(&tc.d.Spec.Template.Spec, "app")
			if err != nil || idx != 1 {
				t.Fatalf("containerIndex = %d, %v", idx, err)
			}
			got, bursting, err := currentConfig(tc.d, idx)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want || bursting != tc.bursting {
				t.Fatalf("got %+v, bursting %v, %v; want %+v, bursting %v", got, bursting, err, tc.want, tc.bursting)
			}
			// setConfig writes a step's configuration back; reading it again
			// gives that configuration, requests = limits. With a burst
			// policy, spec.replicas (the primary's share) is left alone and
			// the total is requested.
			spec := ptr.Deref(tc.d.Spec.Replicas, 1)
			setConfig(tc.d, idx, moha.StepResult{CPULimitMilli: 375, MemoryLimitMiB: 450, Replicas: 4}, bursting, got.Replicas)
			back, _, err := currentConfig(tc.d, idx)
			if err != nil || back != (moha.State{CPULimitMilli: 375, MemoryLimitMiB: 450, Replicas: 4}) {
				t.Errorf("after setConfig: %+v, %v", back, err)
			}
			if req, ok := tc.d.Annotations[BurstRequestedTotalAnnotation]; bursting && (*tc.d.Spec.Replicas != spec || req != "4") || !bursting && ok {
				t.Errorf("after setConfig: spec.replicas %d (was %d), requested total %q", *tc.d.Spec.Replicas, spec, req)
			}
			c := tc.d.Spec.Template.Spec.Containers[idx]
			if c.Resources.Requests.Cpu().String() != "375m" || c.Resources.Requests.Memory().String() != "450Mi" || tc.d.Spec.Template.Spec.Containers[0].Resources.Limits != nil {
				t.Errorf("resources %+v, sidecar %+v", c.Resources, tc.d.Spec.Template.Spec.Containers[0].Resources)
			}
		})
	}
	if _, err := containerIndex(&dep(corev1.ResourceRequirements{}, nil).Spec.Template.Spec, "db"); err == nil ||
		!strings.Contains(err.Error(), `spec.container "db" is not a container of the target's pod template`) {
		t.Errorf("unknown container: %v", err)
	}
}

func TestMultiObjectiveRemembered(t *testing.T) {
	now := time.Unix(10_000, 0)
	decided := metav1.NewTime(now.Add(-30 * time.Second))
	status := hcav1.MultiObjectiveElasticityStrategyStatus{LastDecisionTime: &decided, Replicas: 2,
		CPU: resource.NewMilliQuantity(300, resource.DecimalSI), Memory: resource.NewQuantity(400<<20, resource.BinarySI)}
	state := moha.State{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 2, RequestsPerSecond: 120, ResponseTimeMs: 15}
	tests := []struct {
		name      string
		status    func(*hcav1.MultiObjectiveElasticityStrategyStatus)
		state     func(*moha.State)
		lastScale time.Time
		want      bool
	}{
		{"never scaled, same configuration", nil, nil, time.Time{}, true},
		// Interval 30 s: a change 60 s ago has settled, 59 s ago not.
		{"scaled two intervals ago", nil, nil, now.Add(-60 * time.Second), true},
		{"scaled under two intervals ago", nil, nil, now.Add(-59 * time.Second), false},
		{"no decision yet", func(s *hcav1.MultiObjectiveElasticityStrategyStatus) { s.LastDecisionTime = nil }, nil, time.Time{}, false},
		{"replicas changed by someone else", nil, func(s *moha.State) { s.Replicas = 3 }, time.Time{}, false},
		{"CPU changed", nil, func(s *moha.State) { s.CPULimitMilli = 350 }, time.Time{}, false},
		{"memory changed", nil, func(s *moha.State) { s.MemoryLimitMiB = 450 }, time.Time{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, s := *status.DeepCopy(), state
			if tc.status != nil {
				tc.status(&st)
			}
			if tc.state != nil {
				tc.state(&s)
			}
			if !tc.lastScale.IsZero() {
				ls := metav1.NewTime(tc.lastScale)
				st.LastScaleTime = &ls
			}
			if got := historyFromStatus(&st).Settled(s, now, 60*time.Second); got != tc.want {
				t.Errorf("settled = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("status round trip", func(t *testing.T) {
		m := moha.Memory{Capacity: moha.DefaultMemoryCapacity}.
			Remember(moha.Measured{CPULimitMilli: 300, MemoryLimitMiB: 400, RequestsPerSecondPerPod: 60, ResponseTimeMs: 15.25}).
			Remember(moha.Measured{CPULimitMilli: 500, MemoryLimitMiB: 600, RequestsPerSecondPerPod: 123.456, ResponseTimeMs: 7})
		st := memoryToStatus(m)
		if len(st) != 2 || st[0].CPU.String() != "300m" || st[0].Memory.String() != "400Mi" || st[0].RequestsPerSecondPerPod != "60.00" || st[0].ResponseTimeMillis != "15.25" {
			t.Fatalf("memoryToStatus = %+v", st)
		}
		// 123.456 is kept to two decimals: 123.46.
		back := memoryFromStatus(st)
		want := []moha.Measured{{CPULimitMilli: 300, MemoryLimitMiB: 400, RequestsPerSecondPerPod: 60, ResponseTimeMs: 15.25}, {CPULimitMilli: 500, MemoryLimitMiB: 600, RequestsPerSecondPerPod: 123.46, ResponseTimeMs: 7}}
		if len(back.Entries) != 2 || back.Entries[0] != want[0] || back.Entries[1] != want[1] || back.Capacity != moha.DefaultMemoryCapacity {
			t.Errorf("memoryFromStatus = %+v, want %v", back, want)
		}
	})
	t.Run("unparsable entries dropped", func(t *testing.T) {
		st := []hcav1.MultiObjectiveMeasurement{
			{CPU: resource.MustParse("300m"), Memory: resource.MustParse("400Mi"), RequestsPerSecondPerPod: "x", ResponseTimeMillis: "1"},
			{CPU: resource.MustParse("300m"), Memory: resource.MustParse("400Mi"), RequestsPerSecondPerPod: "30", ResponseTimeMillis: "9"},
		}
		if got := memoryFromStatus(st); len(got.Entries) != 1 || got.Entries[0].RequestsPerSecondPerPod != 30 {
			t.Errorf("memoryFromStatus = %+v, want the second entry only", got)
		}
	})
}
