package simulate

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/chart"
	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/policy"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// KindMultiObjective is the kind of a MultiObjectiveElasticityStrategy
// manifest.
const KindMultiObjective = "MultiObjectiveElasticityStrategy"

// MultiObjective is a MultiObjectiveElasticityStrategy manifest with the
// CRD's defaults applied, in the terms the simulator needs.
type MultiObjective struct {
	// Name is metadata.name.
	Name string
	// Spec is the strategy's spec with the CRD's defaults applied.
	Spec hcav1.MultiObjectiveElasticityStrategySpec
	// Loop and Interval are what the controller runs
	// (policy.MultiObjectiveLoop, policy.MultiObjectiveInterval).
	Loop     moha.Loop
	Interval time.Duration
	// Model is the model of the ConfigMap spec.model names when the
	// manifest holds that ConfigMap (nil: none; the caller gives one).
	Model *moha.Model
}

// IsMultiObjective reports whether data holds a document of kind
// MultiObjectiveElasticityStrategy (the file is then a MultiObjective
// manifest for [ParseMultiObjective], not a policy for [ParseInput]).
func IsMultiObjective(data []byte) bool {
	for _, d := range docSeparator.Split(string(data), -1) {
		var tm struct {
			Kind string `json:"kind"`
		}
		if yaml.Unmarshal([]byte(d), &tm) == nil && tm.Kind == KindMultiObjective {
			return true
		}
	}
	return false
}

// ParseMultiObjective decodes a manifest as kubectl apply takes it: one
// MultiObjectiveElasticityStrategy and any ConfigMaps, separated by ---
// lines. Each document is decoded strictly (unknown or duplicate fields are
// errors); the strategy gets the CRD's defaults and the checks of its
// validation rules, its weights moha.Config.Validate's. When a ConfigMap of
// the file is the one spec.model names, its key (spec.model.key) must hold a
// model ([ParseModel]). Errors name the field and wrap [ErrInput].
func ParseMultiObjective(data []byte) (MultiObjective, error) {
	var strategyDoc []byte
	configMaps := map[string]corev1.ConfigMap{}
	n := 0
	for _, d := range docSeparator.Split(string(data), -1) {
		if len(bytes.TrimSpace(stripComments([]byte(d)))) == 0 {
			continue
		}
		n++
		var tm struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(d), &tm); err != nil {
			return MultiObjective{}, inputErr("strategy: document %d: %v", n, cleanYAMLError(err))
		}
		switch tm.Kind {
		case KindMultiObjective:
			if strategyDoc != nil {
				return MultiObjective{}, inputErr("strategy: document %d is a second %s: simulate one strategy per file", n, KindMultiObjective)
			}
			strategyDoc = []byte(d)
		case "ConfigMap":
			var cm corev1.ConfigMap
			if err := yaml.UnmarshalStrict([]byte(d), &cm); err != nil {
				return MultiObjective{}, inputErr("strategy: document %d (ConfigMap): %v", n, cleanYAMLError(err))
			}
			configMaps[cm.Name] = cm
		default:
			return MultiObjective{}, inputErr("strategy: document %d has kind %q: want %s and the ConfigMap of its model", n, tm.Kind, KindMultiObjective)
		}
	}
	if strategyDoc == nil {
		return MultiObjective{}, inputErr("strategy: the file has no %s (apiVersion %s)", KindMultiObjective, hcav1.GroupVersion)
	}
	var s hcav1.MultiObjectiveElasticityStrategy
	if err := yaml.UnmarshalStrict(strategyDoc, &s); err != nil {
		return MultiObjective{}, inputErr("strategy: %v", cleanYAMLError(err))
	}
	if s.APIVersion != hcav1.GroupVersion.String() {
		return MultiObjective{}, inputErr("strategy: apiVersion %q: want %s", s.APIVersion, hcav1.GroupVersion)
	}
	// tolerancePercent's default (10) applies only when it is absent: 0 is
	// a valid value.
	var raw struct {
		Spec map[string]any `json:"spec"`
	}
	if err := yaml.Unmarshal(strategyDoc, &raw); err != nil {
		return MultiObjective{}, inputErr("strategy: %v", cleanYAMLError(err))
	}
	sp := &s.Spec
	if _, ok := raw.Spec["tolerancePercent"]; !ok {
		sp.TolerancePercent = 10
	}
	if err := checkMultiObjective(sp); err != nil {
		return MultiObjective{}, err
	}
	mo := MultiObjective{Name: s.Name, Spec: *sp, Loop: policy.MultiObjectiveLoop(sp), Interval: policy.MultiObjectiveInterval(sp)}
	if err := mo.Loop.Config.Validate(); err != nil {
		return MultiObjective{}, inputErr("strategy: spec: %v", err)
	}
	if cm, ok := configMaps[string(sp.Model.ConfigMapName)]; ok {
		data, ok := cm.Data[sp.Model.Key]
		if !ok {
			return MultiObjective{}, inputErr("strategy: ConfigMap %q has no key %q (spec.model.key): put the file of hca-runtime moha train there", cm.Name, sp.Model.Key)
		}
		m, err := ParseModel([]byte(data))
		if err != nil {
			return MultiObjective{}, inputErr("strategy: ConfigMap %q key %q (spec.model): %v", cm.Name, sp.Model.Key, err)
		}
		mo.Model = m
	}
	return mo, nil
}

// checkMultiObjective applies the CRD's defaults to sp and checks what its
// OpenAPI and CEL rules check (the weights' sum is moha.Config.Validate's).
func checkMultiObjective(sp *hcav1.MultiObjectiveElasticityStrategySpec) error {
	if sp.Model.ConfigMapName == "" {
		return inputErr("strategy: spec.model.configMapName is missing: name the ConfigMap holding the model of hca-runtime moha train (and add it to the file, or give --model)")
	}
	if sp.Model.Key == "" {
		sp.Model.Key = "model.json"
	}
	d := &sp.Desired
	if d.ResponseTimeMillis < 1 {
		return inputErr("strategy: spec.desired.responseTimeMillis is missing or below 1: set the desired average response time in milliseconds")
	}
	for _, f := range []struct {
		v     *int32
		def   int32
		field string
	}{{&d.CPUUsagePercent, 85, "cpuUsagePercent"}, {&d.MemoryUsagePercent, 80, "memoryUsagePercent"}} {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < 1 || *f.v > 100 {
			return inputErr("strategy: spec.desired.%s is %d: use 1 to 100 (percent of the limit)", f.field, *f.v)
		}
	}
	r := &sp.Ranges
	if r.MinReplicas == 0 {
		r.MinReplicas = 1
	}
	switch {
	case !(r.MinCPU.Sign() > 0):
		return inputErr("strategy: spec.ranges.minCPU is missing or not above 0: set the smallest CPU limit, e.g. \"300m\"")
	case !(r.MinMemory.Sign() > 0):
		return inputErr("strategy: spec.ranges.minMemory is missing or not above 0: set the smallest memory limit, e.g. \"400Mi\"")
	case r.MinCPU.Cmp(r.MaxCPU) > 0:
		return inputErr("strategy: spec.ranges.minCPU (%s) must be <= ranges.maxCPU (%s)", r.MinCPU.String(), r.MaxCPU.String())
	case r.MinMemory.Cmp(r.MaxMemory) > 0:
		return inputErr("strategy: spec.ranges.minMemory (%s) must be <= ranges.maxMemory (%s)", r.MinMemory.String(), r.MaxMemory.String())
	case r.MaxReplicas < 1 || r.MaxReplicas > moha.MaxReplicas:
		return inputErr("strategy: spec.ranges.maxReplicas is %d: set the most replicas, 1 to %d", r.MaxReplicas, moha.MaxReplicas)
	case r.MinReplicas < 1 || r.MinReplicas > r.MaxReplicas:
		return inputErr("strategy: spec.ranges.minReplicas (%d) must be 1 to ranges.maxReplicas (%d)", r.MinReplicas, r.MaxReplicas)
	}
	if sp.Weights != nil && sp.WeightPreset != "" {
		return inputErr("strategy: set spec.weights or spec.weightPreset, not both")
	}
	switch sp.WeightPreset {
	case "":
		if sp.Weights == nil {
			sp.WeightPreset = hcav1.WeightsBalanced
		}
	case hcav1.WeightsBalanced, hcav1.WeightsResponseTimeFirst, hcav1.WeightsResourcesFirst:
	default:
		return inputErr("strategy: spec.weightPreset %q is unknown: use %s, %s or %s", sp.WeightPreset, hcav1.WeightsBalanced, hcav1.WeightsResponseTimeFirst, hcav1.WeightsResourcesFirst)
	}
	if sp.TolerancePercent < 0 || sp.TolerancePercent > 100 {
		return inputErr("strategy: spec.tolerancePercent is %d: use 0 to 100", sp.TolerancePercent)
	}
	if sp.Interval == nil {
		sp.Interval = &metav1.Duration{Duration: policy.DefaultMultiObjectiveInterval}
	}
	if iv := sp.Interval.Duration; iv < time.Second || iv%time.Second != 0 {
		return inputErr("strategy: spec.interval is %v: use whole seconds, at least 1s (the simulation steps by 1s)", iv)
	}
	if sp.Cooldown == nil {
		sp.Cooldown = &metav1.Duration{Duration: policy.DefaultMultiObjectiveCooldown}
	}
	if sp.Cooldown.Duration < 0 {
		return inputErr("strategy: spec.cooldown is %v: use 0s or more", sp.Cooldown.Duration)
	}
	return nil
}

// ParseModel reads a model file of hca-runtime moha train (moha.Load, which
// validates it).
func ParseModel(data []byte) (*moha.Model, error) {
	m, err := moha.Load(bytes.NewReader(data))
	if err != nil {
		return nil, inputErr("%v", err)
	}
	return m, nil
}

// MultiObjectiveResult is one replay of a MultiObjective strategy.
type MultiObjectiveResult struct {
	// Name labels the run; set by the caller.
	Name     string
	Strategy MultiObjective
	// ModelKind is the model's regressor (svr, ols, ...).
	ModelKind    moha.Kind
	StartupDelay time.Duration
	Replay       *moha.ReplayResult
	Summary      moha.ReplaySummary
	// Rounds counts the controller's rounds by reason.
	Rounds map[moha.StepReason]int
}

// RunMultiObjective replays tr against the strategy with model, as the
// runtime runs it: every spec.interval moha.Round (the controller's round:
// remembered measurements, moha.Step with its thresholds, cooldown and
// hysteresis, the ranges) with the model's per-pod predictions
// (moha.NewPerPod), decided from the past interval's mean measurements of the
// workload model (moha.DefaultApp, the service moha collect --source model
// measures: workload.ComputeMemory for the pods' CPU and memory limits and
// replicas); a change serves startupDelay later (new pods, or the rolled pods
// of a new size), paid for from the decision on at moha.PaperPrices. The
// replay starts at the ranges' minimums.
func RunMultiObjective(mo MultiObjective, model *moha.Model, tr workload.Trace, startupDelay time.Duration) (*MultiObjectiveResult, error) {
	if model == nil {
		return nil, inputErr("strategy %q: no model: add the ConfigMap %q of spec.model to the file or give --model", mo.Name, mo.Spec.Model.ConfigMapName)
	}
	r := mo.Loop.Ranges
	rep := moha.Replay{
		App: moha.DefaultApp, Trace: tr, StartupDelay: startupDelay, Prices: moha.PaperPrices,
		Start:                moha.Configuration{CPULimitMilli: r.CPULimitMilli.Min, MemoryLimitMiB: r.MemoryLimitMiB.Min, Replicas: int(r.Replicas.Min)},
		TargetResponseTimeMs: mo.Loop.Desired.ResponseTimeMs,
	}
	st := &moha.Strategy{P: moha.NewPerPod(model), Loop: mo.Loop, Every: mo.Interval, Epoch: Epoch,
		History: moha.History{Memory: moha.Memory{Capacity: moha.DefaultMemoryCapacity}}}
	res, err := rep.Run(st)
	if err != nil {
		return nil, fmt.Errorf("strategy %q: %w", mo.Name, err)
	}
	return &MultiObjectiveResult{Strategy: mo, ModelKind: model.Kind, StartupDelay: startupDelay, Replay: res, Summary: res.Summary(), Rounds: st.Rounds}, nil
}

// Label names the run: Name if set, else the strategy's name.
func (r *MultiObjectiveResult) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Strategy.Name
}

func (r *MultiObjectiveResult) weights() string {
	if p := r.Strategy.Spec.WeightPreset; p != "" {
		return string(p)
	}
	w := r.Strategy.Loop.Weights
	return fmt.Sprintf("response time %g, CPU usage %g, memory usage %g, CPU limit %g, memory limit %g, replicas %g",
		w.ResponseTime, w.CPUUsage, w.MemoryUsage, w.CPULimit, w.MemoryLimit, w.Replicas)
}

var multiObjectiveRows = []struct {
	name string
	val  func(*MultiObjectiveResult) string
}{
	{"decided by", func(r *MultiObjectiveResult) string {
		return fmt.Sprintf("MultiObjective strategy %s, weights %s", r.Strategy.Name, r.weights())
	}},
	{"model", func(r *MultiObjectiveResult) string { return string(r.ModelKind) }},
	{"control interval", func(r *MultiObjectiveResult) string { return r.Strategy.Interval.String() }},
	{"scale-down cooldown", func(r *MultiObjectiveResult) string { return r.Strategy.Loop.Cooldown.String() }},
	{"pod start-up delay", func(r *MultiObjectiveResult) string { return r.StartupDelay.String() }},
	{"ranges", func(r *MultiObjectiveResult) string {
		g := r.Strategy.Loop.Ranges
		return fmt.Sprintf("%gm-%gm, %gMi-%gMi, %g-%g pods", g.CPULimitMilli.Min, g.CPULimitMilli.Max, g.MemoryLimitMiB.Min, g.MemoryLimitMiB.Max, g.Replicas.Min, g.Replicas.Max)
	}},
	{"target response time", func(r *MultiObjectiveResult) string {
		return fmt.Sprintf("%g ms (kept under %g ms)", r.Strategy.Loop.Desired.ResponseTimeMs, r.Strategy.Loop.ResponseTimeLimitMs())
	}},
	{"mean response time (load-weighted)", func(r *MultiObjectiveResult) string { return fmt.Sprintf("%.1f ms", r.Summary.ResponseTimeMs) }},
	{"p95 response time (per second, load-weighted)", func(r *MultiObjectiveResult) string {
		return fmt.Sprintf("%.1f ms", r.Summary.P95ResponseTimeMs)
	}},
	{"seconds over the target", func(r *MultiObjectiveResult) string {
		return fmt.Sprintf("%d s (%.1f %%)", r.Summary.Over, 100*float64(r.Summary.Over)/float64(max(r.Summary.Seconds, 1)))
	}},
	{"mean replicas", func(r *MultiObjectiveResult) string { return fmt.Sprintf("%.2f", r.Summary.Replicas) }},
	{"max replicas decided", func(r *MultiObjectiveResult) string { return fmt.Sprint(r.Summary.MaxReplicas) }},
	{"mean CPU limit", func(r *MultiObjectiveResult) string { return fmt.Sprintf("%.0fm", r.Summary.CPULimitMilli) }},
	{"mean memory limit", func(r *MultiObjectiveResult) string { return fmt.Sprintf("%.0fMi", r.Summary.MemoryLimitMiB) }},
	{"mean CPU / memory usage", func(r *MultiObjectiveResult) string {
		return fmt.Sprintf("%.1f %% / %.1f %%", r.Summary.CPUUsagePercent, r.Summary.MemoryUsagePercent)
	}},
	{"replica changes", func(r *MultiObjectiveResult) string { return fmt.Sprint(r.Summary.ReplicaChanges) }},
	{"pod-size changes", func(r *MultiObjectiveResult) string { return fmt.Sprint(r.Summary.SizeChanges) }},
	{"rounds by reason", func(r *MultiObjectiveResult) string {
		var parts []string
		for _, reason := range slices.Sorted(maps.Keys(r.Rounds)) {
			parts = append(parts, fmt.Sprintf("%s %d", reason, r.Rounds[reason]))
		}
		return strings.Join(parts, ", ")
	}},
	{"cost ($/day)", func(r *MultiObjectiveResult) string { return fmt.Sprintf("%.2f", r.Summary.CostPerDay) }},
}

// WriteMultiObjectiveTable writes a Markdown table, one column per run.
func WriteMultiObjectiveTable(w io.Writer, results []*MultiObjectiveResult) error {
	var b strings.Builder
	b.WriteString("| metric |")
	for _, r := range results {
		b.WriteString(" " + r.Label() + " |")
	}
	b.WriteString("\n|---|")
	for range results {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range multiObjectiveRows {
		b.WriteString("| " + row.name + " |")
		for _, r := range results {
			b.WriteString(" " + row.val(r) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMultiObjectiveSVG writes a chart of r: the offered load, the
// replicas, the pods' CPU and memory limits (serving), the response time
// against the target and the cost per hour, per second (the highest of each
// of at most maxPoints buckets on long traces).
func WriteMultiObjectiveSVG(w io.Writer, r *MultiObjectiveResult, title string) error {
	rep := r.Replay
	T := len(rep.Load)
	bucket := max(1, (T+maxPoints-1)/maxPoints)
	series := func(name string, v func(t int) float64) chart.Series {
		s := chart.Series{Name: name}
		for lo := 0; lo < T; lo += bucket {
			y := math.Inf(-1)
			for t := lo; t < min(lo+bucket, T); t++ {
				y = math.Max(y, v(t))
			}
			if n := len(s.Y); n > 0 && s.Y[n-1] != y {
				// A step: the old value up to this second.
				s.X, s.Y = append(s.X, float64(lo)), append(s.Y, s.Y[n-1])
			}
			s.X, s.Y = append(s.X, float64(lo)), append(s.Y, y)
		}
		if T > 0 {
			s.X, s.Y = append(s.X, float64(T-1)), append(s.Y, s.Y[len(s.Y)-1])
		}
		return s
	}
	target := rep.TargetResponseTimeMs
	panels := []chart.LinePanel{
		{Title: "offered load", Unit: "req/s", Series: []chart.Series{series("load", func(t int) float64 { return rep.Load[t] })}},
		{Title: "replicas", Unit: "pods", Series: []chart.Series{
			series("serving", func(t int) float64 { return float64(rep.Serving[t].Replicas) }),
			series("decided", func(t int) float64 { return float64(rep.Pending[t].Replicas) }),
		}},
		{Title: "CPU limit per pod", Unit: "millicores", Series: []chart.Series{
			series("serving", func(t int) float64 { return rep.Serving[t].CPULimitMilli }),
			series("decided", func(t int) float64 { return rep.Pending[t].CPULimitMilli }),
		}},
		{Title: "memory limit per pod", Unit: "MiB", Series: []chart.Series{
			series("serving", func(t int) float64 { return rep.Serving[t].MemoryLimitMiB }),
			series("decided", func(t int) float64 { return rep.Pending[t].MemoryLimitMiB }),
		}},
		{Title: fmt.Sprintf("mean response time, capped at %g", 4*target), Unit: "ms", Series: []chart.Series{
			series("response time", func(t int) float64 { return math.Min(rep.Measured[t].ResponseTimeMs, 4*target) }),
			series(fmt.Sprintf("target %g ms", target), func(int) float64 { return target }),
		}},
		{Title: "cost", Unit: "$/hour", Series: []chart.Series{series("paid", func(t int) float64 { return rep.CostPerHour[t] })}},
	}
	sub := fmt.Sprintf("MultiObjective %s, %s weights, %s model; mean %.1f ms, %d s over %g ms, $%.2f/day", r.Strategy.Name, r.weights(), r.ModelKind,
		r.Summary.ResponseTimeMs, r.Summary.Over, target, r.Summary.CostPerDay)
	return chart.WriteLines(w, title, sub, panels, float64(max(T-1, 1)))
}
