package emulator

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/hca-project/terraform-provider-hca/internal/cloud"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

const webIdentityAudience = "aws.workload.identity"

// oidcServe serves a lab OIDC issuer on a loopback listener, its URL ending in
// /oidc as the lab daemon mounts it.
func oidcServe(t *testing.T, now func() time.Time) *oidc.Issuer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	iss, err := oidc.New("http://"+ln.Addr().String()+"/oidc", now)
	if err != nil {
		t.Fatalf("oidc.New: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/oidc/", http.StripPrefix("/oidc", iss.Handler()))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return iss
}

// webIdentityConfig is an SDK configuration whose only credentials come from
// the unmodified SDK's web identity provider with token.
func webIdentityConfig(base, roleARN, token string) aws.Config {
	cfg := aws.Config{Region: "us-east-1"}
	p := stscreds.NewWebIdentityRoleProvider(stsClient(cfg, base), roleARN, staticToken(token), func(o *stscreds.WebIdentityRoleOptions) { o.RoleSessionName = "hca-test" })
	cfg.Credentials = aws.NewCredentialsCache(p)
	return cfg
}

// staticToken is a web identity token held in memory.
type staticToken string

func (s staticToken) GetIdentityToken() ([]byte, error) { return []byte(s), nil }

func TestAssumeRoleWithWebIdentity(t *testing.T) {
	clock := &awsTestClock{}
	iss := oidcServe(t, clock.now)
	a, base := awsServeOpts(t, awsNoLab(t), AWSOptions{Now: clock.now, OIDCProviders: []OIDCProvider{{URL: iss.URL(), ClientIDs: []string{webIdentityAudience}}}})
	_ = a
	role := "arn:aws:iam::" + AWSAccountID + ":role/hca-tfc"
	sub := oidc.TFCSubject("acme", "platform", "burst", "apply")
	ctx := context.Background()

	token, err := iss.Mint(oidc.Claims{Subject: sub, Audience: webIdentityAudience})
	if err != nil {
		t.Fatal(err)
	}
	out, err := stsClient(aws.Config{Region: "us-east-1"}, base).AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{
		RoleArn: aws.String(role), RoleSessionName: aws.String("hca-test"), WebIdentityToken: aws.String(token), DurationSeconds: aws.Int32(900),
	})
	if err != nil {
		t.Fatalf("AssumeRoleWithWebIdentity: %v", err)
	}
	if got := aws.ToString(out.SubjectFromWebIdentityToken); got != sub {
		t.Errorf("SubjectFromWebIdentityToken = %q, want %q", got, sub)
	}
	if got, want := aws.ToString(out.AssumedRoleUser.Arn), "arn:aws:sts::"+AWSAccountID+":assumed-role/hca-tfc/hca-test"; got != want {
		t.Errorf("AssumedRoleUser.Arn = %q, want %q", got, want)
	}
	if !strings.HasPrefix(aws.ToString(out.Credentials.AccessKeyId), "ASIA") {
		t.Errorf("AccessKeyId = %q, want a temporary key (ASIA...)", aws.ToString(out.Credentials.AccessKeyId))
	}
	if d := out.Credentials.Expiration.Sub(clock.now()); d < 890*time.Second || d > 900*time.Second {
		t.Errorf("credentials expire in %v, want 900s (DurationSeconds)", d)
	}

	// The temporary credentials work on the other emulated APIs, through the
	// SDK's own provider.
	cfg := webIdentityConfig(base, role, token)
	id, err := stsClient(cfg, base).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity with web identity credentials: %v", err)
	}
	if got := aws.ToString(id.Arn); !strings.HasPrefix(got, "arn:aws:sts::"+AWSAccountID+":assumed-role/hca-tfc/") {
		t.Errorf("GetCallerIdentity Arn = %q, want the assumed role", got)
	}
	if _, err := eksClient(cfg, base).ListClusters(ctx, &eks.ListClustersInput{}); err != nil {
		t.Fatalf("EKS ListClusters with web identity credentials: %v", err)
	}

	// An EKS bearer token presigned with the session names the role, as
	// aws-iam-authenticator does.
	eksTok, err := cloud.EKSToken(ctx, stsClient(cfg, base), "burst-1")
	if err != nil {
		t.Fatalf("EKSToken with web identity credentials: %v", err)
	}
	st := eksReview(t, base, "burst-1", eksTok.Value)
	if !st.Authenticated || st.User.Username != role || !strings.HasPrefix(st.User.Extra["arn"][0], "arn:aws:sts::"+AWSAccountID+":assumed-role/hca-tfc/") {
		t.Errorf("TokenReview = %+v, want authenticated as %s (assumed-role arn in extras)", st, role)
	}

	// Tokens and temporary credentials stop working when they expire (5 minutes
	// and 1 hour by default).
	clock.advance(time.Hour + time.Minute)
	// The SDK's provider, uncached, exchanges the now-expired token again.
	creds, err := webIdentityConfig(base, role, token).Credentials.Retrieve(ctx)
	if err == nil {
		t.Fatalf("Retrieve after the token expired = %v, want an error", creds.AccessKeyID)
	}
	if code := awsErrorCode(err); code != "ExpiredTokenException" {
		t.Errorf("Retrieve after expiry: code %q (%v), want ExpiredTokenException", code, err)
	}
	stale := awsConfig(aws.ToString(out.Credentials.AccessKeyId), aws.ToString(out.Credentials.SecretAccessKey))
	stale.Credentials = aws.NewCredentialsCache(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: aws.ToString(out.Credentials.AccessKeyId), SecretAccessKey: aws.ToString(out.Credentials.SecretAccessKey), SessionToken: aws.ToString(out.Credentials.SessionToken)}, nil
	}))
	if _, err := stsClient(stale, base).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); awsErrorCode(err) != "ExpiredToken" {
		t.Errorf("GetCallerIdentity with expired session credentials: %v, want ExpiredToken", err)
	}
}

func TestAssumeRoleWithWebIdentityRefused(t *testing.T) {
	clock := &awsTestClock{}
	iss := oidcServe(t, clock.now)
	_, base := awsServeOpts(t, awsNoLab(t), AWSOptions{Now: clock.now, OIDCProviders: []OIDCProvider{{URL: iss.URL(), ClientIDs: []string{webIdentityAudience}}}})
	forger, err := oidc.New(iss.URL(), clock.now) // same iss, another key
	if err != nil {
		t.Fatal(err)
	}
	unknown := oidcServe(t, clock.now) // an issuer the account does not trust
	sub := oidc.TFCSubject("acme", "platform", "burst", "apply")
	mint := func(i *oidc.Issuer, aud string, ttl time.Duration) string {
		tok, err := i.Mint(oidc.Claims{Subject: sub, Audience: aud, TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := mint(iss, webIdentityAudience, 0)
	role := "arn:aws:iam::" + AWSAccountID + ":role/hca-tfc"
	tests := []struct {
		name, role, session, token string
		duration                   int32
		wantCode, wantMsg          string
	}{
		{"forged signature", role, "s1", mint(forger, webIdentityAudience, 0), 0, "InvalidIdentityToken", "verify the signature"},
		{"expired", role, "s1", mint(iss, webIdentityAudience, -time.Minute), 0, "ExpiredTokenException", "Token expired"},
		{"wrong audience", role, "s1", mint(iss, "sts.amazonaws.com", 0), 0, "InvalidIdentityToken", "Incorrect token audience"},
		{"untrusted issuer", role, "s1", mint(unknown, webIdentityAudience, 0), 0, "InvalidIdentityToken", "No OpenIDConnect provider found"},
		{"not a JWT", role, "s1", "not-a-jwt", 0, "InvalidIdentityToken", "not a valid JWT"},
		{"role of another account", "arn:aws:iam::999999999999:role/x", "s1", good, 0, "AccessDenied", "sts:AssumeRoleWithWebIdentity"},
		{"bad session name", role, "a b", good, 0, "ValidationError", "roleSessionName"},
		{"duration too short", role, "s1", good, 60, "ValidationError", "durationSeconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(tc.role), RoleSessionName: aws.String(tc.session), WebIdentityToken: aws.String(tc.token)}
			if tc.duration != 0 {
				in.DurationSeconds = aws.Int32(tc.duration)
			}
			_, err := stsClient(aws.Config{Region: "us-east-1"}, base).AssumeRoleWithWebIdentity(context.Background(), in)
			if code := awsErrorCode(err); code != tc.wantCode || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error = %v (code %q), want code %q with %q", err, code, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

// BenchmarkAssumeRoleWithWebIdentity measures one token exchange through the
// unmodified SDK: HTTP round trip, RS256 verification with the cached JWKS,
// session issue.
func BenchmarkAssumeRoleWithWebIdentity(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	iss, err := oidc.New("http://"+ln.Addr().String(), nil)
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: iss.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	_, base := awsServeOpts(b, awsNoLab(b), AWSOptions{OIDCProviders: []OIDCProvider{{URL: iss.URL(), ClientIDs: []string{webIdentityAudience}}}})
	token, err := iss.Mint(oidc.Claims{Subject: "bench", Audience: webIdentityAudience, TTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	client := stsClient(aws.Config{Region: "us-east-1"}, base)
	in := &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String("arn:aws:iam::" + AWSAccountID + ":role/bench"), RoleSessionName: aws.String("bench"), WebIdentityToken: aws.String(token)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := client.AssumeRoleWithWebIdentity(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAssumeRoleWithWebIdentityHTTPSIssuer serves the issuer over TLS, as the
// lab daemon does: STS verifies its tokens when OIDCRootCAs trusts the
// issuer's certificate, and answers IDPCommunicationError when it does not
// (the system's roots do not know a lab CA).
func TestAssumeRoleWithWebIdentityHTTPSIssuer(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	iss, err := oidc.New(srv.URL+"/oidc", nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/oidc/", http.StripPrefix("/oidc", iss.Handler()))
	srv.Config.Handler = mux
	token, err := iss.Mint(oidc.Claims{Subject: oidc.TFCSubject("acme", "platform", "burst", "apply"), Audience: webIdentityAudience})
	if err != nil {
		t.Fatal(err)
	}
	trusted := x509.NewCertPool()
	trusted.AddCert(srv.Certificate())
	for _, tt := range []struct {
		name     string
		roots    *x509.CertPool
		wantCode string
	}{
		{"issuer CA trusted", trusted, ""},
		{"system roots only", nil, "IDPCommunicationError"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, base := awsServeOpts(t, awsNoLab(t), AWSOptions{OIDCRootCAs: tt.roots, OIDCProviders: []OIDCProvider{{URL: iss.URL(), ClientIDs: []string{webIdentityAudience}}}})
			_, err := stsClient(aws.Config{Region: "us-east-1"}, base).AssumeRoleWithWebIdentity(context.Background(), &sts.AssumeRoleWithWebIdentityInput{
				RoleArn: aws.String("arn:aws:iam::" + AWSAccountID + ":role/hca-tfc"), RoleSessionName: aws.String("hca-test"), WebIdentityToken: aws.String(token),
			})
			if code := awsErrorCode(err); code != tt.wantCode {
				t.Errorf("AssumeRoleWithWebIdentity: code %q (%v), want %q", code, err, tt.wantCode)
			}
		})
	}
}
