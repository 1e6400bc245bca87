package emulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
)

// EKS bearer tokens (aws-iam-authenticator "v1" format).
const (
	eksTokenPrefix     = "k8s-aws-v1."
	eksClusterIDHeader = "x-k8s-aws-id"
	eksMaxTokenLen     = 4 * 1024
	eksAdminGroup      = "system:masters"
)

// eksTokenParams are the query parameters a token's presigned URL may carry.
var eksTokenParams = map[string]bool{
	"action": true, "version": true, "x-amz-algorithm": true, "x-amz-credential": true,
	"x-amz-date": true, "x-amz-expires": true, "x-amz-security-token": true,
	"x-amz-signature": true, "x-amz-signedheaders": true,
}

// serveTokenReview is the authentication webhook of the lab clusters behind EKS
// clusters: kube-apiserver posts a TokenReview for every bearer token it does
// not know, and the token is accepted when it is a presigned STS
// GetCallerIdentity URL for this emulator, signed with the lab credentials for
// this cluster (the signed x-k8s-aws-id header). The caller is the cluster
// creator, hence an administrator, as on EKS.
func (a *AWS) serveTokenReview(w http.ResponseWriter, r *http.Request) {
	cluster := r.PathValue("cluster")
	var review authnv1.TokenReview
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, &review)
	}
	if err != nil || review.Kind != "TokenReview" {
		http.Error(w, fmt.Sprintf("the body must be an authentication.k8s.io TokenReview (%v)", err), http.StatusBadRequest)
		return
	}
	apiVersion := review.APIVersion
	if apiVersion == "" {
		apiVersion = "authentication.k8s.io/v1"
	}
	out := authnv1.TokenReview{}
	out.APIVersion, out.Kind = apiVersion, "TokenReview"
	if caller, err := a.eksVerifyToken(review.Spec.Token, cluster); err != nil {
		out.Status = authnv1.TokenReviewStatus{Authenticated: false, Error: err.Error()}
	} else {
		// As aws-iam-authenticator: an assumed role is named by its canonical
		// role ARN, its session in the extras.
		arn, canonical, uid := stsCallerARN(), stsCallerARN(), stsUserID
		if s := caller.Session; s != nil {
			arn, canonical, uid = s.AssumedRoleARN(), s.RoleARN, s.RoleID
		}
		akid := caller.AccessKeyID
		out.Status = authnv1.TokenReviewStatus{
			Authenticated: true,
			User: authnv1.UserInfo{
				Username: canonical,
				UID:      "aws-iam-authenticator:" + AWSAccountID + ":" + uid,
				Groups:   []string{eksAdminGroup},
				Extra: map[string]authnv1.ExtraValue{
					"accessKeyId":  {akid},
					"arn":          {arn},
					"canonicalArn": {canonical},
				},
			},
			Audiences: review.Spec.Audiences,
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// eksVerifyToken checks an EKS bearer token for cluster as aws-iam-authenticator
// does, then replays its presigned URL against the emulated STS. It returns the
// caller that signed it. Errors never contain the token.
func (a *AWS) eksVerifyToken(token, cluster string) (awsCaller, error) {
	formatErr := func(format string, args ...any) error {
		return fmt.Errorf("input token was not properly formatted: "+format, args...)
	}
	if len(token) > eksMaxTokenLen {
		return awsCaller{}, formatErr("token is too large")
	}
	if !strings.HasPrefix(token, eksTokenPrefix) {
		return awsCaller{}, formatErr("token is missing expected %q prefix", eksTokenPrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, eksTokenPrefix))
	if err != nil {
		return awsCaller{}, formatErr("token is not unpadded base64url: %v", err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return awsCaller{}, formatErr("the token does not hold a URL")
	}
	if u.Scheme != a.base.Scheme {
		return awsCaller{}, formatErr("unexpected scheme %q in pre-signed URL (want %q)", u.Scheme, a.base.Scheme)
	}
	if u.Host != a.base.Host {
		return awsCaller{}, formatErr("unexpected hostname %q in pre-signed URL: tokens must be presigned for this cluster's STS endpoint %s", u.Host, a.base.Host)
	}
	if u.Path != "/" {
		return awsCaller{}, formatErr("unexpected path in pre-signed URL")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return awsCaller{}, formatErr("malformed query parameter")
	}
	lower := url.Values{}
	for k, v := range q {
		lk := strings.ToLower(k)
		if !eksTokenParams[lk] {
			return awsCaller{}, formatErr("non-whitelisted query parameter %q", k)
		}
		if len(v) != 1 || lower.Has(lk) {
			return awsCaller{}, formatErr("duplicate query parameter %q", k)
		}
		lower.Set(lk, v[0])
	}
	if lower.Get("action") != "GetCallerIdentity" {
		return awsCaller{}, formatErr("unexpected action parameter in pre-signed URL")
	}
	signed := false
	for _, h := range strings.Split(lower.Get("x-amz-signedheaders"), ";") {
		signed = signed || strings.EqualFold(h, eksClusterIDHeader)
	}
	if !signed {
		return awsCaller{}, formatErr("client did not sign the %s header in the pre-signed URL", eksClusterIDHeader)
	}
	expires, err := strconv.Atoi(lower.Get("x-amz-expires"))
	if err != nil || expires < 0 || expires > 900 {
		return awsCaller{}, formatErr("invalid X-Amz-Expires parameter in pre-signed URL: %d", expires)
	}
	date, err := time.Parse(awsAmzDateFormat, lower.Get("x-amz-date"))
	if err != nil {
		return awsCaller{}, formatErr("error parsing X-Amz-Date parameter %q into format %s", lower.Get("x-amz-date"), awsAmzDateFormat)
	}
	if a.now().After(date.Add(awsPresignedValidity)) {
		return awsCaller{}, formatErr("X-Amz-Date parameter is expired (15 minute expiration) %s", date)
	}
	// What the authenticator does next: GET the URL from STS with the cluster
	// name in x-k8s-aws-id. STS checks the signature and names the caller.
	req := awsSignedRequest{
		Method:   http.MethodGet,
		Scheme:   u.Scheme,
		Host:     u.Host,
		Path:     u.EscapedPath(),
		RawQuery: u.RawQuery,
		Header:   http.Header{"X-K8s-Aws-Id": {cluster}},
	}
	caller, aerr := a.awsVerify(req, "sts")
	if aerr != nil {
		return awsCaller{}, fmt.Errorf("sts getCallerIdentity failed: error from AWS (expected 200, got 403): %s", aerr.msg)
	}
	if lower.Get("version") != stsVersion {
		return awsCaller{}, fmt.Errorf("sts getCallerIdentity failed: error from AWS (expected 200, got 400): version %q is not supported", lower.Get("version"))
	}
	return caller, nil
}
