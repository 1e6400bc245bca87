package oidc

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Paths the issuer serves, relative to its URL.
const (
	DiscoveryPath = "/.well-known/openid-configuration"
	JWKSPath      = "/.well-known/jwks"
	// MintPath is the lab-only endpoint that mints a token (POST, JSON Claims).
	MintPath = "/mint"
)

// Issuer holds a signing key and mints tokens for its URL.
type Issuer struct {
	url string
	key *rsa.PrivateKey
	kid string
	now func() time.Time
}

// New returns an issuer for url (the "iss" of its tokens, where its discovery
// document is served) with a fresh 2048-bit RSA key. now is the clock
// (time.Now when nil). Two issuers with the same URL have different keys: a
// token of one is a forgery for the other.
func New(issuerURL string, now func() time.Time) (*Issuer, error) {
	u, err := url.Parse(issuerURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("oidc: issuer URL %q must be an absolute http(s) URL such as http://127.0.0.1:4566/oidc", issuerURL)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("oidc: generate key: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	sum := sha256.Sum256(key.PublicKey.N.Bytes())
	return &Issuer{url: strings.TrimSuffix(issuerURL, "/"), key: key, kid: base64.RawURLEncoding.EncodeToString(sum[:8]), now: now}, nil
}

// URL is the issuer URL, the "iss" claim of its tokens.
func (i *Issuer) URL() string { return i.url }

// Claims are the claims of a token to mint.
type Claims struct {
	// Subject is "sub"; see TFCSubject.
	Subject string `json:"sub"`
	// Audience is "aud" (a single value, as HCP Terraform sends it).
	Audience string `json:"aud"`
	// TTL is how long the token is valid from now; 5 minutes when zero. A
	// negative TTL mints a token that has already expired.
	TTL time.Duration `json:"ttl"`
	// Extra are additional claims (terraform_workspace_name, ...).
	Extra map[string]any `json:"extra,omitempty"`
}

// TFCSubject is the "sub" of an HCP Terraform workload identity token.
func TFCSubject(org, project, workspace, phase string) string {
	return "organization:" + org + ":project:" + project + ":workspace:" + workspace + ":run_phase:" + phase
}

// Mint signs a token with the issuer's key (RS256, its kid in the header).
func (i *Issuer) Mint(c Claims) (string, error) {
	ttl := c.TTL
	if ttl == 0 {
		ttl = 5 * time.Minute
	}
	now := i.now()
	iat := now
	if ttl < 0 {
		iat = now.Add(2 * ttl)
	}
	mc := jwt.MapClaims{}
	for k, v := range c.Extra {
		mc[k] = v
	}
	mc["iss"], mc["sub"], mc["aud"] = i.url, c.Subject, c.Audience
	mc["iat"], mc["nbf"], mc["exp"] = iat.Unix(), iat.Unix(), now.Add(ttl).Unix()
	mc["jti"] = rand.Text()
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, mc)
	t.Header["kid"] = i.kid
	s, err := t.SignedString(i.key)
	if err != nil {
		return "", fmt.Errorf("oidc: sign token: %w", err)
	}
	return s, nil
}

// JWK is one RSA public key of a JWKS.
type JWK struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// JWKS is a JSON Web Key Set.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// PublicKey returns the RSA public key of k.
func (k JWK) PublicKey() (*rsa.PublicKey, error) {
	if k.Kty != "RSA" {
		return nil, fmt.Errorf("key %q has kty %q: only RSA keys are supported", k.Kid, k.Kty)
	}
	n, err := base64.RawURLEncoding.DecodeString(k.N)
	if err != nil {
		return nil, fmt.Errorf("key %q: decode n: %w", k.Kid, err)
	}
	e, err := base64.RawURLEncoding.DecodeString(k.E)
	if err != nil || len(e) == 0 || len(e) > 4 {
		return nil, fmt.Errorf("key %q: invalid e", k.Kid)
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
}

// Discovery is the part of the OpenID Provider metadata a relying party reads.
type Discovery struct {
	Issuer                           string   `json:"issuer"`
	JWKSURI                          string   `json:"jwks_uri"`
	ResponseTypesSupported           []string `json:"response_types_supported"`
	SubjectTypesSupported            []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported []string `json:"id_token_signing_alg_values_supported"`
	ClaimsSupported                  []string `json:"claims_supported"`
}

// Handler serves the discovery document, the JWKS and the lab-only mint
// endpoint, at paths relative to the issuer URL's path (mount it with
// http.StripPrefix when that path is not "/").
func (i *Issuer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DiscoveryPath, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, Discovery{
			Issuer:                           i.url,
			JWKSURI:                          i.url + JWKSPath,
			ResponseTypesSupported:           []string{"id_token"},
			SubjectTypesSupported:            []string{"public"},
			IDTokenSigningAlgValuesSupported: []string{"RS256"},
			ClaimsSupported:                  []string{"sub", "aud", "exp", "iat", "iss", "jti", "nbf"},
		})
	})
	mux.HandleFunc("GET "+JWKSPath, func(w http.ResponseWriter, _ *http.Request) {
		pub := i.key.PublicKey
		writeJSON(w, http.StatusOK, JWKS{Keys: []JWK{{
			Kty: "RSA", Kid: i.kid, Use: "sig", Alg: "RS256",
			N: base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
			E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
		}}})
	})
	mux.HandleFunc("POST "+MintPath, func(w http.ResponseWriter, r *http.Request) {
		var c Claims
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&c); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body must be JSON {\"sub\",\"aud\",\"ttl\"}: " + err.Error()})
			return
		}
		tok, err := i.Mint(c)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"token": tok})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// TFCClaims are the claims of an HCP Terraform workload identity token of a
// run phase ("plan" or "apply") of workspace in project of org, for
// audience: the sub of TFCSubject and the terraform_* claims HCP Terraform
// adds, such as terraform_organization_name (which a kube-apiserver can map
// to a group).
func TFCClaims(org, project, workspace, phase, audience string, ttl time.Duration) Claims {
	return Claims{Subject: TFCSubject(org, project, workspace, phase), Audience: audience, TTL: ttl, Extra: map[string]any{
		"terraform_organization_name": org,
		"terraform_project_name":      project,
		"terraform_workspace_name":    workspace,
		"terraform_run_phase":         phase,
		"terraform_full_workspace":    "organization:" + org + ":project:" + project + ":workspace:" + workspace,
	}}
}
