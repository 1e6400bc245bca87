package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// pollUntil calls check at once, then every interval, until it reports done
// or an error, or timeout passes or ctx ends (wait.PollUntilContextTimeout).
// check also reports the state it saw; a failed wait says what it waited
// for and the last state seen.
func pollUntil(ctx context.Context, interval, timeout time.Duration, what string, check func(context.Context) (done bool, state string, err error)) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		done, state, err := check(ctx)
		if state != "" {
			last = state
		}
		return done, err
	})
	if err == nil {
		return nil
	}
	return waitError(ctx, what, last, err, wait.Interrupted(err))
}

// untilDeadline is how long a wait bound to ctx may last: until ctx's
// deadline (the resource's timeouts), or def when ctx has none.
func untilDeadline(ctx context.Context, def time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d)
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
