package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestAWSAPIOptionsLab drives the unmodified EKS SDK client, with the
// middleware, against the lab's EKS emulator: a call answered at once is one
// call and no error; a call for a cluster that does not exist, throttled twice
// first, is one call, two throttles and one ResourceNotFoundException error.
func TestAWSAPIOptionsLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := New(prometheus.NewRegistry())
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, ""),
		APIOptions: m.AWSAPIOptions()}
	cli := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })

	// Throttling scoped to a cluster of this test's own (that does not
	// exist), so that tests running beside it on the lab take none of it.
	missing := fmt.Sprintf("no-such-cluster-telemetry-%d", rand.IntN(1e6))
	resp, err := http.Post(env["HCA_LAB_EKS_ENDPOINT"]+"/lab/v1/throttling", "application/json",
		bytes.NewReader([]byte(fmt.Sprintf(`{"next": 2, "cluster": %q}`, missing))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("set throttling: %s", resp.Status)
	}
	if _, err := cli.ListClusters(ctx, &eks.ListClustersInput{}); err != nil {
		t.Fatalf("ListClusters: %v", err)
	}
	_, err = cli.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(missing)})
	if err == nil {
		t.Fatal("DescribeCluster of a cluster that does not exist succeeded")
	}
	if code := ErrorCode(err); code != "ResourceNotFoundException" {
		t.Errorf("ErrorCode = %q, want ResourceNotFoundException after 2 throttled attempts (the SDK tries 3 times) (%v)", code, errors.Unwrap(err))
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"ListClusters calls", testutil.ToFloat64(m.CloudCalls.WithLabelValues("EKS", "ListClusters")), 1},
		{"ListClusters throttles", testutil.ToFloat64(m.CloudThrottles.WithLabelValues("EKS", "ListClusters")), 0},
		{"error series", float64(testutil.CollectAndCount(m.CloudErrors, "hca_cloud_api_errors_total")), 1}, // only DescribeCluster's NotFound: the throttles were retried away
		{"DescribeCluster calls", testutil.ToFloat64(m.CloudCalls.WithLabelValues("EKS", "DescribeCluster")), 1},
		{"DescribeCluster throttles", testutil.ToFloat64(m.CloudThrottles.WithLabelValues("EKS", "DescribeCluster")), 2},
		{"DescribeCluster errors", testutil.ToFloat64(m.CloudErrors.WithLabelValues("EKS", "DescribeCluster", "ResourceNotFoundException")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}
