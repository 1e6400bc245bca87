package emulator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// eksBenchPoll polls DescribeCluster every 50ms until done says stop.
func eksBenchPoll(ctx context.Context, b *testing.B, cli *eks.Client, name string, done func(*types.Cluster, error) bool) {
	b.Helper()
	for {
		out, err := cli.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
		var c *types.Cluster
		if err == nil {
			c = out.Cluster
			if c.Status == types.ClusterStatusFailed {
				b.Fatalf("cluster %s FAILED: %+v", name, c.Health)
			}
		}
		if done(c, err) {
			return
		}
		select {
		case <-ctx.Done():
			b.Fatalf("cluster %s: %v (last error %v)", name, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func eksBenchActive(c *types.Cluster, err error) bool {
	return err == nil && c.Status == types.ClusterStatusActive
}

func eksBenchGone(_ *types.Cluster, err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

func eksBenchDelete(ctx context.Context, b *testing.B, cli *eks.Client, name string) {
	b.Helper()
	if _, err := cli.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(name)}); err != nil {
		b.Fatalf("DeleteCluster: %v", err)
	}
	eksBenchPoll(ctx, b, cli, name, eksBenchGone)
}

// BenchmarkEKSDescribeCluster measures one DescribeCluster of an ACTIVE cluster
// through the SDK client (signing, HTTP on loopback, signature check, JSON).
func BenchmarkEKSDescribeCluster(b *testing.B) {
	clusters := awsLab(b)
	a, base, _ := awsServe(b, clusters)
	cli := eksClient(awsLabConfig(), base)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	name := eksUniqueName("bench")
	b.Cleanup(func() {
		a.Wait()
		_ = clusters.DeleteCluster(context.Background(), "eks-"+name)
	})
	if _, err := cli.CreateCluster(ctx, eksTestClusterInput(name)); err != nil {
		b.Fatalf("CreateCluster: %v", err)
	}
	eksBenchPoll(ctx, b, cli, name, eksBenchActive)
	in := &eks.DescribeClusterInput{Name: aws.String(name)}

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := cli.DescribeCluster(ctx, in)
		if err != nil || out.Cluster.Endpoint == nil {
			b.Fatalf("DescribeCluster: %v", err)
		}
	}
	b.StopTimer()
	eksBenchDelete(ctx, b, cli, name)
}

// BenchmarkEKSClusterActive measures how long an emulated EKS cluster takes from
// CreateCluster to ACTIVE (a real lab control plane starting), polled every
// 50ms. Run it with -benchtime=3x: each iteration starts a control plane.
func BenchmarkEKSClusterActive(b *testing.B) {
	clusters := awsLab(b)
	a, base, _ := awsServe(b, clusters)
	cli := eksClient(awsLabConfig(), base)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var names []string
	b.Cleanup(func() {
		a.Wait()
		for _, n := range names {
			_ = clusters.DeleteCluster(context.Background(), "eks-"+n)
		}
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		name := eksUniqueName("active")
		names = append(names, name)
		b.StartTimer()
		if _, err := cli.CreateCluster(ctx, eksTestClusterInput(name)); err != nil {
			b.Fatalf("CreateCluster: %v", err)
		}
		eksBenchPoll(ctx, b, cli, name, eksBenchActive)
		b.StopTimer()
		eksBenchDelete(ctx, b, cli, name)
	}
}
