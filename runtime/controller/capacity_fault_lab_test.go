package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
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
//     reason MaxReached and its Event; placement puts no more in the
//     cluster than the group can hold, the rest waits in the primary
//     (Degraded: replicas could not be placed);
//  3. the runtime killed while nodes are requested: a fresh reconciler reads
//     the desired size back from EKS and orders nothing twice;
//  4. no capacity for the instance type: reason LaunchFailures and its Event;
//     the node comes when capacity is back;
//  5. the policy deleted: its copies go and the group returns to its minimum
//     (0) after the scale-down delay;
//  6. the node group deleted behind the runtime's back: reason NotFound and
//     its Event, and the controller keeps working.
func TestCapacityFaultsLab(t *testing.T) {
	// The lab's faults are account-wide, as a cloud's are: the throttling is
	// scoped to this test's cluster and the capacity shortage hits an
	// instance type no other lab test uses, so that tests running beside
	// this one on the lab (other packages) do not feel them.
	const faultType = "c5.xlarge"
	e := newEKSLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bl := newBurstLab(t, ctx)
	base := e.base

	const region = eksRegion
	cloud, eksc := e.cloud, e.eks
	name, pool := fmt.Sprintf("capf-%d", bl.id), fmt.Sprintf("capf-%d", bl.id)
	e.createCluster(t, ctx, name, pool, true, eksGroup{name: "burst", boot: "4s", instanceType: faultType})
	// Runs before the cluster's cleanup: the faults end before the group and
	// the cluster are deleted.
	t.Cleanup(func() {
		labPost(t, base, "/lab/v1/throttling", emulator.ThrottleConfig{Cluster: name})
		labPost(t, base, "/lab/v1/insufficient-capacity", emulator.CapacityFault{InstanceType: faultType, Insufficient: false})
	})

	// The cluster's node group is declared with a maximum of 1 node (EKS
	// allows 3): step 2 raises it.
	hc := bl.eksBurstCluster(name, pool, 1, 5)
	ng := &hc.Spec.NodeGroups[0]
	ng.InstanceType, ng.PricePerHour, ng.Allocatable.Memory = faultType, "0.17", resource.MustParse("8Gi")
	bl.create(t, ctx, hc)
	bl.privatePool(t, ctx, pool)
	ns := bl.namespace(t, ctx, "capfault")
	bl.logEventsOnFailure(t, ns, name)
	bl.deployOnTestPool(t, ctx, ns, pool, 6)

	// The most the group was ever asked for, sampled all along, and what
	// the burst cluster looked like at each change (for a failure message).
	var maxDesired atomic.Int32
	var timeline []string
	var burstPods func() (running, pending, nodes int)
	desired := func() int32 {
		st, err := cloud.DescribeNodegroup(ctx, name, region, "burst")
		if err != nil {
			return -1
		}
		if st.Desired > maxDesired.Load() {
			maxDesired.Store(st.Desired)
			r, p, n := burstPods()
			timeline = append(timeline, fmt.Sprintf("%s desired %d: running %d, pending %d, nodes %d", time.Now().Format("15:04:05.000"), st.Desired, r, p, n))
		}
		return st.Desired
	}
	// The prober runs too: placement reads the cluster's free capacity
	// from it.
	start := func() (members *controller.Members, stop func()) {
		return bl.startCapacity(t, ctx, member.Clouds{AWS: cloud}, true)
	}
	status := func() hcav1.NodeGroupStatus {
		var got hcav1.HybridCluster
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil || len(got.Status.NodeGroups) != 1 {
			return hcav1.NodeGroupStatus{Reason: "?"}
		}
		return got.Status.NodeGroups[0]
	}
	events := func(reason string) int { return bl.clusterEvents(t, ctx, name, reason) }
	var m *controller.Member
	burstPods = func() (running, pending, nodes int) {
		if m == nil {
			return -1, -1, -1
		}
		var err error
		if running, pending, err = podCounts(ctx, m.Client, ns); err != nil {
			return -1, -1, -1
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
	pol := bl.capacityPolicy(t, ctx, ns, &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: 2 * time.Second}}, hcav1.ClusterName(name))
	step("reason Throttled while EKS refuses", time.Minute, func() bool { return status().Reason == "Throttled" })
	step("the group grows once EKS answers: 2 replicas run on 1 node", 2*time.Minute, func() bool {
		r, _, n := burstPods()
		return r == 2 && n == 1 && desired() == 1 && status().Reason != "Throttled"
	})
	if n := events("Throttled"); n < 1 || n > 2 {
		t.Errorf("%d Throttled events, want 1 (one per spell of throttling, not one per round)", n)
	}

	// 2. 10 replicas: 6 burst, 2 nodes' worth; the declared maximum is 1.
	// Placement counts the room the group can still grow to: the burst
	// cluster takes 4 (one node), the other 2 stay Pending in the primary
	// and the policy says so.
	bl.scale(t, ctx, ns, 10)
	step("4 burst replicas on the one node, 2 unplaced, reason MaxReached", time.Minute, func() bool {
		r, p, _ := burstPods()
		var got hcav1.BurstPolicy
		if err := bl.control.Get(ctx, client.ObjectKeyFromObject(pol), &got); err != nil {
			return false
		}
		d := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionDegraded)
		return r == 4 && p == 0 && status().Reason == "MaxReached" && d != nil && d.Status == metav1.ConditionTrue &&
			strings.Contains(d.Message, "2 replicas could not be placed")
	})
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
		t.Fatalf("the group was asked for up to %d nodes across the restart, want 2 (no double order)\ntimeline:\n%s",
			got, strings.Join(timeline, "\n"))
	}

	// 4. No c5.xlarge capacity; 14 replicas need a third node.
	labPost(t, base, "/lab/v1/insufficient-capacity", emulator.CapacityFault{InstanceType: faultType, Insufficient: true})
	bl.scale(t, ctx, ns, 14)
	step("reason LaunchFailures", time.Minute, func() bool {
		return desired() == 3 && status().Reason == "LaunchFailures" && events("LaunchFailures") > 0
	})
	labPost(t, base, "/lab/v1/insufficient-capacity", emulator.CapacityFault{InstanceType: faultType, Insufficient: false})
	step("the third node comes with the capacity", 2*time.Minute, func() bool {
		r, _, n := burstPods()
		return r == 10 && n == 3 && status().Reason != "LaunchFailures"
	})
	if got := maxDesired.Load(); got != 3 {
		t.Errorf("the group was asked for up to %d nodes, want 3", got)
	}

	// 5. The policy goes: its copies go and the group returns to 0.
	if err := bl.control.Delete(ctx, pol); err != nil {
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
