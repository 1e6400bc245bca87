package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// timeoutsAttr is the `timeouts` argument of a resource whose operations
// wait: a nested attribute (`timeouts = { create = "45m" }`) in every
// resource, the framework's convention for providers written on it, as the
// provider's other nested arguments are. what says what each operation waits
// for, by operation ("create", "update", "delete"), with its default.
func timeoutsAttr(ctx context.Context, what map[string]string) schema.SingleNestedAttribute {
	opts := timeouts.Opts{}
	var ops []string
	for _, op := range []string{"create", "update", "delete"} {
		d, ok := what[op]
		if !ok {
			continue
		}
		ops = append(ops, "`"+op+"`")
		d = "How long " + op + " waits for " + d + ", a Go duration such as `45m`."
		if op == "delete" {
			d += " Destroy reads it from the state: apply a new value before destroying."
		}
		switch op {
		case "create":
			opts.Create, opts.CreateDescription = true, d
		case "update":
			opts.Update, opts.UpdateDescription = true, d
		case "delete":
			opts.Delete, opts.DeleteDescription = true, d
		}
	}
	a := timeouts.Attributes(ctx, opts).(schema.SingleNestedAttribute)
	for name, attr := range a.Attributes {
		// The framework's own validator names neither the attribute nor
		// a bound, and takes negative durations.
		if sa, ok := attr.(schema.StringAttribute); ok {
			sa.Validators = []validator.String{timeoutDuration{}}
			a.Attributes[name] = sa
		}
	}
	a.Description = "How long the operations that wait (" + strings.Join(ops, ", ") + ") may take before they fail; each unset one has its default."
	return a
}

// timeoutDuration checks a timeout: a Go duration greater than 0, naming the
// attribute.
type timeoutDuration struct{}

func (timeoutDuration) Description(context.Context) string {
	return "must be a Go duration greater than 0s, such as \"45m\""
}
func (v timeoutDuration) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v timeoutDuration) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s %s, got %q.", req.Path, v.Description(ctx), req.ConfigValue.ValueString()))
	}
}

// pollUntil calls check at once, then every interval, until it reports done
// or an error, or timeout passes or ctx ends (wait.PollUntilContextTimeout).
// check also reports the state it saw; a failed wait says what it waited
// for and the last state seen before the wait ended.
func pollUntil(ctx context.Context, interval, timeout time.Duration, what string, check func(context.Context) (done bool, state string, err error)) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		done, state, err := check(ctx)
		if state != "" && ctx.Err() == nil {
			// A state seen as the wait ends (a request cut short by
			// the deadline) is not the object's.
			last = state
		}
		return done, err
	})
	if err == nil {
		return nil
	}
	return waitError(ctx, what, last, err, wait.Interrupted(err))
}

// apiErrorState is a failed read's error as the state a wait saw: the API
// server's answer (Forbidden, a timeout of its own...), or "" for an error of
// the client (its rate limiter refusing to wait past the deadline), which says
// nothing of the object.
func apiErrorState(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return err.Error()
	}
	return ""
}

// untilDeadline is how long a wait bound to ctx may last: until ctx's
// deadline (the resource's timeouts), or def when ctx has none. It is never
// 0 or less, which the AWS SDK waiters refuse: a wait past the deadline
// fails as timed out.
func untilDeadline(ctx context.Context, def time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return def
}

// sdkWaitMaxExceeded tells the AWS SDK waiters' error for a wait that ran out
// of time ("exceeded max wait time for ClusterActive waiter"), which has no
// type of its own.
func sdkWaitMaxExceeded(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeded max wait time")
}

// waitError says what a wait for what ended with: err, and the last state
// seen; timedOut adds how to give it longer.
func waitError(ctx context.Context, what, last string, err error, timedOut bool) error {
	if last == "" {
		last = "none yet"
	}
	if timedOut || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for %s (last seen: %s): %w; raise the resource's timeouts if the operation needs longer", what, last, err)
	}
	return fmt.Errorf("waiting for %s (last seen: %s): %w", what, last, err)
}
