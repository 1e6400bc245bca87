package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
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
	"k8s.io/apimachinery/pkg/watch"
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

// readySampler follows a namespace's pods through a watch and records, after
// every event, how many are Ready and not terminating: in all, and off the
// nodes under notice.
type readySampler struct {
	mu   sync.Mutex
	pods map[string]*corev1.Pod
	// noticed is the node under notice ("" before the notice).
	noticed string
	// armed: the need was reached once; min counts from then.
	armed bool
	need  int
	min   int
	// firstLeavingGone is when a pod on the noticed node first got a
	// deletion timestamp (or was deleted), with the Ready pods elsewhere
	// at that moment; replacedAt when the Ready pods elsewhere first
	// reached the need after the notice.
	noticeAt, replacedAt, firstLeavingGone time.Time
	readyElsewhereAtRemoval                int
	samples                                int
}

func (s *readySampler) count() (ready, elsewhere int) {
	for _, p := range s.pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
				if s.noticed == "" || p.Spec.NodeName != s.noticed {
					elsewhere++
				}
			}
		}
	}
	return ready, elsewhere
}

func (s *readySampler) event(ev watch.Event) {
	pod, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	leavingGone := s.noticed != "" && pod.Spec.NodeName == s.noticed && (ev.Type == watch.Deleted || pod.DeletionTimestamp != nil)
	if ev.Type == watch.Deleted {
		delete(s.pods, pod.Name)
	} else {
		s.pods[pod.Name] = pod
	}
	ready, elsewhere := s.count()
	s.samples++
	if !s.armed && ready >= s.need {
		s.armed, s.min = true, ready
	}
	if s.armed && ready < s.min {
		s.min = ready
	}
	if s.noticed != "" && s.replacedAt.IsZero() && elsewhere >= s.need {
		s.replacedAt = time.Now()
	}
	if leavingGone && s.firstLeavingGone.IsZero() {
		s.firstLeavingGone, s.readyElsewhereAtRemoval = time.Now(), elsewhere
	}
}

func (s *readySampler) notice(node string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noticed, s.noticeAt = node, time.Now()
}

// TestSpotInterruptionLab is issue 10's spot interruption during a burst,
// through the EKS emulator and the unmodified EKS SDK: a burst cluster has a
// spot node group (cheaper, used first since the policy allows spot) and an
// on-demand one, both at 0 nodes. 2 burst replicas run on a spot node the
// runtime bought. The emulator gives that node its 2-minute interruption
// notice (NTH's taint). The runtime must start 2 replacements at once (on a
// node of the on-demand group, which it orders), and remove the 2 replicas on
// the noticed node only once the replacements are Ready: a watch on the burst
// cluster's pods checks that Ready replicas never fall below the 2 needed.
func TestSpotInterruptionLab(t *testing.T) {
	r := spotInterruption(t, 3*time.Second, false)
	t.Logf("spot interruption: min Ready %d (need %d) over %d pod events; replacements Ready %s after the notice, first leaving replica removed %s after it (Ready elsewhere then: %d); events %s",
		r.minReady, r.need, r.samples, r.replaced.Round(time.Millisecond), r.removed.Round(time.Millisecond), r.readyAtRemoval, r.events)
	if r.minReady < r.need {
		t.Errorf("Ready replicas fell to %d during the interruption; need %d", r.minReady, r.need)
	}
	if r.readyAtRemoval < r.need {
		t.Errorf("the first replica on the noticed node was removed with %d Ready replicas elsewhere; need %d first", r.readyAtRemoval, r.need)
	}
	if r.removed < r.replaced {
		t.Errorf("a replica on the noticed node was removed (%s after the notice) before the replacements were Ready (%s)", r.removed, r.replaced)
	}
	if r.maxInterrupted != int32(r.need) {
		t.Errorf("the policy's status showed at most %d interrupted replicas in the burst cluster; want the %d on the noticed node", r.maxInterrupted, r.need)
	}
	if !strings.Contains(r.events, "SpotInterruption") || !strings.Contains(r.events, "ReplacementsReady") {
		t.Errorf("events on the burst policy: %s; want SpotInterruption and ReplacementsReady", r.events)
	}
	if strings.Contains(r.events, "ReplacementsUnschedulable") {
		t.Errorf("events on the burst policy: %s; the replacements waited for an on-demand node being ordered, not stuck", r.events)
	}
}

// BenchmarkSpotInterruptionLab measures the same scenario for realistic boot
// delays of the replacement node (the lab's pod start-up delay applies too):
// the minimum of Ready replicas against the need, and the time from the notice
// to the replacements Ready. Run with -benchtime=1x; one iteration per delay.
func BenchmarkSpotInterruptionLab(b *testing.B) {
	for _, boot := range []time.Duration{0, 30 * time.Second, 60 * time.Second, 90 * time.Second} {
		b.Run(fmt.Sprintf("boot=%s", boot), func(b *testing.B) {
			for range b.N {
				r := spotInterruption(b, boot, false)
				b.ReportMetric(float64(r.minReady), "min-ready")
				b.ReportMetric(float64(r.need), "need")
				b.ReportMetric(r.replaced.Seconds(), "s-to-replacements-ready")
				b.ReportMetric(r.removed.Seconds(), "s-to-leaving-removed")
			}
		})
	}
}

// spotResult is what one spot interruption scenario measured.
type spotResult struct {
	need, minReady, samples, readyAtRemoval int
	// replaced and removed are the times from the notice to the
	// replacements Ready and to the first leaving replica removed.
	replaced, removed time.Duration
	// events are the reasons of the policy's Events, comma-separated.
	events string
	// maxInterrupted is the highest status.replicas[].interrupted seen for
	// the burst cluster.
	maxInterrupted int32
}

// spotInterruption runs the scenario of TestSpotInterruptionLab with the
// node groups' boot delay boot, and returns what it measured. noRoom: the
// burst cluster has only the spot group, at most 1 node, so the replacements
// cannot be placed (TestSpotInterruptionNoRoomLab).
func spotInterruption(tb testing.TB, boot time.Duration, noRoom bool) spotResult {
	t := tb
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)

	const region = "eu-west-1"
	const need = 2
	awsCfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	cloud := &member.AWSAPI{Config: awsCfg, EKSEndpoint: env["HCA_LAB_EKS_ENDPOINT"], STSEndpoint: env["HCA_LAB_STS_ENDPOINT"]}
	eksc := eks.NewFromConfig(awsCfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	name, pool := fmt.Sprintf("spot-%d", bl.id), fmt.Sprintf("spot-%d", bl.id)
	if _, err := eksc.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		t.Fatal(err)
	}
	groups := []struct {
		name string
		typ  ekstypes.CapacityTypes
	}{{"spot", ekstypes.CapacityTypesSpot}, {"od", ekstypes.CapacityTypesOnDemand}}
	t.Cleanup(func() {
		c := context.Background()
		for _, g := range groups {
			_, _ = eksc.DeleteNodegroup(c, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name)})
		}
		for _, g := range groups {
			_ = eks.NewNodegroupDeletedWaiter(eksc).Wait(c, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name)}, 2*time.Minute)
		}
		_, _ = eksc.DeleteCluster(c, &eks.DeleteClusterInput{Name: aws.String(name)})
	})
	if err := eks.NewClusterActiveWaiter(eksc).Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if _, err := eksc.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name),
			NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{"m5.xlarge"},
			CapacityType: g.typ, Labels: map[string]string{"hca.dev/test-pool": pool},
			// The lab's tag for the boot delay of the group's nodes.
			Tags:          map[string]string{"hca.dev/lab-node-boot-delay": boot.String()},
			ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(0)}}); err != nil {
			t.Fatal(err)
		}
		if err := eks.NewNodegroupActiveWaiter(eksc).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String(g.name)}, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	desired := func(group string) int32 {
		st, err := cloud.DescribeNodegroup(ctx, name, region, group)
		if err != nil {
			t.Fatal(err)
		}
		return st.Desired
	}

	nodeGroup := func(n string, capType hcav1.CapacityType, price string) hcav1.NodeGroup {
		return hcav1.NodeGroup{Name: n, EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: region, NodegroupName: n},
			InstanceType: "m5.xlarge", CapacityType: capType, PricePerHour: hcav1.Price(price), MinNodes: 0, MaxNodes: 3,
			Labels:      map[string]string{"hca.dev/test-pool": pool},
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}}
	}
	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{controller.ClassLabel: bl.class()}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: 5,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: name, Region: region}},
		NodeGroups:  []hcav1.NodeGroup{nodeGroup("spot", hcav1.CapacitySpot, "0.0672"), nodeGroup("od", hcav1.CapacityOnDemand, "0.192")},
	}}
	if noRoom {
		hc.Spec.NodeGroups = hc.Spec.NodeGroups[:1]
		hc.Spec.NodeGroups[0].MaxNodes = 1
	}
	if err := bl.control.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bl.control.Delete(context.Background(), hc) })

	// The private pool holds 4 of the 6 one-CPU replicas: 2 burst.
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := bl.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = bl.clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	ns := bl.namespace(t, ctx, "spot")
	bl.deploy(t, ctx, ns, pool, 4+need)
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
	p.Spec.Capacity = &hcav1.BurstCapacity{AllowSpot: true, ScaleDownDelay: &metav1.Duration{Duration: 5 * time.Minute}}
	if err := bl.control.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	m, err := members.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}

	// Every pod event in the burst cluster's namespace is a sample.
	s := &readySampler{pods: map[string]*corev1.Pod{}, need: need}
	w, err := m.Kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go func() {
		for ev := range w.ResultChan() {
			s.event(ev)
		}
	}()

	spotNodes := func() []corev1.Node {
		var nl corev1.NodeList
		_ = m.Client.List(ctx, &nl, client.MatchingLabels{controller.EKSNodegroupLabel: "spot"})
		return nl.Items
	}
	burstEventually(t, ctx, "2 replicas burst and run on a spot node the runtime bought", func() (bool, string) {
		s.mu.Lock()
		ready, _ := s.count()
		s.mu.Unlock()
		nodes := spotNodes()
		return ready == need && len(nodes) == 1 && desired("spot") == 1 && desired("od") == 0,
			fmt.Sprintf("ready %d, spot nodes %d, desired spot %d od %d", ready, len(nodes), desired("spot"), desired("od"))
	})
	node := spotNodes()[0].Name

	// The policy's status, every write of it (a watch): its highest count of
	// interrupted replicas in the burst cluster.
	var statusMu sync.Mutex
	var maxInterrupted int32
	pw, err := bl.control.Watch(ctx, &hcav1.BurstPolicyList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Stop()
	go func() {
		for ev := range pw.ResultChan() {
			got, ok := ev.Object.(*hcav1.BurstPolicy)
			if !ok {
				continue
			}
			statusMu.Lock()
			for _, c := range got.Status.Replicas {
				if string(c.Cluster) == name && c.Interrupted > maxInterrupted {
					maxInterrupted = c.Interrupted
				}
			}
			statusMu.Unlock()
		}
	}()

	// The notice: POST /lab/v1/spot-interruptions, as the demo does.
	s.notice(node)
	body, _ := json.Marshal(emulator.SpotInterruption{Cluster: name, Node: node})
	resp, err := http.Post(env["HCA_LAB_EKS_ENDPOINT"]+"/lab/v1/spot-interruptions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("interrupt node %s: %s %v", node, resp.Status, out)
	}

	if noRoom {
		return spotNoRoom(t, ctx, bl, m, s, ns, node, need)
	}
	burstEventually(t, ctx, "the replicas on the noticed node are replaced on an on-demand node, then removed", func() (bool, string) {
		var pods corev1.PodList
		if err := m.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var onNoticed, elsewhere int
		for _, pod := range pods.Items {
			switch {
			case pod.DeletionTimestamp != nil:
			case pod.Spec.NodeName == node:
				onNoticed++
			default:
				elsewhere++
			}
		}
		var copyDep appsv1.Deployment
		_ = m.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &copyDep)
		_, surged := copyDep.Annotations[controller.BurstSpotSurgeAnnotation]
		ok := onNoticed == 0 && elsewhere == need && ptr.Deref(copyDep.Spec.Replicas, 0) == need && !surged && desired("od") >= 1
		return ok, fmt.Sprintf("pods on the noticed node %d, elsewhere %d, copy replicas %d (surge annotation %v), desired od %d",
			onNoticed, elsewhere, ptr.Deref(copyDep.Spec.Replicas, 0), surged, desired("od"))
	})

	res := spotResult{need: need}
	statusMu.Lock()
	res.maxInterrupted = maxInterrupted
	statusMu.Unlock()
	s.mu.Lock()
	res.minReady, res.samples, res.readyAtRemoval = s.min, s.samples, s.readyElsewhereAtRemoval
	res.replaced, res.removed = s.replacedAt.Sub(s.noticeAt), s.firstLeavingGone.Sub(s.noticeAt)
	replacedSeen, removedSeen := !s.replacedAt.IsZero(), !s.firstLeavingGone.IsZero()
	s.mu.Unlock()
	if !replacedSeen || !removedSeen {
		t.Fatalf("replacements Ready seen %v, leaving replica removal seen %v", replacedSeen, removedSeen)
	}

	res.events = bl.policyEvents(t, ctx, ns, p.Name)
	return res
}

// TestSpotInterruptionNoRoomLab: the notice arrives with no room anywhere
// (the only node group is the spot one, at its maximum of 1 node). The
// replacements stay Pending, the policy gets a ReplacementsUnschedulable
// Event, and the 2 replicas on the noticed node keep serving: the copy keeps
// need + 2 replicas, and the Ready replicas do not fall while the node lives.
func TestSpotInterruptionNoRoomLab(t *testing.T) {
	r := spotInterruption(t, 3*time.Second, true)
	t.Logf("spot interruption without room: min Ready %d (need %d) over %d pod events; events %s", r.minReady, r.need, r.samples, r.events)
	if r.minReady < r.need {
		t.Errorf("Ready replicas fell to %d while the noticed node lived; need %d", r.minReady, r.need)
	}
	if !strings.Contains(r.events, "SpotInterruption") || !strings.Contains(r.events, "ReplacementsUnschedulable") {
		t.Errorf("events on the burst policy: %s; want SpotInterruption and ReplacementsUnschedulable", r.events)
	}
	if strings.Contains(r.events, "ReplacementsReady") {
		t.Errorf("events on the burst policy: %s; no replacement could be Ready", r.events)
	}
}

// spotNoRoom waits, after the notice, for the replacements to be Pending
// and the copy surged, then watches 10 s more (the noticed node lives 2
// minutes) and returns what the sampler saw.
func spotNoRoom(t testing.TB, ctx context.Context, bl *burstLab, m *controller.Member, s *readySampler, ns, node string, need int32) spotResult {
	burstEventually(t, ctx, "2 replacements Pending, the copy at need + 2, the leaving replicas kept", func() (bool, string) {
		var pods corev1.PodList
		if err := m.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var onNoticed, pending int
		for _, pod := range pods.Items {
			switch {
			case pod.DeletionTimestamp != nil:
			case pod.Spec.NodeName == node:
				onNoticed++
			case pod.Spec.NodeName == "":
				pending++
			}
		}
		var copyDep appsv1.Deployment
		_ = m.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &copyDep)
		ok := onNoticed == int(need) && pending == int(need) && ptr.Deref(copyDep.Spec.Replicas, 0) == 2*need
		return ok, fmt.Sprintf("pods on the noticed node %d, pending %d, copy replicas %d", onNoticed, pending, ptr.Deref(copyDep.Spec.Replicas, 0))
	})
	select {
	case <-time.After(10 * time.Second):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	var res spotResult
	s.mu.Lock()
	res.need, res.minReady, res.samples = int(need), s.min, s.samples
	onNoticed := 0
	for _, p := range s.pods {
		if p.Spec.NodeName == node && p.DeletionTimestamp == nil {
			onNoticed++
		}
	}
	s.mu.Unlock()
	if onNoticed != int(need) {
		t.Errorf("%d replicas left on the noticed node while it lives; want all %d kept", onNoticed, need)
	}
	res.events = bl.policyEvents(t, ctx, ns, "web")
	return res
}

// policyEvents are the reasons of a BurstPolicy's Events, oldest first,
// comma-separated.
func (bl *burstLab) policyEvents(t testing.TB, ctx context.Context, ns, name string) string {
	var evs eventsv1.EventList
	if err := bl.control.List(ctx, &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	items := evs.Items
	sort.SliceStable(items, func(i, j int) bool { return items[i].CreationTimestamp.Before(&items[j].CreationTimestamp) })
	var reasons []string
	for _, e := range items {
		if e.Regarding.Kind == "BurstPolicy" && e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	return strings.Join(reasons, ",")
}
