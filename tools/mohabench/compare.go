package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/moha"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// The comparison's settings: what the runtime does by default.
const (
	// mohaInterval and mohaCooldown are the CRD's defaults.
	mohaInterval = 30 * time.Second
	mohaCooldown = 2 * time.Minute
	// hpaInterval is the HPA's sync period; hpaWindow its downscale
	// stabilisation window.
	hpaInterval = 15 * time.Second
	hpaWindow   = 5 * time.Minute
	// startupDelay is how long a change takes to serve: new pods (or, for a
	// resize, the rolled pods) start after it; the lab's realistic pod
	// start-up delay.
	startupDelay = 10 * time.Second
	// cmpMaxReplicas bounds both autoscalers.
	cmpMaxReplicas = 20
)

// chartTrace is the trace whose runs the comparison draws: the load step
// beyond the private cluster, where the loop's timing matters most.
const chartTrace = "private-overflow.csv"

// writeChart writes runs' chart to path.
func writeChart(path, title string, runs []loopResult) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeSVG(f, title, runs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mohaDesired is what the MOHA runs aim at with the CRD's defaults: 100 ms
// (the bench's target), 85 % CPU and 80 % memory.
var mohaDesired = moha.Desired{ResponseTimeMs: desired.ResponseTimeMs, CPUUsagePercent: 85, MemoryUsagePercent: 80}

// referenceTraces are the repository's load traces the comparison runs on.
var referenceTraces = []string{"flash-crowd.csv", "double-flash-crowd.csv", "secondary-peak.csv", "private-overflow.csv", "diurnal.csv", "week.csv", "moha-ramp.csv"}

// mohaStrategy is the runtime's loop: moha.Round (what the MultiObjective
// controller runs every interval) with the CRD's defaults; remember: the
// loop keeps the measured response time of each configuration that served a
// settle time (moha.Memory, moha.Loop.SettleTime) and predicts with it (moha.Remembered), as the
// runtime does; without it, the loop before issue 12's low-load change.
func mohaStrategy(p moha.Predictor, loop moha.Loop, remember bool) *moha.Strategy {
	s := &moha.Strategy{P: p, Loop: loop, Every: mohaInterval, Epoch: time.Unix(0, 0)}
	if remember {
		s.History.Memory.Capacity = moha.DefaultMemoryCapacity
	}
	return s
}

// hpaController is the Kubernetes HPA's defaults on CPU at 80 % of the
// request (= limit): 10 % tolerance, 15 s sync, the highest recommendation of
// the last 5 minutes when scaling down.
type hpaController struct {
	recs []hpaRec
}

type hpaRec struct {
	at       time.Duration
	replicas int
}

func (c *hpaController) Interval() time.Duration { return hpaInterval }

func (c *hpaController) Decide(t time.Duration, cur moha.Configuration, m moha.Sample) (moha.Configuration, error) {
	want := cur.Replicas
	if r := m.CPUUsagePercent / 80; math.Abs(r-1) > 0.1 {
		want = int(moha.Optimum(float64(cur.Replicas), m.CPUUsagePercent, 80))
	}
	want = min(max(want, 1), cmpMaxReplicas)
	c.recs = append(c.recs, hpaRec{t, want})
	for len(c.recs) > 0 && t-c.recs[0].at > hpaWindow {
		c.recs = c.recs[1:]
	}
	if want < cur.Replicas {
		for _, r := range c.recs {
			want = max(want, r.replicas)
		}
		want = min(want, cur.Replicas)
	}
	cur.Replicas = want
	return cur, nil
}

// runTraceTimeline replays tr second by second on the workload model
// (moha.Replay, which hca-runtime simulate runs too): the controller decides
// every interval from the interval's means, and a change serves startupDelay
// later (until then the old configuration serves; it is paid for from the
// decision on, as new pods are). With timeline set, one CSV row per second
// goes to it (moha.ReplayResult.WriteTimeline).
func runTraceTimeline(app moha.App, tr workload.Trace, start moha.Configuration, c moha.Controller, timeline io.Writer) (loopResult, error) {
	rep := moha.Replay{App: app, Trace: tr, Start: start, StartupDelay: startupDelay, Prices: moha.PaperPrices, TargetResponseTimeMs: desired.ResponseTimeMs}
	res, err := rep.Run(c)
	if err != nil {
		return loopResult{}, err
	}
	if timeline != nil {
		if err := res.WriteTimeline(timeline); err != nil {
			return loopResult{}, err
		}
	}
	return newLoopResult(res), nil
}

// dur writes d as "30 s" or "2 min".
func dur(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%d s", d/time.Second)
}

// writeComparison writes the section comparing MOHA with the HPA on the
// reference traces in dir; with timelines set, each run's per-second
// timeline goes to timelines/<trace>-<run>.csv; with chart set, the runs on
// chartTrace are drawn there.
func writeComparison(w io.Writer, dir string, model *moha.Model, timelines, chart string) error {
	runTrace := func(app moha.App, tr workload.Trace, start moha.Configuration, c moha.Controller, trace, run string) (loopResult, error) {
		if timelines == "" {
			return runTraceTimeline(app, tr, start, c, nil)
		}
		f, err := os.Create(filepath.Join(timelines, strings.TrimSuffix(trace, ".csv")+"-"+run+".csv"))
		if err != nil {
			return loopResult{}, err
		}
		bw := bufio.NewWriter(f)
		r, err := runTraceTimeline(app, tr, start, c, bw)
		if err := errors.Join(err, bw.Flush(), f.Close()); err != nil {
			return loopResult{}, err
		}
		return r, nil
	}
	app := moha.DefaultApp
	hybrid := moha.Ranges{CPULimitMilli: moha.Range{Min: 300, Max: 500}, MemoryLimitMiB: moha.Range{Min: 400, Max: 600}, Replicas: moha.Range{Min: 1, Max: cmpMaxReplicas}}
	fmt.Fprintf(w, `
## Against the Kubernetes HPA on the reference traces

The issue's bar: cost per day at the same average response-time target
against the Kubernetes HPA's defaults on the reference traces (goal: at least
15 %% cheaper at equal or better response time). Each trace of
`+"`examples/traces`"+` is replayed second by second on the workload model
(the synthetic service above, noise-free). MOHA is the runtime's own loop,
`+"`moha.Step`"+` (the function the MultiObjective controller calls) with the
CRD's and the package's defaults: a decision every %s from the means of the
past %s; desired 100 ms, 85 %% CPU and 80 %% memory, usages within 10 points;
the response time kept %d %% under the desired one (a measured response time
over 80 ms, or a usage above its band, asks for more; a configuration is taken
only if the model predicts it within 80 ms at the measured load plus %d %%,
`+"`moha.Loop.LoadHeadroomPercent`"+`, and the 12 variations of eq. 1 are
joined by the fewest replicas predicted within it for each of their pod
sizes and, while the measured response time is within 80 ms, for each pod
size of the ranges' grid, 300m/400m/500m × 400Mi/500Mi/600Mi; TOPSIS ranks
the configuration's cost per hour where the paper ranks the pod's CPU and
memory limits); increases at once, decreases held for %s after a change and made only
when they cut the total CPU by at least %d %%; balanced or
response-time-first weights, the tuned SVR model (beyond the 5 replicas and
1,000 req/s it was trained on, predicted at the same load per pod), ranges
300m-500m, 400Mi-600Mi, 1-%d pods. The HPA scales pods of
a fixed size on CPU at 80 %% of the request with its defaults (10 %% tolerance,
%s sync, %s downscale stabilisation), 1-%d pods; it runs twice, with the
smallest pods MOHA may choose (300m/400Mi, the paper's HPA) and the largest
(500m/600Mi). Every change serves %s after the decision (pod start-up; a
resize rolls the pods, simplified to the same delay: the old pods serve until
then) and is paid for from the decision on. Response time: mean weighted by
the offered load; "over": seconds with the mean response time above 100 ms.
Cost at the paper's prices. "vs HPA": MOHA's cost against the cheaper HPA run
whose response time it matches or beats (none: it beats neither); the
"vs HPA 500m/600Mi" column compares with the large-pod HPA alone. The same
traces, HPA runs, delays and prices as before the loop changed; the loop's
defaults are one set for all seven traces.

Each MOHA weighting runs twice: without memory (the loop before issue 12's
low-load change) and "remembered", the runtime's loop now: it keeps the
measured mean response time of every configuration that served the settle
time unchanged (two intervals or the cooldown, whichever is longer:
`+"`moha.Loop.SettleTime`"+`), per pod size and 10 %% band of request rate per pod (at most
%d, `+"`moha.Memory`"+`, in the strategy's `+"`status.remembered`"+`), and
predicts with it (`+"`moha.Remembered`"+`): for a pod size it has measured at
the same or an up to %d %% higher rate per pod, the measured response time
replaces the model's (the usages stay the model's).

The "oracle" rows bound what any schedule can reach: the cheapest cost of a
configuration per second (CPU limit 300m-500m and memory limit 400Mi-600Mi
in steps of %d, 1-%d pods), chosen with perfect foresight of the trace and
no start-up delay, whose load-weighted mean response time is at most the HPA
run's. The trace is a step function, so each of its rates is measured once
over all configurations and only each rate's Pareto frontier (no cheaper
configuration is as fast) is kept; two searches, the cheaper result shown:
*threshold*, every second the cheapest configuration within θ ms (the fastest
when none is), with the largest θ (found by binary search over the frontiers'
response times) whose mean is within the bound; and *Lagrangian*, every second
the configuration minimising cost per hour + λ × offered rate × response time,
with the smallest λ (bisection) whose mean is within the bound (the optimum of
the bound's convex relaxation). Since both are feasible schedules, the
oracle's cost is attainable by a clairvoyant controller without delays; no
real loop reaches it.

| trace | run | pods | CPU limit (m) | memory limit (Mi) | response time (ms) | over 100 ms (s) | cost per day ($) | vs HPA | vs HPA 500m/600Mi |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |
`, dur(mohaInterval), dur(mohaInterval), moha.DefaultHeadroomPercent, moha.DefaultLoadHeadroomPercent, dur(mohaCooldown), moha.DefaultMinDecreasePercent, cmpMaxReplicas, dur(hpaInterval), dur(hpaWindow), cmpMaxReplicas, dur(startupDelay),
		moha.DefaultMemoryCapacity, moha.MemoryRateTolerancePercent, oracleStep, cmpMaxReplicas)
	// Index 0: the loop without memory (before issue 12's change), 1: with
	// remembered measurements (the runtime's loop now).
	var met [2]int
	total, attainable := 0, 0
	var bounds []float64
	var achieved, achievedLarge [2][]float64
	pp := moha.NewPerPod(model)
	for _, name := range referenceTraces {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		tr, err := workload.ParseTrace(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		small, err := runTrace(app, tr, moha.Configuration{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 1}, &hpaController{}, name, "hpa-small")
		if err != nil {
			return err
		}
		large, err := runTrace(app, tr, moha.Configuration{CPULimitMilli: 500, MemoryLimitMiB: 600, Replicas: 1}, &hpaController{}, name, "hpa-large")
		if err != nil {
			return err
		}
		row := func(run string, r loopResult, v, vl string) {
			fmt.Fprintf(w, "| %s | %s | %.2f | %.0f | %.0f | %.1f | %d | %.2f | %s | %s |\n", name, run, r.pods, r.cpu, r.mem, r.rt, r.over, r.costPerDay, v, vl)
		}
		small.name, large.name = "HPA 300m/400Mi", "HPA 500m/600Mi"
		charted := []loopResult{small, large}
		row("HPA 300m/400Mi", small, "", "")
		row("HPA 500m/600Mi", large, "", "")
		total++
		levels := oracleLevels(app, tr)
		oracleBest := math.Inf(-1)
		for _, h := range []loopResult{small, large} {
			o := oracle(levels, h.rt)
			if !o.ok {
				fmt.Fprintf(w, "| %s | oracle within %s's response time | | | | | | | not reachable | |\n", name, h.name)
				continue
			}
			saving := 1 - o.costPerDay/h.costPerDay
			oracleBest = max(oracleBest, saving)
			v := fmt.Sprintf("%+.1f %% cost (%s)", -saving*100, o.method)
			fmt.Fprintf(w, "| %s | oracle within %s's response time | | | | %.1f | | %.2f | %s | |\n", name, h.name, o.rtMs, o.costPerDay, v)
		}
		if oracleBest >= 0.15 {
			attainable++
		}
		bounds = append(bounds, oracleBest)
		var anyMet [2]bool
		bestSaving := [2]float64{math.Inf(-1), math.Inf(-1)}
		bestLarge := [2]float64{math.Inf(-1), math.Inf(-1)}
		for _, v := range []struct {
			name     string
			w        moha.Weights
			remember bool
		}{{"balanced", moha.Balanced, false}, {"response-time-first", moha.ResponseTimeFirst, false},
			{"balanced, remembered", moha.Balanced, true}, {"response-time-first, remembered", moha.ResponseTimeFirst, true}} {
			mo, err := runTrace(app, tr, moha.Configuration{CPULimitMilli: 300, MemoryLimitMiB: 400, Replicas: 1}, mohaStrategy(pp, moha.Loop{
				Config:           moha.Config{Desired: mohaDesired, Ranges: hybrid, Weights: v.w},
				TolerancePercent: 10, Cooldown: mohaCooldown, HeadroomPercent: moha.DefaultHeadroomPercent, LoadHeadroomPercent: moha.DefaultLoadHeadroomPercent, MinDecreasePercent: moha.DefaultMinDecreasePercent}, v.remember), name, "moha-"+strings.ReplaceAll(strings.ReplaceAll(v.name, ",", ""), " ", "-"))
			if err != nil {
				return err
			}
			k := 0
			if v.remember {
				k = 1
			}
			verdict := "no HPA run as fast"
			var best *loopResult
			for _, h := range []*loopResult{&small, &large} {
				if mo.rt <= h.rt && (best == nil || h.costPerDay < best.costPerDay) {
					best = h
				}
			}
			if best != nil {
				saving := 1 - mo.costPerDay/best.costPerDay
				bestSaving[k] = max(bestSaving[k], saving)
				verdict = fmt.Sprintf("%+.1f %% cost", -saving*100)
				if saving >= 0.15 {
					verdict += " (goal met)"
					anyMet[k] = true
				}
			}
			vl := fmt.Sprintf("%+.1f %% cost, slower", -100*(1-mo.costPerDay/large.costPerDay))
			if mo.rt <= large.rt {
				saving := 1 - mo.costPerDay/large.costPerDay
				bestLarge[k] = max(bestLarge[k], saving)
				vl = fmt.Sprintf("%+.1f %% cost", -saving*100)
				if saving >= 0.15 {
					vl += " (goal met)"
				}
			}
			row("MOHA "+v.name, mo, verdict, vl)
			mo.name = "MOHA " + v.name
			charted = append(charted, mo)
		}
		if chart != "" && name == chartTrace {
			if err := writeChart(chart, "private overflow: MOHA (runtime loop) against the HPA, per second", charted); err != nil {
				return err
			}
		}
		for k := range met {
			if anyMet[k] {
				met[k]++
			}
			achieved[k] = append(achieved[k], bestSaving[k])
			achievedLarge[k] = append(achievedLarge[k], bestLarge[k])
		}
	}
	fmt.Fprintf(w, "\nThe goal (at least 15 %% cheaper at equal or better response time) is met by one of the MOHA runs on %d of %d traces with remembered measurements, and on %d of %d without.\n", met[1], total, met[0], total)
	fmt.Fprint(w, "\n| trace | MOHA's best saving, without memory | MOHA's best saving, remembered | oracle's best saving | 15 % attainable within the ranges | MOHA's best saving against the large-pod HPA at its response time |\n| --- | ---: | ---: | ---: | --- | ---: |\n")
	for i, name := range referenceTraces {
		pct := func(v float64) string {
			if math.IsInf(v, -1) {
				return "none"
			}
			return fmt.Sprintf("%.1f %%", v*100)
		}
		yes := "no"
		if bounds[i] >= 0.15 {
			yes = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", name, pct(achieved[0][i]), pct(achieved[1][i]), pct(bounds[i]), yes, pct(max(achievedLarge[0][i], achievedLarge[1][i])))
	}
	fmt.Fprintf(w, "\nThe oracle reaches 15 %% on %d of %d traces.\n", attainable, total)
	if chart != "" {
		fmt.Fprintf(w, "\n![load, pods, total CPU and response time per second of the runs on %s](%s)\n", chartTrace, filepath.Base(chart))
	}
	night := app.Measure(300, 400, 1, 60)
	pred := pp.Predict([moha.NumInputs]float64{300, 400, 1, 60})
	night500 := app.Measure(300, 500, 1, 60)
	pred500 := pp.Predict([moha.NumInputs]float64{300, 500, 1, 60})
	fmt.Fprintf(w, `
Where the loop lost response time before (per-second timelines: `+"`go run ./tools/mohabench -timelines DIR`"+`
writes one CSV per trace and run), and what changed:

- **Saturated pods grew slowly.** A saturated pod measures 100 %% CPU, so eq. 1
  asks for only 100/80 = 1.25 times the replicas, and the 2-minute cooldown
  after every change made the next step wait: on private-overflow MOHA took 9
  minutes to climb from 2 to 7 pods at 1,400 req/s, at 480-1,300 ms. Now
  the variations include the fewest replicas the model predicts within the
  limit for each pod size (predicted at the same load per pod beyond the
  training range), an increase is made at once, and the cooldown holds
  decreases only (the HPA's and Knative's asymmetry).
- **The cheapest variation was taken whatever its predicted response time.**
  TOPSIS trades response time against five resource criteria, so a variation
  predicted far over the target could win (private-overflow: 7 pods of 500m at
  57 ms went back to 5 of 300m at 1,300 ms). Now a variation predicted over the
  limit (the desired response time less %d %%) is taken only when none is
  within it, and then the fastest.
- **Near saturation on every rise.** With 70-90 %% usage and 100 ms, a rising
  load was met late: on diurnal the balanced run's 3,120 s over 100 ms were all
  at 91-100 %% CPU (a 300m/400Mi pod passes 100 ms at about 90 %%), each step
  waiting for the cooldown. The response time now has 20 %% headroom (80 ms),
  with 85 %% CPU as eq. 1's target (a measured response time over the limit,
  or a usage above its band, asks for more; a prediction alone does not).
- **Small decreases rolled the pods.** A decrease is made only when it cuts the
  total CPU (or memory) by at least %d %%.

The low load (issue 12). On week the nights (about 60 req/s) ran 2 pods
where the HPA runs 1: the tuned SVR predicts %.0f ms for one 300m/400Mi pod at
60 req/s where the workload model measures %.0f ms (the grid's lowest rate is
40 req/s, and at one replica the grid's steps of 40 req/s straddle the
saturation knee, which the kernel smears down to low load), so after the
first day's peak the guard would not go back to 1 pod. Tried, in order, with
the rule that a change is kept only if no trace's goal outcome gets worse:

- **A denser grid below 100 req/s** (10, 20, 30, 50, 60, 70 and 90 req/s
  added, 4,000 samples; `+"`go run ./tools/mohabench -grid dense`"+`
  reproduces it, with the loop of that time): the tuned SVR then predicted
  56 ms for that pod, but the goal was met on 4 traces instead of 5 (the
  MOHA ramp lost it) and on neither diurnal nor week. Not kept: the bench
  and `+"`moha collect`"+` keep the paper's grid.
- **Remembered measurements** (the "remembered" rows): kept. Two variants
  were measured and not kept: entries per whole req/s per pod, at most 64,
  and measurements of pods up to 10 %% smaller answering too.

The cost (issue 12, second change). With those, MOHA met the goal on 5 of 7
traces: on diurnal at best 4.6 %% cheaper than the small-pod HPA, on week
14.7 %% dearer, both on about the HPA's own pods (311-317m, 413-423Mi). From
the workload model, the cost of a req/s at 80 ms is about 2.05e-4 $ an
hour on a 300m/400Mi pod, 1.68e-4 on 300m/600Mi and 1.60e-4 on 500m/600Mi
(more memory, less GC overhead): the oracle's savings come from larger
pods, which the loop never ran, for two reasons. Eq. 1 proposes pod sizes
near the current one (memory aimed at 80 %% usage, so never 600Mi from
400Mi); and TOPSIS minimised the pod's CPU and memory limits as two
criteria, so 3 pods of 300m ranked before 1 of 500m, and memory (about a
ninth of CPU's price per GB-hour) counted as much as CPU. Now (one set of
defaults for all traces, in `+"`moha.SafeDecide`"+` and `+"`moha.Decide`"+`,
which the controller, `+"`hca-runtime simulate`"+` and this bench share):

- **One cost criterion.** The CPU and memory limit criteria are one, the
  configuration's cost per hour at the paper's prices, weighted by the two
  weights' sum.
- **The ranges' grid of pod sizes.** Each range's min, midpoint and max
  (9 pod sizes), each with the fewest replicas predicted within 80 ms, join
  the candidates while the measured response time is within the limit. With
  the grid in every round the MOHA ramp went from 80 to 185 ms (slower than
  the small-pod HPA): on a rise the past interval's load understates what is
  coming and the cheapest size sized for it lags, where eq. 1's
  response-time variations grow with the measured excess. At night the grid
  offers one 300m/500Mi pod (predicted %.0f ms at 60 req/s, measured %.0f ms).

Tried on the way and not kept (diurnal / week, best run against the
small-pod HPA): the total CPU and memory limits (replicas × the pod's) as the
two criteria instead of the cost, -14.3 %% at 27.8 ms / -11.9 %%; always the
cheapest configuration predicted within the limit instead of TOPSIS, -21 %%
but 38.6 ms (slower than the HPA's 29.3) / -14.8 %%; the grid sized with one
more replica too, no change.

The load headroom (issue 12, third change). With those, MOHA met the goal on
5 of 7 traces: on diurnal at best 12.6 %% cheaper (response-time-first,
25.7 ms; the balanced run was 14.4 %% cheaper but at 37.1 ms, slower than the
small-pod HPA's 32.5), on week 9.2 %% (response-time-first, 22.0 ms; balanced
16.3 %% cheaper at 35.9 ms against the HPA's 28.0). The per-second timelines
put the balanced runs' excess response time in 40-second episodes: a
decrease to the cheapest configuration predicted within 80 ms (at 82-88 %% CPU)
followed by the next minute's load rise of 5-15 %% (the traces' noise and
ramps), which saturated it at 400-700 ms until the next round's increase
served 30 + 10 s later. 80 ms is about 94 %% of a pod's capacity on this
service: the response-time headroom leaves almost no capacity headroom. At
night nothing is to be saved (both run one pod; MOHA's 300m/600Mi costs 6 %%
more than the HPA's 300m/400Mi and serves faster), so the day has to pay.
Now (one set of defaults for all traces, in `+"`moha.Step`"+`):

- **Sized for %d %% more load.** The variations, the fewest replicas and the
  guard are predicted at the measured request rate × 1.%02d; the
  measurements eq. 1 scales by stay the measured ones.
- **Decreases from a %d %% cut** (was 10 %%): with the capacity headroom a
  decrease no longer lands at the knee, and smaller savings become safe.

Tried (diurnal / week, balanced remembered against the small-pod HPA):
load headroom 5 %% with the 10 %% cut, -18.1 %% at 29.9 ms / -15.4 %% at 28.5 ms
(slower than the HPA's 28.0); 7 %%, -16.7 %% at 28.2 ms / -14.8 %% at 26.8 ms;
10 %%, -16.2 %% / -13.8 %%; 20 %%, -11.0 %% / -11.3 %%; the headroom only while
the measured response time is within the limit (not on increases), no
better; 8 %% with the 5 %% cut, -18.3 %% at 28.6 ms / -15.5 %% at 26.9 ms (the
kept 10 %% leaves the response time more margin at about the same cost).
The cost of the margin: the savings on
the four burst traces against the small-pod HPA shrink by 1-4 points
(private overflow's runs, now at 57-59 ms, beat the large-pod HPA's 61.0
and are compared with it, which costs less: 19.9 %%). The MOHA ramp's
balanced run first slowed from 76.9 to 135.0 ms: 30 s after an increase
the round's means still mixed the saturated pods before it, and Settling
judged the new pods at the measured load, so the next increase waited a
round with pods that could not take the 10 %% headroom while the ramp
outgrew them. Settling now judges them at the load the loop sizes for,
as the choices are: 88.0 ms, 35.8 %% cheaper than the small-pod HPA.
`, moha.DefaultHeadroomPercent, moha.DefaultMinDecreasePercent, pred[0], night.ResponseTimeMs, pred500[0], night500.ResponseTimeMs,
		moha.DefaultLoadHeadroomPercent, moha.DefaultLoadHeadroomPercent, moha.DefaultMinDecreasePercent)
	return nil
}
