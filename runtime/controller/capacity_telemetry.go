package controller

import (
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeRecorder receives the capacity controller's orders to the cloud and the
// nodes they brought, for the runtime's metrics (telemetry.Metrics implements
// it).
type NodeRecorder interface {
	// NodeRequest records an order to grow group of cluster by nodes (err: it failed).
	NodeRequest(cluster, group string, nodes int32, err error)
	// NodeRelease records an order to shrink group of cluster (err: it failed).
	NodeRelease(cluster, group string, err error)
	// NodeReady records that a node ordered for group of cluster became
	// Ready d after the order.
	NodeReady(cluster, group string, d time.Duration)
}

// recordRequest and recordRelease are the capacity controller's one-line
// hooks; they do nothing without a recorder.
func (r *CapacityReconciler) recordRequest(cluster, group string, nodes int32, err error) {
	if r.Telemetry != nil {
		r.Telemetry.NodeRequest(cluster, group, nodes, err)
	}
}

func (r *CapacityReconciler) recordRelease(cluster, group string, err error) {
	if r.Telemetry != nil {
		r.Telemetry.NodeRelease(cluster, group, err)
	}
}

// recordReady reports, for each node of the group that became Ready since
// the last round, the time since the order that asked for it, to the
// telemetry and to the group's status.recentBoots (the burst controller's
// derived forecast horizon; nodeBootsKept of them, oldest first).
func (r *CapacityReconciler) recordReady(cluster string, g *capacityGroup, nodes []corev1.Node) {
	ready := map[string]time.Time{}
	for i := range nodes {
		n := &nodes[i]
		if inGroup(g.spec, n) && burstNodeReady(n) && n.DeletionTimestamp == nil {
			ready[n.Name] = readySince(n)
		}
	}
	requested := int32(-1) // the cloud's state unknown this round: keep every order
	if g.cloud.Status != "" {
		requested = g.status.RequestedNodes
	}
	for _, d := range r.readyTimer.ready(cluster+"/"+g.spec.Name, ready, requested) {
		if r.Telemetry != nil {
			r.Telemetry.NodeReady(cluster, g.spec.Name, d)
		}
		g.status.RecentBoots = append(g.status.RecentBoots, metav1.Duration{Duration: d.Round(time.Second)})
	}
	if n := len(g.status.RecentBoots); n > nodeBootsKept {
		g.status.RecentBoots = slices.Clone(g.status.RecentBoots[n-nodeBootsKept:])
	}
}

// nodeBootsKept is how many boots a node group's status.recentBoots keeps:
// the recent ones, which the forecast horizon's 90th percentile is taken
// over (the CRD's maxItems).
const nodeBootsKept = 20

// readySince is when a node's Ready condition last turned True (its creation
// when the condition has no time).
func readySince(n *corev1.Node) time.Time {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return n.CreationTimestamp.Time
}

// readyTimer matches the nodes that become Ready in a node group to the
// orders that asked for them, oldest order first (the cloud fills a group's
// desired size in order), for the node time-to-Ready histogram.
//
// It is the one thing the capacity controller remembers between rounds, and
// only for the metric: the orders of a previous runtime are unknown, so the
// nodes already Ready at a group's first round, and nodes that become Ready
// with no order on record, are not timed.
type readyTimer struct {
	mu sync.Mutex
	// orders holds, per cluster/group, one time per ordered node not yet
	// Ready, oldest first.
	orders map[string][]time.Time
	// seen holds, per cluster/group, the nodes already Ready at the last round.
	seen map[string]map[string]bool
}

// ordered notes an order of n nodes for key at.
func (t *readyTimer) ordered(key string, n int32, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.orders == nil {
		t.orders = map[string][]time.Time{}
	}
	for range max(n, 0) {
		t.orders[key] = append(t.orders[key], at)
	}
}

// ready takes the group's Ready nodes (name: Ready since) and the nodes still
// requested from the cloud (negative: unknown), and returns the time from its order to Ready of
// each node that became Ready since the last call. Orders beyond what the
// cloud still has to deliver (a desired size lowered, a launch given up) are
// dropped, the newest first.
func (t *readyTimer) ready(key string, ready map[string]time.Time, requested int32) []time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen == nil {
		t.seen = map[string]map[string]bool{}
	}
	seen, known := t.seen[key]
	now := map[string]bool{}
	var fresh []string
	for name := range ready {
		now[name] = true
		if known && !seen[name] {
			fresh = append(fresh, name)
		}
	}
	t.seen[key] = now
	slices.SortFunc(fresh, func(a, b string) int { return ready[a].Compare(ready[b]) })
	var out []time.Duration
	orders := t.orders[key]
	for _, name := range fresh {
		if len(orders) == 0 {
			break
		}
		out = append(out, max(ready[name].Sub(orders[0]), 0))
		orders = orders[1:]
	}
	if n := int(requested); requested >= 0 && len(orders) > n {
		orders = orders[:n]
	}
	if len(orders) == 0 {
		delete(t.orders, key)
	} else {
		t.orders[key] = orders
	}
	return out
}
