package moha

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Columns are the dataset's required CSV columns, in the order [WriteDataset]
// writes them. A dataset may hold them in any order and have more columns,
// which are ignored.
var Columns = []string{
	"cpu_limit_millicores", "memory_limit_mib", "replicas", "requests_per_second",
	"response_time_ms", "cpu_usage_percent", "memory_usage_percent",
}

// MinSamples is the fewest rows a dataset may have: its held-out quarter then
// has 5 samples and its training set 15, three times the 5 coefficients of a
// linear model.
const MinSamples = 20

// NumInputs is the number of model inputs: CPU limit, memory limit, replicas
// and request rate.
const NumInputs = 4

// NumTargets is the number of predicted targets (see [Targets]).
const NumTargets = 3

// Targets are the predicted targets' column names, in model order.
var Targets = [NumTargets]string{"response_time_ms", "cpu_usage_percent", "memory_usage_percent"}

// Inputs are the model inputs' column names, in model order.
var Inputs = [NumInputs]string{"cpu_limit_millicores", "memory_limit_mib", "replicas", "requests_per_second"}

// Sample is one load test: a configuration, the offered load and the
// measured targets.
type Sample struct {
	CPULimitMilli      float64 // CPU limit per pod, millicores
	MemoryLimitMiB     float64 // memory limit per pod, MiB
	Replicas           float64 // ready pods
	RequestsPerSecond  float64 // offered load of the service
	ResponseTimeMs     float64 // average response time, ms
	CPUUsagePercent    float64 // average CPU usage per pod, % of its limit
	MemoryUsagePercent float64 // average memory usage per pod, % of its limit
}

// Input is the sample's model input, in [Inputs] order.
func (s Sample) Input() [NumInputs]float64 {
	return [NumInputs]float64{s.CPULimitMilli, s.MemoryLimitMiB, s.Replicas, s.RequestsPerSecond}
}

// Target is the sample's targets, in [Targets] order.
func (s Sample) Target() [NumTargets]float64 {
	return [NumTargets]float64{s.ResponseTimeMs, s.CPUUsagePercent, s.MemoryUsagePercent}
}

func (s *Sample) fields() [7]*float64 {
	return [7]*float64{&s.CPULimitMilli, &s.MemoryLimitMiB, &s.Replicas, &s.RequestsPerSecond,
		&s.ResponseTimeMs, &s.CPUUsagePercent, &s.MemoryUsagePercent}
}

// ErrTooFewSamples is returned (wrapped) by [ReadDataset] for a dataset of
// fewer than [MinSamples] rows.
var ErrTooFewSamples = errors.New("too few samples")

// ReadDataset reads a dataset CSV with a header row. Every field of the
// [Columns] must be a finite number, limits and replicas > 0, the others >= 0.
// Errors name the missing column, or the line and column of a bad field.
func ReadDataset(r io.Reader) ([]Sample, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("dataset: empty, want a header row with the columns %s", strings.Join(Columns, ","))
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: header: %w", err)
	}
	index := make(map[string]int, len(header))
	for i, h := range header {
		index[strings.TrimSpace(h)] = i
	}
	var pos [7]int
	var missing []string
	for c, name := range Columns {
		i, ok := index[name]
		if !ok {
			missing = append(missing, name)
		}
		pos[c] = i
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("dataset: missing column %s (header: %s)", strings.Join(missing, ", "), strings.Join(header, ","))
	}
	var out []Sample
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("dataset: %w", err)
		}
		var s Sample
		f := s.fields()
		for c, name := range Columns {
			if pos[c] >= len(rec) {
				return nil, fmt.Errorf("dataset: line %d: column %s: missing field (the row has %d fields)", line, name, len(rec))
			}
			raw := strings.TrimSpace(rec[pos[c]])
			v, err := strconv.ParseFloat(raw, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("dataset: line %d: column %s: %q is not a finite number", line, name, raw)
			}
			if c < 3 && v <= 0 {
				return nil, fmt.Errorf("dataset: line %d: column %s: %v must be > 0", line, name, v)
			}
			if v < 0 {
				return nil, fmt.Errorf("dataset: line %d: column %s: %v must be >= 0", line, name, v)
			}
			*f[c] = v
		}
		out = append(out, s)
	}
	if len(out) < MinSamples {
		return nil, fmt.Errorf("dataset: %d rows, need at least %d: %w", len(out), MinSamples, ErrTooFewSamples)
	}
	return out, nil
}

// WriteDataset writes samples as a dataset CSV with the [Columns] header.
func WriteDataset(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Columns); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	rec := make([]string, len(Columns))
	for _, s := range samples {
		for c, f := range s.fields() {
			rec[c] = strconv.FormatFloat(*f, 'g', 6, 64)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return nil
}

// Split shuffles a copy of samples with a PCG seeded by seed and returns its
// first three quarters (rounded down) as the training set and the rest as the
// held-out test set. The same seed gives the same split.
func Split(samples []Sample, seed uint64) (train, test []Sample) {
	s := append([]Sample(nil), samples...)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	n := len(s) * 3 / 4
	return s[:n], s[n:]
}
