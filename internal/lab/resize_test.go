package lab

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func rl(cpu, mem string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
}

// resizePod is a running one-container pod whose spec asks spec and whose
// status reports status (nil: nothing reported yet), with conds.
func resizePod(spec corev1.ResourceList, status corev1.ResourceList, conds ...corev1.PodCondition) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: spec, Limits: spec}}}
	cs := corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	if status != nil {
		cs.Resources = &corev1.ResourceRequirements{Requests: status, Limits: status}
		cs.AllocatedResources = status
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	p.Status.Conditions = conds
	return p
}

func TestKubeletResizeStep(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	inProgress := corev1.PodCondition{Type: corev1.PodResizeInProgress, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}
	node := rl("4", "8Gi")
	cases := []struct {
		name      string
		pod       *corev1.Pod
		others    corev1.ResourceList
		now       time.Time
		changed   bool
		reported  string // cpu the status reports after the step
		condition corev1.PodConditionType
		reason    string
	}{
		// A kubelet reports the resources a container started with.
		{"started: report resources", resizePod(rl("100m", "64Mi"), nil), rl("0", "0"), t0, true, "100m", "", ""},
		{"nothing to do", resizePod(rl("100m", "64Mi"), rl("100m", "64Mi")), rl("0", "0"), t0, false, "100m", "", ""},
		// 200m on a 4-CPU node with 1 CPU used by others: fits, starts.
		{"resize fits: in progress", resizePod(rl("200m", "64Mi"), rl("100m", "64Mi")), rl("1", "1Gi"), t0, true, "100m", corev1.PodResizeInProgress, ""},
		// Half the 1 s delay gone: still in progress, nothing to write.
		{"in progress within delay", resizePod(rl("200m", "64Mi"), rl("100m", "64Mi"), inProgress), rl("1", "1Gi"), t0.Add(500 * time.Millisecond), false, "100m", corev1.PodResizeInProgress, ""},
		{"in progress done", resizePod(rl("200m", "64Mi"), rl("100m", "64Mi"), inProgress), rl("1", "1Gi"), t0.Add(time.Second), true, "200m", "", ""},
		// 5 CPU > the node's 4 allocatable: never fits.
		{"beyond the node: infeasible", resizePod(rl("5", "64Mi"), rl("100m", "64Mi")), rl("0", "0"), t0, true, "100m", corev1.PodResizePending, corev1.PodReasonInfeasible},
		// 3 CPU fits 4, but 2 are taken by others: deferred.
		{"beside others: deferred", resizePod(rl("3", "64Mi"), rl("100m", "64Mi")), rl("2", "0"), t0, true, "100m", corev1.PodResizePending, corev1.PodReasonDeferred},
		// The spec went back to what runs: the conditions go.
		{"reverted: conditions cleared", resizePod(rl("100m", "64Mi"), rl("100m", "64Mi"), inProgress), rl("0", "0"), t0, true, "100m", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, changed := KubeletResizeStep(c.pod, node, c.others, c.now, time.Second)
			if changed != c.changed {
				t.Errorf("changed = %v, want %v", changed, c.changed)
			}
			got := st.ContainerStatuses[0].Resources.Requests[corev1.ResourceCPU]
			if got.Cmp(resource.MustParse(c.reported)) != 0 {
				t.Errorf("reported cpu = %s, want %s", got.String(), c.reported)
			}
			var resizeConds []corev1.PodCondition
			for _, cond := range st.Conditions {
				if cond.Type == corev1.PodResizePending || cond.Type == corev1.PodResizeInProgress {
					resizeConds = append(resizeConds, cond)
				}
			}
			if c.condition == "" {
				if len(resizeConds) != 0 {
					t.Errorf("resize conditions = %v, want none", resizeConds)
				}
				return
			}
			if len(resizeConds) != 1 || resizeConds[0].Type != c.condition || resizeConds[0].Reason != c.reason {
				t.Errorf("resize conditions = %v, want %s/%s", resizeConds, c.condition, c.reason)
			}
		})
	}
}
