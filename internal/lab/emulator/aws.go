package emulator

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// AWSOptions configures the AWS emulator.
type AWSOptions struct {
	// BaseURL is the URL clients reach the emulator at ("http://127.0.0.1:PORT"),
	// used as EKS and STS endpoint. Lab clusters send bearer tokens to
	// BaseURL + "/authenticate/<cluster>", and tokens must be presigned for it.
	BaseURL string
	// Now is the clock (time.Now when nil). It stamps resources and decides when
	// signatures and tokens have expired.
	Now func() time.Time
	// Logger receives one line per failed background operation (discarded when nil).
	Logger *slog.Logger
	// OperationTimeout bounds each lab operation (cluster creation, node pool
	// resize, deletion); 5 minutes when zero.
	OperationTimeout time.Duration
	// NodeBootDelay is how long each node a node group asks for takes to become
	// a Ready node: DefaultNodeBootDelay when zero, none when negative.
	NodeBootDelay time.Duration
	// SpotNotice is the interruption notice of a spot node (DefaultSpotNotice
	// when zero, none when negative).
	SpotNotice time.Duration
	// VCPUQuota is the account's vCPU limit per capacity type ("ON_DEMAND",
	// "SPOT"); absent or 0: unlimited. See SetVCPUQuota.
	VCPUQuota map[string]int
	// OIDCProviders are the account's IAM OIDC identity providers, trusted by
	// AssumeRoleWithWebIdentity (none when empty: every web identity is refused).
	OIDCProviders []OIDCProvider
	// OIDCRootCAs are the CAs trusted when fetching the OIDC providers'
	// discovery documents and JWKS over HTTPS (nil: the system's roots).
	OIDCRootCAs *x509.CertPool
	// PodStartupDelay keeps the pods of the clusters it creates Pending for
	// this long once bound (none when zero); see lab.ClusterSpec.
	PodStartupDelay time.Duration
}

// AWS emulates the EKS, STS and (TerminateInstanceInAutoScalingGroup only)
// Auto Scaling APIs and the EKS token authenticator on one base URL. Every EKS cluster is a real lab cluster; node groups are kwok node pools.
// State lives in memory. Close stops background operations.
type AWS struct {
	clusters Clusters
	base     *url.URL
	now      func() time.Time
	log      *slog.Logger
	opTTL    time.Duration
	podDelay time.Duration
	mux      *http.ServeMux
	labFaults

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	eks  map[string]*eksClusterState // by EKS cluster name
	lab  map[string]string           // lab cluster name -> EKS cluster name
	upds map[string]*eksUpdateState  // by update id

	oidcProviders []OIDCProvider
	jwks          jwksCache
	sessions      map[string]*stsSession // temporary credentials by access key id
}

// NewAWS returns the emulator. clusters starts the real lab clusters behind EKS
// clusters; opts.BaseURL must be the URL the handler is served at.
func NewAWS(clusters Clusters, opts AWSOptions) (*AWS, error) {
	if clusters == nil {
		return nil, errors.New("aws emulator: clusters is nil: pass the lab's cluster manager")
	}
	base, err := url.Parse(opts.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || (base.Path != "" && base.Path != "/") {
		return nil, fmt.Errorf("aws emulator: BaseURL %q must be an http(s) URL with a host and no path, such as http://127.0.0.1:4566", opts.BaseURL)
	}
	base.Path = ""
	a := &AWS{
		clusters: clusters,
		base:     base,
		now:      opts.Now,
		log:      opts.Logger,
		opTTL:    opts.OperationTimeout,
		podDelay: opts.PodStartupDelay,
		eks:      map[string]*eksClusterState{},
		lab:      map[string]string{},
		upds:     map[string]*eksUpdateState{},

		oidcProviders: append([]OIDCProvider(nil), opts.OIDCProviders...),
		jwks:          newJWKSCache(opts.OIDCRootCAs),
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.opTTL <= 0 {
		a.opTTL = 5 * time.Minute
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.labFaults = newLabFaults()
	a.fleet = newFleet(clusters, delayOr(opts.NodeBootDelay, DefaultNodeBootDelay), delayOr(opts.SpotNotice, DefaultSpotNotice), func(format string, args ...any) {
		a.log.Warn("aws emulator: " + fmt.Sprintf(format, args...))
	})
	for ct, n := range opts.VCPUQuota {
		a.fleet.setQuota(ct, n)
	}
	a.mux = http.NewServeMux()
	a.routeEKS()
	labRoutes(a.mux, a.labFaults, a.InterruptSpot)
	a.mux.HandleFunc("POST /authenticate/{cluster}", a.serveTokenReview)
	a.mux.HandleFunc("/{$}", a.serveSTS)
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		eksError(w, http.StatusNotFound, "UnknownOperationException", "unknown operation "+r.Method+" "+r.URL.Path)
	})
	return a, nil
}

// ServeHTTP serves EKS (/clusters...), STS (/) and the token webhook
// (/authenticate/<cluster>).
func (a *AWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-amzn-RequestId", awsRequestID())
	a.mux.ServeHTTP(w, r)
}

// BaseURL returns the endpoint the emulator was configured with.
func (a *AWS) BaseURL() string { return a.base.String() }

// Close cancels background lab operations and waits for them to return. Lab
// clusters that were created stay up: delete them through the API or the lab.
func (a *AWS) Close() {
	a.cancel()
	a.wg.Wait()
	a.fleet.close()
}

// Wait blocks until no background lab operation is running.
func (a *AWS) Wait() { a.wg.Wait() }

// background runs op with the operation timeout in a tracked goroutine.
func (a *AWS) background(what string, op func(ctx context.Context) error, done func(err error)) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ctx, cancel := context.WithTimeout(a.ctx, a.opTTL)
		defer cancel()
		err := op(ctx)
		if err != nil {
			a.log.Error("aws emulator: background operation failed", "operation", what, "error", err)
		}
		done(err)
	}()
}

func awsRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// awsRegionFromCredential returns the region of a SigV4 credential scope
// (AKID/date/region/service/aws4_request).
func awsRegionFromCredential(cred string) string {
	parts := strings.Split(cred, "/")
	if len(parts) == 5 {
		return parts[2]
	}
	return ""
}
