package lab

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestAuthenticationConfig(t *testing.T) {
	ca, err := loadOrCreateCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		url     string
		aud     string
		ca      []byte
		wantErr string
	}{
		{name: "lab issuer", url: "https://127.0.0.1:4443/oidc", aud: OIDCAudienceKubernetes, ca: ca.CertPEM},
		{name: "public issuer, system roots", url: "https://app.terraform.io", aud: "kubernetes.workload.identity"},
		{name: "http issuer", url: "http://127.0.0.1:4566/oidc", aud: "k", wantErr: `issuer URL "http://127.0.0.1:4566/oidc" must be https`},
		{name: "no audience", url: "https://app.terraform.io", wantErr: "TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE"},
		{name: "CA not PEM", url: "https://app.terraform.io", aud: "k", ca: []byte("not a certificate"), wantErr: "holds no PEM certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := AuthenticationConfig(tt.url, tt.aud, "tfc:", "tfc:", tt.ca)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got authenticationConfiguration
			if err := yaml.UnmarshalStrict(b, &got); err != nil {
				t.Fatalf("unmarshal %s: %v", b, err)
			}
			if got.APIVersion != "apiserver.config.k8s.io/v1" || got.Kind != "AuthenticationConfiguration" || len(got.JWT) != 1 {
				t.Fatalf("config = %s", b)
			}
			j := got.JWT[0]
			if j.Issuer.URL != tt.url || len(j.Issuer.Audiences) != 1 || j.Issuer.Audiences[0] != tt.aud || j.Issuer.CertificateAuthority != string(tt.ca) {
				t.Errorf("issuer = %+v", j.Issuer)
			}
			if j.ClaimMappings.Username.Claim != "sub" || j.ClaimMappings.Username.Prefix == nil || *j.ClaimMappings.Username.Prefix != "tfc:" {
				t.Errorf("username mapping = %+v", j.ClaimMappings.Username)
			}
			if j.ClaimMappings.Groups.Claim != "terraform_organization_name" || j.ClaimMappings.Groups.Prefix == nil || *j.ClaimMappings.Groups.Prefix != "tfc:" {
				t.Errorf("groups mapping = %+v", j.ClaimMappings.Groups)
			}
		})
	}
}
