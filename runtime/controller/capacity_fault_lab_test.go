package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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

// labPost sends one of the emulator's /lab/v1 fault settings.
func labPost(t *testing.T, base, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(base+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s %s: %s", path, b, resp.Status)
	}
}

// TestCapacityFaultsLab drives the capacity controller through the faults a
// cloud deals it, against the EKS and Auto Scaling emulators with the
// unmodified SDKs, in one EKS cluster and node group (its nodes boot in 4 s):
//
//  1. throttling (HTTP 429 on every EKS call for a while): reason Throttled
//     while it lasts, one Throttled Event, not one per round; the group grows
//     once the API answers again;
//  2. a maximum too small for the burst: the group stays at its maximum,
//     reason MaxReached, Events MaxReached and CapacityUnavailable;
//  3. the runtime killed while nodes are requested: a fresh reconciler reads
//     the desired size back from EKS and orders nothing twice;
//  4. no capacity for the instance type: reason LaunchFailures and its Event;
//     the node comes when capacity is back;
//  5. the policy deleted: its copies go and the group returns to its minimum
//     (0) after the scale-down delay;
//  6. the node group deleted behind the runtime's back: reason NotFound and
//     its Event, and the controller keeps working.
func TestCapacityFaultsLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	base := env["HCA_LAB_EKS_ENDPOINT"]

	const region = "eu-west-1"
	awsCfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	cloud := &member.AWSAPI{Config: awsCfg, EKSEndpoint: base, STSEndpoint: env["HCA_LAB_STS_ENDPOINT"], AutoScalingEndpoint: base}
	eksc := eks.NewFromConfig(awsCfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(base) })
	name, pool := fmt.Sprintf("capf-%d", bl.id), fmt.Sprintf("capf-%d", bl.id)
	fast := func(o *eks.NodegroupActiveWaiterOptions) { o.MinDelay, o.MaxDelay = 500*time.Millisecond, time.Second }
	if _, err := eksc.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c := context.Background()
		labPost(t, base, "/lab/v1/throttling", emulator.ThrottleConfig{Cluster: name})
		labPost(t, base, "/lab/v1/insufficient-capacity", emulator.CapacityFault{InstanceType: "c5.xlarge", Insufficient: false})
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
		NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{"c5.xlarge"},
		Labels:        map[string]string{"hca.dev/test-pool": pool},
		Tags:          map[string]string{"hca.dev/lab-node-boot-delay": "4s"},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(0)}}); err != nil {
		t.Fatal(err)
	}
	if err := eks.NewNodegroupActiveWaiter(eksc, fast).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}

	// The cluster's node group is declared with a maximum of 1 node (EKS
	// allows 3): step 2 raises it.
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: 5,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: name, Region: region}},
		NodeGroups: []hcav1.NodeGroup{{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: region, NodegroupName: "burst"},
			InstanceType: "c5.xlarge", PricePerHour: "0.17", MinNodes: 0, MaxNodes: 1, Labels: map[string]string{"hca.dev/test-pool": pool},
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi"), Pods: 58}}},
	}}
	if err := bl.control.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bl.control.Delete(context.Background(), hc) })
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = bl.clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	ns := bl.namespace(t, ctx, "capfault")
	bl.deploy(t, ctx, ns, pool, 6)
	sel := fmt.Sprintf(`{"spec":{"template":{"spec":{"nodeSelector":{"hca.dev/node-pool":null,"hca.dev/test-pool":%q}}}}}`, pool)
	if err := bl.control.Patch(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.RawPatch(types.MergePatchType, []byte(sel))); err != nil {
		t.Fatal(err)
	}

	// The most the group was ever asked for, sampled all along.
	var maxDesired atomic.Int32
	desired := func() int32 {
		st, err := cloud.DescribeNodegroup(ctx, name, region, "burst")
		if err != nil {
			return -1
		}
		if st.Desired > maxDesired.Load() {
			maxDesired.Store(st.Desired)
		}
		return st.Desired
	}
	start := func() (members *controller.Members, stop func()) {
		mgr, err := ctrl.NewManager(bl.cfg, ctrl.Options{Scheme: bl.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
		if err != nil {
			t.Fatal(err)
		}
		members = &controller.Members{Control: mgr.GetAPIReader(), AWS: cloud, Options: client.Options{Scheme: bl.scheme}}
		if err := controller.NewBurstReconciler(mgr.GetClient(), controller.BurstOptions{Members: members, Clock: clock.RealClock{}, Class: bl.class()}).SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		// The prober: placement reads the cluster's free capacity from it.
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
		var once atomic.Bool
		stop = func() {
			if once.CompareAndSwap(false, true) {
				mcancel()
				<-done
			}
		}
		t.Cleanup(stop)
		return members, stop
	}
	status := func() hcav1.NodeGroupStatus {
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil || len(got.Status.NodeGroups) != 1 {
			return hcav1.NodeGroupStatus{Reason: "?"}
		}
		return got.Status.NodeGroups[0]
	}
	events := func(reason string) int {
		var evs eventsv1.EventList
		if err := bl.control.List(ctx, &evs); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range evs.Items {
			if e.Regarding.Kind == "HybridCluster" && e.Regarding.Name == name && e.Reason == reason {
				n++
				if e.Series != nil {
					n += int(e.Series.Count) - 1
				}
			}
		}
		return n
	}
	var m *controller.Member
	burstPods := func() (running, pending, nodes int) {
		if m == nil {
			return -1, -1, -1
		}
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
		for _, n := range nl.Items {
			if n.DeletionTimestamp == nil {
				nodes++
			}
		}
		return running, pending, nodes
	}
	state := func() string {
		r, p, n := burstPods()
		return fmt.Sprintf("running %d, pending %d, nodes %d, desired %d, status %+v", r, p, n, desired(), status())
	}
	step := func(what string, timeout time.Duration, cond func() bool) {
		t.Helper()
		sctx, scancel := context.WithTimeout(ctx, timeout)
		defer scancel()
		burstEventually(t, sctx, what, func() (bool, string) { return cond(), state() })
	}

	members, stop := start()
	var err error
	if m, err = members.Get(ctx, name); err != nil {
		t.Fatal(err)
	}

	// 1. Throttling: every EKS call is refused (429) for the next 60 calls,
	// the SDK's retries included; then the policy asks for 2 burst replicas.
	labPost(t, base, "/lab/v1/throttling", emulator.ThrottleConfig{Next: 60, Cluster: name})
	p := bl.policy(ns, 0, hcav1.ClusterName(name))
	p.Spec.Consul = nil
	p.Spec.Capacity = &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: 2 * time.Second}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	step("reason Throttled while EKS refuses", time.Minute, func() bool { return status().Reason == "Throttled" })
	step("the group grows once EKS answers: 2 replicas run on 1 node", 2*time.Minute, func() bool {
		r, _, n := burstPods()
		return r == 2 && n == 1 && desired() == 1 && status().Reason != "Throttled"
	})
	if n := events("Throttled"); n < 1 || n > 2 {
		t.Errorf("%d Throttled events, want 1 (one per spell of throttling, not one per round)", n)
	}

	// 2. 10 replicas: 6 burst, 2 nodes' worth; the declared maximum is 1.
	bl.scale(t, ctx, ns, 10)
	step("reason MaxReached", time.Minute, func() bool { return status().Reason == "MaxReached" && events("CapacityUnavailable") > 0 })
	if events("MaxReached") == 0 {
		t.Errorf("no MaxReached event")
	}
	if got := maxDesired.Load(); got > 1 {
		t.Fatalf("the group was asked for %d nodes, above its maximum of 1", got)
	}

	// 3. The maximum goes up to 3; the runtime dies right after ordering the
	// second node, a fresh one takes over while it boots.
	if err := bl.control.Patch(ctx, hc, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/nodeGroups/0/maxNodes","value":3}]`))); err != nil {
		t.Fatal(err)
	}
	step("the second node is ordered", time.Minute, func() bool { return desired() == 2 })
	stop()
	members, stop = start()
	if m, err = members.Get(ctx, name); err != nil {
		t.Fatal(err)
	}
	step("6 burst replicas run on 2 nodes", 2*time.Minute, func() bool {
		r, _, n := burstPods()
		return r == 6 && n == 2
	})
	for range 5 { // a few more rounds of the fresh reconciler
		desired()
		time.Sleep(500 * time.Millisecond)
	}
	if got := maxDesired.Load(); got != 2 {
		t.Fatalf("the group was asked for up to %d nodes across the restart, want 2 (no double order)", got)
	}

	// 4. No m5.xlarge capacity; 14 replicas need a third node.
	labPost(t, base, "/lab/v1/insufficient-capacity", emulator.CapacityFault{InstanceType: "c5.xlarge", Insufficient: true})
	bl.scale(t, ctx, ns, 14)
	step("reason LaunchFailures", time.Minute, func() bool {
		return desired() == 3 && status().Reason == "LaunchFailures" && events("LaunchFailures") > 0
	})
	labPost(t, base, "/lab/v1/insufficient-capacity", emulator.CapacityFault{InstanceType: "c5.xlarge", Insufficient: false})
	step("the third node comes with the capacity", 2*time.Minute, func() bool {
		r, _, n := burstPods()
		return r == 10 && n == 3 && status().Reason != "LaunchFailures"
	})
	if got := maxDesired.Load(); got != 3 {
		t.Errorf("the group was asked for up to %d nodes, want 3", got)
	}

	// 5. The policy goes: its copies go and the group returns to 0.
	if err := bl.control.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	step("no copy left and the group back at 0 nodes", 2*time.Minute, func() bool {
		r, pe, n := burstPods()
		return r == 0 && pe == 0 && n == 0 && desired() == 0
	})

	// 6. The node group is deleted behind the runtime's back.
	if _, err := eksc.DeleteNodegroup(ctx, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}); err != nil {
		t.Fatal(err)
	}
	step("reason NotFound and its event", 2*time.Minute, func() bool { return status().Reason == "NotFound" && events("NotFound") > 0 })
	// The controller keeps going (more rounds), without an event per round.
	for range 6 {
		time.Sleep(500 * time.Millisecond)
	}
	if n := events("NotFound"); n > 2 {
		t.Errorf("%d NotFound events over a few rounds, want 1", n)
	}
}
