package provider

import (
	"strings"
	"testing"
	"time"
)

func TestResolveAlicloudOIDC(t *testing.T) {
	const (
		role = "acs:ram::1234567890123456:role/hca-terraform"
		idp  = "acs:ram::1234567890123456:oidc-provider/hcp-terraform"
		// jwt is shaped like a token; a secret no problem may quote.
		jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQifQ.c2lnbmF0dXJl"
	)
	ali := func(o rawAliOIDC, keys ...string) rawConfig {
		a := &rawAlicloud{Region: known("cn-hangzhou"), OIDC: &o}
		if len(keys) == 2 {
			a.AccessKey, a.SecretKey = known(keys[0]), known(keys[1])
		}
		return rawConfig{Alicloud: a}
	}
	tests := []struct {
		name     string
		cfg      rawConfig
		env      map[string]string
		check    func(t *testing.T, s *aliOIDCSettings)
		problems []wantProblem
	}{
		{
			name: "everything from configuration",
			cfg:  ali(rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp), Token: known(jwt), SessionName: known("tfc-run"), Duration: known("30m")}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: "ignored.when.set", EnvAlicloudRoleARN: "acs:ram::1:role/env"},
			check: func(t *testing.T, s *aliOIDCSettings) {
				wantSetting(t, s.RoleARN, role, "")
				wantSetting(t, s.ProviderARN, idp, "")
				wantSetting(t, s.Token, jwt, "")
				wantSetting(t, s.SessionName, "tfc-run", "")
				if s.TokenFile.IsSet() || s.DurationValue != 30*time.Minute {
					t.Errorf("token file %v, duration %v; want unset and 30m", s.TokenFile.IsSet(), s.DurationValue)
				}
			},
		},
		{
			name: "token from TFC_WORKLOAD_IDENTITY_TOKEN, ARNs from the SDK's variables",
			cfg:  ali(rawAliOIDC{}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: jwt, EnvAlicloudRoleARN: role, EnvAlicloudOIDCProviderARN: idp, EnvAlicloudOIDCTokenFile: "/var/run/token"},
			check: func(t *testing.T, s *aliOIDCSettings) {
				wantSetting(t, s.Token, jwt, EnvTFCWorkloadIdentityToken)
				wantSetting(t, s.RoleARN, role, EnvAlicloudRoleARN)
				wantSetting(t, s.ProviderARN, idp, EnvAlicloudOIDCProviderARN)
				if s.TokenFile.IsSet() {
					t.Error("token file set, want the token only")
				}
			},
		},
		{
			name: "token file from ALIBABA_CLOUD_OIDC_TOKEN_FILE",
			cfg:  ali(rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp)}),
			env:  map[string]string{EnvAlicloudOIDCTokenFile: "/var/run/token"},
			check: func(t *testing.T, s *aliOIDCSettings) {
				wantSetting(t, s.TokenFile, "/var/run/token", EnvAlicloudOIDCTokenFile)
			},
		},
		{
			name: "AccessKey variables are ignored beside the block",
			cfg:  ali(rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp), Token: known(jwt)}),
			env:  map[string]string{EnvAlicloudAccessKey: "LTAIenv", EnvAlicloudSecretKey: "secret"},
		},
		{
			name: "AccessKey in the configuration conflicts",
			cfg:  ali(rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp), Token: known(jwt)}, "LTAIcfg", "secret"),
			problems: []wantProblem{{pathAlicloudAccessKey, "Conflicting alicloud credentials",
				[]string{"alicloud.access_key and alicloud.assume_role_with_oidc are both set"}}},
		},
		{
			name: "nothing given",
			cfg:  ali(rawAliOIDC{}),
			problems: []wantProblem{
				{pathAliOIDCToken, "Missing OIDC token", []string{"Set oidc_token or oidc_token_file", "TFC_WORKLOAD_IDENTITY_TOKEN", "ALIBABA_CLOUD_OIDC_TOKEN_FILE"}},
				{pathAliOIDCRoleARN, "Missing alicloud.assume_role_with_oidc.role_arn", []string{"ALIBABA_CLOUD_ROLE_ARN", "acs:ram::1234567890123456:role/hca-terraform"}},
				{pathAliOIDCProviderARN, "Missing alicloud.assume_role_with_oidc.oidc_provider_arn", []string{"ALIBABA_CLOUD_OIDC_PROVIDER_ARN"}},
			},
		},
		{
			name: "token and token file",
			cfg:  ali(rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp), Token: known(jwt), TokenFile: known("/tmp/t")}),
			problems: []wantProblem{{pathAliOIDCToken, "Conflicting alicloud.assume_role_with_oidc token sources",
				[]string{"oidc_token and oidc_token_file are both set"}}},
		},
		{
			name: "AWS ARNs, bad session name, duration past the SDK's hour",
			cfg: ali(rawAliOIDC{RoleARN: known("arn:aws:iam::123456789012:role/hca"), ProviderARN: known("hcp-terraform"), Token: known(jwt),
				SessionName: known("a b"), Duration: known("2h")}),
			problems: []wantProblem{
				{pathAliOIDCRoleARN, "Invalid alicloud.assume_role_with_oidc.role_arn", []string{"the ARN of the RAM role", `got "arn:aws:iam::123456789012:role/hca"`}},
				{pathAliOIDCProviderARN, "Invalid alicloud.assume_role_with_oidc.oidc_provider_arn", []string{`got "hcp-terraform"`}},
				{pathAliOIDCSessionName, "Invalid alicloud.assume_role_with_oidc.session_name", []string{`got "a b"`}},
				{pathAliOIDCDuration, "Invalid alicloud.assume_role_with_oidc.duration", []string{"between 15m and 1h", `got "2h"`}},
			},
		},
		{
			name: "environment token with a trailing newline",
			cfg:  ali(rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp)}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: jwt + "\n"},
			problems: []wantProblem{{pathAliOIDCToken, "Invalid OIDC token",
				[]string{"(from TFC_WORKLOAD_IDENTITY_TOKEN) must be a JSON Web Token"}}},
		},
		{
			name: "STS endpoint over plain HTTP",
			cfg: rawConfig{Alicloud: &rawAlicloud{OIDC: &rawAliOIDC{RoleARN: known(role), ProviderARN: known(idp), Token: known(jwt)}},
				Endpoints: &rawEndpoints{AlicloudSTS: known("http://127.0.0.1:8443")}},
			problems: []wantProblem{{pathEndpointAliSTS, "Invalid endpoints.alicloud_sts", []string{"must be an https:// URL without a path"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, probs := resolve(tt.cfg, func(k string) string { return tt.env[k] })
			if len(probs) != len(tt.problems) {
				t.Fatalf("got %d problems %+v, want %d", len(probs), probs, len(tt.problems))
			}
			for i, want := range tt.problems {
				got := probs[i]
				if !got.Path.Equal(want.path) || got.Summary != want.summary {
					t.Errorf("problem %d = %s %q, want %s %q", i, got.Path, got.Summary, want.path, want.summary)
				}
				for _, frag := range want.detail {
					if !strings.Contains(got.Detail, frag) {
						t.Errorf("problem %d detail %q does not contain %q", i, got.Detail, frag)
					}
				}
				if strings.Contains(got.Detail, jwt) {
					t.Errorf("problem %d detail leaks the token: %q", i, got.Detail)
				}
			}
			if tt.check != nil {
				if s.Alicloud.OIDC == nil {
					t.Fatal("assume_role_with_oidc not resolved")
				}
				tt.check(t, s.Alicloud.OIDC)
			}
		})
	}
}
