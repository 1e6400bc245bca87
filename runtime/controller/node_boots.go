package controller

import (
	"slices"
	"sync"
	"time"
)

// nodeBootsKept is how many boots NodeBoots keeps per node group: the
// recent ones, which the forecast horizon's 90th percentile is taken over.
const nodeBootsKept = 20

// NodeBoots holds the node boots (order to Ready) the capacity controller
// observed, per cluster and node group, for the burst controller's derived
// forecast horizon (policy.DeriveHorizons): the figures of
// hca_node_ready_duration_seconds, kept in memory (a restart starts
// without, and the default boot stands until a node is timed again). The
// zero value is ready; a nil *NodeBoots records and holds nothing.
type NodeBoots struct {
	mu    sync.Mutex
	boots map[string][]time.Duration
}

// add records a boot of a node of group in cluster.
func (b *NodeBoots) add(cluster, group string, d time.Duration) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.boots == nil {
		b.boots = map[string][]time.Duration{}
	}
	k := cluster + "/" + group
	s := append(b.boots[k], d)
	if len(s) > nodeBootsKept {
		s = slices.Clone(s[len(s)-nodeBootsKept:])
	}
	b.boots[k] = s
}

// of is the boots recorded for groups of cluster.
func (b *NodeBoots) of(cluster string, groups []string) []time.Duration {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []time.Duration
	for _, g := range groups {
		out = append(out, b.boots[cluster+"/"+g]...)
	}
	return out
}
