package moha

import (
	"sync"
	"testing"
)

var benchData = sync.OnceValues(func() ([]Sample, []Sample) {
	s, err := Synthesize(DefaultApp, PaperGrid(), 0.05, 1)
	if err != nil {
		panic(err)
	}
	return Split(s, 1)
})

// benchModels are the benchmarked models: every kind with its defaults, and
// the SVR with its grid search.
var benchModels = []struct {
	name string
	kind Kind
	opts Options
}{
	{"ols", KindOLS, Options{}}, {"bayes", KindBayes, Options{}}, {"svr", KindSVR, Options{}},
	{"mlp", KindMLP, Options{}}, {"svr-tuned", KindSVR, Options{TuneSVR: true}},
}

// BenchmarkFit trains each model (three regressors, one per target) on the
// training three quarters of the paper-sized synthetic dataset (2,343 samples):
// the paper's Table 2 training times.
func BenchmarkFit(b *testing.B) {
	train, _ := benchData()
	for _, bm := range benchModels {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Train(bm.kind, train, bm.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPredict predicts the three targets of one input: the paper's
// Table 2 prediction times.
func BenchmarkPredict(b *testing.B) {
	train, test := benchData()
	for _, bm := range benchModels {
		b.Run(bm.name, func(b *testing.B) {
			m, err := Train(bm.kind, train, bm.opts)
			if err != nil {
				b.Fatal(err)
			}
			in := test[0].Input()
			b.ResetTimer()
			for b.Loop() {
				m.Predict(in)
			}
		})
	}
}

// BenchmarkDecide is one decision with the SVR model: 12 variations predicted
// and ranked.
func BenchmarkDecide(b *testing.B) {
	train, _ := benchData()
	m, err := Train(KindSVR, train, Options{})
	if err != nil {
		b.Fatal(err)
	}
	c := Config{Desired: exampleDesired, Ranges: Ranges{CPULimitMilli: Range{300, 500}, MemoryLimitMiB: Range{400, 600}, Replicas: Range{1, 10}}, Weights: Balanced}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decide(m, exampleState, c); err != nil {
			b.Fatal(err)
		}
	}
}
