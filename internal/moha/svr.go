package moha

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// SVR is a fitted epsilon-support vector regression with the RBF kernel
// K(a, b) = exp(-Gamma |a-b|²): f(x) = Σ Coef[i] K(SupportVectors[i], x) + B.
type SVR struct {
	Gamma          float64     `json:"gamma"`
	C              float64     `json:"c"`
	Epsilon        float64     `json:"epsilon"`
	B              float64     `json:"b"`
	Coef           []float64   `json:"coef"`
	SupportVectors [][]float64 `json:"support_vectors"`
}

// SVRParams are the SVR's hyperparameters; zero values take the defaults.
type SVRParams struct {
	C       float64 // box constraint (default 1)
	Epsilon float64 // half-width of the insensitive tube, in scaled target units (default 0.02)
	Gamma   float64 // RBF width (default 1/(inputs × variance of the scaled inputs), scikit-learn's "scale")
	Tol     float64 // stopping tolerance on the KKT violation (default 1e-3, LIBSVM's)
}

// Predict returns f(x).
func (m *SVR) Predict(x []float64) float64 {
	f := m.B
	for i, sv := range m.SupportVectors {
		f += m.Coef[i] * rbf(m.Gamma, sv, x)
	}
	return f
}

func (m *SVR) validate(nIn int) error {
	if !(m.Gamma > 0) || !finite(m.Gamma) || !finite(m.B) {
		return fmt.Errorf("svr: gamma %v must be finite and > 0, b %v finite", m.Gamma, m.B)
	}
	if len(m.Coef) != len(m.SupportVectors) {
		return fmt.Errorf("svr: %d coefficients for %d support vectors", len(m.Coef), len(m.SupportVectors))
	}
	if !allFinite(m.Coef) {
		return errors.New("svr: coefficients must be finite")
	}
	for i, sv := range m.SupportVectors {
		if len(sv) != nIn || !allFinite(sv) {
			return fmt.Errorf("svr: support vector %d must have %d finite values", i, nIn)
		}
	}
	return nil
}

func rbf(gamma float64, a, b []float64) float64 {
	d := 0.0
	for j := range a {
		t := a[j] - b[j]
		d += t * t
	}
	return math.Exp(-gamma * d)
}

// smoTau replaces a non-positive curvature in the SMO step (LIBSVM's TAU).
const smoTau = 1e-12

// FitSVR fits epsilon-SVR by sequential minimal optimisation on LIBSVM's
// formulation (Fan, Chen and Lin 2005, second-order working-set selection):
// with 2n variables a (a[t] = αₜ for t < n, αₜ₋ₙ* for t >= n), signs
// yₜ = +1 then -1, Q[t][s] = yₜ yₛ K(xₜ, xₛ) and p = (ε - z, ε + z), it
// minimises ½aᵀQa + pᵀa subject to Σ yₜ aₜ = 0 and 0 <= a <= C, until the
// maximal KKT violation is below Tol. Then Coef[i] = αᵢ - αᵢ* and B = -ρ.
func FitSVR(x [][]float64, z []float64, p SVRParams) (*SVR, error) {
	n := len(x)
	if n == 0 || len(z) != n {
		return nil, errors.New("svr: no samples")
	}
	if p.C == 0 {
		p.C = 1
	}
	if p.Epsilon == 0 {
		p.Epsilon = 0.02
	}
	if p.Tol == 0 {
		p.Tol = 1e-3
	}
	if p.Gamma == 0 {
		p.Gamma = scaleGamma(x)
	}
	if !(p.C > 0) || p.Epsilon < 0 || !(p.Gamma > 0) || !(p.Tol > 0) {
		return nil, fmt.Errorf("svr: c %v, gamma %v and tol %v must be > 0, epsilon %v >= 0", p.C, p.Gamma, p.Tol, p.Epsilon)
	}
	k := newKernelRows(x, p.Gamma)
	l := 2 * n
	a := make([]float64, l)
	g := make([]float64, l)
	sign := func(t int) float64 {
		if t < n {
			return 1
		}
		return -1
	}
	for t := 0; t < n; t++ {
		g[t] = p.Epsilon - z[t]
		g[t+n] = p.Epsilon + z[t]
	}
	upper := func(t int) bool { return a[t] >= p.C }
	lower := func(t int) bool { return a[t] <= 0 }
	maxIter := max(10_000_000, 100*l)
	for iter := 0; ; iter++ {
		if iter == maxIter {
			return nil, fmt.Errorf("svr: no convergence in %d iterations", maxIter)
		}
		// i: the maximal violator among I_up (y = +1 below C, y = -1 above 0).
		gmax, i := math.Inf(-1), -1
		for t, at := range a[:n] {
			if at < p.C && -g[t] >= gmax {
				gmax, i = -g[t], t
			}
		}
		for t, at := range a[n:] {
			if at > 0 && g[n+t] >= gmax {
				gmax, i = g[n+t], n+t
			}
		}
		if i < 0 {
			break
		}
		ki := k.row(i % n)
		// j: the most decrease of the objective in I_low (y = +1 above 0,
		// y = -1 below C), second order; the curvature is
		// K(i,i)+K(t,t)-2K(i,t) = 2-2K(i,t) for the RBF.
		gmax2, j, best := math.Inf(-1), -1, math.Inf(1)
		consider := func(t int, yg, kit float64) {
			if yg > gmax2 {
				gmax2 = yg
			}
			diff := gmax + yg
			if diff <= 0 {
				return
			}
			quad := 2 - 2*kit
			if quad <= 0 {
				quad = smoTau
			}
			if obj := -diff * diff / quad; obj <= best {
				best, j = obj, t
			}
		}
		for t, at := range a[:n] {
			if at > 0 {
				consider(t, g[t], ki[t])
			}
		}
		for t, at := range a[n:] {
			if at < p.C {
				consider(n+t, -g[n+t], ki[t])
			}
		}
		if gmax+gmax2 < p.Tol || j < 0 {
			break
		}
		kj := k.row(j % n)
		yi, yj := sign(i), sign(j)
		qij := yi * yj * ki[j%n]
		oldI, oldJ := a[i], a[j]
		c := p.C
		if yi != yj {
			quad := 2 + 2*qij
			if quad <= 0 {
				quad = smoTau
			}
			delta := (-g[i] - g[j]) / quad
			diff := a[i] - a[j]
			a[i] += delta
			a[j] += delta
			if diff > 0 {
				if a[j] < 0 {
					a[j], a[i] = 0, diff
				}
			} else if a[i] < 0 {
				a[i], a[j] = 0, -diff
			}
			if diff > 0 { // C_i - C_j = 0
				if a[i] > c {
					a[i], a[j] = c, c-diff
				}
			} else if a[j] > c {
				a[j], a[i] = c, c+diff
			}
		} else {
			quad := 2 - 2*qij
			if quad <= 0 {
				quad = smoTau
			}
			delta := (g[i] - g[j]) / quad
			sum := a[i] + a[j]
			a[i] -= delta
			a[j] += delta
			if sum > c {
				if a[i] > c {
					a[i], a[j] = c, sum-c
				}
			} else if a[j] < 0 {
				a[j], a[i] = 0, sum
			}
			if sum > c {
				if a[j] > c {
					a[j], a[i] = c, sum-c
				}
			} else if a[i] < 0 {
				a[i], a[j] = 0, sum
			}
		}
		// G[t] += Q[t][i]Δaᵢ + Q[t][j]Δaⱼ with Q[t][s] = yₜ yₛ K: the same
		// change, with opposite signs, for t and t+n.
		di, dj := yi*(a[i]-oldI), yj*(a[j]-oldJ)
		for u := 0; u < n; u++ {
			d := ki[u]*di + kj[u]*dj
			g[u] += d
			g[u+n] -= d
		}
	}
	// ρ: the mean of yG over free variables, else the middle of its bounds.
	ub, lb, sumFree, nFree := math.Inf(1), math.Inf(-1), 0.0, 0
	for t := 0; t < l; t++ {
		yg := sign(t) * g[t]
		switch {
		case upper(t):
			if sign(t) < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case lower(t):
			if sign(t) > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			nFree++
			sumFree += yg
		}
	}
	rho := (ub + lb) / 2
	if nFree > 0 {
		rho = sumFree / float64(nFree)
	}
	m := &SVR{Gamma: p.Gamma, C: p.C, Epsilon: p.Epsilon, B: -rho}
	for i := 0; i < n; i++ {
		if c := a[i] - a[i+n]; c != 0 {
			m.Coef = append(m.Coef, c)
			m.SupportVectors = append(m.SupportVectors, append([]float64(nil), x[i]...))
		}
	}
	return m, nil
}

// SVRGrid is the grid [TuneSVR] searches: C × gamma, gamma 0 standing for
// the default ("scale").
var SVRGrid = struct{ C, Gamma []float64 }{C: []float64{1, 3}, Gamma: []float64{0, 5, 10, 20}}

// TuneSVR is a grid search (as the paper's): it fits an SVR for every C and
// gamma of [SVRGrid] (the other parameters from base) on a seeded random
// 80 % of the samples and returns the parameters with the least squared
// error on the other 20 %. It falls back to base when there are fewer than
// 10 samples or no fit succeeds.
func TuneSVR(x [][]float64, z []float64, base SVRParams, seed uint64) SVRParams {
	n := len(x)
	if n < 10 {
		return base
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x61c8864680b583eb))
	perm := rng.Perm(n)
	cut := n * 4 / 5
	var fx, vx [][]float64
	var fz, vz []float64
	for r, i := range perm {
		if r < cut {
			fx, fz = append(fx, x[i]), append(fz, z[i])
		} else {
			vx, vz = append(vx, x[i]), append(vz, z[i])
		}
	}
	best, bestErr := base, math.Inf(1)
	for _, c := range SVRGrid.C {
		for _, g := range SVRGrid.Gamma {
			p := base
			p.C, p.Gamma = c, g
			m, err := FitSVR(fx, fz, p)
			if err != nil {
				continue
			}
			sse := 0.0
			for i, v := range vx {
				d := m.Predict(v) - vz[i]
				sse += d * d
			}
			if sse < bestErr {
				best, bestErr = p, sse
			}
		}
	}
	return best
}

// scaleGamma is scikit-learn's gamma="scale": 1/(inputs × variance of all
// input values), or 1 for constant inputs.
func scaleGamma(x [][]float64) float64 {
	var sum, sq, cnt float64
	for _, r := range x {
		for _, v := range r {
			sum += v
			sq += v * v
			cnt++
		}
	}
	mean := sum / cnt
	v := sq/cnt - mean*mean
	if !(v > 1e-12) {
		return 1
	}
	return 1 / (float64(len(x[0])) * v)
}

// kernelRows computes kernel rows on demand and keeps them while their total
// stays under 256 MiB (the whole matrix for up to about 5,800 samples).
type kernelRows struct {
	x     [][]float64
	gamma float64
	rows  [][]float64
	kept  int
	tmp   [2][]float64 // uncached rows alternate between these: i's and j's
	flip  int
}

const kernelCacheFloats = 256 << 20 / 8

func newKernelRows(x [][]float64, gamma float64) *kernelRows {
	return &kernelRows{x: x, gamma: gamma, rows: make([][]float64, len(x))}
}

func (k *kernelRows) row(i int) []float64 {
	if r := k.rows[i]; r != nil {
		return r
	}
	var r []float64
	if (k.kept+1)*len(k.x) <= kernelCacheFloats {
		r = make([]float64, len(k.x))
		k.rows[i] = r
		k.kept++
	} else {
		k.flip ^= 1
		if k.tmp[k.flip] == nil {
			k.tmp[k.flip] = make([]float64, len(k.x))
		}
		r = k.tmp[k.flip]
	}
	for j, xj := range k.x {
		r[j] = rbf(k.gamma, k.x[i], xj)
	}
	return r
}
