package moha

import (
	"math"
	"math/rand/v2"
	"testing"
)

// plane is y = 1 + 2a - b on a 4×4 grid (16 points, no noise).
func plane() (x [][]float64, y []float64) {
	for a := 0.0; a < 4; a++ {
		for b := 0.0; b < 4; b++ {
			x = append(x, []float64{a / 3, b / 3})
			y = append(y, 1+2*a/3-b/3)
		}
	}
	return x, y
}

func TestFitOLS(t *testing.T) {
	x, y := plane()
	l, err := FitOLS(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.Intercept, 1, 1e-12) || !near(l.Coef[0], 2, 1e-12) || !near(l.Coef[1], -1, 1e-12) {
		t.Errorf("OLS = %v + %v·x, want 1 + (2, -1)·x", l.Intercept, l.Coef)
	}

	// Points (0,1), (1,1), (2,4), (3,4): by hand, x̄ = 1.5, ȳ = 2.5,
	// Sxy = (-1.5)(-1.5)+(-0.5)(-1.5)+(0.5)(1.5)+(1.5)(1.5) = 6, Sxx = 5,
	// slope 1.2, intercept 2.5-1.2×1.5 = 0.7. A constant second column is
	// rank-deficient: the minimum-norm solution gives it 0.
	l, err = FitOLS([][]float64{{0, 7}, {1, 7}, {2, 7}, {3, 7}}, []float64{1, 1, 4, 4})
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.Intercept, 0.7, 1e-12) || !near(l.Coef[0], 1.2, 1e-12) || l.Coef[1] != 0 {
		t.Errorf("OLS = %v + %v·x, want 0.7 + (1.2, 0)·x", l.Intercept, l.Coef)
	}
}

func TestRidgeClosedForm(t *testing.T) {
	// Centred x = (-1, 0, 1), y = (-2, 0, 2): XᵀX = 2, Xᵀy = 4, so the ridge
	// solution (XᵀX + r)⁻¹Xᵀy is 4/(2+r): 2 for r = 0, 1 for r = 2.
	c, err := newCentredSVD([][]float64{{-1}, {0}, {1}}, []float64{-2, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ r, want float64 }{{0, 2}, {2, 1}, {6, 0.5}} {
		if got := c.ridge(tc.r)[0]; !near(got, tc.want, 1e-12) {
			t.Errorf("ridge(%v) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func TestFitBayesianRidge(t *testing.T) {
	// Without noise the estimated noise precision α grows without bound and
	// λ/α vanishes: the posterior mean is the OLS solution.
	x, y := plane()
	l, err := FitBayesianRidge(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.Intercept, 1, 1e-6) || !near(l.Coef[0], 2, 1e-6) || !near(l.Coef[1], -1, 1e-6) {
		t.Errorf("Bayesian ridge = %v + %v·x, want 1 + (2, -1)·x", l.Intercept, l.Coef)
	}
	// With noise of standard deviation 0.1 the estimated noise precision α is
	// about 1/0.1² = 100, and with 2,000 samples the prior barely shrinks the
	// coefficients: they stay within 1e-3 of OLS's.
	rng := rand.New(rand.NewPCG(1, 2))
	x, y = nil, nil
	for i := 0; i < 2000; i++ {
		a, b := rng.Float64(), rng.Float64()
		x = append(x, []float64{a, b})
		y = append(y, 1+2*a-b+0.1*rng.NormFloat64())
	}
	l, err = FitBayesianRidge(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if l.Alpha < 90 || l.Alpha > 110 {
		t.Errorf("alpha = %v, want about 100", l.Alpha)
	}
	ols, err := FitOLS(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.Coef[0], ols.Coef[0], 1e-3) || !near(l.Coef[1], ols.Coef[1], 1e-3) || !near(l.Intercept, ols.Intercept, 1e-3) {
		t.Errorf("Bayesian ridge = %v + %v·x, want about OLS's %v + %v·x", l.Intercept, l.Coef, ols.Intercept, ols.Coef)
	}
}

func TestFitSVRClosedForm(t *testing.T) {
	k := math.Exp(-1) // K(0, 1) with gamma 1
	tests := []struct {
		name    string
		z       []float64
		eps, c  float64
		coef, b float64 // Coef = (coef, -coef)
	}{
		{
			// Both points on the tube's edge, f(x1) = 1-ε, f(x2) = 0+ε:
			// β(1-k)+b = 0.9 and -β(1-k)+b = 0.1, so b = 0.5 and
			// β = 0.8/(2(1-k)) ≈ 0.633 < C.
			name: "interpolates within the tube", z: []float64{1, 0}, eps: 0.1, c: 100,
			coef: 0.8 / (2 * (1 - k)), b: 0.5,
		},
		{
			// A tube of half-width 0.6 holds both points with a flat function:
			// no support vectors, b in the middle of [1-0.6, 0+0.6].
			name: "flat when the tube holds every point", z: []float64{1, 0}, eps: 0.6, c: 100,
			coef: 0, b: 0.5,
		},
		{
			// C = 0.2 < 0.633: both multipliers at the bound, |β| = C; by
			// symmetry b = (z1+z2)/2.
			name: "box constraint binds", z: []float64{1, 0}, eps: 0.1, c: 0.2,
			coef: 0.2, b: 0.5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := FitSVR([][]float64{{0}, {1}}, tc.z, SVRParams{C: tc.c, Epsilon: tc.eps, Gamma: 1, Tol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			coef := [2]float64{}
			for i, sv := range m.SupportVectors {
				coef[int(sv[0])] = m.Coef[i]
			}
			if !near(coef[0], tc.coef, 1e-9) || !near(coef[1], -tc.coef, 1e-9) || !near(m.B, tc.b, 1e-9) {
				t.Errorf("coef %v, b %v; want (%v, %v), %v", coef, m.B, tc.coef, -tc.coef, tc.b)
			}
		})
	}
}

func TestFitSVRSine(t *testing.T) {
	// A smooth function is fitted within the tube: every training point is
	// within ε (+ the stopping tolerance), the coefficients within [-C, C] and
	// summing to 0 (the dual's equality constraint).
	var x [][]float64
	var z []float64
	for i := 0; i < 60; i++ {
		v := float64(i) / 59
		x = append(x, []float64{v})
		z = append(z, 0.5+0.4*math.Sin(2*math.Pi*v))
	}
	p := SVRParams{C: 100, Epsilon: 0.01, Gamma: 20, Tol: 1e-6}
	m, err := FitSVR(x, z, p)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, c := range m.Coef {
		sum += c
		if math.Abs(c) > p.C+1e-12 {
			t.Errorf("coefficient %v beyond C = %v", c, p.C)
		}
	}
	if math.Abs(sum) > 1e-9 {
		t.Errorf("coefficients sum to %v, want 0", sum)
	}
	for i := range x {
		if e := math.Abs(m.Predict(x[i]) - z[i]); e > p.Epsilon+1e-4 {
			t.Errorf("x = %v: |f(x)-z| = %v > ε", x[i][0], e)
		}
	}
}

func TestMLPGradient(t *testing.T) {
	// Backpropagation against central finite differences.
	net := mlpNet{h: 3, p: 2}
	rng := rand.New(rand.NewPCG(3, 4))
	theta := make([]float64, net.size())
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	xs := [][]float64{{0.1, 0.9}, {0.5, 0.2}, {1, 0}}
	ys := []float64{0.3, -0.2, 0.8}
	hid := make([]float64, net.h)
	grad := make([]float64, len(theta))
	net.lossGrad(theta, grad, xs, ys, hid)
	const h = 1e-6
	for i := range theta {
		old := theta[i]
		theta[i] = old + h
		up := net.lossGrad(theta, make([]float64, len(theta)), xs, ys, hid)
		theta[i] = old - h
		down := net.lossGrad(theta, make([]float64, len(theta)), xs, ys, hid)
		theta[i] = old
		if fd := (up - down) / (2 * h); !near(grad[i], fd, 1e-6) {
			t.Errorf("dθ[%d] = %v, finite difference %v", i, grad[i], fd)
		}
	}
}

func TestFitMLP(t *testing.T) {
	x, y := plane()
	p := MLPParams{Seed: 1, Epochs: 6000}
	m, err := FitMLP(x, y, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if e := math.Abs(m.Predict(x[i]) - y[i]); e > 0.02 {
			t.Errorf("x = %v: |f(x)-y| = %v", x[i], e)
		}
	}
	again, _ := FitMLP(x, y, p)
	if again.B2 != m.B2 || again.W1[0][0] != m.W1[0][0] {
		t.Error("the same seed trained different weights")
	}
}

func TestTuneSVR(t *testing.T) {
	// sin(6πa) over two uniform inputs: "scale" gives gamma = 1/(2×1/12) = 6,
	// too wide for three periods; the grid's narrowest kernel, 20, fits best.
	rng := rand.New(rand.NewPCG(5, 6))
	var x [][]float64
	var z []float64
	for i := 0; i < 300; i++ {
		a, b := rng.Float64(), rng.Float64()
		x = append(x, []float64{a, b})
		z = append(z, 0.5+0.4*math.Sin(6*math.Pi*a))
	}
	base := SVRParams{Epsilon: 0.01}
	if got := TuneSVR(x, z, base, 1); got.Gamma != 20 || got.Epsilon != 0.01 {
		t.Errorf("TuneSVR chose %+v, want gamma 20 and epsilon kept", got)
	}
	if got := TuneSVR(x[:9], z[:9], base, 1); got != base {
		t.Errorf("TuneSVR on 9 samples = %+v, want the base %+v", got, base)
	}
}
