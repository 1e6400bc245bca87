package provider

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestClientsAgainstLabAWS drives the unmodified SDK clients that Clients
// builds against the lab's AWS emulator: the endpoints block must route them
// there, and the credentials must come from the default chain (here the
// environment), signed so that the emulator accepts them.
func TestClientsAgainstLabAWS(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx := context.Background()

	build := func(t *testing.T, accessKey, secretKey string) *Clients {
		t.Helper()
		clearAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
		s, probs := resolve(rawConfig{
			AWS:       &rawAWS{Region: known("us-east-1")},
			Endpoints: &rawEndpoints{EKS: known(env["HCA_LAB_EKS_ENDPOINT"]), STS: known(env["HCA_LAB_STS_ENDPOINT"])},
		}, func(string) string { return "" })
		if len(probs) > 0 {
			t.Fatalf("problems: %+v", probs)
		}
		c, probs, err := newClients(ctx, s, true, "test")
		if err != nil || len(probs) > 0 {
			t.Fatalf("newClients: %v %+v", err, probs)
		}
		return c
	}

	t.Run("lab credentials", func(t *testing.T) {
		c := build(t, emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey)
		stsClient, err := c.STS()
		if err != nil {
			t.Fatal(err)
		}
		id, err := stsClient.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatalf("GetCallerIdentity: %v", err)
		}
		if got := aws.ToString(id.Account); got != emulator.AWSAccountID {
			t.Errorf("account = %q, want the lab account %q", got, emulator.AWSAccountID)
		}
		eksClient, err := c.EKS()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eksClient.ListClusters(ctx, &eks.ListClustersInput{}); err != nil {
			t.Errorf("ListClusters: %v", err)
		}
	})

	t.Run("unknown credentials are rejected", func(t *testing.T) {
		c := build(t, "AKIAUNKNOWNUNKNOWN01", "not-the-lab-secret")
		stsClient, err := c.STS()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stsClient.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err == nil {
			t.Errorf("GetCallerIdentity succeeded with credentials the emulator does not know")
		}
	})
}
