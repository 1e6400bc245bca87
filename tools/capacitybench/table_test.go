package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// worked is a 30 s boot delay run: 2 nodes asked at 5 s, Ready at 40 s, the
// first replicas Ready at 48 s and all 6 at 52 s; the load falls at 100 s,
// the replicas are home at 110 s, the group is back at 0 at 180 s.
func worked() scenario {
	mk := func(at float64, ready, nodes, desired int) sample {
		return sample{At: sec(at), Ready: ready, Nodes: nodes, Desired: desired}
	}
	return scenario{BootDelay: sec(30), PodStartup: sec(10), Interval: sec(10), ScaleDownDelay: sec(60), Need: 6, FallAt: sec(100), PricePerHour: 0.192,
		Samples: []sample{mk(0, 0, 0, 0), mk(5, 0, 0, 2), mk(40, 0, 2, 2), mk(48, 4, 2, 2), mk(52, 6, 2, 2), mk(100, 6, 2, 2),
			mk(110, 0, 2, 2), mk(170, 0, 2, 2), mk(180, 0, 0, 0), mk(200, 0, 0, 0)}}
}

func TestSummarize(t *testing.T) {
	never := worked()
	never.Samples = []sample{{At: 0}, {At: sec(90), Desired: 2}}
	never.FallAt = 0
	tests := []struct {
		name string
		in   scenario
		want result
	}{
		{
			// Ideal 30+10+10 = 50 s. Node-hours in the delay: 2 nodes from
			// 110 s to 170 s = 120 node-s; after it: 2 nodes from 170 s to
			// 180 s = 20 node-s.
			name: "worked example", in: worked(),
			want: result{Ideal: sec(50), First: sec(48), All: sec(52), PeakNodes: 2, Back: sec(110), Zero: sec(180),
				NodeHoursDelay: 120.0 / 3600, NodeHoursAfter: 20.0 / 3600},
		},
		{
			// Nothing Ready, no fall: every instant unreached, no node-hours
			// counted (the burst never ended).
			name: "nothing reached", in: never,
			want: result{Ideal: sec(50), First: -1, All: -1, Back: -1, Zero: -1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(tt.in)
			if math.Abs(got.NodeHoursDelay-tt.want.NodeHoursDelay) > 1e-9 || math.Abs(got.NodeHoursAfter-tt.want.NodeHoursAfter) > 1e-9 {
				t.Errorf("node-hours in/after the delay %v/%v, want %v/%v", got.NodeHoursDelay, got.NodeHoursAfter, tt.want.NodeHoursDelay, tt.want.NodeHoursAfter)
			}
			got.NodeHoursDelay, got.NodeHoursAfter = tt.want.NodeHoursDelay, tt.want.NodeHoursAfter
			if got != tt.want {
				t.Errorf("summarize = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := writeTable(&b, []scenario{worked()}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header, a rule and one line, got:\n%s", b.String())
	}
	// 20 node-s = 0.0056 node-hours at $0.192 = $0.0011; the group was at 0
	// 70 s after the replicas went home; all Ready 2 s over the ideal.
	want := "| 30.0 s | 10.0 s | 50.0 s | 48.0 s | 52.0 s (6) | +2.0 s | 2 | 70.0 s | 0.0333 | 0.0056 | $0.0011 |"
	if lines[2] != want {
		t.Errorf("line\n%s\nwant\n%s", lines[2], want)
	}
}
