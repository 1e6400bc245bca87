package scaling

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPartition(t *testing.T) {
	tests := []struct {
		name               string
		totalMin, totalMax int32
		clusters           []string
		want               []FederatedShare
	}{
		{
			name: "even spread with remainders to the first clusters",
			// The design's example shape: min 5 over 3 -> 2,2,1; max 10 over 3 -> 4,3,3.
			totalMin: 5, totalMax: 10, clusters: []string{"a", "b", "c"},
			want: []FederatedShare{{"a", 2, 4}, {"b", 2, 3}, {"c", 1, 3}},
		},
		{
			name:     "given order decides the remainder, not the name",
			totalMin: 4, totalMax: 7, clusters: []string{"zeta", "alpha"},
			want: []FederatedShare{{"zeta", 2, 4}, {"alpha", 2, 3}},
		},
		{
			name:     "totalMin below the cluster count places only the first totalMin clusters",
			totalMin: 2, totalMax: 9, clusters: []string{"a", "b", "c", "d"},
			want: []FederatedShare{{"a", 1, 5}, {"b", 1, 4}, {"c", 0, 0}, {"d", 0, 0}},
		},
		{
			name:     "totalMin 0 places up to totalMax clusters with min 0",
			totalMin: 0, totalMax: 2, clusters: []string{"a", "b", "c"},
			want: []FederatedShare{{"a", 0, 1}, {"b", 0, 1}, {"c", 0, 0}},
		},
		{
			name:     "totalMin 0 with room for every cluster",
			totalMin: 0, totalMax: 7, clusters: []string{"a", "b", "c"},
			want: []FederatedShare{{"a", 0, 3}, {"b", 0, 2}, {"c", 0, 2}},
		},
		{
			name:     "one cluster takes everything",
			totalMin: 3, totalMax: 7, clusters: []string{"only"},
			want: []FederatedShare{{"only", 3, 7}},
		},
		{
			name:     "min equals max",
			totalMin: 5, totalMax: 5, clusters: []string{"a", "b"},
			want: []FederatedShare{{"a", 3, 3}, {"b", 2, 2}},
		},
		{
			name:     "equal floors: remainders keep min <= max",
			totalMin: 7, totalMax: 8, clusters: []string{"a", "b", "c"},
			want: []FederatedShare{{"a", 3, 3}, {"b", 2, 3}, {"c", 2, 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Partition(tc.totalMin, tc.totalMax, tc.clusters)
			if err != nil {
				t.Fatalf("Partition: %v", err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			checkShares(t, got, tc.totalMin, tc.totalMax)
		})
	}
}

func checkShares(t *testing.T, shares []FederatedShare, totalMin, totalMax int32) {
	t.Helper()
	var sMin, sMax int32
	for _, s := range shares {
		if s.Min < 0 || s.Max < 0 || s.Min > s.Max {
			t.Fatalf("share %+v breaks 0 <= min <= max", s)
		}
		if totalMin > 0 && s.Placed() && s.Min < 1 {
			t.Fatalf("placed share %+v has min < 1 with totalMin %d", s, totalMin)
		}
		sMin += s.Min
		sMax += s.Max
	}
	if sMin != totalMin || sMax != totalMax {
		t.Fatalf("sums min %d max %d, want %d %d (%v)", sMin, sMax, totalMin, totalMax, shares)
	}
}

func TestPartitionRejectsBadInput(t *testing.T) {
	tests := []struct {
		name               string
		totalMin, totalMax int32
		clusters           []string
		want               string
	}{
		{"totalMin above totalMax", 5, 3, []string{"a"}, "totalMin (5) is greater than totalMax (3)"},
		{"negative totalMin", -1, 3, []string{"a"}, "totalMin is -1"},
		{"zero totalMax", 0, 0, []string{"a"}, "totalMax is 0"},
		{"no clusters", 1, 3, nil, "clusters is empty"},
		{"empty name", 1, 3, []string{"a", ""}, "clusters[1] is empty"},
		{"duplicate", 1, 3, []string{"a", "a"}, `cluster "a" is listed twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Partition(tc.totalMin, tc.totalMax, tc.clusters)
			if err == nil || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrInvalidInput containing %q", err, tc.want)
			}
		})
	}
}

var fedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// member builds an observed member that last scaled an hour ago.
func member(name string, min, max, current, desired int32) FederatedMember {
	return FederatedMember{Name: name, Min: min, Max: max, Current: current, Desired: desired, Observed: true, LastScaleTime: fedNow.Add(-time.Hour)}
}

func TestRebalance(t *testing.T) {
	win := RebalanceOptions{ScaleForbiddenWindow: DefaultScaleForbiddenWindow}
	tests := []struct {
		name               string
		totalMin, totalMax int32
		members            []FederatedMember
		opts               RebalanceOptions
		wantMax            []int32
		wantMin            []int32 // nil: unchanged
		moves              []FederatedMove
		repartitioned      bool
	}{
		{
			name:     "saturated cluster takes one max from a cluster that does not need it",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{member("a", 1, 5, 5, 5), member("b", 1, 5, 2, 2)},
			opts:    win,
			wantMax: []int32{6, 4},
			moves:   []FederatedMove{{"b", "a", 1}},
		},
		{
			name:     "a larger step moves down to what the donor uses",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{member("a", 1, 5, 5, 5), member("b", 1, 5, 2, 2)},
			opts:    RebalanceOptions{Step: 10},
			wantMax: []int32{8, 2},
			moves:   []FederatedMove{{"b", "a", 3}},
		},
		{
			name:     "a donor never goes below its min",
			totalMin: 5, totalMax: 10,
			members: []FederatedMember{member("a", 1, 5, 5, 5), member("b", 4, 5, 1, 1)},
			opts:    RebalanceOptions{Step: 10},
			wantMax: []int32{6, 4},
			moves:   []FederatedMove{{"b", "a", 1}},
		},
		{
			name:     "a cluster that cannot use its max (pending pods) gives down to current",
			totalMin: 2, totalMax: 12,
			members: []FederatedMember{member("a", 1, 6, 6, 6), member("b", 1, 6, 3, 6)},
			opts:    RebalanceOptions{Step: 10},
			wantMax: []int32{9, 3},
			moves:   []FederatedMove{{"b", "a", 3}},
		},
		{
			name:     "a donor inside the scale-forbidden window is not changed",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{
				member("a", 1, 5, 5, 5),
				fedWith(member("b", 1, 5, 2, 2), func(m *FederatedMember) { m.LastScaleTime = fedNow.Add(-time.Minute) }),
			},
			opts:    win,
			wantMax: []int32{5, 5},
		},
		{
			name:     "a receiver inside the window is not changed",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{
				fedWith(member("a", 1, 5, 5, 5), func(m *FederatedMember) { m.LastScaleTime = fedNow.Add(-4 * time.Minute) }),
				member("b", 1, 5, 2, 2),
			},
			opts:    win,
			wantMax: []int32{5, 5},
		},
		{
			name:     "exactly the window length ago is outside it",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{
				fedWith(member("a", 1, 5, 5, 5), func(m *FederatedMember) { m.LastScaleTime = fedNow.Add(-DefaultScaleForbiddenWindow) }),
				member("b", 1, 5, 2, 2),
			},
			opts:    win,
			wantMax: []int32{6, 4},
			moves:   []FederatedMove{{"b", "a", 1}},
		},
		{
			name:     "an unobserved member is neither donor nor receiver",
			totalMin: 3, totalMax: 15,
			members: []FederatedMember{
				member("a", 1, 5, 5, 5),
				{Name: "fresh", Min: 1, Max: 5},
				member("c", 1, 5, 5, 5),
			},
			opts:    win,
			wantMax: []int32{5, 5, 5},
		},
		{
			name:     "several receivers take turns from the donor with the most to give",
			totalMin: 4, totalMax: 20,
			members: []FederatedMember{
				member("a", 1, 5, 5, 5),
				member("b", 1, 5, 4, 4), // gives 1
				member("c", 1, 5, 5, 5),
				member("d", 1, 5, 1, 1), // gives 4
			},
			opts: RebalanceOptions{Step: 3},
			// Round 1: a and c both take from d (4 to give); round 2: a from d,
			// c from b (tie at 1, earlier member); round 3: a from d, c finds
			// nobody left.
			wantMax: []int32{8, 4, 7, 1},
			moves:   []FederatedMove{{"d", "a", 3}, {"d", "c", 1}, {"b", "c", 1}},
		},
		{
			name:     "nothing saturated: nothing moves",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{member("a", 1, 5, 3, 4), member("b", 1, 5, 2, 2)},
			wantMax: []int32{5, 5},
		},
		{
			name:     "nobody to give: nothing moves",
			totalMin: 2, totalMax: 10,
			members: []FederatedMember{member("a", 1, 5, 5, 5), member("b", 1, 5, 5, 5)},
			wantMax: []int32{5, 5},
		},
		{
			name:     "unplaced members neither give nor receive",
			totalMin: 1, totalMax: 6,
			members: []FederatedMember{member("a", 1, 6, 6, 6), member("b", 0, 0, 0, 0)},
			opts:    RebalanceOptions{Step: 5},
			wantMax: []int32{6, 0},
		},
		{
			name:     "one cluster",
			totalMin: 1, totalMax: 4,
			members: []FederatedMember{member("a", 1, 4, 4, 4)},
			wantMax: []int32{4},
		},
		{
			name:     "totals changed: repartition ignoring the window",
			totalMin: 3, totalMax: 12,
			members: []FederatedMember{
				fedWith(member("a", 1, 5, 5, 5), func(m *FederatedMember) { m.LastScaleTime = fedNow }),
				member("b", 1, 5, 2, 2),
			},
			opts:          win,
			wantMax:       []int32{6, 6},
			wantMin:       []int32{2, 1},
			repartitioned: true,
		},
		{
			name:     "a member with max below min is repaired",
			totalMin: 4, totalMax: 8,
			members:       []FederatedMember{member("a", 3, 2, 2, 2), member("b", 1, 6, 1, 1)},
			wantMax:       []int32{4, 4},
			wantMin:       []int32{2, 2},
			repartitioned: true,
		},
		{
			name:     "zero replicas everywhere",
			totalMin: 2, totalMax: 4,
			members: []FederatedMember{member("a", 1, 2, 0, 0), member("b", 1, 2, 0, 0)},
			wantMax: []int32{2, 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rebalance(fedNow, tc.totalMin, tc.totalMax, tc.members, tc.opts)
			if err != nil {
				t.Fatalf("Rebalance: %v", err)
			}
			var gotMax, gotMin, inMin []int32
			for i, m := range got.Members {
				gotMax = append(gotMax, m.Max)
				gotMin = append(gotMin, m.Min)
				inMin = append(inMin, tc.members[i].Min)
				if m.Name != tc.members[i].Name || m.Current != tc.members[i].Current || m.Desired != tc.members[i].Desired {
					t.Errorf("member %d changed beyond min/max: %+v", i, m)
				}
			}
			if !slices.Equal(gotMax, tc.wantMax) {
				t.Errorf("max = %v, want %v", gotMax, tc.wantMax)
			}
			wantMin := tc.wantMin
			if wantMin == nil {
				wantMin = inMin
			}
			if !slices.Equal(gotMin, wantMin) {
				t.Errorf("min = %v, want %v", gotMin, wantMin)
			}
			if !slices.Equal(got.Moves, tc.moves) {
				t.Errorf("moves = %v, want %v", got.Moves, tc.moves)
			}
			if got.Repartitioned != tc.repartitioned {
				t.Errorf("repartitioned = %v, want %v", got.Repartitioned, tc.repartitioned)
			}
			checkMembers(t, got.Members, tc.totalMin, tc.totalMax)
		})
	}
}

func fedWith[T any](v T, f func(*T)) T { f(&v); return v }

func checkMembers(t *testing.T, ms []FederatedMember, totalMin, totalMax int32) {
	t.Helper()
	shares := make([]FederatedShare, len(ms))
	for i, m := range ms {
		shares[i] = FederatedShare{Cluster: m.Name, Min: m.Min, Max: m.Max}
	}
	checkShares(t, shares, totalMin, totalMax)
}

func TestRebalanceRejectsBadInput(t *testing.T) {
	ok := member("a", 1, 2, 1, 1)
	tests := []struct {
		name               string
		totalMin, totalMax int32
		members            []FederatedMember
		opts               RebalanceOptions
		want               string
	}{
		{"totalMin above totalMax", 4, 2, []FederatedMember{ok}, RebalanceOptions{}, "totalMin (4) is greater than totalMax (2)"},
		{"no members", 1, 2, nil, RebalanceOptions{}, "members is empty"},
		{"negative window", 1, 2, []FederatedMember{ok}, RebalanceOptions{ScaleForbiddenWindow: -time.Second}, "ScaleForbiddenWindow is -1s"},
		{"negative step", 1, 2, []FederatedMember{ok}, RebalanceOptions{Step: -1}, "Step is -1"},
		{"empty name", 1, 2, []FederatedMember{{Min: 1, Max: 2}}, RebalanceOptions{}, "members[0].Name is empty"},
		{"negative desired", 1, 2, []FederatedMember{fedWith(ok, func(m *FederatedMember) { m.Desired = -1 })}, RebalanceOptions{}, `member "a" has a negative`},
		{"duplicate", 2, 4, []FederatedMember{ok, ok}, RebalanceOptions{}, `member "a" is listed twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Rebalance(fedNow, tc.totalMin, tc.totalMax, tc.members, tc.opts)
			if err == nil || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrInvalidInput containing %q", err, tc.want)
			}
		})
	}
}

// FuzzPartition checks the partition invariants for any totals and cluster
// count: sums preserved, 0 <= min <= max, placed clusters have min >= 1.
func FuzzPartition(f *testing.F) {
	f.Add(int32(5), int32(10), uint8(3))
	f.Add(int32(2), int32(9), uint8(4))
	f.Add(int32(0), int32(1), uint8(7))
	f.Add(int32(7), int32(8), uint8(3))
	f.Add(int32(100), int32(100), uint8(1))
	f.Fuzz(func(t *testing.T, totalMin, totalMax int32, n uint8) {
		clusters := make([]string, int(n%40)+1)
		for i := range clusters {
			clusters[i] = fmt.Sprintf("c%02d", i)
		}
		got, err := Partition(totalMin, totalMax, clusters)
		if err != nil {
			if totalMin >= 0 && totalMax >= 1 && totalMin <= totalMax {
				t.Fatalf("Partition(%d, %d, %d clusters) rejected valid totals: %v", totalMin, totalMax, len(clusters), err)
			}
			return
		}
		if len(got) != len(clusters) {
			t.Fatalf("got %d shares for %d clusters", len(got), len(clusters))
		}
		checkShares(t, got, totalMin, totalMax)
	})
}

// FuzzRebalance drives Rebalance from a valid partition through random HPA
// states and checks after every call: sums preserved, 0 <= min <= max,
// nothing negative, min never moves, frozen and unobserved members keep their
// max, receivers only gain and donors only lose.
func FuzzRebalance(f *testing.F) {
	f.Add(int32(4), int32(20), uint8(4), uint8(1), []byte{5, 5, 5, 1, 2, 2, 0, 9, 3, 3, 3, 1, 7, 1, 6, 2})
	f.Add(int32(1), int32(3), uint8(5), uint8(0), []byte{0, 0, 0, 0, 255, 255, 255, 255})
	f.Add(int32(0), int32(5), uint8(3), uint8(9), []byte{1, 1, 2, 3, 5, 8, 13, 21, 34, 55})
	f.Fuzz(func(t *testing.T, totalMin, totalMax int32, n, step uint8, raw []byte) {
		if totalMin < 0 || totalMax < 1 || totalMin > totalMax {
			return
		}
		totalMin %= 1000
		totalMax = totalMin + totalMax%1000
		if totalMax < 1 {
			totalMax = 1
		}
		names := make([]string, int(n%20)+1)
		for i := range names {
			names[i] = fmt.Sprintf("c%02d", i)
		}
		shares, err := Partition(totalMin, totalMax, names)
		if err != nil {
			t.Fatal(err)
		}
		ms := make([]FederatedMember, len(shares))
		for i, s := range shares {
			ms[i] = FederatedMember{Name: s.Cluster, Min: s.Min, Max: s.Max}
		}
		opts := RebalanceOptions{ScaleForbiddenWindow: DefaultScaleForbiddenWindow, Step: int32(step % 8)}
		for round := 0; len(raw) >= 4; round++ {
			// Drive each member's HPA status from the fuzz bytes.
			for i := range ms {
				if len(raw) < 4 {
					break
				}
				b := raw[:4]
				raw = raw[4:]
				ms[i].Observed = b[0]%7 != 0
				ms[i].Desired = min(int32(b[1]%16)+ms[i].Min, ms[i].Max)
				ms[i].Current = min(int32(b[2]%16), ms[i].Desired+int32(b[3]%3))
				ms[i].LastScaleTime = fedNow.Add(-time.Duration(b[3]) * time.Minute / 8)
			}
			got, err := Rebalance(fedNow, totalMin, totalMax, ms, opts)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if got.Repartitioned {
				t.Fatalf("round %d: a consistent partition was repartitioned: %+v", round, ms)
			}
			checkMembers(t, got.Members, totalMin, totalMax)
			for i, m := range got.Members {
				old := ms[i]
				if m.Min != old.Min {
					t.Fatalf("round %d: %s min moved %d -> %d", round, m.Name, old.Min, m.Min)
				}
				frozen := !old.Observed || old.Max == 0 || fedNow.Sub(old.LastScaleTime) < opts.ScaleForbiddenWindow
				if frozen && m.Max != old.Max {
					t.Fatalf("round %d: frozen %s max changed %d -> %d", round, m.Name, old.Max, m.Max)
				}
				saturated := old.Current == old.Desired && old.Desired == old.Max
				if saturated && m.Max < old.Max || !saturated && m.Max > old.Max {
					t.Fatalf("round %d: %s (saturated %v) max %d -> %d", round, m.Name, saturated, old.Max, m.Max)
				}
				if old.Max > 0 && m.Max == 0 {
					t.Fatalf("round %d: %s lost its HPA", round, m.Name)
				}
			}
			ms = got.Members
		}
	})
}

func BenchmarkRebalance20Clusters(b *testing.B) {
	names := make([]string, 20)
	for i := range names {
		names[i] = fmt.Sprintf("cluster-%02d", i)
	}
	shares, err := Partition(20, 200, names)
	if err != nil {
		b.Fatal(err)
	}
	ms := make([]FederatedMember, len(shares))
	for i, s := range shares {
		d := s.Max
		if i%3 != 0 {
			d = s.Max / 3
		}
		ms[i] = FederatedMember{Name: s.Cluster, Min: s.Min, Max: s.Max, Current: d, Desired: d, Observed: true, LastScaleTime: fedNow.Add(-time.Hour)}
	}
	opts := RebalanceOptions{ScaleForbiddenWindow: DefaultScaleForbiddenWindow, Step: 2}
	b.ReportAllocs()
	for b.Loop() {
		r, err := Rebalance(fedNow, 20, 200, ms, opts)
		if err != nil || len(r.Moves) == 0 {
			b.Fatal(r, err)
		}
	}
}
