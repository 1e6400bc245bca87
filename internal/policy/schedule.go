package policy

import (
	"errors"
	"strings"
	"time"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// Schedule compiles a policy's spec.schedules; the error names the field
// ("spec.schedules[1].timeZone: ..."). No windows give a nil schedule, whose
// floor is always 0.
func Schedule(ws []hcav1.ScheduleWindow) (*scaling.Schedule, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	out := make([]scaling.Window, len(ws))
	for i, w := range ws {
		out[i] = scaling.Window{Name: w.Name, Start: w.Start, Duration: w.Duration.Duration, TimeZone: w.TimeZone, MinReplicas: w.MinReplicas}
	}
	s, err := scaling.NewSchedule(out)
	if err != nil {
		return nil, prefixed("spec.schedules", err)
	}
	return s, nil
}

// ScheduleLead is how far ahead of a window's start its floor is applied:
// the time the workload needs to make replicas ready, which only the
// adaptive algorithm declares (its forecastHorizon, or the default derived
// horizon without figures: DeriveHorizons); 0 for the others.
func ScheduleLead(a hcav1.Algorithm) time.Duration {
	return ScheduleLeadFor(a, DeriveHorizons(a.Adaptive, ReadyFigures{}))
}

// ScheduleLeadFor is ScheduleLead with the adaptive algorithm's horizons
// h: the longer one (of the replicas that wait for a node, when they do).
func ScheduleLeadFor(a hcav1.Algorithm, h Horizons) time.Duration {
	if a.Name != "" && a.Name != hcav1.AlgorithmAdaptive {
		return 0
	}
	if _, err := AdaptiveConfigFor(a.Adaptive, h); err != nil {
		return 0
	}
	return max(h.Pods, h.Nodes)
}

// prefixed renames scaling.NewSchedule's "windows[i]" to the API field.
func prefixed(field string, err error) error {
	msg, ok := strings.CutPrefix(err.Error(), "windows")
	if !ok {
		return errors.New(field + ": " + err.Error())
	}
	return errors.New(field + msg)
}
