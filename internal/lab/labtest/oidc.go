package labtest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// OIDCToken mints a token from the running lab's OIDC issuer
// (HCA_LAB_OIDC_ISSUER) with the given subject, audience and time to live (a
// negative ttl mints an already expired token).
func OIDCToken(t testing.TB, sub, aud string, ttl time.Duration) string {
	t.Helper()
	return OIDCTokenWithClaims(t, oidc.Claims{Subject: sub, Audience: aud, TTL: ttl})
}

// OIDCTokenWithClaims mints a token with claims c (extra claims included)
// from the running lab's OIDC issuer.
func OIDCTokenWithClaims(t testing.TB, c oidc.Claims) string {
	t.Helper()
	issuer := Require(t, "HCA_LAB_OIDC_ISSUER")["HCA_LAB_OIDC_ISSUER"]
	body, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: OIDCRootCAs(t), MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	resp, err := client.Post(issuer+oidc.MintPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("mint a lab OIDC token: %v", err)
	}
	defer resp.Body.Close()
	var out struct{ Token, Error string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		t.Fatalf("mint a lab OIDC token: %s %v %s", resp.Status, err, out.Error)
	}
	return out.Token
}

// OIDCRootCAs is the lab CA (HCA_LAB_OIDC_CA_FILE), which signed the lab
// OIDC issuer's serving certificate.
func OIDCRootCAs(t testing.TB) *x509.CertPool {
	t.Helper()
	file := Require(t, "HCA_LAB_OIDC_CA_FILE")["HCA_LAB_OIDC_CA_FILE"]
	pem, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read the lab CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("the lab CA %s holds no PEM certificate", file)
	}
	return pool
}
