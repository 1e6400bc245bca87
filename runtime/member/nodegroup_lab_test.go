package member_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// waitFor polls cond every 100 ms until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		select {
		case <-ctx.Done():
			t.Fatalf("%s: gave up; last: %s", what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestRemoveNodesEKSLab removes one given node of a 3-node EKS managed node
// group through member.Clouds (Auto Scaling's
// TerminateInstanceInAutoScalingGroup on the node's instance): that node
// goes, not another (the emulator's own scale-in would take the newest, so
// the oldest is asked for), and the desired size drops by one; at the
// group's minimum Auto Scaling refuses.
func TestRemoveNodesEKSLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const region = "eu-west-1"
	cfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	api := &member.AWSAPI{Config: cfg, EKSEndpoint: env["HCA_LAB_EKS_ENDPOINT"], STSEndpoint: env["HCA_LAB_STS_ENDPOINT"], AutoScalingEndpoint: env["HCA_LAB_EKS_ENDPOINT"]}
	cli := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	name := fmt.Sprintf("rm-%d", rand.IntN(1e6))
	if _, err := cli.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c := context.Background()
		_, _ = cli.DeleteNodegroup(c, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("ng")})
		_ = eks.NewNodegroupDeletedWaiter(cli, func(o *eks.NodegroupDeletedWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).Wait(c, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("ng")}, 2*time.Minute)
		_, _ = cli.DeleteCluster(c, &eks.DeleteClusterInput{Name: aws.String(name)})
	})
	if err := eks.NewClusterActiveWaiter(cli, func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("ng"),
		NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{"m5.large"},
		Tags:          map[string]string{"hca.dev/lab-node-boot-delay": "0s"},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(2), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(3)}}); err != nil {
		t.Fatal(err)
	}
	if err := eks.NewNodegroupActiveWaiter(cli, func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("ng")}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	rc, err := member.RESTConfig(ctx, member.Credentials{EKS: &member.EKSCluster{Name: name, Region: region}}, api, clock.RealClock{})
	if err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(rc)
	g := hcav1.NodeGroup{Name: "ng", EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: region, NodegroupName: "ng"}}
	removeAndCheck(t, ctx, member.Clouds{AWS: api}, g, kc, "eks.amazonaws.com/nodegroup=ng")

	// At the minimum (2) Auto Scaling refuses to terminate without replacement.
	nodes := groupNodes(t, ctx, kc, "eks.amazonaws.com/nodegroup=ng")
	err = member.Clouds{AWS: api}.RemoveNodes(ctx, g, []member.GroupNode{{Name: nodes[0].Name, ProviderID: nodes[0].Spec.ProviderID}})
	if err == nil || !strings.Contains(err.Error(), "ValidationError") || !strings.Contains(err.Error(), "minSize (2)") {
		t.Errorf("removing below the minimum: %v, want Auto Scaling's ValidationError on minSize (2)", err)
	}
}

// TestRemoveNodesACKLab is the same through the ACK emulator and the CS SDK
// (DeleteClusterNodes with release_node).
func TestRemoveNodesACKLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_ACK_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAIhcalab00000001")
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "hcalabalicloudsecret000000001")
	api := &member.ACKAPI{Endpoint: env["HCA_LAB_ACK_ENDPOINT"]}
	id, pool, kubeconfig := ackCluster(t, ctx, env["HCA_LAB_ACK_ENDPOINT"], fmt.Sprintf("rm-%d", rand.IntN(1e6)), 3)
	rc, err := member.RESTConfig(ctx, member.Credentials{Kubeconfig: []byte(kubeconfig)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(rc)
	g := hcav1.NodeGroup{Name: "burst", ACK: &hcav1.ACKNodePoolRef{ClusterID: id, Region: "cn-hangzhou", NodePoolID: pool}}
	waitFor(t, ctx, "3 nodes", func() (bool, string) {
		n := len(groupNodes(t, ctx, kc, member.ACKNodePoolLabel+"="+pool))
		return n == 3, fmt.Sprint(n)
	})
	removeAndCheck(t, ctx, member.Clouds{ACK: api}, g, kc, member.ACKNodePoolLabel+"="+pool)

	// Throttling (Throttling.User from the gateway): a short spell is
	// retried away with backoff; a long one ends in ErrThrottled.
	api.Backoff = 20 * time.Millisecond
	throttle := func(next int) {
		resp, err := http.Post(env["HCA_LAB_ACK_ENDPOINT"]+"/lab/v1/throttling", "application/json", strings.NewReader(fmt.Sprintf(`{"next":%d,"cluster":%q}`, next, id)))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	t.Cleanup(func() { throttle(0) })
	throttle(2)
	if st, err := (member.Clouds{ACK: api}).DescribeGroup(ctx, g); err != nil || st.Desired != 2 {
		t.Errorf("DescribeGroup through 2 throttled calls: %+v, %v; want desired 2 after retries", st, err)
	}
	throttle(50)
	if _, err := (member.Clouds{ACK: api}).DescribeGroup(ctx, g); !errors.Is(err, member.ErrThrottled) || !strings.Contains(err.Error(), "Throttling.User") {
		t.Errorf("DescribeGroup while throttled: %v, want ErrThrottled with Throttling.User", err)
	}
	throttle(0)

	// A pool that does not exist is ErrNodegroupNotFound.
	g.ACK.NodePoolID = "np00000000000000000000000000000000"
	if _, err := (member.Clouds{ACK: api}).DescribeGroup(ctx, g); !errors.Is(err, member.ErrNodegroupNotFound) {
		t.Errorf("DescribeGroup of a missing pool: %v, want ErrNodegroupNotFound", err)
	}
}

func groupNodes(t *testing.T, ctx context.Context, kc kubernetes.Interface, selector string) []corev1.Node {
	t.Helper()
	list, err := kc.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b corev1.Node) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	return list.Items
}

// removeAndCheck removes the oldest of the group's 3 nodes and checks that it
// alone goes and the desired size is 2.
func removeAndCheck(t *testing.T, ctx context.Context, c member.Clouds, g hcav1.NodeGroup, kc kubernetes.Interface, selector string) {
	t.Helper()
	nodes := groupNodes(t, ctx, kc, selector)
	if len(nodes) != 3 {
		t.Fatalf("%d nodes, want 3", len(nodes))
	}
	victim := nodes[0]
	keep := []string{nodes[1].Name, nodes[2].Name}
	slices.Sort(keep)
	if err := c.RemoveNodes(ctx, g, []member.GroupNode{{Name: victim.Name, ProviderID: victim.Spec.ProviderID}}); err != nil {
		t.Fatalf("RemoveNodes %s: %v", victim.Name, err)
	}
	waitFor(t, ctx, victim.Name+" alone goes", func() (bool, string) {
		var names []string
		for _, n := range groupNodes(t, ctx, kc, selector) {
			names = append(names, n.Name)
		}
		slices.Sort(names)
		return slices.Equal(names, keep), fmt.Sprintf("nodes %v, want %v", names, keep)
	})
	st, err := c.DescribeGroup(ctx, g)
	if err != nil || st.Desired != 2 {
		t.Errorf("DescribeGroup after the removal: %+v, %v; want desired 2", st, err)
	}
	// It stays at 2: no replacement comes.
	time.Sleep(time.Second)
	if n := len(groupNodes(t, ctx, kc, selector)); n != 2 {
		t.Errorf("%d nodes a second after the removal, want 2 (no replacement)", n)
	}
}

// ackCluster creates an ACK cluster with the CS SDK whose node pool "burst"
// has n nodes (booting at once), waits until it runs and returns its ID, the
// pool's ID and its kubeconfig.
func ackCluster(t *testing.T, ctx context.Context, endpoint, name string, n int) (id, pool, kubeconfig string) {
	t.Helper()
	u, _ := url.Parse(endpoint)
	cli, err := cs.NewClientWithAccessKey("cn-hangzhou", "LTAIhcalab00000001", "hcalabalicloudsecret000000001")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{
		"name": name, "region_id": "cn-hangzhou", "cluster_type": "ManagedKubernetes", "vpcid": "vpc-hcalab", "vswitch_ids": []string{"vsw-hcalab1"},
		"tags": []map[string]string{{"key": "hca.dev/lab-node-boot-delay", "value": "0s"}},
		"nodepools": []map[string]any{{"nodepool_info": map[string]any{"name": "burst"},
			"scaling_group": map[string]any{"instance_types": []string{"ecs.g6.large"}, "desired_size": n}}},
	})
	req := cs.CreateCreateClusterRequest()
	req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
	req.SetContent(body)
	req.SetContentType("application/json")
	resp, err := cli.CreateCluster(req)
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	id = resp.ClusterId
	t.Cleanup(func() {
		req := cs.CreateDeleteClusterRequest()
		req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
		req.ClusterId = id
		_, _ = cli.DeleteCluster(req)
	})
	waitFor(t, ctx, "the ACK cluster runs", func() (bool, string) {
		req := cs.CreateDescribeClusterDetailRequest()
		req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
		req.ClusterId = id
		resp, err := cli.DescribeClusterDetail(req)
		if err != nil {
			return false, err.Error()
		}
		var d struct {
			State string `json:"state"`
		}
		_ = json.Unmarshal(resp.GetHttpContentBytes(), &d)
		return d.State == "running", d.State
	})
	preq := cs.CreateDescribeClusterNodePoolsRequest()
	preq.Scheme, preq.Domain, preq.Port = u.Scheme, u.Hostname(), u.Port()
	preq.ClusterId = id
	presp, err := cli.DescribeClusterNodePools(preq)
	if err != nil {
		t.Fatal(err)
	}
	var pools struct {
		Nodepools []struct {
			Info struct {
				ID   string `json:"nodepool_id"`
				Name string `json:"name"`
			} `json:"nodepool_info"`
		} `json:"nodepools"`
	}
	if err := json.Unmarshal(presp.GetHttpContentBytes(), &pools); err != nil {
		t.Fatal(err)
	}
	for _, p := range pools.Nodepools {
		if p.Info.Name == "burst" {
			pool = p.Info.ID
		}
	}
	kreq := cs.CreateDescribeClusterUserKubeconfigRequest()
	kreq.Scheme, kreq.Domain, kreq.Port = u.Scheme, u.Hostname(), u.Port()
	kreq.ClusterId = id
	kresp, err := cli.DescribeClusterUserKubeconfig(kreq)
	if err != nil {
		t.Fatal(err)
	}
	return id, pool, kresp.Config
}
