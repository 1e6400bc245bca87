package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// TestACKCallsLab drives runtime/member's ACK client (the unmodified CS SDK)
// against the lab's ACK emulator with Metrics as its recorder: a describe
// throttled twice and then answered "cluster not found" is one call, two
// throttles and one error with CS's code; a describe throttled on all its 3
// attempts is one call, three throttles and one Throttling.User error.
func TestACKCallsLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_ACK_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", emulator.AlicloudAccessKey)
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", emulator.AlicloudAccessSecret)
	m := New(prometheus.NewRegistry())
	api := &member.ACKAPI{Endpoint: env["HCA_LAB_ACK_ENDPOINT"], Attempts: 3, Backoff: 10 * time.Millisecond, Recorder: m}
	throttle := func(next int) {
		t.Helper()
		resp, err := http.Post(env["HCA_LAB_ACK_ENDPOINT"]+"/lab/v1/throttling", "application/json", bytes.NewReader(fmt.Appendf(nil, `{"next": %d}`, next)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("set throttling: %s", resp.Status)
		}
	}
	t.Cleanup(func() { throttle(0) })
	const op = "DescribeClusterNodePoolDetail"
	missing := "c00000000000000000000000000telemetry"

	throttle(2)
	_, err := api.DescribeNodePool(ctx, missing, "cn-hangzhou", "np0000000000000000000000000000000")
	if err == nil {
		t.Fatal("describing a pool of a cluster that does not exist succeeded")
	}
	check := func(when string, calls, throttles, errs float64) {
		t.Helper()
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"calls", testutil.ToFloat64(m.CloudCalls.WithLabelValues(member.ACKService, op)), calls},
			{"throttles", testutil.ToFloat64(m.CloudThrottles.WithLabelValues(member.ACKService, op)), throttles},
			{"error series", float64(len(errorCodes(t, m))), errs},
		} {
			if c.got != c.want {
				t.Errorf("%s: %s = %v, want %v", when, c.what, c.got, c.want)
			}
		}
	}
	check("after the throttled describe", 1, 2, 1)
	codes := errorCodes(t, m)
	if codes["ErrorClusterNotFound"]+codes["ErrorNodePoolNotFound"] != 1 {
		t.Errorf("errors by code %v, want one ErrorClusterNotFound or ErrorNodePoolNotFound (%v)", codes, err)
	}

	throttle(50)
	if _, err := api.DescribeNodePool(ctx, missing, "cn-hangzhou", "np0000000000000000000000000000000"); err == nil {
		t.Fatal("a describe throttled on every attempt succeeded")
	}
	throttle(0)
	check("after the describe throttled 3 times", 2, 5, 2)
	if got := errorCodes(t, m)["Throttling.User"]; got != 1 {
		t.Errorf("Throttling.User errors = %v, want 1", got)
	}
}

// errorCodes reads hca_cloud_api_errors_total by code without making series.
func errorCodes(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 100)
	m.CloudErrors.Collect(ch)
	close(ch)
	out := map[string]float64{}
	for c := range ch {
		var pb dto.Metric
		if err := c.Write(&pb); err != nil {
			t.Fatal(err)
		}
		for _, l := range pb.GetLabel() {
			if l.GetName() == "code" {
				out[l.GetValue()] += pb.GetCounter().GetValue()
			}
		}
	}
	return out
}

// TestRecordCloudCall: the counters a recorded call moves, and a nil Metrics
// records nothing without panicking.
func TestRecordCloudCall(t *testing.T) {
	tests := []struct {
		name                  string
		throttled             int
		code                  string
		calls, errs, throttle float64
	}{
		{"success", 0, "", 1, 0, 0},
		{"success after throttling", 2, "", 1, 0, 2},
		{"error", 0, "ErrorNodePoolNotFound", 1, 1, 0},
		{"throttled out", 5, "Throttling.User", 1, 1, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(prometheus.NewRegistry())
			m.RecordCloudCall("CS", "ModifyClusterNodePool", tt.throttled, tt.code)
			if got := testutil.ToFloat64(m.CloudCalls.WithLabelValues("CS", "ModifyClusterNodePool")); got != tt.calls {
				t.Errorf("calls %v, want %v", got, tt.calls)
			}
			if got := float64(testutil.CollectAndCount(m.CloudErrors, "hca_cloud_api_errors_total")); got != tt.errs {
				t.Errorf("error series %v, want %v", got, tt.errs)
			}
			if tt.code != "" {
				if got := testutil.ToFloat64(m.CloudErrors.WithLabelValues("CS", "ModifyClusterNodePool", tt.code)); got != 1 {
					t.Errorf("errors with code %s = %v, want 1", tt.code, got)
				}
			}
			if got := testutil.ToFloat64(m.CloudThrottles.WithLabelValues("CS", "ModifyClusterNodePool")); got != tt.throttle {
				t.Errorf("throttles %v, want %v", got, tt.throttle)
			}
		})
	}
	var nilM *Metrics
	nilM.RecordCloudCall("CS", "x", 1, "y")
}
