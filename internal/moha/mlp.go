package moha

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// MLP is a fitted multi-layer perceptron with one hidden layer of tanh units
// and a linear output: f(x) = B2 + Σₖ W2[k] tanh(B1[k] + W1[k]·x).
type MLP struct {
	W1 [][]float64 `json:"w1"`
	B1 []float64   `json:"b1"`
	W2 []float64   `json:"w2"`
	B2 float64     `json:"b2"`
}

// MLPParams are the MLP's hyperparameters; zero values take the defaults.
type MLPParams struct {
	Hidden       int     // hidden units (default 16)
	Epochs       int     // passes over the training set (default 300)
	BatchSize    int     // samples per Adam step (default 32)
	LearningRate float64 // Adam's step size (default 0.005)
	Seed         uint64  // initial weights and batch order
}

// Predict returns f(x).
func (m *MLP) Predict(x []float64) float64 {
	f := m.B2
	for k, w := range m.W1 {
		a := m.B1[k]
		for j, v := range x {
			a += w[j] * v
		}
		f += m.W2[k] * math.Tanh(a)
	}
	return f
}

func (m *MLP) validate(nIn int) error {
	h := len(m.W1)
	if h == 0 || len(m.B1) != h || len(m.W2) != h {
		return fmt.Errorf("mlp: w1, b1 and w2 must have the same, non-zero number of hidden units (%d, %d, %d)", h, len(m.B1), len(m.W2))
	}
	for k, w := range m.W1 {
		if len(w) != nIn || !allFinite(w) {
			return fmt.Errorf("mlp: w1[%d] must have %d finite values", k, nIn)
		}
	}
	if !allFinite(m.B1) || !allFinite(m.W2) || !finite(m.B2) {
		return errors.New("mlp: weights must be finite")
	}
	return nil
}

// mlpNet is the flat parameter vector θ = [W1 (h×p, row-major), B1 (h), W2 (h), B2].
type mlpNet struct{ h, p int }

func (n mlpNet) size() int { return n.h*n.p + 2*n.h + 1 }

// lossGrad adds to grad the gradient of ½Σ(f(x)-y)² over the batch and
// returns the loss; hid is scratch of length h.
func (n mlpNet) lossGrad(theta, grad []float64, xs [][]float64, ys []float64, hid []float64) float64 {
	w1, b1, w2 := theta[:n.h*n.p], theta[n.h*n.p:n.h*n.p+n.h], theta[n.h*n.p+n.h:n.h*n.p+2*n.h]
	gw1, gb1, gw2 := grad[:n.h*n.p], grad[n.h*n.p:n.h*n.p+n.h], grad[n.h*n.p+n.h:n.h*n.p+2*n.h]
	loss := 0.0
	for s, x := range xs {
		f := theta[len(theta)-1]
		for k := 0; k < n.h; k++ {
			a := b1[k]
			for j, v := range x {
				a += w1[k*n.p+j] * v
			}
			hid[k] = math.Tanh(a)
			f += w2[k] * hid[k]
		}
		d := f - ys[s]
		loss += d * d / 2
		grad[len(grad)-1] += d
		for k := 0; k < n.h; k++ {
			gw2[k] += d * hid[k]
			dh := d * w2[k] * (1 - hid[k]*hid[k])
			gb1[k] += dh
			for j, v := range x {
				gw1[k*n.p+j] += dh * v
			}
		}
	}
	return loss
}

func (n mlpNet) unpack(theta []float64) *MLP {
	m := &MLP{B1: append([]float64(nil), theta[n.h*n.p:n.h*n.p+n.h]...),
		W2: append([]float64(nil), theta[n.h*n.p+n.h:n.h*n.p+2*n.h]...), B2: theta[len(theta)-1]}
	for k := 0; k < n.h; k++ {
		m.W1 = append(m.W1, append([]float64(nil), theta[k*n.p:(k+1)*n.p]...))
	}
	return m
}

// FitMLP trains the MLP on the squared error with Adam (β₁ 0.9, β₂ 0.999) on
// shuffled mini-batches, from Glorot-uniform initial weights; all randomness
// comes from Seed.
func FitMLP(x [][]float64, y []float64, p MLPParams) (*MLP, error) {
	if len(x) == 0 || len(y) != len(x) {
		return nil, fmt.Errorf("mlp: %w", errNoSamples)
	}
	if p.Hidden == 0 {
		p.Hidden = 16
	}
	if p.Epochs == 0 {
		p.Epochs = 300
	}
	if p.BatchSize == 0 {
		p.BatchSize = 32
	}
	if p.LearningRate == 0 {
		p.LearningRate = 0.005
	}
	if p.Hidden < 0 || p.Epochs < 0 || p.BatchSize < 0 || !(p.LearningRate > 0) {
		return nil, fmt.Errorf("mlp: hidden %d, epochs %d, batch size %d and learning rate %v must be > 0", p.Hidden, p.Epochs, p.BatchSize, p.LearningRate)
	}
	net := mlpNet{h: p.Hidden, p: len(x[0])}
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x5851f42d4c957f2d))
	theta := make([]float64, net.size())
	lim1 := math.Sqrt(6 / float64(net.p+net.h))
	for i := 0; i < net.h*net.p; i++ {
		theta[i] = (2*rng.Float64() - 1) * lim1
	}
	lim2 := math.Sqrt(6 / float64(net.h+1))
	for k := 0; k < net.h; k++ {
		theta[net.h*net.p+net.h+k] = (2*rng.Float64() - 1) * lim2
	}
	grad := make([]float64, len(theta))
	m1 := make([]float64, len(theta))
	m2 := make([]float64, len(theta))
	hid := make([]float64, net.h)
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	bx := make([][]float64, 0, p.BatchSize)
	by := make([]float64, 0, p.BatchSize)
	const b1, b2, eps = 0.9, 0.999, 1e-8
	step := 0
	for e := 0; e < p.Epochs; e++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for start := 0; start < len(order); start += p.BatchSize {
			bx, by = bx[:0], by[:0]
			for _, i := range order[start:min(start+p.BatchSize, len(order))] {
				bx = append(bx, x[i])
				by = append(by, y[i])
			}
			clear(grad)
			net.lossGrad(theta, grad, bx, by, hid)
			step++
			c1 := 1 - math.Pow(b1, float64(step))
			c2 := 1 - math.Pow(b2, float64(step))
			for i, g := range grad {
				g /= float64(len(bx))
				m1[i] = b1*m1[i] + (1-b1)*g
				m2[i] = b2*m2[i] + (1-b2)*g*g
				theta[i] -= p.LearningRate * (m1[i] / c1) / (math.Sqrt(m2[i]/c2) + eps)
			}
		}
	}
	if !allFinite(theta) {
		return nil, errors.New("mlp: training diverged")
	}
	return net.unpack(theta), nil
}
