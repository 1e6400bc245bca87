package chart

import (
	"slices"
	"testing"
)

func TestNiceAxis(t *testing.T) {
	tests := []struct {
		v, max, step float64
	}{
		{0.5, 0.5, 0.1},
		{1, 1, 0.2},
		{7, 8, 2},
		{24, 25, 5},
		{32, 40, 10},
		{300, 300, 100},
		{2432, 2500, 500},
	}
	for _, tt := range tests {
		if m, s := NiceAxis(tt.v); m != tt.max || s != tt.step {
			t.Errorf("NiceAxis(%v) = %v, %v; want %v, %v", tt.v, m, s, tt.max, tt.step)
		}
	}
}

// TestTicks: the steps are the first of 1, 2, 5 x 10^k (k from -3) that
// cover v in at most 5 steps; the labels have the decimals of the step.
func TestTicks(t *testing.T) {
	tests := []struct {
		v      float64
		max    float64
		labels []string
	}{
		// 0.2: 0.01 needs 20 steps, 0.02 10, 0.05 4. The old labels
		// (one decimal each) read 0, 0.1, 0.1, 0.1, 0.2.
		{0.2, 0.2, []string{"0.00", "0.05", "0.10", "0.15", "0.20"}},
		// 0.03: 0.001 needs 30 steps, 0.002 15, 0.005 6, 0.01 3.
		{0.03, 0.03, []string{"0.00", "0.01", "0.02", "0.03"}},
		// 0.5: 0.1 needs 5 steps.
		{0.5, 0.5, []string{"0.0", "0.1", "0.2", "0.3", "0.4", "0.5"}},
		// 1: 0.1 needs 10, 0.2 needs 5.
		{1, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		// 1.3: 0.2 needs ceil(6.5) = 7, 0.5 needs ceil(2.6) = 3, up to 1.5.
		{1.3, 1.5, []string{"0.0", "0.5", "1.0", "1.5"}},
		// 3 (below 5, so fractional steps are allowed): 0.5 needs 6, 1
		// needs 3.
		{3, 3, []string{"0", "1", "2", "3"}},
		// 7: whole steps only from 5 up; 1 needs 7, 2 needs ceil(3.5) = 4.
		{7, 8, []string{"0", "2", "4", "6", "8"}},
		// 2432: 100 needs 25, 200 13, 500 ceil(4.9) = 5.
		{2432, 2500, []string{"0", "500", "1000", "1500", "2000", "2500"}},
		// 0 (an empty panel) is drawn as 0..1.
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
	}
	for _, tt := range tests {
		m, ticks := Ticks(tt.v)
		var labels []string
		for _, tk := range ticks {
			labels = append(labels, tk.Label)
		}
		if m != tt.max || !slices.Equal(labels, tt.labels) {
			t.Errorf("Ticks(%v) = %v, %q; want %v, %q", tt.v, m, labels, tt.max, tt.labels)
		}
	}
}

func TestNumAndEsc(t *testing.T) {
	tests := []struct{ got, want string }{
		{Num(3), "3"}, {Num(2.5), "2.5"}, {Num(0.25), "0.25"},
		// 3 x 0.05 in float64 is 0.15000000000000002.
		{Num(3 * 0.05), "0.15"},
		{Esc(`a<b & "c">`), "a&lt;b &amp; &quot;c&quot;&gt;"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
