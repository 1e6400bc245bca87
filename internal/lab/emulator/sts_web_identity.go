package emulator

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// OIDCProvider is an IAM OIDC identity provider of the emulated account: STS
// accepts AssumeRoleWithWebIdentity tokens whose "iss" is URL and whose "aud"
// is one of ClientIDs (the provider's audiences).
type OIDCProvider struct {
	// URL is the issuer URL; its discovery document and JWKS are fetched over
	// HTTP(S) as STS does.
	URL string
	// ClientIDs are the accepted audiences, such as "aws.workload.identity"
	// (HCP Terraform's default audience for AWS).
	ClientIDs []string
}

// stsSession is a set of temporary credentials STS issued.
type stsSession struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	Expiration      time.Time
	RoleARN         string
	SessionName     string
	RoleID          string
}

// AssumedRoleARN is the caller ARN of the session.
func (s *stsSession) AssumedRoleARN() string {
	role := s.RoleARN[strings.LastIndex(s.RoleARN, "/")+1:]
	return "arn:aws:sts::" + AWSAccountID + ":assumed-role/" + role + "/" + s.SessionName
}

// Web identity limits, as documented for AssumeRoleWithWebIdentity.
const (
	stsMinDuration     = 900
	stsMaxDuration     = 43200
	stsDefaultDuration = 3600
	stsMaxTokenLength  = 20000
)

var (
	stsRoleARNPattern     = regexp.MustCompile(`^arn:aws:iam::(\d{12}):role/([\w+=,.@/-]{1,64})$`)
	stsSessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
)

// stsAuthFailure is an STS error to render: HTTP status, code and message.
type stsAuthFailure struct {
	status int
	code   string
	msg    string
}

func (e *stsAuthFailure) Error() string { return e.code + ": " + e.msg }

// jwksCache fetches and caches the JWKS of the trusted OIDC providers.
type jwksCache struct {
	client *http.Client
	mu     sync.Mutex
	keys   map[string]map[string]any // issuer -> kid -> public key
}

// newJWKSCache returns a cache whose client trusts roots (the system's
// roots when nil).
func newJWKSCache(roots *x509.CertPool) jwksCache {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	return jwksCache{client: &http.Client{Timeout: 10 * time.Second, Transport: tr}}
}

func (c *jwksCache) key(issuer, kid string, refresh bool) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.keys[issuer][kid]; ok && !refresh {
		return k, nil
	}
	var disc oidc.Discovery
	if err := c.getJSON(strings.TrimSuffix(issuer, "/")+oidc.DiscoveryPath, &disc); err != nil {
		return nil, err
	}
	var set oidc.JWKS
	if err := c.getJSON(disc.JWKSURI, &set); err != nil {
		return nil, err
	}
	keys := map[string]any{}
	for _, k := range set.Keys {
		if pub, err := k.PublicKey(); err == nil {
			keys[k.Kid] = pub
		}
	}
	if c.keys == nil {
		c.keys = map[string]map[string]any{}
	}
	c.keys[issuer] = keys
	k, ok := keys[kid]
	if !ok {
		return nil, errUnknownKid
	}
	return k, nil
}

var errUnknownKid = errors.New("unknown kid")

// verify checks token's signature with the keys issuer's JWKS serves
// (fetched again once for a key ID it does not know yet), its algorithm
// (RS256/384/512), its expiry (required) and its issue time, at now. fetchErr
// is set when the JWKS could not be fetched; err is jwt's verdict.
func (c *jwksCache) verify(token, issuer string, now func() time.Time) (claims jwt.MapClaims, fetchErr, err error) {
	_, err = jwt.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k, err := c.key(issuer, kid, false)
		if errors.Is(err, errUnknownKid) {
			k, err = c.key(issuer, kid, true)
		}
		if err != nil && !errors.Is(err, errUnknownKid) {
			fetchErr = err
		}
		return k, err
	}, jwt.WithValidMethods([]string{"RS256", "RS384", "RS512"}), jwt.WithTimeFunc(now), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	return claims, fetchErr, err
}

// hasAudience reports whether one of claims' audiences is a client ID.
func hasAudience(claims jwt.MapClaims, clientIDs []string) bool {
	aud, _ := claims.GetAudience()
	for _, want := range clientIDs {
		if slices.Contains(aud, want) {
			return true
		}
	}
	return false
}

func (c *jwksCache) getJSON(u string, v any) error {
	resp, err := c.client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// verifyWebIdentity checks a web identity token as STS does: its issuer is a
// registered OIDC provider, its signature matches a key of that provider's
// JWKS, it is within exp/nbf, and its audience is one of the provider's client
// IDs. It returns the verified claims.
func (a *AWS) verifyWebIdentity(token string) (jwt.MapClaims, *stsAuthFailure) {
	invalid := func(msg string) *stsAuthFailure {
		return &stsAuthFailure{status: http.StatusBadRequest, code: "InvalidIdentityToken", msg: msg}
	}
	var unverified jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &unverified); err != nil {
		return nil, invalid("The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)")
	}
	iss, _ := unverified["iss"].(string)
	var prov *OIDCProvider
	for i := range a.oidcProviders {
		if strings.TrimSuffix(a.oidcProviders[i].URL, "/") == strings.TrimSuffix(iss, "/") {
			prov = &a.oidcProviders[i]
		}
	}
	if prov == nil {
		return nil, invalid("No OpenIDConnect provider found in your account for " + iss)
	}
	claims, fetchErr, err := a.jwks.verify(token, iss, a.now)
	switch {
	case fetchErr != nil:
		return nil, &stsAuthFailure{status: http.StatusBadRequest, code: "IDPCommunicationError", msg: "Couldn't retrieve verification key from your identity provider, please reference AssumeRoleWithWebIdentity documentation for requirements"}
	case errors.Is(err, jwt.ErrTokenExpired):
		exp, _ := unverified.GetExpirationTime()
		msg := "Token expired"
		if exp != nil {
			msg = fmt.Sprintf("Token expired: current date/time %d must be before the expiration date/time %d", a.now().Unix(), exp.Unix())
		}
		return nil, &stsAuthFailure{status: http.StatusBadRequest, code: "ExpiredTokenException", msg: msg}
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return nil, invalid("Token is not yet valid (nbf/iat is in the future)")
	case err != nil:
		return nil, invalid("Couldn't verify the signature of the token with the keys of " + iss)
	}
	if hasAudience(claims, prov.ClientIDs) {
		return claims, nil
	}
	return nil, invalid("Incorrect token audience")
}

type stsCredentials struct {
	AccessKeyID     string `xml:"AccessKeyId" json:"AccessKeyId"`
	SecretAccessKey string `xml:"SecretAccessKey" json:"SecretAccessKey"`
	SessionToken    string `xml:"SessionToken" json:"SessionToken"`
	Expiration      string `xml:"Expiration" json:"Expiration"`
}

type stsAssumedRoleUser struct {
	AssumedRoleID string `xml:"AssumedRoleId" json:"AssumedRoleId"`
	Arn           string `xml:"Arn" json:"Arn"`
}

type stsWebIdentityResult struct {
	Credentials                 stsCredentials     `xml:"Credentials" json:"Credentials"`
	SubjectFromWebIdentityToken string             `xml:"SubjectFromWebIdentityToken" json:"SubjectFromWebIdentityToken"`
	AssumedRoleUser             stsAssumedRoleUser `xml:"AssumedRoleUser" json:"AssumedRoleUser"`
	Provider                    string             `xml:"Provider" json:"Provider"`
	Audience                    string             `xml:"Audience" json:"Audience"`
}

type stsWebIdentityResponse struct {
	XMLName  xml.Name             `xml:"AssumeRoleWithWebIdentityResponse" json:"-"`
	XMLNS    string               `xml:"xmlns,attr" json:"-"`
	Result   stsWebIdentityResult `xml:"AssumeRoleWithWebIdentityResult" json:"AssumeRoleWithWebIdentityResult"`
	Metadata stsResponseMetadata  `xml:"ResponseMetadata" json:"ResponseMetadata"`
}

// assumeRoleWithWebIdentity serves the unsigned AssumeRoleWithWebIdentity
// action: it verifies the token, checks the parameters and issues temporary
// credentials that every emulated AWS API accepts until they expire.
func (a *AWS) assumeRoleWithWebIdentity(params url.Values, reqID string) (any, *stsAuthFailure) {
	validation := func(msg string) *stsAuthFailure {
		return &stsAuthFailure{status: http.StatusBadRequest, code: "ValidationError", msg: msg}
	}
	roleARN, session, token := params.Get("RoleArn"), params.Get("RoleSessionName"), params.Get("WebIdentityToken")
	switch {
	case roleARN == "":
		return nil, validation("1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null")
	case session == "":
		return nil, validation("1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null")
	case token == "":
		return nil, validation("1 validation error detected: Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null")
	case !stsSessionNamePattern.MatchString(session):
		return nil, validation("1 validation error detected: Value '" + session + "' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*")
	case len(token) < 4 || len(token) > stsMaxTokenLength:
		return nil, validation("1 validation error detected: Value at 'webIdentityToken' failed to satisfy constraint: Member must have length less than or equal to 20000")
	}
	duration := stsDefaultDuration
	if d := params.Get("DurationSeconds"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < stsMinDuration || n > stsMaxDuration {
			return nil, validation(fmt.Sprintf("1 validation error detected: Value '%s' at 'durationSeconds' failed to satisfy constraint: Member must have value between %d and %d", d, stsMinDuration, stsMaxDuration))
		}
		duration = n
	}
	m := stsRoleARNPattern.FindStringSubmatch(roleARN)
	if m == nil || m[1] != AWSAccountID {
		return nil, &stsAuthFailure{status: http.StatusForbidden, code: "AccessDenied", msg: "Not authorized to perform sts:AssumeRoleWithWebIdentity"}
	}
	claims, fail := a.verifyWebIdentity(token)
	if fail != nil {
		return nil, fail
	}
	sub, _ := claims.GetSubject()
	iss, _ := claims.GetIssuer()
	aud, _ := claims.GetAudience()
	sess := &stsSession{
		AccessKeyID:     "ASIA" + strings.ToUpper(rand.Text()[:16]),
		SecretAccessKey: rand.Text() + rand.Text()[:14],
		SessionToken:    "IQoJb3JpZ2luX2VjE" + rand.Text() + rand.Text() + rand.Text(),
		Expiration:      a.now().Add(time.Duration(duration) * time.Second).UTC().Truncate(time.Second),
		RoleARN:         roleARN,
		SessionName:     session,
		RoleID:          "AROA" + strings.ToUpper(rand.Text()[:17]),
	}
	a.mu.Lock()
	if a.sessions == nil {
		a.sessions = map[string]*stsSession{}
	}
	for k, s := range a.sessions { // forget expired sessions
		if !a.now().Before(s.Expiration) {
			delete(a.sessions, k)
		}
	}
	a.sessions[sess.AccessKeyID] = sess
	a.mu.Unlock()
	provider, _ := url.Parse(iss)
	return stsWebIdentityResponse{
		XMLNS: stsXMLNS,
		Result: stsWebIdentityResult{
			Credentials: stsCredentials{
				AccessKeyID: sess.AccessKeyID, SecretAccessKey: sess.SecretAccessKey,
				SessionToken: sess.SessionToken, Expiration: sess.Expiration.Format(time.RFC3339),
			},
			SubjectFromWebIdentityToken: sub,
			AssumedRoleUser:             stsAssumedRoleUser{AssumedRoleID: sess.RoleID + ":" + session, Arn: sess.AssumedRoleARN()},
			Provider:                    provider.Host + provider.Path,
			Audience:                    strings.Join(aud, ","),
		},
		Metadata: stsResponseMetadata{RequestID: reqID},
	}, nil
}

// session returns the live or expired session of a temporary access key id.
func (a *AWS) session(akid string) *stsSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[akid]
}
