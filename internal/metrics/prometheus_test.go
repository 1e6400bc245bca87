package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// closedPortURL returns a loopback URL on which nothing listens.
func closedPortURL(t *testing.T) (host string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host = ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return host
}

// recorder collects what a handler saw, safely across goroutines.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.seen = append(r.seen, s); r.mu.Unlock() }

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}

// serve runs h on a loopback listener for the test's duration and returns its URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestPrometheusUnavailable(t *testing.T) {
	host := closedPortURL(t)
	p, err := NewPrometheus("http://hca:s3cret-token@" + host + "/prom?token=s3cret-token")
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Metric: "up", Aggregation: Sum}
	_, err = p.Instant(context.Background(), q, time.Time{})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error %v does not carry the connection refusal", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "prometheus http://"+host+"/prom") || !strings.Contains(msg, "sum(up)") {
		t.Errorf("error %q does not name the source URL and the query", msg)
	}
	if strings.Contains(msg, "s3cret") {
		t.Errorf("error %q leaks the credentials", msg)
	}
	if p.String() != "prometheus http://"+host+"/prom" {
		t.Errorf("String() = %q", p.String())
	}

	// A batch fails every member with the same outcome.
	res := p.InstantMany(context.Background(), []Expr{
		Query{Metric: "up", Filters: []LabelFilter{Eq("job", "a")}},
		Query{Metric: "up", Filters: []LabelFilter{Eq("job", "b")}},
		Query{Metric: "down"},
	}, time.Time{})
	for i, r := range res {
		if !errors.Is(r.Err, ErrUnavailable) || r.Vector != nil || strings.Contains(r.Err.Error(), "s3cret") {
			t.Errorf("result %d: %v", i, r.Err)
		}
	}
	if !strings.Contains(res[1].Err.Error(), `query up{job="b"}`) {
		t.Errorf("batched error %q does not name its own query", res[1].Err)
	}
}

func TestPrometheusTimeout(t *testing.T) {
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers before the client gives up
	}))
	p, err := NewPrometheus(url, WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Instant(context.Background(), Query{Metric: "up"}, time.Time{})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want ErrUnavailable wrapping context.DeadlineExceeded", err)
	}
}

// TestPrometheusResponses feeds the adapter answers the lab's Prometheus 2.42 cannot
// produce on demand: warnings (from remote-read partial failures) and a proxy's
// non-JSON gateway error. The bodies follow the documented HTTP API format.
func TestPrometheusResponses(t *testing.T) {
	const ok = `{"status":"success","warnings":["remote read partially failed"],"data":{"resultType":"vector","result":[` +
		`{"metric":{"pod":"a","namespace":"x"},"value":[1700000000.5,"2"]},` +
		`{"metric":{"pod":"b","namespace":"y"},"value":[1700000000.5,"3"]}]}}`
	tests := []struct {
		name   string
		status int
		body   string
		kind   error
		msg    string
	}{
		{"warnings", 200, ok, nil, ""},
		{"gateway error", 502, "<html>bad gateway</html>", ErrUnavailable, "server_error"},
		{"server error", 503, `{"status":"error","errorType":"unavailable","error":"tsdb not ready"}`, ErrUnavailable, "tsdb not ready"},
		{"execution error", 422, `{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory"}`, ErrBadQuery, "too many samples"},
		{"not json", 200, `hello`, ErrUnavailable, "bad_response"},
		{"matrix", 200, `{"status":"success","data":{"resultType":"matrix","result":[]}}`, ErrBadQuery, "range vector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				rec.add(r.URL.Path + " " + r.Form.Get("query") + " " + r.Form.Get("time"))
				if tt.status != 200 {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			var logs bytes.Buffer
			p, err := NewPrometheus(url+"/", WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), WithConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			at := time.Unix(1700000000, 500e6)
			v, warnings, err := p.Query(context.Background(), Query{Metric: "up"}, at)
			if tt.kind != nil {
				if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("got %v, want %v mentioning %q", err, tt.kind, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if requests := rec.take(); len(requests) != 1 || requests[0] != "/api/v1/query up 1700000000.5" {
				t.Errorf("requests %q", requests)
			}
			if len(v) != 2 || v[0].Value != 2 || v[1].Labels["pod"] != "b" || !v[0].Timestamp.Equal(at) {
				t.Errorf("vector %+v", v)
			}
			if len(warnings) != 1 || warnings[0] != "remote read partially failed" {
				t.Errorf("warnings %q", warnings)
			}
			if !strings.Contains(logs.String(), "remote read partially failed") || !strings.Contains(logs.String(), "query=up") {
				t.Errorf("warning not logged with its query: %s", logs.String())
			}
			// Batched: the answer is split by namespace and carries the warnings.
			res := p.InstantMany(context.Background(), []Expr{
				Query{Metric: "up", Filters: []LabelFilter{Eq("namespace", "x")}, Aggregation: Sum},
				Query{Metric: "up", Filters: []LabelFilter{Eq("namespace", "y")}, Aggregation: Sum},
				Query{Metric: "up", Filters: []LabelFilter{Eq("namespace", "z")}, Aggregation: Sum},
			}, at)
			if requests := rec.take(); len(requests) != 1 || requests[0] != `/api/v1/query sum by (namespace) (up{namespace=~"x|y|z"}) 1700000000.5` {
				t.Errorf("requests %q", requests)
			}
			if res[0].Err != nil || len(res[0].Vector) != 1 || res[0].Vector[0].Value != 2 || res[0].Vector[0].Labels["namespace"] != "" {
				t.Errorf("x: %+v", res[0])
			}
			if res[1].Err != nil || res[1].Vector[0].Value != 3 || len(res[1].Warnings) != 1 {
				t.Errorf("y: %+v", res[1])
			}
			if !errors.Is(res[2].Err, ErrNoData) {
				t.Errorf("z: %+v, want ErrNoData", res[2])
			}
		})
	}
}

// TestInstantManyFallback: a merged query rejected as bad is retried member by member,
// so the good members still get their values.
func TestInstantManyFallback(t *testing.T) {
	var rec recorder
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		q := r.Form.Get("query")
		rec.add(q)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(q, "=~"), strings.Contains(q, `"bad"`):
			w.WriteHeader(422)
			fmt.Fprint(w, `{"status":"error","errorType":"execution","error":"too many samples"}`)
		default:
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"7"]}]}}`)
		}
	}))
	p, err := NewPrometheus(url, WithConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	res := p.InstantMany(context.Background(), []Expr{
		Query{Metric: "up", Filters: []LabelFilter{Eq("ns", "good")}, Aggregation: Sum},
		Query{Metric: "up", Filters: []LabelFilter{Eq("ns", "bad")}, Aggregation: Sum},
	}, time.Unix(1, 0))
	want := []string{`sum by (ns) (up{ns=~"good|bad"})`, `sum(up{ns="good"})`, `sum(up{ns="bad"})`}
	if requests := rec.take(); strings.Join(requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(requests, "\n"), strings.Join(want, "\n"))
	}
	if res[0].Err != nil || res[0].Vector[0].Value != 7 {
		t.Errorf("good: %+v", res[0])
	}
	if !errors.Is(res[1].Err, ErrBadQuery) || !strings.Contains(res[1].Err.Error(), `sum(up{ns="bad"})`) {
		t.Errorf("bad: %v", res[1].Err)
	}
}

func TestNewPrometheusErrors(t *testing.T) {
	tests := []struct {
		name string
		url  string
		opts []Option
		msg  string
	}{
		{"empty", "", nil, `scheme "" is not http or https`},
		{"no scheme", "prometheus:9090", nil, `scheme "prometheus" is not http or https`},
		{"ftp", "ftp://prom", nil, `scheme "ftp"`},
		{"no host", "http:///api", nil, "has no host"},
		{"unparsable", "http://user:s3cret@[::1", nil, "not a valid URL"},
		{"bad escape", "http://user:s3cret@host/%zz", nil, "not a valid URL"},
		{"timeout", "http://p", []Option{WithTimeout(0)}, "timeout 0s must be positive"},
		{"concurrency", "http://p", []Option{WithConcurrency(0)}, "concurrency 0 must be at least 1"},
		{"batch", "http://p", []Option{WithMaxBatch(-1)}, "max batch -1 must be at least 1"},
		{"logger", "http://p", []Option{WithLogger(nil)}, "logger is nil"},
		{"transport", "http://p", []Option{WithRoundTripper(nil)}, "round tripper is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPrometheus(tt.url, tt.opts...)
			if err == nil {
				t.Fatalf("NewPrometheus(%q) = %v, want an error", tt.url, p)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q leaks the password", err)
			}
		})
	}
}

func TestVectorHelpers(t *testing.T) {
	v := Vector{{Labels: map[string]string{"pod": "a"}, Value: 1}, {Labels: map[string]string{"pod": "b"}, Value: 2}}
	if _, err := v.Value(); !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), "got 2") {
		t.Errorf("Value of 2 samples: %v", err)
	}
	if _, err := (Vector{}).Value(); !errors.Is(err, ErrNoData) {
		t.Errorf("Value of none: %v", err)
	}
	if x, err := v[:1].Value(); err != nil || x != 1 {
		t.Errorf("Value of one: %v, %v", x, err)
	}
	m, err := v.ByLabel("pod")
	if err != nil || m["a"] != 1 || m["b"] != 2 {
		t.Errorf("ByLabel: %v, %v", m, err)
	}
	if _, err := v.ByLabel("namespace"); !errors.Is(err, ErrBadQuery) {
		t.Errorf("ByLabel on a missing label: %v", err)
	}
}

// onlySource hides InstantMany, as a Source without batching would.
type onlySource struct{ Source }

func TestInstantManyOf(t *testing.T) {
	var rec recorder
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		rec.add(r.Form.Get("query"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"ns":"a"},"value":[1,"1"]},{"metric":{"ns":"b"},"value":[1,"2"]}]}}`)
	}))
	p, err := NewPrometheus(url, WithConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	exprs := []Expr{
		Query{Metric: "up", Filters: []LabelFilter{Eq("ns", "a")}, Aggregation: Sum},
		Query{Metric: "up", Filters: []LabelFilter{Eq("ns", "b")}, Aggregation: Sum},
	}
	for _, tt := range []struct {
		name string
		src  Source
		want []string
	}{
		{"batch source", p, []string{`sum by (ns) (up{ns=~"a|b"})`}},
		{"plain source", onlySource{p}, []string{`sum(up{ns="a"})`, `sum(up{ns="b"})`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := InstantManyOf(context.Background(), tt.src, exprs, time.Unix(1, 0))
			if got := rec.take(); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("requests %q, want %q", got, tt.want)
			}
			if len(res) != 2 || res[0].Err != nil || res[1].Err != nil {
				t.Fatalf("results %+v", res)
			}
			// The handler answers both namespaces to every query; only the
			// batched split keeps each query's own namespace.
			if tt.name == "batch source" && (len(res[0].Vector) != 1 || res[0].Vector[0].Value != 1 || res[1].Vector[0].Value != 2) {
				t.Errorf("split results %+v", res)
			}
		})
	}
}
