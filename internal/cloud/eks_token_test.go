package cloud

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

func testConfig() aws.Config {
	return aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTESTCLOUD0000001", "secret-for-test", ""),
	}
}

func TestEKSTokenFormat(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string
		cluster  string
		wantHost string
		wantPath string
	}{
		{name: "custom endpoint", endpoint: "http://127.0.0.1:4566", cluster: "burst-1", wantHost: "127.0.0.1:4566", wantPath: "/"},
		{name: "public sts", endpoint: "", cluster: "prod_cluster", wantHost: "sts.us-east-1.amazonaws.com", wantPath: "/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now()
			tok, err := EKSToken(context.Background(), NewSTSClient(testConfig(), tc.endpoint), tc.cluster)
			after := time.Now()
			if err != nil {
				t.Fatalf("EKSToken: %v", err)
			}
			if !strings.HasPrefix(tok.Value, EKSTokenPrefix) {
				t.Fatalf("token does not start with %q", EKSTokenPrefix)
			}
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok.Value, EKSTokenPrefix))
			if err != nil {
				t.Fatalf("token is not unpadded base64url: %v", err)
			}
			u, err := url.Parse(string(raw))
			if err != nil {
				t.Fatalf("decoded token is not a URL: %v", err)
			}
			if u.Host != tc.wantHost || u.Path != tc.wantPath {
				t.Errorf("presigned URL host/path = %q %q, want %q %q", u.Host, u.Path, tc.wantHost, tc.wantPath)
			}
			q := u.Query()
			checks := map[string]string{
				"Action":          "GetCallerIdentity",
				"Version":         "2011-06-15",
				"X-Amz-Algorithm": "AWS4-HMAC-SHA256",
				"X-Amz-Expires":   "60",
			}
			for k, want := range checks {
				if got := q.Get(k); got != want {
					t.Errorf("query %s = %q, want %q", k, got, want)
				}
			}
			signed := strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
			if !contains(signed, EKSClusterIDHeader) || !contains(signed, "host") {
				t.Errorf("X-Amz-SignedHeaders = %q, want host and %s", q.Get("X-Amz-SignedHeaders"), EKSClusterIDHeader)
			}
			cred := strings.Split(q.Get("X-Amz-Credential"), "/")
			if len(cred) != 5 || cred[0] != "AKIDTESTCLOUD0000001" || cred[2] != "us-east-1" || cred[3] != "sts" || cred[4] != "aws4_request" {
				t.Errorf("X-Amz-Credential = %q, want AKIDTESTCLOUD0000001/<date>/us-east-1/sts/aws4_request", q.Get("X-Amz-Credential"))
			}
			date, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
			if err != nil {
				t.Fatalf("X-Amz-Date %q: %v", q.Get("X-Amz-Date"), err)
			}
			if date.Before(before.Truncate(time.Second)) || date.After(after) {
				t.Errorf("X-Amz-Date %v is not the minting time (%v..%v)", date, before, after)
			}
			if len(q.Get("X-Amz-Signature")) != 64 {
				t.Errorf("X-Amz-Signature %q is not a hex SHA-256 HMAC", q.Get("X-Amz-Signature"))
			}
			if tok.Expiration.Before(before.Add(14*time.Minute)) || tok.Expiration.After(after.Add(14*time.Minute)) {
				t.Errorf("Expiration %v, want 14 minutes after minting (%v)", tok.Expiration, before)
			}
		})
	}
}

func TestEKSTokenBadInput(t *testing.T) {
	tests := []struct {
		name    string
		cluster string
		nilCli  bool
		wantErr string
	}{
		{name: "empty cluster", cluster: "", wantErr: "cluster name is empty"},
		{name: "nil client", cluster: "c", nilCli: true, wantErr: "sts client is nil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cli := NewSTSClient(testConfig(), "")
			if tc.nilCli {
				cli = nil
			}
			_, err := EKSToken(context.Background(), cli, tc.cluster)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("EKSToken error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
