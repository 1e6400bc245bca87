package emulator

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithy "github.com/aws/smithy-go"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// awsTestClock is the emulator's clock in tests: real time plus an offset the
// test moves forward.
type awsTestClock struct{ offset atomic.Int64 }

func (c *awsTestClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *awsTestClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// awsServe serves a new AWS emulator on a loopback listener and returns it with
// its base URL and clock.
func awsServe(t testing.TB, clusters Clusters) (*AWS, string, *awsTestClock) {
	t.Helper()
	clock := &awsTestClock{}
	a, base := awsServeOpts(t, clusters, AWSOptions{Now: clock.now, NodeBootDelay: awsTestBootDelay})
	return a, base, clock
}

// awsTestBootDelay is the node boot delay of the tests' emulators: short, but
// long enough that a node is absent right after the call that asked for it.
const awsTestBootDelay = 500 * time.Millisecond

// awsServeOpts serves a new AWS emulator with opts (BaseURL set here).
func awsServeOpts(t testing.TB, clusters Clusters, opts AWSOptions) (*AWS, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	base := "http://" + ln.Addr().String()
	opts.BaseURL = base
	a, err := NewAWS(clusters, opts)
	if err != nil {
		t.Fatalf("NewAWS: %v", err)
	}
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		a.Close()
	})
	return a, base
}

// awsNoLab is a real lab cluster manager on an empty directory, for tests of
// requests the emulator must refuse before it touches any cluster.
func awsNoLab(t testing.TB) Clusters {
	return lab.NewClusters(t.TempDir(), &lab.Binaries{CacheDir: t.TempDir()})
}

// awsLab returns the lab's cluster manager (skipping without a lab).
func awsLab(t testing.TB) *lab.Clusters {
	t.Helper()
	return labtest.Clusters(t)
}

func awsConfig(akid, secret string) aws.Config {
	return aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider(akid, secret, ""),
	}
}

func awsLabConfig() aws.Config { return awsConfig(AWSAccessKeyID, AWSSecretAccessKey) }

func eksClient(cfg aws.Config, base string) *eks.Client {
	return eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(base) })
}

func stsClient(cfg aws.Config, base string) *sts.Client {
	return sts.NewFromConfig(cfg, func(o *sts.Options) { o.BaseEndpoint = aws.String(base) })
}

// awsErrorCode is the AWS error code of err ("" when it is not an API error).
func awsErrorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func TestAWSSignatureRequired(t *testing.T) {
	_, base, clock := awsServe(t, awsNoLab(t))
	tests := []struct {
		name     string
		cfg      aws.Config
		skew     time.Duration
		wantEKS  string
		wantSTS  string
		wantText string
	}{
		{name: "anonymous", cfg: aws.Config{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}},
			wantEKS: "MissingAuthenticationTokenException", wantSTS: "MissingAuthenticationToken", wantText: "Missing Authentication Token"},
		{name: "unknown access key", cfg: awsConfig("AKIAUNKNOWN000000001", AWSSecretAccessKey),
			wantEKS: "UnrecognizedClientException", wantSTS: "InvalidClientTokenId", wantText: "security token included in the request is invalid"},
		{name: "wrong secret", cfg: awsConfig(AWSAccessKeyID, "not-the-lab-secret"),
			wantEKS: "InvalidSignatureException", wantSTS: "SignatureDoesNotMatch", wantText: "does not match the signature you provided"},
		{name: "clock skew", cfg: awsLabConfig(), skew: 10 * time.Minute,
			wantEKS: "InvalidSignatureException", wantSTS: "ExpiredToken", wantText: "Signature expired"},
		{name: "lab keys", cfg: awsLabConfig()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock.offset.Store(int64(tc.skew))
			defer clock.offset.Store(0)
			ctx := context.Background()

			_, err := eksClient(tc.cfg, base).ListClusters(ctx, &eks.ListClustersInput{})
			if got := awsErrorCode(err); got != tc.wantEKS {
				t.Errorf("EKS ListClusters error code = %q (%v), want %q", got, err, tc.wantEKS)
			}
			if tc.wantText != "" && (err == nil || !strings.Contains(err.Error(), tc.wantText)) {
				t.Errorf("EKS ListClusters error = %v, want it to say %q", err, tc.wantText)
			}

			out, err := stsClient(tc.cfg, base).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
			if got := awsErrorCode(err); got != tc.wantSTS {
				t.Errorf("STS GetCallerIdentity error code = %q (%v), want %q", got, err, tc.wantSTS)
			}
			if tc.wantSTS == "" && err == nil {
				if aws.ToString(out.Arn) != "arn:aws:iam::"+AWSAccountID+":user/hca-lab" || aws.ToString(out.Account) != AWSAccountID || aws.ToString(out.UserId) == "" {
					t.Errorf("GetCallerIdentity = arn %q account %q user id %q, want the lab user", aws.ToString(out.Arn), aws.ToString(out.Account), aws.ToString(out.UserId))
				}
			}
		})
	}
}

func TestAWSUnsignedHTTP(t *testing.T) {
	_, base, _ := awsServe(t, awsNoLab(t))
	tests := []struct {
		name       string
		method     string
		path       string
		wantStatus int
		wantType   string
	}{
		{name: "eks list", method: http.MethodGet, path: "/clusters", wantStatus: http.StatusForbidden, wantType: "MissingAuthenticationTokenException"},
		{name: "eks create", method: http.MethodPost, path: "/clusters", wantStatus: http.StatusForbidden, wantType: "MissingAuthenticationTokenException"},
		{name: "sts", method: http.MethodGet, path: "/?Action=GetCallerIdentity&Version=2011-06-15", wantStatus: http.StatusForbidden},
		{name: "unknown path", method: http.MethodGet, path: "/nope", wantStatus: http.StatusNotFound, wantType: "UnknownOperationException"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, base+tc.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || resp.Header.Get("x-amzn-ErrorType") != tc.wantType {
				t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("x-amzn-ErrorType"), tc.wantStatus, tc.wantType)
			}
			if resp.Header.Get("x-amzn-RequestId") == "" {
				t.Errorf("response has no x-amzn-RequestId")
			}
		})
	}
}

func TestNewAWSBadOptions(t *testing.T) {
	tests := []struct {
		name     string
		clusters Clusters
		base     string
		wantErr  string
	}{
		{name: "nil clusters", clusters: nil, base: "http://127.0.0.1:1", wantErr: "clusters is nil"},
		{name: "no scheme", clusters: awsNoLab(t), base: "127.0.0.1:1", wantErr: "BaseURL"},
		{name: "path", clusters: awsNoLab(t), base: "http://127.0.0.1:1/aws", wantErr: "no path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAWS(tc.clusters, AWSOptions{BaseURL: tc.base})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("NewAWS error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
