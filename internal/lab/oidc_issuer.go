package lab

import (
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// The lab's OIDC issuer (package oidc) is served by the lab daemon over HTTPS
// on its own port ("oidc" in state.json) under OIDCIssuerPath, with a serving
// certificate of the lab CA (<Dir>/pki/ca.crt, HCA_LAB_OIDC_CA_FILE): a
// kube-apiserver accepts only an https issuer. HCA_LAB_OIDC_ISSUER is its URL.
// Tests mint tokens by POSTing {"sub","aud","ttl","extra"} to that URL +
// "/mint" (labtest.OIDCToken).
//
// Every lab apiserver trusts the issuer through its structured authentication
// configuration (<Dir>/oidc/authentication-config.yaml, see
// AuthenticationConfig), as an operator configures a control cluster for HCP
// Terraform's Kubernetes dynamic credentials.
const (
	OIDCIssuerPath = "/oidc"
	// OIDCAudienceAWS is the audience the emulated AWS account accepts: HCP
	// Terraform's default audience for AWS dynamic credentials.
	OIDCAudienceAWS = "aws.workload.identity"
	// OIDCAudienceKubernetes is the audience the lab apiservers accept: the
	// value of the workspace's TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE
	// (HCP Terraform has no default for Kubernetes).
	OIDCAudienceKubernetes = "kubernetes.workload.identity"
	// OIDCUsernamePrefix and OIDCGroupsPrefix prefix the user name (the
	// token's "sub") and groups (its "terraform_organization_name") the lab
	// apiservers derive from a token, so that no token can claim the name of
	// another user or group ("system:masters", a service account).
	OIDCUsernamePrefix = "tfc:"
	OIDCGroupsPrefix   = "tfc:"
)

// AlicloudOIDCProviderName names the RAM OIDC identity provider of the lab
// daemon's ACK emulator account: it trusts the lab issuer for OIDCAudienceAWS,
// so that one lab token serves both clouds (the Terraform Cloud guide advises
// one audience for both). Its STS (AssumeRoleWithOIDC) is
// HCA_LAB_ALICLOUD_STS_ENDPOINT, over https with a certificate of the lab CA.
const AlicloudOIDCProviderName = "hcp-terraform"

// oidcDir holds the issuer's serving certificate and the apiservers'
// authentication configuration.
func oidcDir(labDir string) string { return filepath.Join(labDir, "oidc") }

// OIDCServingCertFiles are the files of the issuer's serving certificate
// and key in the lab directory labDir (written by `lab up`).
func OIDCServingCertFiles(labDir string) (cert, key string) {
	return filepath.Join(oidcDir(labDir), "tls.crt"), filepath.Join(oidcDir(labDir), "tls.key")
}

// AuthenticationConfigFile is the apiservers' structured authentication
// configuration in the lab directory labDir; it exists when the lab serves
// its OIDC issuer.
func AuthenticationConfigFile(labDir string) string {
	return filepath.Join(oidcDir(labDir), "authentication-config.yaml")
}

// CAFile is the lab CA's certificate in the lab directory labDir: it signs
// every apiserver's and the OIDC issuer's serving certificate.
func CAFile(labDir string) string { return filepath.Join(labDir, "pki", "ca.crt") }

// CAPool is the lab CA of the lab directory labDir as a certificate pool,
// created (as `lab up` does) when missing.
func CAPool(labDir string) (*x509.CertPool, error) {
	ca, err := loadOrCreateCA(filepath.Join(labDir, "pki"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return pool, nil
}

// OIDCIssuerURL is the issuer's URL when it listens on port.
func OIDCIssuerURL(port int) string {
	return fmt.Sprintf("https://127.0.0.1:%d%s", port, OIDCIssuerPath)
}

// The parts of apiserver.config.k8s.io/v1 AuthenticationConfiguration the lab
// writes (k8s.io/apiserver is not a dependency of this module).
type (
	authenticationConfiguration struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		JWT        []jwtAuthConfig `json:"jwt"`
	}
	jwtAuthConfig struct {
		Issuer        jwtIssuer        `json:"issuer"`
		ClaimMappings jwtClaimMappings `json:"claimMappings"`
	}
	jwtIssuer struct {
		URL                  string   `json:"url"`
		CertificateAuthority string   `json:"certificateAuthority,omitempty"`
		Audiences            []string `json:"audiences"`
	}
	jwtClaimMappings struct {
		Username jwtPrefixedClaim `json:"username"`
		Groups   jwtPrefixedClaim `json:"groups"`
	}
	jwtPrefixedClaim struct {
		Claim  string  `json:"claim"`
		Prefix *string `json:"prefix"`
	}
)

// AuthenticationConfig is the kube-apiserver structured authentication
// configuration (--authentication-config) that accepts the workload identity
// tokens of the issuer issuerURL (https) for audience: user name
// usernamePrefix + "sub" (organization:<org>:project:<project>:workspace:<ws>:run_phase:<phase>
// for HCP Terraform), groups groupsPrefix + "terraform_organization_name".
// caPEM is the CA that signed the issuer's serving certificate (nil: the
// apiserver's system roots, as for https://app.terraform.io).
func AuthenticationConfig(issuerURL, audience, usernamePrefix, groupsPrefix string, caPEM []byte) ([]byte, error) {
	if !strings.HasPrefix(issuerURL, "https://") {
		return nil, fmt.Errorf("issuer URL %q must be https: kube-apiserver fetches the discovery document over TLS only", issuerURL)
	}
	if audience == "" {
		return nil, fmt.Errorf("audience is empty: set it to the workspace's TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE")
	}
	if len(caPEM) > 0 {
		if !x509.NewCertPool().AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("certificate authority of issuer %s holds no PEM certificate", issuerURL)
		}
	}
	cfg := authenticationConfiguration{
		APIVersion: "apiserver.config.k8s.io/v1",
		Kind:       "AuthenticationConfiguration",
		JWT: []jwtAuthConfig{{
			Issuer: jwtIssuer{URL: issuerURL, CertificateAuthority: string(caPEM), Audiences: []string{audience}},
			ClaimMappings: jwtClaimMappings{
				Username: jwtPrefixedClaim{Claim: "sub", Prefix: &usernamePrefix},
				Groups:   jwtPrefixedClaim{Claim: "terraform_organization_name", Prefix: &groupsPrefix},
			},
		}},
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("marshal authentication configuration: %w", err)
	}
	return b, nil
}

// writeOIDCFiles writes the issuer's serving certificate (signed by the lab
// CA) and the apiservers' authentication configuration for the issuer on
// port.
func (l *Lab) writeOIDCFiles(port int) error {
	ca, err := loadOrCreateCA(filepath.Join(l.Dir, "pki"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(oidcDir(l.Dir), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", oidcDir(l.Dir), err)
	}
	crt, key, err := ca.issue("hca-lab-oidc", nil, true)
	if err != nil {
		return err
	}
	certFile, keyFile := OIDCServingCertFiles(l.Dir)
	if err := os.WriteFile(certFile, crt, 0o644); err != nil {
		return fmt.Errorf("write OIDC serving certificate: %w", err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		return fmt.Errorf("write OIDC serving key: %w", err)
	}
	cfg, err := AuthenticationConfig(OIDCIssuerURL(port), OIDCAudienceKubernetes, OIDCUsernamePrefix, OIDCGroupsPrefix, ca.CertPEM)
	if err != nil {
		return err
	}
	// Written in place of the old one at once: running apiservers reload the
	// file when it changes.
	p := AuthenticationConfigFile(l.Dir)
	if err := os.WriteFile(p+".tmp", cfg, 0o644); err != nil {
		return fmt.Errorf("write authentication configuration: %w", err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		return fmt.Errorf("write authentication configuration: %w", err)
	}
	return nil
}
