package controller

import (
	"slices"
	"testing"
	"time"
)

// TestReadyTimer checks the matching of nodes that become Ready to the orders
// that asked for them: oldest order first, nodes Ready at the first look or
// with no order on record not timed, orders the cloud no longer has to
// deliver dropped.
func TestReadyTimer(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type order struct {
		n  int32
		at int
	}
	type round struct {
		orders    []order
		ready     map[string]int // node: Ready since (s)
		requested int32
		want      []int // seconds
	}
	for _, tc := range []struct {
		name   string
		rounds []round
	}{
		{"first look times nothing, a later node is timed from its order", []round{
			{ready: map[string]int{"old": -100}, requested: 0},
			{orders: []order{{1, 10}}, ready: map[string]int{"old": -100}, requested: 1},
			{ready: map[string]int{"old": -100, "new": 85}, requested: 0, want: []int{75}},
			{ready: map[string]int{"old": -100, "new": 85}, requested: 0},
		}},
		{"two orders, nodes matched oldest order first by Ready time", []round{
			{ready: map[string]int{}, requested: 0},
			{orders: []order{{1, 0}, {2, 20}}, requested: 3},
			{ready: map[string]int{"b": 95, "a": 80}, requested: 1, want: []int{80, 75}},
			{ready: map[string]int{"a": 80, "b": 95, "c": 120}, requested: 0, want: []int{100}},
		}},
		{"a node Ready with no order on record is not timed", []round{
			{ready: map[string]int{}, requested: 0},
			{ready: map[string]int{"x": 30}, requested: 0},
		}},
		{"orders the cloud no longer delivers are dropped, the newest first", []round{
			{ready: map[string]int{}, requested: 0},
			{orders: []order{{1, 0}, {1, 50}}, requested: 2},
			{ready: map[string]int{}, requested: 1},
			{ready: map[string]int{"a": 90}, requested: 0, want: []int{90}},
		}},
		{"unknown cloud state keeps every order", []round{
			{ready: map[string]int{}, requested: 0},
			{orders: []order{{2, 0}}, requested: 2},
			{ready: map[string]int{}, requested: -1},
			{ready: map[string]int{"a": 70, "b": 71}, requested: 0, want: []int{70, 71}},
		}},
		{"a node Ready before its order counts 0", []round{
			{ready: map[string]int{}, requested: 0},
			{orders: []order{{1, 10}}, requested: 1},
			{ready: map[string]int{"a": 5}, requested: 0, want: []int{0}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rt readyTimer
			for i, r := range tc.rounds {
				ready := map[string]time.Time{}
				for n, s := range r.ready {
					ready[n] = at(s)
				}
				// As a round: the nodes are looked at, then the new orders made.
				got := rt.ready("c/g", ready, r.requested)
				for _, o := range r.orders {
					rt.ordered("c/g", o.n, at(o.at))
				}
				var want []time.Duration
				for _, s := range r.want {
					want = append(want, time.Duration(s)*time.Second)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("round %d: timed %v, want %v", i, got, want)
				}
			}
		})
	}
}
