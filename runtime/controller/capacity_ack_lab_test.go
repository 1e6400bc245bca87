package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/requests"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// ackLab is an ACK cluster of the lab's ACK emulator, made with the
// unmodified CS SDK, with one node pool of 0 nodes.
type ackLab struct {
	endpoint   string
	cli        *cs.Client
	clusterID  string
	poolID     string
	kubeconfig string
}

func (a *ackLab) target(req *requests.RoaRequest) {
	u, _ := url.Parse(a.endpoint)
	req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
}

// newACKLab creates the cluster (its nodes boot after boot, by the emulator's
// tag) and waits until it runs.
func newACKLab(t *testing.T, ctx context.Context, name, boot string) *ackLab {
	t.Helper()
	env := labtest.Require(t, "HCA_LAB_ACK_ENDPOINT")
	a := &ackLab{endpoint: env["HCA_LAB_ACK_ENDPOINT"]}
	var err error
	if a.cli, err = cs.NewClientWithAccessKey("cn-hangzhou", lab.AlicloudAccessKey, lab.AlicloudAccessSecret); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{
		"name": name, "region_id": "cn-hangzhou", "cluster_type": "ManagedKubernetes", "vpcid": "vpc-hcalab", "vswitch_ids": []string{"vsw-hcalab1"},
		"tags": []map[string]string{{"key": "hca.dev/lab-node-boot-delay", "value": boot}},
		"nodepools": []map[string]any{{"nodepool_info": map[string]any{"name": "burst"},
			"scaling_group": map[string]any{"instance_types": []string{"ecs.g6.xlarge"}, "desired_size": 0}}},
	})
	req := cs.CreateCreateClusterRequest()
	a.target(req.RoaRequest)
	req.SetContent(body)
	req.SetContentType("application/json")
	resp, err := a.cli.CreateCluster(req)
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	a.clusterID = resp.ClusterId
	t.Cleanup(func() {
		req := cs.CreateDeleteClusterRequest()
		a.target(req.RoaRequest)
		req.ClusterId = a.clusterID
		_, _ = a.cli.DeleteCluster(req)
	})
	burstEventually(t, ctx, "the ACK cluster runs", func() (bool, string) {
		req := cs.CreateDescribeClusterDetailRequest()
		a.target(req.RoaRequest)
		req.ClusterId = a.clusterID
		resp, err := a.cli.DescribeClusterDetail(req)
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
	a.target(preq.RoaRequest)
	preq.ClusterId = a.clusterID
	presp, err := a.cli.DescribeClusterNodePools(preq)
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
			a.poolID = p.Info.ID
		}
	}
	if a.poolID == "" {
		t.Fatalf("no node pool burst in %s", presp.GetHttpContentString())
	}
	kreq := cs.CreateDescribeClusterUserKubeconfigRequest()
	a.target(kreq.RoaRequest)
	kreq.ClusterId = a.clusterID
	kresp, err := a.cli.DescribeClusterUserKubeconfig(kreq)
	if err != nil {
		t.Fatal(err)
	}
	a.kubeconfig = kresp.Config
	return a
}

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
	if err := bl.control.Create(ctx, sec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bl.control.Delete(context.Background(), sec) })
	pool := name
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderACK, Priority: 5,
		Credentials: hcav1.ClusterCredentials{SecretRef: &hcav1.SecretKeyRef{Namespace: "default", Name: hcav1.ObjectName(sec.Name)}},
		NodeGroups: []hcav1.NodeGroup{{Name: "burst", ACK: &hcav1.ACKNodePoolRef{ClusterID: ack.clusterID, Region: "cn-hangzhou", NodePoolID: ack.poolID},
			InstanceType: "ecs.g6.xlarge", PricePerHour: "0.178", MinNodes: 0, MaxNodes: 3,
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 64}}},
	}}
	if err := bl.control.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bl.control.Delete(context.Background(), hc) })

	// The private pool holds 4 of the 6 one-CPU replicas; the replicas
	// select nothing the ACK pool's nodes lack.
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = bl.clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	ns := bl.namespace(t, ctx, "capack")
	bl.logEventsOnFailure(t, ns, name)
	// Private nodes by the test label; burst nodes by the pool's instance
	// type (the ACK cluster's default workers are none). Set before the
	// Deployment is created: changing the template afterwards starts a
	// rollout whose surge pod bursts too, and the primary's share can then
	// equal the 3 replicas the test scales to later, which the controller
	// cannot tell from its own write.
	bl.deploy(t, ctx, ns, pool, 6, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = nil
		d.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "hca.dev/test-pool", Operator: corev1.NodeSelectorOpIn, Values: []string{pool}}}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: controller.ACKNodePoolLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{ack.poolID}}}},
			}}}}
	})

	mgr, err := ctrl.NewManager(bl.cfg, ctrl.Options{Scheme: bl.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	members := &controller.Members{Control: mgr.GetAPIReader(), Options: client.Options{Scheme: bl.scheme}}
	if err := controller.NewBurstReconciler(mgr.GetClient(), controller.BurstOptions{Members: members, Clock: clock.RealClock{}, Class: bl.class()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := (&controller.CapacityReconciler{Client: mgr.GetClient(), Members: members, Cloud: member.Clouds{ACK: cloud}, Interval: 500 * time.Millisecond, Class: bl.class()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, mcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { mcancel(); <-done })

	p := bl.policy(ns, 0, hcav1.ClusterName(name))
	p.Spec.Consul = nil
	p.Spec.Capacity = &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: 2 * time.Second}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	m, err := members.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	burstPods := func() (running, pending int, nodes int) {
		var pods corev1.PodList
		if err := m.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return -1, -1, -1
		}
		for _, pod := range pods.Items {
			switch {
			case pod.DeletionTimestamp != nil:
			case pod.Status.Phase == corev1.PodRunning:
				running++
			case pod.Spec.NodeName == "":
				pending++
			}
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
	var evs eventsv1.EventList
	if err := bl.control.List(ctx, &evs); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, e := range evs.Items {
		if e.Regarding.Kind == "HybridCluster" && e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	if got := strings.Join(reasons, ","); !strings.Contains(got, "NodesRequested") || !strings.Contains(got, "NodesReleased") {
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
	if err := bl.control.List(ctx, &evs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range evs.Items {
		found = found || e.Regarding.Kind == "HybridCluster" && e.Regarding.Name == name && e.Reason == "LaunchFailures"
	}
	if !found {
		t.Errorf("no LaunchFailures event on the hybrid cluster")
	}
	labPost(t, ack.endpoint, "/lab/v1/vcpu-quota", map[string]any{"capacityType": "ON_DEMAND", "vcpus": 0})
	burstEventually(t, fctx, "the node comes once the quota is lifted", func() (bool, string) {
		r, pe, n := burstPods()
		return r == 2 && n == 1 && desired() == 1, fmt.Sprintf("running %d, pending %d, nodes %d, status %s", r, pe, n, status())
	})
}
