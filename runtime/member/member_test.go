package member_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/hca-project/terraform-provider-hca/internal/cloud"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

func TestRESTConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		creds member.Credentials
		api   member.EKSAPI
		want  string
	}{
		{"nothing", member.Credentials{}, nil, "neither a kubeconfig nor an EKS cluster"},
		{"both", member.Credentials{Kubeconfig: []byte("x"), EKS: &member.EKSCluster{Name: "a", Region: "b"}}, nil, "both a kubeconfig and an EKS cluster"},
		{"garbage kubeconfig", member.Credentials{Kubeconfig: []byte("secret-token: abc\n::::")}, nil, "cannot be parsed"},
		{"eks without region", member.Credentials{EKS: &member.EKSCluster{Name: "a"}}, nil, "need the cluster name and region"},
		{"eks without aws", member.Credentials{EKS: &member.EKSCluster{Name: "a", Region: "eu-west-1"}}, nil, "no AWS access configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := member.RESTConfig(context.Background(), tt.creds, tt.api, clocktesting.NewFakePassiveClock(time.Now()))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "abc") {
				t.Errorf("error leaks kubeconfig content: %v", err)
			}
		})
	}
}

func TestKubeconfigCredentials(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")
	raw, err := os.ReadFile(env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := member.RESTConfig(context.Background(), member.Credentials{Kubeconfig: raw}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) == 0 {
		t.Fatal("private cluster has no nodes")
	}
}

// countingAPI counts the tokens the real AWSAPI mints.
type countingAPI struct {
	*member.AWSAPI
	mints atomic.Int32
}

func (c *countingAPI) Token(ctx context.Context, name, region string) (cloud.Token, error) {
	c.mints.Add(1)
	return c.AWSAPI.Token(ctx, name, region)
}

// TestEKSCredentials creates a cluster through the lab's EKS emulator with the real
// SDK, then reaches it knowing only its name and region: the endpoint and CA come
// from DescribeCluster and every request carries a minted token, refreshed shortly
// before it expires.
func TestEKSCredentials(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	api := &countingAPI{AWSAPI: &member.AWSAPI{Config: cfg, EKSEndpoint: env["HCA_LAB_EKS_ENDPOINT"], STSEndpoint: env["HCA_LAB_STS_ENDPOINT"]}}
	cli := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	name := fmt.Sprintf("member-%d", rand.IntN(1e6))
	if _, err := cli.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = cli.DeleteCluster(context.Background(), &eks.DeleteClusterInput{Name: aws.String(name)})
	})
	if _, err := member.RESTConfig(ctx, member.Credentials{EKS: &member.EKSCluster{Name: name, Region: "eu-central-1"}}, api, nil); err == nil || !strings.Contains(err.Error(), "wait until it is ACTIVE") {
		t.Fatalf("RESTConfig of a CREATING cluster: %v, want a wait-until-ACTIVE error", err)
	}
	if err := eks.NewClusterActiveWaiter(cli, func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).
		Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakePassiveClock(time.Now())
	rc, err := member.RESTConfig(ctx, member.Credentials{EKS: &member.EKSCluster{Name: name, Region: "eu-central-1"}}, api, clk)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(rc)
	for i := 0; i < 3; i++ {
		if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
			t.Fatalf("request %d with a minted token: %v", i, err)
		}
	}
	if got := api.mints.Load(); got != 1 {
		t.Fatalf("minted %d tokens for 3 requests within the token's life, want 1", got)
	}
	clk.SetTime(clk.Now().Add(14 * time.Minute)) // past expiry minus the refresh margin
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := api.mints.Load(); got != 2 {
		t.Fatalf("minted %d tokens after the first expired, want 2", got)
	}
}
