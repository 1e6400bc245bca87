package chart

import (
	"fmt"
	"math"
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

// Num labels an axis value: no decimals for whole numbers, one otherwise.
func Num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// Esc escapes s for SVG text and attribute values.
func Esc(s string) string { return escaper.Replace(s) }
