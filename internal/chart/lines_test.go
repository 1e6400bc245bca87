package chart

import (
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

// TestWriteLines checks what a reader of the chart relies on: one frame per
// panel, one polyline per unbroken run of points (a NaN breaks the line),
// "no data" on an empty panel, the unit beside the title and at most seven
// legend entries.
func TestWriteLines(t *testing.T) {
	nan := math.NaN()
	many := make([]Series, 9)
	for i := range many {
		many[i] = Series{Name: string(rune('a' + i)), X: []float64{0, 10}, Y: []float64{1, 2}}
	}
	tests := []struct {
		name       string
		panels     []LinePanel
		frames     int
		polylines  int
		noData     int
		contains   []string
		notContain []string
	}{
		{"one line", []LinePanel{{Title: "replicas", Unit: "pods", Series: []Series{{Name: "eks", X: []float64{0, 5, 10}, Y: []float64{0, 4, 8}}}}},
			1, 1, 0, []string{"replicas (pods)", ">eks<", ">8<"}, []string{"no data", "more"}},
		{"a gap splits the line", []LinePanel{{Title: "spend", Series: []Series{{Name: "ack", X: []float64{0, 5, 10, 15, 20}, Y: []float64{1, 1, nan, 2, 2}}}}},
			1, 2, 0, []string{">spend<"}, nil},
		{"a lone point between gaps is drawn", []LinePanel{{Title: "x", Series: []Series{{Name: "s", X: []float64{0, 5, 10}, Y: []float64{nan, 3, nan}}}}},
			1, 1, 0, nil, []string{"no data"}},
		{"empty panel", []LinePanel{{Title: "nodes"}, {Title: "pending", Series: []Series{{Name: "p", X: []float64{0}, Y: []float64{nan}}}}},
			2, 0, 2, []string{"no data"}, nil},
		{"legend capped", []LinePanel{{Title: "many", Series: many}},
			1, 9, 0, []string{"+2 more", ">g<"}, []string{">h<", ">i<"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteLines(&b, "title & co", "sub", tt.panels, 20); err != nil {
				t.Fatal(err)
			}
			svg := b.String()
			d := xml.NewDecoder(strings.NewReader(svg))
			frames, polylines := 0, 0
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed XML: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok {
					switch se.Name.Local {
					case "rect":
						for _, a := range se.Attr {
							if a.Name.Local == "stroke" {
								frames++
							}
						}
					case "polyline":
						polylines++
					}
				}
			}
			if frames != tt.frames || polylines != tt.polylines {
				t.Errorf("%d frames and %d polylines, want %d and %d", frames, polylines, tt.frames, tt.polylines)
			}
			if got := strings.Count(svg, "no data"); got != tt.noData {
				t.Errorf("%d \"no data\", want %d", got, tt.noData)
			}
			for _, s := range tt.contains {
				if !strings.Contains(svg, s) {
					t.Errorf("the chart lacks %q", s)
				}
			}
			for _, s := range tt.notContain {
				if strings.Contains(svg, s) {
					t.Errorf("the chart has %q", s)
				}
			}
		})
	}
}

// TestTimeTick: short charts keep minute and 5-minute labels; a day or a
// week stays at 16 labels or fewer.
func TestTimeTick(t *testing.T) {
	for _, tc := range []struct{ end, want float64 }{
		{600, 60}, {900, 60}, {1200, 300}, {4800, 300}, {4801, 900}, {3 * 3600, 900}, {86400, 7200}, {7 * 86400, 43200}, {30 * 86400, 86400},
	} {
		if got := timeTick(tc.end); got != tc.want {
			t.Errorf("timeTick(%v) = %v, want %v", tc.end, got, tc.want)
		}
		if tc.end <= 7*86400 && tc.end/timeTick(tc.end) > 16 {
			t.Errorf("timeTick(%v): %v labels", tc.end, tc.end/timeTick(tc.end))
		}
	}
}
