package controller

import (
	"errors"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

// TestFederationDecide: when the fresh partition wins over scaling.Rebalance.
func TestFederationDecide(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	long := now.Add(-time.Hour)
	down := errors.New("connection refused")
	fm := func(name string, min, max, cur, des int32) scaling.FederatedMember {
		return scaling.FederatedMember{Name: name, Min: min, Max: max, Current: cur, Desired: des, Observed: cur > 0 || des > 0, LastScaleTime: long}
	}
	tests := []struct {
		name          string
		min, max      int32
		input         []scaling.FederatedMember
		errs          []error
		wantMinMax    [][2]int32
		repartitioned bool
	}{
		{"member added to the spec gets an HPA", 2, 10,
			[]scaling.FederatedMember{fm("a", 2, 10, 5, 5), {Name: "b"}}, []error{nil, nil},
			[][2]int32{{1, 5}, {1, 5}}, true},
		{"consistent members are rebalanced one replica", 2, 10,
			[]scaling.FederatedMember{fm("a", 1, 5, 5, 5), fm("b", 1, 5, 1, 1)}, []error{nil, nil},
			[][2]int32{{1, 6}, {1, 4}}, false},
		{"an unreachable member without HPA does not force a repartition", 3, 10,
			[]scaling.FederatedMember{fm("a", 2, 5, 5, 5), {Name: "b"}, fm("c", 1, 5, 1, 1)}, []error{nil, down, nil},
			[][2]int32{{2, 6}, {0, 0}, {1, 4}}, false},
		{"the same member reachable gets its share", 3, 10,
			[]scaling.FederatedMember{fm("a", 2, 5, 5, 5), {Name: "b"}, fm("c", 1, 5, 1, 1)}, []error{nil, nil, nil},
			[][2]int32{{1, 4}, {1, 3}, {1, 3}}, true},
		{"min 1 over two members places only the first", 1, 10,
			[]scaling.FederatedMember{fm("a", 1, 10, 3, 3), {Name: "b"}}, []error{nil, nil},
			[][2]int32{{1, 10}, {0, 0}}, false},
		{"a member placed where the partition would not is emptied", 1, 10,
			[]scaling.FederatedMember{fm("a", 1, 5, 3, 3), fm("b", 0, 5, 1, 1)}, []error{nil, nil},
			[][2]int32{{1, 10}, {0, 0}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			members := make([]fedMember, len(tt.input))
			for i := range members {
				members[i] = fedMember{name: tt.input[i].Name, err: tt.errs[i]}
			}
			res, err := decide(now, tt.min, tt.max, tt.input, members, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range res.Members {
				if got := [2]int32{m.Min, m.Max}; got != tt.wantMinMax[i] {
					t.Errorf("member %s min/max = %v, want %v", m.Name, got, tt.wantMinMax[i])
				}
			}
			if res.Repartitioned != tt.repartitioned {
				t.Errorf("repartitioned = %v, want %v", res.Repartitioned, tt.repartitioned)
			}
		})
	}
}
