package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/prometheus/common/model"
)

// Prices are a cluster's prices (a HybridCluster's spec.prices).
type Prices struct {
	PerVCPUHour float64
	PerGiBHour  float64
}

// Requests are the resources one pod requests.
type Requests struct {
	CPUCores  float64
	MemoryGiB float64
}

// Placement is a workload's footprint in one cluster: its pods' requests, how many
// replicas run there and the cluster's prices.
type Placement struct {
	// Cluster names the cluster in errors.
	Cluster  string
	Prices   Prices
	PerPod   Requests
	Replicas int
}

// ErrBadInput marks invalid input to the composed metrics.
var ErrBadInput = errors.New("invalid input")

func checkAmount(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%w: %s is %v: use a finite number >= 0", ErrBadInput, field, v)
	}
	return nil
}

// Cost is the cost per hour of replicas pods requesting perPod at prices:
// replicas x (CPUCores x PerVCPUHour + MemoryGiB x PerGiBHour), as Polaris' TotalCost.
func Cost(prices Prices, perPod Requests, replicas int) (float64, error) {
	for _, c := range []struct {
		field string
		v     float64
	}{
		{"Prices.PerVCPUHour", prices.PerVCPUHour},
		{"Prices.PerGiBHour", prices.PerGiBHour},
		{"PerPod.CPUCores", perPod.CPUCores},
		{"PerPod.MemoryGiB", perPod.MemoryGiB},
	} {
		if err := checkAmount(c.field, c.v); err != nil {
			return 0, err
		}
	}
	if replicas < 0 {
		return 0, fmt.Errorf("%w: Replicas is %d: use a count >= 0", ErrBadInput, replicas)
	}
	return float64(replicas) * (perPod.CPUCores*prices.PerVCPUHour + perPod.MemoryGiB*prices.PerGiBHour), nil
}

// TotalCost is the cost per hour of a workload over all the clusters it runs in.
func TotalCost(placements []Placement) (float64, error) {
	total := 0.0
	for i, p := range placements {
		c, err := Cost(p.Prices, p.PerPod, p.Replicas)
		if err != nil {
			return 0, fmt.Errorf("placements[%d] (cluster %q): %w", i, p.Cluster, err)
		}
		total += c
	}
	return total, nil
}

// Efficiency is Polaris' cost efficiency of a workload.
type Efficiency struct {
	// CostEfficiency is FastRPS / CostPerHour: requests per second served faster
	// than the threshold, per unit of cost per hour. Higher is better.
	CostEfficiency float64
	// FastShare is FastRPS / TotalRPS in [0, 1] (1 when there is no traffic, as in
	// Polaris): Polaris' "percentile of requests faster than the threshold", to
	// compare with the SLO's minimum.
	FastShare   float64
	FastRPS     float64
	TotalRPS    float64
	CostPerHour float64
}

// CostEfficiency computes Polaris' cost efficiency from the rate of requests faster
// than the latency threshold, the rate of all requests and the cost per hour. A zero
// cost has no efficiency and is an error ([ErrBadInput]) naming the fix.
func CostEfficiency(fastRPS, totalRPS, costPerHour float64) (Efficiency, error) {
	for _, c := range []struct {
		field string
		v     float64
	}{{"fastRPS", fastRPS}, {"totalRPS", totalRPS}, {"costPerHour", costPerHour}} {
		if err := checkAmount(c.field, c.v); err != nil {
			return Efficiency{}, err
		}
	}
	if costPerHour == 0 {
		return Efficiency{}, fmt.Errorf("%w: costPerHour is 0, so cost efficiency is undefined: set the clusters' prices and the pods' requests", ErrBadInput)
	}
	if fastRPS > totalRPS*(1+1e-9) {
		return Efficiency{}, fmt.Errorf("%w: fastRPS %v exceeds totalRPS %v: the bucket and count series must come from the same histogram and window", ErrBadInput, fastRPS, totalRPS)
	}
	share := 1.0
	if totalRPS > 0 {
		share = math.Min(fastRPS/totalRPS, 1)
	}
	return Efficiency{
		CostEfficiency: fastRPS / costPerHour,
		FastShare:      share,
		FastRPS:        fastRPS,
		TotalRPS:       totalRPS,
		CostPerHour:    costPerHour,
	}, nil
}

// Histogram selects a Prometheus histogram: Metric is its base name (e.g.
// "http_request_duration_seconds", whose series are _bucket, _count and _sum).
type Histogram struct {
	Metric  string
	Filters []LabelFilter
	// Range is the rate window, e.g. 1m.
	Range time.Duration
	// By groups the results (e.g. by pod); empty sums everything.
	By []string
}

func (h Histogram) query(suffix string) Query {
	return Query{Metric: h.Metric + suffix, Filters: h.Filters, Range: h.Range, Func: Rate, Aggregation: Sum, By: h.By}
}

// LeValue renders a bucket bound as client_golang exposes it in the le label
// (strconv 'g' format: 0.25, 1, 2.5, +Inf).
func LeValue(bound float64) string {
	if math.IsInf(bound, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(bound, 'g', -1, 64)
}

// FastRequests is the rate of requests faster than thresholdSeconds: the rate of the
// bucket whose le is the threshold, so the threshold must be one of the histogram's
// bucket bounds (as in Polaris, which offers only bucket bounds as thresholds).
func (h Histogram) FastRequests(thresholdSeconds float64) (Query, error) {
	if math.IsNaN(thresholdSeconds) || thresholdSeconds <= 0 || math.IsInf(thresholdSeconds, -1) {
		return Query{}, fmt.Errorf("%w: threshold %v s must be a positive bucket bound, e.g. 0.25", ErrBadInput, thresholdSeconds)
	}
	q := h.query("_bucket")
	q.Filters = append(append(make([]LabelFilter, 0, len(h.Filters)+1), h.Filters...), Eq(model.BucketLabel, LeValue(thresholdSeconds)))
	return q, nil
}

// Requests is the rate of all requests (the _count series).
func (h Histogram) Requests() Query { return h.query("_count") }

// Quantile is histogram_quantile(q) over the rate of the buckets.
func (h Histogram) Quantile(q float64) Query {
	b := h.query("_bucket")
	b.Quantile = Q(q)
	return b
}
