package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	sim "github.com/hca-project/terraform-provider-hca/internal/simulate"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// zeroBoots are the node boot delays of make capacity-bench
// (docs/bench/capacity.md), which measures the same scale from zero on the
// lab with the runtime's controllers.
var zeroBoots = []time.Duration{0, 30 * time.Second, 60 * time.Second, 90 * time.Second, capacity.DefaultNodeBootDelay}

// zeroModel is capacity-bench's scenario as a cluster model: replicas of 1
// CPU, a private cluster holding 4, an EKS node group of m5.xlarge (4 CPU,
// $0.192 per node-hour, 0 to 3 nodes) booting in boot, 10 s pod start-up
// (the lab's).
func zeroModel(boot time.Duration) (sim.ClusterModel, error) {
	return sim.ParseClusterModel([]byte(fmt.Sprintf(`apiVersion: simulate.hca.dev/v1alpha1
kind: ClusterModel
pod: {cpuRequest: 1, cpuLimit: 1, memoryGiB: 1, startupDelay: 10s}
clusters:
  - name: private
    role: primary
    capacityPods: 4
  - name: eks
    role: burst
    nodeGroups:
      - name: burst
        allocatable: {cpu: "4", memory: 16Gi, pods: 58}
        pricePerHour: 0.192
        maxNodes: 3
        bootDelay: %ds
`, int(boot/time.Second))))
}

// zeroRun is one surge: since the 10 replicas were decided, when the first
// and all 6 burst replicas were Ready; the peak of nodes; and, since the
// scale back was decided, when the group was at 0 nodes.
type zeroRun struct {
	first, all, back float64
	nodes            int32
}

// runZero surges from 4 to 10 replicas at second at (the reactive floor at
// 2 s on a request-rate metric of 80 requests/s per replica, so the
// decision follows the scrape) and back to 3 at at+300, with the policy's
// capacity.scaleDownDelay at 1 min and no pending threshold, as
// capacity-bench; times are since the decision.
func runZero(boot time.Duration, at int) (zeroRun, error) {
	m, err := zeroModel(boot)
	if err != nil {
		return zeroRun{}, err
	}
	p := sim.DefaultPolicy(m)
	p.Metric, p.Target, p.Max, p.PendingThreshold, p.ScaleDownDelay = sim.MetricRequestRate, 80, 10, 0, time.Minute
	tr := workload.Trace{{Seconds: 0, RPS: 320}, {Seconds: float64(at), RPS: 800}, {Seconds: float64(at + 300), RPS: 240}, {Seconds: float64(at + 600), RPS: 240}}
	r, err := sim.ReactiveFloor(p, m, tr, 2*time.Second)
	if err != nil {
		return zeroRun{}, err
	}
	s := r.Series
	decided := -1
	for t, d := range s.Desired {
		if d >= 10 {
			decided = t
			break
		}
	}
	if decided < 0 {
		return zeroRun{}, fmt.Errorf("boot %v: 10 replicas never decided", boot)
	}
	out := zeroRun{first: -1, all: -1, back: -1}
	down := -1
	for t := decided; t < len(s.Load); t++ {
		if down < 0 && s.Desired[t] < 10 {
			down = t
		}
		if down >= 0 && out.back < 0 && s.Nodes[1][t] == 0 {
			out.back = float64(t - down)
		}
		if out.first < 0 && s.Ready[1][t] > 0 {
			out.first = float64(t - decided)
		}
		if out.all < 0 && s.Ready[1][t] >= 6 {
			out.all = float64(t - decided)
		}
		out.nodes = max(out.nodes, s.Nodes[1][t])
	}
	return out, nil
}

// writeZero writes the simulator's side of capacity-bench: per boot delay,
// over surges decided at every phase of the 10 s capacity round, the time to
// the first and to all burst replicas Ready.
func writeZero(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\n### Scale from zero: the simulator beside the lab\n\n")
	b.WriteString("`make capacity-bench`'s scenario (docs/bench/capacity.md, measured on the lab with the runtime's controllers) in the simulator: 6 replicas of 1 CPU beyond a private cluster full at 4, an m5.xlarge group (4 CPU, $0.192/h, 0–3 nodes), 10 s pod start-up, capacity round every 10 s, no pending threshold, scale-down delay 1 min. Times since the 10 replicas were decided, over 10 surges 3 s apart (every phase of the scrape and of the capacity round; min–max); the lab's figures are since the Deployment was scaled.\n\n")
	b.WriteString("| node boot delay | ideal (boot + start-up + interval) | first burst replica Ready | all 6 Ready | nodes bought (peak) | burst back → group at 0 |\n|---:|---:|---:|---:|---:|---:|\n")
	for _, boot := range zeroBoots {
		lo, hi := zeroRun{first: 1e9, all: 1e9, back: 1e9}, zeroRun{}
		// Surges 3 s apart over 30 s: every phase of the 15 s scrape and
		// the 10 s capacity round.
		for k := range 10 {
			r, err := runZero(boot, 120+3*k)
			if err != nil {
				return err
			}
			lo.first, lo.all, lo.back = min(lo.first, r.first), min(lo.all, r.all), min(lo.back, r.back)
			hi.first, hi.all, hi.back, hi.nodes = max(hi.first, r.first), max(hi.all, r.all), max(hi.back, r.back), max(hi.nodes, r.nodes)
		}
		ideal := boot + 10*time.Second + 10*time.Second
		fmt.Fprintf(&b, "| %.0f s | %.0f s | %.0f–%.0f s | %.0f–%.0f s | %d | %.0f–%.0f s |\n", boot.Seconds(), ideal.Seconds(), lo.first, hi.first, lo.all, hi.all, hi.nodes, lo.back, hi.back)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
