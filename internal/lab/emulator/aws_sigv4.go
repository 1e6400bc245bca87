package emulator

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const (
	awsSigningAlgorithm = "AWS4-HMAC-SHA256"
	awsAmzDateFormat    = "20060102T150405Z"
	// awsMaxSkew is how far a header-signed request's X-Amz-Date may be from now.
	awsMaxSkew = 5 * time.Minute
	// awsPresignedValidity is how long STS honours a presigned URL after its
	// X-Amz-Date, whatever X-Amz-Expires says (what aws-iam-authenticator relies on).
	awsPresignedValidity = 15 * time.Minute
	awsEmptySHA256       = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// awsAuthKind says why a request's signature was refused; each service renders
// it with its own error code.
type awsAuthKind int

const (
	awsAuthMissing      awsAuthKind = iota + 1 // no Authorization header nor query auth
	awsAuthIncomplete                          // malformed Authorization / query auth
	awsAuthUnknownKey                          // access key id not of this account
	awsAuthBadSignature                        // signature does not match
	awsAuthExpired                             // X-Amz-Date too old (or in the future)
)

type awsAuthError struct {
	kind awsAuthKind
	msg  string
}

func (e *awsAuthError) Error() string { return e.msg }

// awsCaller is who signed a request, from its credential scope.
type awsCaller struct {
	AccessKeyID string
	Region      string
	Service     string
	// Session is the role session of temporary credentials; nil for the lab
	// user's long-term key.
	Session *stsSession

	secret string
}

// awsSignedRequest is what a SigV4 signature covers.
type awsSignedRequest struct {
	Method        string
	Scheme        string
	Host          string
	Path          string // escaped path as sent
	RawQuery      string
	Header        http.Header
	ContentLength int64
	Body          []byte
}

func awsFromHTTP(r *http.Request, scheme string, body []byte) awsSignedRequest {
	return awsSignedRequest{
		Method:        r.Method,
		Scheme:        scheme,
		Host:          r.Host,
		Path:          r.URL.EscapedPath(),
		RawQuery:      r.URL.RawQuery,
		Header:        r.Header,
		ContentLength: r.ContentLength,
		Body:          body,
	}
}

// awsVerify checks the SigV4 signature of a request, in its Authorization
// header or (presigned) in its query, against the lab credentials, for service.
func (a *AWS) awsVerify(req awsSignedRequest, service string) (awsCaller, *awsAuthError) {
	if auth := firstHeader(req.Header, "Authorization"); auth != "" {
		return a.awsVerifyHeader(req, auth, service)
	}
	q, err := url.ParseQuery(req.RawQuery)
	if err == nil && q.Get("X-Amz-Algorithm") != "" {
		return a.awsVerifyPresigned(req, q, service)
	}
	return awsCaller{}, &awsAuthError{kind: awsAuthMissing, msg: "Missing Authentication Token"}
}

func (a *AWS) awsVerifyHeader(req awsSignedRequest, auth, service string) (awsCaller, *awsAuthError) {
	alg, rest, _ := strings.Cut(auth, " ")
	if alg != awsSigningAlgorithm {
		return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: "Unsupported AWS 'algorithm': '" + alg + "'."}
	}
	fields := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			fields[k] = v
		}
	}
	for _, k := range []string{"Credential", "SignedHeaders", "Signature"} {
		if fields[k] == "" {
			return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: "Authorization header requires '" + k + "' parameter. Authorization=" + alg}
		}
	}
	caller, amzDate, aerr := a.awsCheckScope(fields["Credential"], firstHeader(req.Header, "X-Amz-Date"), service)
	if aerr != nil {
		return awsCaller{}, aerr
	}
	if d := a.now().Sub(amzDate); d > awsMaxSkew || d < -awsMaxSkew {
		return awsCaller{}, awsSkewError(amzDate, a.now())
	}

	signed := strings.Split(fields["SignedHeaders"], ";")
	sreq, err := awsRebuild(req, req.RawQuery, signed)
	if err != nil {
		return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: err.Error()}
	}
	payloadHash := firstHeader(req.Header, "X-Amz-Content-Sha256")
	if payloadHash == "" {
		sum := sha256.Sum256(req.Body)
		payloadHash = hex.EncodeToString(sum[:])
	}
	if aerr := a.awsCheckSessionToken(caller, firstHeader(req.Header, "X-Amz-Security-Token")); aerr != nil {
		return awsCaller{}, aerr
	}
	creds := aws.Credentials{AccessKeyID: caller.AccessKeyID, SecretAccessKey: caller.secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, sreq, payloadHash, caller.Service, caller.Region, amzDate); err != nil {
		return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: "cannot compute the request signature: " + err.Error()}
	}
	_, want, _ := strings.Cut(sreq.Header.Get("Authorization"), "Signature=")
	if !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		return awsCaller{}, awsMismatch()
	}
	return caller, nil
}

func (a *AWS) awsVerifyPresigned(req awsSignedRequest, q url.Values, service string) (awsCaller, *awsAuthError) {
	if alg := q.Get("X-Amz-Algorithm"); alg != awsSigningAlgorithm {
		return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: "Unsupported AWS 'algorithm': '" + alg + "'."}
	}
	for _, k := range []string{"X-Amz-Credential", "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Date"} {
		if q.Get(k) == "" {
			return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: "AWS query-string parameters must include '" + k + "'. Re-examine the query-string parameters."}
		}
	}
	caller, amzDate, aerr := a.awsCheckScope(q.Get("X-Amz-Credential"), q.Get("X-Amz-Date"), service)
	if aerr != nil {
		return awsCaller{}, aerr
	}
	now := a.now()
	if now.After(amzDate.Add(awsPresignedValidity)) {
		return awsCaller{}, &awsAuthError{kind: awsAuthExpired, msg: "Signature expired: " + amzDate.Format(awsAmzDateFormat) +
			" is now earlier than " + now.Add(-awsPresignedValidity).UTC().Format(awsAmzDateFormat) + " (" + now.UTC().Format(awsAmzDateFormat) + " - 15 min.)"}
	}
	if amzDate.Sub(now) > awsMaxSkew {
		return awsCaller{}, awsSkewError(amzDate, now)
	}
	got := q.Get("X-Amz-Signature")
	q.Del("X-Amz-Signature")
	sreq, err := awsRebuild(req, q.Encode(), strings.Split(q.Get("X-Amz-SignedHeaders"), ";"))
	if err != nil {
		return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: err.Error()}
	}
	if aerr := a.awsCheckSessionToken(caller, q.Get("X-Amz-Security-Token")); aerr != nil {
		return awsCaller{}, aerr
	}
	creds := aws.Credentials{AccessKeyID: caller.AccessKeyID, SecretAccessKey: caller.secret}
	signedURL, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, sreq, awsEmptySHA256, caller.Service, caller.Region, amzDate)
	if err != nil {
		return awsCaller{}, &awsAuthError{kind: awsAuthIncomplete, msg: "cannot compute the request signature: " + err.Error()}
	}
	su, err := url.Parse(signedURL)
	if err != nil || !hmac.Equal([]byte(su.Query().Get("X-Amz-Signature")), []byte(got)) {
		return awsCaller{}, awsMismatch()
	}
	return caller, nil
}

// awsCheckScope validates a credential scope (AKID/date/region/service/aws4_request)
// against the lab key, the expected service and the request's X-Amz-Date.
func (a *AWS) awsCheckScope(cred, amzDate, service string) (awsCaller, time.Time, *awsAuthError) {
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return awsCaller{}, time.Time{}, &awsAuthError{kind: awsAuthIncomplete, msg: "Credential should be scoped to a valid region, not '" + strings.Join(parts[min(2, len(parts)):], "/") + "'."}
	}
	caller := awsCaller{AccessKeyID: parts[0], Region: parts[2], Service: parts[3], secret: AWSSecretAccessKey}
	if parts[0] != AWSAccessKeyID {
		sess := a.session(parts[0])
		if sess == nil {
			return awsCaller{}, time.Time{}, &awsAuthError{kind: awsAuthUnknownKey, msg: "The security token included in the request is invalid."}
		}
		caller.Session, caller.secret = sess, sess.SecretAccessKey
	}
	if parts[3] != service {
		return awsCaller{}, time.Time{}, &awsAuthError{kind: awsAuthBadSignature, msg: "Credential should be scoped to correct service: '" + service + "'. "}
	}
	t, err := time.Parse(awsAmzDateFormat, amzDate)
	if err != nil {
		return awsCaller{}, time.Time{}, &awsAuthError{kind: awsAuthIncomplete, msg: "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."}
	}
	if t.Format("20060102") != parts[1] {
		return awsCaller{}, time.Time{}, &awsAuthError{kind: awsAuthBadSignature, msg: "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" + parts[1] + "' != '" + t.Format("20060102") + "', from '" + amzDate + "'."}
	}
	return caller, t, nil
}

// awsCheckSessionToken checks that temporary credentials come with their
// session token and have not expired; the lab user's key needs no token.
func (a *AWS) awsCheckSessionToken(c awsCaller, token string) *awsAuthError {
	if c.Session == nil {
		return nil
	}
	if !hmac.Equal([]byte(token), []byte(c.Session.SessionToken)) {
		return &awsAuthError{kind: awsAuthUnknownKey, msg: "The security token included in the request is invalid."}
	}
	if !a.now().Before(c.Session.Expiration) {
		return &awsAuthError{kind: awsAuthExpired, msg: "The security token included in the request is expired"}
	}
	return nil
}

// awsRebuild makes a request carrying only what the client signed, for the SDK
// signer to sign again.
func awsRebuild(req awsSignedRequest, rawQuery string, signed []string) (*http.Request, error) {
	u := &url.URL{Scheme: req.Scheme, Host: req.Host, RawQuery: rawQuery}
	p, err := url.PathUnescape(req.Path)
	if err != nil {
		return nil, err
	}
	u.Path, u.RawPath = p, req.Path
	out, err := http.NewRequestWithContext(context.Background(), req.Method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	out.URL = u
	out.Host = req.Host
	for _, h := range signed {
		switch h = strings.ToLower(strings.TrimSpace(h)); h {
		case "host", "":
		case "content-length":
			out.ContentLength = req.ContentLength
		default:
			out.Header[textproto.CanonicalMIMEHeaderKey(h)] = req.Header.Values(h)
		}
	}
	return out, nil
}

func awsMismatch() *awsAuthError {
	return &awsAuthError{kind: awsAuthBadSignature, msg: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."}
}

func awsSkewError(signed, now time.Time) *awsAuthError {
	f := func(t time.Time) string { return t.UTC().Format(awsAmzDateFormat) }
	if signed.Before(now) {
		return &awsAuthError{kind: awsAuthExpired, msg: "Signature expired: " + f(signed) + " is now earlier than " + f(now.Add(-awsMaxSkew)) + " (" + f(now) + " - 5 min.)"}
	}
	return &awsAuthError{kind: awsAuthExpired, msg: "Signature not yet current: " + f(signed) + " is still later than " + f(now.Add(awsMaxSkew)) + " (" + f(now) + " + 5 min.)"}
}

func firstHeader(h http.Header, name string) string {
	if v := h.Values(name); len(v) > 0 {
		return v[0]
	}
	return ""
}
