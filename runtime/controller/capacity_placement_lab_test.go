package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// TestCapacityPlacementSkipsLab: two EKS burst targets, the preferred one
// (priority 10) with a node group of at most 1 node, the other (priority 5)
// of at most 3. 6 one-CPU burst replicas need 2 four-CPU nodes: the
// preferred target grows to its maximum (MaxReached) and placement, seeing
// that it can take no more, puts the rest on the other target, which grows
// for them; no replica is left Pending.
//
// Found by this test: when the policy burst before the targets were probed,
// status.free unset counted as unlimited and all 6 went to the preferred
// target, 2 staying Pending there (placement places the deficit only and
// never moves replicas already placed). An unprobed target with node groups
// now offers what its groups can hold (TestBurstPlacementTarget); this test
// waits for the probes, as in a running install.
func TestCapacityPlacementSkipsLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	base := env["HCA_LAB_EKS_ENDPOINT"]
	const region = "eu-west-1"
	awsCfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	cloud := &member.AWSAPI{Config: awsCfg, EKSEndpoint: base, STSEndpoint: env["HCA_LAB_STS_ENDPOINT"], AutoScalingEndpoint: base}
	eksc := eks.NewFromConfig(awsCfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(base) })
	pool := fmt.Sprintf("capp-%d", bl.id)

	burstCluster := func(name string, maxNodes, priority int32) *hcav1.HybridCluster {
		t.Helper()
		if _, err := eksc.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
			ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c := context.Background()
			_, _ = eksc.DeleteNodegroup(c, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")})
			_ = eks.NewNodegroupDeletedWaiter(eksc, func(o *eks.NodegroupDeletedWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).
				Wait(c, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute)
			_, _ = eksc.DeleteCluster(c, &eks.DeleteClusterInput{Name: aws.String(name)})
		})
		if err := eks.NewClusterActiveWaiter(eksc, func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).
			Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := eksc.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst"),
			NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{"m5.xlarge"},
			Labels: map[string]string{"hca.dev/test-pool": pool}, Tags: map[string]string{"hca.dev/lab-node-boot-delay": "2s"},
			ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(0)}}); err != nil {
			t.Fatal(err)
		}
		if err := eks.NewNodegroupActiveWaiter(eksc, func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }).
			Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
		hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
			Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: priority,
			Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: name, Region: region}},
			NodeGroups: []hcav1.NodeGroup{{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: region, NodegroupName: "burst"},
				InstanceType: "m5.xlarge", PricePerHour: "0.192", MinNodes: 0, MaxNodes: maxNodes, Labels: map[string]string{"hca.dev/test-pool": pool},
				Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}}},
		}}
		if err := bl.control.Create(ctx, hc); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = bl.control.Delete(context.Background(), hc) })
		return hc
	}
	small := burstCluster(fmt.Sprintf("capp-a-%d", bl.id), 1, 10)
	big := burstCluster(fmt.Sprintf("capp-b-%d", bl.id), 3, 5)

	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = bl.clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	ns := bl.namespace(t, ctx, "capplace")
	bl.deploy(t, ctx, ns, pool, 10)
	sel := fmt.Sprintf(`{"spec":{"template":{"spec":{"nodeSelector":{"hca.dev/node-pool":null,"hca.dev/test-pool":%q}}}}}`, pool)
	if err := bl.control.Patch(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.RawPatch(types.MergePatchType, []byte(sel))); err != nil {
		t.Fatal(err)
	}

	mgr, err := ctrl.NewManager(bl.cfg, ctrl.Options{Scheme: bl.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	members := &controller.Members{Control: mgr.GetAPIReader(), AWS: cloud, Options: client.Options{Scheme: bl.scheme}}
	if err := controller.NewBurstReconciler(mgr.GetClient(), controller.BurstOptions{Members: members, Clock: clock.RealClock{}, Class: bl.class()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := (&controller.HybridClusterReconciler{Client: mgr.GetClient(), Members: members, Clock: clock.RealClock{}, Interval: time.Second, Class: bl.class()}).SetupWithManager(mgr); err != nil {
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

	// As in a running install, the targets are probed (free capacity) and
	// their groups read (status.nodeGroups) before the burst.
	pctx, pcancel := context.WithTimeout(ctx, time.Minute)
	defer pcancel()
	burstEventually(t, pctx, "both targets probed and their groups read", func() (bool, string) {
		var a, b hcav1.HybridCluster
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(small), &a)
		_ = bl.control.Get(ctx, client.ObjectKeyFromObject(big), &b)
		return a.Status.Free != nil && b.Status.Free != nil && len(a.Status.NodeGroups) == 1 && len(b.Status.NodeGroups) == 1,
			fmt.Sprintf("free %v / %v, groups %+v / %+v", a.Status.Free, b.Status.Free, a.Status.NodeGroups, b.Status.NodeGroups)
	})
	p := bl.policy(ns, 0, hcav1.ClusterName(small.Name), hcav1.ClusterName(big.Name))
	p.Spec.Consul = nil
	p.Spec.Capacity = &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: time.Minute}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	count := func(hc *hcav1.HybridCluster) (running, pending int, reason string) {
		m, err := members.Get(ctx, hc.Name)
		if err != nil {
			return -1, -1, err.Error()
		}
		var pods corev1.PodList
		if err := m.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return -1, -1, err.Error()
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
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err == nil && len(got.Status.NodeGroups) == 1 {
			reason = got.Status.NodeGroups[0].Reason
		}
		return running, pending, reason
	}
	wctx, wcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer wcancel()
	burstEventually(t, wctx, "4 replicas on the preferred target's one node, 2 on the other, none Pending", func() (bool, string) {
		ra, pa, why := count(small)
		rb, pb, _ := count(big)
		return ra == 4 && pa == 0 && why == "MaxReached" && rb == 2 && pb == 0,
			fmt.Sprintf("preferred: running %d pending %d reason %q; other: running %d pending %d", ra, pa, why, rb, pb)
	})
}
