package demo

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// Node labels of the clouds' node groups: an EKS managed node group's name,
// an ACK node pool's ID.
const (
	eksNodegroupLabel = controller.EKSNodegroupLabel
	ackNodePoolLabel  = "alibabacloud.com/nodepool-id"
)

// nodeCounter counts the nodes of the burst clusters' node groups: the
// desired sizes the runtime reports (HybridCluster status.nodeGroups, priced
// with spec.nodeGroups' pricePerHour) and the Ready nodes in the clusters'
// own Node lists, reached as the runtime reaches them (EKS by name through
// the lab's STS, ACK with its kubeconfig Secret).
type nodeCounter struct {
	control client.Client
	members *controller.Members
}

func newNodeCounter(c client.Client, env map[string]string) *nodeCounter {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	return &nodeCounter{control: c, members: &controller.Members{Control: c,
		AWS: &member.AWSAPI{Config: cfg, EKSEndpoint: env["HCA_LAB_EKS_ENDPOINT"], STSEndpoint: env["HCA_LAB_STS_ENDPOINT"]}}}
}

// count returns the node counts of the demo's burst clusters that have node
// groups. Ready nodes come from the cluster's Node list; when the cluster
// cannot be reached, from status.nodeGroups.
func (n *nodeCounter) count(ctx context.Context) (map[string]NodeCount, error) {
	var hcs hcav1.HybridClusterList
	if err := n.control.List(ctx, &hcs); err != nil {
		return nil, fmt.Errorf("list HybridClusters: %w", err)
	}
	out := map[string]NodeCount{}
	for i := range hcs.Items {
		hc := &hcs.Items[i]
		if hc.Spec.Role != hcav1.RoleBurst || len(hc.Spec.NodeGroups) == 0 || !slices.Contains(Clusters, hc.Name) {
			continue
		}
		out[hc.Name] = n.cluster(ctx, hc)
	}
	return out, nil
}

func (n *nodeCounter) cluster(ctx context.Context, hc *hcav1.HybridCluster) NodeCount {
	var c NodeCount
	price := map[string]float64{}
	eksGroups, ackPools := map[string]bool{}, map[string]bool{}
	for _, g := range hc.Spec.NodeGroups {
		price[g.Name], _ = strconv.ParseFloat(string(g.PricePerHour), 64)
		switch {
		case g.EKS != nil:
			eksGroups[g.EKS.NodegroupName] = true
		case g.ACK != nil:
			ackPools[g.ACK.NodePoolID] = true
		}
	}
	var statusReady int32
	for _, g := range hc.Status.NodeGroups {
		c.Desired += g.DesiredNodes
		c.DollarsPerHour += float64(g.DesiredNodes) * price[g.Name]
		statusReady += g.ReadyNodes
		if g.Reason != "" {
			if c.Reasons == nil {
				c.Reasons = map[string]string{}
			}
			c.Reasons[g.Name] = g.Reason
		}
	}
	c.Ready = statusReady
	m, err := n.members.Get(ctx, hc.Name)
	if err != nil {
		return c
	}
	var nodes corev1.NodeList
	if err := m.Client.List(ctx, &nodes); err != nil {
		return c
	}
	c.Ready = 0
	for _, node := range nodes.Items {
		if !eksGroups[node.Labels[eksNodegroupLabel]] && !ackPools[node.Labels[ackNodePoolLabel]] {
			continue
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				c.Ready++
			}
		}
	}
	return c
}
