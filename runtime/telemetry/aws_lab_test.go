package telemetry

import (
	"bytes"
	"context"
	"errors"
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
// middleware, against the lab's EKS emulator: a call throttled twice and then
// answered is one call, two throttles and no error; a call for a cluster that
// does not exist is one call and one ResourceNotFoundException error.
func TestAWSAPIOptionsLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := New(prometheus.NewRegistry())
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, ""),
		APIOptions: m.AWSAPIOptions()}
	cli := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })

	resp, err := http.Post(env["HCA_LAB_EKS_ENDPOINT"]+"/lab/v1/throttling", "application/json", bytes.NewReader([]byte(`{"next": 2}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("set throttling: %s", resp.Status)
	}
	if _, err := cli.ListClusters(ctx, &eks.ListClustersInput{}); err != nil {
		t.Fatalf("ListClusters after 2 throttled attempts (the SDK retries 3 times): %v", err)
	}
	_, err = cli.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("no-such-cluster-telemetry")})
	if err == nil {
		t.Fatal("DescribeCluster of a cluster that does not exist succeeded")
	}
	if code := ErrorCode(err); code != "ResourceNotFoundException" {
		t.Errorf("ErrorCode = %q, want ResourceNotFoundException (%v)", code, errors.Unwrap(err))
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"ListClusters calls", testutil.ToFloat64(m.CloudCalls.WithLabelValues("EKS", "ListClusters")), 1},
		{"ListClusters throttles", testutil.ToFloat64(m.CloudThrottles.WithLabelValues("EKS", "ListClusters")), 2},
		{"ListClusters errors", float64(testutil.CollectAndCount(m.CloudErrors, "hca_cloud_api_errors_total")) - 1, 0}, // only DescribeCluster's series
		{"DescribeCluster calls", testutil.ToFloat64(m.CloudCalls.WithLabelValues("EKS", "DescribeCluster")), 1},
		{"DescribeCluster errors", testutil.ToFloat64(m.CloudErrors.WithLabelValues("EKS", "DescribeCluster", "ResourceNotFoundException")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}
