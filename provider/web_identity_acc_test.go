package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// webIdentityRole is the role the tests assume; the lab account trusts its
// OIDC issuer for the audience lab.OIDCAudienceAWS.
const webIdentityRole = "arn:aws:iam::000000000000:role/hca-tfc"

// requireWebIdentityLab is requireEKSLab without any static AWS key in the
// environment: the provider can only get credentials from the web identity.
func requireWebIdentityLab(t *testing.T) (eksLab, string) {
	t.Helper()
	l := requireEKSLab(t)
	issuer := labtest.Require(t, "HCA_LAB_OIDC_ISSUER")["HCA_LAB_OIDC_ISSUER"]
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", EnvTFCWorkloadIdentityToken} {
		t.Setenv(k, "")
	}
	return l, issuer
}

func webIdentityProviderHCL(endpoint, block string) string {
	return fmt.Sprintf(`provider "hca" {
  aws {
    region = "us-east-1"
    assume_role_with_web_identity {
      role_arn = %q
%s
    }
  }
  endpoints {
    eks = %q
    sts = %q
  }
}
`, webIdentityRole, block, endpoint, endpoint)
}

// TestAccEKSCluster_webIdentity creates an EKS cluster with credentials from
// an HCP Terraform-like workload identity token in TFC_WORKLOAD_IDENTITY_TOKEN
// only, exchanged by the unmodified SDK with the lab's STS.
func TestAccEKSCluster_webIdentity(t *testing.T) {
	l, _ := requireWebIdentityLab(t)
	sub := oidc.TFCSubject("acme", "platform", "burst", "apply")
	t.Setenv(EnvTFCWorkloadIdentityToken, labtest.OIDCToken(t, sub, lab.OIDCAudienceAWS, time.Hour))
	name := acctest.RandomWithPrefix("hca-acc-wi")
	cfg := eksTestConfig{name: name, minSize: 0, maxSize: 1, desired: 0}
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{{
			Config: webIdentityProviderHCL(l.endpoint, `      session_name = "tfc-burst-apply"
      duration     = "15m"`) + cfg.hcl(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("hca_eks_cluster.test", "status", "ACTIVE"),
				resource.TestCheckResourceAttr("hca_eks_cluster.test", "arn", "arn:aws:eks:us-east-1:000000000000:cluster/"+name),
			),
		}},
	})
}

// TestAccWebIdentity_refused checks that forged, expired and wrong-audience
// tokens fail at plan with a diagnostic naming the cause, and create nothing.
func TestAccWebIdentity_refused(t *testing.T) {
	l, issuer := requireWebIdentityLab(t)
	sub := oidc.TFCSubject("acme", "platform", "burst", "plan")
	forger, err := oidc.New(issuer, nil) // the lab issuer's URL, another key
	if err != nil {
		t.Fatal(err)
	}
	forged, err := forger.Mint(oidc.Claims{Subject: sub, Audience: lab.OIDCAudienceAWS})
	if err != nil {
		t.Fatal(err)
	}
	forgedFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(forgedFile, []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	expired := labtest.OIDCToken(t, sub, lab.OIDCAudienceAWS, -time.Minute)
	wrongAud := labtest.OIDCToken(t, sub, "sts.amazonaws.com", time.Hour)
	cfg := eksTestConfig{name: acctest.RandomWithPrefix("hca-acc-wi"), minSize: 0, maxSize: 1, desired: 0}
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config: webIdentityProviderHCL(l.endpoint, fmt.Sprintf("      web_identity_token_file = %q", forgedFile)) + cfg.hcl(),
				ExpectError: errorRe("Error assuming role with web identity", "web_identity_token_file",
					"InvalidIdentityToken", "signed by the issuer's current key"),
			},
			{
				Config: webIdentityProviderHCL(l.endpoint, fmt.Sprintf("      web_identity_token = %q", expired)) + cfg.hcl(),
				ExpectError: errorRe("Error assuming role with web identity", "ExpiredTokenException",
					"The token has expired"),
			},
			{
				Config: webIdentityProviderHCL(l.endpoint, fmt.Sprintf("      web_identity_token = %q", wrongAud)) + cfg.hcl(),
				ExpectError: errorRe("Error assuming role with web identity", "InvalidIdentityToken",
					"Incorrect token audience"),
			},
			{
				Config:      webIdentityProviderHCL(l.endpoint, `      web_identity_token = "not a token"`) + cfg.hcl(),
				ExpectError: errorRe("Invalid web identity token", "must be a JSON Web Token"),
			},
		},
	})
}
