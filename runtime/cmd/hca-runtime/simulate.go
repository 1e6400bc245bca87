package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	sim "github.com/hca-project/terraform-provider-hca/internal/simulate"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

const simulateUsage = `usage: hca-runtime simulate --trace FILE [--history FILE] [--policy FILE] [--model FILE] [--cluster FILE] [--compare ALG,ALG,...] [--out DIR]

Replays a load trace (CSV seconds,requests_per_second) against a burst policy
or an SLO on a cluster model in virtual time, with the runtime's own scaling
and SLO code, and prints a Markdown table of elasticity metrics. A policy file
is the CRD's YAML, its kind read from the file: a BurstPolicy, a
ServiceLevelObjective (Horizontal or Vertical strategy), or a
ServiceLevelObjective of strategy Burst and its BurstPolicy separated by ---.
--compare runs several algorithms (adaptive, kubernetes, frss, panic) or policy files
(*.yaml) side by side; --out writes one SVG chart per run (load and the
adaptive forecast, pods per cluster, latency, and the burst clusters' nodes
when the cluster model gives them nodeGroups). --history gives the load
before the trace (a trace whose end is the trace's second 0): the adaptive
algorithm's history is warmed with it, as the runtime warms it from
Prometheus, so its seasonal forecast acts from the start; nothing else is
replayed from it, and the metrics cover the trace only.

A policy file of kind MultiObjectiveElasticityStrategy (with, after ---
lines, the ConfigMap of its model, or --model FILE: the file of
hca-runtime moha train) replays the MultiObjective strategy (MOHA) with the
controller's round on the workload model: replicas and the pods' CPU and
memory limits together, each change serving after the pod start-up delay
(the cluster model's, default 10s), cost at the MOHA paper's prices; the
table gives response times, seconds over the target, changes and cost per
day, --out the load, replicas, CPU and memory limit, response time and cost.
--compare then lists other strategy files (*.yaml).

`

// simulate implements "hca-runtime simulate". Bad input is a usageError
// (exit code 2).
func simulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, simulateUsage); fs.PrintDefaults() }
	tracePath := fs.String("trace", "", "load trace CSV (seconds,requests_per_second); required")
	historyPath := fs.String("history", "", "load trace CSV of the span before --trace, warming the adaptive algorithm's history (default: none)")
	policyPath := fs.String("policy", "", "BurstPolicy or ServiceLevelObjective YAML (default: a BurstPolicy of the CRD defaults, max 100 replicas)")
	clusterPath := fs.String("cluster", "", "cluster model YAML (default: one unlimited primary cluster)")
	compare := fs.String("compare", "", "comma-separated algorithms or policy files to run side by side (default: the policy's algorithm)")
	outDir := fs.String("out", "", "directory for the SVG charts (default: none)")
	modelPath := fs.String("model", "", "model file of hca-runtime moha train for a MultiObjectiveElasticityStrategy --policy (default: the ConfigMap of spec.model in the policy file)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("simulate: unexpected argument %q", fs.Arg(0))}
	}
	if *tracePath == "" {
		return usageError{"simulate: --trace is required: give a CSV file of seconds,requests_per_second lines"}
	}
	tr, err := readTrace(*tracePath)
	if err != nil {
		return err
	}
	var history workload.Trace
	if *historyPath != "" {
		if history, err = readTrace(*historyPath); err != nil {
			return err
		}
	}

	var model *sim.ClusterModel
	if *clusterPath != "" {
		data, err := os.ReadFile(*clusterPath)
		if err != nil {
			return usageError{fmt.Sprintf("simulate: --cluster: %v", err)}
		}
		m, err := sim.ParseClusterModel(data)
		if err != nil {
			return usageError{fmt.Sprintf("simulate: %s: %v", *clusterPath, err)}
		}
		model = &m
	}
	loadPolicy := func(path string) (sim.Policy, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return sim.Policy{}, usageError{fmt.Sprintf("simulate: policy: %v", err)}
		}
		p, err := sim.ParseInput(data)
		if err != nil {
			return sim.Policy{}, usageError{fmt.Sprintf("simulate: %s: %v", path, err)}
		}
		return p, nil
	}
	if *policyPath != "" {
		data, err := os.ReadFile(*policyPath)
		if err != nil {
			return usageError{fmt.Sprintf("simulate: policy: %v", err)}
		}
		if sim.IsMultiObjective(data) {
			return simulateMultiObjective(ctx, multiObjectiveArgs{tracePath: *tracePath, trace: tr, policyPath: *policyPath, policy: data,
				modelPath: *modelPath, cluster: model, clusterPath: *clusterPath, compare: *compare, outDir: *outDir}, stdout)
		}
	}
	if *modelPath != "" {
		return usageError{"simulate: --model is the model of a MultiObjectiveElasticityStrategy: give one as --policy, or drop --model"}
	}
	var base sim.Policy
	if *policyPath != "" {
		if base, err = loadPolicy(*policyPath); err != nil {
			return err
		}
		if model == nil {
			names := make([]string, 0, len(base.BurstTargets))
			for _, t := range base.BurstTargets {
				names = append(names, t.Cluster)
			}
			primary := base.Primary
			if primary == "" { // an SLO of strategy Horizontal or Vertical
				primary = "primary"
			}
			m := sim.DefaultClusterModel(primary, names...)
			model = &m
		}
	} else {
		if model == nil {
			m := sim.DefaultClusterModel("primary")
			model = &m
		}
		base = sim.DefaultPolicy(*model)
	}

	type run struct {
		name   string
		policy sim.Policy
	}
	var runs []run
	if *compare == "" {
		runs = append(runs, run{base.Algorithm, base})
	} else {
		seen := map[string]bool{}
		for _, item := range strings.Split(*compare, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return usageError{fmt.Sprintf("simulate: --compare %q has an empty entry: separate algorithms or policy files with single commas", *compare)}
			}
			if seen[item] {
				return usageError{fmt.Sprintf("simulate: --compare lists %q twice", item)}
			}
			seen[item] = true
			if strings.HasSuffix(item, ".yaml") || strings.HasSuffix(item, ".yml") {
				p, err := loadPolicy(item)
				if err != nil {
					return err
				}
				name := strings.TrimSuffix(filepath.Base(item), filepath.Ext(item))
				runs = append(runs, run{name, p})
				continue
			}
			p, err := base.WithAlgorithm(item)
			if err != nil {
				return usageError{fmt.Sprintf("simulate: --compare: %v", err)}
			}
			runs = append(runs, run{item, p})
		}
	}

	var results []*sim.Result
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := sim.Run(r.policy.WithHistory(history), *model, tr)
		if err != nil {
			if errors.Is(err, sim.ErrInput) {
				return usageError{fmt.Sprintf("simulate: %v", err)}
			}
			return fmt.Errorf("simulate %s: %w", r.name, err)
		}
		res.Name = r.name
		results = append(results, res)
	}
	var table bytes.Buffer
	fmt.Fprintf(&table, "trace %s (%d s), policy %s, cluster model %s\n\n", filepath.Base(*tracePath), results[0].Metrics.Seconds, orDefault(*policyPath), orDefault(*clusterPath))
	if err := sim.WriteTable(&table, results); err != nil {
		return err
	}
	if _, err := stdout.Write(table.Bytes()); err != nil {
		return err
	}
	if *outDir == "" {
		return nil
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return fmt.Errorf("simulate: --out: %w", err)
	}
	traceName := strings.TrimSuffix(filepath.Base(*tracePath), filepath.Ext(*tracePath))
	for _, r := range results {
		var svg bytes.Buffer
		title := fmt.Sprintf("%s — %s", traceName, r.Label())
		if err := sim.WriteSVG(&svg, r, title); err != nil {
			return err
		}
		path := filepath.Join(*outDir, traceName+"-"+r.Label()+".svg")
		if err := os.WriteFile(path, svg.Bytes(), 0o644); err != nil {
			return fmt.Errorf("simulate: write chart: %w", err)
		}
	}
	return nil
}

func orDefault(path string) string {
	if path == "" {
		return "(default)"
	}
	return filepath.Base(path)
}

func readTrace(path string) (workload.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{fmt.Sprintf("simulate: --trace: %v", err)}
	}
	defer f.Close()
	tr, err := sim.ParseTrace(f)
	if err != nil {
		return nil, usageError{fmt.Sprintf("simulate: %s: %v", path, err)}
	}
	return tr, nil
}
