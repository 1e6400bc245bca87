package oidc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestIssuerServesKeysThatVerifyItsTokens(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	srv := httptest.NewServer(nil)
	defer srv.Close()
	iss, err := New(srv.URL, clock)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = iss.Handler()

	var disc Discovery
	getJSON(t, srv.URL+DiscoveryPath, &disc)
	if disc.Issuer != srv.URL || disc.JWKSURI != srv.URL+JWKSPath {
		t.Fatalf("discovery = %+v, want issuer %s and jwks_uri %s", disc, srv.URL, srv.URL+JWKSPath)
	}
	var set JWKS
	getJSON(t, disc.JWKSURI, &set)
	if len(set.Keys) != 1 {
		t.Fatalf("JWKS has %d keys, want 1", len(set.Keys))
	}
	pub, err := set.Keys[0].PublicKey()
	if err != nil {
		t.Fatal(err)
	}

	sub := TFCSubject("acme", "platform", "burst", "apply")
	if want := "organization:acme:project:platform:workspace:burst:run_phase:apply"; sub != want {
		t.Fatalf("TFCSubject = %q, want %q", sub, want)
	}
	forger, err := New(srv.URL, clock)
	if err != nil {
		t.Fatal(err)
	}
	parse := func(tok string) (jwt.MapClaims, error) {
		var c jwt.MapClaims
		_, err := jwt.ParseWithClaims(tok, &c, func(*jwt.Token) (any, error) { return pub, nil },
			jwt.WithTimeFunc(clock), jwt.WithValidMethods([]string{"RS256"}))
		return c, err
	}
	tests := []struct {
		name    string
		by      *Issuer
		claims  Claims
		wantErr bool
		wantExp time.Time
	}{
		{"default ttl", iss, Claims{Subject: sub, Audience: "aws.workload.identity"}, false, now.Add(5 * time.Minute)},
		{"chosen ttl", iss, Claims{Subject: sub, Audience: "aws.workload.identity", TTL: time.Hour}, false, now.Add(time.Hour)},
		{"expired", iss, Claims{Subject: sub, Audience: "a", TTL: -time.Minute}, true, time.Time{}},
		{"forged", forger, Claims{Subject: sub, Audience: "a"}, true, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := tc.by.Mint(tc.claims)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parse(tok)
			if (err != nil) != tc.wantErr {
				t.Fatalf("verify error = %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			exp, _ := c.GetExpirationTime()
			if c["iss"] != srv.URL || c["sub"] != sub || c["aud"] != tc.claims.Audience || !exp.Time.Equal(tc.wantExp) {
				t.Errorf("claims = %v, want iss %s, sub %s, aud %s, exp %v", c, srv.URL, sub, tc.claims.Audience, tc.wantExp)
			}
		})
	}

	// The lab-only mint endpoint.
	resp, err := http.Post(srv.URL+MintPath, "application/json", strings.NewReader(`{"sub":"`+sub+`","aud":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		t.Fatalf("mint endpoint: %v %+v", err, out)
	}
	if _, err := parse(out.Token); err != nil {
		t.Errorf("minted token does not verify: %v", err)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:80", "ftp://x"} {
		if _, err := New(u, nil); err == nil || !strings.Contains(err.Error(), "must be an absolute http(s) URL") {
			t.Errorf("New(%q) error = %v", u, err)
		}
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
