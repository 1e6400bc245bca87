package provider

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// aliOIDCLab is an ACK emulator of the test's own over the lab's clusters,
// trusting an OIDC issuer of the test's own, with its CS API on HTTP and its
// STS (AssumeRoleWithOIDC) on HTTPS, which the Alibaba SDK requires.
type aliOIDCLab struct {
	issuer      *oidc.Issuer
	provider    emulator.RAMOIDCProvider
	roleARN     string
	ackEndpoint string
	stsEndpoint string
}

const aliOIDCLabAudience = "alicloud.workload.identity"

// startAliOIDCLab starts it and makes the provider processes Terraform starts
// trust the STS server's certificate (SSL_CERT_FILE: the system's roots plus
// that certificate), clearing every Alibaba Cloud key variable: the token is
// the only credential.
func startAliOIDCLab(t *testing.T) *aliOIDCLab {
	t.Helper()
	prepareAccEnv(t)
	for _, k := range []string{"ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "ALIBABA_CLOUD_SECURITY_TOKEN",
		EnvAlicloudRoleARN, EnvAlicloudOIDCProviderARN, EnvAlicloudOIDCTokenFile, EnvAlicloudRoleSessionName, EnvTFCWorkloadIdentityToken} {
		t.Setenv(k, "")
	}
	issuerSrv := httptest.NewUnstartedServer(nil)
	issuerSrv.Start()
	t.Cleanup(issuerSrv.Close)
	iss, err := oidc.New(issuerSrv.URL+"/oidc", nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/oidc/", http.StripPrefix("/oidc", iss.Handler()))
	issuerSrv.Config.Handler = mux

	l := startAliSTS(t, iss.URL(), aliOIDCLabAudience, nil)
	l.issuer = iss
	return l
}

// startAliSTS starts an ACK emulator over the lab's clusters whose account
// trusts issuerURL (an https one signed by roots, or the system's roots when
// nil) for audience, its CS API on HTTP and its STS on HTTPS, and makes the
// provider processes Terraform starts trust the STS server's certificate
// (SSL_CERT_FILE: the system's roots plus that certificate).
func startAliSTS(t *testing.T, issuerURL, audience string, roots *x509.CertPool) *aliOIDCLab {
	t.Helper()
	prov := emulator.RAMOIDCProvider{Name: "hcp-terraform", IssuerURL: issuerURL, ClientIDs: []string{audience}}
	ack := emulator.NewACK(labtest.Clusters(t), emulator.ACKOptions{OIDCProviders: []emulator.RAMOIDCProvider{prov}, OIDCRootCAs: roots, NodeBootDelay: -1})
	t.Cleanup(ack.Close)
	ackSrv := httptest.NewServer(ack)
	t.Cleanup(ackSrv.Close)
	stsSrv := httptest.NewTLSServer(ack.STSHandler())
	t.Cleanup(stsSrv.Close)

	bundle := filepath.Join(t.TempDir(), "ca-bundle.pem")
	system, _ := os.ReadFile("/etc/ssl/certs/ca-certificates.crt") // the system's roots, when there
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: stsSrv.Certificate().Raw})
	if err := os.WriteFile(bundle, append(system, pemCert...), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", bundle)
	return &aliOIDCLab{provider: prov, roleARN: "acs:ram::" + emulator.AlicloudAccountID + ":role/hca-terraform",
		ackEndpoint: ackSrv.URL, stsEndpoint: stsSrv.URL}
}

func (l *aliOIDCLab) token(t *testing.T, aud string, ttl time.Duration) string {
	t.Helper()
	tok, err := l.issuer.Mint(oidc.Claims{Subject: oidc.TFCSubject("example-org", "default", "hca-production", "apply"), Audience: aud, TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// hcl is a configuration whose only Alibaba Cloud credential is the OIDC
// token (from TFC_WORKLOAD_IDENTITY_TOKEN unless body sets one).
func (l *aliOIDCLab) hcl(name, oidcBody string) string {
	return fmt.Sprintf(`provider "hca" {
  alicloud {
    region = %q
    assume_role_with_oidc {
      role_arn          = %q
      oidc_provider_arn = %q
      %s
    }
  }
  endpoints {
    ack          = %q
    alicloud_sts = %q
  }
}

resource "hca_ack_cluster" "test" {
  name                  = %q
  vswitch_ids           = ["vsw-hcalab1"]
  worker_instance_types = ["ecs.g6.large"]
  worker_count          = 1
}
`, ackTestRegion, l.roleARN, l.provider.ARN(), oidcBody, l.ackEndpoint, l.stsEndpoint, name)
}

// TestAccACKCluster_oidc applies an hca_ack_cluster with nothing but an
// OIDC token in TFC_WORKLOAD_IDENTITY_TOKEN, as an HCP Terraform run has:
// the provider exchanges it with STS AssumeRoleWithOIDC for temporary
// credentials (the Alibaba SDK's OIDC credentials provider), and the CS API
// accepts them. An expired, a forged and a foreign-audience token stop the
// plan with STS's error code.
func TestAccACKCluster_oidc(t *testing.T) {
	lab := startAliOIDCLab(t)
	forger, err := oidc.New(lab.issuer.URL(), nil) // the trusted issuer's URL, another key
	if err != nil {
		t.Fatal(err)
	}
	forged, err := forger.Mint(oidc.Claims{Subject: "x", Audience: aliOIDCLabAudience})
	if err != nil {
		t.Fatal(err)
	}
	name := acctest.RandomWithPrefix("hca-oidc")
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      lab.hcl(name, fmt.Sprintf("oidc_token = %q", lab.token(t, aliOIDCLabAudience, -time.Minute))),
				ExpectError: errorRe("Error assuming Alibaba Cloud role with OIDC", "AuthenticationFail.OIDCToken.Expired", "The token has expired"),
			},
			{
				Config:      lab.hcl(name, fmt.Sprintf("oidc_token = %q", forged)),
				ExpectError: errorRe("Error assuming Alibaba Cloud role with OIDC", "AuthenticationFail.OIDCToken.SignatureError"),
			},
			{
				Config:      lab.hcl(name, fmt.Sprintf("oidc_token = %q", lab.token(t, "aws.workload.identity", time.Hour))),
				ExpectError: errorRe("Error assuming Alibaba Cloud role with OIDC", "AuthenticationFail.OIDCToken.AudienceError"),
			},
			{
				PreConfig: func() { t.Setenv(EnvTFCWorkloadIdentityToken, lab.token(t, aliOIDCLabAudience, 10*time.Minute)) },
				Config:    lab.hcl(name, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "state", "running"),
					resource.TestCheckResourceAttr("hca_ack_cluster.test", "name", name),
					ackCheckKubeconfigWorks(1),
				),
			},
		},
	})
}
