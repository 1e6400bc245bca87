package lab

import (
	"crypto/tls"
	"crypto/x509"
	"os"
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

// TestWriteOIDCFiles checks the files `lab up` writes for the issuer: a
// serving certificate for 127.0.0.1 that the lab CA verifies, and an
// authentication configuration naming the issuer on the given port and
// trusting that CA.
func TestWriteOIDCFiles(t *testing.T) {
	l := &Lab{Dir: t.TempDir()}
	if err := l.writeOIDCFiles(4443); err != nil {
		t.Fatal(err)
	}
	roots, err := CAPool(l.Dir)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := OIDCServingCertFiles(l.Dir)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatalf("serving certificate: %v", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("the lab CA does not verify the issuer's certificate for 127.0.0.1: %v", err)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode = %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	raw, err := os.ReadFile(AuthenticationConfigFile(l.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var cfg authenticationConfiguration
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(CAFile(l.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.JWT[0].Issuer; got.URL != "https://127.0.0.1:4443/oidc" || got.CertificateAuthority != string(caPEM) {
		t.Errorf("issuer = %s (CA matches: %v), want https://127.0.0.1:4443/oidc and the lab CA", got.URL, got.CertificateAuthority == string(caPEM))
	}
}
