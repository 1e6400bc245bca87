package demo

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

func i32(v int32) *int32 { return &v }

// sampleReplay is a small flash crowd: 30 req/s, 300 req/s from 10s to 40s, back to
// 30; the burst reaches eks at 20s and ack at 25s and is back at 60s.
func sampleReplay() []Sample {
	mk := func(at int, load, errs float64, p, e, a, dp, de, da int32, comp *int32, phase string) Sample {
		return Sample{At: time.Duration(at) * time.Second, OfferedRPS: load, ServedRPS: load - errs, ErrorRPS: errs,
			Ready:   map[string]int32{"private": p, "eks": e, "ack": a},
			Desired: map[string]int32{"private": dp, "eks": de, "ack": da}, Compliance: comp, Phase: phase}
	}
	return []Sample{
		mk(0, 30, 0, 2, 0, 0, 2, 0, 0, nil, "Watching"),
		mk(10, 300, 200, 2, 0, 0, 8, 8, 4, i32(400), "Watching"),
		mk(20, 300, 50, 8, 8, 0, 8, 8, 4, i32(150), "Bursting"),
		mk(25, 300, 0, 8, 8, 4, 8, 8, 4, i32(98), "Bursting"),
		mk(40, 300, 0, 8, 8, 4, 8, 8, 4, i32(95), "Bursting"),
		mk(45, 30, 0, 8, 8, 4, 8, 8, 0, i32(20), "ScalingBack"),
		mk(60, 30, 0, 8, 0, 0, 8, 0, 0, i32(40), "Watching"),
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name    string
		samples []Sample
		perPod  float64
		check   func(t *testing.T, s Summary)
	}{
		{
			name: "flash crowd bursts and comes back", samples: sampleReplay(), perPod: 15,
			check: func(t *testing.T, s Summary) {
				if s.BaselineRPS != 30 || s.PeakRPS != 300 || s.Needed != 20 || s.PeakReady != 20 {
					t.Errorf("baseline %v peak %v needed %d peak ready %d; want 30, 300, 20, 20", s.BaselineRPS, s.PeakRPS, s.Needed, s.PeakReady)
				}
				want := []struct {
					name string
					seen bool
					at   time.Duration
					w    time.Duration
				}{
					{"surge", s.SurgeSeen, s.SurgeAt, 10 * time.Second},
					{"first burst", s.BurstSeen, s.FirstBurstAt, 20 * time.Second},
					{"full", s.FullSeen, s.FullAt, 25 * time.Second},
					{"fall", s.FallSeen, s.FallAt, 45 * time.Second},
					{"back", s.BackSeen, s.BackAt, 60 * time.Second},
				}
				for _, w := range want {
					if !w.seen || w.at != w.w {
						t.Errorf("%s: seen %v at %s, want %s", w.name, w.seen, w.at, w.w)
					}
				}
				if s.PeakByCluster["eks"] != 8 || s.PeakByCluster["ack"] != 4 || s.PeakByCluster["private"] != 8 {
					t.Errorf("peak by cluster %v", s.PeakByCluster)
				}
				// Refused: 200 req/s for 10s + 50 for 10s over 30*10 + 300*30 + 30*5 + 30*15 offered... integrated on the right end.
				offered := 300.0*10 + 300*10 + 300*5 + 300*15 + 30*5 + 30*15
				if want := (200.0*10 + 50*10) / offered; s.ErrorShare < want-1e-9 || s.ErrorShare > want+1e-9 {
					t.Errorf("error share %v, want %v", s.ErrorShare, want)
				}
				if !s.ComplianceSeen || s.ComplianceMin != 20 {
					t.Errorf("compliance min %d seen %v", s.ComplianceMin, s.ComplianceSeen)
				}
				if got := strings.Join(s.Phases, ","); got != "Watching,Bursting,ScalingBack,Watching" {
					t.Errorf("phases %s", got)
				}
			},
		},
		{
			name: "burst never comes back", samples: sampleReplay()[:6], perPod: 15,
			check: func(t *testing.T, s Summary) {
				if !s.FallSeen || s.BackSeen {
					t.Errorf("fall seen %v, back seen %v; want true, false", s.FallSeen, s.BackSeen)
				}
			},
		},
		{
			name: "no samples", samples: nil, perPod: 15,
			check: func(t *testing.T, s Summary) {
				if s.SurgeSeen || s.PeakRPS != 0 {
					t.Errorf("%+v", s)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, Summarize(tt.samples, "private", tt.perPod))
		})
	}
}

func TestWriteSVG(t *testing.T) {
	clusters := []string{"private", "eks", "ack"}
	tests := []struct {
		name         string
		samples      []Sample
		wantPolygons int
		wantPanels   int
		clipped      bool
	}{
		{"with SLO", sampleReplay(), 3, 3, false},
		{"with an SLO violation above 400 %", func() []Sample {
			s := sampleReplay()
			s[1].Compliance = i32(2400)
			return s
		}(), 3, 3, true},
		{"without SLO", func() []Sample {
			s := sampleReplay()
			for i := range s {
				s[i].Compliance = nil
			}
			return s
		}(), 3, 2, false},
		{"empty", nil, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteSVG(&buf, "demo <replay>", clusters, tt.samples); err != nil {
				t.Fatal(err)
			}
			// Well-formed XML, one polygon per cluster, one frame per panel.
			dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
			polygons, frames := 0, 0
			for {
				tok, err := dec.Token()
				if err != nil {
					if err.Error() == "EOF" {
						break
					}
					t.Fatalf("SVG is not well-formed XML: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok {
					switch se.Name.Local {
					case "polygon":
						polygons++
					case "rect":
						for _, a := range se.Attr {
							if a.Name.Local == "stroke" && a.Value == "#999" {
								frames++
							}
						}
					}
				}
			}
			if polygons != tt.wantPolygons || frames != tt.wantPanels {
				t.Errorf("%d polygons and %d panels, want %d and %d", polygons, frames, tt.wantPolygons, tt.wantPanels)
			}
			if !strings.Contains(buf.String(), "demo &lt;replay&gt;") {
				t.Error("title not escaped")
			}
			if strings.Contains(buf.String(), "clipped at 400") != tt.clipped {
				t.Errorf("compliance clipped: %v, want %v", !tt.clipped, tt.clipped)
			}
		})
	}
}

func TestWriteMarkdown(t *testing.T) {
	samples := sampleReplay()
	s := Summarize(samples, "private", 15)
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, "HCA demo", []string{"trace: flash crowd"}, []string{"private", "eks", "ack"}, "private", s, samples, "report.svg", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"# HCA demo", "![load and replicas per cluster](report.svg)",
		"| first replica ready outside private | 20s (10s after) |",
		"| burst brought back (no replica outside private) | 1m0s (15s after) |",
		"| most ready replicas | 20 (private 8, eks 8, ack 4) |",
		"| 40s | 300 | 0.0 | 8/8 | 8/8 | 4/4 | 0 | 95 % | Bursting |",
		"| phases | Watching → Bursting → ScalingBack → Watching |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// Every 10s: 0, 10, 20, (25 skipped), 40, (45 skipped), 60 (last).
	if strings.Contains(md, "\n| 25s | 300") || strings.Contains(md, "\n| 45s | 30") || !strings.Contains(md, "\n| 1m0s | 30 |") {
		t.Errorf("sampling every 10s should skip 45s and keep the last row:\n%s", md)
	}
}

func TestRow(t *testing.T) {
	tests := []struct {
		name string
		s    Sample
		want []string
	}{
		{"bursting", sampleReplay()[2], []string{"0:20", "load  300 req/s (refused  50.0)", "private  8/8 ", "eks  8/8 ", "ack  0/4 ", "SLO  150%", "Bursting", "PPPPPPPPEEEEEEEE...."}},
		{"no SLO yet", sampleReplay()[0], []string{"0:00", "SLO     –", "Watching", "PP"}},
		{"nodes booting", withNodes()[1], []string{"0:10", "pending  0  nodes eks 0/2 ack 0/1  SLO"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Row(tt.s, []string{"private", "eks", "ack"})
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("row %q lacks %q", got, w)
				}
			}
		})
	}
}

// withNodes is sampleReplay bought from zero: EKS asks for 2 nodes of
// $0.192 and ACK for 1 of $0.200 at the surge (10s), EKS's are Ready at 20s
// and ACK's at 25s; they stay until 90s, 30s after the burst came back.
func withNodes() []Sample {
	s := sampleReplay()
	last := s[len(s)-1]
	last.At = 90 * time.Second
	s = append(s, last)
	for i := range s {
		at := s[i].At
		eks, ack := NodeCount{}, NodeCount{}
		if at >= 10*time.Second && at < 90*time.Second {
			eks = NodeCount{Desired: 2, DollarsPerHour: 2 * 0.192}
			ack = NodeCount{Desired: 1, DollarsPerHour: 0.200}
		}
		if at >= 20*time.Second && at < 90*time.Second {
			eks.Ready = 2
		}
		if at >= 25*time.Second && at < 90*time.Second {
			ack.Ready = 1
		}
		s[i].Nodes = map[string]NodeCount{"eks": eks, "ack": ack}
	}
	return s
}

func TestSummarizeNodes(t *testing.T) {
	s := Summarize(withNodes(), "private", 15)
	if !s.NodeGroups || s.StartNodes != 0 {
		t.Errorf("node groups %v, start nodes %d; want true, 0", s.NodeGroups, s.StartNodes)
	}
	for _, w := range []struct {
		name   string
		seen   bool
		at, is time.Duration
	}{
		{"nodes requested", s.NodesRequestedSeen, s.NodesRequestedAt, 10 * time.Second},
		{"first node Ready", s.NodesReadySeen, s.NodesReadyAt, 20 * time.Second},
		{"nodes released to 0", s.NodesZeroSeen, s.NodesZeroAt, 90 * time.Second},
	} {
		if !w.seen || w.at != w.is {
			t.Errorf("%s: seen %v at %s, want %s", w.name, w.seen, w.at, w.is)
		}
	}
	if s.PeakNodes["eks"] != 2 || s.PeakNodes["ack"] != 1 || len(s.PeakNodes) != 2 {
		t.Errorf("peak nodes %v, want eks 2, ack 1", s.PeakNodes)
	}
	// 3 nodes ($0.584 per hour) from 10s to 90s: 240 node-seconds, 80 s at
	// $0.584 per hour; always on: one hour at $0.584.
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(s.NodeHours, 240.0/3600) || !near(s.BurstCost, 0.584*80/3600) || !near(s.PeakDollarsPerHour, 0.584) || !near(s.AlwaysOnCost, 0.584) {
		t.Errorf("node-hours %v, cost %v, peak rate %v, always on %v; want %v, %v, 0.584, 0.584", s.NodeHours, s.BurstCost, s.PeakDollarsPerHour, s.AlwaysOnCost, 240.0/3600, 0.584*80/3600)
	}

	// Nodes never released: no such milestone.
	unreleased := withNodes()[:7]
	if s := Summarize(unreleased, "private", 15); s.NodesZeroSeen {
		t.Errorf("nodes released at %s in a replay where they never were", s.NodesZeroAt)
	}
	// Without node groups: no node lines.
	if s := Summarize(sampleReplay(), "private", 15); s.NodeGroups || s.NodesRequestedSeen || s.BurstCost != 0 {
		t.Errorf("a replay without node groups summarised with nodes: %+v", s)
	}
}

func TestWriteMarkdownNodes(t *testing.T) {
	samples := withNodes()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, "HCA demo", nil, []string{"private", "eks", "ack"}, "private", Summarize(samples, "private", 15), samples, "report.svg", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"| burst nodes at the start | 0 |",
		"| burst nodes requested | 10s (0s after) |",
		"| first burst node Ready | 20s (10s after) |",
		"| burst nodes released to 0 | 1m30s (30s after) |",
		"| most burst nodes | eks 2, ack 1 |",
		"| burst node-hours | 0.067 |",
		// 0.584 * 80 / 3600 = 0.012978
		"| burst cost | $0.0130 for the burst; $0.5840 for the same hour with the burst's peak nodes always on ($0.584 per hour) |",
		" eks nodes ready/desired | ack nodes ready/desired |",
		"| 40s | 300 | 0.0 | 8/8 | 8/8 | 4/4 | 2/2 | 1/1 | 0 | 95 % | Bursting |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, "demo", []string{"private", "eks", "ack"}, samples); err != nil {
		t.Fatal(err)
	}
	// Load, replicas, SLO and nodes: four panels; nodes Ready and desired per
	// target: 2 polylines each.
	if got := strings.Count(svg.String(), `stroke="#999"`); got != 4 {
		t.Errorf("%d panels, want 4", got)
	}
	if !strings.Contains(svg.String(), ">eks Ready<") || !strings.Contains(svg.String(), ">ack desired<") {
		t.Error("the nodes panel lacks its legend")
	}
	// 2 nodes at most: the axis counts whole nodes (0 to 5), not 0.5 steps.
	nodesPanel := svg.String()[strings.Index(svg.String(), "burst nodes per target"):]
	if !strings.Contains(nodesPanel, `text-anchor="end">5</text>`) || strings.Contains(nodesPanel, `text-anchor="end">0.5</text>`) {
		t.Errorf("the nodes axis is not in whole nodes up to 5:\n%s", nodesPanel)
	}
}
