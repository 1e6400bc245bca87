package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eksTokenFactories serves the hca provider and the echo provider, which
// copies an ephemeral value into a managed resource so a test can read it.
var eksTokenFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"hca":  providerserver.NewProtocol6WithError(New("test")()),
	"echo": echoprovider.NewProviderServer(),
}

func eksTokenHCL(endpoint, cluster string) string {
	return eksProviderHCL(endpoint) + fmt.Sprintf(`
ephemeral "hca_eks_token" "test" {
  cluster_name = %q
}

provider "echo" {
  data = ephemeral.hca_eks_token.test
}

resource "echo" "token" {}
`, cluster)
}

// reviewToken asks the lab's EKS authenticator webhook (what the lab cluster
// behind an EKS cluster calls for every bearer token) about token for cluster.
func reviewToken(endpoint, cluster, token string) (authnv1.TokenReviewStatus, error) {
	body, _ := json.Marshal(authnv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authnv1.TokenReviewSpec{Token: token},
	})
	resp, err := http.Post(strings.TrimRight(endpoint, "/")+"/authenticate/"+cluster, "application/json", bytes.NewReader(body))
	if err != nil {
		return authnv1.TokenReviewStatus{}, err
	}
	defer resp.Body.Close()
	var out authnv1.TokenReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return authnv1.TokenReviewStatus{}, fmt.Errorf("decode TokenReview (%s): %w", resp.Status, err)
	}
	return out.Status, nil
}

func TestAccEKSTokenEphemeralResource(t *testing.T) {
	l := requireEKSLab(t)
	cluster := "hca-token-test"
	checkToken := func(s *terraform.State) error {
		attrs := s.RootModule().Resources["echo.token"].Primary.Attributes
		token := attrs["data.token"]
		if !strings.HasPrefix(token, "k8s-aws-v1.") {
			return fmt.Errorf("token %.12q... does not start with k8s-aws-v1.", token)
		}
		exp, err := time.Parse(time.RFC3339, attrs["data.expiration"])
		if err != nil {
			return fmt.Errorf("expiration %q: %w", attrs["data.expiration"], err)
		}
		if left := time.Until(exp); left < 10*time.Minute || left > 14*time.Minute {
			return fmt.Errorf("expiration %s is %s away, want about 14 minutes", exp, left)
		}
		st, err := reviewToken(l.endpoint, cluster, token)
		if err != nil {
			return err
		}
		if !st.Authenticated || !strings.HasPrefix(st.User.Username, "arn:aws:iam::000000000000:") {
			return fmt.Errorf("the authenticator rejected the token for %s: %+v", cluster, st)
		}
		// The token is bound to its cluster: another cluster refuses it.
		other, err := reviewToken(l.endpoint, cluster+"-other", token)
		if err != nil {
			return err
		}
		if other.Authenticated {
			return fmt.Errorf("a token for %s authenticated to %s-other", cluster, cluster)
		}
		// Never persisted by hca: the state has no ephemeral resource.
		for name := range s.RootModule().Resources {
			if strings.Contains(name, "hca_eks_token") {
				return fmt.Errorf("state holds %s", name)
			}
		}
		return nil
	}
	accTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		ProtoV6ProviderFactories: eksTokenFactories,
		Steps:                    []resource.TestStep{{Config: eksTokenHCL(l.endpoint, cluster), Check: checkToken}},
	})
}

func TestAccEKSTokenEphemeralResource_invalidName(t *testing.T) {
	prepareAccEnv(t)
	accTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		ProtoV6ProviderFactories: eksTokenFactories,
		Steps: []resource.TestStep{{
			Config:      eksTokenHCL("http://127.0.0.1:1", "-bad"),
			ExpectError: errorRe("Invalid Attribute Value Match", "Attribute cluster_name must start with a letter or digit and contain only letters, digits, hyphens and underscores, got: -bad"),
		}},
	})
}

// TestAccEKSTokenEphemeralResource_noRegion has no region anywhere.
func TestAccEKSTokenEphemeralResource_noRegion(t *testing.T) {
	prepareAccEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	accTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		ProtoV6ProviderFactories: eksTokenFactories,
		Steps: []resource.TestStep{{
			Config:      eksTokenHCL("http://127.0.0.1:1", "burst"),
			ExpectError: regexp.MustCompile(`Error minting EKS token(?s).*No AWS region: set region, or aws.region in the provider "hca" block, or the\s+AWS_REGION environment variable.`),
		}},
	})
}

// TestAccEKSTokenEphemeralResource_example applies
// examples/ephemeral-resources/hca_eks_token against a lab EKS cluster created
// through the SDK: the provider reaches the cluster's API server with the
// minted token, which the cluster's authenticator accepts.
func TestAccEKSTokenEphemeralResource_example(t *testing.T) {
	l := requireEKSLab(t)
	t.Setenv("AWS_ENDPOINT_URL_STS", l.endpoint)
	example, err := os.ReadFile("../examples/ephemeral-resources/hca_eks_token/ephemeral-resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	name := acctest.RandomWithPrefix("hca-token")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = l.client.CreateCluster(ctx, &eks.CreateClusterInput{
		Name:               aws.String(name),
		RoleArn:            aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-a1", "subnet-b2"}},
	})
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := eksDeleteClusterAndWait(ctx, l.client, name); err != nil {
			t.Errorf("delete EKS cluster %s: %v", name, err)
		}
	})
	cluster, err := eksWaitCluster(ctx, l.client, name)
	if err != nil {
		t.Fatalf("wait for %s: %v", name, err)
	}
	accTest(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		Steps: []resource.TestStep{{
			Config: string(example),
			ConfigVariables: tfconfig.Variables{
				"control_cluster_name":     tfconfig.StringVariable(name),
				"control_cluster_endpoint": tfconfig.StringVariable(aws.ToString(cluster.Endpoint)),
				"control_cluster_ca":       tfconfig.StringVariable(aws.ToString(cluster.CertificateAuthority.Data)),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.hca_control_cluster.this", "host", aws.ToString(cluster.Endpoint)),
				resource.TestMatchOutput("control_cluster_version", regexp.MustCompile(`^v1\.\d+\.\d+`)),
			),
		}},
	})
}
