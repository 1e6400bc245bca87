package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hca-project/terraform-provider-hca/internal/moha"
	sim "github.com/hca-project/terraform-provider-hca/internal/simulate"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// multiObjectiveArgs are simulate's flags for a MultiObjective strategy.
type multiObjectiveArgs struct {
	tracePath   string
	trace       workload.Trace
	policyPath  string
	policy      []byte
	modelPath   string
	cluster     *sim.ClusterModel // nil: none given
	clusterPath string
	compare     string
	outDir      string
}

// simulateMultiObjective replays a MultiObjectiveElasticityStrategy (and the
// strategies --compare lists) on the trace: sim.RunMultiObjective, the
// table and, with --out, one chart per run. Bad input is a usageError.
func simulateMultiObjective(ctx context.Context, a multiObjectiveArgs, stdout io.Writer) error {
	var model *moha.Model
	if a.modelPath != "" {
		data, err := os.ReadFile(a.modelPath)
		if err != nil {
			return usageError{fmt.Sprintf("simulate: --model: %v", err)}
		}
		if model, err = sim.ParseModel(data); err != nil {
			return usageError{fmt.Sprintf("simulate: --model %s: %v", a.modelPath, err)}
		}
	}
	type run struct {
		name, path string
		data       []byte
	}
	runs := []run{{strings.TrimSuffix(filepath.Base(a.policyPath), filepath.Ext(a.policyPath)), a.policyPath, a.policy}}
	if a.compare != "" {
		runs = runs[:0]
		seen := map[string]bool{}
		for _, item := range strings.Split(a.compare, ",") {
			item = strings.TrimSpace(item)
			switch {
			case item == "":
				return usageError{fmt.Sprintf("simulate: --compare %q has an empty entry: separate strategy files with single commas", a.compare)}
			case seen[item]:
				return usageError{fmt.Sprintf("simulate: --compare lists %q twice", item)}
			case !strings.HasSuffix(item, ".yaml") && !strings.HasSuffix(item, ".yml"):
				return usageError{fmt.Sprintf("simulate: --compare %q: the policy is a MultiObjectiveElasticityStrategy, whose model decides: list other strategy files (*.yaml), not algorithms", item)}
			}
			seen[item] = true
			data, err := os.ReadFile(item)
			if err != nil {
				return usageError{fmt.Sprintf("simulate: --compare: %v", err)}
			}
			runs = append(runs, run{strings.TrimSuffix(filepath.Base(item), filepath.Ext(item)), item, data})
		}
	}
	delay := workload.DefaultPodStartupDelay
	if a.cluster != nil {
		delay = a.cluster.Pod.StartupDelay
	}
	var results []*sim.MultiObjectiveResult
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !sim.IsMultiObjective(r.data) {
			return usageError{fmt.Sprintf("simulate: %s: not a MultiObjectiveElasticityStrategy: compare MultiObjective strategies with each other", r.path)}
		}
		mo, err := sim.ParseMultiObjective(r.data)
		if err != nil {
			return usageError{fmt.Sprintf("simulate: %s: %v", r.path, err)}
		}
		m := mo.Model
		if model != nil {
			m = model
		}
		if m == nil {
			return usageError{fmt.Sprintf("simulate: %s: spec.model names ConfigMap %q, which is not in the file: add it after a --- line (key %q holding the file of hca-runtime moha train) or give --model FILE",
				r.path, mo.Spec.Model.ConfigMapName, mo.Spec.Model.Key)}
		}
		res, err := sim.RunMultiObjective(mo, m, a.trace, delay)
		if err != nil {
			return fmt.Errorf("simulate %s: %w", r.name, err)
		}
		res.Name = r.name
		results = append(results, res)
	}
	modelFrom := "the ConfigMap of spec.model"
	if a.modelPath != "" {
		modelFrom = filepath.Base(a.modelPath)
	}
	var table bytes.Buffer
	fmt.Fprintf(&table, "trace %s (%d s), strategy %s, model %s, cluster model %s\n\n", filepath.Base(a.tracePath), results[0].Summary.Seconds,
		filepath.Base(a.policyPath), modelFrom, orDefault(a.clusterPath))
	if err := sim.WriteMultiObjectiveTable(&table, results); err != nil {
		return err
	}
	if _, err := stdout.Write(table.Bytes()); err != nil {
		return err
	}
	if a.outDir == "" {
		return nil
	}
	if err := os.MkdirAll(a.outDir, 0o755); err != nil {
		return fmt.Errorf("simulate: --out: %w", err)
	}
	traceName := strings.TrimSuffix(filepath.Base(a.tracePath), filepath.Ext(a.tracePath))
	for _, r := range results {
		var svg bytes.Buffer
		if err := sim.WriteMultiObjectiveSVG(&svg, r, fmt.Sprintf("%s — %s", traceName, r.Label())); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(a.outDir, traceName+"-"+r.Label()+".svg"), svg.Bytes(), 0o644); err != nil {
			return fmt.Errorf("simulate: write chart: %w", err)
		}
	}
	return nil
}
