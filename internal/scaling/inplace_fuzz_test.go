package scaling

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fuzzResizePods decodes raw into at most 64 pods, 3 bytes each: flags (bit 0
// SpecAtTarget, bit 1 StatusAtTarget, bit 2 Refused), the resize state (mod
// 4: none, Deferred, Infeasible, InProgress) and Since, 30 s a step after t0
// (0 to 2 h 7 min 30 s: both sides of the 5 min and 1 h bounds).
func fuzzResizePods(raw []byte, t0 time.Time) []PodResize {
	states := []string{ResizeStateNone, ResizeStateDeferred, ResizeStateInfeasible, ResizeStateInProgress}
	var pods []PodResize
	for i := 0; i+2 < len(raw) && len(pods) < 64; i += 3 {
		p := PodResize{Name: fmt.Sprintf("p%d", len(pods)), SpecAtTarget: raw[i]&1 != 0, StatusAtTarget: raw[i]&2 != 0,
			State: states[raw[i+1]%4], Since: t0.Add(time.Duration(raw[i+2]) * 30 * time.Second)}
		if raw[i]&4 != 0 {
			p.Refused = "node didn't have enough allocatable resources: cpu"
		}
		pods = append(pods, p)
	}
	return pods
}

// FuzzDecideInPlace: no panic on any pods, instant and bounds, and the
// decision is the one the rules give, checked against an independent reading
// of them: Recreate or no pods/resize roll; otherwise one pod whose resize
// is refused, Infeasible, or Deferred/InProgress past its bound (strictly)
// rolls, whatever the other pods and their order, the reason naming the
// first such pod; else the pods whose spec does not ask the target yet are
// resized, in their order, and the workload is done only when none is left
// and every pod reports the target. A decision is one of roll, resize/wait or
// done, never two.
func FuzzDecideInPlace(f *testing.F) {
	// Seeds from TestDecideInPlace: two old pods; one done and one old; in
	// progress 10 s and past the hour; Deferred 4 min and past 5 min and a
	// 30 s bound; Infeasible beside a done pod; refused beside an old one;
	// Recreate; no pods/resize.
	f.Add(byte(1), true, int64(0), int64(0), int64(0), []byte{0, 0, 0, 0, 0, 0})
	f.Add(byte(1), true, int64(0), int64(0), int64(0), []byte{3, 0, 0, 0, 0, 0})
	f.Add(byte(1), true, int64(10), int64(0), int64(0), []byte{1, 3, 0})
	f.Add(byte(1), true, int64(3601), int64(0), int64(0), []byte{1, 3, 0})
	f.Add(byte(1), true, int64(240), int64(0), int64(0), []byte{1, 1, 0})
	f.Add(byte(1), true, int64(301), int64(0), int64(0), []byte{1, 1, 0})
	f.Add(byte(1), true, int64(31), int64(30), int64(0), []byte{1, 1, 0})
	f.Add(byte(1), true, int64(0), int64(0), int64(0), []byte{3, 0, 0, 1, 2, 0})
	f.Add(byte(1), true, int64(0), int64(0), int64(0), []byte{0, 0, 0, 4, 0, 0})
	f.Add(byte(0), true, int64(0), int64(0), int64(0), []byte{0, 0, 0})
	f.Add(byte(1), false, int64(0), int64(0), int64(0), []byte{0, 0, 0})
	f.Add(byte(2), true, int64(-5), int64(-1), int64(-1), []byte{})
	f.Fuzz(func(t *testing.T, mode byte, supported bool, nowSec, deferredSec, inProgressSec int64, raw []byte) {
		t0 := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
		in := InPlaceInput{Mode: []ResizeMode{ResizeRecreate, ResizeInPlaceOrRecreate, ""}[mode%3], Supported: supported,
			Pods: fuzzResizePods(raw, t0), Now: t0.Add(time.Duration(nowSec%(3*86400)) * time.Second),
			DeferredBound: time.Duration(deferredSec%7200) * time.Second, InProgressBound: time.Duration(inProgressSec%(3*3600)) * time.Second}
		got := DecideInPlace(in)
		if again := DecideInPlace(in); !reflect.DeepEqual(got, again) {
			t.Fatalf("two decisions on one input: %+v then %+v", got, again)
		}
		if got.Fallback && (len(got.Resize) > 0 || got.Done || got.Reason == "") || !got.Fallback && got.Reason != "" || got.Done && len(got.Resize) > 0 {
			t.Fatalf("decision %+v is more than one of roll, resize/wait, done (or a roll without its reason)", got)
		}

		// The rules, read independently.
		switch {
		case in.Mode == ResizeRecreate:
			if !got.Fallback || got.Reason != "resizePolicy is Recreate" {
				t.Fatalf("Recreate: %+v, want the rolling update", got)
			}
			return
		case !in.Supported:
			if !got.Fallback || !strings.Contains(got.Reason, "pods/resize") {
				t.Fatalf("no pods/resize: %+v, want the rolling update saying so", got)
			}
			return
		}
		deferred, inProgress := in.DeferredBound, in.InProgressBound
		if deferred <= 0 {
			deferred = DefaultResizeDeferredBound
		}
		if inProgress <= 0 {
			inProgress = DefaultResizeInProgressBound
		}
		final := func(p PodResize) bool {
			if p.Refused != "" {
				return true
			}
			if !p.SpecAtTarget {
				return false
			}
			age := in.Now.Sub(p.Since)
			return p.State == ResizeStateInfeasible || p.State == ResizeStateDeferred && age > deferred || p.State == ResizeStateInProgress && age > inProgress
		}
		if i := slices.IndexFunc(in.Pods, final); i >= 0 {
			if !got.Fallback || !strings.HasPrefix(got.Reason, "pod "+in.Pods[i].Name+": ") {
				t.Fatalf("pod %+v cannot be resized in place (the first such): decision %+v, want the rolling update naming it", in.Pods[i], got)
			}
			// Order does not matter to whether the workload rolls.
			rev := in
			rev.Pods = slices.Clone(in.Pods)
			slices.Reverse(rev.Pods)
			if !DecideInPlace(rev).Fallback {
				t.Fatalf("the pods in reverse order do not roll: %+v", DecideInPlace(rev))
			}
			return
		}
		if got.Fallback {
			t.Fatalf("no pod stands in the way of resizing in place, yet the decision rolls: %+v", got)
		}
		var resize []string
		done := true
		for _, p := range in.Pods {
			if !p.SpecAtTarget {
				resize = append(resize, p.Name)
			}
			done = done && p.SpecAtTarget && p.StatusAtTarget
		}
		if !slices.Equal(got.Resize, resize) || got.Done != done {
			t.Fatalf("decision %+v, want resize %v, done %v", got, resize, done)
		}
	})
}
