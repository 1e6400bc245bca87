package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestCost(t *testing.T) {
	// Polaris' raw-metrics demo prices: 0.2 per vCPU-hour, 0.1 per GB-hour.
	polaris := Prices{PerVCPUHour: 0.2, PerGiBHour: 0.1}
	tests := []struct {
		name     string
		prices   Prices
		perPod   Requests
		replicas int
		want     float64
		msg      string
	}{
		{"polaris demo pod x3", polaris, Requests{CPUCores: 0.5, MemoryGiB: 1}, 3, 3 * (0.5*0.2 + 1*0.1), ""},
		{"zero replicas", polaris, Requests{CPUCores: 0.5, MemoryGiB: 1}, 0, 0, ""},
		{"cpu only", Prices{PerVCPUHour: 0.04}, Requests{CPUCores: 0.25, MemoryGiB: 4}, 8, 8 * 0.25 * 0.04, ""},
		{"free cluster", Prices{}, Requests{CPUCores: 2, MemoryGiB: 4}, 10, 0, ""},
		{"negative price", Prices{PerVCPUHour: -1}, Requests{}, 1, 0, "Prices.PerVCPUHour is -1"},
		{"nan price", Prices{PerGiBHour: math.NaN()}, Requests{}, 1, 0, "Prices.PerGiBHour is NaN"},
		{"inf cpu", polaris, Requests{CPUCores: math.Inf(1)}, 1, 0, "PerPod.CPUCores is +Inf"},
		{"negative memory", polaris, Requests{MemoryGiB: -0.5}, 1, 0, "PerPod.MemoryGiB is -0.5"},
		{"negative replicas", polaris, Requests{}, -2, 0, "Replicas is -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Cost(tt.prices, tt.perPod, tt.replicas)
			if tt.msg != "" {
				if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("got %v, %v; want ErrBadInput mentioning %q", got, err, tt.msg)
				}
				return
			}
			if err != nil || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestTotalCost(t *testing.T) {
	pod := Requests{CPUCores: 0.5, MemoryGiB: 2}
	got, err := TotalCost([]Placement{
		{Cluster: "private", Prices: Prices{PerVCPUHour: 0.01, PerGiBHour: 0.001}, PerPod: pod, Replicas: 8},
		{Cluster: "eks", Prices: Prices{PerVCPUHour: 0.0416, PerGiBHour: 0.0052}, PerPod: pod, Replicas: 12},
		{Cluster: "ack", Prices: Prices{PerVCPUHour: 0.035, PerGiBHour: 0.004}, PerPod: pod, Replicas: 0},
	})
	want := 8*(0.5*0.01+2*0.001) + 12*(0.5*0.0416+2*0.0052)
	if err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("TotalCost = %v, %v; want %v", got, err, want)
	}
	if got, err := TotalCost(nil); err != nil || got != 0 {
		t.Errorf("TotalCost(nil) = %v, %v; want 0", got, err)
	}
	_, err = TotalCost([]Placement{{Cluster: "private", Replicas: 1}, {Cluster: "eks", Prices: Prices{PerVCPUHour: -0.1}, Replicas: 1}})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), `placements[1] (cluster "eks"): invalid input: Prices.PerVCPUHour is -0.1`) {
		t.Errorf("error %v does not name the placement and field", err)
	}
}

func TestCostEfficiency(t *testing.T) {
	tests := []struct {
		name              string
		fast, total, cost float64
		want              Efficiency
		msg               string
	}{
		{"polaris", 90, 100, 0.6, Efficiency{CostEfficiency: 150, FastShare: 0.9, FastRPS: 90, TotalRPS: 100, CostPerHour: 0.6}, ""},
		{"all fast", 40, 40, 2, Efficiency{CostEfficiency: 20, FastShare: 1, FastRPS: 40, TotalRPS: 40, CostPerHour: 2}, ""},
		{"no traffic counts as all fast", 0, 0, 1.5, Efficiency{CostEfficiency: 0, FastShare: 1, CostPerHour: 1.5}, ""},
		{"none fast", 0, 10, 1, Efficiency{CostEfficiency: 0, FastShare: 0, TotalRPS: 10, CostPerHour: 1}, ""},
		{"rounding above total", 100 * (1 + 1e-12), 100, 1, Efficiency{CostEfficiency: 100 * (1 + 1e-12), FastShare: 1, FastRPS: 100 * (1 + 1e-12), TotalRPS: 100, CostPerHour: 1}, ""},
		{"zero cost", 10, 10, 0, Efficiency{}, "costPerHour is 0"},
		{"nan fast", math.NaN(), 10, 1, Efficiency{}, "fastRPS is NaN"},
		{"negative total", 1, -1, 1, Efficiency{}, "totalRPS is -1"},
		{"inf cost", 1, 1, math.Inf(1), Efficiency{}, "costPerHour is +Inf"},
		{"fast above total", 12, 10, 1, Efficiency{}, "fastRPS 12 exceeds totalRPS 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CostEfficiency(tt.fast, tt.total, tt.cost)
			if tt.msg != "" {
				if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("got %+v, %v; want ErrBadInput mentioning %q", got, err, tt.msg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CostEfficiency = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestHistogramQueries(t *testing.T) {
	h := Histogram{Metric: "http_request_duration_seconds", Filters: []LabelFilter{Eq("namespace", "shop"), Eq("app", "web")}, Range: time.Minute}
	byPod := h
	byPod.By = []string{"pod"}
	fast := func(h Histogram, th float64) Expr {
		q, err := h.FastRequests(th)
		if err != nil {
			t.Fatalf("FastRequests(%v): %v", th, err)
		}
		return q
	}
	tests := []struct {
		name string
		expr Expr
		want string
	}{
		{"fast 250ms", fast(h, 0.25), `sum(rate(http_request_duration_seconds_bucket{namespace="shop", app="web", le="0.25"}[1m]))`},
		{"fast 1s", fast(h, 1), `sum(rate(http_request_duration_seconds_bucket{namespace="shop", app="web", le="1"}[1m]))`},
		{"fast 2.5s by pod", fast(byPod, 2.5), `sum by (pod) (rate(http_request_duration_seconds_bucket{namespace="shop", app="web", le="2.5"}[1m]))`},
		{"fast +Inf", fast(h, math.Inf(1)), `sum(rate(http_request_duration_seconds_bucket{namespace="shop", app="web", le="+Inf"}[1m]))`},
		{"requests", h.Requests(), `sum(rate(http_request_duration_seconds_count{namespace="shop", app="web"}[1m]))`},
		{"p95", h.Quantile(0.95), `histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket{namespace="shop", app="web"}[1m])))`},
		{"p99 by pod", byPod.Quantile(0.99), `histogram_quantile(0.99, sum by (le, pod) (rate(http_request_duration_seconds_bucket{namespace="shop", app="web"}[1m])))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.expr.PromQL()
			if err != nil || got != tt.want {
				t.Errorf("PromQL() = %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
	// The filters of h are not modified by FastRequests.
	if len(h.Filters) != 2 {
		t.Errorf("FastRequests changed the histogram's filters: %v", h.Filters)
	}
	for _, th := range []float64{0, -0.1, math.NaN(), math.Inf(-1)} {
		if _, err := h.FastRequests(th); !errors.Is(err, ErrBadInput) {
			t.Errorf("FastRequests(%v): %v, want ErrBadInput", th, err)
		}
	}
	for bound, want := range map[float64]string{0.005: "0.005", 0.1: "0.1", 1: "1", 10: "10", 2.5: "2.5", 1e-7: "1e-07"} {
		if got := LeValue(bound); got != want {
			t.Errorf("LeValue(%v) = %q, want %q", bound, got, want)
		}
	}
}
