package emulator

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"

	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

const aliOIDCAudience = "alicloud.workload.identity"

// aliSTSResponse is the part of AssumeRoleWithOIDC's answer the tests read.
type aliSTSResponse struct {
	Code, Message   string
	Credentials     struct{ AccessKeyId, AccessKeySecret, SecurityToken, Expiration string }
	OIDCTokenInfo   struct{ Subject, Issuer, ClientIds string }
	AssumedRoleUser struct{ Arn string }
}

// assumeRoleWithOIDC posts the call as the SDK's OIDC credentials provider
// does (query: Version, Action, Format; form body: the rest).
func assumeRoleWithOIDC(t *testing.T, base string, form url.Values) (int, aliSTSResponse) {
	t.Helper()
	q := url.Values{"Version": {"2015-04-01"}, "Action": {"AssumeRoleWithOIDC"}, "Format": {"JSON"}, "Timestamp": {time.Now().UTC().Format("2006-01-02T15:04:05Z")}}
	resp, err := http.Post(base+"/?"+q.Encode(), "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out aliSTSResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return resp.StatusCode, out
}

// TestAssumeRoleWithOIDC: tokens of the trusted issuer for the provider's
// audience get temporary credentials that the CS API of the same emulator
// accepts (through the unmodified CS SDK with NewClientWithStsToken) until
// they expire; forged, expired, foreign-audience or malformed requests are
// refused with Alibaba's error codes.
func TestAssumeRoleWithOIDC(t *testing.T) {
	clock := &awsTestClock{}
	iss := oidcServe(t, clock.now)
	forger := oidcServe(t, clock.now)             // another key at another URL
	forged, err := oidc.New(iss.URL(), clock.now) // the trusted URL, another key
	if err != nil {
		t.Fatal(err)
	}
	prov := RAMOIDCProvider{Name: "hcp-terraform", IssuerURL: iss.URL(), ClientIDs: []string{aliOIDCAudience}}
	a := NewACK(ackNoClusters{t}, ACKOptions{Now: clock.now, OIDCProviders: []RAMOIDCProvider{prov}})
	t.Cleanup(a.Close)
	mux := http.NewServeMux()
	mux.Handle("/sts/", http.StripPrefix("/sts", a.STSHandler()))
	mux.Handle("/", a)
	base := ackServe(t, mux)
	stsBase := base + "/sts"
	role := "acs:ram::" + AlicloudAccountID + ":role/hca-terraform"
	mint := func(i *oidc.Issuer, aud string, ttl time.Duration) string {
		tok, err := i.Mint(oidc.Claims{Subject: oidc.TFCSubject("org", "p", "ws", "apply"), Audience: aud, TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	form := func(mod func(url.Values)) url.Values {
		f := url.Values{"RoleArn": {role}, "OIDCProviderArn": {prov.ARN()}, "OIDCToken": {mint(iss, aliOIDCAudience, time.Hour)}, "RoleSessionName": {"terraform-run"}, "DurationSeconds": {"900"}}
		if mod != nil {
			mod(f)
		}
		return f
	}
	tests := []struct {
		name       string
		form       url.Values
		wantStatus int
		wantCode   string
	}{
		{"valid", form(nil), 200, ""},
		{"forged signature", form(func(f url.Values) { f.Set("OIDCToken", mint(forged, aliOIDCAudience, time.Hour)) }), 400, "AuthenticationFail.OIDCToken.SignatureError"},
		{"other issuer", form(func(f url.Values) { f.Set("OIDCToken", mint(forger, aliOIDCAudience, time.Hour)) }), 400, "AuthenticationFail.OIDCToken.IssuerError"},
		{"expired", form(func(f url.Values) { f.Set("OIDCToken", mint(iss, aliOIDCAudience, -time.Minute)) }), 400, "AuthenticationFail.OIDCToken.Expired"},
		{"AWS audience", form(func(f url.Values) { f.Set("OIDCToken", mint(iss, "aws.workload.identity", time.Hour)) }), 400, "AuthenticationFail.OIDCToken.AudienceError"},
		{"not a JWT", form(func(f url.Values) { f.Set("OIDCToken", "not-a-jwt") }), 400, "InvalidParameter.OIDCToken"},
		{"unknown provider", form(func(f url.Values) { f.Set("OIDCProviderArn", "acs:ram::"+AlicloudAccountID+":oidc-provider/other") }), 404, "EntityNotExist.OIDCProvider"},
		{"another account's role", form(func(f url.Values) { f.Set("RoleArn", "acs:ram::1234567890123456:role/x") }), 404, "EntityNotExist.Role"},
		{"malformed role", form(func(f url.Values) { f.Set("RoleArn", "arn:aws:iam::000000000000:role/x") }), 400, "InvalidParameter.RoleArn"},
		{"no token", form(func(f url.Values) { f.Del("OIDCToken") }), 400, "MissingParameter"},
		{"duration above the role's maximum", form(func(f url.Values) { f.Set("DurationSeconds", "7200") }), 400, "InvalidParameter.DurationSeconds"},
		{"bad session name", form(func(f url.Values) { f.Set("RoleSessionName", "a b") }), 400, "InvalidParameter.RoleSessionName"},
	}
	var creds aliSTSResponse
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := assumeRoleWithOIDC(t, stsBase, tt.form)
			if status != tt.wantStatus || out.Code != tt.wantCode {
				t.Fatalf("HTTP %d %q (%s), want %d %q", status, out.Code, out.Message, tt.wantStatus, tt.wantCode)
			}
			if tt.wantCode == "" {
				if !strings.HasPrefix(out.Credentials.AccessKeyId, "STS.") || out.Credentials.SecurityToken == "" ||
					out.OIDCTokenInfo.Issuer != iss.URL() || out.AssumedRoleUser.Arn != role+"/terraform-run" {
					t.Errorf("answer %+v", out)
				}
				creds = out
			}
		})
	}
	if creds.Credentials.AccessKeyId == "" {
		t.Fatal("no credentials issued")
	}
	list := func(token string) error {
		c, err := cs.NewClientWithStsToken("cn-hangzhou", creds.Credentials.AccessKeyId, creds.Credentials.AccessKeySecret, token)
		if err != nil {
			t.Fatal(err)
		}
		req := cs.CreateDescribeClustersV1Request()
		ackTarget(t, req.RoaRequest, base)
		_, err = c.DescribeClustersV1(req)
		return err
	}
	if err := list(creds.Credentials.SecurityToken); err != nil {
		t.Errorf("DescribeClustersV1 with the STS credentials: %v", err)
	}
	code := func(err error) string {
		if se, ok := err.(*sdkerrors.ServerError); ok {
			return se.ErrorCode()
		}
		return ""
	}
	if err := list("CAISwrong"); code(err) != "InvalidSecurityToken.Expired" {
		t.Errorf("with another security token: %v, want InvalidSecurityToken.Expired", err)
	}
	clock.advance(16 * time.Minute) // past the 900 s asked for
	if err := list(creds.Credentials.SecurityToken); code(err) != "InvalidSecurityToken.Expired" {
		t.Errorf("after expiry: %v, want InvalidSecurityToken.Expired", err)
	}
}
