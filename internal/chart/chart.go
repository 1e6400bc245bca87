package chart

import (
	"math"
	"strconv"
	"strings"
)

// NiceAxis rounds v up to a readable axis maximum with at most 5 grid steps
// of 1, 2 or 5 times a power of ten (whole steps from 5 up).
func NiceAxis(v float64) (ymax, step float64) {
	for p := 1e-3; ; p *= 10 {
		for _, f := range []float64{1, 2, 5} {
			step = f * p
			if step < 1 && v >= 5 {
				continue
			}
			if k := math.Ceil(v/step - 1e-9); k <= 5 {
				return k * step, step
			}
		}
	}
}

// Tick is one grid line of an axis: its value and its label.
type Tick struct {
	Value float64
	Label string
}

// Ticks are the grid lines from 0 to NiceAxis(v)'s maximum, one per step,
// labelled with the decimals the step needs and no more, the same number
// on every label (a step of 0.05 gives 0.00, 0.05, 0.10; of 0.2 gives
// 0.0, 0.2; of 5 gives 0, 5), so no two labels of an axis read the same. A
// v of 0 or less (or NaN) is taken as 1.
func Ticks(v float64) (ymax float64, ticks []Tick) {
	if !(v > 0) {
		v = 1
	}
	ymax, step := NiceAxis(v)
	dec := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	n := int(math.Round(ymax / step))
	ticks = make([]Tick, 0, n+1)
	for j := 0; j <= n; j++ {
		x := float64(j) * step
		ticks = append(ticks, Tick{Value: x, Label: strconv.FormatFloat(x, 'f', dec, 64)})
	}
	return ymax, ticks
}

// Num labels a value on its own: as few decimals as it has (at most six,
// which hides float noise such as 3 x 0.05 = 0.15000000000000002), none
// for whole numbers. An axis should use [Ticks], whose labels share one
// number of decimals.
func Num(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// Esc escapes s for SVG text and attribute values.
func Esc(s string) string { return escaper.Replace(s) }
