package scaling

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

const placeGiB = int64(1) << 30

// placePod is a 500m / 1 GiB replica used by most cases.
var placePod = PodRequests{CPUMilli: 500, MemoryBytes: placeGiB}

// placeRoomy returns a reachable target with room for n pods of placePod.
func placeRoomy(name string, n int64) BurstTarget {
	return BurstTarget{Name: name, Reachable: true, FreeCPUMilli: n * 500, FreeMemoryBytes: n * placeGiB}
}

func withTarget(t BurstTarget, f func(*BurstTarget)) BurstTarget { f(&t); return t }

func TestPlace(t *testing.T) {
	tests := []struct {
		name     string
		deficit  int32
		pod      PodRequests
		mode     PlacementMode
		targets  []BurstTarget
		want     []PlacementAssignment
		unplaced int32
		skipped  []PlacementSkip
	}{
		{
			name:    "priority fills the highest priority first, honouring max",
			deficit: 7, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{
				withTarget(placeRoomy("low", 100), func(t *BurstTarget) { t.Priority = 1 }),
				withTarget(placeRoomy("high", 100), func(t *BurstTarget) { t.Priority = 10; t.MaxReplicas = 5; t.Current = 2 }),
				withTarget(placeRoomy("mid", 100), func(t *BurstTarget) { t.Priority = 5 }),
			},
			want: []PlacementAssignment{{"high", 3}, {"mid", 4}},
		},
		{
			name:    "priority: room on running nodes first, then the preferred target's nodes to buy",
			deficit: 10, pod: placePod, mode: PlacementPriority,
			// eks (preferred) runs no node: all its room must be bought;
			// ack runs nodes with room for 4, and could buy room for 8.
			targets: []BurstTarget{
				withTarget(placeRoomy("eks", 16), func(t *BurstTarget) { t.Priority = 10; t.GrowCPUMilli = 16 * 500; t.GrowMemoryBytes = 16 * placeGiB }),
				withTarget(placeRoomy("ack", 12), func(t *BurstTarget) { t.Priority = 5; t.GrowCPUMilli = 8 * 500; t.GrowMemoryBytes = 8 * placeGiB }),
			},
			want: []PlacementAssignment{{"eks", 6}, {"ack", 4}},
		},
		{
			name:    "priority: running nodes in priority order, none bought while they have room",
			deficit: 5, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{
				withTarget(placeRoomy("eks", 16), func(t *BurstTarget) { t.Priority = 10; t.GrowCPUMilli = 14 * 500; t.GrowMemoryBytes = 14 * placeGiB }),
				withTarget(placeRoomy("ack", 12), func(t *BurstTarget) { t.Priority = 5; t.GrowCPUMilli = 8 * 500; t.GrowMemoryBytes = 8 * placeGiB }),
			},
			// Running room: eks 2, ack 4; 5 fit there, none is bought.
			want: []PlacementAssignment{{"eks", 2}, {"ack", 3}},
		},
		{
			name:    "cheapest: a dearer target's running nodes before the cheaper one's nodes to buy",
			deficit: 6, pod: placePod, mode: PlacementCheapest,
			targets: []BurstTarget{
				withTarget(placeRoomy("cheap", 20), func(t *BurstTarget) {
					t.PricePerVCPUHour = 0.01
					t.GrowCPUMilli, t.GrowMemoryBytes = 20*500, 20*placeGiB
				}),
				withTarget(placeRoomy("dear", 4), func(t *BurstTarget) { t.PricePerVCPUHour = 0.05 }),
			},
			want: []PlacementAssignment{{"cheap", 2}, {"dear", 4}},
		},
		{
			name:    "running room counts only what the target may take (MaxReplicas)",
			deficit: 6, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{
				withTarget(placeRoomy("a", 20), func(t *BurstTarget) { t.Priority = 10; t.GrowCPUMilli, t.GrowMemoryBytes = 20*500, 20*placeGiB }),
				withTarget(placeRoomy("b", 10), func(t *BurstTarget) { t.Priority = 5; t.MaxReplicas = 3; t.Current = 1 }),
			},
			want: []PlacementAssignment{{"a", 4}, {"b", 2}},
		},
		{
			name:    "weighted keeps its split whatever runs",
			deficit: 4, pod: placePod, mode: PlacementWeighted,
			targets: []BurstTarget{
				withTarget(placeRoomy("a", 20), func(t *BurstTarget) { t.Weight = 1; t.GrowCPUMilli, t.GrowMemoryBytes = 20*500, 20*placeGiB }),
				withTarget(placeRoomy("b", 20), func(t *BurstTarget) { t.Weight = 1 }),
			},
			want: []PlacementAssignment{{"a", 2}, {"b", 2}},
		},
		{
			name:    "priority ties break by name",
			deficit: 3, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{placeRoomy("b", 2), placeRoomy("a", 2)},
			want:    []PlacementAssignment{{"a", 2}, {"b", 1}},
		},
		{
			name:    "cheapest uses the price of the pod's requests",
			deficit: 5, pod: placePod, mode: PlacementCheapest,
			// Per pod-hour: cpu-cheap 0.5*0.01+1*0.10 = 0.105; mem-cheap 0.5*0.10+1*0.01 = 0.06.
			targets: []BurstTarget{
				withTarget(placeRoomy("cpu-cheap", 10), func(t *BurstTarget) { t.PricePerVCPUHour = 0.01; t.PricePerGiBHour = 0.10 }),
				withTarget(placeRoomy("mem-cheap", 3), func(t *BurstTarget) { t.PricePerVCPUHour = 0.10; t.PricePerGiBHour = 0.01 }),
			},
			want: []PlacementAssignment{{"mem-cheap", 3}, {"cpu-cheap", 2}},
		},
		{
			name:    "cheapest ties prefer priority then name",
			deficit: 4, pod: placePod, mode: PlacementCheapest,
			targets: []BurstTarget{placeRoomy("c", 2), withTarget(placeRoomy("b", 2), func(t *BurstTarget) { t.Priority = 1 }), placeRoomy("a", 2)},
			want:    []PlacementAssignment{{"b", 2}, {"a", 2}},
		},
		{
			name:    "capacity fills the target where most pods fit first",
			deficit: 9, pod: placePod, mode: PlacementCapacity,
			targets: []BurstTarget{placeRoomy("small", 3), placeRoomy("big", 8), placeRoomy("medium", 5)},
			want:    []PlacementAssignment{{"big", 8}, {"medium", 1}},
		},
		{
			name:    "capacity counts the scarcer resource",
			deficit: 4, pod: placePod, mode: PlacementCapacity,
			targets: []BurstTarget{
				// Lots of CPU but memory for 2 pods only.
				{Name: "cpu-rich", Reachable: true, FreeCPUMilli: 64000, FreeMemoryBytes: 2 * placeGiB},
				placeRoomy("balanced", 3),
			},
			want: []PlacementAssignment{{"balanced", 3}, {"cpu-rich", 1}},
		},
		{
			name:    "weighted splits by weight",
			deficit: 8, pod: placePod, mode: PlacementWeighted,
			targets: []BurstTarget{
				withTarget(placeRoomy("a", 100), func(t *BurstTarget) { t.Weight = 3 }),
				withTarget(placeRoomy("b", 100), func(t *BurstTarget) { t.Weight = 1 }),
			},
			want: []PlacementAssignment{{"a", 6}, {"b", 2}},
		},
		{
			name:    "weighted largest remainder goes to the largest fraction",
			deficit: 10, pod: placePod, mode: PlacementWeighted,
			// Quotas 10*{5,3,2}/10... use weights 1,1,1: 3.33 each, one extra seat to "a".
			targets: []BurstTarget{
				withTarget(placeRoomy("c", 100), func(t *BurstTarget) { t.Weight = 1 }),
				withTarget(placeRoomy("b", 100), func(t *BurstTarget) { t.Weight = 1 }),
				withTarget(placeRoomy("a", 100), func(t *BurstTarget) { t.Weight = 1 }),
			},
			want: []PlacementAssignment{{"a", 4}, {"b", 3}, {"c", 3}},
		},
		{
			name:    "weighted remainders by size, not by weight",
			deficit: 7, pod: placePod, mode: PlacementWeighted,
			// Quotas 7*{2,3,5}/10 = 1.4, 2.1, 3.5 -> floors 1,2,3 (6); the extra
			// seat goes to the largest remainder, 3.5 ("c").
			targets: []BurstTarget{
				withTarget(placeRoomy("a", 100), func(t *BurstTarget) { t.Weight = 2 }),
				withTarget(placeRoomy("b", 100), func(t *BurstTarget) { t.Weight = 3 }),
				withTarget(placeRoomy("c", 100), func(t *BurstTarget) { t.Weight = 5 }),
			},
			want: []PlacementAssignment{{"c", 4}, {"b", 2}, {"a", 1}},
		},
		{
			name:    "weighted spills over when a target is full",
			deficit: 8, pod: placePod, mode: PlacementWeighted,
			targets: []BurstTarget{
				withTarget(placeRoomy("a", 2), func(t *BurstTarget) { t.Weight = 3 }),
				withTarget(placeRoomy("b", 100), func(t *BurstTarget) { t.Weight = 1 }),
				withTarget(placeRoomy("c", 100), func(t *BurstTarget) { t.Weight = 1 }),
			},
			// Round 1: 8*{3,1,1}/5 = 4.8,1.6,1.6 -> 4,1,1 + 2 seats (a .8, then b .6 by name) = 5,2,1;
			// a capped at 2, 3 spill: 3*{1,1}/2 -> 1,1 + 1 seat to b = b 4, c 2.
			want: []PlacementAssignment{{"a", 2}, {"b", 4}, {"c", 2}},
		},
		{
			name:    "weights summing to 0 count equally",
			deficit: 5, pod: placePod, mode: PlacementWeighted,
			targets: []BurstTarget{placeRoomy("b", 100), placeRoomy("a", 100)},
			want:    []PlacementAssignment{{"a", 3}, {"b", 2}},
		},
		{
			name:    "zero weight is skipped when others have weight",
			deficit: 4, pod: placePod, mode: PlacementWeighted,
			targets: []BurstTarget{placeRoomy("zero", 100), withTarget(placeRoomy("w", 100), func(t *BurstTarget) { t.Weight = 2 })},
			want:    []PlacementAssignment{{"w", 4}},
			skipped: []PlacementSkip{{"zero", SkipZeroWeight}},
		},
		{
			name:    "deficit larger than all capacity leaves the rest unplaced",
			deficit: 20, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{
				placeRoomy("a", 3),
				withTarget(placeRoomy("b", 100), func(t *BurstTarget) { t.MaxReplicas = 4 }),
			},
			want:     []PlacementAssignment{{"a", 3}, {"b", 4}},
			unplaced: 13,
		},
		{
			name:    "every target unreachable",
			deficit: 6, pod: placePod, mode: PlacementCheapest,
			targets: []BurstTarget{
				withTarget(placeRoomy("a", 10), func(t *BurstTarget) { t.Reachable = false }),
				withTarget(placeRoomy("b", 10), func(t *BurstTarget) { t.Reachable = false }),
			},
			unplaced: 6,
			skipped:  []PlacementSkip{{"a", SkipUnreachable}, {"b", SkipUnreachable}},
		},
		{
			name:    "reasons: unreachable, at max, no capacity",
			deficit: 3, pod: placePod, mode: PlacementCapacity,
			targets: []BurstTarget{
				withTarget(placeRoomy("down", 50), func(t *BurstTarget) { t.Reachable = false }),
				withTarget(placeRoomy("full", 50), func(t *BurstTarget) { t.MaxReplicas = 4; t.Current = 4 }),
				// CPU for 10 pods, memory for none.
				{Name: "nomem", Reachable: true, FreeCPUMilli: 5000, FreeMemoryBytes: placeGiB - 1},
				placeRoomy("ok", 2),
			},
			want:     []PlacementAssignment{{"ok", 2}},
			unplaced: 1,
			skipped:  []PlacementSkip{{"down", SkipUnreachable}, {"full", SkipAtMax}, {"nomem", SkipNoCapacity}},
		},
		{
			// The preferred target's namespace is being deleted: the
			// deficit goes to the next one, the first keeps what it has.
			name:    "a not-ready target is skipped, the next takes the deficit",
			deficit: 3, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{
				withTarget(placeRoomy("terminating", 50), func(t *BurstTarget) { t.Priority = 2; t.Current = 1; t.NotReady = "namespace shop is being deleted" }),
				withTarget(placeRoomy("next", 50), func(t *BurstTarget) { t.Priority = 1 }),
			},
			want:    []PlacementAssignment{{"next", 3}},
			skipped: []PlacementSkip{{"terminating", SkipNotReady}},
		},
		{
			name:    "the only target not ready: all unplaced (wait)",
			deficit: 2, pod: placePod, mode: PlacementCheapest,
			targets:  []BurstTarget{withTarget(placeRoomy("terminating", 50), func(t *BurstTarget) { t.NotReady = "namespace shop is being deleted" })},
			unplaced: 2,
			skipped:  []PlacementSkip{{"terminating", SkipNotReady}},
		},
		{
			name:    "negative free capacity counts as none",
			deficit: 1, pod: placePod, mode: PlacementPriority,
			targets:  []BurstTarget{{Name: "over", Reachable: true, FreeCPUMilli: -100, FreeMemoryBytes: -1}},
			unplaced: 1,
			skipped:  []PlacementSkip{{"over", SkipNoCapacity}},
		},
		{
			name:    "a pod requesting nothing is limited by max only",
			deficit: 5, pod: PodRequests{}, mode: PlacementPriority,
			targets:  []BurstTarget{{Name: "a", Reachable: true, MaxReplicas: 3}},
			want:     []PlacementAssignment{{"a", 3}},
			unplaced: 2,
		},
		{
			name:    "one target",
			deficit: 4, pod: placePod, mode: PlacementWeighted,
			targets: []BurstTarget{withTarget(placeRoomy("only", 10), func(t *BurstTarget) { t.Weight = 7 })},
			want:    []PlacementAssignment{{"only", 4}},
		},
		{
			name:    "zero deficit places nothing but still reports skips",
			deficit: 0, pod: placePod, mode: PlacementPriority,
			targets: []BurstTarget{placeRoomy("a", 10), withTarget(placeRoomy("b", 1), func(t *BurstTarget) { t.Reachable = false })},
			skipped: []PlacementSkip{{"b", SkipUnreachable}},
		},
		{
			name:    "no targets",
			deficit: 3, pod: placePod, mode: PlacementCapacity,
			unplaced: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Place(tc.deficit, tc.pod, tc.targets, tc.mode)
			if err != nil {
				t.Fatalf("Place: %v", err)
			}
			if !slices.Equal(got.Assignments, tc.want) {
				t.Errorf("assignments = %v, want %v", got.Assignments, tc.want)
			}
			if got.Unplaced != tc.unplaced {
				t.Errorf("unplaced = %d, want %d", got.Unplaced, tc.unplaced)
			}
			if !slices.Equal(got.Skipped, tc.skipped) {
				t.Errorf("skipped = %v, want %v", got.Skipped, tc.skipped)
			}
			if got.Placed()+got.Unplaced != tc.deficit {
				t.Errorf("placed %d + unplaced %d != deficit %d", got.Placed(), got.Unplaced, tc.deficit)
			}
			for _, a := range tc.want {
				if r := got.Replicas(a.Target); r != a.Replicas {
					t.Errorf("Replicas(%q) = %d, want %d", a.Target, r, a.Replicas)
				}
			}
		})
	}
}

func TestPlaceIsIndependentOfInputOrder(t *testing.T) {
	base := []BurstTarget{
		withTarget(placeRoomy("a", 4), func(t *BurstTarget) { t.Weight = 2; t.Priority = 1; t.PricePerVCPUHour = 0.05 }),
		withTarget(placeRoomy("b", 9), func(t *BurstTarget) { t.Weight = 2; t.Priority = 1; t.PricePerVCPUHour = 0.05 }),
		withTarget(placeRoomy("c", 4), func(t *BurstTarget) { t.Weight = 1; t.Priority = 3; t.PricePerVCPUHour = 0.02 }),
		withTarget(placeRoomy("d", 6), func(t *BurstTarget) { t.Weight = 5; t.Priority = 0; t.PricePerVCPUHour = 0.09 }),
	}
	for _, mode := range []PlacementMode{PlacementPriority, PlacementCheapest, PlacementWeighted, PlacementCapacity} {
		t.Run(string(mode), func(t *testing.T) {
			want, err := Place(15, placePod, base, mode)
			if err != nil {
				t.Fatal(err)
			}
			rev := slices.Clone(base)
			slices.Reverse(rev)
			got, err := Place(15, placePod, rev, mode)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Assignments, want.Assignments) || got.Unplaced != want.Unplaced {
				t.Errorf("reversed input gave %v (+%d unplaced), want %v (+%d)", got.Assignments, got.Unplaced, want.Assignments, want.Unplaced)
			}
		})
	}
}

func TestPlaceRejectsBadInput(t *testing.T) {
	ok := placeRoomy("a", 1)
	tests := []struct {
		name    string
		deficit int32
		pod     PodRequests
		mode    PlacementMode
		targets []BurstTarget
		want    string
	}{
		{"unknown mode", 1, placePod, "random", nil, `placement mode "random" is unknown`},
		{"negative deficit", -1, placePod, PlacementPriority, nil, "deficit is -1"},
		{"negative cpu", 1, PodRequests{CPUMilli: -1}, PlacementPriority, nil, "pod CPUMilli is -1"},
		{"negative memory", 1, PodRequests{MemoryBytes: -5}, PlacementPriority, nil, "pod MemoryBytes is -5"},
		{"empty name", 1, placePod, PlacementPriority, []BurstTarget{{}}, "targets[0].Name is empty"},
		{"duplicate", 1, placePod, PlacementPriority, []BurstTarget{ok, ok}, `target "a" is listed twice`},
		{"negative weight", 1, placePod, PlacementWeighted, []BurstTarget{withTarget(ok, func(t *BurstTarget) { t.Weight = -1 })}, `target "a" Weight is -1`},
		{"negative max", 1, placePod, PlacementPriority, []BurstTarget{withTarget(ok, func(t *BurstTarget) { t.MaxReplicas = -2 })}, `target "a" MaxReplicas is -2`},
		{"negative current", 1, placePod, PlacementPriority, []BurstTarget{withTarget(ok, func(t *BurstTarget) { t.Current = -2 })}, `target "a" Current is -2`},
		{"NaN price", 1, placePod, PlacementCheapest, []BurstTarget{withTarget(ok, func(t *BurstTarget) { t.PricePerGiBHour = math.NaN() })}, `target "a" PricePerGiBHour is NaN`},
		{"negative price", 1, placePod, PlacementCheapest, []BurstTarget{withTarget(ok, func(t *BurstTarget) { t.PricePerVCPUHour = -1 })}, `target "a" PricePerVCPUHour is -1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Place(tc.deficit, tc.pod, tc.targets, tc.mode)
			if err == nil {
				t.Fatal("Place accepted bad input")
			}
			if !errors.Is(err, ErrInvalidInput) {
				t.Errorf("error %v does not wrap ErrInvalidInput", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestScaleBack(t *testing.T) {
	// Per pod-hour for pod (0.5 vCPU, 1 GiB): price = 0.5*cpu + 1*mem.
	burst := func(name string, current int32, cpuPrice float64) BurstTarget {
		return BurstTarget{Name: name, Reachable: true, Current: current, PricePerVCPUHour: cpuPrice}
	}
	tests := []struct {
		name           string
		excess         int32
		primaryCurrent int32
		targets        []BurstTarget
		want           []ScaleBackStep
		blocked        int32
		remaining      int32
		skipped        []PlacementSkip
	}{
		{
			name:   "most expensive burst cluster first, primary untouched",
			excess: 5, primaryCurrent: 8,
			targets: []BurstTarget{burst("eks", 4, 0.04), burst("ack", 3, 0.08)},
			want:    []ScaleBackStep{{"ack", 3, false}, {"eks", 2, false}},
		},
		{
			name:   "primary last and never below 0",
			excess: 30, primaryCurrent: 8,
			targets:   []BurstTarget{burst("eks", 4, 0.04), burst("ack", 3, 0.08)},
			want:      []ScaleBackStep{{"ack", 3, false}, {"eks", 4, false}, {"private", 8, true}},
			remaining: 15,
		},
		{
			name:   "memory price counts",
			excess: 2, primaryCurrent: 1,
			targets: []BurstTarget{
				{Name: "cpu-dear", Reachable: true, Current: 2, PricePerVCPUHour: 0.10},                     // 0.05 per pod-hour
				{Name: "mem-dear", Reachable: true, Current: 2, PricePerGiBHour: 0.06, PricePerVCPUHour: 0}, // 0.06
			},
			want: []ScaleBackStep{{"mem-dear", 2, false}},
		},
		{
			name:   "equal prices break by name",
			excess: 3, primaryCurrent: 1,
			targets: []BurstTarget{burst("b", 2, 0.05), burst("a", 2, 0.05)},
			want:    []ScaleBackStep{{"a", 2, false}, {"b", 1, false}},
		},
		{
			name:   "unreachable burst replicas are blocked, not shifted to the primary",
			excess: 6, primaryCurrent: 8,
			targets: []BurstTarget{
				withTarget(burst("ack", 4, 0.08), func(t *BurstTarget) { t.Reachable = false }),
				burst("eks", 1, 0.04),
			},
			want:    []ScaleBackStep{{"eks", 1, false}, {"private", 1, true}},
			blocked: 4,
			skipped: []PlacementSkip{{"ack", SkipUnreachable}},
		},
		{
			name:   "zero excess removes nothing",
			excess: 0, primaryCurrent: 3,
			targets: []BurstTarget{burst("eks", 2, 0.04)},
		},
		{
			name:   "only the primary",
			excess: 2, primaryCurrent: 5,
			want: []ScaleBackStep{{"private", 2, true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ScaleBack(tc.excess, placePod, "private", tc.primaryCurrent, tc.targets)
			if err != nil {
				t.Fatalf("ScaleBack: %v", err)
			}
			if !slices.Equal(got.Reductions, tc.want) {
				t.Errorf("reductions = %v, want %v", got.Reductions, tc.want)
			}
			if got.Blocked != tc.blocked || got.Remaining != tc.remaining {
				t.Errorf("blocked, remaining = %d, %d, want %d, %d", got.Blocked, got.Remaining, tc.blocked, tc.remaining)
			}
			if !slices.Equal(got.Skipped, tc.skipped) {
				t.Errorf("skipped = %v, want %v", got.Skipped, tc.skipped)
			}
			if got.Removed()+got.Blocked+got.Remaining != tc.excess {
				t.Errorf("removed %d + blocked %d + remaining %d != excess %d", got.Removed(), got.Blocked, got.Remaining, tc.excess)
			}
		})
	}
}

func TestScaleBackRejectsBadInput(t *testing.T) {
	tests := []struct {
		name    string
		excess  int32
		primary string
		current int32
		targets []BurstTarget
		want    string
	}{
		{"negative excess", -1, "p", 1, nil, "excess is -1"},
		{"no primary", 1, "", 1, nil, "primary cluster name is empty"},
		{"negative primary", 1, "p", -3, nil, "primaryCurrent is -3"},
		{"primary among targets", 1, "p", 1, []BurstTarget{{Name: "p"}}, `target "p" is also the primary`},
		{"negative current", 1, "p", 1, []BurstTarget{{Name: "b", Current: -1}}, `target "b" Current is -1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ScaleBack(tc.excess, placePod, tc.primary, tc.current, tc.targets)
			if err == nil || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrInvalidInput containing %q", err, tc.want)
			}
		})
	}
}

// FuzzPlace checks that no input makes Place exceed a target's max or free
// capacity, place on an unreachable target, lose replicas, or panic.
func FuzzPlace(f *testing.F) {
	f.Add(int32(10), int64(500), int64(1<<30), uint8(0), []byte{1, 5, 3, 0, 20, 40, 1, 2, 2, 9, 9, 9})
	f.Add(int32(100), int64(250), int64(1<<28), uint8(2), []byte{0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 200, 1, 7, 7, 7, 7})
	f.Add(int32(7), int64(0), int64(0), uint8(3), []byte{255, 255, 255, 255, 255, 255})
	f.Add(int32(0), int64(1), int64(1), uint8(1), []byte{})
	modes := []PlacementMode{PlacementPriority, PlacementCheapest, PlacementWeighted, PlacementCapacity}
	f.Fuzz(func(t *testing.T, deficit int32, cpu, mem int64, modeByte uint8, raw []byte) {
		if deficit < 0 || cpu < 0 || mem < 0 {
			return
		}
		deficit %= 10000
		p := PodRequests{CPUMilli: cpu % 8000, MemoryBytes: mem % (64 * placeGiB)}
		var targets []BurstTarget
		for i := 0; i+6 <= len(raw) && len(targets) < 12; i += 6 {
			b := raw[i : i+6]
			targets = append(targets, BurstTarget{
				Name:             fmt.Sprintf("t%02d", len(targets)),
				Priority:         int(b[0] % 4),
				Weight:           int32(b[1] % 5),
				MaxReplicas:      int32(b[2] % 30),
				Current:          int32(b[3] % 20),
				Reachable:        b[4]%5 != 0,
				FreeCPUMilli:     int64(b[5]) * 100,
				FreeMemoryBytes:  int64(b[4]) * (placeGiB / 8),
				PricePerVCPUHour: float64(b[0]) / 100,
				PricePerGiBHour:  float64(b[1]) / 100,
				GrowCPUMilli:     int64(b[2]) * 50,
				GrowMemoryBytes:  int64(b[3]) * (placeGiB / 16),
			})
		}
		mode := modes[int(modeByte)%len(modes)]
		got, err := Place(deficit, p, targets, mode)
		if err != nil {
			t.Fatalf("Place(%d, %+v, %d targets, %s): %v", deficit, p, len(targets), mode, err)
		}
		if got.Placed()+got.Unplaced != deficit || got.Unplaced < 0 {
			t.Fatalf("placed %d + unplaced %d != deficit %d", got.Placed(), got.Unplaced, deficit)
		}
		seen := map[string]bool{}
		for _, a := range got.Assignments {
			if a.Replicas <= 0 || seen[a.Target] {
				t.Fatalf("bad assignment %+v in %v", a, got.Assignments)
			}
			seen[a.Target] = true
			var tg BurstTarget
			for _, x := range targets {
				if x.Name == a.Target {
					tg = x
				}
			}
			if !tg.Reachable {
				t.Fatalf("placed %d on unreachable %s", a.Replicas, tg.Name)
			}
			if tg.MaxReplicas > 0 && tg.Current+a.Replicas > tg.MaxReplicas {
				t.Fatalf("%s: current %d + %d exceeds max %d", tg.Name, tg.Current, a.Replicas, tg.MaxReplicas)
			}
			if p.CPUMilli*int64(a.Replicas) > tg.FreeCPUMilli || p.MemoryBytes*int64(a.Replicas) > tg.FreeMemoryBytes {
				t.Fatalf("%s: %d pods of %+v exceed free %dm / %d B", tg.Name, a.Replicas, p, tg.FreeCPUMilli, tg.FreeMemoryBytes)
			}
		}
		// Running nodes first: no target takes room to buy while another
		// one's running room is left.
		if mode != PlacementWeighted {
			var buys string
			for _, tg := range targets {
				if c, reason := candidateFor(0, tg, p); reason == "" && int64(got.Replicas(tg.Name)) > c.ready {
					buys = tg.Name
				}
			}
			for _, tg := range targets {
				if c, reason := candidateFor(0, tg, p); buys != "" && reason == "" && int64(got.Replicas(tg.Name)) < c.ready {
					t.Fatalf("%s takes room to buy while %s got %d of its %d running room", buys, tg.Name, got.Replicas(tg.Name), c.ready)
				}
			}
		}
		// Anything left unplaced means every usable target is full.
		if got.Unplaced > 0 && mode != PlacementWeighted {
			for _, tg := range targets {
				c, reason := candidateFor(0, tg, p)
				if reason == "" && int64(got.Replicas(tg.Name)) < c.room {
					t.Fatalf("%d unplaced while %s has room %d and got %d", got.Unplaced, tg.Name, c.room, got.Replicas(tg.Name))
				}
			}
		}
	})
}

func BenchmarkPlace10Targets(b *testing.B) {
	targets := make([]BurstTarget, 10)
	for i := range targets {
		targets[i] = BurstTarget{
			Name: fmt.Sprintf("cluster-%02d", i), Priority: i % 3, Weight: int32(1 + i%4),
			MaxReplicas: int32(5 + i), Current: int32(i % 3), Reachable: i != 7,
			FreeCPUMilli: int64(2000 + 700*i), FreeMemoryBytes: int64(4+i) * placeGiB,
			PricePerVCPUHour: 0.03 + float64(i%5)/100, PricePerGiBHour: 0.004 + float64(i%3)/1000,
		}
	}
	for _, mode := range []PlacementMode{PlacementPriority, PlacementCheapest, PlacementWeighted, PlacementCapacity} {
		b.Run(string(mode), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := Place(40, placePod, targets, mode)
				if err != nil || p.Placed() == 0 {
					b.Fatal(p, err)
				}
			}
		})
	}
}
