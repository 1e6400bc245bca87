package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

const labWindow = 5 * time.Second

// weirdPod is a pod name that exercises label value escaping: quotes, backslashes,
// a newline, non-ASCII and regex metacharacters.
const weirdPod = "we\"ird\\pod\n☃.*"

// labFixture is our exporter scraped by the lab Prometheus, with data at least one
// rate window deep, and a fixed instant to query at.
type labFixture struct {
	prefix string
	job    string
	prom   *Prometheus
	at     time.Time
	calls  *atomic.Int64 // HTTP requests made by prom
}

var labWorkloads = []fakeWorkload{
	{namespace: "shop", pods: []fakePod{
		{name: "web-0", cpuRate: 0.04, cpuRequest: 0.1, rps: 40, errRPS: 2},
		{name: "web-1", cpuRate: 0.06, cpuRequest: 0.2, rps: 60},
		{name: weirdPod, cpuRate: 0.01, cpuRequest: 0.25, rps: 100},
	}},
	{namespace: "nan", pods: []fakePod{
		{name: "a", cpuRate: 0.02, cpuRequest: 0.1, rps: 5},
		{name: "b", cpuRate: 0.02, cpuRequest: 0.1, rps: 5},
	}},
}

type countingTransport struct {
	n  *atomic.Int64
	rt http.RoundTripper
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

func newLabFixture(t *testing.T) *labFixture {
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR")
	sfx := randHex(t)
	f := &labFixture{prefix: "hcat_" + sfx, job: "hca-metrics-test-" + sfx, calls: new(atomic.Int64)}
	c := newWorkloadCollector(f.prefix, labWorkloads)
	c.nanNamespace = "nan"
	serveExporter(t, env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], f.job, c)
	var err error
	f.prom, err = NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"],
		WithTimeout(10*time.Second),
		WithRoundTripper(countingTransport{n: f.calls, rt: http.DefaultTransport}))
	if err != nil {
		t.Fatalf("NewPrometheus: %v", err)
	}
	// Prometheus re-reads file_sd every second and scrapes every second: wait until
	// every pod's series has samples, then one window more.
	pods := 0
	for _, w := range labWorkloads {
		pods += len(w.pods)
	}
	minSamples := int(labWindow/time.Second) - 1 // 1 s scrapes: 4 or 5 samples in 5 s
	waitFor(t, f.prom, Raw(fmt.Sprintf(`count_over_time(%s_cpu_request_cores{job=%q}[%s]) >= %d`,
		f.prefix, f.job, labWindow, minSamples)), pods, 90*time.Second)
	time.Sleep(labWindow) // so that every rate window at f.at is covered by samples
	f.at = time.Now().Add(-500 * time.Millisecond)
	return f
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestLabInstant(t *testing.T) {
	f := newLabFixture(t)
	ctx := context.Background()
	shop := Eq("namespace", "shop")
	req := Query{Metric: f.prefix + "_cpu_request_cores", Filters: []LabelFilter{Eq("job", f.job), shop}}
	hist := Histogram{Metric: f.prefix + "_latency_seconds", Filters: []LabelFilter{shop}, Range: labWindow}

	t.Run("gauge per pod", func(t *testing.T) {
		v, err := f.prom.Instant(ctx, req, f.at)
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.ByLabel("pod")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{"web-0": 0.1, "web-1": 0.2, weirdPod: 0.25}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("requests by pod = %v, want %v", got, want)
		}
		for _, s := range v {
			if s.Labels["job"] != f.job || s.Labels["__name__"] != f.prefix+"_cpu_request_cores" {
				t.Errorf("sample labels %v lack job %s or the metric name", s.Labels, f.job)
			}
			if d := s.Timestamp.Sub(f.at); d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("timestamp %v, want the evaluation time %v", s.Timestamp, f.at)
			}
		}
	})

	tests := []struct {
		name string
		expr Expr
		want map[string]float64 // by pod ("" for an aggregate)
		rel  float64
	}{
		{"sum", Query{Metric: req.Metric, Filters: req.Filters, Aggregation: Sum}, map[string]float64{"": 0.55}, 1e-12},
		{"escaped equality", Query{Metric: req.Metric, Filters: []LabelFilter{Eq("pod", weirdPod)}}, map[string]float64{weirdPod: 0.25}, 0},
		{"escaped regex", Query{Metric: req.Metric, Filters: []LabelFilter{Re("pod", regexp.QuoteMeta(weirdPod)+"|web-0")}},
			map[string]float64{weirdPod: 0.25, "web-0": 0.1}, 0},
		{"not equal", Query{Metric: req.Metric, Filters: []LabelFilter{shop, Ne("pod", "web-0")}}, map[string]float64{"web-1": 0.2, weirdPod: 0.25}, 0},
		{"negative regex", Query{Metric: req.Metric, Filters: []LabelFilter{shop, Nre("pod", "web-.*")}}, map[string]float64{weirdPod: 0.25}, 0},
		{"max_over_time", Query{Metric: req.Metric, Filters: req.Filters, Range: labWindow, Func: MaxOverTime, Aggregation: Max}, map[string]float64{"": 0.25}, 0},
		{"avg_over_time by pod", Query{Metric: req.Metric, Filters: req.Filters, Range: labWindow, Func: AvgOverTime, Aggregation: Avg, By: []string{"pod"}},
			map[string]float64{"web-0": 0.1, "web-1": 0.2, weirdPod: 0.25}, 1e-12},
		{"count", Query{Metric: req.Metric, Filters: req.Filters, Aggregation: Count}, map[string]float64{"": 3}, 0},
		{"cpu rate", Query{Metric: f.prefix + "_cpu_seconds_total", Filters: []LabelFilter{shop}, Range: labWindow, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
			map[string]float64{"web-0": 0.04, "web-1": 0.06, weirdPod: 0.01}, 0.05},
		{"increase", Query{Metric: f.prefix + "_cpu_seconds_total", Filters: []LabelFilter{shop, Eq("pod", "web-1")}, Range: labWindow, Func: Increase, Aggregation: Sum},
			map[string]float64{"": 0.06 * labWindow.Seconds()}, 0.05},
		{"utilisation ratio", Ratio(
			Query{Metric: f.prefix + "_cpu_seconds_total", Filters: []LabelFilter{shop}, Range: labWindow, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
			Query{Metric: req.Metric, Filters: []LabelFilter{shop}, Aggregation: Sum, By: []string{"pod"}}, "pod"),
			map[string]float64{"web-0": 0.4, "web-1": 0.3, weirdPod: 0.04}, 0.05},
		{"utilisation percent", Mul(Div(
			Query{Metric: f.prefix + "_cpu_seconds_total", Filters: []LabelFilter{shop}, Range: labWindow, Func: Rate, Aggregation: Sum},
			Query{Metric: req.Metric, Filters: []LabelFilter{shop}, Aggregation: Sum}), Number(100)),
			map[string]float64{"": 100 * 0.11 / 0.55}, 0.05},
		{"p50", hist.Quantile(0.5), map[string]float64{"": testP50}, 0.03},
		{"p50 by pod", Histogram{Metric: hist.Metric, Filters: hist.Filters, Range: labWindow, By: []string{"pod"}}.Quantile(0.5),
			map[string]float64{"web-0": testP50, "web-1": testP50, weirdPod: testP50}, 0.05},
		{"requests", hist.Requests(), map[string]float64{"": 202}, 0.05},
		{"availability", Ratio(
			Query{Metric: f.prefix + "_requests_total", Filters: []LabelFilter{shop, Nre("code", "5..")}, Range: labWindow, Func: Rate, Aggregation: Sum},
			Query{Metric: f.prefix + "_requests_total", Filters: []LabelFilter{shop}, Range: labWindow, Func: Rate, Aggregation: Sum}),
			map[string]float64{"": 200.0 / 202}, 0.01},
		{"scalar", Mul(Number(6), Number(7)), map[string]float64{"": 42}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := f.prom.Instant(ctx, tt.expr, f.at)
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.ByLabel("pod")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for pod, want := range tt.want {
				if g, ok := got[pod]; !ok || !within(g, want, tt.rel) {
					t.Errorf("pod %q: got %v, want %v (±%v%%); all: %v", pod, g, want, 100*tt.rel, got)
				}
			}
		})
	}

	t.Run("cost efficiency", func(t *testing.T) {
		fastQ, err := hist.FastRequests(0.25)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := Scalar(ctx, f.prom, fastQ, f.at)
		if err != nil {
			t.Fatal(err)
		}
		total, err := Scalar(ctx, f.prom, hist.Requests(), f.at)
		if err != nil {
			t.Fatal(err)
		}
		cost, err := TotalCost([]Placement{
			{Cluster: "private", Prices: Prices{PerVCPUHour: 0.02, PerGiBHour: 0.003}, PerPod: Requests{CPUCores: 0.1, MemoryGiB: 0.25}, Replicas: 2},
			{Cluster: "eks", Prices: Prices{PerVCPUHour: 0.04, PerGiBHour: 0.005}, PerPod: Requests{CPUCores: 0.1, MemoryGiB: 0.25}, Replicas: 1},
		})
		if err != nil {
			t.Fatal(err)
		}
		eff, err := CostEfficiency(fast, total, cost)
		if err != nil {
			t.Fatal(err)
		}
		wantCost := 2*(0.1*0.02+0.25*0.003) + (0.1*0.04 + 0.25*0.005)
		if !within(eff.CostPerHour, wantCost, 1e-12) {
			t.Errorf("cost per hour %v, want %v", eff.CostPerHour, wantCost)
		}
		// 90 % of the shop's 202 req/s are at or below 250 ms.
		if !within(eff.FastShare, 0.9, 0.01) || !within(eff.CostEfficiency, 0.9*202/wantCost, 0.05) {
			t.Errorf("efficiency %+v, want share 0.9 and %v fast req/s per cost-hour", eff, 0.9*202/wantCost)
		}
	})

	t.Run("no data", func(t *testing.T) {
		for _, e := range []Expr{
			Query{Metric: f.prefix + "_does_not_exist"},
			Query{Metric: req.Metric, Filters: []LabelFilter{Eq("namespace", "ghost")}, Aggregation: Sum},
		} {
			v, err := f.prom.Instant(ctx, e, f.at)
			if !errors.Is(err, ErrNoData) || v != nil {
				t.Fatalf("got %v, %v; want ErrNoData", v, err)
			}
			q, _ := e.PromQL()
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Query != q || !strings.Contains(err.Error(), f.prom.String()) {
				t.Errorf("error %q does not name the source and query %s", err, q)
			}
		}
	})

	t.Run("NaN scalar", func(t *testing.T) {
		v, err := f.prom.Instant(ctx, Div(Number(0), Number(0)), f.at)
		var qe *QueryError
		if !errors.Is(err, ErrNaN) || !errors.As(err, &qe) || v != nil {
			t.Fatalf("0/0: got %v, %v; want ErrNaN", v, err)
		}
		if len(qe.Vector) != 1 || !math.IsNaN(qe.Vector[0].Value) {
			t.Errorf("error carries %v, want one NaN sample", qe.Vector)
		}
	})

	t.Run("NaN in one series", func(t *testing.T) {
		_, err := f.prom.Instant(ctx, Query{Metric: f.prefix + "_ratio", Filters: []LabelFilter{Eq("namespace", "nan")}}, f.at)
		var qe *QueryError
		if !errors.Is(err, ErrNaN) || !errors.As(err, &qe) {
			t.Fatalf("got %v, want ErrNaN", err)
		}
		byPod := map[string]float64{}
		for _, s := range qe.Vector {
			byPod[s.Labels["pod"]] = s.Value
		}
		if len(byPod) != 2 || byPod["a"] != 0.5 || !math.IsNaN(byPod["b"]) {
			t.Errorf("error carries %v, want a=0.5 and b=NaN", byPod)
		}
		if !strings.Contains(err.Error(), "1 of 2 samples") {
			t.Errorf("error %q does not count the NaN samples", err)
		}
		// The finite namespace is fine.
		if v, err := f.prom.Instant(ctx, Query{Metric: f.prefix + "_ratio", Filters: []LabelFilter{shop}, Aggregation: Sum}, f.at); err != nil || v[0].Value != 1.5 {
			t.Errorf("shop ratio: %v, %v; want 1.5", v, err)
		}
	})

	t.Run("bad queries", func(t *testing.T) {
		for _, tt := range []struct {
			expr Expr
			msg  string
		}{
			{Raw("sum("), "bad_data"},
			{Raw(req.Metric + "[10s]"), "range vector"},
			{Raw(`"text"`), "string"},
			{Query{Metric: "bad-name"}, "Metric"},
			{nil, "nil"},
		} {
			_, err := f.prom.Instant(ctx, tt.expr, f.at)
			if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%v: got %v, want ErrBadQuery mentioning %q", tt.expr, err, tt.msg)
			}
		}
		var apiErr *promv1.Error
		_, err := f.prom.Instant(ctx, Raw("sum("), f.at)
		if !errors.As(err, &apiErr) || apiErr.Type != promv1.ErrBadData {
			t.Errorf("cause of %v is not a bad_data API error", err)
		}
	})
}

// errKind names the outcome of an error.
func errKind(err error) string {
	for _, k := range []error{ErrNoData, ErrNaN, ErrBadQuery, ErrUnavailable} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return "ok"
}

// canon renders a vector in a canonical order with exact values.
func canon(v Vector) string {
	lines := make([]string, len(v))
	for i, s := range v {
		lines[i] = fmt.Sprintf("%s %b @%d", formatLabels(s.Labels), s.Value, s.Timestamp.UnixMilli())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestLabInstantMany(t *testing.T) {
	f := newLabFixture(t)
	ctx := context.Background()
	var exprs []Expr
	for _, ns := range []string{"shop", "nan", "ghost"} {
		sel := []LabelFilter{Eq("namespace", ns)}
		h := Histogram{Metric: f.prefix + "_latency_seconds", Filters: sel, Range: labWindow}
		fast, _ := h.FastRequests(0.25)
		exprs = append(exprs,
			Query{Metric: f.prefix + "_cpu_request_cores", Filters: sel},
			Query{Metric: f.prefix + "_cpu_request_cores", Filters: sel, Aggregation: Sum},
			Ratio(
				Query{Metric: f.prefix + "_cpu_seconds_total", Filters: sel, Range: labWindow, Func: Rate, Aggregation: Sum, By: []string{"pod"}},
				Query{Metric: f.prefix + "_cpu_request_cores", Filters: sel, Aggregation: Sum, By: []string{"pod"}}, "pod"),
			h.Quantile(0.5),
			Histogram{Metric: h.Metric, Filters: sel, Range: labWindow, By: []string{"pod"}}.Quantile(0.9),
			fast,
			h.Requests(),
			Query{Metric: f.prefix + "_ratio", Filters: sel},
			Div(Query{Metric: f.prefix + "_cpu_request_cores", Filters: sel, Aggregation: Max, By: []string{"namespace"}}, Number(2)),
		)
	}
	exprs = append(exprs,
		exprs[2], exprs[11], // duplicates
		Div(Number(0), Number(0)),
		Raw(fmt.Sprintf(`sum(%s_cpu_request_cores{namespace="shop"})`, f.prefix)),
		Raw("sum("),
		Query{Metric: "bad-name"},
		Query{Metric: f.prefix + "_cpu_request_cores", Filters: []LabelFilter{Eq("pod", weirdPod)}},
		Query{Metric: f.prefix + "_cpu_request_cores", Filters: []LabelFilter{Eq("pod", "web-0")}},
	)
	// Workloads in different namespaces (namespace and pod both vary): merged
	// on both labels; the series of pairs nobody asked for (shop's web-1 for
	// the nan namespace's member) must not leak into a member.
	pairs := len(exprs)
	for _, np := range [][2]string{{"shop", "web-0"}, {"nan", "a"}, {"ghost", "web-0"}, {"nan", "web-1"}} {
		sel := []LabelFilter{Eq("namespace", np[0]), Eq("pod", np[1])}
		exprs = append(exprs,
			Query{Metric: f.prefix + "_cpu_request_cores", Filters: sel},
			Query{Metric: f.prefix + "_cpu_request_cores", Filters: sel, Aggregation: Sum})
	}

	before := f.calls.Load()
	batch := f.prom.InstantMany(ctx, exprs, f.at)
	sent := f.calls.Load() - before
	plan := PlanBatches(exprs, DefaultMaxBatch)
	if int(sent) != len(plan.Requests) {
		t.Errorf("InstantMany sent %d HTTP requests, the plan has %d", sent, len(plan.Requests))
	}
	if len(plan.Requests) >= len(exprs)/2 {
		t.Errorf("%d expressions planned as %d requests: batching did not merge", len(exprs), len(plan.Requests))
	}
	t.Logf("%d expressions -> %d HTTP requests", len(exprs), sent)

	for i, e := range exprs {
		q, _ := promqlOf(e)
		v, err := f.prom.Instant(ctx, e, f.at)
		b := batch[i]
		if errKind(err) != errKind(b.Err) {
			t.Errorf("[%d] %s: alone %s (%v), batched %s (%v)", i, q, errKind(err), err, errKind(b.Err), b.Err)
			continue
		}
		if err == nil && canon(v) != canon(b.Vector) {
			t.Errorf("[%d] %s:\n alone:\n%s\n batched:\n%s", i, q, canon(v), canon(b.Vector))
		}
		var qa, qb *QueryError
		if errors.Is(err, ErrNaN) && errors.As(err, &qa) && errors.As(b.Err, &qb) && canon(qa.Vector) != canon(qb.Vector) {
			t.Errorf("[%d] %s: NaN vectors differ:\n%s\n%s", i, q, canon(qa.Vector), canon(qb.Vector))
		}
		if err != nil && b.Err.Error() != err.Error() && errKind(err) != ErrBadQuery.Error() {
			t.Errorf("[%d] messages differ:\n alone:   %v\n batched: %v", i, err, b.Err)
		}
	}
	// Spot checks that the comparison compared something: the merged
	// query returned shop's web-1, which belongs to no member.
	if errKind(batch[pairs].Err) != "ok" || len(batch[pairs].Vector) != 1 || errKind(batch[pairs+2].Err) != "ok" ||
		errKind(batch[pairs+6].Err) != ErrNoData.Error() {
		t.Errorf("shop/web-0: %v; nan/a: %v; nan/web-1: %v (want no data)", batch[pairs], batch[pairs+2], batch[pairs+6].Err)
	}
	if r := plan.Requests; !slices.ContainsFunc(r, func(q BatchRequest) bool { return len(q.Labels) == 2 }) {
		t.Errorf("no request merged on two labels: %v", describe(plan))
	}
	if errKind(batch[0].Err) != "ok" || len(batch[0].Vector) != 3 {
		t.Errorf("shop requests: %v", batch[0])
	}
	if errKind(batch[18].Err) != ErrNoData.Error() || errKind(batch[16].Err) != ErrNaN.Error() {
		t.Errorf("ghost: %v; nan ratio: %v", batch[18].Err, batch[16].Err)
	}
}

// promqlOf renders e, or describes why it does not render.
func promqlOf(e Expr) (string, error) {
	if deref(e) == nil {
		return "<nil>", errors.New("nil")
	}
	return e.PromQL()
}

// TestLabConnectionsReused: queries in flight together, asked again and
// again, reuse their connections to Prometheus (NewTransport) instead of
// dialling new ones: three rounds of 16 concurrent queries open at most 16.
// With net/http's default of 2 idle connections per host, rounds two and
// three dialled again, about 14 each.
func TestLabConnectionsReused(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL")
	var dials atomic.Int64
	tr := NewTransport()
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return dial(ctx, network, addr)
	}
	prom, err := NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"], WithRoundTripper(tr))
	if err != nil {
		t.Fatal(err)
	}
	const inFlight, rounds = 16, 3
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, inFlight)
		for i := range inFlight {
			wg.Go(func() {
				// Each query a little different, none cached by Prometheus.
				if _, err := prom.Instant(context.Background(), Raw(fmt.Sprintf("vector(%d)", round*inFlight+i)), time.Time{}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round+1, err)
		}
	}
	if n := dials.Load(); n > inFlight {
		t.Errorf("%d rounds of %d concurrent queries dialled %d connections, want at most %d (one per query in flight)", rounds, inFlight, n, inFlight)
	} else {
		t.Logf("%d rounds of %d concurrent queries dialled %d connections", rounds, inFlight, n)
	}
}

// answerRecorder records whether each answer came compressed (net/http sets
// Uncompressed when it asked for gzip and decompressed the body itself).
type answerRecorder struct {
	rt         http.RoundTripper
	answers    atomic.Int64
	compressed atomic.Int64
}

func (a *answerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.rt.RoundTrip(req)
	if err == nil {
		a.answers.Add(1)
		if resp.Uncompressed || resp.Header.Get("Content-Encoding") != "" {
			a.compressed.Add(1)
		}
	}
	return resp, err
}

// TestLabAnswersUncompressed: the lab Prometheus compresses its answers when
// asked to; the runtime's transport does not ask (NewTransport).
func TestLabAnswersUncompressed(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PROMETHEUS_URL")
	rec := &answerRecorder{rt: NewTransport()}
	prom, err := NewPrometheus(env["HCA_LAB_PROMETHEUS_URL"], WithRoundTripper(rec))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`up`, `vector(1)`} {
		if _, err := prom.Instant(context.Background(), Raw(q), time.Time{}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n, c := rec.answers.Load(), rec.compressed.Load(); n == 0 || c != 0 {
		t.Errorf("%d of %d answers came compressed, want none of at least one", c, n)
	}
}
