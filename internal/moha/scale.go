package moha

import (
	"fmt"
	"math"
)

// Scaler is a MinMax scaler: it maps each column's [Min, Max] of the data it
// was fitted on to [0, 1] (a constant column maps to 0). Values outside the
// fitted range map outside [0, 1], as scikit-learn's MinMaxScaler does.
type Scaler struct {
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

// FitScaler fits a scaler to rows, which must all have the same length.
func FitScaler(rows [][]float64) Scaler {
	if len(rows) == 0 {
		return Scaler{}
	}
	s := Scaler{Min: append([]float64(nil), rows[0]...), Max: append([]float64(nil), rows[0]...)}
	for _, r := range rows[1:] {
		for j, v := range r {
			s.Min[j] = math.Min(s.Min[j], v)
			s.Max[j] = math.Max(s.Max[j], v)
		}
	}
	return s
}

// Transform scales x into dst (which may be x) and returns dst.
func (s Scaler) Transform(dst, x []float64) []float64 {
	for j, v := range x {
		if d := s.Max[j] - s.Min[j]; d > 0 {
			dst[j] = (v - s.Min[j]) / d
		} else {
			dst[j] = 0
		}
	}
	return dst
}

// Inverse maps a scaled value of column j back to its original unit.
func (s Scaler) Inverse(j int, v float64) float64 {
	return v*(s.Max[j]-s.Min[j]) + s.Min[j]
}

func (s Scaler) validate(n int) error {
	if len(s.Min) != n || len(s.Max) != n {
		return fmt.Errorf("min and max must have %d values, have %d and %d", n, len(s.Min), len(s.Max))
	}
	for j := range s.Min {
		if !finite(s.Min[j]) || !finite(s.Max[j]) {
			return fmt.Errorf("column %d: min %v and max %v must be finite", j, s.Min[j], s.Max[j])
		}
		if s.Min[j] > s.Max[j] {
			return fmt.Errorf("column %d: min %v > max %v", j, s.Min[j], s.Max[j])
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allFinite(vs []float64) bool {
	for _, v := range vs {
		if !finite(v) {
			return false
		}
	}
	return true
}
