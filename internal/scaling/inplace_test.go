package scaling

import (
	"reflect"
	"testing"
	"time"
)

func TestDecideInPlace(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	running := PodResize{Name: "a", SpecAtTarget: true, StatusAtTarget: true}
	old := PodResize{Name: "b"}
	tests := []struct {
		name string
		in   InPlaceInput
		want InPlaceDecision
	}{
		{"Recreate: always the template",
			InPlaceInput{Mode: ResizeRecreate, Supported: true, Pods: []PodResize{old}, Now: t0},
			InPlaceDecision{Fallback: true, Reason: "resizePolicy is Recreate"}},
		{"no pods/resize: the template",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Pods: []PodResize{old}, Now: t0},
			InPlaceDecision{Fallback: true, Reason: "the cluster does not serve pods/resize (in-place pod resize needs Kubernetes 1.33 or later)"}},
		{"two pods at the old size: resize both",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{{Name: "a"}, {Name: "b"}}, Now: t0},
			InPlaceDecision{Resize: []string{"a", "b"}}},
		{"one done, one new pod at the old size: resize the new one",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{running, old}, Now: t0},
			InPlaceDecision{Resize: []string{"b"}}},
		{"all running with the target: done",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{running}, Now: t0},
			InPlaceDecision{Done: true}},
		{"no pods: done (nothing to resize)",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Now: t0},
			InPlaceDecision{Done: true}},
		{"asked, kubelet in progress 10 s: wait",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{{Name: "a", SpecAtTarget: true, State: ResizeStateInProgress, Since: t0}}, Now: t0.Add(10 * time.Second)},
			InPlaceDecision{}},
		{"in progress past the hour: roll",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{{Name: "a", SpecAtTarget: true, State: ResizeStateInProgress, Since: t0}}, Now: t0.Add(time.Hour + time.Second)},
			InPlaceDecision{Fallback: true, Reason: "pod a: resize in progress for more than 1h0m0s"}},
		{"deferred 4 min: wait",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{{Name: "a", SpecAtTarget: true, State: ResizeStateDeferred, Since: t0}}, Now: t0.Add(4 * time.Minute)},
			InPlaceDecision{}},
		{"deferred past 5 min: roll",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{{Name: "a", SpecAtTarget: true, State: ResizeStateDeferred, Since: t0}}, Now: t0.Add(5*time.Minute + time.Second)},
			InPlaceDecision{Fallback: true, Reason: "pod a: resize Deferred for more than 5m0s"}},
		{"deferred past a 30 s bound: roll",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, DeferredBound: 30 * time.Second, Pods: []PodResize{{Name: "a", SpecAtTarget: true, State: ResizeStateDeferred, Since: t0}}, Now: t0.Add(31 * time.Second)},
			InPlaceDecision{Fallback: true, Reason: "pod a: resize Deferred for more than 30s"}},
		{"infeasible: roll at once",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{running, {Name: "b", SpecAtTarget: true, State: ResizeStateInfeasible, Since: t0}}, Now: t0},
			InPlaceDecision{Fallback: true, Reason: "pod b: resize Infeasible on its node"}},
		{"refused by the apiserver: roll, even with others to resize",
			InPlaceInput{Mode: ResizeInPlaceOrRecreate, Supported: true, Pods: []PodResize{old, {Name: "c", Refused: "node didn't have enough allocatable resources: cpu"}}, Now: t0},
			InPlaceDecision{Fallback: true, Reason: "pod c: resize refused: node didn't have enough allocatable resources: cpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecideInPlace(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecideInPlace() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
