package controller

import (
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

var burstT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func burstI32(v int32) *int32 { return &v }

// burstAt returns n Unschedulable-since times, age ago.
func burstAt(n int, age time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = burstT0.Add(-age)
	}
	return out
}

func burstTgt(name string, current int32, mods ...func(*scaling.BurstTarget)) scaling.BurstTarget {
	t := scaling.BurstTarget{Name: name, Current: current, Reachable: true, Weight: 1,
		FreeCPUMilli: 1 << 40, FreeMemoryBytes: 1 << 50}
	for _, m := range mods {
		m(&t)
	}
	return t
}

func TestBurstDecide(t *testing.T) {
	pod := scaling.PodRequests{CPUMilli: 1000, MemoryBytes: 1 << 30}
	base := func(mod func(*burstInput)) burstInput {
		in := burstInput{Now: burstT0, Threshold: 5 * time.Second, Min: 1, Max: 100, Mode: scaling.PlacementPriority,
			Pod: pod, Primary: "private", PrimarySpec: 10, Scheduled: 10,
			Targets: []scaling.BurstTarget{burstTgt("b1", 0)}}
		mod(&in)
		return in
	}
	unreachable := func(t *scaling.BurstTarget) { t.Reachable = false }
	expensive := func(t *scaling.BurstTarget) { t.PricePerVCPUHour = 0.1 }
	cheap := func(t *scaling.BurstTarget) { t.PricePerVCPUHour = 0.01 }

	tests := []struct {
		name         string
		in           burstInput
		total        int32
		primary      int32
		burst        map[string]int32
		actions      []string
		requeueAfter time.Duration
		movingBack   int32
		unplaced     int32
		skipped      []scaling.PlacementSkip
	}{
		{
			name:  "all scheduled, nothing to do",
			in:    base(func(*burstInput) {}),
			total: 10, primary: 10, burst: map[string]int32{"b1": 0},
		},
		{
			name: "pods Unschedulable past the threshold burst, total unchanged",
			in: base(func(in *burstInput) {
				in.Scheduled, in.Unassigned, in.Unschedulable = 6, 4, burstAt(4, 6*time.Second)
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4}, actions: []string{"burst"},
		},
		{
			// Priority prefers the dearer b1: the load's 2 replicas go
			// there, the headroom's 2 spare ones to the cheaper b2.
			name: "the headroom's spare replicas burst to the cheapest target",
			in: base(func(in *burstInput) {
				in.Scheduled, in.Unassigned, in.Unschedulable = 6, 4, burstAt(4, 6*time.Second)
				in.Headroom = 2
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 0, expensive, func(t *scaling.BurstTarget) { t.Priority = 10 }), burstTgt("b2", 0, cheap)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 2, "b2": 2}, actions: []string{"burst"},
		},
		{
			name: "pods below the threshold wait, requeued when the first is due",
			in: base(func(in *burstInput) {
				in.Scheduled, in.Unassigned = 6, 4
				in.Unschedulable = append(burstAt(3, 2*time.Second), burstT0.Add(-4*time.Second))
			}),
			total: 10, primary: 10, burst: map[string]int32{"b1": 0}, requeueAfter: time.Second,
		},
		{
			name: "only the ripe pods burst",
			in: base(func(in *burstInput) {
				in.Scheduled, in.Unassigned = 6, 4
				in.Unschedulable = append(burstAt(1, 10*time.Second), burstAt(3, time.Second)...)
			}),
			total: 10, primary: 9, burst: map[string]int32{"b1": 1}, actions: []string{"burst"}, requeueAfter: 4 * time.Second,
		},
		{
			name: "threshold 0 bursts at once",
			in: base(func(in *burstInput) {
				in.Threshold, in.Scheduled, in.Unassigned, in.Unschedulable = 0, 8, 2, burstAt(2, 0)
			}),
			total: 10, primary: 8, burst: map[string]int32{"b1": 2}, actions: []string{"burst"},
		},
		{
			name: "an unreachable target is skipped",
			in: base(func(in *burstInput) {
				in.Scheduled, in.Unassigned, in.Unschedulable = 6, 4, burstAt(4, time.Minute)
				in.Targets = []scaling.BurstTarget{burstTgt("a-down", 0, unreachable), burstTgt("b1", 0)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"a-down": 0, "b1": 4}, actions: []string{"burst"},
			skipped: []scaling.PlacementSkip{{Target: "a-down", Reason: scaling.SkipUnreachable}},
		},
		{
			name: "per-target max spills over, the rest stays pending",
			in: base(func(in *burstInput) {
				in.Scheduled, in.Unassigned, in.Unschedulable = 4, 6, burstAt(6, time.Minute)
				in.Targets = []scaling.BurstTarget{
					burstTgt("b1", 0, func(t *scaling.BurstTarget) { t.MaxReplicas = 2; t.Priority = 10 }),
					burstTgt("b2", 0, func(t *scaling.BurstTarget) { t.MaxReplicas = 3 }),
				}
			}),
			total: 10, primary: 5, burst: map[string]int32{"b1": 2, "b2": 3}, actions: []string{"burst"}, unplaced: 1,
		},
		{
			name: "cheapest placement",
			in: base(func(in *burstInput) {
				in.Mode = scaling.PlacementCheapest
				in.Scheduled, in.Unassigned, in.Unschedulable = 7, 3, burstAt(3, time.Minute)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 0, expensive), burstTgt("b2", 0, cheap)}
			}),
			total: 10, primary: 7, burst: map[string]int32{"b1": 0, "b2": 3}, actions: []string{"burst"},
		},
		{
			name: "user scales down: burst replicas go first",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 4, burstI32(6), burstI32(10), 4
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 4, primary: 4, burst: map[string]int32{"b1": 0}, actions: []string{"scale-down"},
		},
		{
			name: "user scales up: the primary takes the increase, burst kept",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 12, burstI32(6), burstI32(10), 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 12, primary: 8, burst: map[string]int32{"b1": 4}, actions: []string{"scale-up"},
		},
		{
			name: "requested total (a MultiObjective strategy): the burst replicas go first",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.RequestedTotal, in.Scheduled = 6, burstI32(6), burstI32(10), burstI32(7), 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 7, primary: 6, burst: map[string]int32{"b1": 1}, actions: []string{"scale-down"},
		},
		{
			name: "requested total above the primary's share: the primary takes the increase (overflow bursts once Unschedulable)",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.RequestedTotal, in.Scheduled = 6, burstI32(6), burstI32(10), burstI32(13), 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 13, primary: 9, burst: map[string]int32{"b1": 4}, actions: []string{"scale-up"},
		},
		{
			name: "requested total equal to the primary's written share is still a new total",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.RequestedTotal, in.Scheduled = 6, burstI32(6), burstI32(10), burstI32(6), 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 6, primary: 6, burst: map[string]int32{"b1": 0}, actions: []string{"scale-down"},
		},
		{
			name: "requested total beats a user's change of spec.replicas",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.RequestedTotal, in.Scheduled = 20, burstI32(6), burstI32(10), burstI32(12), 6
				in.Unassigned = 14
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 12, primary: 8, burst: map[string]int32{"b1": 4}, actions: []string{"scale-up"},
		},
		{
			name: "an algorithm total wins over a requested total",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.RequestedTotal, in.Scheduled = 6, burstI32(6), burstI32(10), burstI32(3), 6
				in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 10
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4},
		},
		{
			name: "a rolling update stuck on a full primary: its Unschedulable surge pod bursts",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 3, burstI32(3), burstI32(3)
				in.Scheduled, in.Unassigned, in.Unschedulable = 3, 1, burstAt(1, time.Minute)
				in.RollingUpdate = true
			}),
			total: 3, primary: 2, burst: map[string]int32{"b1": 1}, actions: []string{"burst"},
		},
		{
			// Seen in the lab: 10 replicas, 4 fit the primary; the round that
			// burst 6 wrote the primary down to 4, and the next round (the
			// same second) still listed its 4 Unschedulable pods: they were
			// burst a second time (10 copies, 3 nodes ordered).
			name: "the ReplicaSet has not removed the pods of the last lower spec.replicas yet: no second burst",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 4, burstI32(4), burstI32(10)
				in.Scheduled, in.Unassigned, in.Unschedulable = 4, 4, burstAt(4, time.Minute)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 6)}
			}),
			total: 10, primary: 4, burst: map[string]int32{"b1": 6},
		},
		{
			name: "a rolling update's surge pod waits out the threshold",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.Scheduled, in.Unassigned, in.Unschedulable = 3, 3, 1, burstAt(1, 2*time.Second)
				in.RollingUpdate = true
			}),
			total: 3, primary: 3, burst: map[string]int32{"b1": 0}, requeueAfter: 3 * time.Second,
		},
		{
			name: "crash after creating the copy, before shrinking the primary: Unschedulable primary replicas go, no second burst",
			in: base(func(in *burstInput) {
				in.PrimaryWritten, in.StoredTotal = burstI32(10), burstI32(10)
				in.Scheduled, in.Unassigned, in.Unschedulable = 6, 4, burstAt(4, time.Minute)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4}, actions: []string{"scale-down"},
		},
		{
			name: "crash after the primary patch of a scale-down: the burst copy shrinks next",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 4, burstI32(4), burstI32(4), 4
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 4, primary: 4, burst: map[string]int32{"b1": 0}, actions: []string{"scale-down"},
		},
		{
			name: "scale-down removes the most expensive burst replicas first, primary last",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 6, burstI32(6), burstI32(7), 6
				in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 7
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 7, primary: 6, burst: map[string]int32{"b1": 1, "b2": 0}, actions: []string{"scale-down"},
		},
		{
			name: "room in the primary: the primary grows first, the burst replicas stay until its pods are Ready",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 6, burstI32(6), burstI32(10), 6, 6, 3
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 10, primary: 9, burst: map[string]int32{"b1": 2, "b2": 2}, actions: []string{"move-back-start"},
			movingBack: 3, requeueAfter: burstMoveBackRecheck,
		},
		{
			name: "moving back, 7 of 9 primary pods Ready: wait, nothing else",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 9, burstI32(9), burstI32(10), 9, 7, 0
				in.MovingBack, in.MovingBackSince = 3, burstT0.Add(-10*time.Second)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 10, primary: 9, burst: map[string]int32{"b1": 2, "b2": 2}, movingBack: 3, requeueAfter: burstMoveBackRecheck,
		},
		{
			name: "moving back, all primary pods Ready: the burst replicas go, most expensive first",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 9, burstI32(9), burstI32(10), 9, 9, 0
				in.MovingBack, in.MovingBackSince = 3, burstT0.Add(-10*time.Second)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 10, primary: 9, burst: map[string]int32{"b1": 1, "b2": 0}, actions: []string{"move-back"},
		},
		{
			name: "moving back, pods still not Ready after the wait: the burst replicas go anyway",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 9, burstI32(9), burstI32(10), 9, 7, 0
				in.MovingBack, in.MovingBackSince = 3, burstT0.Add(-burstMoveBackWait)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 10, primary: 9, burst: map[string]int32{"b1": 1, "b2": 0}, actions: []string{"move-back"},
		},
		{
			name: "moving back, 2 primary pods Unschedulable: cancelled, the primary shrinks back, the burst replicas stay",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 9, burstI32(9), burstI32(10), 7, 7, 0
				in.Unassigned, in.Unschedulable = 2, burstAt(2, time.Second)
				in.MovingBack, in.MovingBackSince = 3, burstT0.Add(-10*time.Second)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 2, "b2": 2}, actions: []string{"move-back-cancelled"},
		},
		{
			name: "moving back, the algorithm asks for 12: the moving replicas count towards it, the excess goes from the expensive cluster",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 9, burstI32(9), burstI32(10), 9, 7, 0
				in.MovingBack, in.MovingBackSince = 3, burstT0.Add(-10*time.Second)
				in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 12
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 12, primary: 9, burst: map[string]int32{"b1": 2, "b2": 1}, actions: []string{"scale-down"},
		},
		{
			name: "moving back, the algorithm asks for 14: one more in the primary",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Ready, in.PrimaryFit = 9, burstI32(9), burstI32(10), 9, 7, 0
				in.MovingBack, in.MovingBackSince = 3, burstT0.Add(-10*time.Second)
				in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 14
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, cheap), burstTgt("b2", 2, expensive)}
			}),
			total: 14, primary: 10, burst: map[string]int32{"b1": 2, "b2": 2}, actions: []string{"scale-up"},
		},
		{
			name: "no move back while primary pods are in flight",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled, in.Unassigned, in.PrimaryFit = 6, burstI32(6), burstI32(10), 5, 1, 3
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4},
		},
		{
			name: "metrics missing: a lower algorithm total is held",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 6, burstI32(6), burstI32(10), 6
				in.TotalSource, in.AlgorithmTotal, in.NoScaleDown = burstTotalFromAlgorithm, 3, true
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4},
		},
		{
			name: "metrics missing: an increase still happens",
			in: base(func(in *burstInput) {
				in.TotalSource, in.AlgorithmTotal, in.NoScaleDown = burstTotalFromAlgorithm, 14, true
			}),
			total: 14, primary: 14, burst: map[string]int32{"b1": 0}, actions: []string{"scale-up"},
		},
		{
			name: "no evaluation due: the stored total stands even if the Deployment differs",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 6, burstI32(6), burstI32(10), 6
				in.TotalSource = burstTotalKeep
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4)}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4},
		},
		{
			name: "a cluster that is no longer a target drains back to the primary",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 7, burstI32(7), burstI32(10), 7
				in.Drain = []scaling.BurstTarget{burstTgt("old", 3)}
			}),
			total: 10, primary: 10, burst: map[string]int32{"b1": 0, "old": 0}, actions: []string{"drain"},
		},
		{
			name: "an unreachable cluster keeps its replicas on scale-down (blocked)",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal, in.Scheduled = 2, burstI32(6), burstI32(10), 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4, unreachable)}
			}),
			total: 2, primary: 2, burst: map[string]int32{"b1": 4}, actions: []string{"scale-down"},
		},
		{
			name: "replicas stuck Unschedulable in a burst cluster are placed again on the other target",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 6, burstI32(6), burstI32(10)
				in.Scheduled = 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4, func(t *scaling.BurstTarget) { t.Priority = 2 }), burstTgt("b2", 0)}
				in.Stuck = map[string]int32{"b1": 1}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 3, "b2": 1}, actions: []string{"replace-pending"},
		},
		{
			name: "stuck replicas no other target takes stay",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 6, burstI32(6), burstI32(10)
				in.Scheduled = 6
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4), burstTgt("b2", 0, unreachable)}
				in.Stuck = map[string]int32{"b1": 2}
			}),
			total: 10, primary: 6, burst: map[string]int32{"b1": 4, "b2": 0},
		},
		{
			name: "stuck replicas are re-placed after a scale-down took its share",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 6, burstI32(6), burstI32(10)
				in.Scheduled = 6
				in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 8
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 4, func(t *scaling.BurstTarget) { t.Priority = 2 }), burstTgt("b2", 0)}
				in.Stuck = map[string]int32{"b1": 3}
			}),
			// The scale-down takes 2 from b1 (burst clusters first); the 2
			// left there are stuck and move to b2.
			total: 8, primary: 6, burst: map[string]int32{"b1": 0, "b2": 2}, actions: []string{"scale-down", "replace-pending"},
		},
		{
			name: "the total is clamped to maxReplicas",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.Max, in.Scheduled = 30, 20, 10
			}),
			total: 20, primary: 20, burst: map[string]int32{"b1": 0}, actions: []string{"scale-down"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := burstDecide(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != tc.total || got.Primary != tc.primary || !maps.Equal(got.Burst, tc.burst) {
				t.Errorf("total %d primary %d burst %v, want total %d primary %d burst %v (reason %q)",
					got.Total, got.Primary, got.Burst, tc.total, tc.primary, tc.burst, got.Reason)
			}
			if !slices.Equal(got.Actions, tc.actions) {
				t.Errorf("actions %v, want %v (reason %q)", got.Actions, tc.actions, got.Reason)
			}
			if got.RequeueAfter != tc.requeueAfter {
				t.Errorf("requeue after %v, want %v", got.RequeueAfter, tc.requeueAfter)
			}
			if got.Unplaced != tc.unplaced || !slices.Equal(got.Skipped, tc.skipped) {
				t.Errorf("unplaced %d skipped %v, want %d %v", got.Unplaced, got.Skipped, tc.unplaced, tc.skipped)
			}
			if len(tc.actions) > 0 && got.Reason == "" {
				t.Error("a decision without a reason")
			}
			// The total is always what the clusters add up to, except for
			// replicas held on unreachable clusters.
			if got.MovingBack != tc.movingBack {
				t.Errorf("moving back %d, want %d", got.MovingBack, tc.movingBack)
			}
			// The total is always what the clusters add up to, except for
			// replicas held on unreachable clusters and those moving back
			// (in the primary and still in a burst cluster).
			if sum := got.Primary + got.BurstTotal(); sum != got.Total+got.Blocked+got.MovingBack {
				t.Errorf("primary + burst = %d, want total %d + blocked %d + moving back %d", sum, got.Total, got.Blocked, got.MovingBack)
			}
		})
	}
}

func TestBurstDecideErrors(t *testing.T) {
	in := burstInput{Now: burstT0, Min: 1, Max: 10, Mode: scaling.PlacementPriority, Primary: "private", PrimarySpec: 1,
		Targets: []scaling.BurstTarget{burstTgt("b1", 0), burstTgt("b1", 0)}}
	if _, err := burstDecide(in); err == nil {
		t.Error("duplicate targets accepted")
	}
	in.Targets = []scaling.BurstTarget{burstTgt("private", 0)}
	if _, err := burstDecide(in); err == nil {
		t.Error("the primary as a burst target accepted")
	}
	in.Targets = []scaling.BurstTarget{burstTgt("b1", 0)}
	in.Mode = "nearest"
	in.Unschedulable, in.Unassigned = burstAt(1, time.Hour), 1
	if _, err := burstDecide(in); err == nil {
		t.Error("unknown placement mode accepted")
	}
}

func burstNode(name string, cpu string, ready bool, mods ...func(*corev1.Node)) corev1.Node {
	st := corev1.ConditionTrue
	if !ready {
		st = corev1.ConditionFalse
	}
	n := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": "a"}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}},
		},
	}
	for _, m := range mods {
		m(&n)
	}
	return n
}

func burstPodOn(node, cpu string) corev1.Pod {
	return corev1.Pod{Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func TestBurstPrimaryFit(t *testing.T) {
	taint := corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}
	tainted := func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{taint} }
	tolerating := corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule}}}
	req := scaling.PodRequests{CPUMilli: 1000}
	finished := burstPodOn("n1", "2")
	finished.Status.Phase = corev1.PodSucceeded
	tests := []struct {
		name  string
		spec  corev1.PodSpec
		nodes []corev1.Node
		pods  []corev1.Pod
		want  int32
	}{
		{"empty nodes", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "4", true), burstNode("n2", "2500m", true)}, nil, 6},
		{"used capacity", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "4", true)}, []corev1.Pod{burstPodOn("n1", "1500m"), burstPodOn("n1", "1")}, 1},
		{"finished pods free their requests", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "4", true)}, []corev1.Pod{finished}, 4},
		{"not-ready node", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "4", false)}, nil, 0},
		{"cordoned node", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "4", true, func(n *corev1.Node) { n.Spec.Unschedulable = true })}, nil, 0},
		{"untolerated taint", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "4", true, tainted)}, nil, 0},
		{"tolerated taint", tolerating, []corev1.Node{burstNode("n1", "4", true, tainted)}, nil, 4},
		{"node selector", corev1.PodSpec{NodeSelector: map[string]string{"pool": "b"}}, []corev1.Node{burstNode("n1", "4", true)}, nil, 0},
		{"required node affinity: one of the terms matches", affinity(
			corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}},
			corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "eks.amazonaws.com/nodegroup", Operator: corev1.NodeSelectorOpExists}}}),
			[]corev1.Node{burstNode("n1", "4", true, labelled("pool", "a")), burstNode("n2", "4", true, labelled("pool", "default")),
				burstNode("n3", "2", true, labelled("pool", "cloud"), labelled("eks.amazonaws.com/nodegroup", "ng"))}, nil, 6},
		{"required node affinity: no term matches", affinity(
			corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"default"}}, {Key: "pool", Operator: corev1.NodeSelectorOpExists}}}),
			[]corev1.Node{burstNode("n1", "4", true, labelled("pool", "default")), burstNode("n2", "4", true, func(n *corev1.Node) { n.Labels = nil })}, nil, 0},
		{"over-committed node counts 0", corev1.PodSpec{}, []corev1.Node{burstNode("n1", "1", true), burstNode("n2", "2", true)}, []corev1.Pod{burstPodOn("n1", "3")}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstPrimaryFit(&tc.spec, req, tc.nodes, tc.pods); got != tc.want {
				t.Errorf("fit %d, want %d", got, tc.want)
			}
		})
	}
}

func affinity(terms ...corev1.NodeSelectorTerm) corev1.PodSpec {
	return corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}}
}

func labelled(k, v string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[k] = v
	}
}

func TestBurstPodScheduling(t *testing.T) {
	since := metav1.NewTime(burstT0)
	tests := []struct {
		name                     string
		pod                      corev1.Pod
		scheduled, unschedulable bool
	}{
		{"bound", corev1.Pod{Spec: corev1.PodSpec{NodeName: "n1"}}, true, false},
		{"new, not yet tried", corev1.Pod{}, false, false},
		{"unschedulable", corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: since}}}}, false, true},
		{"gated is not unschedulable", corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, u, at := burstPodScheduling(&tc.pod)
			if s != tc.scheduled || u != tc.unschedulable {
				t.Errorf("scheduled %v unschedulable %v, want %v %v", s, u, tc.scheduled, tc.unschedulable)
			}
			if u && !at.Equal(burstT0) {
				t.Errorf("since %v, want %v", at, burstT0)
			}
		})
	}
}

func TestBurstPodRequests(t *testing.T) {
	spec := corev1.PodSpec{
		Containers: []corev1.Container{
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}},
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}},
		},
		InitContainers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
		Overhead:       corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
	}
	got := burstPodRequests(&spec)
	want := scaling.PodRequests{CPUMilli: 600, MemoryBytes: 1 << 30}
	if got != want {
		t.Errorf("requests %+v, want %+v", got, want)
	}
}

func TestBurstPhase(t *testing.T) {
	tests := []struct {
		holding       bool
		before, after int32
		want          string
	}{
		{false, 0, 0, "Watching"},
		{false, 0, 4, "Bursting"},
		{false, 4, 4, "Bursting"},
		{false, 4, 2, "ScalingBack"},
		{false, 4, 0, "Watching"},
		{true, 4, 4, "Degraded"},
	}
	for _, tc := range tests {
		if got := burstPhase(tc.holding, tc.before, tc.after); string(got) != tc.want {
			t.Errorf("burstPhase(%v, %d, %d) = %s, want %s", tc.holding, tc.before, tc.after, got, tc.want)
		}
	}
}

func TestBurstPlacementTarget(t *testing.T) {
	pod := scaling.PodRequests{CPUMilli: 500, MemoryBytes: 1 << 30}
	hc := func(prio int32, mods ...func(*hcav1.HybridCluster)) *hcav1.HybridCluster {
		h := &hcav1.HybridCluster{Spec: hcav1.HybridClusterSpec{Priority: prio}}
		for _, m := range mods {
			m(h)
		}
		return h
	}
	const unlimited = math.MaxInt64 / 4
	tests := []struct {
		name     string
		view     burstView
		cur      int32
		unprobed int32
		want     scaling.BurstTarget
	}{
		{"defaults: weight 1, no cap, capacity unknown", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, hc: hc(0)}, 0, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, Reachable: true, Priority: 63, FreeCPUMilli: unlimited, FreeMemoryBytes: unlimited}},
		{"weight, max, prices, later in the list", burstView{name: "b", index: 2, target: &hcav1.BurstTargetCluster{Cluster: "b", Weight: burstI32(5), MaxReplicas: burstI32(7)},
			hc: hc(3, func(h *hcav1.HybridCluster) {
				h.Spec.Prices = &hcav1.ClusterPrices{PerVCPUHour: "0.0464", PerGiBHour: "0.0058"}
			})}, 2, 0,
			scaling.BurstTarget{Name: "b", Weight: 5, MaxReplicas: 7, Current: 2, Reachable: true, Priority: 3*64 + 61,
				PricePerVCPUHour: 0.0464, PricePerGiBHour: 0.0058, FreeCPUMilli: unlimited, FreeMemoryBytes: unlimited}},
		{"prober's free capacity", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, hc: hc(0, func(h *hcav1.HybridCluster) {
			h.Status.Free = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("4Gi")}
		})}, 0, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, Reachable: true, Priority: 63, FreeCPUMilli: 3000, FreeMemoryBytes: 4 << 30}},
		{"limits without a probe: max CPU minus what runs there, max pods caps", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b", MaxReplicas: burstI32(10)},
			hc: hc(0, func(h *hcav1.HybridCluster) {
				cpu := resource.MustParse("4")
				h.Spec.Limits = &hcav1.ClusterLimits{MaxCPU: &cpu, MaxPods: burstI32(6)}
			})}, 2, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, MaxReplicas: 6, Current: 2, Reachable: true, Priority: 63, FreeCPUMilli: 3000, FreeMemoryBytes: unlimited}},
		// Not probed yet, one on-demand group of at most 2 nodes of 2 CPU /
		// 8 GiB and a spot group the policy may not use: 2 x 2000m = 4000m
		// and 16 GiB, less the 1 replica of 500m / 1 GiB there: 3500m, 15 GiB.
		{"not probed yet: what its allowed node groups can hold", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, hc: hc(0, func(h *hcav1.HybridCluster) {
			alloc := hcav1.NodeAllocatable{CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi")}
			h.Spec.NodeGroups = []hcav1.NodeGroup{{Name: "od", MaxNodes: 2, Allocatable: alloc},
				{Name: "spot", MaxNodes: 5, CapacityType: hcav1.CapacitySpot, Allocatable: alloc}}
		})}, 1, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, Current: 1, Reachable: true, Priority: 63, FreeCPUMilli: 3500, FreeMemoryBytes: 15 << 30,
				GrowCPUMilli: 3500, GrowMemoryBytes: 15 << 30}},
		// Probed: 1 CPU / 2 GiB free on its running node; the group (at
		// most 2 nodes of 2 CPU / 8 GiB) runs 1: one more to buy, 2000m
		// and 8 GiB, all of it room to buy.
		{"probed with node groups: what the groups can add is room to buy", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, hc: hc(0, func(h *hcav1.HybridCluster) {
			alloc := hcav1.NodeAllocatable{CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi")}
			h.Spec.NodeGroups = []hcav1.NodeGroup{{Name: "od", MaxNodes: 2, Allocatable: alloc}}
			h.Status.NodeGroups = []hcav1.NodeGroupStatus{{Name: "od", DesiredNodes: 1, ReadyNodes: 1}}
			h.Status.Free = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")}
		})}, 1, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, Current: 1, Reachable: true, Priority: 63, FreeCPUMilli: 3000, FreeMemoryBytes: 10 << 30,
				GrowCPUMilli: 2000, GrowMemoryBytes: 8 << 30}},
		{"unreachable", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, err: errors.New("connection refused")}, 1, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, Current: 1, FreeCPUMilli: unlimited, FreeMemoryBytes: unlimited}},
		// 3 CPU / 4 GiB free at the probe; 2 replicas of 500m/1Gi placed
		// since: 3000 - 2 x 500 = 2000m and 4 - 2 x 1 = 2 GiB left.
		{"replicas placed since the probe are taken off its free capacity", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, hc: hc(0, func(h *hcav1.HybridCluster) {
			h.Status.Free = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("4Gi")}
		})}, 3, 2,
			scaling.BurstTarget{Name: "b", Weight: 1, Current: 3, Reachable: true, Priority: 63, FreeCPUMilli: 2000, FreeMemoryBytes: 2 << 30}},
		{"the namespace being deleted there: not ready, named with its time", burstView{name: "b", target: &hcav1.BurstTargetCluster{Cluster: "b"}, hc: hc(0),
			nsDeleting: time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)}, 0, 0,
			scaling.BurstTarget{Name: "b", Weight: 1, Reachable: true, Priority: 63, FreeCPUMilli: unlimited, FreeMemoryBytes: unlimited,
				NotReady: "namespace shop is being deleted there (since 2026-11-25T02:00:00Z)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstPlacementTarget(&tc.view, "shop", tc.cur, tc.unprobed, pod, false); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestBurstUnprobed(t *testing.T) {
	probe := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	pod := func(name string, created time.Time, node string, of string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created), Labels: map[string]string{BurstOfLabel: of}},
			Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	probed := &hcav1.HybridCluster{Status: hcav1.HybridClusterStatus{LastProbeTime: &metav1.Time{Time: probe}}}
	tests := []struct {
		name    string
		hc      *hcav1.HybridCluster
		pods    []corev1.Pod
		current int32
		want    int32
	}{
		{"never probed: nothing to subtract (limits apply instead)", &hcav1.HybridCluster{}, nil, 3, 0},
		// 3 replicas: one pod bound before the probe (counted by it), one
		// created after, one not created yet: 2 unprobed.
		{"pods bound before the probe are counted by it", probed, []corev1.Pod{
			pod("a", probe.Add(-time.Minute), "n1", "shop.web"),
			pod("b", probe.Add(time.Second), "n1", "shop.web"),
		}, 3, 2},
		{"a pod not bound at the probe was not counted", probed, []corev1.Pod{pod("a", probe.Add(-time.Minute), "", "shop.web")}, 1, 1},
		{"another deployment's pods do not count", probed, []corev1.Pod{pod("a", probe.Add(-time.Minute), "n1", "shop.api")}, 1, 1},
		{"more pods than replicas (terminating surplus): never negative", probed, []corev1.Pod{
			pod("a", probe.Add(-time.Minute), "n1", "shop.web"), pod("b", probe.Add(-time.Minute), "n1", "shop.web"),
		}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &burstView{name: "b", hc: tt.hc, pods: tt.pods}
			if got := burstUnprobed(v, d, tt.current); got != tt.want {
				t.Errorf("unprobed = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBurstGrowable(t *testing.T) {
	group := func(name string, spot bool, max int32) hcav1.NodeGroup {
		g := hcav1.NodeGroup{Name: name, MaxNodes: max, Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")}}
		if spot {
			g.CapacityType = hcav1.CapacitySpot
		}
		return g
	}
	hc := func(groups []hcav1.NodeGroup, status ...hcav1.NodeGroupStatus) *hcav1.HybridCluster {
		return &hcav1.HybridCluster{Spec: hcav1.HybridClusterSpec{NodeGroups: groups}, Status: hcav1.HybridClusterStatus{NodeGroups: status}}
	}
	tests := []struct {
		name      string
		hc        *hcav1.HybridCluster
		allowSpot bool
		wantNodes int64
	}{
		{"no node groups: nothing to add", hc(nil), false, 0},
		{"never looked at: up to its maximum", hc([]hcav1.NodeGroup{group("od", false, 3)}), false, 3},
		// max 4, desired 2 of which 2 still boot: 2 more may come and the 2
		// booting are not in the prober's free capacity yet: 4 nodes.
		{"booting nodes and room to grow", hc([]hcav1.NodeGroup{group("od", false, 4)}, hcav1.NodeGroupStatus{Name: "od", DesiredNodes: 2, RequestedNodes: 2}), false, 4},
		{"at its maximum, all ready: nothing", hc([]hcav1.NodeGroup{group("od", false, 2)}, hcav1.NodeGroupStatus{Name: "od", DesiredNodes: 2, ReadyNodes: 2, Reason: "MaxReached"}), false, 0},
		{"nodes that cannot come add nothing", hc([]hcav1.NodeGroup{group("od", false, 4)}, hcav1.NodeGroupStatus{Name: "od", Reason: "LaunchFailures"}), false, 0},
		{"spot only for policies that allow it", hc([]hcav1.NodeGroup{group("spot", true, 2), group("od", false, 1)}), false, 1},
		{"spot allowed", hc([]hcav1.NodeGroup{group("spot", true, 2), group("od", false, 1)}), true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cpu, mem := burstGrowable(tt.hc, tt.allowSpot)
			if cpu != tt.wantNodes*4000 || mem != tt.wantNodes*16<<30 {
				t.Errorf("growable %dm CPU, %d bytes; want %d nodes of 4 CPU / 16Gi", cpu, mem, tt.wantNodes)
			}
		})
	}
}

// TestBurstDecideFailover follows one burst cluster (b1, preferred) through
// an outage: the primary's pool holds 4 replicas, the total is 6, b1 holds
// 2, b2 (lower priority) is empty.
func TestBurstDecideFailover(t *testing.T) {
	pod := scaling.PodRequests{CPUMilli: 1000, MemoryBytes: 1 << 30}
	preferred := func(t *scaling.BurstTarget) { t.Priority = 10 }
	down := func(t *scaling.BurstTarget) { t.Reachable = false }
	base := func(mod func(*burstInput)) burstInput {
		in := burstInput{Now: burstT0, Threshold: 5 * time.Second, Min: 1, Max: 100, Mode: scaling.PlacementPriority,
			Pod: pod, Primary: "private", PrimarySpec: 4, PrimaryWritten: burstI32(4), StoredTotal: burstI32(6), Scheduled: 4,
			Targets: []scaling.BurstTarget{burstTgt("b1", 2, preferred), burstTgt("b2", 0)}}
		mod(&in)
		return in
	}
	tests := []struct {
		name     string
		in       burstInput
		primary  int32
		burst    map[string]int32
		actions  []string
		skipped  []scaling.PlacementSkip
		contains string
	}{
		{
			name: "within the grace period: b1's 2 replicas are held, nothing moves",
			in: base(func(in *burstInput) {
				in.Targets[0] = burstTgt("b1", 2, preferred, down)
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverHolding}
			}),
			primary: 4, burst: map[string]int32{"b1": 2, "b2": 0},
		},
		{
			name: "grace over: b1's 2 count as 0, the total 6 adds them to the primary first",
			in: base(func(in *burstInput) {
				in.Targets[0] = burstTgt("b1", 2, preferred, down)
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverWrittenOff}
			}),
			primary: 6, burst: map[string]int32{"b1": 0, "b2": 0}, actions: []string{"failover", "scale-up"},
			contains: "failover: 2 replicas on b1 written off",
		},
		{
			name: "the primary has room for them: they stay there",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.Scheduled = 6, burstI32(6), 6
				in.Targets[0] = burstTgt("b1", 0, preferred, down)
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverWrittenOff}
			}),
			primary: 6, burst: map[string]int32{"b1": 0, "b2": 0},
		},
		{
			name: "the primary has no room: the 2 Unschedulable burst to b2, never to the written-off b1",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten = 6, burstI32(6)
				in.Unassigned, in.Unschedulable = 2, burstAt(2, 10*time.Second)
				in.Targets[0] = burstTgt("b1", 0, preferred, down)
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverWrittenOff}
			}),
			primary: 4, burst: map[string]int32{"b1": 0, "b2": 2}, actions: []string{"burst"},
			skipped: []scaling.PlacementSkip{{Target: "b1", Reason: scaling.SkipUnreachable}},
		},
		{
			name: "b1 is back with its 2 stale replicas: they go, the total stays 6",
			in: base(func(in *burstInput) {
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, preferred), burstTgt("b2", 2)}
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverStale}
			}),
			primary: 4, burst: map[string]int32{"b1": 0, "b2": 2}, actions: []string{"remove-stale"},
			contains: "2 stale replicas removed from b1",
		},
		{
			name: "b1 back with 2 stale replicas while 2 primary replicas wait for a node: the 2 running in b1 stay, the 2 waiting go",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 6, burstI32(6), burstI32(8)
				in.Unassigned, in.Unschedulable = 2, burstAt(2, 10*time.Second)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, preferred), burstTgt("b2", 2)}
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverStale}
			}),
			primary: 4, burst: map[string]int32{"b1": 2, "b2": 2}, actions: []string{"adopt-stale"},
			contains: "kept 2 of its stale replicas",
		},
		{
			name: "b1 back with 2 stale replicas while 1 primary replica waits: 1 kept, 1 removed, nothing bursts",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 5, burstI32(5), burstI32(7)
				in.Unassigned, in.Unschedulable = 1, burstAt(1, 10*time.Second)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 2, preferred), burstTgt("b2", 2)}
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverStale}
			}),
			primary: 4, burst: map[string]int32{"b1": 1, "b2": 2}, actions: []string{"adopt-stale", "remove-stale"},
			contains: "1 stale replicas removed from b1",
		},
		{
			name: "b1 healthy again after the stale copy went: it takes new bursts as before",
			in: base(func(in *burstInput) {
				in.PrimarySpec, in.PrimaryWritten, in.StoredTotal = 6, burstI32(6), burstI32(8)
				in.Unassigned, in.Unschedulable = 2, burstAt(2, 10*time.Second)
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 0, preferred), burstTgt("b2", 2)}
			}),
			primary: 4, burst: map[string]int32{"b1": 2, "b2": 2}, actions: []string{"burst"},
		},
		{
			name: "flapping: b1 unreachable again while written off adds nothing and moves nothing back",
			in: base(func(in *burstInput) {
				in.Targets = []scaling.BurstTarget{burstTgt("b1", 0, preferred, down), burstTgt("b2", 2)}
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverWrittenOff}
			}),
			primary: 4, burst: map[string]int32{"b1": 0, "b2": 2},
		},
		{
			name: "metrics drive the total and are missing: the written-off replicas are still replaced",
			in: base(func(in *burstInput) {
				in.TotalSource, in.AlgorithmTotal, in.NoScaleDown = burstTotalFromAlgorithm, 6, true
				in.Targets[0] = burstTgt("b1", 2, preferred, down)
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverWrittenOff}
			}),
			primary: 6, burst: map[string]int32{"b1": 0, "b2": 0}, actions: []string{"failover", "scale-up"},
		},
		{
			name: "a written-off cluster that is no longer a target holds nothing back",
			in: base(func(in *burstInput) {
				in.Targets = []scaling.BurstTarget{burstTgt("b2", 0)}
				in.Drain = []scaling.BurstTarget{burstTgt("b1", 2, down)}
				in.Failover = map[string]scaling.FailoverMode{"b1": scaling.FailoverWrittenOff}
			}),
			primary: 6, burst: map[string]int32{"b1": 0, "b2": 0}, actions: []string{"failover", "scale-up"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := burstDecide(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := *tc.in.StoredTotal; got.Total != want {
				t.Errorf("total %d, want the stored %d", got.Total, want)
			}
			if got.Primary != tc.primary || !maps.Equal(got.Burst, tc.burst) {
				t.Errorf("primary %d burst %v, want primary %d burst %v (reason %q)", got.Primary, got.Burst, tc.primary, tc.burst, got.Reason)
			}
			if !slices.Equal(got.Actions, tc.actions) {
				t.Errorf("actions %v, want %v (reason %q)", got.Actions, tc.actions, got.Reason)
			}
			if !slices.Equal(got.Skipped, tc.skipped) {
				t.Errorf("skipped %v, want %v", got.Skipped, tc.skipped)
			}
			if tc.contains != "" && !strings.Contains(got.Reason, tc.contains) {
				t.Errorf("reason %q does not say %q", got.Reason, tc.contains)
			}
			if sum := got.Primary + got.BurstTotal(); sum != got.Total+got.Blocked || got.Blocked != 0 {
				t.Errorf("primary + burst = %d, want total %d (blocked %d, want 0)", sum, got.Total, got.Blocked)
			}
		})
	}
}

// TestBurstFailovers checks what burstFailovers reads of the status and the
// views: the recorded times, the replicas last recorded (Known) and those
// found (Present), and the policy's failoverAfter (absent: 90s).
func TestBurstFailovers(t *testing.T) {
	now := burstT0
	ago := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(-d)} }
	copyOf := func(n int32) map[string]*appsv1.Deployment {
		return map[string]*appsv1.Deployment{"web": {Spec: appsv1.DeploymentSpec{Replicas: &n}}}
	}
	status := []hcav1.ClusterReplicas{
		{Cluster: "private", Desired: 4},
		{Cluster: "a", Desired: 3, UnreachableSince: ago(40 * time.Second)},
		{Cluster: "b", FailedOverAt: ago(time.Minute)},
		{Cluster: "c", Desired: 1},
	}
	down := errors.New("connection refused")
	views := func() []*burstView {
		return []*burstView{{name: "a", err: down}, {name: "b", copies: copyOf(2)}, {name: "c", copies: copyOf(1)}, {name: "d", err: down}}
	}
	tests := []struct {
		name  string
		after *metav1.Duration
		want  map[string]scaling.FailoverDecision
	}{
		{"failoverAfter 30s: a (40 s down) fails over with its 3 replicas", &metav1.Duration{Duration: 30 * time.Second}, map[string]scaling.FailoverDecision{
			"a": {Mode: scaling.FailoverWrittenOff, State: scaling.FailoverState{UnreachableSince: now.Add(-40 * time.Second), FailedOverAt: now}, Moved: 3},
			"b": {Mode: scaling.FailoverStale},
			"c": {Mode: scaling.FailoverHealthy},
			"d": {Mode: scaling.FailoverHolding, State: scaling.FailoverState{UnreachableSince: now}, RequeueAfter: 30 * time.Second},
		}},
		{"absent: 90s, a holds 50 s more", nil, map[string]scaling.FailoverDecision{
			"a": {Mode: scaling.FailoverHolding, State: scaling.FailoverState{UnreachableSince: now.Add(-40 * time.Second)}, RequeueAfter: 50 * time.Second},
			"b": {Mode: scaling.FailoverStale},
			"c": {Mode: scaling.FailoverHealthy},
			"d": {Mode: scaling.FailoverHolding, State: scaling.FailoverState{UnreachableSince: now}, RequeueAfter: 90 * time.Second},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &hcav1.BurstPolicy{Spec: hcav1.BurstPolicySpec{PrimaryCluster: "private", FailoverAfter: tt.after}, Status: hcav1.BurstPolicyStatus{Replicas: status}}
			vs := views()
			burstFailovers(p, vs, now)
			for _, v := range vs {
				if got := v.failover; got != tt.want[v.name] {
					t.Errorf("%s: %+v, want %+v", v.name, got, tt.want[v.name])
				}
			}
		})
	}
}

// FuzzBurstDecide: for any counts, a plan never has negative replicas, keeps
// the total within [Min, Max], and its clusters add up to the total plus
// the replicas held on unreachable clusters and those moving back.
func FuzzBurstDecide(f *testing.F) {
	f.Add(int32(6), int32(6), int32(0), uint8(0), int32(6), int32(0), int32(3), int32(2), int32(2), int32(10), int32(0), false, true)
	f.Add(int32(9), int32(9), int32(0), uint8(0), int32(7), int32(3), int32(0), int32(2), int32(2), int32(10), int32(12), true, true)
	f.Add(int32(9), int32(7), int32(2), uint8(2), int32(7), int32(3), int32(0), int32(2), int32(2), int32(10), int32(0), false, false)
	f.Add(int32(4), int32(4), int32(4), uint8(4), int32(4), int32(0), int32(0), int32(6), int32(0), int32(10), int32(0), false, true)
	f.Fuzz(func(t *testing.T, spec, scheduled, unassigned int32, unsched uint8, ready, moving, fit, b1, b2, stored, algo int32, fromAlgo, reachable bool) {
		for _, v := range []int32{spec, scheduled, unassigned, ready, moving, fit, b1, b2, stored, algo} {
			if v < 0 || v > 1000 {
				t.Skip()
			}
		}
		in := burstInput{Now: burstT0, Threshold: 5 * time.Second, Min: 1, Max: 200, Mode: scaling.PlacementPriority,
			Pod: scaling.PodRequests{CPUMilli: 1000, MemoryBytes: 1 << 30}, Primary: "private",
			PrimarySpec: spec, PrimaryWritten: &spec, StoredTotal: &stored, Scheduled: scheduled, Unassigned: unassigned,
			Unschedulable: burstAt(int(min(int32(unsched), unassigned)), time.Minute), Ready: ready, PrimaryFit: fit,
			MovingBack: moving, MovingBackSince: burstT0.Add(-time.Minute),
			Targets: []scaling.BurstTarget{burstTgt("b1", b1), burstTgt("b2", b2, func(t *scaling.BurstTarget) { t.Reachable = reachable })}}
		if fromAlgo {
			in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, algo
		}
		// Some of b1's replicas stuck Unschedulable there (re-placed on b2
		// when it is reachable), without changing the corpus' signature.
		if stuck := int32(unsched % 4); stuck > 0 {
			in.Stuck = map[string]int32{"b1": stuck}
		}
		got, err := burstDecide(in)
		if err != nil {
			t.Fatal(err)
		}
		if got.Primary < 0 || got.MovingBack < 0 || got.MovingBack > got.Primary {
			t.Fatalf("primary %d moving back %d", got.Primary, got.MovingBack)
		}
		for c, n := range got.Burst {
			if n < 0 {
				t.Fatalf("%s: %d replicas", c, n)
			}
		}
		if got.Total < in.Min || got.Total > in.Max {
			t.Fatalf("total %d outside [%d, %d]", got.Total, in.Min, in.Max)
		}
		if sum := got.Primary + got.BurstTotal(); sum != got.Total+got.Blocked+got.MovingBack {
			t.Fatalf("primary %d + burst %v = %d, want total %d + blocked %d + moving back %d (reason %q)",
				got.Primary, got.Burst, sum, got.Total, got.Blocked, got.MovingBack, got.Reason)
		}
	})
}

// TestBurstNotReadyRecheck: half the time the namespace has been being
// deleted, between 1 s and 30 s.
func TestBurstNotReadyRecheck(t *testing.T) {
	tests := []struct {
		since, want time.Duration
	}{
		{0, time.Second},                       // just started: the floor
		{1500 * time.Millisecond, time.Second}, // half is 750 ms: the floor
		{4 * time.Second, 2 * time.Second},     // half
		{20 * time.Second, 10 * time.Second},   // half
		{60 * time.Second, 30 * time.Second},   // half is exactly the cap
		{10 * time.Minute, 30 * time.Second},   // the cap
		{-5 * time.Second, time.Second},        // a clock behind the apiserver's: the floor
	}
	for _, tc := range tests {
		if got := burstNotReadyRecheck(tc.since); got != tc.want {
			t.Errorf("burstNotReadyRecheck(%v) = %v, want %v", tc.since, got, tc.want)
		}
	}
}

// TestBurstDecisionReasons checks the reason label hca_decisions_total gets
// for each action: what set a changed total, or what the action answers.
func TestBurstDecisionReasons(t *testing.T) {
	pod := scaling.PodRequests{CPUMilli: 1000, MemoryBytes: 1 << 30}
	base := func(mod func(*burstInput)) burstInput {
		in := burstInput{Now: burstT0, Threshold: 5 * time.Second, Min: 1, Max: 100, Mode: scaling.PlacementPriority,
			Pod: pod, Primary: "private", PrimarySpec: 10, Scheduled: 10, PrimaryWritten: burstI32(10), StoredTotal: burstI32(10),
			Targets: []scaling.BurstTarget{burstTgt("b1", 0)}}
		mod(&in)
		return in
	}
	for _, tc := range []struct {
		name string
		in   burstInput
		want map[string]string // action: reason
	}{
		{"the algorithm scales up", base(func(in *burstInput) {
			in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 14
		}), map[string]string{"scale-up": "metrics"}},
		{"the algorithm's total below min is raised to it", base(func(in *burstInput) {
			in.TotalSource, in.AlgorithmTotal, in.Min = burstTotalFromAlgorithm, 4, 12
		}), map[string]string{"scale-up": "min-max"}},
		{"a stored total above a lowered max", base(func(in *burstInput) { in.Max = 8 }), map[string]string{"scale-down": "min-max"}},
		{"the Deployment scaled by someone else", base(func(in *burstInput) { in.PrimarySpec = 6 }), map[string]string{"scale-down": "deployment-scaled"}},
		{"a total requested on the Deployment", base(func(in *burstInput) { in.RequestedTotal = burstI32(13) }), map[string]string{"scale-up": "requested-total"}},
		{"missing metrics hold the total: no decision", base(func(in *burstInput) {
			in.TotalSource, in.AlgorithmTotal, in.NoScaleDown = burstTotalFromAlgorithm, 3, true
		}), map[string]string{}},
		{"Unschedulable pods burst", base(func(in *burstInput) {
			in.Scheduled, in.Unassigned, in.Unschedulable = 6, 4, burstAt(4, 6*time.Second)
		}), map[string]string{"burst": "unschedulable"}},
		{"a scale-up whose new pods cannot run bursts too", base(func(in *burstInput) {
			in.TotalSource, in.AlgorithmTotal = burstTotalFromAlgorithm, 12
			in.Unassigned, in.Unschedulable = 2, burstAt(2, 6*time.Second)
			in.Scheduled, in.PrimarySpec = 10, 10
		}), map[string]string{"scale-up": "metrics", "burst": "unschedulable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := burstDecide(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, a := range plan.Actions {
				got[a] = burstActionReason(a, plan)
			}
			if !maps.Equal(got, tc.want) {
				t.Fatalf("reasons %v, want %v (actions %v, %s)", got, tc.want, plan.Actions, plan.Reason)
			}
		})
	}
}

// TestBurstStuck counts the pods of a copy stuck Unschedulable in a burst
// cluster: past the threshold, only in a cluster without node groups.
func TestBurstStuck(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	pod := func(name string, unschedFor time.Duration) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{BurstOfLabel: burstOf("shop", "web")}}}
		if unschedFor < 0 {
			p.Spec.NodeName = "n1"
			p.Status.Phase = corev1.PodRunning
			return p
		}
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			LastTransitionTime: metav1.NewTime(burstT0.Add(-unschedFor))}}
		return p
	}
	group := hcav1.NodeGroup{Name: "od", MaxNodes: 2, Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")}}
	view := func(mod func(*burstView)) *burstView {
		v := &burstView{name: "b1", hc: &hcav1.HybridCluster{},
			copies: map[string]*appsv1.Deployment{"web": {}},
			pods:   []corev1.Pod{pod("running", -1), pod("new", 2*time.Second), pod("old", 30*time.Second), pod("older", time.Minute)}}
		mod(v)
		return v
	}
	for _, tc := range []struct {
		name string
		v    *burstView
		want int32
	}{
		{"no node groups: pods Unschedulable past the threshold", view(func(*burstView) {}), 2},
		{"a node group that can grow buys the room", view(func(v *burstView) { v.hc.Spec.NodeGroups = []hcav1.NodeGroup{group} }), 0},
		{"a node group at its maximum with nodes booting", view(func(v *burstView) {
			v.hc.Spec.NodeGroups = []hcav1.NodeGroup{group}
			v.hc.Status.NodeGroups = []hcav1.NodeGroupStatus{{Name: "od", DesiredNodes: 2, ReadyNodes: 1, RequestedNodes: 1, Reason: "MaxReached"}}
		}), 0},
		// Its nodes may have just become Ready: the pods waiting for them
		// still show the Unschedulable condition of their whole wait.
		{"a node group at its maximum, all Ready: the capacity controller's", view(func(v *burstView) {
			v.hc.Spec.NodeGroups = []hcav1.NodeGroup{group}
			v.hc.Status.NodeGroups = []hcav1.NodeGroupStatus{{Name: "od", DesiredNodes: 2, ReadyNodes: 2, Reason: "MaxReached"}}
		}), 0},
		{"an unreachable cluster: failover's business", view(func(v *burstView) { v.err = errors.New("down") }), 0},
		{"a spot surge under way", view(func(v *burstView) {
			v.copies["web"] = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BurstSpotSurgeAnnotation: "1"}}}
		}), 0},
		{"no copy of this Deployment there", view(func(v *burstView) { v.copies = map[string]*appsv1.Deployment{} }), 0},
		{"pods of another Deployment's copy do not count", view(func(v *burstView) {
			for i := range v.pods {
				v.pods[i].Labels[BurstOfLabel] = burstOf("shop", "api")
			}
		}), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := burstStuck(tc.v, d, burstT0, 10*time.Second); got != tc.want {
				t.Fatalf("stuck %d, want %d", got, tc.want)
			}
		})
	}
}
