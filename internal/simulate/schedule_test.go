package simulate

import (
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/workload"
)

// stepTrace is 10 req/s for 20 min, then 200 req/s for 10 min.
func stepTrace() workload.Trace {
	return workload.Trace{{Seconds: 0, RPS: 10}, {Seconds: 1199, RPS: 10}, {Seconds: 1200, RPS: 200}, {Seconds: 1800, RPS: 200}}
}

// TestScheduleFloorInSimulation: a window opening at 00:19 (second 1140 of
// the trace, read from ScheduleEpoch) holds the floor from 00:19 less the
// adaptive horizon until 00:29, so the step at 00:20 finds the replicas
// ready: fewer violations than the same policy without it, at a cost. A
// window whose floor is at most what the load needs changes nothing.
func TestScheduleFloorInSimulation(t *testing.T) {
	m := refModel(t)
	base := refPolicy(t, "adaptive", 0)
	tr := stepTrace()
	without := run(t, base, m, tr)
	// Enough replicas for 200 req/s: the count the run without schedule
	// reaches at the end.
	need := without.Series.Desired[1790]
	p, err := base.WithSchedules([]scaling.Window{{Name: "step", Start: "19 0 * * *", Duration: 10 * time.Minute, MinReplicas: need}})
	if err != nil {
		t.Fatal(err)
	}
	with := run(t, p, m, tr)
	// The run's lead is its horizon, derived from the model (no
	// forecastHorizon in the policy): the longer one, of replicas that wait
	// for nodes.
	_, lead := p.ReadyHorizon(m)
	opens := 1140 - int(lead/time.Second)
	if got := with.Series.Desired[opens+int(base.adaptive.Step/time.Second)]; got < need {
		t.Errorf("desired at second %d (window open, %v lead) = %d, want at least %d", opens+15, lead, got, need)
	}
	if got := with.Series.Desired[opens-30]; got >= need {
		t.Errorf("desired 30 s before the window = %d, want below %d", got, need)
	}
	raised := false
	for _, tk := range with.Ticks {
		raised = raised || strings.Contains(tk.Reason, "schedule step keeps at least")
	}
	if !raised {
		t.Error("no decision names the schedule")
	}
	wv, nv := with.Metrics.SLAViolationRate, without.Metrics.SLAViolationRate
	if !(wv < nv) || !(with.Metrics.Cost > without.Metrics.Cost) {
		t.Errorf("with the window: violations %.4f cost %.4f; without: %.4f %.4f; want fewer violations at a higher cost", wv, with.Metrics.Cost, nv, without.Metrics.Cost)
	}
	low, err := base.WithSchedules([]scaling.Window{{Name: "low", Start: "0 0 * * *", Duration: time.Hour, MinReplicas: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r := run(t, low, m, tr); r.Metrics != without.Metrics {
		t.Errorf("a floor of 1 changed the run: %+v, want %+v", r.Metrics, without.Metrics)
	}
}

// TestScheduleParsed: spec.schedules in a policy file reach the run, and
// a bad one is an input error naming the field.
func TestScheduleParsed(t *testing.T) {
	const policy = "apiVersion: hca.dev/v1alpha1\nkind: BurstPolicy\nmetadata: {name: p}\nspec:\n  primaryCluster: private\n  burstTargets: [{cluster: eks}]\n  maxReplicas: 50\n"
	p, err := ParsePolicy([]byte(policy + "  schedules: [{name: peak, start: \"0 9 * * MON\", duration: 1h, timeZone: Europe/Berlin, minReplicas: 7}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	// ScheduleEpoch is Monday 00:00 UTC: 09:00 in Berlin (UTC+1 in
	// January) is second 28800.
	if f := p.schedule.Floor(ScheduleEpoch.Add(28800*time.Second), 0); f.Min != 7 {
		t.Fatalf("floor at 08:00 UTC = %+v, want 7", f)
	}
	_, err = ParsePolicy([]byte(policy + "  schedules: [{name: peak, start: \"0 9 * *\", duration: 1h, minReplicas: 7}]\n"))
	if err == nil || !strings.Contains(err.Error(), "spec.schedules[0].start") {
		t.Fatalf("error %v, want one naming spec.schedules[0].start", err)
	}
}

// TestHeadroomFromPolicyFile: algorithm.adaptive.headroomPercent in a
// policy file is the headroom WithHeadroom sets: the same run.
func TestHeadroomFromPolicyFile(t *testing.T) {
	const policy = "apiVersion: hca.dev/v1alpha1\nkind: BurstPolicy\nmetadata: {name: p}\nspec:\n  primaryCluster: private\n  burstTargets: [{cluster: eks}, {cluster: ack}]\n  maxReplicas: 60\n"
	m := refModel(t)
	tr := stepTrace()
	fromFile, err := ParsePolicy([]byte(policy + "  algorithm: {name: adaptive, adaptive: {headroomPercent: 25}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ParsePolicy([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	viaOption, err := plain.WithHeadroom(0, 25)
	if err != nil {
		t.Fatal(err)
	}
	a, b, none := run(t, fromFile, m, tr), run(t, viaOption, m, tr), run(t, plain, m, tr)
	if a.Metrics != b.Metrics {
		t.Errorf("policy file %+v, WithHeadroom %+v: want the same run", a.Metrics, b.Metrics)
	}
	if !(a.Metrics.Cost > none.Metrics.Cost) {
		t.Errorf("25 %% headroom costs %.4f, none %.4f: want more", a.Metrics.Cost, none.Metrics.Cost)
	}
}
