package scaling

import (
	"testing"
	"time"
)

// benchDecide measures one Decide with 100 pods, time advancing 15 s per
// decision (an HPA sync period) so the history reaches its steady size.
func benchDecide(b *testing.B, alg Algorithm) {
	pods := make([]PodSample, 100)
	for i := range pods {
		pods[i] = PodSample{Name: "p", Value: float64(40 + i%30), Ready: i%17 != 0, Missing: i%23 == 0}
	}
	in := Input{Now: algT0, Current: 100, Min: 1, Max: 1000, Target: 55, Pods: pods}
	b.ReportAllocs()
	for b.Loop() {
		in.Now = in.Now.Add(15 * time.Second)
		d := alg.Decide(in)
		if d.Desired < in.Min || d.Desired > in.Max {
			b.Fatalf("decision %d outside bounds", d.Desired)
		}
	}
}

func BenchmarkKubernetesDecide(b *testing.B) {
	k, err := NewKubernetes(DefaultKubernetesConfig())
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, k)
}

func BenchmarkFRSSDecide(b *testing.B) {
	f, err := NewFRSS(DefaultFRSSConfig())
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, f)
}

// BenchmarkAdaptiveDecide: the history reaches a day (the default
// seasonal period) of 15 s steps, so the seasonal model competes.
func BenchmarkAdaptiveDecide(b *testing.B) {
	a, err := NewAdaptive(DefaultAdaptiveConfig())
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, a)
}

func BenchmarkPanicDecide(b *testing.B) {
	p, err := NewPanic(DefaultPanicConfig())
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, p)
}

// BenchmarkKubernetesDecideMetrics is one HPA sync over three metrics of
// 100 pods each, normalised once.
func BenchmarkKubernetesDecideMetrics(b *testing.B) {
	k, err := NewKubernetes(DefaultKubernetesConfig())
	if err != nil {
		b.Fatal(err)
	}
	pods := make([]PodSample, 100)
	for i := range pods {
		pods[i] = PodSample{Name: "p", Value: float64(40 + i%30), Ready: i%17 != 0, Missing: i%23 == 0}
	}
	in := Input{Now: algT0, Current: 100, Min: 1, Max: 1000, Target: 55, Pods: pods}
	ins := []Input{in, in, in}
	ins[1].Target, ins[2].Target = 45, 65
	b.ReportAllocs()
	for b.Loop() {
		for i := range ins {
			ins[i].Now = ins[i].Now.Add(15 * time.Second)
		}
		if d := k.DecideMetrics(ins); d.Desired < in.Min || d.Desired > in.Max {
			b.Fatalf("decision %d outside bounds", d.Desired)
		}
	}
}
