// Command benchsched writes the before/after comparison of scheduled
// scaling and headroom (docs/bench/schedules.md): on the periodic traces
// (diurnal, week) the default algorithm (adaptive) alone, with headroom
// (spec.algorithm.adaptive.headroomPercent), with schedules
// (spec.schedules) at the trace's known peaks, and with both, beside the
// Kubernetes HPA defaults: SLA violations, cost per day, and the extra
// cost of each setting against the violations it avoids. Run it with make
// bench:
//
//	go run ./tools/benchsched diurnal week flash-crowd sale-beyond-private > docs/bench/schedules.md
//
// flash-crowd is the contrast: a step whose time is known in advance (a
// sale), where a window avoids what no reactive algorithm can.
// sale-beyond-private (a trace built here, not a file) is a known step
// beyond what the private cluster can serve even at its pods' CPU limit, so
// that the burst replicas, and the nodes they wait for, decide the
// violations: the window's lead (the adaptive forecast horizon) either
// covers the node boot or not, and the model before node groups
// (-before) shows what the boot costs.
//
// Each window's floor is 80 % of the highest count the adaptive run
// without schedules reached inside that window: what an operator reading
// the previous period's dashboard would set, leaving the top of the peak
// to the algorithm.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	sim "github.com/hca-project/terraform-provider-hca/internal/simulate"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// windows are the schedules per trace: around the peaks tools/tracegen
// puts in them (diurnal: 11:00, sigma 1.5 h, and 20:00, sigma 2 h; week:
// weekdays 10:00 and 15:00, Monday 9:00, weekend 13:00), all UTC.
var windows = map[string][]scaling.Window{
	"diurnal": {
		{Name: "morning", Start: "30 9 * * *", Duration: 3 * time.Hour},
		{Name: "evening", Start: "0 18 * * *", Duration: 4 * time.Hour},
	},
	"week": {
		{Name: "monday-rush", Start: "0 8 * * MON", Duration: 3 * time.Hour},
		{Name: "weekday-morning", Start: "30 8 * * MON-FRI", Duration: 3 * time.Hour},
		{Name: "weekday-afternoon", Start: "0 13 * * MON-FRI", Duration: 4 * time.Hour},
		{Name: "weekend", Start: "0 11 * * SAT,SUN", Duration: 4 * time.Hour},
	},
	// The contrast: a flash crowd whose time is known (a sale announced
	// for 00:05), the case schedules are for.
	"flash-crowd": {
		{Name: "sale", Start: "4 0 * * *", Duration: 11 * time.Minute},
	},
	"sale-beyond-private": {
		{Name: "sale", Start: "5 0 * * *", Duration: 15 * time.Minute},
	},
}

// synthetic are the traces built here: sale-beyond-private is 200
// requests/s, 3000 from 00:05 to 00:20 (the private cluster's 24 pods serve
// at most 2400 at their CPU limit; the policy's 60 replicas 2400 at the
// target), then 200 until 00:30.
var synthetic = map[string]workload.Trace{
	"sale-beyond-private": {{Seconds: 0, RPS: 200}, {Seconds: 300, RPS: 3000}, {Seconds: 1200, RPS: 200}, {Seconds: 1800, RPS: 200}},
}

// bootLead is a forecast horizon (and so a schedule lead) covering what a
// burst replica on a new node needs: start-up 20 s, the lab's boot 75 s and
// a 10 s capacity round.
const bootLead = 105 * time.Second

// floorShare is the share of the window's highest count the floor keeps.
const floorShare = 0.8

var headrooms = []float64{10, 25}

func main() {
	dir := flag.String("traces", "examples/traces", "directory of the traces (TRACE.csv)")
	policy := flag.String("policy", "examples/traces/policy.yaml", "BurstPolicy of every run (its algorithm is replaced)")
	cluster := flag.String("cluster", "examples/traces/cluster.yaml", "cluster model")
	before := flag.String("before", "examples/traces/cluster-pods.yaml", "cluster model before node groups, for the schedules' contrast (empty: none)")
	flag.Parse()
	if err := run(os.Stdout, *dir, *policy, *cluster, *before, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchsched:", err)
		os.Exit(1)
	}
}

type row struct {
	name string
	r    *sim.Result
}

func run(w io.Writer, dir, policyPath, clusterPath, beforePath string, traces []string) error {
	if len(traces) == 0 {
		return fmt.Errorf("name at least one trace (%s)", strings.Join(names(), ", "))
	}
	pd, err := os.ReadFile(policyPath)
	if err != nil {
		return fmt.Errorf("read policy: %w", err)
	}
	base, err := sim.ParsePolicy(pd)
	if err != nil {
		return fmt.Errorf("policy %s: %w", policyPath, err)
	}
	cd, err := os.ReadFile(clusterPath)
	if err != nil {
		return fmt.Errorf("read cluster model: %w", err)
	}
	model, err := sim.ParseClusterModel(cd)
	if err != nil {
		return fmt.Errorf("cluster model %s: %w", clusterPath, err)
	}
	var old *sim.ClusterModel
	if beforePath != "" {
		bd, err := os.ReadFile(beforePath)
		if err != nil {
			return fmt.Errorf("read cluster model: %w", err)
		}
		m, err := sim.ParseClusterModel(bd)
		if err != nil {
			return fmt.Errorf("cluster model %s: %w", beforePath, err)
		}
		old = &m
	}
	fmt.Fprintf(w, "<!-- generated by make bench (tools/benchsched): do not edit -->\n\n")
	fmt.Fprintf(w, "policy %s with algorithm adaptive (forecast horizon %s: schedules open that much early), cluster model %s; "+
		"second 0 of each trace is Monday 00:00 UTC (simulate.ScheduleEpoch). Each window's floor is %.0f %% of the highest count "+
		"the adaptive run without schedules reached inside it. Extra cost and violations avoided are against adaptive alone; "+
		"$ per point is the extra cost per day for each percentage point of violations avoided.\n\n"+
		"Burst replicas wait for a node of the burst clusters' node groups (boot %v, the lab's; bought every 10 s; released 10 min after empty). "+
		"A schedule raises replicas, so it buys nodes only through them: a window opens `forecastHorizon` early, and only a horizon that covers the node boot (%v: start-up 20 s + boot + a capacity round) has burst replicas Ready when it opens. "+
		"The rows marked %s run on %s, the model before node groups (each burst pod ready `provisioningDelay` + start-up after its placement, priced by its requests).\n",
		filepath.Base(policyPath), leadOf(base, model).String()+", the time the cluster model needs to make a burst replica ready, as forecastHorizon is not set", filepath.Base(clusterPath), floorShare*100, capacity.DefaultNodeBootDelay, bootLead, "\"no nodes\"", filepath.Base(beforePath))
	for _, name := range traces {
		ws, ok := windows[name]
		if !ok {
			return fmt.Errorf("trace %q has no windows here: use %s", name, strings.Join(names(), ", "))
		}
		tr, ok := synthetic[name]
		if !ok {
			var err error
			if tr, err = readTrace(filepath.Join(dir, name+".csv")); err != nil {
				return err
			}
		}
		// TRACE-history.csv, when there is one, warms the adaptive runs
		// (as make bench's hca-runtime simulate --history).
		p := base
		if hist, err := readTrace(filepath.Join(dir, name+"-history.csv")); err == nil {
			p = base.WithHistory(hist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		rows, floors, err := runTrace(p, model, old, tr, ws)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		writeTable(w, name, ws, floors, rows)
	}
	return nil
}

func names() []string { return []string{"diurnal", "week", "flash-crowd", "sale-beyond-private"} }

func readTrace(path string) (workload.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sim.ParseTrace(f)
}

func runTrace(base sim.Policy, model sim.ClusterModel, old *sim.ClusterModel, tr workload.Trace, ws []scaling.Window) ([]row, []int32, error) {
	var rows []row
	add := func(name string, p sim.Policy) (*sim.Result, error) {
		m := model
		if strings.HasSuffix(name, "(no nodes)") {
			m = *old
		}
		r, err := sim.Run(p, m, tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, row{name, r})
		return r, nil
	}
	hpa, err := base.WithAlgorithm("kubernetes")
	if err != nil {
		return nil, nil, err
	}
	if _, err := add("kubernetes (HPA defaults)", hpa); err != nil {
		return nil, nil, err
	}
	adaptive, err := base.WithAlgorithm("adaptive")
	if err != nil {
		return nil, nil, err
	}
	plain, err := add("adaptive", adaptive)
	if err != nil {
		return nil, nil, err
	}
	for _, h := range headrooms {
		p, err := adaptive.WithHeadroom(0, h)
		if err != nil {
			return nil, nil, err
		}
		if _, err := add(fmt.Sprintf("adaptive + %.0f %% headroom", h), p); err != nil {
			return nil, nil, err
		}
	}
	floors, err := windowFloors(plain, ws)
	if err != nil {
		return nil, nil, err
	}
	withFloors := make([]scaling.Window, len(ws))
	for i, w := range ws {
		w.MinReplicas = floors[i]
		withFloors[i] = w
	}
	sched, err := adaptive.WithSchedules(withFloors)
	if err != nil {
		return nil, nil, err
	}
	if _, err := add("adaptive + schedules", sched); err != nil {
		return nil, nil, err
	}
	both, err := sched.WithHeadroom(0, headrooms[0])
	if err != nil {
		return nil, nil, err
	}
	if _, err := add(fmt.Sprintf("adaptive + schedules + %.0f %% headroom", headrooms[0]), both); err != nil {
		return nil, nil, err
	}
	early, err := sched.WithForecastHorizon(bootLead)
	if err != nil {
		return nil, nil, err
	}
	if _, err := add(fmt.Sprintf("adaptive + schedules, horizon %v (lead covers node boot)", bootLead), early); err != nil {
		return nil, nil, err
	}
	if old != nil {
		if _, err := add("adaptive (no nodes)", adaptive); err != nil {
			return nil, nil, err
		}
		if _, err := add("adaptive + schedules (no nodes)", sched); err != nil {
			return nil, nil, err
		}
	}
	return rows, floors, nil
}

// windowFloors is floorShare of the highest count r desired inside each
// window (sampled every minute), at least 1.
func windowFloors(r *sim.Result, ws []scaling.Window) ([]int32, error) {
	out := make([]int32, len(ws))
	for i, w := range ws {
		w.MinReplicas = 1
		s, err := scaling.NewSchedule([]scaling.Window{w})
		if err != nil {
			return nil, err
		}
		var peak int32
		for t := 0; t < len(r.Series.Desired); t += 60 {
			if s.Floor(sim.ScheduleEpoch.Add(time.Duration(t)*time.Second), 0).Min > 0 {
				peak = max(peak, r.Series.Desired[t])
			}
		}
		out[i] = max(1, int32(floorShare*float64(peak)))
	}
	return out, nil
}

func writeTable(w io.Writer, name string, ws []scaling.Window, floors []int32, rows []row) {
	fmt.Fprintf(w, "\n### %s\n\nWindows (UTC):", name)
	for i, win := range ws {
		sep := ","
		if i == len(ws)-1 {
			sep = "."
		}
		fmt.Fprintf(w, " %s `%s` for %s, floor %d%s", win.Name, win.Start, shortDur(win.Duration), floors[i], sep)
	}
	fmt.Fprintf(w, "\n\n| setting | SLA violations | cost / day | re-expansions | extra cost / day | violations avoided | $ per point avoided |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	var ref *sim.Result
	for _, r := range rows {
		if r.name == "adaptive" {
			ref = r.r
		}
	}
	for _, r := range rows {
		m := r.r.Metrics
		v := m.SLAViolationRate * 100
		extra, avoided, per := "", "", ""
		if ref != nil && r.r != ref {
			dc := m.CostPerDay - ref.Metrics.CostPerDay
			dv := ref.Metrics.SLAViolationRate*100 - v
			extra, avoided = fmt.Sprintf("%+.2f $", dc), fmt.Sprintf("%+.3f pp", dv)
			switch {
			case dv > 0.0005 && dc > 0:
				per = fmt.Sprintf("%.2f $", dc/dv)
			case dv > 0.0005:
				per = "free"
			default:
				per = "—"
			}
		}
		fmt.Fprintf(w, "| %s | %.3f %% | %.2f $ | %d | %s | %s | %s |\n", r.name, v, m.CostPerDay, m.ReExpansions, extra, avoided, per)
	}
}

func shortDur(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}

// leadOf is the schedule lead of p's adaptive algorithm in m: its longer
// horizon, that of a replica that waits for a node.
func leadOf(p sim.Policy, m sim.ClusterModel) time.Duration {
	_, nodes := p.ReadyHorizon(m)
	return nodes
}
