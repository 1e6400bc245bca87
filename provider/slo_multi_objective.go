package provider

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	kresource "k8s.io/apimachinery/pkg/api/resource"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// configMapKeyRE is the API's pattern of a ConfigMap key.
var configMapKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// sloMultiObjectiveAttr is elasticity_strategy.multi_objective of hca_slo.
// Unset optional arguments take the API's defaults and stay unset in the
// state, as everywhere in hca_slo.
func sloMultiObjectiveAttr(subdomain []validator.String) schema.SingleNestedAttribute {
	pct := func(desc string, def int) schema.Int64Attribute {
		return schema.Int64Attribute{CustomType: intType{}, Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100)},
			Description: fmt.Sprintf("%s, 1 to 100. The API's default is %d.", desc, def)}
	}
	weight := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Required: true, Description: "Weight of " + desc + ", >= 0.", Validators: []validator.Float64{float64validator.AtLeast(0)}}
	}
	query := func(what string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: "PromQL giving " + what + " as one sample; `$namespace` and `$name` stand for the target's (checked at plan time with Prometheus' parser, with them replaced). Unset: the lab's metric names (see the concepts guide).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1), promQLQuery{placeholders: true}}}
	}
	quantity := func(desc, example string) schema.StringAttribute {
		return schema.StringAttribute{Required: true, Validators: []validator.String{positiveQuantity{example: example}}, Description: desc}
	}
	return schema.SingleNestedAttribute{Optional: true,
		Description: "Static configuration of the MultiObjective strategy (MOHA). The runtime writes a MultiObjectiveElasticityStrategy named after the SLO " +
			"with it, the SLO's target and the latency threshold (`slo.latency.threshold`, in milliseconds, rounded up) as the desired average " +
			"response time; every `interval` that strategy measures the target's request rate, response time and CPU and memory usage, predicts the " +
			"12 variations of the MOHA paper with the model and applies the TOPSIS winner (replicas and the container's CPU and memory limits together). " +
			"The SLO's `tolerance` and `stabilization` do not apply to it (it has `tolerance_percent` and `cooldown`). Only with `slo.type` `latency`.",
		Attributes: map[string]schema.Attribute{
			"model": schema.SingleNestedAttribute{Required: true,
				Description: "The ConfigMap, in `namespace`, holding the model file of `hca-runtime moha train` (for example a `kubernetes_config_map` with `data = { \"model.json\" = file(\"model.json\") }`). " +
					"The runtime does not write the strategy while it or its key is missing: the SLO's Ready condition is False with reason `StrategyInvalid` naming it.",
				Attributes: map[string]schema.Attribute{
					"config_map_name": schema.StringAttribute{Required: true, Validators: subdomain, Description: "Name of the ConfigMap, a DNS subdomain."},
					"key": schema.StringAttribute{Optional: true, Description: "Key of the model in the ConfigMap's data, 1 to 253 characters of letters, digits, `-`, `_` and `.`. The API's default is `model.json`.",
						Validators: []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.RegexMatches(configMapKeyRE, "must be a ConfigMap key: letters, digits, '-', '_' and '.'")}},
				}},
			"desired": schema.SingleNestedAttribute{Optional: true,
				Description: "Desired usages of the paper's eq. 1 (the desired response time is the SLO's threshold).",
				Attributes: map[string]schema.Attribute{
					"cpu_usage_percent":    pct("Desired CPU usage of a pod in % of its CPU limit", 85),
					"memory_usage_percent": pct("Desired memory usage of a pod in % of its memory limit", 80),
				}},
			"ranges": schema.SingleNestedAttribute{Required: true, Description: "Bounds of the three parameters; each minimum at most its maximum.",
				Attributes: map[string]schema.Attribute{
					"min_cpu":    quantity("Smallest CPU limit, a quantity > 0 such as `300m`; at most `max_cpu`.", "300m"),
					"max_cpu":    quantity("Largest CPU limit, a quantity such as `2`.", "2"),
					"min_memory": quantity("Smallest memory limit, a quantity > 0 such as `400Mi`; at most `max_memory`.", "400Mi"),
					"max_memory": quantity("Largest memory limit, a quantity such as `2Gi`.", "2Gi"),
					"min_replicas": schema.Int64Attribute{CustomType: intType{}, Optional: true, Validators: []validator.Int64{int64validator.Between(1, 1_000_000)},
						Description: "Fewest replicas, 1 or more and at most `max_replicas`. The API's default is 1."},
					"max_replicas": schema.Int64Attribute{CustomType: intType{}, Required: true, Validators: []validator.Int64{int64validator.Between(1, 1_000_000)},
						Description: "Most replicas, 1 to 1,000,000."},
				}},
			"weight_preset": schema.StringAttribute{Optional: true,
				Description: "One of the paper's TOPSIS weight sets: `Balanced` (response time 0.5, the five resource criteria 0.1 each), `ResponseTimeFirst` (0.9/0.02) or `ResourcesFirst` (0.1/0.18). Conflicts with `weights`; neither set: `Balanced`.",
				Validators:  []validator.String{stringvalidator.OneOf(string(hcav1.WeightsBalanced), string(hcav1.WeightsResponseTimeFirst), string(hcav1.WeightsResourcesFirst))}},
			"weights": schema.SingleNestedAttribute{Optional: true,
				Description: "Explicit TOPSIS weights, each >= 0, summing to exactly 1 as decimals (0.5 + 5 × 0.1). Conflicts with `weight_preset`.",
				Attributes: map[string]schema.Attribute{
					"response_time": weight("minimising the response time"),
					"cpu_usage":     weight("maximising the pods' CPU usage"),
					"memory_usage":  weight("maximising the pods' memory usage"),
					"cpu_limit":     weight("minimising the CPU limit"),
					"memory_limit":  weight("minimising the memory limit"),
					"replicas":      weight("minimising the replicas"),
				}},
			"tolerance_percent": schema.Int64Attribute{CustomType: intType{}, Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100)},
				Description: "Band in percentage points around the desired usages within which, with the response time at most the desired one, nothing changes; 1 to 100 (the API stores 0 as unset, which is 10). The API's default is 10 (the paper's 70-90 %)."},
			"interval": durationAttr("Time between decisions, a Go duration such as `30s`. The API's default is `30s`."),
			"cooldown": durationAttr("Scale-down stabilisation: how long after a change no change lowers the capacity (the pods roll and the metrics settle); increases are made at once. A Go duration such as `2m`. The API's default is `2m`."),
			"container": schema.StringAttribute{Optional: true,
				Description: "Container whose CPU and memory limits (and requests, set equal) change, a DNS label. Unset: the first container.",
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit")}},
			"resize_policy": schema.StringAttribute{Optional: true,
				Validators:  []validator.String{stringvalidator.OneOf(string(scaling.ResizeRecreate), string(scaling.ResizeInPlaceOrRecreate))},
				Description: "How a new pod size reaches the pods: `Recreate` (the API's default) patches the pod template, which rolls the pods; `InPlaceOrRecreate` resizes the running pods in place (the `pods/resize` subresource, Kubernetes 1.33 or later) and falls back to the rolling update where the cluster has no `pods/resize`, a BurstPolicy distributes the Deployment, or a pod's resize is refused, Infeasible, Deferred for more than 5 minutes or in progress for more than an hour."},
			"metrics": schema.SingleNestedAttribute{Optional: true, Description: "PromQL queries of the four measured inputs; each unset one uses the default.",
				Attributes: map[string]schema.Attribute{
					"requests_per_second":  query("the request rate"),
					"response_time_ms":     query("the average response time in milliseconds"),
					"cpu_usage_percent":    query("the pods' CPU usage in % of their CPU limit"),
					"memory_usage_percent": query("the pods' memory usage in % of their memory limit"),
				}},
		},
	}
}

// toAPI converts elasticity_strategy.multi_objective; unset optional
// arguments stay unset for the API server's defaults.
func (mo *sloMultiObjective) toAPI() (*hcav1.MultiObjectiveSLOConfig, error) {
	const at = "elasticity_strategy.multi_objective."
	out := &hcav1.MultiObjectiveSLOConfig{}
	sc := &out.MultiObjectiveStaticConfig
	if md := mo.Model; md != nil {
		sc.Model = hcav1.MultiObjectiveModelRef{ConfigMapName: hcav1.ObjectName(md.ConfigMapName.ValueString()), Key: md.Key.ValueString()}
	}
	if d := mo.Desired; d != nil {
		out.Desired = &hcav1.MultiObjectiveDesiredUsage{CPUUsagePercent: int32(d.CPUUsagePercent.ValueInt64()), MemoryUsagePercent: int32(d.MemoryUsagePercent.ValueInt64())}
	}
	var err error
	if rg := mo.Ranges; rg != nil {
		for _, q := range []struct {
			dst  *kresource.Quantity
			v    types.String
			name string
		}{{&sc.Ranges.MinCPU, rg.MinCPU, "min_cpu"}, {&sc.Ranges.MaxCPU, rg.MaxCPU, "max_cpu"}, {&sc.Ranges.MinMemory, rg.MinMemory, "min_memory"}, {&sc.Ranges.MaxMemory, rg.MaxMemory, "max_memory"}} {
			if *q.dst, err = quantityValue(q.v, at+"ranges."+q.name); err != nil {
				return nil, err
			}
		}
		sc.Ranges.MinReplicas, sc.Ranges.MaxReplicas = int32(rg.MinReplicas.ValueInt64()), int32(rg.MaxReplicas.ValueInt64())
	}
	sc.WeightPreset = hcav1.WeightPreset(mo.WeightPreset.ValueString())
	if w := mo.Weights; w != nil {
		var ws [6]kresource.Quantity
		for i, v := range []types.Float64{w.ResponseTime, w.CPUUsage, w.MemoryUsage, w.CPULimit, w.MemoryLimit, w.Replicas} {
			if ws[i], err = kresource.ParseQuantity(strconv.FormatFloat(v.ValueFloat64(), 'f', -1, 64)); err != nil {
				return nil, fmt.Errorf("%sweights: %v is not a decimal: %w", at, v.ValueFloat64(), err)
			}
		}
		sc.Weights = &hcav1.MultiObjectiveWeights{ResponseTime: ws[0], CPUUsage: ws[1], MemoryUsage: ws[2], CPULimit: ws[3], MemoryLimit: ws[4], Replicas: ws[5]}
	}
	sc.TolerancePercent = int32(mo.TolerancePercent.ValueInt64())
	if sc.Interval, err = durationPtr(mo.Interval, at+"interval"); err != nil {
		return nil, err
	}
	if sc.Cooldown, err = durationPtr(mo.Cooldown, at+"cooldown"); err != nil {
		return nil, err
	}
	sc.Container, sc.ResizePolicy = mo.Container.ValueString(), mo.ResizePolicy.ValueString()
	if mt := mo.Metrics; mt != nil {
		sc.Metrics = &hcav1.MultiObjectiveMetrics{RequestsPerSecond: mt.RequestsPerSecond.ValueString(), ResponseTimeMillis: mt.ResponseTimeMs.ValueString(),
			CPUUsagePercent: mt.CPUUsagePercent.ValueString(), MemoryUsagePercent: mt.MemoryUsagePercent.ValueString()}
	}
	return out, nil
}

// sloMultiObjectiveFromAPI converts the API's configuration; prior is the
// state's (nil: none): an argument unset there stays unset when the API holds
// its default, and quantities and durations keep prior's spelling.
func sloMultiObjectiveFromAPI(mo *hcav1.MultiObjectiveSLOConfig, prior *sloMultiObjective) *sloMultiObjective {
	if prior == nil {
		prior = &sloMultiObjective{}
	}
	sc := mo.MultiObjectiveStaticConfig
	pm := prior.Model
	if pm == nil {
		pm = &sloMOModel{}
	}
	tol := sc.TolerancePercent
	m := &sloMultiObjective{
		Model:            &sloMOModel{ConfigMapName: types.StringValue(string(sc.Model.ConfigMapName)), Key: optString(pm.Key, sc.Model.Key, sloDefaultModelKey)},
		WeightPreset:     optString(prior.WeightPreset, string(sc.WeightPreset), ""),
		TolerancePercent: optInt(prior.TolerancePercent, &tol, sloDefaultMOTolerance),
		Interval:         keepDuration(prior.Interval, sc.Interval, sloDefaultMOInterval),
		Cooldown:         keepDuration(prior.Cooldown, sc.Cooldown, sloDefaultMOCooldown),
		Container:        optString(prior.Container, sc.Container, ""),
		ResizePolicy:     optString(prior.ResizePolicy, sc.ResizePolicy, string(scaling.ResizeRecreate)),
	}
	if d := mo.Desired; d != nil {
		pd := prior.Desired
		if pd == nil {
			pd = &sloMODesired{}
		}
		cpu, mem := d.CPUUsagePercent, d.MemoryUsagePercent
		m.Desired = &sloMODesired{CPUUsagePercent: optInt(pd.CPUUsagePercent, &cpu, 85), MemoryUsagePercent: optInt(pd.MemoryUsagePercent, &mem, 80)}
	}
	var pr moRanges
	if prior.Ranges != nil {
		pr = *prior.Ranges
	}
	rg := sc.Ranges
	lo := rg.MinReplicas
	m.Ranges = &moRanges{MinCPU: keepQuantity(pr.MinCPU, &rg.MinCPU), MaxCPU: keepQuantity(pr.MaxCPU, &rg.MaxCPU),
		MinMemory: keepQuantity(pr.MinMemory, &rg.MinMemory), MaxMemory: keepQuantity(pr.MaxMemory, &rg.MaxMemory),
		MinReplicas: optInt(pr.MinReplicas, &lo, 1), MaxReplicas: types.Int64Value(int64(rg.MaxReplicas))}
	if w := sc.Weights; w != nil {
		m.Weights = moWeightsFrom(w)
	}
	if mt := sc.Metrics; mt != nil {
		m.Metrics = moMetricsFrom(mt)
	}
	return m
}
