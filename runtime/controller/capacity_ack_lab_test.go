package controller_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// TestCapacityACKLab is scale from zero and back to zero through the ACK
// emulator and the unmodified CS SDK: 2 burst replicas Pending in an ACK
// cluster whose node pool has 0 nodes make the capacity controller set the
// pool's desired size to 1 (ModifyClusterNodePool); the node boots, they
// run; when the load falls the node is empty and, after the policy's
// scale-down delay, removed by name (DeleteClusterNodes): the pool is back
// at 0.
func TestCapacityACKLab(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	name := fmt.Sprintf("capack-%d", bl.id)
	ack := newACKLab(t, ctx, name, "2s")
	// The runtime's way: the SDK's default chain reads the environment.
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", lab.AlicloudAccessKey)
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", lab.AlicloudAccessSecret)
	cloud := &member.ACKAPI{Endpoint: ack.endpoint}
	desired := func() int32 {
		st, err := cloud.DescribeNodePool(ctx, ack.clusterID, "cn-hangzhou", ack.poolID)
		if err != nil {
			t.Fatal(err)
		}
		return st.Desired
	}

	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hc-" + name, Namespace: "default"}, Data: map[string][]byte{"kubeconfig": []byte(ack.kubeconfig)}}
	bl.create(t, ctx, sec)
	pool := name
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderACK, Priority: 5,
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "default", Name: hcav1.ObjectName(sec.Name)}},
		NodeGroups: []hcav1.NodeGroup{{Name: "burst", ACK: &hcav1.ACKNodePoolRef{ClusterID: ack.clusterID, Region: "cn-hangzhou", NodePoolID: ack.poolID},
			InstanceType: "ecs.g6.xlarge", PricePerHour: "0.178", MinNodes: 0, MaxNodes: 3,
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 64}}},
	}}
	bl.create(t, ctx, hc)

	// The private pool holds 4 of the 6 one-CPU replicas; the replicas
	// select nothing the ACK pool's nodes lack.
	bl.privatePool(t, ctx, pool)
	ns := bl.namespace(t, ctx, "capack")
	bl.deploy(t, ctx, ns, pool, 6)
	// Private nodes by the test label; burst nodes by the pool's instance
	// type (the ACK cluster's default workers are none).
	sel := fmt.Sprintf(`{"spec":{"template":{"spec":{"nodeSelector":{"hca.dev/node-pool":null,"hca.dev/test-pool":null},`+
		`"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[`+
		`{"matchExpressions":[{"key":"hca.dev/test-pool","operator":"In","values":[%q]}]},`+
		`{"matchExpressions":[{"key":%q,"operator":"In","values":[%q]}]}]}}}}}}}`, pool, controller.ACKNodePoolLabel, ack.poolID)
	if err := bl.control.Patch(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.RawPatch(types.MergePatchType, []byte(sel))); err != nil {
		t.Fatal(err)
	}

	members, _ := bl.startCapacity(t, ctx, member.Clouds{ACK: cloud}, false)
	bl.capacityPolicy(t, ctx, ns, &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: 2 * time.Second}}, hcav1.ClusterName(name))
	m, err := members.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	burstPods := func() (running, pending int, nodes int) {
		running, pending, err := podCounts(ctx, m.Client, ns)
		if err != nil {
			return -1, -1, -1
		}
		var nl corev1.NodeList
		_ = m.Client.List(ctx, &nl, client.MatchingLabels{controller.ACKNodePoolLabel: ack.poolID})
		return running, pending, len(nl.Items)
	}
	status := func() string {
		var got hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got)
		return fmt.Sprintf("%+v", got.Status.NodeGroups)
	}

	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "2 replicas burst and run on an ACK node the runtime bought", func() (bool, string) {
		r, pe, n := burstPods()
		d := desired()
		return r == 2 && n == 1 && d == 1, fmt.Sprintf("running %d, pending %d, nodes %d, desired %d, node groups %s", r, pe, n, d, status())
	})
	burstEventually(t, wctx, "the status shows the node", func() (bool, string) {
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil {
			return false, err.Error()
		}
		g := got.Status.NodeGroups
		return len(g) == 1 && g[0].ReadyNodes == 1 && g[0].DesiredNodes == 1 && g[0].Reason == "", fmt.Sprintf("%+v", g)
	})

	bl.scale(t, ctx, ns, 3)
	burstEventually(t, wctx, "the burst replicas go home and the ACK node is removed after the 2 s delay", func() (bool, string) {
		r, pe, n := burstPods()
		d := desired()
		return r == 0 && pe == 0 && n == 0 && d == 0, fmt.Sprintf("running %d, pending %d, nodes %d, desired %d, node groups %s", r, pe, n, d, status())
	})
	if got := bl.hybridClusterReasons(t, ctx, name); !strings.Contains(got, "NodesRequested") || !strings.Contains(got, "NodesReleased") {
		t.Errorf("events on the hybrid cluster: %s; want NodesRequested and NodesReleased", got)
	}

	// The account's on-demand vCPU quota (1) is below one ecs.g6.xlarge: the
	// pool is asked for a node that cannot be created (failed_nodes), the
	// group says LaunchFailures with its Event; the node comes once the
	// quota is lifted.
	labPost(t, ack.endpoint, "/lab/v1/vcpu-quota", map[string]any{"capacityType": "ON_DEMAND", "vcpus": 1})
	t.Cleanup(func() {
		labPost(t, ack.endpoint, "/lab/v1/vcpu-quota", map[string]any{"capacityType": "ON_DEMAND", "vcpus": 0})
	})
	bl.scale(t, ctx, ns, 6)
	fctx, fcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer fcancel()
	burstEventually(t, fctx, "reason LaunchFailures while the quota holds", func() (bool, string) {
		var got hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got)
		g := got.Status.NodeGroups
		return len(g) == 1 && g[0].Reason == "LaunchFailures" && desired() == 1, status()
	})
	found := slices.Contains(strings.Split(bl.hybridClusterReasons(t, ctx, name), ","), "LaunchFailures")
	if !found {
		t.Errorf("no LaunchFailures event on the hybrid cluster")
	}
	labPost(t, ack.endpoint, "/lab/v1/vcpu-quota", map[string]any{"capacityType": "ON_DEMAND", "vcpus": 0})
	burstEventually(t, fctx, "the node comes once the quota is lifted", func() (bool, string) {
		r, pe, n := burstPods()
		return r == 2 && n == 1 && desired() == 1, fmt.Sprintf("running %d, pending %d, nodes %d, status %s", r, pe, n, status())
	})
}
