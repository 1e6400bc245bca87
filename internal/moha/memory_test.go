package moha

import (
	"math"
	"testing"
)

func TestMemoryRemember(t *testing.T) {
	m300 := func(rate, rt float64) Measured {
		return Measured{CPULimitMilli: 300, MemoryLimitMiB: 400, RequestsPerSecondPerPod: rate, ResponseTimeMs: rt}
	}
	tests := []struct {
		name     string
		capacity int
		add      []Measured
		want     []Measured
	}{
		{"zero capacity keeps nothing", 0, []Measured{m300(60, 15)}, nil},
		{"kept in order", 4, []Measured{m300(60, 15), m300(30, 9)}, []Measured{m300(60, 15), m300(30, 9)}},
		// 56 and 58 req/s per pod share a bucket (ln 56/ln 1.1 = 42.2,
		// ln 58/ln 1.1 = 42.6, both 42): the newer replaces the older and
		// goes last. 62 (43.3) is another bucket.
		{"same pod size and rate bucket: replaced", 4, []Measured{m300(56, 15), m300(30, 9), m300(58, 14), m300(62, 16)}, []Measured{m300(30, 9), m300(58, 14), m300(62, 16)}},
		{"another pod size: kept", 4, []Measured{m300(60, 15), {CPULimitMilli: 500, MemoryLimitMiB: 400, RequestsPerSecondPerPod: 60, ResponseTimeMs: 7}},
			[]Measured{m300(60, 15), {CPULimitMilli: 500, MemoryLimitMiB: 400, RequestsPerSecondPerPod: 60, ResponseTimeMs: 7}}},
		{"over capacity: the oldest goes", 2, []Measured{m300(10, 5), m300(20, 6), m300(30, 9)}, []Measured{m300(20, 6), m300(30, 9)}},
		{"no load or no response time: not kept", 4, []Measured{m300(0, 5), m300(20, math.NaN()), m300(20, -1), m300(math.Inf(1), 5)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Memory{Capacity: tc.capacity}
			for _, a := range tc.add {
				before := len(m.Entries)
				next := m.Remember(a)
				if len(m.Entries) != before {
					t.Fatalf("Remember modified its receiver")
				}
				m = next
			}
			if len(m.Entries) != len(tc.want) {
				t.Fatalf("entries %v, want %v", m.Entries, tc.want)
			}
			for i := range tc.want {
				if m.Entries[i] != tc.want[i] {
					t.Errorf("entry %d = %v, want %v", i, m.Entries[i], tc.want[i])
				}
			}
		})
	}
}

func TestMemoryLookup(t *testing.T) {
	m := Memory{Capacity: 8}
	for _, e := range []Measured{
		{300, 400, 60, 15},
		{300, 400, 64, 18},
		{300, 400, 30, 9},
		{500, 600, 60, 6},
		{480, 600, 60, 7},
	} {
		m = m.Remember(e)
	}
	tests := []struct {
		name      string
		cpu, mem  float64
		rate      float64
		wantRT    float64
		wantFound bool
	}{
		// 60 and 64 req/s both within 60-66: the lower rate, 60 -> 15 ms.
		{"exact rate", 300, 400, 60, 15, true},
		// 58: within 58-63.8 only 60 (64 is over): 15 ms.
		{"lower rate: the nearest measurement above", 300, 400, 58, 15, true},
		// 62: 60 is below (would promise too much), 64 <= 68.2: 18 ms.
		{"only a higher rate answers", 300, 400, 62, 18, true},
		// 70: 64 is below, nothing within 70-77.
		{"nothing at or above: none", 300, 400, 70, 0, false},
		// 25: 30 > 25 × 1.1 = 27.5.
		{"too far above: none", 300, 400, 25, 0, false},
		{"same pod size", 500, 600, 60, 6, true},
		// 490m: only 480m and 500m are remembered, neither is 490m.
		{"another pod size: none", 490, 600, 60, 0, false},
		{"unknown pod size", 400, 400, 60, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, ok := m.Lookup(tc.cpu, tc.mem, tc.rate)
			if ok != tc.wantFound || rt != tc.wantRT {
				t.Errorf("Lookup(%v, %v, %v) = %v, %v; want %v, %v", tc.cpu, tc.mem, tc.rate, rt, ok, tc.wantRT, tc.wantFound)
			}
		})
	}
}

func TestRemembered(t *testing.T) {
	// echoPredictor predicts the replicas as the response time and the rate
	// as the CPU usage.
	m := Memory{Capacity: 4}.Remember(Measured{300, 400, 60, 15})
	p := Remembered{P: echoPredictor{}, Memory: m}
	tests := []struct {
		name    string
		in      [NumInputs]float64
		wantRT  float64
		wantCPU float64
	}{
		// 1 pod at 60 req/s: 60 per pod, remembered 15 ms; the CPU usage
		// stays the predictor's (60).
		{"one pod at the remembered rate", [NumInputs]float64{300, 400, 1, 60}, 15, 60},
		// 2 pods at 120 req/s: 60 per pod too.
		{"two pods at twice the rate", [NumInputs]float64{300, 400, 2, 120}, 15, 120},
		// 2 pods at 60 req/s: 30 per pod, not remembered: predicted 2.
		{"another rate per pod: predicted", [NumInputs]float64{300, 400, 2, 60}, 2, 60},
		{"another pod size: predicted", [NumInputs]float64{500, 400, 1, 60}, 1, 60},
		{"no replicas: predicted", [NumInputs]float64{300, 400, 0, 60}, 0, 60},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := p.Predict(tc.in)
			if got[0] != tc.wantRT || got[1] != tc.wantCPU {
				t.Errorf("Predict(%v) = %v; want response time %v, CPU %v", tc.in, got, tc.wantRT, tc.wantCPU)
			}
		})
	}
}
