package scaling

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// headroomTarget is a roomy target for placePod priced per vCPU-hour
// (placePod's 500m: half that per pod-hour) with a priority.
func headroomTarget(name string, room int64, perVCPU float64, priority int) BurstTarget {
	return withTarget(placeRoomy(name, room), func(t *BurstTarget) { t.PricePerVCPUHour, t.Priority = perVCPU, priority })
}

func TestPlaceWithHeadroom(t *testing.T) {
	dear := headroomTarget("dear", 100, 0.20, 10) // preferred by priority
	cheap := headroomTarget("cheap", 100, 0.05, 1)
	tests := []struct {
		name              string
		deficit, headroom int32
		mode              PlacementMode
		targets           []BurstTarget
		want              []PlacementAssignment
		unplaced          int32
		skipped           []PlacementSkip
	}{
		{
			name:    "priority prefers the dearer target: the load goes there, the spare replicas to the cheaper one",
			deficit: 5, headroom: 2, mode: PlacementPriority, targets: []BurstTarget{dear, cheap},
			want: []PlacementAssignment{{"dear", 3}, {"cheap", 2}},
		},
		{
			name:    "the load fills running nodes first, the spare replicas go cheapest even where a node must be bought",
			deficit: 5, headroom: 2, mode: PlacementPriority,
			// dear runs nodes with room for 10 and must buy the rest; cheap
			// runs none: all of its room must be bought. The spare
			// replicas keep no one waiting: cheapest, not running first.
			targets: []BurstTarget{
				withTarget(dear, func(t *BurstTarget) { t.GrowCPUMilli, t.GrowMemoryBytes = 90*500, 90*placeGiB }),
				withTarget(cheap, func(t *BurstTarget) { t.GrowCPUMilli, t.GrowMemoryBytes = 100*500, 100*placeGiB }),
			},
			want: []PlacementAssignment{{"dear", 3}, {"cheap", 2}},
		},
		{
			name:    "a deficit of spare replicas only: all on the cheaper target",
			deficit: 2, headroom: 2, mode: PlacementPriority, targets: []BurstTarget{dear, cheap},
			want: []PlacementAssignment{{"cheap", 2}},
		},
		{
			name:    "more headroom than deficit: the deficit is the last replicas, all spare",
			deficit: 2, headroom: 5, mode: PlacementPriority, targets: []BurstTarget{dear, cheap},
			want: []PlacementAssignment{{"cheap", 2}},
		},
		{
			name:    "burst replicas already there are counted as the headroom first: the deficit is load",
			deficit: 2, headroom: 2, mode: PlacementPriority,
			targets: []BurstTarget{dear, withTarget(cheap, func(t *BurstTarget) { t.Current = 2 })},
			want:    []PlacementAssignment{{"dear", 2}},
		},
		{
			name:    "burst replicas on a dearer target are the load's: the headroom still goes to the cheaper one",
			deficit: 2, headroom: 2, mode: PlacementPriority,
			targets: []BurstTarget{withTarget(dear, func(t *BurstTarget) { t.Current = 4 }), cheap},
			want:    []PlacementAssignment{{"cheap", 2}},
		},
		{
			name:    "the replicas of a full cheaper target count as headroom: the deficit is load",
			deficit: 2, headroom: 2, mode: PlacementPriority,
			targets: []BurstTarget{dear, withTarget(cheap, func(t *BurstTarget) { t.Current = 2; t.MaxReplicas = 2 }), headroomTarget("mid", 100, 0.1, 5)},
			want:    []PlacementAssignment{{"dear", 2}},
			skipped: []PlacementSkip{{"cheap", SkipAtMax}},
		},
		{
			name:    "a full cheaper target holding less than the headroom: the rest to the next cheapest",
			deficit: 3, headroom: 2, mode: PlacementPriority,
			targets: []BurstTarget{dear, withTarget(cheap, func(t *BurstTarget) { t.Current = 1; t.MaxReplicas = 1 }), headroomTarget("mid", 100, 0.1, 5)},
			want:    []PlacementAssignment{{"dear", 2}, {"mid", 1}},
			skipped: []PlacementSkip{{"cheap", SkipAtMax}},
		},
		{
			name:    "part of the headroom already there: the rest of it in the deficit",
			deficit: 4, headroom: 3, mode: PlacementPriority,
			targets: []BurstTarget{dear, withTarget(cheap, func(t *BurstTarget) { t.Current = 1 })},
			want:    []PlacementAssignment{{"dear", 2}, {"cheap", 2}},
		},
		{
			name:    "no headroom: Place's answer",
			deficit: 5, headroom: 0, mode: PlacementPriority, targets: []BurstTarget{dear, cheap},
			want: []PlacementAssignment{{"dear", 5}},
		},
		{
			name:    "the cheaper target full: the spare replicas spill to the dearer one",
			deficit: 5, headroom: 3, mode: PlacementPriority,
			targets: []BurstTarget{dear, headroomTarget("cheap", 1, 0.05, 1)},
			want:    []PlacementAssignment{{"dear", 4}, {"cheap", 1}},
		},
		{
			name:    "the load takes the cheaper target's room first (cheapest mode): spare replicas next in the price order",
			deficit: 4, headroom: 2, mode: PlacementCheapest,
			targets: []BurstTarget{dear, headroomTarget("cheap", 3, 0.05, 1)},
			want:    []PlacementAssignment{{"cheap", 3}, {"dear", 1}},
		},
		{
			name:    "weighted: the load is split by weight, the spare replicas go to the cheaper target",
			deficit: 6, headroom: 2, mode: PlacementWeighted,
			targets: []BurstTarget{withTarget(dear, func(t *BurstTarget) { t.Weight = 1 }), withTarget(cheap, func(t *BurstTarget) { t.Weight = 1 })},
			want:    []PlacementAssignment{{"cheap", 4}, {"dear", 2}},
		},
		{
			name:    "a cap on the cheaper target counts the load placed there",
			deficit: 4, headroom: 2, mode: PlacementCheapest,
			targets: []BurstTarget{dear, withTarget(cheap, func(t *BurstTarget) { t.MaxReplicas = 3 })},
			want:    []PlacementAssignment{{"cheap", 3}, {"dear", 1}},
		},
		{
			name:    "no room anywhere for the spare replicas: unplaced",
			deficit: 3, headroom: 2, mode: PlacementPriority,
			targets:  []BurstTarget{headroomTarget("dear", 1, 0.20, 10), headroomTarget("cheap", 1, 0.05, 1)},
			want:     []PlacementAssignment{{"dear", 1}, {"cheap", 1}},
			unplaced: 1,
		},
		{
			name:    "an unreachable cheaper target takes nothing",
			deficit: 3, headroom: 1, mode: PlacementPriority,
			targets: []BurstTarget{dear, withTarget(cheap, func(t *BurstTarget) { t.Reachable = false })},
			want:    []PlacementAssignment{{"dear", 3}},
			skipped: []PlacementSkip{{"cheap", SkipUnreachable}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlaceWithHeadroom(tt.deficit, tt.headroom, placePod, tt.targets, tt.mode)
			if err != nil {
				t.Fatalf("PlaceWithHeadroom: %v", err)
			}
			if !slices.Equal(got.Assignments, tt.want) {
				t.Errorf("assignments = %v, want %v", got.Assignments, tt.want)
			}
			if got.Unplaced != tt.unplaced {
				t.Errorf("unplaced = %d, want %d", got.Unplaced, tt.unplaced)
			}
			if !slices.Equal(got.Skipped, tt.skipped) {
				t.Errorf("skipped = %v, want %v", got.Skipped, tt.skipped)
			}
			if got.Placed()+got.Unplaced != tt.deficit {
				t.Errorf("placed %d + unplaced %d != deficit %d", got.Placed(), got.Unplaced, tt.deficit)
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			deficit, headroom int32
			mode              PlacementMode
			want              string
		}{
			{1, -1, PlacementPriority, "headroom is -1"},
			{-1, 0, PlacementPriority, "deficit is -1"},
			{1, 1, "cheapest-ish", "unknown"},
		} {
			_, err := PlaceWithHeadroom(c.deficit, c.headroom, placePod, []BurstTarget{cheap}, c.mode)
			if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("PlaceWithHeadroom(%d, %d, %q) error = %v, want ErrInvalidInput naming %q", c.deficit, c.headroom, c.mode, err, c.want)
			}
		}
	})
}

func TestHeadroomCost(t *testing.T) {
	pod := PodRequests{CPUMilli: 1000, MemoryBytes: placeGiB} // 1 vCPU, 1 GiB
	priced := func(name string, current int32, perVCPU, perGiB float64) BurstTarget {
		return BurstTarget{Name: name, Current: current, PricePerVCPUHour: perVCPU, PricePerGiBHour: perGiB}
	}
	tests := []struct {
		name           string
		spare, primary int32
		primaryPrices  BurstTarget
		burst          []BurstTarget
		want           []HeadroomShare
		cost           float64
	}{
		{
			name: "counted in the cheapest burst cluster first", spare: 2, primary: 4,
			burst: []BurstTarget{priced("dear", 3, 0.20, 0.02), priced("cheap", 2, 0.05, 0.01)},
			want:  []HeadroomShare{{Cluster: "cheap", Replicas: 2, CostPerHour: 0.12}},
			cost:  0.12,
		},
		{
			name: "then the next cheapest", spare: 3, primary: 4,
			burst: []BurstTarget{priced("dear", 3, 0.20, 0.02), priced("cheap", 2, 0.05, 0.01)},
			want:  []HeadroomShare{{Cluster: "cheap", Replicas: 2, CostPerHour: 0.12}, {Cluster: "dear", Replicas: 1, CostPerHour: 0.22}},
			cost:  0.34,
		},
		{
			name: "nothing burst: in the primary, at its prices", spare: 2, primary: 4,
			primaryPrices: priced("", 0, 0.03, 0.004),
			want:          []HeadroomShare{{Cluster: "private", Replicas: 2, CostPerHour: 0.068, Primary: true}},
			cost:          0.068,
		},
		{
			name: "nothing burst, an unpriced primary: free", spare: 2, primary: 4,
			want: []HeadroomShare{{Cluster: "private", Replicas: 2, Primary: true}},
		},
		{
			name: "more spare than replicas: only those running", spare: 9, primary: 2,
			burst: []BurstTarget{priced("cheap", 1, 0.05, 0.01)},
			want:  []HeadroomShare{{Cluster: "cheap", Replicas: 1, CostPerHour: 0.06}, {Cluster: "private", Replicas: 2, Primary: true}},
			cost:  0.06,
		},
		{name: "no headroom", spare: 0, primary: 4, burst: []BurstTarget{priced("cheap", 1, 0.05, 0.01)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HeadroomCost(tt.spare, pod, "private", tt.primary, tt.primaryPrices, tt.burst)
			if err != nil {
				t.Fatalf("HeadroomCost: %v", err)
			}
			if len(got.Shares) != len(tt.want) {
				t.Fatalf("shares = %+v, want %+v", got.Shares, tt.want)
			}
			var n int32
			for i, s := range got.Shares {
				w := tt.want[i]
				if s.Cluster != w.Cluster || s.Replicas != w.Replicas || s.Primary != w.Primary || math.Abs(s.CostPerHour-w.CostPerHour) > 1e-9 {
					t.Errorf("share %d = %+v, want %+v", i, s, w)
				}
				n += w.Replicas
			}
			if got.Replicas != n || math.Abs(got.CostPerHour-tt.cost) > 1e-9 {
				t.Errorf("total = %d replicas at %v/h, want %d at %v/h", got.Replicas, got.CostPerHour, n, tt.cost)
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			spare, primary int32
			name           string
			prices         BurstTarget
			want           string
		}{
			{-1, 1, "p", BurstTarget{}, "spare is -1"},
			{1, 1, "", BurstTarget{}, "primary cluster name is empty"},
			{1, -2, "p", BurstTarget{}, "primaryCurrent is -2"},
			{1, 1, "p", BurstTarget{PricePerVCPUHour: math.NaN()}, "primary prices"},
		} {
			_, err := HeadroomCost(c.spare, pod, c.name, c.primary, c.prices, nil)
			if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("HeadroomCost error = %v, want ErrInvalidInput naming %q", err, c.want)
			}
		}
	})
}
