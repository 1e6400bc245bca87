package moha

import (
	"strings"
	"testing"
)

// echoPredictor returns the inputs it was asked about: replicas as the
// response time, the request rate as the CPU usage.
type echoPredictor struct{}

func (echoPredictor) Predict(in [NumInputs]float64) [NumTargets]float64 {
	return [NumTargets]float64{in[2], in[3], 0}
}

func TestPerPod(t *testing.T) {
	tests := []struct {
		name                   string
		maxReplicas, maxRPS    float64
		replicas, rps          float64
		wantReplicas, wantRate float64
	}{
		{"within the training range: as is", 5, 1000, 3, 300, 3, 300},
		// 10 pods at 1,000 req/s are 100 req/s each: 5 pods at 500.
		{"more replicas: folded", 5, 1000, 10, 1000, 5, 500},
		// 10 pods at 4,000: 5 pods would get 2,000 > 1,000, so 1,000 req/s
		// on 10×1000/4000 = 2.5 pods (400 each, as 10 at 4,000).
		{"more load too: fractional replicas", 5, 1000, 10, 4000, 2.5, 1000},
		{"more load, few replicas", 5, 1000, 2, 3000, 2.0 / 3, 1000},
		{"no bounds: as is", 0, 0, 10, 4000, 10, 4000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PerPod{Predictor: echoPredictor{}, MaxReplicas: tc.maxReplicas, MaxRequestsPerSecond: tc.maxRPS}
			got := p.Predict([NumInputs]float64{300, 400, tc.replicas, tc.rps})
			if !near(got[0], tc.wantReplicas, 1e-12) || !near(got[1], tc.wantRate, 1e-12) {
				t.Errorf("predicted at %v pods, %v req/s; want %v, %v", got[0], got[1], tc.wantReplicas, tc.wantRate)
			}
		})
	}
}

func TestFewestReplicas(t *testing.T) {
	// The stub predicts 1000/(cpu×n/1000) ms: 300m pods need n >= 1000/(0.3×limit).
	tests := []struct {
		name    string
		limitMs float64
		r       Range
		want    int
		ok      bool
	}{
		{"1 s: n >= 3.33", 1000, Range{1, 10}, 4, true},
		{"exactly at the limit: 1 pod of 300m is 3,333 ms", 1000.0 / 0.3, Range{1, 10}, 1, true},
		{"min above the answer: the min", 1000, Range{6, 10}, 6, true},
		{"out of reach: 10 pods are 333 ms", 300, Range{1, 10}, 0, false},
		{"max is the answer", 1000.0 / 3, Range{1, 10}, 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, ok, err := fewestReplicas(stubPredictor{}, 300, 400, 100, tc.r, tc.limitMs)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want || ok != tc.ok {
				t.Errorf("got %d %v, want %d %v", n, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestSafeDecideInvalid(t *testing.T) {
	for _, limit := range []float64{0, -1} {
		_, err := SafeDecide(stubPredictor{}, exampleState, Config{Desired: exampleDesired, Ranges: wideRanges, Weights: Balanced}, limit)
		if err == nil || !strings.Contains(err.Error(), "response-time limit") {
			t.Errorf("limit %v: error %v, want one naming the response-time limit", limit, err)
		}
	}
}
