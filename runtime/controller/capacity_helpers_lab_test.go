package controller_test

import (
	"context"
	"sort"
	"strings"
	"sync/atomic"
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

// eksRegion is the region of the capacity lab tests' EKS clusters.
const eksRegion = "eu-west-1"

// eksLab is the lab's EKS emulator as the runtime (cloud) and a test
// (eks, the unmodified SDK) reach it.
type eksLab struct {
	base  string // the emulator's base URL (EKS, STS and Auto Scaling)
	cloud *member.AWSAPI
	eks   *eks.Client
}

// newEKSLab reads the emulator's endpoints from the lab's environment
// (skipping the test without them) and makes its clients.
func newEKSLab(tb testing.TB) *eksLab {
	tb.Helper()
	env := labtest.Require(tb, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	base := env["HCA_LAB_EKS_ENDPOINT"]
	awsCfg := aws.Config{Region: eksRegion, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	return &eksLab{
		base:  base,
		cloud: &member.AWSAPI{Config: awsCfg, EKSEndpoint: base, STSEndpoint: env["HCA_LAB_STS_ENDPOINT"], AutoScalingEndpoint: base},
		eks:   eks.NewFromConfig(awsCfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(base) }),
	}
}

// eksGroup is one managed node group of an EKS cluster the lab creates:
// nodes of instanceType ("": m5.xlarge) labelled hca.dev/test-pool=pool, 0 to
// 3 of them, 0 at first, booting after boot (the emulator's tag
// hca.dev/lab-node-boot-delay).
type eksGroup struct {
	name         string
	capacity     ekstypes.CapacityTypes // "": the EKS default (on-demand)
	boot         string
	instanceType string
	// running is the group's size at creation (its minimum too): nodes
	// that boot before the test's runtime starts.
	running int32
}

// createCluster creates the EKS cluster name and its node groups through the
// emulator and waits until all are ACTIVE, polling every 0.5-1 s if fast,
// else at the SDK waiters' default pace. Cleanup deletes the groups, waits
// until they are gone and deletes the cluster.
func (e *eksLab) createCluster(tb testing.TB, ctx context.Context, name, pool string, fast bool, groups ...eksGroup) {
	tb.Helper()
	clusterPace := func(*eks.ClusterActiveWaiterOptions) {}
	groupPace := func(*eks.NodegroupActiveWaiterOptions) {}
	deletedPace := func(*eks.NodegroupDeletedWaiterOptions) {}
	if fast {
		clusterPace = func(o *eks.ClusterActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }
		groupPace = func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }
		deletedPace = func(o *eks.NodegroupDeletedWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }
	}
	if _, err := e.eks.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		c := context.Background()
		for _, g := range groups {
			_, _ = e.eks.DeleteNodegroup(c, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name)})
		}
		for _, g := range groups {
			_ = eks.NewNodegroupDeletedWaiter(e.eks, deletedPace).Wait(c, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name)}, 2*time.Minute)
		}
		_, _ = e.eks.DeleteCluster(c, &eks.DeleteClusterInput{Name: aws.String(name)})
	})
	if err := eks.NewClusterActiveWaiter(e.eks, clusterPace).Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
		tb.Fatal(err)
	}
	for _, g := range groups {
		if g.instanceType == "" {
			g.instanceType = "m5.xlarge"
		}
		if _, err := e.eks.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name),
			NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{g.instanceType},
			CapacityType: g.capacity, Labels: map[string]string{"hca.dev/test-pool": pool},
			// The lab boots nodes after its realistic delay (75 s); the tests
			// shorten it for their own groups with the emulator's tag.
			Tags:          map[string]string{"hca.dev/lab-node-boot-delay": g.boot},
			ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(g.running), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(g.running)}}); err != nil {
			tb.Fatal(err)
		}
		if err := eks.NewNodegroupActiveWaiter(e.eks, groupPace).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name)}, 2*time.Minute); err != nil {
			tb.Fatal(err)
		}
	}
}

// eksBurstCluster is the HybridCluster of bl's class registering the EKS
// cluster name (by EKS name: the runtime mints tokens) with its node group
// "burst" (m5.xlarge at 0.192/h, 0 to maxNodes nodes labelled
// hca.dev/test-pool=pool).
func (bl *burstLab) eksBurstCluster(name, pool string, maxNodes, priority int32) *hcav1.HybridCluster {
	return &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: priority,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: name, Region: eksRegion}},
		NodeGroups: []hcav1.NodeGroup{{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: eksRegion, NodegroupName: "burst"},
			InstanceType: "m5.xlarge", PricePerHour: "0.192", MinNodes: 0, MaxNodes: maxNodes, Labels: map[string]string{"hca.dev/test-pool": pool},
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}}},
	}}
}

// eksTarget creates the EKS cluster name with its group "burst" (2 s node
// boots, running nodes from the start, its minimum too) and registers it as
// a burst target of bl's class (at most maxNodes nodes, priority).
func (bl *burstLab) eksTarget(tb testing.TB, ctx context.Context, e *eksLab, name, pool string, running, maxNodes, priority int32) *hcav1.HybridCluster {
	tb.Helper()
	e.createCluster(tb, ctx, name, pool, true, eksGroup{name: "burst", boot: "2s", running: running})
	hc := bl.eksBurstCluster(name, pool, maxNodes, priority)
	hc.Spec.NodeGroups[0].MinNodes = running
	bl.create(tb, ctx, hc)
	return hc
}

// create creates obj in the control cluster; cleanup deletes it.
func (bl *burstLab) create(tb testing.TB, ctx context.Context, obj client.Object) {
	tb.Helper()
	if err := bl.control.Create(ctx, obj); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = bl.control.Delete(context.Background(), obj) })
}

// privatePool gives the private cluster one 4-CPU node labelled
// hca.dev/test-pool=pool and tainted hca.dev/test=pool (4 one-CPU replicas'
// worth); cleanup removes it.
func (bl *burstLab) privatePool(tb testing.TB, ctx context.Context, pool string) {
	tb.Helper()
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = bl.clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
}

// deployOnTestPool deploys replicas of the one-CPU web Deployment in ns
// (bl.deploy) selecting the nodes labelled hca.dev/test-pool=pool instead of
// a lab node pool: the private pool's and the burst node groups' alike. The
// selector is set before the Deployment is created: changing it afterwards
// starts a rollout whose surge pods burst too.
func (bl *burstLab) deployOnTestPool(tb testing.TB, ctx context.Context, ns, pool string, replicas int32) {
	tb.Helper()
	bl.deploy(tb, ctx, ns, pool, replicas, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"hca.dev/test-pool": pool}
	})
}

// startCapacity runs, in a new manager, the burst reconciler, the hybrid
// cluster prober if probe (placement reads the targets' free capacity from
// it) and the capacity reconciler sizing node groups through clouds every
// 0.5 s, all of bl's class. It returns their members (with clouds.AWS
// minting EKS tokens) and stop, which stops the manager once (cleanup calls
// it too).
func (bl *burstLab) startCapacity(tb testing.TB, ctx context.Context, clouds member.Clouds, probe bool) (members *controller.Members, stop func()) {
	tb.Helper()
	mgr, err := ctrl.NewManager(bl.cfg, ctrl.Options{Scheme: bl.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		tb.Fatal(err)
	}
	members = &controller.Members{Control: mgr.GetAPIReader(), Options: client.Options{Scheme: bl.scheme}}
	if clouds.AWS != nil {
		members.AWS = clouds.AWS
	}
	if err := controller.NewBurstReconciler(mgr.GetClient(), controller.BurstOptions{Members: members, Clock: clock.RealClock{}, Class: bl.class()}).SetupWithManager(mgr); err != nil {
		tb.Fatal(err)
	}
	if probe {
		if err := (&controller.HybridClusterReconciler{Client: mgr.GetClient(), Members: members, Clock: clock.RealClock{}, Interval: time.Second, Class: bl.class()}).SetupWithManager(mgr); err != nil {
			tb.Fatal(err)
		}
	}
	if err := (&controller.CapacityReconciler{Client: mgr.GetClient(), Members: members, Cloud: clouds, Interval: 500 * time.Millisecond, Class: bl.class()}).SetupWithManager(mgr); err != nil {
		tb.Fatal(err)
	}
	mctx, mcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			tb.Errorf("manager: %v", err)
		}
	}()
	var once atomic.Bool
	stop = func() {
		if once.CompareAndSwap(false, true) {
			mcancel()
			<-done
		}
	}
	tb.Cleanup(stop)
	return members, stop
}

// capacityPolicy creates the burst policy of ns (bl.policy, without Consul)
// bursting to targets with capacity.
func (bl *burstLab) capacityPolicy(tb testing.TB, ctx context.Context, ns string, capacity *hcav1.BurstCapacity, targets ...hcav1.ClusterName) *hcav1.BurstPolicy {
	tb.Helper()
	p := bl.policy(ns, 0, targets...)
	p.Spec.Consul = nil
	p.Spec.Capacity = capacity
	if err := bl.control.Create(ctx, p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// podCounts counts the pods of ns that c lists: running, and pending (not
// bound to a node); pods being deleted count in neither.
func podCounts(ctx context.Context, c client.Client, ns string) (running, pending int, err error) {
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(ns)); err != nil {
		return 0, 0, err
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
	return running, pending, nil
}

// hybridClusterReasons is the reasons of the Events about the HybridCluster
// name, comma-separated.
func (bl *burstLab) hybridClusterReasons(tb testing.TB, ctx context.Context, name string) string {
	tb.Helper()
	var evs eventsv1.EventList
	if err := bl.control.List(ctx, &evs); err != nil {
		tb.Fatal(err)
	}
	var reasons []string
	for _, e := range evs.Items {
		if e.Regarding.Kind == "HybridCluster" && e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	return strings.Join(reasons, ",")
}

// logEventsOnFailure logs, if the test fails, the Events of namespace ns and
// of the HybridCluster hc in the control cluster, oldest first: what the
// controllers decided, for the failure message.
func (bl *burstLab) logEventsOnFailure(t *testing.T, ns, hc string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var evs eventsv1.EventList
		if err := bl.control.List(context.Background(), &evs); err != nil {
			t.Logf("list events: %v", err)
			return
		}
		sort.SliceStable(evs.Items, func(i, j int) bool { return evs.Items[i].CreationTimestamp.Before(&evs.Items[j].CreationTimestamp) })
		for _, e := range evs.Items {
			if e.Namespace == ns || e.Regarding.Kind == "HybridCluster" && e.Regarding.Name == hc {
				t.Logf("event %s %s %s/%s %s: %s", e.CreationTimestamp.Format("15:04:05"), e.Type, e.Regarding.Kind, e.Regarding.Name, e.Reason, e.Note)
			}
		}
		var ps hcav1.BurstPolicyList
		_ = bl.control.List(context.Background(), &ps, client.InNamespace(ns))
		for _, p := range ps.Items {
			t.Logf("policy %s: phase %s, last decision %+v, replicas %+v, conditions %+v", p.Name, p.Status.Phase, p.Status.LastDecision, p.Status.Replicas, p.Status.Conditions)
		}
		var ds appsv1.DeploymentList
		_ = bl.control.List(context.Background(), &ds, client.InNamespace(ns))
		for _, d := range ds.Items {
			t.Logf("deployment %s: replicas %d, annotations %v, status %+v", d.Name, ptr.Deref(d.Spec.Replicas, 1), d.Annotations, d.Status)
		}
	})
}
