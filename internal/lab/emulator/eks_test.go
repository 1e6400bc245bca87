package emulator

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/cloud"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

const eksTestRole = "arn:aws:iam::000000000000:role/eks-cluster"

func eksTestClusterInput(name string) *eks.CreateClusterInput {
	return &eks.CreateClusterInput{
		Name:    aws.String(name),
		RoleArn: aws.String(eksTestRole),
		ResourcesVpcConfig: &types.VpcConfigRequest{
			SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"},
		},
	}
}

func eksTestNodegroupInput(cluster, name, instanceType string, minS, maxS, desired int32) *eks.CreateNodegroupInput {
	return &eks.CreateNodegroupInput{
		ClusterName:   aws.String(cluster),
		NodegroupName: aws.String(name),
		NodeRole:      aws.String("arn:aws:iam::000000000000:role/eks-node"),
		Subnets:       []string{"subnet-0a1b2c3d"},
		InstanceTypes: []string{instanceType},
		ScalingConfig: &types.NodegroupScalingConfig{MinSize: aws.Int32(minS), MaxSize: aws.Int32(maxS), DesiredSize: aws.Int32(desired)},
	}
}

// eksUniqueName returns a fresh cluster name, so a run never meets the lab
// clusters of an earlier, interrupted run.
func eksUniqueName(prefix string) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// TestEKSRefusals covers requests EKS refuses before any cluster is touched.
func TestEKSRefusals(t *testing.T) {
	_, base, _ := awsServe(t, awsNoLab(t))
	cli := eksClient(awsLabConfig(), base)
	ctx := context.Background()
	withInput := func(edit func(in *eks.CreateClusterInput)) *eks.CreateClusterInput {
		in := eksTestClusterInput("valid-name")
		edit(in)
		return in
	}
	var (
		notFound *types.ResourceNotFoundException
		invalid  *types.InvalidParameterException
	)
	tests := []struct {
		name     string
		call     func() error
		wantType any
		wantMsg  string
	}{
		{name: "describe missing cluster", call: func() error {
			_, err := cli.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("nope")})
			return err
		}, wantType: &notFound, wantMsg: "No cluster found for name: nope."},
		{name: "delete missing cluster", call: func() error {
			_, err := cli.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String("nope")})
			return err
		}, wantType: &notFound, wantMsg: "No cluster found for name: nope."},
		{name: "node group of missing cluster", call: func() error {
			_, err := cli.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String("nope"), NodegroupName: aws.String("ng")})
			return err
		}, wantType: &notFound, wantMsg: "No cluster found for name: nope."},
		{name: "create node group in missing cluster", call: func() error {
			_, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput("nope", "ng", "m5.large", 1, 3, 2))
			return err
		}, wantType: &notFound, wantMsg: "No cluster found for name: nope."},
		{name: "update of missing cluster", call: func() error {
			_, err := cli.DescribeUpdate(ctx, &eks.DescribeUpdateInput{Name: aws.String("nope"), UpdateId: aws.String("x")})
			return err
		}, wantType: &notFound, wantMsg: "No cluster found for name: nope."},
		{name: "bad cluster name", call: func() error {
			_, err := cli.CreateCluster(ctx, withInput(func(in *eks.CreateClusterInput) { in.Name = aws.String("bad.name") }))
			return err
		}, wantType: &invalid, wantMsg: `name "bad.name" is invalid`},
		{name: "empty role", call: func() error {
			_, err := cli.CreateCluster(ctx, withInput(func(in *eks.CreateClusterInput) { in.RoleArn = aws.String("") }))
			return err
		}, wantType: &invalid, wantMsg: "roleArn is required"},
		{name: "role not an ARN", call: func() error {
			_, err := cli.CreateCluster(ctx, withInput(func(in *eks.CreateClusterInput) { in.RoleArn = aws.String("eks-role") }))
			return err
		}, wantType: &invalid, wantMsg: `roleArn "eks-role" is not a valid IAM role ARN`},
		{name: "one subnet", call: func() error {
			_, err := cli.CreateCluster(ctx, withInput(func(in *eks.CreateClusterInput) { in.ResourcesVpcConfig.SubnetIds = []string{"subnet-1"} }))
			return err
		}, wantType: &invalid, wantMsg: "at least two different AZs"},
		{name: "bad version", call: func() error {
			_, err := cli.CreateCluster(ctx, withInput(func(in *eks.CreateClusterInput) { in.Version = aws.String("latest") }))
			return err
		}, wantType: &invalid, wantMsg: `unsupported Kubernetes version "latest"`},
		{name: "unknown instance type", call: func() error {
			_, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput("nope", "ng", "p4d.24xlarge", 1, 3, 2))
			return err
		}, wantType: &invalid, wantMsg: `instance type "p4d.24xlarge" is not supported`},
		{name: "min above max", call: func() error {
			_, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput("nope", "ng", "m5.large", 4, 3, 3))
			return err
		}, wantType: &invalid, wantMsg: "Minimum capacity 4 can't be greater than maximum capacity 3"},
		{name: "desired above max", call: func() error {
			_, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput("nope", "ng", "m5.large", 1, 3, 5))
			return err
		}, wantType: &invalid, wantMsg: "desiredSize can't be greater than maxSize"},
		{name: "list page size", call: func() error {
			_, err := cli.ListClusters(ctx, &eks.ListClustersInput{MaxResults: aws.Int32(500)})
			return err
		}, wantType: &invalid, wantMsg: "maxResults"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil {
				t.Fatalf("call succeeded, want an error saying %q", tc.wantMsg)
			}
			if !errors.As(err, tc.wantType) {
				t.Errorf("error %T %v, want %T", err, err, tc.wantType)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %v, want it to say %q", err, tc.wantMsg)
			}
		})
	}

	out, err := cli.ListClusters(ctx, &eks.ListClustersInput{})
	if err != nil || len(out.Clusters) != 0 {
		t.Errorf("ListClusters after refusals = %v, %v; want no cluster", out, err)
	}
}

// eksWaitUpdate polls DescribeUpdate until the update leaves InProgress.
func eksWaitUpdate(ctx context.Context, t *testing.T, cli *eks.Client, cluster, ng, id string) *types.Update {
	t.Helper()
	for {
		out, err := cli.DescribeUpdate(ctx, &eks.DescribeUpdateInput{Name: aws.String(cluster), NodegroupName: aws.String(ng), UpdateId: aws.String(id)})
		if err != nil {
			t.Fatalf("DescribeUpdate: %v", err)
		}
		if out.Update.Status != types.UpdateStatusInProgress {
			return out.Update
		}
		select {
		case <-ctx.Done():
			t.Fatalf("update %s still InProgress: %v", id, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// eksNodes lists the nodes of node group ng through the cluster's endpoint,
// authenticated with an EKS token.
func eksNodes(ctx context.Context, t *testing.T, cs kubernetes.Interface, ng string) []corev1.Node {
	t.Helper()
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "eks.amazonaws.com/nodegroup=" + ng})
	if err != nil {
		t.Fatalf("list nodes of node group %s with an EKS token: %v", ng, err)
	}
	return list.Items
}

// eksWaitNodes waits (up to a minute) until node group ng has n nodes and
// returns them.
func eksWaitNodes(ctx context.Context, t *testing.T, cs kubernetes.Interface, ng string, n int) []corev1.Node {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		nodes := eksNodes(ctx, t, cs, ng)
		if len(nodes) == n || time.Now().After(deadline) {
			return nodes
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func eksCheckNodes(t *testing.T, nodes []corev1.Node, want int, cpu, memory, instanceType string) {
	t.Helper()
	if len(nodes) != want {
		t.Fatalf("node group has %d nodes, want %d", len(nodes), want)
	}
	for _, n := range nodes {
		if got := n.Status.Allocatable.Cpu().String(); got != cpu {
			t.Errorf("node %s allocatable cpu %s, want %s", n.Name, got, cpu)
		}
		if got := n.Status.Allocatable.Memory().String(); got != memory {
			t.Errorf("node %s allocatable memory %s, want %s", n.Name, got, memory)
		}
		if got := n.Labels["node.kubernetes.io/instance-type"]; got != instanceType {
			t.Errorf("node %s instance type label %q, want %q", n.Name, got, instanceType)
		}
	}
}

// TestEKSLabRoundTrip drives the emulator with the unmodified EKS SDK client
// against real lab clusters: create a cluster and a node group, reach the
// cluster's apiserver with an EKS token, scale, then delete everything and check
// the lab cluster is gone.
func TestEKSLabRoundTrip(t *testing.T) {
	clusters := awsLab(t)
	a, base, _ := awsServe(t, clusters)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cfg := awsLabConfig()
	cli := eksClient(cfg, base)
	name := eksUniqueName("rt")
	const ng = "workers"
	t.Cleanup(func() {
		a.Wait()
		_ = clusters.DeleteCluster(context.Background(), "eks-"+name) // after a failure midway
	})

	created, err := cli.CreateCluster(ctx, eksTestClusterInput(name))
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	if created.Cluster.Status != types.ClusterStatusCreating || aws.ToString(created.Cluster.Arn) != "arn:aws:eks:us-east-1:"+AWSAccountID+":cluster/"+name {
		t.Errorf("CreateCluster = status %s arn %s, want CREATING and the cluster ARN", created.Cluster.Status, aws.ToString(created.Cluster.Arn))
	}

	// While CREATING: duplicates, node groups and deletion are refused.
	var inUse *types.ResourceInUseException
	if _, err := cli.CreateCluster(ctx, eksTestClusterInput(name)); !errors.As(err, &inUse) || !strings.Contains(err.Error(), "Cluster already exists with name: "+name) {
		t.Errorf("duplicate CreateCluster error = %v, want ResourceInUseException", err)
	}
	var invalidReq *types.InvalidRequestException
	if _, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput(name, ng, "m5.large", 1, 5, 2)); !errors.As(err, &invalidReq) {
		t.Errorf("CreateNodegroup on a CREATING cluster error = %v, want InvalidRequestException", err)
	}
	if _, err := cli.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(name)}); !errors.As(err, &inUse) {
		t.Errorf("DeleteCluster of a CREATING cluster error = %v, want ResourceInUseException", err)
	}

	const minD, maxD = 250 * time.Millisecond, 2 * time.Second
	described, err := eks.NewClusterActiveWaiter(cli, func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = minD, maxD }).
		WaitForOutput(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 5*time.Minute)
	if err != nil {
		t.Fatalf("waiting for ACTIVE: %v", err)
	}
	cl := described.Cluster
	if !strings.HasPrefix(aws.ToString(cl.Endpoint), "https://127.0.0.1:") {
		t.Fatalf("endpoint %q, want the lab apiserver", aws.ToString(cl.Endpoint))
	}
	caPEM, err := base64.StdEncoding.DecodeString(aws.ToString(cl.CertificateAuthority.Data))
	if err != nil || !strings.Contains(string(caPEM), "BEGIN CERTIFICATE") {
		t.Fatalf("certificateAuthority.data is not base64 of a PEM certificate: %v", err)
	}

	list, err := cli.ListClusters(ctx, &eks.ListClustersInput{})
	if err != nil || len(list.Clusters) != 1 || list.Clusters[0] != name {
		t.Errorf("ListClusters = %v, %v; want [%s]", list, err, name)
	}

	// Node group refusals on an ACTIVE cluster.
	var invalid *types.InvalidParameterException
	if _, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput(name, ng, "x9.huge", 1, 5, 2)); !errors.As(err, &invalid) || !strings.Contains(err.Error(), `"x9.huge"`) {
		t.Errorf("CreateNodegroup with an unknown instance type error = %v, want InvalidParameterException naming it", err)
	}

	if _, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput(name, ng, "m5.large", 1, 5, 2)); err != nil {
		t.Fatalf("CreateNodegroup: %v", err)
	}
	if _, err := cli.CreateNodegroup(ctx, eksTestNodegroupInput(name, ng, "m5.large", 1, 5, 2)); !errors.As(err, &inUse) {
		t.Errorf("duplicate CreateNodegroup error = %v, want ResourceInUseException", err)
	}
	ngOut, err := eks.NewNodegroupActiveWaiter(cli, func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = minD, maxD }).
		WaitForOutput(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng)}, 3*time.Minute)
	if err != nil {
		t.Fatalf("waiting for node group ACTIVE: %v", err)
	}
	if got := aws.ToInt32(ngOut.Nodegroup.ScalingConfig.DesiredSize); got != 2 || ngOut.Nodegroup.InstanceTypes[0] != "m5.large" {
		t.Errorf("node group desired %d type %v, want 2 m5.large", got, ngOut.Nodegroup.InstanceTypes)
	}

	// Reach the cluster as kubectl with `aws eks get-token` would.
	tok, err := cloud.EKSToken(ctx, cloud.NewSTSClient(cfg, base), name)
	if err != nil {
		t.Fatalf("EKSToken: %v", err)
	}
	restCfg := &rest.Config{Host: aws.ToString(cl.Endpoint), BearerToken: tok.Value, TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectReview with an EKS token: %v", err)
	}
	if u := review.Status.UserInfo; u.Username != stsCallerARN() || !strings.Contains(strings.Join(u.Groups, ","), "system:masters") {
		t.Errorf("apiserver sees user %q groups %v, want %q in system:masters", u.Username, u.Groups, stsCallerARN())
	}
	eksCheckNodes(t, eksNodes(ctx, t, cs, ng), 2, "2", "8Gi", "m5.large")

	// A token minted for another cluster is refused by the apiserver.
	other, err := cloud.EKSToken(ctx, cloud.NewSTSClient(cfg, base), name+"-other")
	if err != nil {
		t.Fatal(err)
	}
	otherCfg := rest.CopyConfig(restCfg)
	otherCfg.BearerToken = other.Value
	ocs, err := kubernetes.NewForConfig(otherCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ocs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("listing nodes with another cluster's token: %v, want 401 Unauthorized", err)
	}

	// Scale 2 -> 3 through UpdateNodegroupConfig.
	if _, err := cli.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng),
		ScalingConfig: &types.NodegroupScalingConfig{DesiredSize: aws.Int32(6)}}); !errors.As(err, &invalid) {
		t.Errorf("UpdateNodegroupConfig desired 6 > max 5 error = %v, want InvalidParameterException", err)
	}
	upd, err := cli.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng),
		ScalingConfig: &types.NodegroupScalingConfig{DesiredSize: aws.Int32(3)}})
	if err != nil {
		t.Fatalf("UpdateNodegroupConfig: %v", err)
	}
	if upd.Update.Type != types.UpdateTypeConfigUpdate || upd.Update.Status != types.UpdateStatusInProgress {
		t.Errorf("update = %s %s, want ConfigUpdate InProgress", upd.Update.Type, upd.Update.Status)
	}
	if final := eksWaitUpdate(ctx, t, cli, name, ng, aws.ToString(upd.Update.Id)); final.Status != types.UpdateStatusSuccessful {
		t.Fatalf("update ended %s: %+v", final.Status, final.Errors)
	}
	ngNow, err := cli.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng)})
	if err != nil {
		t.Fatal(err)
	}
	if ngNow.Nodegroup.Status != types.NodegroupStatusActive || aws.ToInt32(ngNow.Nodegroup.ScalingConfig.DesiredSize) != 3 {
		t.Errorf("node group after update: %s desired %d, want ACTIVE 3", ngNow.Nodegroup.Status, aws.ToInt32(ngNow.Nodegroup.ScalingConfig.DesiredSize))
	}
	// The third node joins after its boot delay.
	eksCheckNodes(t, eksWaitNodes(ctx, t, cs, ng, 3), 3, "2", "8Gi", "m5.large")

	// A cluster with node groups cannot be deleted.
	if _, err := cli.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(name)}); !errors.As(err, &inUse) || !strings.Contains(err.Error(), "nodegroups attached") {
		t.Errorf("DeleteCluster with a node group error = %v, want ResourceInUseException", err)
	}

	if _, err := cli.DeleteNodegroup(ctx, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng)}); err != nil {
		t.Fatalf("DeleteNodegroup: %v", err)
	}
	if err := eks.NewNodegroupDeletedWaiter(cli, func(o *eks.NodegroupDeletedWaiterOptions) { o.MinDelay, o.MaxDelay = minD, maxD }).
		Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng)}, 3*time.Minute); err != nil {
		t.Fatalf("waiting for node group deletion: %v", err)
	}
	eksCheckNodes(t, eksNodes(ctx, t, cs, ng), 0, "", "", "")

	del, err := cli.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(name)})
	if err != nil {
		t.Fatalf("DeleteCluster: %v", err)
	}
	if del.Cluster.Status != types.ClusterStatusDeleting {
		t.Errorf("DeleteCluster status %s, want DELETING", del.Cluster.Status)
	}
	if err := eks.NewClusterDeletedWaiter(cli, func(o *eks.ClusterDeletedWaiterOptions) { o.MinDelay, o.MaxDelay = minD, maxD }).
		Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 3*time.Minute); err != nil {
		t.Fatalf("waiting for cluster deletion: %v", err)
	}
	var notFound *types.ResourceNotFoundException
	if _, err := cli.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}); !errors.As(err, &notFound) {
		t.Errorf("DescribeCluster after deletion error = %v, want ResourceNotFoundException", err)
	}

	// CheckDestroy: the lab cluster is gone and its apiserver no longer answers.
	if _, err := clusters.Get("eks-" + name); err == nil {
		t.Errorf("lab cluster eks-%s still recorded after DeleteCluster", name)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if resp, err := hc.Get(aws.ToString(cl.Endpoint) + "/readyz"); err == nil {
		resp.Body.Close()
		t.Errorf("apiserver %s still answers (%d) after DeleteCluster", aws.ToString(cl.Endpoint), resp.StatusCode)
	}
}

func TestEKSLabNames(t *testing.T) {
	tests := []struct {
		prefix, name, want string
	}{
		{prefix: "eks-", name: "burst-1", want: "eks-burst-1"},
		{prefix: "eks-", name: "Burst_1", want: "eks-burst-1"},
		{prefix: "eks-", name: "trailing_", want: "eks-trailing"},
		{prefix: "", name: "workers", want: "workers"},
		{prefix: "", name: "1st-pool", want: "ng-1st-pool"},
		{prefix: "", name: "_x", want: "x"},
		{prefix: "eks-", name: strings.Repeat("a", 100)},
		{prefix: "", name: strings.Repeat("B_", 31) + "c"},
	}
	for _, tc := range tests {
		t.Run(tc.prefix+tc.name, func(t *testing.T) {
			got := eksLabName(tc.prefix, tc.name)
			if tc.want != "" && got != tc.want {
				t.Errorf("eksLabName(%q, %q) = %q, want %q", tc.prefix, tc.name, got, tc.want)
			}
			if err := lab.ValidateClusterName(got); err != nil {
				t.Errorf("eksLabName(%q, %q) = %q, not a valid lab name: %v", tc.prefix, tc.name, got, err)
			}
			if again := eksLabName(tc.prefix, tc.name); again != got {
				t.Errorf("eksLabName is not stable: %q then %q", got, again)
			}
		})
	}
}

// TestEKSLabSpotAndScaleIn runs the fleet against a real lab cluster: a spot
// node under notice is tainted and cordoned in Kubernetes, deleted when the
// notice ends and replaced; scaling in keeps the node that runs a pod.
func TestEKSLabSpotAndScaleIn(t *testing.T) {
	clusters := awsLab(t)
	a, base := awsServeOpts(t, clusters, AWSOptions{NodeBootDelay: 300 * time.Millisecond, SpotNotice: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cli := eksClient(awsLabConfig(), base)
	name := eksUniqueName("spot")
	const ng = "spot"
	t.Cleanup(func() {
		a.Wait()
		_ = clusters.DeleteCluster(context.Background(), "eks-"+name)
	})
	if _, err := cli.CreateCluster(ctx, eksTestClusterInput(name)); err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	if err := eks.NewClusterActiveWaiter(cli, func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 250*time.Millisecond, time.Second }).
		Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 3*time.Minute); err != nil {
		t.Fatalf("waiting for ACTIVE: %v", err)
	}
	in := eksTestNodegroupInput(name, ng, "m5.large", 0, 3, 2)
	in.CapacityType = types.CapacityTypesSpot
	if _, err := cli.CreateNodegroup(ctx, in); err != nil {
		t.Fatalf("CreateNodegroup: %v", err)
	}
	if err := eks.NewNodegroupActiveWaiter(cli, func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 250*time.Millisecond, time.Second }).
		Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng)}, 2*time.Minute); err != nil {
		t.Fatalf("waiting for node group ACTIVE: %v", err)
	}
	st, err := clusters.Get("eks-" + name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", st.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	nodes := eksWaitNodes(ctx, t, cs, ng, 2)
	if len(nodes) != 2 {
		t.Fatalf("node group has %d nodes, want 2", len(nodes))
	}
	for _, n := range nodes {
		if n.Labels["eks.amazonaws.com/capacityType"] != "SPOT" {
			t.Errorf("node %s capacityType label %q, want SPOT", n.Name, n.Labels["eks.amazonaws.com/capacityType"])
		}
	}

	victim := nodes[0].Name
	doomed := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "doomed", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: victim, Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, doomed, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	raw, _ := json.Marshal(SpotInterruption{Cluster: name, Node: victim})
	resp, err := http.Post(base+"/lab/v1/spot-interruptions", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("spot interruption answered %s", resp.Status)
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, victim, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("node under notice: %v", err)
	}
	tainted := false
	for _, tn := range n.Spec.Taints {
		tainted = tainted || (tn.Key == SpotInterruptionTaint && tn.Effect == corev1.TaintEffectNoSchedule)
	}
	if !tainted || !n.Spec.Unschedulable {
		t.Errorf("node under notice: taints %v unschedulable %v, want %s NoSchedule and cordoned", n.Spec.Taints, n.Spec.Unschedulable, SpotInterruptionTaint)
	}
	for {
		_, err := cs.CoreV1().Nodes().Get(ctx, victim, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("interrupted node %s still there", victim)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := cs.CoreV1().Pods("default").Get(ctx, "doomed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod of the interrupted node after it is gone: %v, want NotFound", err)
	}
	nodes = eksWaitNodes(ctx, t, cs, ng, 2)
	if len(nodes) != 2 || nodes[0].Name == victim || nodes[1].Name == victim {
		t.Fatalf("nodes after the interruption: %d, want 2 with a replacement", len(nodes))
	}

	// A pod on one node: scaling 2 -> 1 keeps that node.
	busy := nodes[1].Name
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "busy", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: busy, Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	if _, err := cli.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(name), NodegroupName: aws.String(ng),
		ScalingConfig: &types.NodegroupScalingConfig{DesiredSize: aws.Int32(1)}}); err != nil {
		t.Fatalf("UpdateNodegroupConfig: %v", err)
	}
	nodes = eksWaitNodes(ctx, t, cs, ng, 1)
	if len(nodes) != 1 || nodes[0].Name != busy {
		t.Errorf("node left after scaling in: %v, want %s (it runs a pod)", nodes, busy)
	}
}
