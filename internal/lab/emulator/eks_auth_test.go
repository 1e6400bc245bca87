package emulator

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sts"
	authnv1 "k8s.io/api/authentication/v1"

	"github.com/hca-project/terraform-provider-hca/internal/cloud"
)

// eksReview posts a TokenReview for token to the webhook of cluster, as
// kube-apiserver does, and returns the review's status.
func eksReview(t *testing.T, base, cluster, token string) authnv1.TokenReviewStatus {
	t.Helper()
	in := authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{"https://kubernetes.default.svc"}}}
	in.APIVersion, in.Kind = "authentication.k8s.io/v1", "TokenReview"
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/authenticate/"+url.PathEscape(cluster), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("post TokenReview: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("TokenReview status %d", resp.StatusCode)
	}
	var out authnv1.TokenReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decode TokenReview: %v", err)
	}
	if out.APIVersion != "authentication.k8s.io/v1" || out.Kind != "TokenReview" {
		t.Errorf("response is %s %s, want authentication.k8s.io/v1 TokenReview", out.APIVersion, out.Kind)
	}
	return out.Status
}

// eksTamper decodes a token's URL, lets edit change its query, and re-encodes it.
func eksTamper(t *testing.T, token string, edit func(q url.Values)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, cloud.EKSTokenPrefix))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	edit(q)
	u.RawQuery = q.Encode()
	return cloud.EKSTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(u.String()))
}

func TestEKSTokenWebhook(t *testing.T) {
	_, base, clock := awsServe(t, awsNoLab(t))
	ctx := context.Background()
	mint := func(cli *sts.Client, cluster string) string {
		t.Helper()
		tok, err := cloud.EKSToken(ctx, cli, cluster)
		if err != nil {
			t.Fatalf("EKSToken: %v", err)
		}
		return tok.Value
	}
	labSTS := stsClient(awsLabConfig(), base)
	good := mint(labSTS, "burst-1")
	presignNoClusterHeader := func() string {
		p, err := sts.NewPresignClient(labSTS).PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatal(err)
		}
		return cloud.EKSTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(p.URL))
	}

	tests := []struct {
		name    string
		cluster string
		token   string
		advance time.Duration
		wantErr string // "" = authenticated
	}{
		{name: "valid", cluster: "burst-1", token: good},
		{name: "valid after 14 minutes", cluster: "burst-1", token: good, advance: 14 * time.Minute},
		{name: "expired after 15 minutes", cluster: "burst-1", token: good, advance: 16 * time.Minute, wantErr: "X-Amz-Date parameter is expired"},
		{name: "other cluster", cluster: "burst-2", token: good, wantErr: "signature we calculated does not match"},
		{name: "wrong secret", cluster: "burst-1", token: mint(stsClient(awsConfig(AWSAccessKeyID, "wrong"), base), "burst-1"), wantErr: "does not match"},
		{name: "unknown key", cluster: "burst-1", token: mint(stsClient(awsConfig("AKIAUNKNOWN000000001", "x"), base), "burst-1"), wantErr: "security token included in the request is invalid"},
		{name: "public sts host", cluster: "burst-1", token: mint(cloud.NewSTSClient(awsLabConfig(), ""), "burst-1"), wantErr: "unexpected scheme"},
		{name: "cluster header not signed", cluster: "burst-1", token: presignNoClusterHeader(), wantErr: "did not sign the x-k8s-aws-id header"},
		{name: "no prefix", cluster: "burst-1", token: strings.TrimPrefix(good, cloud.EKSTokenPrefix), wantErr: "missing expected"},
		{name: "not base64", cluster: "burst-1", token: cloud.EKSTokenPrefix + "%%%", wantErr: "not unpadded base64url"},
		{name: "other action", cluster: "burst-1", token: eksTamper(t, good, func(q url.Values) { q.Set("Action", "AssumeRole") }), wantErr: "unexpected action"},
		{name: "extra parameter", cluster: "burst-1", token: eksTamper(t, good, func(q url.Values) { q.Set("RoleArn", "x") }), wantErr: "non-whitelisted query parameter"},
		{name: "expires too long", cluster: "burst-1", token: eksTamper(t, good, func(q url.Values) { q.Set("X-Amz-Expires", "3600") }), wantErr: "invalid X-Amz-Expires"},
		{name: "date moved", cluster: "burst-1", token: eksTamper(t, good, func(q url.Values) {
			d, _ := time.Parse(awsAmzDateFormat, q.Get("X-Amz-Date"))
			q.Set("X-Amz-Date", d.Add(time.Second).Format(awsAmzDateFormat))
		}), wantErr: "does not match"},
		{name: "too large", cluster: "burst-1", token: cloud.EKSTokenPrefix + strings.Repeat("A", 5000), wantErr: "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock.offset.Store(int64(tc.advance))
			defer clock.offset.Store(0)
			st := eksReview(t, base, tc.cluster, tc.token)
			if tc.wantErr == "" {
				if !st.Authenticated || st.Error != "" {
					t.Fatalf("token rejected: %s", st.Error)
				}
				wantUser := "arn:aws:iam::" + AWSAccountID + ":user/hca-lab"
				if st.User.Username != wantUser || len(st.User.Groups) != 1 || st.User.Groups[0] != "system:masters" {
					t.Errorf("user = %q groups %v, want %q in system:masters", st.User.Username, st.User.Groups, wantUser)
				}
				if got := st.User.Extra["accessKeyId"]; len(got) != 1 || got[0] != AWSAccessKeyID {
					t.Errorf("extra accessKeyId = %v, want %s", got, AWSAccessKeyID)
				}
				if len(st.Audiences) != 1 || st.Audiences[0] != "https://kubernetes.default.svc" {
					t.Errorf("audiences = %v, want the requested audience", st.Audiences)
				}
				return
			}
			if st.Authenticated {
				t.Fatalf("token accepted, want rejection containing %q", tc.wantErr)
			}
			if !strings.Contains(st.Error, tc.wantErr) {
				t.Errorf("error = %q, want it to contain %q", st.Error, tc.wantErr)
			}
			if strings.Contains(st.Error, tc.token) || strings.Contains(st.Error, "X-Amz-Signature=") {
				t.Errorf("error %q leaks the token", st.Error)
			}
		})
	}
}

func TestSTSPresignedGet(t *testing.T) {
	_, base, clock := awsServe(t, awsNoLab(t))
	ctx := context.Background()
	p, err := sts.NewPresignClient(stsClient(awsLabConfig(), base)).PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		url        string
		accept     string
		advance    time.Duration
		wantStatus int
		wantBody   string
	}{
		{name: "xml", url: p.URL, wantStatus: 200, wantBody: "<Arn>arn:aws:iam::" + AWSAccountID + ":user/hca-lab</Arn>"},
		{name: "json", url: p.URL, accept: "application/json", wantStatus: 200, wantBody: `"Account":"` + AWSAccountID + `"`},
		{name: "expired", url: p.URL, advance: 16 * time.Minute, wantStatus: 403, wantBody: "<Code>ExpiredToken</Code>"},
		{name: "tampered", url: strings.Replace(p.URL, "Version=2011-06-15", "Version=2011-06-16", 1), wantStatus: 403, wantBody: "<Code>SignatureDoesNotMatch</Code>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock.offset.Store(int64(tc.advance))
			defer clock.offset.Store(0)
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(buf.String(), tc.wantBody) {
				t.Errorf("GET presigned = %d %s, want %d with %q", resp.StatusCode, buf.String(), tc.wantStatus, tc.wantBody)
			}
		})
	}
}
