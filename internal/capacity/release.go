package capacity

import (
	"fmt"
	"sort"
	"time"
)

// Node is one node of a group, as the caller observed it.
type Node struct {
	Cluster, Group, Name string
	Ready                bool
	// Empty: no workload pod runs on the node (DaemonSet and mirror pods do
	// not count); EmptySince is since when (the zero time: unknown, which
	// counts as just now).
	Empty      bool
	EmptySince time.Time
}

// Removal is a node to release, and why.
type Removal struct {
	Cluster, Group, Node string
	Reason               string
}

// Release picks the nodes to give back at now: Ready nodes empty for at
// least delay (per group, "cluster/group" -> delay; missing:
// DefaultScaleDownDelay), longest-empty first, never taking a group below
// its Min, never in a group listed in growing (it is being grown: its empty
// nodes are about to be used). It also returns, per group, when the next
// node becomes releasable (for the caller's requeue), zero if none.
func Release(now time.Time, groups []Group, nodes []Node, delay map[string]time.Duration, growing []Growth) ([]Removal, time.Duration) {
	grow := map[string]bool{}
	for _, g := range growing {
		grow[g.Cluster+"/"+g.Group] = true
	}
	byGroup := map[string]*Group{}
	for i := range groups {
		byGroup[groups[i].Cluster+"/"+groups[i].Name] = &groups[i]
	}
	delayOf := func(key string) time.Duration {
		if d, ok := delay[key]; ok {
			return d
		}
		return DefaultScaleDownDelay
	}
	candidates := map[string][]Node{}
	var next time.Duration
	for _, n := range nodes {
		key := n.Cluster + "/" + n.Group
		g := byGroup[key]
		if g == nil || grow[key] || !n.Ready || !n.Empty {
			continue
		}
		since := n.EmptySince
		if since.IsZero() {
			since = now
		}
		if wait := since.Add(delayOf(key)).Sub(now); wait > 0 {
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		candidates[key] = append(candidates[key], n)
	}
	var out []Removal
	keys := make([]string, 0, len(candidates))
	for k := range candidates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		g := byGroup[key]
		list := candidates[key]
		sort.SliceStable(list, func(a, b int) bool {
			if !list[a].EmptySince.Equal(list[b].EmptySince) {
				return list[a].EmptySince.Before(list[b].EmptySince)
			}
			return list[a].Name < list[b].Name
		})
		// The group's size after the release stays >= Min; nodes in flight
		// count toward the size.
		size := g.Ready + g.Requested
		for _, n := range list {
			if size <= g.Min {
				break
			}
			out = append(out, Removal{Cluster: n.Cluster, Group: n.Group, Node: n.Name,
				Reason: fmt.Sprintf("empty since %s (longer than the scale-down delay of %v)", n.EmptySince.UTC().Format(time.RFC3339), delayOf(key))})
			size--
		}
	}
	return out, next
}
