package moha

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// smallSet is a quick synthetic dataset: 3×3×5 configurations at 13 rates.
func smallSet(t testing.TB) []Sample {
	t.Helper()
	g := Grid{CPUMilli: []float64{300, 400, 500}, MemoryMiB: []float64{400, 500, 600}, Replicas: []int{1, 2, 3, 4, 5}}
	for r := 20.0; r <= 500; r += 40 {
		g.RPS = append(g.RPS, r)
	}
	s, err := Synthesize(DefaultApp, g, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTrainSaveLoad(t *testing.T) {
	train, test := Split(smallSet(t), 1)
	for _, k := range Kinds {
		t.Run(string(k), func(t *testing.T) {
			m, err := Train(k, train, Options{MLP: MLPParams{Epochs: 50}})
			if err != nil {
				t.Fatal(err)
			}
			acc := Evaluate(m, test)
			for i, r2 := range acc.R2 {
				// Even a plane explains most of the variance of the usages;
				// the floor only catches a broken fit.
				if r2 < 0.3 {
					t.Errorf("%s: R² = %v on held-out samples", Targets[i], r2)
				}
			}
			var b bytes.Buffer
			if err := m.Save(&b); err != nil {
				t.Fatal(err)
			}
			back, err := Load(&b)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range test {
				if got, want := back.Predict(s.Input()), m.Predict(s.Input()); got != want {
					t.Fatalf("loaded model predicts %v, saved one %v", got, want)
				}
			}
		})
	}
}

func TestEvaluateByHand(t *testing.T) {
	// A model that predicts 0 for every target (one coefficient-free linear
	// regressor per target, scaler [0, 0]): for targets (10, 20) the MAE is
	// 15 and R² = 1 - (100+400)/(25+25) = -9.
	zero := TargetModel{Scaler: Scaler{Min: []float64{0}, Max: []float64{0}}, Linear: &Linear{Coef: make([]float64, NumInputs)}}
	m := &Model{InputScaler: Scaler{Min: make([]float64, NumInputs), Max: make([]float64, NumInputs)}, Targets: []TargetModel{zero, zero, zero}}
	acc := Evaluate(m, []Sample{
		{ResponseTimeMs: 10, CPUUsagePercent: 10, MemoryUsagePercent: 5},
		{ResponseTimeMs: 20, CPUUsagePercent: 20, MemoryUsagePercent: 5},
	})
	if acc.MAE[0] != 15 || acc.R2[0] != -9 {
		t.Errorf("response time: MAE %v, R² %v; want 15, -9", acc.MAE[0], acc.R2[0])
	}
	// A constant target predicted wrongly: SS_tot = 0, R² = 0.
	if acc.MAE[2] != 5 || acc.R2[2] != 0 {
		t.Errorf("memory usage: MAE %v, R² %v; want 5, 0", acc.MAE[2], acc.R2[2])
	}
}

func TestLoadErrors(t *testing.T) {
	train, _ := Split(smallSet(t), 1)
	m, err := Train(KindOLS, train, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"format", func(m map[string]any) { m["format"] = "other" }, `model: format "other", want "hca-moha-model"`},
		{"newer version", func(m map[string]any) { m["version"] = 2 }, "model: version 2, this hca-runtime reads version 1"},
		{"kind", func(m map[string]any) { m["kind"] = "forest" }, `model: kind: unknown model "forest"`},
		{"inputs", func(m map[string]any) { m["inputs"] = []string{"a"} }, "model: inputs [a], want"},
		{"input scaler min > max", func(m map[string]any) {
			m["input_scaler"].(map[string]any)["min"].([]any)[1] = 1e9
		}, "model: input_scaler: column 1: min 1e+09 > max"},
		{"targets", func(m map[string]any) { m["targets"] = m["targets"].([]any)[:2] }, "model: 2 targets, want 3"},
		{"target name", func(m map[string]any) { target(m, 1)["name"] = "x" }, `model: targets[1]: name "x", want "cpu_usage_percent"`},
		{"regressor of another kind", func(m map[string]any) {
			delete(target(m, 2), "linear")
			target(m, 2)["svr"] = map[string]any{"gamma": 1, "b": 0}
		}, "model: targets[2] (memory_usage_percent): want exactly one regressor, of kind ols"},
		{"coefficients", func(m map[string]any) { target(m, 0)["linear"].(map[string]any)["coef"] = []float64{1} },
			"model: targets[0] (response_time_ms): linear: 1 coefficients, want 4"},
		{"unknown field", func(m map[string]any) { m["weights"] = 1 }, `model: json: unknown field "weights"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := m.Save(&b); err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			tc.change(raw)
			data, _ := json.Marshal(raw)
			_, err := Load(bytes.NewReader(data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func target(m map[string]any, i int) map[string]any {
	return m["targets"].([]any)[i].(map[string]any)
}
