package chart

import "testing"

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

func TestNumAndEsc(t *testing.T) {
	tests := []struct{ got, want string }{
		{Num(3), "3"}, {Num(2.5), "2.5"}, {Num(0.25), "0.2"},
		{Esc(`a<b & "c">`), "a&lt;b &amp; &quot;c&quot;&gt;"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
