package provider

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestResolveWebIdentity(t *testing.T) {
	const (
		role = "arn:aws:iam::123456789012:role/hca"
		// jwt is shaped like a token (three dot-separated parts); it is a
		// secret that no problem may quote.
		jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQifQ.c2lnbmF0dXJl"
	)
	wi := func(w rawWebIdentity) rawConfig { return rawConfig{AWS: &rawAWS{WebIdentity: &w}} }
	tests := []struct {
		name     string
		cfg      rawConfig
		env      map[string]string
		check    func(t *testing.T, s *webIdentitySettings)
		problems []wantProblem
	}{
		{
			name: "token and duration from configuration",
			cfg:  wi(rawWebIdentity{RoleARN: known(role), SessionName: known("tfc-run"), WebIdentityToken: known(jwt), Duration: known("2h")}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: "ignored.when.set", EnvAWSRoleARN: "arn:aws:iam::999999999999:role/env"},
			check: func(t *testing.T, s *webIdentitySettings) {
				wantSetting(t, s.RoleARN, role, "")
				wantSetting(t, s.SessionName, "tfc-run", "")
				wantSetting(t, s.Token, jwt, "")
				if s.TokenFile.IsSet() || s.DurationValue != 2*time.Hour {
					t.Errorf("token file set %v, duration %v; want unset and 2h", s.TokenFile.IsSet(), s.DurationValue)
				}
			},
		},
		{
			name: "token from TFC_WORKLOAD_IDENTITY_TOKEN, role from AWS_ROLE_ARN",
			cfg:  wi(rawWebIdentity{}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: jwt, EnvAWSRoleARN: role, EnvAWSWebIdentityTokenFile: "/var/run/token"},
			check: func(t *testing.T, s *webIdentitySettings) {
				wantSetting(t, s.Token, jwt, EnvTFCWorkloadIdentityToken)
				wantSetting(t, s.RoleARN, role, EnvAWSRoleARN)
				if s.TokenFile.IsSet() || s.SessionName.IsSet() || s.DurationValue != 0 {
					t.Errorf("token file %v, session %v, duration %v: want all unset", s.TokenFile.IsSet(), s.SessionName.IsSet(), s.DurationValue)
				}
			},
		},
		{
			name: "token file from AWS_WEB_IDENTITY_TOKEN_FILE when no token",
			cfg:  wi(rawWebIdentity{RoleARN: known(role)}),
			env:  map[string]string{EnvAWSWebIdentityTokenFile: "/var/run/token", EnvAWSRoleSessionName: "from-env"},
			check: func(t *testing.T, s *webIdentitySettings) {
				wantSetting(t, s.TokenFile, "/var/run/token", EnvAWSWebIdentityTokenFile)
				wantSetting(t, s.SessionName, "from-env", EnvAWSRoleSessionName)
			},
		},
		{
			name: "configured token file beats the environment token",
			cfg:  wi(rawWebIdentity{RoleARN: known(role), WebIdentityTokenFile: known("/tmp/t")}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: jwt},
			check: func(t *testing.T, s *webIdentitySettings) {
				wantSetting(t, s.TokenFile, "/tmp/t", "")
				if s.Token.IsSet() {
					t.Error("token set, want only the file")
				}
			},
		},
		{
			name: "no token anywhere, no role",
			cfg:  wi(rawWebIdentity{}),
			problems: []wantProblem{
				{pathWIToken, "Missing web identity token", []string{"Set web_identity_token or web_identity_token_file", "TFC_WORKLOAD_IDENTITY_TOKEN", "TFC_WORKLOAD_IDENTITY_AUDIENCE"}},
				{pathWIRoleARN, "Missing aws.assume_role_with_web_identity.role_arn", []string{"or the AWS_ROLE_ARN environment variable"}},
			},
		},
		{
			name: "token and token file both set",
			cfg:  wi(rawWebIdentity{RoleARN: known(role), WebIdentityToken: known(jwt), WebIdentityTokenFile: known("/tmp/t")}),
			problems: []wantProblem{{pathWIToken, "Conflicting aws.assume_role_with_web_identity token sources",
				[]string{"web_identity_token and web_identity_token_file are both set"}}},
		},
		{
			name: "token is not a JWT",
			cfg:  wi(rawWebIdentity{RoleARN: known(role), WebIdentityToken: known("secret.with spaces.in it")}),
			problems: []wantProblem{{pathWIToken, "Invalid web identity token",
				[]string{"aws.assume_role_with_web_identity.web_identity_token must be a JSON Web Token", "trimspace()"}}},
		},
		{
			name: "environment token with a trailing newline",
			cfg:  wi(rawWebIdentity{RoleARN: known(role)}),
			env:  map[string]string{EnvTFCWorkloadIdentityToken: jwt + "\n"},
			problems: []wantProblem{{pathWIToken, "Invalid web identity token",
				[]string{"(from TFC_WORKLOAD_IDENTITY_TOKEN) must be a JSON Web Token"}}},
		},
		{
			name: "invalid role, session name and durations",
			cfg:  wi(rawWebIdentity{RoleARN: known("hca"), SessionName: known("a"), WebIdentityToken: known(jwt), Duration: known("5m")}),
			problems: []wantProblem{
				{pathWIRoleARN, "Invalid aws.assume_role_with_web_identity.role_arn", []string{`got "hca"`}},
				{pathWISessionName, "Invalid aws.assume_role_with_web_identity.session_name", []string{"2 to 64 characters", `got "a"`}},
				{pathWIDuration, "Invalid aws.assume_role_with_web_identity.duration", []string{"between 15m and 12h", `got "5m"`}},
			},
		},
		{
			name: "duration not a duration",
			cfg:  wi(rawWebIdentity{RoleARN: known(role), WebIdentityToken: known(jwt), Duration: known("3600")}),
			problems: []wantProblem{{pathWIDuration, "Invalid aws.assume_role_with_web_identity.duration",
				[]string{`such as "1h" or "90m"; got "3600"`}}},
		},
		{
			name: "empty role_arn",
			cfg:  wi(rawWebIdentity{RoleARN: known(""), WebIdentityToken: known(jwt)}),
			env:  map[string]string{EnvAWSRoleARN: role},
			problems: []wantProblem{{pathWIRoleARN, "Invalid aws.assume_role_with_web_identity.role_arn",
				[]string{"is set to an empty string", "AWS_ROLE_ARN"}}},
		},
		{
			name: "unknown token is left for apply",
			cfg:  wi(rawWebIdentity{RoleARN: known(role), WebIdentityToken: unknownValue}),
			check: func(t *testing.T, s *webIdentitySettings) {
				if !s.Token.Unknown {
					t.Error("token not unknown")
				}
			},
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
				if strings.Contains(got.Detail, jwt) || strings.Contains(got.Detail, "with spaces") {
					t.Errorf("problem %d detail leaks the token: %q", i, got.Detail)
				}
			}
			if tt.check != nil {
				if s.AWS.WebIdentity == nil {
					t.Fatal("assume_role_with_web_identity not resolved")
				}
				tt.check(t, s.AWS.WebIdentity)
			}
		})
	}
}

// TestNewClientsWebIdentityTokenFile checks that an unreadable token file is
// reported against web_identity_token_file before any call to STS.
func TestNewClientsWebIdentityTokenFile(t *testing.T) {
	clearAWSEnv(t)
	missing := t.TempDir() + "/absent"
	s, probs := resolve(rawConfig{AWS: &rawAWS{Region: known("us-east-1"), WebIdentity: &rawWebIdentity{
		RoleARN: known("arn:aws:iam::123456789012:role/hca"), WebIdentityTokenFile: known(missing)}}}, func(string) string { return "" })
	if len(probs) != 0 {
		t.Fatalf("resolve problems: %+v", probs)
	}
	_, probs, err := newClients(context.Background(), s, true, "test")
	if err != nil {
		t.Fatalf("newClients error: %v", err)
	}
	if len(probs) != 1 || !probs[0].Path.Equal(pathWITokenFile) || probs[0].Summary != "Invalid web_identity_token_file" ||
		!strings.Contains(probs[0].Detail, missing+`" cannot be read: no such file or directory`) {
		t.Fatalf("problems = %+v, want one naming web_identity_token_file and the missing file", probs)
	}
}
