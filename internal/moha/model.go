package moha

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Kind names a regressor.
type Kind string

// The regressors.
const (
	KindOLS   Kind = "ols"   // ordinary least squares
	KindBayes Kind = "bayes" // Bayesian ridge
	KindSVR   Kind = "svr"   // epsilon-SVR, RBF kernel
	KindMLP   Kind = "mlp"   // one hidden layer of tanh units
)

// Kinds are all regressors, in the order reports list them.
var Kinds = []Kind{KindOLS, KindBayes, KindSVR, KindMLP}

// ParseKind returns the kind named s.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); slices.Contains(Kinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("unknown model %q (want one of ols, bayes, svr, mlp)", s)
}

// Options are the regressors' hyperparameters; zero values take defaults.
type Options struct {
	SVR SVRParams
	MLP MLPParams
	// TuneSVR chooses each target's SVR C and gamma by a grid search
	// ([TuneSVR]) instead of taking SVR's values.
	TuneSVR bool
	// Seed seeds the grid search's validation split.
	Seed uint64
}

// The model file's format name and the version this package writes and reads.
const (
	ModelFormat  = "hca-moha-model"
	ModelVersion = 1
)

// Model is a trained performance model: the input scaler and, per target, its
// scaler and regressor (of the model's Kind). It is what the model file holds.
type Model struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	Kind        Kind          `json:"kind"`
	Inputs      []string      `json:"inputs"`
	InputScaler Scaler        `json:"input_scaler"`
	Targets     []TargetModel `json:"targets"`
	// Samples is the number of training samples; informative only.
	Samples int `json:"samples"`
}

// TargetModel is one target's scaler (one column) and regressor: Linear for
// ols and bayes, SVR for svr, MLP for mlp.
type TargetModel struct {
	Name   string  `json:"name"`
	Scaler Scaler  `json:"scaler"`
	Linear *Linear `json:"linear,omitempty"`
	SVR    *SVR    `json:"svr,omitempty"`
	MLP    *MLP    `json:"mlp,omitempty"`
}

type regressor interface {
	Predict(x []float64) float64
	validate(nIn int) error
}

func (t *TargetModel) regressors() []regressor {
	var rs []regressor
	if t.Linear != nil {
		rs = append(rs, t.Linear)
	}
	if t.SVR != nil {
		rs = append(rs, t.SVR)
	}
	if t.MLP != nil {
		rs = append(rs, t.MLP)
	}
	return rs
}

// Train fits one regressor of the given kind per target on MinMax-scaled
// inputs and targets (the scalers fitted on samples).
func Train(kind Kind, samples []Sample, opts Options) (*Model, error) {
	if _, err := ParseKind(string(kind)); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if len(samples) < NumInputs+2 {
		return nil, fmt.Errorf("train: %d samples, need at least %d", len(samples), NumInputs+2)
	}
	raw := make([][]float64, len(samples))
	for i, s := range samples {
		in := s.Input()
		raw[i] = in[:]
	}
	m := &Model{Format: ModelFormat, Version: ModelVersion, Kind: kind, Inputs: Inputs[:], InputScaler: FitScaler(raw), Samples: len(samples)}
	x := make([][]float64, len(samples))
	for i, r := range raw {
		x[i] = m.InputScaler.Transform(make([]float64, NumInputs), r)
	}
	for t, name := range Targets {
		col := make([][]float64, len(samples))
		for i, s := range samples {
			col[i] = []float64{s.Target()[t]}
		}
		tm := TargetModel{Name: name, Scaler: FitScaler(col)}
		z := make([]float64, len(samples))
		for i, c := range col {
			z[i] = tm.Scaler.Transform(make([]float64, 1), c)[0]
		}
		var err error
		switch kind {
		case KindOLS:
			tm.Linear, err = FitOLS(x, z)
		case KindBayes:
			tm.Linear, err = FitBayesianRidge(x, z)
		case KindSVR:
			p := opts.SVR
			if opts.TuneSVR {
				p = TuneSVR(x, z, opts.SVR, opts.Seed)
			}
			tm.SVR, err = FitSVR(x, z, p)
		case KindMLP:
			tm.MLP, err = FitMLP(x, z, opts.MLP)
		}
		if err != nil {
			return nil, fmt.Errorf("train %s: %s: %w", kind, name, err)
		}
		m.Targets = append(m.Targets, tm)
	}
	return m, nil
}

// Predict returns the targets predicted for one input (in [Inputs] order and
// original units), in [Targets] order and original units.
func (m *Model) Predict(in [NumInputs]float64) [NumTargets]float64 {
	var x [NumInputs]float64
	m.InputScaler.Transform(x[:], in[:])
	var out [NumTargets]float64
	for t := range m.Targets {
		tm := &m.Targets[t]
		out[t] = tm.Scaler.Inverse(0, tm.regressors()[0].Predict(x[:]))
	}
	return out
}

// Accuracy is a model's error on samples, per target in [Targets] order: the
// mean absolute error in the target's unit and the coefficient of
// determination R² = 1 - SS_res/SS_tot.
type Accuracy struct {
	MAE [NumTargets]float64
	R2  [NumTargets]float64
}

// Evaluate measures m on samples (the held-out quarter).
func Evaluate(m *Model, samples []Sample) Accuracy {
	var acc Accuracy
	if len(samples) == 0 {
		return acc
	}
	var mean [NumTargets]float64
	for _, s := range samples {
		for t, v := range s.Target() {
			mean[t] += v / float64(len(samples))
		}
	}
	var ssRes, ssTot [NumTargets]float64
	for _, s := range samples {
		p := m.Predict(s.Input())
		for t, v := range s.Target() {
			acc.MAE[t] += math.Abs(p[t]-v) / float64(len(samples))
			ssRes[t] += (p[t] - v) * (p[t] - v)
			ssTot[t] += (v - mean[t]) * (v - mean[t])
		}
	}
	for t := range acc.R2 {
		switch {
		case ssTot[t] > 0:
			acc.R2[t] = 1 - ssRes[t]/ssTot[t]
		case ssRes[t] == 0:
			acc.R2[t] = 1
		}
	}
	return acc
}

// Save writes the model file (indented JSON).
func (m *Model) Save(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// Load reads and validates a model file: its format and version, its inputs
// and targets (names and order), its scalers, and one finite regressor of the
// model's kind per target.
func Load(r io.Reader) (*Model, error) {
	var m Model
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate checks what [Load] checks.
func (m *Model) Validate() error {
	if m.Format != ModelFormat {
		return fmt.Errorf("model: format %q, want %q", m.Format, ModelFormat)
	}
	if m.Version != ModelVersion {
		return fmt.Errorf("model: version %d, this hca-runtime reads version %d", m.Version, ModelVersion)
	}
	if _, err := ParseKind(string(m.Kind)); err != nil {
		return fmt.Errorf("model: kind: %w", err)
	}
	if !slices.Equal(m.Inputs, Inputs[:]) {
		return fmt.Errorf("model: inputs %v, want %v", m.Inputs, Inputs)
	}
	if err := m.InputScaler.validate(NumInputs); err != nil {
		return fmt.Errorf("model: input_scaler: %w", err)
	}
	if len(m.Targets) != NumTargets {
		return fmt.Errorf("model: %d targets, want %d (%v)", len(m.Targets), NumTargets, Targets)
	}
	for t := range m.Targets {
		tm := &m.Targets[t]
		if tm.Name != Targets[t] {
			return fmt.Errorf("model: targets[%d]: name %q, want %q", t, tm.Name, Targets[t])
		}
		if err := tm.Scaler.validate(1); err != nil {
			return fmt.Errorf("model: targets[%d] (%s): scaler: %w", t, tm.Name, err)
		}
		rs := tm.regressors()
		ok := len(rs) == 1
		if ok {
			switch m.Kind {
			case KindOLS, KindBayes:
				ok = tm.Linear != nil
			case KindSVR:
				ok = tm.SVR != nil
			case KindMLP:
				ok = tm.MLP != nil
			}
		}
		if !ok {
			return fmt.Errorf("model: targets[%d] (%s): want exactly one regressor, of kind %s", t, tm.Name, m.Kind)
		}
		if err := rs[0].validate(NumInputs); err != nil {
			return fmt.Errorf("model: targets[%d] (%s): %w", t, tm.Name, err)
		}
	}
	return nil
}

var errNoSamples = errors.New("no samples")
