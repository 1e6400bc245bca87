package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Defaults of [NewPrometheus]. DefaultConcurrency is below Prometheus' own
// --query.max-concurrency (20), leaving room for other clients. It was 4: in
// a make bench-load run the SLO cycle (about 730 requests, 500 of them custom
// SLOs' queries that are never merged) outlasted the 30 s batch timeout and
// 195 custom SLOs failed every cycle; the next run at 8 still had timeouts
// (the benchmarks guide), so the right figure is not measured yet.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 8
	DefaultMaxBatch    = 256
)

// TransportIdleConns is how many idle connections to Prometheus
// [NewTransport] keeps: more than the queries the runtime has in flight (8
// of the SLO loop, one per BurstPolicy worker, 32 by default), so that each
// finds a connection to reuse.
const TransportIdleConns = 64

// NewTransport is the HTTP transport of a Prometheus source without
// [WithRoundTripper]: client_golang's api.DefaultRoundTripper (proxy from the
// environment, 30 s dial timeout and keep-alive, 10 s TLS handshake) with
// [TransportIdleConns] idle connections per host instead of net/http's 2.
// With 2, every query beyond the second in flight closed its connection
// after use and the next dialled a new one: make bench-load measured about
// 46 new connections a second to the lab Prometheus, 4 % of the runtime's
// allocations and their garbage collection (TestLabConnectionsReused).
//
// Answers come uncompressed (DisableCompression): the runtime reads a
// Prometheus in or next to its cluster, where a gzip-compressed answer saves
// no time and costs both ends CPU; in the runtime it cost 3 % of the CPU and
// a 4 kB reader per answer, 42 MB of allocations a minute and a half at
// make bench-load's scale (TestLabAnswersUncompressed).
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConns:        TransportIdleConns,
		MaxIdleConnsPerHost: TransportIdleConns,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
		DisableCompression:  true,
	}
}

// Prometheus is a [Source] (and [BatchSource]) backed by the Prometheus HTTP API
// through client_golang's api/prometheus/v1. It is safe for concurrent use.
type Prometheus struct {
	api         promv1.API
	name        string
	timeout     time.Duration
	logger      *slog.Logger
	concurrency int
	maxBatch    int
	// plans are the batch plans of the lists of expressions asked last
	// (InstantMany).
	plans *planCache
}

var _ BatchSource = (*Prometheus)(nil)

type promOptions struct {
	timeout     time.Duration
	logger      *slog.Logger
	rt          http.RoundTripper
	concurrency int
	maxBatch    int
}

// Option configures [NewPrometheus].
type Option func(*promOptions) error

// WithTimeout bounds each HTTP query (default [DefaultTimeout]); Prometheus is also
// told to stop evaluating after it. A query that runs out of time is
// [ErrUnavailable] and matches context.DeadlineExceeded.
func WithTimeout(d time.Duration) Option {
	return func(o *promOptions) error {
		if d <= 0 {
			return fmt.Errorf("timeout %v must be positive, e.g. 10s", d)
		}
		o.timeout = d
		return nil
	}
}

// WithLogger receives query warnings from Prometheus (default: slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *promOptions) error {
		if l == nil {
			return errors.New("logger is nil")
		}
		o.logger = l
		return nil
	}
}

// WithRoundTripper sets the HTTP transport (TLS, authentication); default
// [NewTransport].
func WithRoundTripper(rt http.RoundTripper) Option {
	return func(o *promOptions) error {
		if rt == nil {
			return errors.New("round tripper is nil")
		}
		o.rt = rt
		return nil
	}
}

// WithConcurrency bounds the queries [Prometheus.InstantMany] has in flight
// (default [DefaultConcurrency]).
func WithConcurrency(n int) Option {
	return func(o *promOptions) error {
		if n < 1 {
			return fmt.Errorf("concurrency %d must be at least 1", n)
		}
		o.concurrency = n
		return nil
	}
}

// WithMaxBatch bounds how many queries [Prometheus.InstantMany] merges into one
// (default [DefaultMaxBatch]); 1 disables merging (duplicates are still sent once).
func WithMaxBatch(n int) Option {
	return func(o *promOptions) error {
		if n < 1 {
			return fmt.Errorf("max batch %d must be at least 1 (1 disables merging)", n)
		}
		o.maxBatch = n
		return nil
	}
}

// NewPrometheus returns a source querying the Prometheus server at rawURL (e.g.
// http://prometheus:9090, or with a path prefix). Credentials in the URL are used for
// basic authentication and never appear in errors or logs.
func NewPrometheus(rawURL string, opts ...Option) (*Prometheus, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error would repeat the URL, credentials included
		}
		return nil, fmt.Errorf("prometheus URL is not a valid URL (%v): use e.g. http://prometheus:9090", err)
	}
	name := "prometheus " + redact(u)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("prometheus URL %s: scheme %q is not http or https: use e.g. http://prometheus:9090", redact(u), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("prometheus URL %s has no host: use e.g. http://prometheus:9090", redact(u))
	}
	o := promOptions{timeout: DefaultTimeout, concurrency: DefaultConcurrency, maxBatch: DefaultMaxBatch}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("prometheus source: %w", err)
		}
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if o.rt == nil {
		o.rt = NewTransport()
	}
	client, err := promapi.NewClient(promapi.Config{Address: rawURL, RoundTripper: o.rt})
	if err != nil {
		return nil, fmt.Errorf("prometheus client for %s: %w", redact(u), err)
	}
	return &Prometheus{
		api:         promv1.NewAPI(client),
		name:        name,
		timeout:     o.timeout,
		logger:      o.logger,
		concurrency: o.concurrency,
		maxBatch:    o.maxBatch,
		plans:       &planCache{},
	}, nil
}

// redact renders u without user information, query or fragment.
func redact(u *url.URL) string {
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return r.String()
}

// String names the source ("prometheus http://host:port"), without credentials.
func (p *Prometheus) String() string { return p.name }

// Instant implements [Source]. Warnings are logged.
func (p *Prometheus) Instant(ctx context.Context, q Expr, at time.Time) (Vector, error) {
	v, _, err := p.Query(ctx, q, at)
	return v, err
}

// Query is [Prometheus.Instant] that also returns the warnings Prometheus attached to
// the answer (they are logged as well).
func (p *Prometheus) Query(ctx context.Context, q Expr, at time.Time) (Vector, []string, error) {
	if q = deref(q); q == nil {
		return nil, nil, &QueryError{Source: p.name, Kind: ErrBadQuery, Err: fieldErr("Expr", "expression is nil")}
	}
	s, err := q.PromQL()
	if err != nil {
		return nil, nil, &QueryError{Source: p.name, Kind: ErrBadQuery, Err: err}
	}
	v, warnings, err := p.do(ctx, s, at)
	if err != nil {
		return nil, warnings, err
	}
	v, err = check(p.name, s, v)
	return v, warnings, err
}

// do runs one HTTP query and converts its result; it does not apply the outcome
// rules (see check).
func (p *Prometheus) do(ctx context.Context, query string, at time.Time) (Vector, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	val, warnings, _, err := p.api.Query(ctx, query, at, promv1.WithTimeout(p.timeout))
	if len(warnings) > 0 {
		p.logger.Warn("prometheus query warnings", "source", p.name, "query", query, "warnings", []string(warnings))
	}
	if err != nil {
		kind := classify(err)
		var ue *url.Error
		if errors.As(err, &ue) {
			// net/http masks a password in the URL but not a token in its
			// query string: show the URL as redact does.
			shown := "(URL not shown)"
			if u, perr := url.Parse(ue.URL); perr == nil {
				shown = redact(u)
			}
			err = &url.Error{Op: ue.Op, URL: shown, Err: ue.Err}
		}
		var apiErr *promv1.Error
		if errors.As(err, &apiErr) && apiErr.Detail != "" {
			// A non-API answer (a proxy's or a starting server's): its body
			// usually says why.
			err = fmt.Errorf("%w (response: %s)", err, excerpt(apiErr.Detail, 200))
		}
		return nil, warnings, &QueryError{Source: p.name, Query: query, Kind: kind, Err: err}
	}
	v, err := toVector(val)
	if err != nil {
		return nil, warnings, &QueryError{Source: p.name, Query: query, Kind: ErrBadQuery, Err: err}
	}
	return v, warnings, nil
}

// classify maps a client_golang error to an outcome: Prometheus refusing the query
// (bad_data, or an execution error such as too many samples) is ErrBadQuery;
// everything else (transport, timeout, cancellation, 5xx, unexpected status) is
// ErrUnavailable.
func classify(err error) error {
	var apiErr *promv1.Error
	if errors.As(err, &apiErr) {
		switch apiErr.Type {
		case promv1.ErrBadData, promv1.ErrExec:
			return ErrBadQuery
		case promv1.ErrBadResponse:
			// client_golang cannot decode a string result (a query such as
			// `"text"`): the query is at fault, not the server.
			if strings.Contains(apiErr.Msg, `unexpected value type "string"`) {
				return ErrBadQuery
			}
		}
	}
	return ErrUnavailable
}

// excerpt returns s on one line, cut to at most n bytes (at a rune boundary).
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

func toVector(val model.Value) (Vector, error) {
	switch v := val.(type) {
	case model.Vector:
		out := make(Vector, len(v))
		for i, s := range v {
			if s.Histogram != nil {
				return nil, fmt.Errorf("series %s is a native histogram: wrap it in histogram_quantile or histogram_sum", s.Metric)
			}
			labels := make(map[string]string, len(s.Metric))
			for k, lv := range s.Metric {
				labels[string(k)] = string(lv)
			}
			out[i] = Sample{Labels: labels, Value: float64(s.Value), Timestamp: s.Timestamp.Time()}
		}
		return out, nil
	case *model.Scalar:
		return Vector{{Labels: map[string]string{}, Value: float64(v.Value), Timestamp: v.Timestamp.Time()}}, nil
	case model.Matrix:
		return nil, errors.New("the result is a range vector: apply a function such as rate to the range selector")
	case *model.String:
		return nil, errors.New("the result is a string, not a number")
	case nil:
		return nil, errors.New("the response holds no result")
	default:
		return nil, fmt.Errorf("unexpected result type %s", val.Type())
	}
}
