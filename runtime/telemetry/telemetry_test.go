package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
)

func TestNilMetricsAreSafe(t *testing.T) {
	var m *Metrics
	m.NodeRequest("c", "g", 2, nil)
	m.NodeRelease("c", "g", errors.New("x"))
	if m.AWSAPIOptions() != nil {
		t.Fatal("nil metrics returned AWS middleware")
	}
	var src metrics.Source = fakeSource{}
	if m.CountingSource(src) != src {
		t.Fatal("nil metrics wrapped the source")
	}
}

func TestNodeRequestsAndReleases(t *testing.T) {
	m := New(prometheus.NewRegistry())
	m.NodeRequest("eks", "spot", 3, nil)
	m.NodeRequest("eks", "spot", 2, errors.New("quota"))
	m.NodeRelease("eks", "spot", nil)
	if n := testutil.CollectAndCount(m.NodeReleases); n != 2 {
		t.Errorf("release series = %d, want 2 (ok, and error at 0 before any failure)", n)
	}
	for _, c := range []struct {
		got  float64
		want float64
		what string
	}{
		{testutil.ToFloat64(m.NodeRequests.WithLabelValues("eks", "spot", "ok")), 1, "ok requests"},
		{testutil.ToFloat64(m.NodeRequests.WithLabelValues("eks", "spot", "error")), 1, "failed requests"},
		{testutil.ToFloat64(m.NodesRequested.WithLabelValues("eks", "spot")), 3, "nodes requested (the failed order's 2 not counted)"},
		{testutil.ToFloat64(m.NodeReleases.WithLabelValues("eks", "spot", "ok")), 1, "releases"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

type fakeSource struct{ err error }

func (f fakeSource) Instant(context.Context, metrics.Expr, time.Time) (metrics.Vector, error) {
	return nil, f.err
}

func TestQueryResult(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{fmt.Errorf("query x: %w", metrics.ErrNoData), "no_data"},
		{metrics.ErrNaN, "nan"},
		{fmt.Errorf("%w: parse error", metrics.ErrBadQuery), "bad_query"},
		{fmt.Errorf("prometheus down: %w", metrics.ErrUnavailable), "unavailable"},
		{errors.New("boom"), "error"},
	}
	m := New(prometheus.NewRegistry())
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := QueryResult(tt.err); got != tt.want {
				t.Fatalf("QueryResult(%v) = %q, want %q", tt.err, got, tt.want)
			}
			before := testutil.ToFloat64(m.MetricQueries.WithLabelValues(tt.want))
			_, _ = m.CountingSource(fakeSource{err: tt.err}).Instant(context.Background(), metrics.Raw("up"), time.Time{})
			if got := testutil.ToFloat64(m.MetricQueries.WithLabelValues(tt.want)) - before; got != 1 {
				t.Fatalf("hca_metric_queries_total{result=%q} grew by %v, want 1", tt.want, got)
			}
		})
	}
}

func TestErrorCode(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}, "ThrottlingException"},
		{fmt.Errorf("operation error EKS: %w", &smithy.GenericAPIError{Code: "ResourceNotFoundException"}), "ResourceNotFoundException"},
		{fmt.Errorf("send: %w", context.DeadlineExceeded), "timeout"},
		{context.Canceled, "canceled"},
		{errors.New("dial tcp: connection refused"), "other"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := ErrorCode(tt.err); got != tt.want {
				t.Fatalf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// listerOf serves fixed objects, as the manager's cache would.
type listerOf struct {
	policies []hcav1.BurstPolicy
	err      error
}

func (l listerOf) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	if l.err != nil {
		return l.err
	}
	if p, ok := list.(*hcav1.BurstPolicyList); ok {
		p.Items = l.policies
	}
	return nil
}

// TestExpositionPassesPromtool fills every runtime metric, gathers the
// registry as /metrics would and runs `promtool check metrics` on it
// (Prometheus' own linter: names, units, _total, help).
func TestExpositionPassesPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (scripts/install-deps installs Prometheus, which ships it)")
	}
	reg := prometheus.NewRegistry()
	m := New(reg)
	m.Decisions.WithLabelValues("shop/web", "frss", "scale-up", "metrics").Inc()
	m.Replicas.WithLabelValues("shop/web", "private").Set(8)
	m.EvaluationSeconds.WithLabelValues("Latency").Observe(0.01)
	m.Errors.WithLabelValues("burst", "reconcile").Inc()
	m.ClusterReachable.WithLabelValues("private").Set(1)
	m.NodeRequest("eks", "spot", 2, nil)
	m.NodeRelease("eks", "spot", nil)
	m.CloudCalls.WithLabelValues("EKS", "DescribeNodegroup").Inc()
	m.CloudErrors.WithLabelValues("EKS", "DescribeNodegroup", "ThrottlingException").Inc()
	m.CloudThrottles.WithLabelValues("EKS", "DescribeNodegroup").Inc()
	m.MetricQueries.WithLabelValues("ok").Inc()
	m.BuildInfo.WithLabelValues("dev").Set(1)
	p := hcav1.BurstPolicy{ObjectMeta: metav1ObjectMeta("shop", "web")}
	p.Status.Phase = hcav1.PhaseBursting
	p.Status.Replicas = []hcav1.ClusterReplicas{{Cluster: "eks", Desired: 2, Ready: 2}}
	if err := RegisterStatusCollector(reg, listerOf{policies: []hcav1.BurstPolicy{p}}, nil); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{`hca_burst_phase{phase="Bursting",policy="shop/web"} 1`, `hca_ready_replicas{cluster="eks",policy="shop/web"} 2`, "hca_status_list_errors_total 0"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("exposition lacks %q:\n%s", want, buf.String())
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(buf.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestStatusCollectorStandbyAndListErrors(t *testing.T) {
	p := hcav1.BurstPolicy{ObjectMeta: metav1ObjectMeta("shop", "web")}
	p.Status.Phase = hcav1.PhaseWatching
	tests := []struct {
		name      string
		l         listerOf
		active    bool
		wantPhase int // hca_burst_phase series
		wantErrs  float64
	}{
		{"leader", listerOf{policies: []hcav1.BurstPolicy{p}}, true, 4, 0},
		{"standby exports no state", listerOf{policies: []hcav1.BurstPolicy{p}}, false, 0, 0},
		// Three lists (policies, SLOs, clusters), each failing.
		{"cache fails", listerOf{err: errors.New("cache not synced")}, true, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewStatusCollector(tt.l, func() bool { return tt.active })
			reg := prometheus.NewRegistry()
			reg.MustRegister(c)
			if n, err := testutil.GatherAndCount(reg, "hca_burst_phase"); err != nil || n != tt.wantPhase {
				t.Fatalf("hca_burst_phase series = %d (%v), want %d", n, err, tt.wantPhase)
			}
			if got := testutil.ToFloat64(c.errs); got != tt.wantErrs {
				t.Fatalf("hca_status_list_errors_total = %v, want %v", got, tt.wantErrs)
			}
		})
	}
}

func TestNames(t *testing.T) {
	got := Names()
	for _, want := range []string{"hca_decisions_total", "hca_slo_evaluation_duration_seconds", "hca_burst_phase", "hca_node_group_node_hourly_price_dollars", "hca_status_list_errors_total", "hca_cloud_api_throttles_total", "hca_burst_failovers_total"} {
		if !slices.Contains(got, want) {
			t.Errorf("Names() lacks %s: %v", want, got)
		}
	}
}

func TestRegisterStatusCollectorTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	p := hcav1.BurstPolicy{ObjectMeta: metav1ObjectMeta("shop", "web")}
	p.Status.Phase = hcav1.PhaseWatching
	if err := RegisterStatusCollector(reg, listerOf{err: errors.New("old cache")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := RegisterStatusCollector(reg, listerOf{policies: []hcav1.BurstPolicy{p}}, nil); err != nil {
		t.Fatalf("second registration: %v", err)
	}
	if n, err := testutil.GatherAndCount(reg, "hca_burst_phase"); err != nil || n != 4 {
		t.Fatalf("hca_burst_phase series = %d (%v), want 4 from the second collector", n, err)
	}
}

// batchSource answers InstantMany with one error per expression and records
// the batch sizes it got.
type batchSource struct {
	fakeSource
	errs    []error
	batches []int
}

func (b *batchSource) InstantMany(_ context.Context, exprs []metrics.Expr, _ time.Time) []metrics.Result {
	b.batches = append(b.batches, len(exprs))
	out := make([]metrics.Result, len(exprs))
	for i := range out {
		out[i].Err = b.errs[i]
	}
	return out
}

// A counted BatchSource must stay one: metrics.InstantManyOf would otherwise
// send one query per expression (the SLO loop's batching lost).
func TestCountingSourceKeepsBatching(t *testing.T) {
	m := New(prometheus.NewRegistry())
	src := &batchSource{errs: []error{nil, metrics.ErrNoData, nil}}
	counted := m.CountingSource(src)
	if _, ok := counted.(metrics.BatchSource); !ok {
		t.Fatalf("CountingSource(%T) = %T, not a metrics.BatchSource", src, counted)
	}
	res := metrics.InstantManyOf(context.Background(), counted, []metrics.Expr{metrics.Raw("a"), metrics.Raw("b"), metrics.Raw("c")}, time.Time{})
	if len(res) != 3 || len(src.batches) != 1 || src.batches[0] != 3 {
		t.Fatalf("got %d results in batches %v, want 3 results in one batch of 3", len(res), src.batches)
	}
	if ok, noData := testutil.ToFloat64(m.MetricQueries.WithLabelValues("ok")), testutil.ToFloat64(m.MetricQueries.WithLabelValues("no_data")); ok != 2 || noData != 1 {
		t.Fatalf("counted ok=%v no_data=%v, want 2 and 1 (one per expression)", ok, noData)
	}
	if _, ok := m.CountingSource(fakeSource{}).(metrics.BatchSource); ok {
		t.Fatal("a plain source became a BatchSource")
	}
}

func TestLate(t *testing.T) {
	var nilM *Metrics
	nilM.Late(LoopSLO, time.Second)
	m := New(prometheus.NewRegistry())
	m.Late(LoopSLO, 300*time.Millisecond)
	m.Late(LoopSLO, -time.Second) // started early: counts as on time
	m.Late(LoopBurst, 2*time.Second)
	tests := []struct {
		loop      string
		count     uint64
		sum       float64
		under20ms uint64 // observations in the buckets up to 20 ms
	}{
		{LoopSLO, 2, 0.3, 1},
		{LoopBurst, 1, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.loop, func(t *testing.T) {
			var d dto.Metric
			if err := m.ScheduleLateness.WithLabelValues(tt.loop).(prometheus.Histogram).Write(&d); err != nil {
				t.Fatal(err)
			}
			h := d.GetHistogram()
			if h.GetSampleCount() != tt.count || math.Abs(h.GetSampleSum()-tt.sum) > 1e-9 {
				t.Fatalf("count %d sum %v, want %d and %v", h.GetSampleCount(), h.GetSampleSum(), tt.count, tt.sum)
			}
			if got := h.GetBucket()[1].GetCumulativeCount(); h.GetBucket()[1].GetUpperBound() != 0.02 || got != tt.under20ms {
				t.Fatalf("bucket le=%v holds %d, want le=0.02 holding %d", h.GetBucket()[1].GetUpperBound(), got, tt.under20ms)
			}
		})
	}
}
