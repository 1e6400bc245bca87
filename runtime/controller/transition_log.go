package controller

import (
	"context"
	"log/slog"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// conditionChange says how a condition changed from one status to the next,
// for what the operator is told once per transition (an Event, a log line):
// lost when it is False now and was not (or did not exist), back when it was
// False and is True now. A first True, an unchanged status and Unknown
// (nothing to measure, an invalid spec) are neither.
func conditionChange(before, after *metav1.Condition) (lost, back bool) {
	if after == nil || after.Status == metav1.ConditionUnknown || before != nil && before.Status == after.Status {
		return false, false
	}
	return after.Status == metav1.ConditionFalse, after.Status == metav1.ConditionTrue && before != nil && before.Status == metav1.ConditionFalse
}

// transitionMessages are the log messages of the conditions whose
// transitions are logged: when lost, when back.
var transitionMessages = map[string][2]string{
	hcav1.ConditionMetricsAvailable: {"metrics unavailable", "metrics available again"},
	hcav1.ConditionReachable:        {"burst clusters unreachable", "burst clusters reachable again"},
	hcav1.ConditionPublished:        {"consul catalog cannot be written", "consul catalog written again"},
}

// logTransition logs a condition's transition (conditionChange) through
// ctx's logger: at warn level when it is lost, with the condition's reason
// and message (the error, which the runtime's errors never fill with a
// credential), at info level when it is back. kv names the object
// ("policy", key). hca-runtime's logger is slog's, which keeps the level; a
// logger not backed by slog writes the warning at info level.
func logTransition(ctx context.Context, c *metav1.Condition, lost bool, kv ...any) {
	msgs, ok := transitionMessages[c.Type]
	if !ok {
		msgs = [2]string{c.Type + " lost", c.Type + " back"}
	}
	l := slog.New(logr.ToSlogHandler(log.FromContext(ctx)))
	if lost {
		l.Warn(msgs[0], append(kv, "reason", c.Reason, "error", c.Message)...)
		return
	}
	l.Info(msgs[1], append(kv, "reason", c.Reason, "message", c.Message)...)
}
