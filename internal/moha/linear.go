package moha

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Linear is a fitted linear model y = Intercept + Coef·x (OLS or Bayesian
// ridge).
type Linear struct {
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
	// Alpha and Lambda are the Bayesian ridge's estimated noise and weight
	// precisions (0 for OLS); informative only.
	Alpha  float64 `json:"alpha,omitempty"`
	Lambda float64 `json:"lambda,omitempty"`
}

// Predict returns Intercept + Coef·x.
func (l *Linear) Predict(x []float64) float64 { return l.Intercept + floats.Dot(l.Coef, x) }

func (l *Linear) validate(nIn int) error {
	if len(l.Coef) != nIn {
		return fmt.Errorf("linear: %d coefficients, want %d", len(l.Coef), nIn)
	}
	if !allFinite(l.Coef) || !finite(l.Intercept) {
		return errors.New("linear: coefficients must be finite")
	}
	return nil
}

// centredSVD is the thin SVD of the column-centred X with the centred y
// projected on U: what both OLS and Bayesian ridge solve with.
type centredSVD struct {
	xMean []float64
	yMean float64
	xc    *mat.Dense
	yc    *mat.VecDense
	s     []float64     // singular values, descending
	v     *mat.Dense    // p×k right singular vectors
	uty   *mat.VecDense // Uᵀ yc
}

func newCentredSVD(x [][]float64, y []float64) (*centredSVD, error) {
	n, p := len(x), len(x[0])
	c := &centredSVD{xMean: make([]float64, p), yMean: floats.Sum(y) / float64(n)}
	for _, r := range x {
		floats.Add(c.xMean, r)
	}
	floats.Scale(1/float64(n), c.xMean)
	c.xc = mat.NewDense(n, p, nil)
	c.yc = mat.NewVecDense(n, nil)
	for i, r := range x {
		for j, v := range r {
			c.xc.Set(i, j, v-c.xMean[j])
		}
		c.yc.SetVec(i, y[i]-c.yMean)
	}
	var svd mat.SVD
	if !svd.Factorize(c.xc, mat.SVDThin) {
		return nil, errors.New("svd did not converge")
	}
	c.s = svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	c.v = new(mat.Dense)
	svd.VTo(c.v)
	c.uty = new(mat.VecDense)
	c.uty.MulVec(u.T(), c.yc)
	return c, nil
}

// ridge returns the coefficients minimising |yc - Xc w|² + r|w|²:
// w = V diag(s/(s²+r)) Uᵀ yc. With r = 0 it is the minimum-norm least-squares
// solution, singular values below a relative 1e-12 being treated as zero.
func (c *centredSVD) ridge(r float64) []float64 {
	k := len(c.s)
	d := mat.NewVecDense(k, nil)
	tol := 1e-12 * c.s[0]
	for i, s := range c.s {
		if s > tol || r > 0 && s > 0 {
			d.SetVec(i, s/(s*s+r)*c.uty.AtVec(i))
		}
	}
	w := mat.NewVecDense(c.v.RawMatrix().Rows, nil)
	w.MulVec(c.v, d)
	return w.RawVector().Data
}

func (c *centredSVD) linear(coef []float64) *Linear {
	return &Linear{Coef: coef, Intercept: c.yMean - floats.Dot(c.xMean, coef)}
}

// FitOLS fits ordinary least squares with an intercept (the minimum-norm
// solution when X is rank-deficient, e.g. a constant input column).
func FitOLS(x [][]float64, y []float64) (*Linear, error) {
	c, err := newCentredSVD(x, y)
	if err != nil {
		return nil, fmt.Errorf("ols: %w", err)
	}
	return c.linear(c.ridge(0)), nil
}

// Bayesian ridge hyperpriors (Gamma shape and rate of α and λ) and stopping,
// scikit-learn's BayesianRidge defaults.
const (
	bayesAlpha1, bayesAlpha2   = 1e-6, 1e-6
	bayesLambda1, bayesLambda2 = 1e-6, 1e-6
	bayesMaxIter               = 300
	bayesTol                   = 1e-3
)

// FitBayesianRidge fits Bayesian ridge regression (MacKay's evidence
// maximisation, as scikit-learn's BayesianRidge): weights w ~ N(0, 1/λ),
// noise ~ N(0, 1/α), Gamma(1e-6, 1e-6) hyperpriors. Each iteration sets
// w = (XᵀX + λ/α I)⁻¹ Xᵀy, γ = Σ αs²/(λ+αs²), λ = (γ+2λ₁)/(|w|²+2λ₂),
// α = (n-γ+2α₁)/(|y-Xw|²+2α₂), until w changes by less than 1e-3 (L1).
func FitBayesianRidge(x [][]float64, y []float64) (*Linear, error) {
	c, err := newCentredSVD(x, y)
	if err != nil {
		return nil, fmt.Errorf("bayesian ridge: %w", err)
	}
	n := float64(len(y))
	alpha := 1 / (floats.Dot(c.yc.RawVector().Data, c.yc.RawVector().Data)/n + 1e-12)
	lambda := 1.0
	var coef []float64
	resid := mat.NewVecDense(len(y), nil)
	for iter := 0; iter < bayesMaxIter; iter++ {
		next := c.ridge(lambda / alpha)
		resid.MulVec(c.xc, mat.NewVecDense(len(next), next))
		resid.SubVec(c.yc, resid)
		sse := mat.Dot(resid, resid)
		gamma := 0.0
		for _, s := range c.s {
			gamma += alpha * s * s / (lambda + alpha*s*s)
		}
		lambda = (gamma + 2*bayesLambda1) / (floats.Dot(next, next) + 2*bayesLambda2)
		alpha = (n - gamma + 2*bayesAlpha1) / (sse + 2*bayesAlpha2)
		done := coef != nil && floats.Distance(coef, next, 1) < bayesTol
		coef = next
		if done {
			break
		}
	}
	coef = c.ridge(lambda / alpha)
	l := c.linear(coef)
	l.Alpha, l.Lambda = alpha, lambda
	if !finite(alpha) || !finite(lambda) || math.IsNaN(l.Intercept) {
		return nil, errors.New("bayesian ridge: did not converge to finite precisions")
	}
	return l, nil
}
