package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestUntilDeadline(t *testing.T) {
	if got := untilDeadline(context.Background(), time.Minute); got != time.Minute {
		t.Errorf("without a deadline: %s, want 1m", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if got := untilDeadline(ctx, time.Minute); got <= 59*time.Minute || got > time.Hour {
		t.Errorf("with an hour left: %s", got)
	}
	past, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	if got := untilDeadline(past, time.Minute); got <= 0 {
		t.Errorf("past the deadline: %s, want > 0 (the SDK waiters refuse 0)", got)
	}
}

// TestPollUntil checks what a failed wait says: what it waited for and the
// last state seen.
func TestPollUntil(t *testing.T) {
	ctx := context.Background()
	err := pollUntil(ctx, time.Millisecond, 20*time.Millisecond, "the cluster to be running", func(context.Context) (bool, string, error) {
		return false, "initial", nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "timed out waiting for the cluster to be running (last seen: initial): ") ||
		!strings.HasSuffix(err.Error(), "; raise the resource's timeouts if the operation needs longer") {
		t.Errorf("timeout: %v", err)
	}
	calls := 0
	err = pollUntil(ctx, time.Millisecond, time.Minute, "task t-1 to succeed", func(context.Context) (bool, string, error) {
		calls++
		if calls < 3 {
			return false, "running", nil
		}
		return false, "fail", errors.New("task failed: InstanceTypeUnavailable")
	})
	if err == nil || err.Error() != "waiting for task t-1 to succeed (last seen: fail): task failed: InstanceTypeUnavailable" {
		t.Errorf("failure: %v", err)
	}
	if err := pollUntil(ctx, time.Millisecond, time.Minute, "x", func(context.Context) (bool, string, error) { return true, "", nil }); err != nil {
		t.Errorf("done at once: %v", err)
	}
}

// TestPollUntilLastStateBeforeDeadline checks that a check cut short by the
// deadline (its request failing with it) does not hide the last real state.
func TestPollUntilLastStateBeforeDeadline(t *testing.T) {
	err := pollUntil(context.Background(), time.Millisecond, 30*time.Millisecond, "deletion to finish", func(ctx context.Context) (bool, string, error) {
		select {
		case <-ctx.Done():
			return false, "client rate limiter Wait returned an error: " + ctx.Err().Error(), nil
		case <-time.After(2 * time.Millisecond):
			return false, "finalizers [hca.dev/cleanup]", nil
		}
	})
	if err == nil || !strings.Contains(err.Error(), "(last seen: finalizers [hca.dev/cleanup])") {
		t.Errorf("got %v, want the last state seen before the deadline", err)
	}
}

func TestAPIErrorState(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "hca-runtime", errors.New("no"))
	if got := apiErrorState(forbidden); got != forbidden.Error() {
		t.Errorf("the API server's answer: %q", got)
	}
	limiter := fmt.Errorf("client rate limiter Wait returned an error: %w", errors.New("rate: Wait(n=1) would exceed context deadline"))
	if got := apiErrorState(limiter); got != "" {
		t.Errorf("a client-side error: %q, want none", got)
	}
}
