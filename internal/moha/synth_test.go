package moha

import "testing"

func TestSynthesize(t *testing.T) {
	g := PaperGrid()
	s, err := Synthesize(DefaultApp, g, 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 3125 {
		t.Fatalf("%d samples over the paper's grid, want 5×5×5×25 = 3125", len(s))
	}
	again, _ := Synthesize(DefaultApp, g, 0.05, 1)
	for i := range s {
		if s[i] != again[i] {
			t.Fatalf("sample %d differs between two runs with seed 1", i)
		}
		if s[i].CPUUsagePercent > 100 || s[i].MemoryUsagePercent > 100 || s[i].ResponseTimeMs < 0 {
			t.Fatalf("sample %d out of range: %+v", i, s[i])
		}
	}
	// Without noise a sample is the workload model's steady state.
	exact, _ := Synthesize(DefaultApp, g, 0, 1)
	if want := DefaultApp.Measure(300, 400, 1, 40); exact[0] != want {
		t.Errorf("first noise-free sample %+v, want %+v", exact[0], want)
	}
	if _, err := Synthesize(DefaultApp, g, -1, 1); err == nil {
		t.Error("negative noise accepted")
	}
}

func TestMeasureByHand(t *testing.T) {
	// 2 pods of 500m/600Mi offered 200 req/s: 100 req/s each, W = 250+100 =
	// 350 MiB, x = 350/600, g = 0.05×(350/600)/(250/600) = 0.07, cost 0.00214,
	// μ = 0.5/0.00214, latency 1/(μ-100), CPU 100×0.00214 = 0.214 cores = 42.8 %.
	got := DefaultApp.Measure(500, 600, 2, 200)
	mu := 0.5 / 0.00214
	if !near(got.ResponseTimeMs, 1000/(mu-100), 1e-9) || !near(got.CPUUsagePercent, 42.8, 1e-9) || !near(got.MemoryUsagePercent, 100*350.0/600, 1e-9) {
		t.Errorf("Measure = %+v", got)
	}
}
