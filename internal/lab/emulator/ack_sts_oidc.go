package emulator

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// AlicloudAccountID is the emulated Alibaba Cloud account: RAM role and OIDC
// provider ARNs name it (acs:ram::<account>:role/<name>).
const AlicloudAccountID = "1000000000000001"

// RAMOIDCProvider is a RAM OIDC identity provider of the emulated Alibaba
// Cloud account: Alibaba's STS AssumeRoleWithOIDC accepts, for it, tokens
// whose "iss" is IssuerURL and whose "aud" is one of ClientIDs.
type RAMOIDCProvider struct {
	// Name is the provider's name: its ARN is
	// acs:ram::<AlicloudAccountID>:oidc-provider/<Name>.
	Name string
	// IssuerURL is the issuer; its discovery document and JWKS are fetched
	// as the real service does.
	IssuerURL string
	// ClientIDs are the accepted audiences.
	ClientIDs []string
}

// ARN is the provider's ARN.
func (p RAMOIDCProvider) ARN() string {
	return "acs:ram::" + AlicloudAccountID + ":oidc-provider/" + p.Name
}

// Alibaba's AssumeRoleWithOIDC limits (API reference): DurationSeconds from
// 900 to the role's MaxSessionDuration (3600 by default), a token of 4 to
// 20,000 characters, a session name of 2 to 64 letters, digits and ".@-_".
const (
	aliSTSMinDuration     = 900
	aliSTSMaxDuration     = 3600
	aliSTSDefaultDuration = 3600
	aliSTSMaxToken        = 20000
)

var (
	aliRoleARNPattern     = regexp.MustCompile(`^acs:ram::(\d+):role/([\w.@-]{1,64})$`)
	aliSessionNamePattern = regexp.MustCompile(`^[\w.@-]{2,64}$`)
)

// aliSession is a set of temporary credentials Alibaba's STS issued.
type aliSession struct {
	AccessKeyID, AccessKeySecret, SecurityToken string
	Expiration                                  time.Time
}

// aliSTSFailure is an STS error: HTTP status, code and message.
type aliSTSFailure struct {
	status    int
	code, msg string
}

// STSHandler serves Alibaba Cloud STS's AssumeRoleWithOIDC (RPC style,
// version 2015-04-01, parameters in the query or a form body, no signature:
// the token is the credential), as the Alibaba SDK's
// credentials.OIDCCredentialsProvider calls it. The temporary credentials it
// issues ("STS." AccessKey IDs with a SecurityToken) are accepted by the CS
// API of the same emulator until they expire. Serve it over HTTPS: the SDK
// calls https:// only.
func (a *ACK) STSHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqID := ackRequestID()
		fail := func(f *aliSTSFailure) {
			ackJSON(w, f.status, map[string]string{
				"RequestId": reqID, "HostId": r.Host, "Code": f.code, "Message": f.msg,
				"Recommend": "https://api.aliyun.com/troubleshoot?q=" + f.code + "&product=Sts",
			})
		}
		if err := r.ParseForm(); err != nil {
			fail(&aliSTSFailure{http.StatusBadRequest, "InvalidParameter", "the request's parameters do not parse: " + err.Error()})
			return
		}
		switch action, version := r.Form.Get("Action"), r.Form.Get("Version"); {
		case action == "":
			fail(&aliSTSFailure{http.StatusBadRequest, "MissingAction", "Action is mandatory for this request."})
			return
		case action != "AssumeRoleWithOIDC":
			fail(&aliSTSFailure{http.StatusNotFound, "InvalidAction.NotFound", "Specified api is not found, please check your url and method."})
			return
		case version != "2015-04-01":
			fail(&aliSTSFailure{http.StatusNotFound, "InvalidVersion", "Specified parameter Version is not valid."})
			return
		}
		out, f := a.assumeRoleWithOIDC(r.Form.Get, reqID)
		if f != nil {
			fail(f)
			return
		}
		ackJSON(w, http.StatusOK, out)
	})
}

// assumeRoleWithOIDC checks the parameters, verifies the token against the
// named OIDC provider and issues temporary credentials.
func (a *ACK) assumeRoleWithOIDC(param func(string) string, reqID string) (any, *aliSTSFailure) {
	missing := func(name string) *aliSTSFailure {
		return &aliSTSFailure{http.StatusBadRequest, "MissingParameter", "The input parameter \"" + name + "\" that is mandatory for processing this request is not supplied."}
	}
	invalid := func(name, why string) *aliSTSFailure {
		return &aliSTSFailure{http.StatusBadRequest, "InvalidParameter." + name, "The parameter " + name + " " + why}
	}
	roleARN, provARN, token, session := param("RoleArn"), param("OIDCProviderArn"), param("OIDCToken"), param("RoleSessionName")
	switch {
	case roleARN == "":
		return nil, missing("RoleArn")
	case provARN == "":
		return nil, missing("OIDCProviderArn")
	case token == "":
		return nil, missing("OIDCToken")
	case len(token) < 4 || len(token) > aliSTSMaxToken:
		return nil, invalid("OIDCToken", fmt.Sprintf("must be 4 to %d characters long.", aliSTSMaxToken))
	case session != "" && !aliSessionNamePattern.MatchString(session):
		return nil, invalid("RoleSessionName", "is wrongly formed: 2 to 64 letters, digits, '.', '@', '-' or '_'.")
	}
	if session == "" {
		session = "oidc-session"
	}
	duration := aliSTSDefaultDuration
	if d := param("DurationSeconds"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < aliSTSMinDuration || n > aliSTSMaxDuration {
			return nil, invalid("DurationSeconds", fmt.Sprintf("must be between %d and the role's MaxSessionDuration (%d).", aliSTSMinDuration, aliSTSMaxDuration))
		}
		duration = n
	}
	m := aliRoleARNPattern.FindStringSubmatch(roleARN)
	if m == nil {
		return nil, invalid("RoleArn", "is wrongly formed: use acs:ram::<account ID>:role/<role name>.")
	}
	if m[1] != AlicloudAccountID {
		return nil, &aliSTSFailure{http.StatusNotFound, "EntityNotExist.Role", "The specified Role not exists: " + roleARN}
	}
	var prov *RAMOIDCProvider
	for i := range a.opts.OIDCProviders {
		if a.opts.OIDCProviders[i].ARN() == provARN {
			prov = &a.opts.OIDCProviders[i]
		}
	}
	if prov == nil {
		return nil, &aliSTSFailure{http.StatusNotFound, "EntityNotExist.OIDCProvider", "The specified OIDC provider does not exist: " + provARN}
	}
	claims, f := a.verifyOIDCToken(prov, token)
	if f != nil {
		return nil, f
	}
	now := a.opts.Now()
	sess := &aliSession{
		AccessKeyID:     "STS.NT" + rand.Text()[:20],
		AccessKeySecret: rand.Text() + rand.Text()[:18],
		SecurityToken:   "CAIS" + rand.Text() + rand.Text() + rand.Text(),
		Expiration:      now.Add(time.Duration(duration) * time.Second).UTC().Truncate(time.Second),
	}
	a.mu.Lock()
	if a.sessions == nil {
		a.sessions = map[string]*aliSession{}
	}
	for k, s := range a.sessions { // forget expired sessions
		if !now.Before(s.Expiration) {
			delete(a.sessions, k)
		}
	}
	a.sessions[sess.AccessKeyID] = sess
	a.mu.Unlock()
	sub, _ := claims.GetSubject()
	iss, _ := claims.GetIssuer()
	aud, _ := claims.GetAudience()
	exp, _ := claims.GetExpirationTime()
	iat, _ := claims.GetIssuedAt()
	tokenInfo := map[string]string{"Subject": sub, "Issuer": iss, "ClientIds": strings.Join(aud, ","), "VerificationInfo": "Success: The OIDC token is verified."}
	if exp != nil {
		tokenInfo["ExpirationTime"] = exp.UTC().Format(time.RFC3339)
	}
	if iat != nil {
		tokenInfo["IssuanceTime"] = iat.UTC().Format(time.RFC3339)
	}
	roleID := "3" + strings.Repeat("0", 12) + "1"
	return map[string]any{
		"RequestId":     reqID,
		"OIDCTokenInfo": tokenInfo,
		"AssumedRoleUser": map[string]string{
			"Arn":           roleARN + "/" + session,
			"AssumedRoleId": roleID + ":" + session,
		},
		"Credentials": map[string]string{
			"AccessKeyId": sess.AccessKeyID, "AccessKeySecret": sess.AccessKeySecret,
			"SecurityToken": sess.SecurityToken, "Expiration": sess.Expiration.Format(time.RFC3339),
		},
	}, nil
}

// verifyOIDCToken checks a token as Alibaba's STS does for a RAM OIDC
// provider: its issuer is the provider's, its signature matches a key of the
// issuer's JWKS, it is within exp/nbf/iat, and its audience is one of the
// provider's client IDs.
func (a *ACK) verifyOIDCToken(prov *RAMOIDCProvider, token string) (jwt.MapClaims, *aliSTSFailure) {
	fail := func(code, msg string) *aliSTSFailure {
		return &aliSTSFailure{http.StatusBadRequest, code, msg}
	}
	var unverified jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &unverified); err != nil {
		return nil, fail("InvalidParameter.OIDCToken", "The parameter OIDCToken is not a valid JWT.")
	}
	iss, _ := unverified["iss"].(string)
	if strings.TrimSuffix(iss, "/") != strings.TrimSuffix(prov.IssuerURL, "/") {
		return nil, fail("AuthenticationFail.OIDCToken.IssuerError", fmt.Sprintf("The issuer of the OIDC token (%s) does not match the issuer URL of the OIDC provider (%s).", iss, prov.IssuerURL))
	}
	claims, fetchErr, err := a.jwks.verify(token, iss, a.opts.Now)
	switch {
	case fetchErr != nil:
		return nil, fail("AuthenticationFail.OIDCToken.JWKSFetchError", "Failed to fetch the JWKS of the OIDC provider's issuer.")
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, fail("AuthenticationFail.OIDCToken.Expired", "The OIDC token has expired.")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return nil, fail("AuthenticationFail.OIDCToken.NotYetValid", "The OIDC token is not valid yet (nbf or iat is in the future).")
	case err != nil:
		return nil, fail("AuthenticationFail.OIDCToken.SignatureError", "The signature of the OIDC token does not match any key of the issuer's JWKS.")
	}
	if hasAudience(claims, prov.ClientIDs) {
		return claims, nil
	}
	return nil, fail("AuthenticationFail.OIDCToken.AudienceError", "The audience of the OIDC token is not a client ID of the OIDC provider.")
}

// stsSecret returns the secret of a live STS AccessKey ID whose security
// token is token, or false.
func (a *ACK) stsSecret(keyID, token string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[keyID]
	if s == nil || token != s.SecurityToken || !a.opts.Now().Before(s.Expiration) {
		return "", false
	}
	return s.AccessKeySecret, true
}
