package capacity

import (
	"fmt"
	"testing"
	"time"
)

// FuzzRelease: no panic, and what Release gives back is only Ready empty
// nodes of known groups that are not growing, empty for at least their
// delay, each once, never taking a group below Min (nodes in flight count).
func FuzzRelease(f *testing.F) {
	// Seeds from TestRelease's shapes: one group past its delay, one at Min,
	// one growing, a node not yet past its delay.
	f.Add(int32(3), int32(0), int32(1), int64(600), []byte{1, 1, 200, 0, 1, 1, 50, 1, 0, 1, 255, 2})
	f.Add(int32(1), int32(1), int32(1), int64(0), []byte{1, 1, 0, 0})
	f.Add(int32(5), int32(2), int32(2), int64(-5), []byte{})
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ready, requested, minN int32, delaySec int64, raw []byte) {
		groups := []Group{
			{Cluster: "c", Name: "a", Min: minN, Ready: ready, Requested: requested},
			{Cluster: "c", Name: "b", Min: minN / 2, Ready: ready / 2, Requested: 0},
		}
		delay := map[string]time.Duration{"c/a": time.Duration(delaySec%100000) * time.Second}
		growing := []Growth{{Cluster: "c", Group: "g", Nodes: 1}}
		var nodes []Node
		for i := 0; i+3 <= len(raw) && len(nodes) < 40; i += 3 {
			b := raw[i : i+3]
			nodes = append(nodes, Node{Cluster: "c", Group: []string{"a", "b", "g", "x"}[b[0]%4], Name: fmt.Sprintf("n%02d", len(nodes)),
				Ready: b[1]%3 != 0, Empty: b[1]%2 == 1, EmptySince: now.Add(-time.Duration(b[2]) * time.Minute)})
		}
		out, next := Release(now, groups, nodes, delay, growing)
		if next < 0 {
			t.Fatalf("next %v < 0", next)
		}
		byName := map[string]Node{}
		for _, n := range nodes {
			byName[n.Name] = n
		}
		removed := map[string]int32{}
		seen := map[string]bool{}
		for _, r := range out {
			n, ok := byName[r.Node]
			if !ok || seen[r.Node] || r.Group != n.Group {
				t.Fatalf("removal %+v: unknown, repeated or of another group", r)
			}
			seen[r.Node] = true
			if !n.Ready || !n.Empty || n.Group == "g" || n.Group == "x" {
				t.Fatalf("removal %+v of node %+v: not Ready and empty, or growing or unknown group", r, n)
			}
			d, ok := delay["c/"+n.Group]
			if !ok {
				d = DefaultScaleDownDelay
			}
			if now.Sub(n.EmptySince) < d {
				t.Fatalf("removal of %+v empty for %v, under the delay %v", n, now.Sub(n.EmptySince), d)
			}
			removed[n.Group]++
		}
		for _, g := range groups {
			if size := g.Ready + g.Requested; removed[g.Name] > 0 && size-removed[g.Name] < g.Min {
				t.Fatalf("group %s: size %d - %d removed < min %d", g.Name, size, removed[g.Name], g.Min)
			}
		}
	})
}
