package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/hca-project/terraform-provider-hca/internal/metrics"

	"github.com/hca-project/terraform-provider-hca/internal/moha"
)

const mohaUsage = `usage: hca-runtime moha <command> [flags]

Multi-objective hybrid autoscaling (MOHA), offline tools:

  collect  write a dataset CSV: over the paper's grid on the workload model
           in virtual time (--source model), or by measuring a real
           Deployment under the lab's loadsim through Prometheus (--source lab)
  train    train a performance model on a dataset CSV, print MAE and R^2 per
           target and model on the held-out quarter, write the model file
  decide   rank the 12 parameter variations around a current state with a
           model file and TOPSIS

The dataset CSV has a header row and the columns
cpu_limit_millicores,memory_limit_mib,replicas,requests_per_second,
response_time_ms,cpu_usage_percent,memory_usage_percent (any order, extra
columns ignored). See hca-runtime moha <command> -h.
`

// mohaCmd implements "hca-runtime moha". Bad input is a usageError (exit 2).
func mohaCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, mohaUsage)
		return usageError{"moha: no command given"}
	}
	switch args[0] {
	case "collect":
		return mohaCollect(args[1:], stdout, stderr)
	case "train":
		return mohaTrain(args[1:], stdout, stderr)
	case "decide":
		return mohaDecide(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, mohaUsage)
		return nil
	default:
		fmt.Fprint(stderr, mohaUsage)
		return usageError{fmt.Sprintf("moha: unknown command %q", args[0])}
	}
}

// mohaFlags is a moha subcommand's flag set, its -h printing the usage line.
func mohaFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, "usage: hca-runtime moha %s %s\n\n", name, usage); fs.PrintDefaults() }
	return fs
}

// parseFlags parses a moha subcommand's flags; done is true after -h.
func parseFlags(fs *flag.FlagSet, args []string) (done bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return false, usageError{fmt.Sprintf("moha %s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return false, nil
}

func mohaCollect(args []string, stdout, stderr io.Writer) error {
	fs := mohaFlags("collect", "--out FILE [--source model|lab] [--seed N] [--noise F] [lab flags]", stderr)
	source := fs.String("source", "model", "where samples come from: model (the workload model in virtual time, the paper's grid) or lab (a real Deployment under the lab's loadsim, measured through Prometheus)")
	out := fs.String("out", "", "dataset CSV to write; required")
	seed := fs.Uint64("seed", 1, "model: seed of the measurement noise")
	noise := fs.Float64("noise", 0.05, "model: relative standard deviation of the measurement noise on each target")
	kubeconfig := fs.String("kubeconfig", "", "lab: kubeconfig of the cluster running the Deployment (default: in-cluster or $KUBECONFIG)")
	namespace := fs.String("namespace", "", "lab: namespace of the Deployment")
	deployment := fs.String("deployment", "", "lab: the Deployment measured (its first container's CPU and memory change)")
	loadsimURL := fs.String("loadsim-url", "", "lab: the loadsim API ($HCA_LAB_LOADSIM_URL)")
	promURL := fs.String("prometheus-url", "", "lab: Prometheus scraping loadsim ($HCA_LAB_PROMETHEUS_URL)")
	cpu := fs.String("cpu", "300,400,500", "lab: CPU limits in millicores")
	mem := fs.String("memory", "400,500,600", "lab: memory limits in MiB")
	replicas := fs.String("replicas", "1,3,5", "lab: replica counts")
	rps := fs.String("rps", "100,300,500,700,900", "lab: offered request rates")
	settle := fs.Duration("settle", 20*time.Second, "lab: how long each rate runs before it is measured; the measurement then lasts as long again (the queries' window), so it sees the settled load only")
	rollout := fs.Duration("rollout", 2*time.Minute, "lab: how long a configuration may take to roll out")
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if *out == "" {
		return usageError{"moha collect: --out is required"}
	}
	var samples []moha.Sample
	switch *source {
	case "model":
		var err error
		samples, err = moha.Synthesize(moha.DefaultApp, moha.PaperGrid(), *noise, *seed)
		if err != nil {
			return usageError{"moha collect: " + err.Error()}
		}
	case "lab":
		if *namespace == "" || *deployment == "" || *loadsimURL == "" || *promURL == "" {
			return usageError{"moha collect: " + errNoLabFlags.Error()}
		}
		if *settle < 5*time.Second {
			return usageError{fmt.Sprintf("moha collect: --settle %v: at least 5s, so that Prometheus has scraped the new load a few times", *settle)}
		}
		g, err := labGrid(*cpu, *mem, *replicas, *rps)
		if err != nil {
			return err
		}
		cfg, err := restConfig(*kubeconfig)
		if err != nil {
			return usageError{"moha collect: --kubeconfig: " + err.Error()}
		}
		kube, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("moha collect: %w", err)
		}
		prom, err := metrics.NewPrometheus(*promURL, metrics.WithTimeout(10*time.Second))
		if err != nil {
			return usageError{"moha collect: --prometheus-url: " + err.Error()}
		}
		c := &labCollector{kube: kube, prom: prom, httpClient: &http.Client{Timeout: 10 * time.Second}, loadsimURL: *loadsimURL,
			namespace: *namespace, deployment: *deployment, app: moha.DefaultApp, settle: *settle, rollout: *rollout, progress: stderr}
		samples, err = c.collect(context.Background(), g)
		if err != nil {
			return fmt.Errorf("moha collect: after %d samples: %w (nothing written)", len(samples), err)
		}
	default:
		return usageError{fmt.Sprintf("moha collect: --source %q: use model or lab", *source)}
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("moha collect: %w", err)
	}
	if err := moha.WriteDataset(f, samples); err != nil {
		f.Close()
		return fmt.Errorf("moha collect: %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("moha collect: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %d samples to %s\n", len(samples), *out)
	return nil
}

func mohaTrain(args []string, stdout, stderr io.Writer) error {
	fs := mohaFlags("train", "--dataset FILE --out MODEL [--model svr|ols|bayes|mlp] [--compare KIND,...] [--seed N] [--tune]", stderr)
	dataset := fs.String("dataset", "", "dataset CSV; required")
	out := fs.String("out", "", "model file to write (JSON); required")
	kindFlag := fs.String("model", string(moha.KindSVR), "model to write: svr, ols, bayes or mlp")
	compare := fs.String("compare", "ols,bayes,svr,mlp", "models to train and report (the written one is always included)")
	seed := fs.Uint64("seed", 1, "seed of the train/test split, of the SVR grid search's validation split and of the MLP's weights")
	tune := fs.Bool("tune", false, "choose each target's SVR C and gamma by a grid search on the training set")
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if *dataset == "" || *out == "" {
		return usageError{"moha train: --dataset and --out are required"}
	}
	kind, err := moha.ParseKind(*kindFlag)
	if err != nil {
		return usageError{"moha train: --model: " + err.Error()}
	}
	kinds := []moha.Kind{}
	for _, s := range strings.Split(*compare, ",") {
		k, err := moha.ParseKind(strings.TrimSpace(s))
		if err != nil {
			return usageError{"moha train: --compare: " + err.Error()}
		}
		kinds = append(kinds, k)
	}
	if !slices.Contains(kinds, kind) {
		kinds = append(kinds, kind)
	}
	f, err := os.Open(*dataset)
	if err != nil {
		return usageError{fmt.Sprintf("moha train: --dataset: %v", err)}
	}
	samples, err := moha.ReadDataset(f)
	f.Close()
	if err != nil {
		return usageError{fmt.Sprintf("moha train: %s: %v", *dataset, err)}
	}
	train, test := moha.Split(samples, *seed)
	opts := moha.Options{MLP: moha.MLPParams{Seed: *seed}, TuneSVR: *tune, Seed: *seed}
	var chosen *moha.Model
	var results []moha.Result
	for _, k := range kinds {
		m, err := moha.Train(k, train, opts)
		if err != nil {
			return fmt.Errorf("moha train: %w", err)
		}
		name := string(k)
		if k == moha.KindSVR && *tune {
			name += " (tuned)"
		}
		results = append(results, moha.Result{Name: name, Accuracy: moha.Evaluate(m, test)})
		if k == kind {
			chosen = m
		}
	}
	fmt.Fprintf(stdout, "%d samples: trained on %d, held out %d (seed %d)\n\n", len(samples), len(train), len(test), *seed)
	if err := moha.WriteAccuracyTable(stdout, results); err != nil {
		return err
	}
	mf, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("moha train: %w", err)
	}
	if err := chosen.Save(mf); err != nil {
		mf.Close()
		return fmt.Errorf("moha train: %s: %w", *out, err)
	}
	if err := mf.Close(); err != nil {
		return fmt.Errorf("moha train: %w", err)
	}
	fmt.Fprintf(stdout, "\nwrote the %s model to %s\n", kind, *out)
	return nil
}

func mohaDecide(args []string, stdout, stderr io.Writer) error {
	fs := mohaFlags("decide", "--model MODEL --current column=value,... [--desired ...] [--ranges ...] [--weights ...]", stderr)
	modelPath := fs.String("model", "", "model file written by moha train; required")
	current := fs.String("current", "", "current state as column=value pairs, all of "+strings.Join(moha.Columns, ",")+"; required")
	desired := fs.String("desired", "response_time_ms=1000,cpu_usage_percent=80,memory_usage_percent=80", "desired targets (the paper's)")
	ranges := fs.String("ranges", "cpu_limit_millicores=300:500,memory_limit_mib=400:600,replicas=1:10", "parameter ranges, min:max")
	weights := fs.String("weights", "balanced", "TOPSIS weights: balanced, response-time, resources, or name=value pairs of response_time,cpu_usage,memory_usage,cpu_limit,memory_limit,replicas")
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if *modelPath == "" || *current == "" {
		return usageError{"moha decide: --model and --current are required"}
	}
	var cfg moha.Config
	var s moha.State
	var replicas float64
	if err := parsePairs("current", *current, map[string]*float64{
		"cpu_limit_millicores": &s.CPULimitMilli, "memory_limit_mib": &s.MemoryLimitMiB, "replicas": &replicas,
		"requests_per_second": &s.RequestsPerSecond, "response_time_ms": &s.ResponseTimeMs,
		"cpu_usage_percent": &s.CPUUsagePercent, "memory_usage_percent": &s.MemoryUsagePercent,
	}, true); err != nil {
		return err
	}
	if replicas != float64(int(replicas)) {
		return usageError{fmt.Sprintf("moha decide: --current: replicas %v must be a whole number", replicas)}
	}
	s.Replicas = int(replicas)
	if err := parsePairs("desired", *desired, map[string]*float64{
		"response_time_ms": &cfg.Desired.ResponseTimeMs, "cpu_usage_percent": &cfg.Desired.CPUUsagePercent,
		"memory_usage_percent": &cfg.Desired.MemoryUsagePercent,
	}, true); err != nil {
		return err
	}
	r := &cfg.Ranges
	if err := parsePairs("ranges", *ranges, map[string]*float64{
		"cpu_limit_millicores.min": &r.CPULimitMilli.Min, "cpu_limit_millicores.max": &r.CPULimitMilli.Max,
		"memory_limit_mib.min": &r.MemoryLimitMiB.Min, "memory_limit_mib.max": &r.MemoryLimitMiB.Max,
		"replicas.min": &r.Replicas.Min, "replicas.max": &r.Replicas.Max,
	}, true); err != nil {
		return err
	}
	switch *weights {
	case "balanced":
		cfg.Weights = moha.Balanced
	case "response-time":
		cfg.Weights = moha.ResponseTimeFirst
	case "resources":
		cfg.Weights = moha.ResourcesFirst
	default:
		w := &cfg.Weights
		if err := parsePairs("weights", *weights, map[string]*float64{
			"response_time": &w.ResponseTime, "cpu_usage": &w.CPUUsage, "memory_usage": &w.MemoryUsage,
			"cpu_limit": &w.CPULimit, "memory_limit": &w.MemoryLimit, "replicas": &w.Replicas,
		}, false); err != nil {
			return err
		}
	}
	f, err := os.Open(*modelPath)
	if err != nil {
		return usageError{fmt.Sprintf("moha decide: --model: %v", err)}
	}
	m, err := moha.Load(f)
	f.Close()
	if err != nil {
		return usageError{fmt.Sprintf("moha decide: %s: %v", *modelPath, err)}
	}
	d, err := moha.Decide(m, s, cfg)
	if err != nil {
		return usageError{err.Error()}
	}
	return moha.WriteDecisionTable(stdout, d)
}

// parsePairs reads "key=value,..." into the named floats; a range value
// "min:max" fills key.min and key.max. With all, every key must be given.
func parsePairs(flagName, s string, into map[string]*float64, all bool) error {
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return usageError{fmt.Sprintf("moha decide: --%s: %q is not name=value", flagName, kv)}
		}
		vals := map[string]string{k: v}
		if lo, hi, isRange := strings.Cut(v, ":"); isRange {
			vals = map[string]string{k + ".min": lo, k + ".max": hi}
		}
		for name, raw := range vals {
			p, known := into[name]
			if !known {
				return usageError{fmt.Sprintf("moha decide: --%s: unknown name %q", flagName, k)}
			}
			f, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				return usageError{fmt.Sprintf("moha decide: --%s: %s: %q is not a number", flagName, k, raw)}
			}
			*p, seen[name] = f, true
		}
	}
	if all {
		for name := range into {
			if !seen[name] {
				return usageError{fmt.Sprintf("moha decide: --%s: %s is missing", flagName, strings.TrimSuffix(strings.TrimSuffix(name, ".min"), ".max"))}
			}
		}
	}
	return nil
}
