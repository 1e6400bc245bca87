package scaling

import (
	"math"
	"strconv"
	"testing"
	"time"
)

// algT0 is the time of the first decision in the algorithm tests.
var algT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// algAt returns algT0 plus d.
func algAt(d time.Duration) time.Time { return algT0.Add(d) }

// readyPods returns Ready pods with the given values.
func readyPods(values ...float64) []PodSample {
	ps := make([]PodSample, len(values))
	for i, v := range values {
		ps[i] = PodSample{Name: "pod-" + strconv.Itoa(i), Value: v, Ready: true, StartedAt: algT0.Add(-time.Hour)}
	}
	return ps
}

// podSpec describes a pod for mixedPods: a value, or "unready", or
// "missing".
type podSpec struct {
	v       float64
	unready bool
	missing bool
}

func mixedPods(specs ...podSpec) []PodSample {
	ps := make([]PodSample, len(specs))
	for i, s := range specs {
		ps[i] = PodSample{Name: "pod-" + strconv.Itoa(i), Value: s.v, Ready: !s.unready, Missing: s.missing}
	}
	return ps
}

// samePods returns n Ready pods all at value v.
func samePods(n int, v float64) []PodSample {
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = v
	}
	return readyPods(vs...)
}

func ext(v float64) *float64 { return &v }

// step is one decision in a scenario: the input fields that change and the
// replica count expected.
type step struct {
	at   time.Duration
	pods []PodSample
	ext  *float64
	want int32
}

// runSteps feeds steps to alg with the given bounds and target. A step's
// current replica count is the previous decision (the first step's current is
// first), as if each decision were applied before the next.
func runSteps(t *testing.T, alg Algorithm, first, minR, maxR int32, target float64, steps []step) {
	t.Helper()
	cur := first
	for i, s := range steps {
		in := Input{Now: algAt(s.at), Current: cur, Min: minR, Max: maxR, Target: target, Pods: s.pods, External: s.ext}
		d := alg.Decide(in)
		if d.Desired != s.want {
			t.Fatalf("step %d at %v: current %d: got %d, want %d (reason: %s)", i, s.at, cur, d.Desired, s.want, d.Reason)
		}
		if d.Desired < minR || d.Desired > maxR {
			t.Fatalf("step %d: %d outside [%d, %d]", i, d.Desired, minR, maxR)
		}
		cur = d.Desired
	}
}

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }

// allAlgorithms returns a fresh instance of every algorithm with its
// defaults.
func allAlgorithms(t testing.TB) []Algorithm {
	t.Helper()
	k, err := NewKubernetes(DefaultKubernetesConfig())
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFRSS(DefaultFRSSConfig())
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPanic(DefaultPanicConfig())
	if err != nil {
		t.Fatal(err)
	}
	return []Algorithm{k, f, p}
}
