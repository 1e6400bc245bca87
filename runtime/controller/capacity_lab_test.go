package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
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
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// TestCapacityLab is scale from zero through the EKS emulator and the
// unmodified EKS SDK: a burst cluster whose only node group has 0 nodes
// receives 2 burst replicas; they stay Pending until the capacity controller
// grows the group to 1 node; then they run. When the load falls the replicas
// go home, the node is empty, and after the policy's scale-down delay the
// group is back to 0 nodes.
func TestCapacityLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)

	const region = "eu-west-1"
	awsCfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	cloud := &member.AWSAPI{Config: awsCfg, EKSEndpoint: env["HCA_LAB_EKS_ENDPOINT"], STSEndpoint: env["HCA_LAB_STS_ENDPOINT"], AutoScalingEndpoint: env["HCA_LAB_EKS_ENDPOINT"]}
	eksc := eks.NewFromConfig(awsCfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	name, pool := fmt.Sprintf("cap-%d", bl.id), fmt.Sprintf("cap-%d", bl.id)
	if _, err := eksc.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c := context.Background()
		_, _ = eksc.DeleteNodegroup(c, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")})
		_ = eks.NewNodegroupDeletedWaiter(eksc, func(o *eks.NodegroupDeletedWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).Wait(c, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute)
		_, _ = eksc.DeleteCluster(c, &eks.DeleteClusterInput{Name: aws.String(name)})
	})
	if err := eks.NewClusterActiveWaiter(eksc, func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := eksc.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst"),
		NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{"m5.xlarge"},
		Labels: map[string]string{"hca.dev/test-pool": pool},
		// The lab boots nodes after its realistic delay (75 s); this test
		// shortens it for its own group with the emulator's tag.
		Tags:          map[string]string{"hca.dev/lab-node-boot-delay": "2s"},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(0)}}); err != nil {
		t.Fatal(err)
	}
	if err := eks.NewNodegroupActiveWaiter(eksc, func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	desired := func() int32 {
		st, err := cloud.DescribeNodegroup(ctx, name, region, "burst")
		if err != nil {
			t.Fatal(err)
		}
		return st.Desired
	}

	// The burst cluster, registered by EKS name (the runtime mints tokens),
	// with its node group for the runtime to size.
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: 5,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: name, Region: region}},
		NodeGroups: []hcav1.NodeGroup{{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: region, NodegroupName: "burst"},
			InstanceType: "m5.xlarge", PricePerHour: "0.192", MinNodes: 0, MaxNodes: 3, Labels: map[string]string{"hca.dev/test-pool": pool},
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}}},
	}}
	if err := bl.control.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bl.control.Delete(context.Background(), hc) })
	if len(hc.Spec.NodeGroups) != 1 {
		t.Fatalf("the API server dropped spec.nodeGroups (%+v): is the installed HybridCluster CRD older than this checkout's?", hc.Spec)
	}

	// The private pool holds 4 of the 6 one-CPU replicas; the replicas
	// select the pool by a label the node group's nodes carry too.
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = bl.clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	ns := bl.namespace(t, ctx, "capacity")
	bl.deploy(t, ctx, ns, pool, 6, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"hca.dev/test-pool": pool}
	})

	mgr, err := ctrl.NewManager(bl.cfg, ctrl.Options{Scheme: bl.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	members := &controller.Members{Control: mgr.GetAPIReader(), AWS: cloud, Options: client.Options{Scheme: bl.scheme}}
	if err := controller.NewBurstReconciler(mgr.GetClient(), controller.BurstOptions{Members: members, Clock: clock.RealClock{}, Class: bl.class()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := (&controller.CapacityReconciler{Client: mgr.GetClient(), Members: members, Cloud: member.Clouds{AWS: cloud}, Interval: 500 * time.Millisecond, Class: bl.class()}).SetupWithManager(mgr); err != nil {
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
		_ = m.Client.List(ctx, &nl, client.MatchingLabels{controller.EKSNodegroupLabel: "burst"})
		return running, pending, len(nl.Items)
	}

	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "2 replicas burst and run on a node the runtime bought", func() (bool, string) {
		r, pe, n := burstPods()
		var got hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got)
		return r == 2 && n == 1 && desired() == 1, fmt.Sprintf("running %d, pending %d, nodes %d, desired %d, node groups %+v", r, pe, n, desired(), got.Status.NodeGroups)
	})
	burstEventually(t, ctx, "the statuses show the node", func() (bool, string) {
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil {
			return false, err.Error()
		}
		pol := bl.getPolicy(t, ctx, ns)
		var nodesReady int32
		for _, c := range pol.Status.Replicas {
			if string(c.Cluster) == name {
				nodesReady = c.NodesReady
			}
		}
		ok := len(got.Status.NodeGroups) == 1 && got.Status.NodeGroups[0].ReadyNodes == 1 && got.Status.NodeGroups[0].DesiredNodes == 1 && nodesReady == 1
		return ok, fmt.Sprintf("node groups %+v, policy replicas %+v", got.Status.NodeGroups, pol.Status.Replicas)
	})

	// The load falls: 3 replicas in all, which the private pool holds. The
	// new total must differ from what the runtime last wrote to the primary
	// (4 once settled), or the scale is not a change it can see: 2 then.
	var dep appsv1.Deployment
	if err := bl.control.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &dep); err != nil {
		t.Fatal(err)
	}
	total := int32(3)
	if *dep.Spec.Replicas == total {
		total = 2
	}
	bl.scale(t, ctx, ns, total)
	burstEventually(t, ctx, "the burst replicas go home and the node is released after the 2 s delay", func() (bool, string) {
		r, pe, n := burstPods()
		pol := bl.getPolicy(t, ctx, ns)
		return r == 0 && pe == 0 && n == 0 && desired() == 0, fmt.Sprintf("running %d, pending %d, nodes %d, desired %d; policy phase %s, replicas %+v, conditions %+v",
			r, pe, n, desired(), pol.Status.Phase, pol.Status.Replicas, pol.Status.Conditions)
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
}
