package emulator

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/capacity"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// DefaultNodeBootDelay is how long a node asked of an emulator (EKS managed node
// group, ACK node pool) takes from the API call to a Ready kwok Node. Published
// figures for Linux nodes of managed node groups are about one minute from the
// instance launch to kubelet Ready, plus the Auto Scaling group's own reaction:
// Karpenter's documentation and AWS's re:Invent talks quote 45-60 s for a node to
// join and become Ready once launched; AWS's EKS best-practices guide (cluster
// autoscaling, "scale-up latency") counts "about a minute" for the instance and
// kubelet; Alibaba Cloud documents ACK node pool scale-out as taking "about 1 to 3
// minutes" (Container Service for Kubernetes, "Scale a node pool"). 75 s sits in
// the middle of the 60-90 s those figures give for a node requested through the
// cloud API.
const DefaultNodeBootDelay = lab.DefaultNodeBootDelay

// DefaultSpotNotice is the warning EC2 gives before it reclaims a Spot Instance
// (the "two-minute Spot Instance interruption notice", Amazon EC2 User Guide,
// "Spot Instance interruption notices").
const DefaultSpotNotice = capacity.DefaultSpotNotice

// DefaultACKSpotNotice is the warning ECS gives before it releases a
// preemptible (spot) instance: the interruption event comes about 5 minutes
// ahead (Elastic Compute Service documentation, "Spot instances": "an
// interruption event ... 5 minutes before the instance is released").
const DefaultACKSpotNotice = 5 * time.Minute

// SpotInterruptionTaint is the taint the lab puts on a spot node under notice:
// the key AWS Node Termination Handler uses when it taints a node for a Spot
// interruption (aws-node-termination-handler, "taintNode": key
// aws-node-termination-handler/spot-itn, effect NoSchedule). NTH also cordons the
// node; the lab does too, and does not drain it: moving replicas is the job of
// the runtime under test. The node and its pods are deleted when the notice runs
// out.
const SpotInterruptionTaint = "aws-node-termination-handler/spot-itn"

// Why a fleet cannot launch a node.
const (
	launchQuota      = "VcpuLimitExceeded"
	launchNoCapacity = "InsufficientInstanceCapacity"
	launchFailed     = "NodeCreationFailure"
)

type fleetKey struct{ cluster, pool string } // lab cluster and lab pool names

// launchIssue is why a pool's nodes are not coming.
type launchIssue struct {
	kind  string // launchQuota, launchNoCapacity, launchFailed
	limit int    // the quota, for launchQuota
	err   string // for launchFailed
}

type fleetPool struct {
	key          fleetKey
	shape        lab.NodePool // Count unused
	capacityType string       // ON_DEMAND or SPOT
	instanceType string
	vcpus        int // per node
	desired      int
	ready        map[string]bool        // Ready in the lab cluster
	removing     map[string]bool        // chosen for removal, being deleted
	booting      map[string]*time.Timer // requested, not yet Ready
	joining      map[string]bool        // booting nodes whose boot delay is over: in the cluster, waited on until Ready
	noticed      map[string]bool        // under a spot interruption notice
	next         int                    // index of the next node's name
	boot         time.Duration          // boot delay of its nodes
	providerID   func(node string) string
	issue        *launchIssue
	removed      bool
}

// fleet keeps each emulated node group at its desired size the way an Auto
// Scaling group does: every node it adds boots on its own timer, nodes it cannot
// launch (vCPU quota, no capacity for the instance type) are retried whenever
// something changes, and a smaller desired size removes booting nodes first
// (not those already joining the cluster), then Ready nodes, empty ones first.
// That last rule is a lab simplification: a real Auto Scaling group picks the instances to terminate by its termination policy
// (Availability Zone balance, oldest launch template, then closest to the next
// billing hour), not by what runs on them.
type fleet struct {
	clusters Clusters
	boot     time.Duration
	notice   time.Duration
	logf     func(format string, args ...any)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	pools map[fleetKey]*fleetPool
	quota map[string]int  // vCPUs per capacity type; absent: unlimited
	short map[string]bool // instance types without capacity
}

func newFleet(clusters Clusters, boot, notice time.Duration, logf func(string, ...any)) *fleet {
	f := &fleet{clusters: clusters, boot: boot, notice: notice, logf: logf,
		pools: map[fleetKey]*fleetPool{}, quota: map[string]int{}, short: map[string]bool{}}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	return f
}

// close stops every timer and waits for node operations in flight.
func (f *fleet) close() {
	f.cancel()
	f.mu.Lock()
	for _, p := range f.pools {
		f.stopBootsLocked(p)
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// poolSpec is what a fleet needs to know of a node group.
type poolSpec struct {
	shape        lab.NodePool // for nodes added from now on (Count unused)
	capacityType string       // ON_DEMAND or SPOT
	instanceType string
	vcpus        int // per node
	desired      int
	// boot, when set, replaces the fleet's boot delay for this pool (the lab
	// tag LabBootDelayTag).
	boot *time.Duration
	// existing names nodes that are Ready already (created with their cluster).
	existing []string
	// providerID, when set, gives each node it boots its spec.providerID.
	providerID func(node string) string
}

// LabBootDelayTag is a tag of an EKS node group (or an ACK cluster) whose value,
// a Go duration ("1s", "0s"), replaces the emulator's node boot delay for it: how
// a test on the shared lab shortens the delay for its own node groups only.
const LabBootDelayTag = "hca.dev/lab-node-boot-delay"

// bootFromTag parses LabBootDelayTag's value (nil when absent or invalid).
func bootFromTag(tags map[string]string) *time.Duration {
	v, ok := tags[LabBootDelayTag]
	if !ok {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return nil
	}
	return &d
}

// stopBootsLocked cancels every boot of a pool; a boot already under way
// deletes the node it creates.
func (f *fleet) stopBootsLocked(p *fleetPool) {
	for name, t := range p.booting {
		if t.Stop() {
			f.wg.Done()
		}
		delete(p.booting, name)
		delete(p.joining, name)
	}
}

// set creates or resizes a pool.
func (f *fleet) set(key fleetKey, spec poolSpec) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pools[key]
	if p == nil {
		p = &fleetPool{key: key, ready: map[string]bool{}, removing: map[string]bool{}, booting: map[string]*time.Timer{}, joining: map[string]bool{}, noticed: map[string]bool{}}
		f.pools[key] = p
	}
	for _, n := range spec.existing {
		p.ready[n] = true
		p.next = max(p.next, nodeIndex(n)+1)
	}
	p.shape, p.capacityType, p.instanceType, p.vcpus, p.desired = spec.shape, spec.capacityType, spec.instanceType, spec.vcpus, spec.desired
	p.boot = f.boot
	p.providerID = spec.providerID
	if spec.boot != nil {
		p.boot = *spec.boot
	}
	f.reconcileAllLocked()
}

// removeNodes removes the named nodes of a pool and lowers its desired size by
// as many, as ACK's RemoveNodePoolNodes and DeleteClusterNodes do. It returns
// the names that are not Ready nodes of the pool.
func (f *fleet) removeNodes(key fleetKey, names []string) (unknown []string) {
	return f.terminate(key, names, true)
}

// readyNodes lists a pool's Ready nodes that are not being removed.
func (f *fleet) readyNodes(key fleetKey) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pools[key]
	if p == nil {
		return nil
	}
	var out []string
	for n := range p.ready {
		if !p.removing[n] {
			out = append(out, n)
		}
	}
	return out
}

// terminate removes the named Ready nodes of a pool; with decrement its
// desired size drops by as many, else the pool boots replacements (Auto
// Scaling's TerminateInstanceInAutoScalingGroup). It returns the names that
// are not Ready nodes of the pool, and then removes none.
func (f *fleet) terminate(key fleetKey, names []string, decrement bool) (unknown []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pools[key]
	var victims []string
	for _, n := range names {
		if p == nil || !p.ready[n] || p.removing[n] {
			unknown = append(unknown, n)
			continue
		}
		victims = append(victims, n)
	}
	if len(unknown) > 0 {
		return unknown
	}
	for _, v := range victims {
		p.removing[v] = true
	}
	if decrement {
		p.desired -= len(victims)
	} else {
		f.reconcileLocked(p)
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.deleteNodes(f.ctx, p, victims)
	}()
	return nil
}

// deleteNodes deletes nodes marked removing, then reconciles every pool.
func (f *fleet) deleteNodes(ctx context.Context, p *fleetPool, victims []string) {
	for _, v := range victims {
		err := f.clusters.DeleteNode(ctx, p.key.cluster, v)
		f.mu.Lock()
		delete(p.removing, v)
		if err == nil {
			delete(p.ready, v)
			delete(p.noticed, v)
		} else {
			f.logf("pool %s/%s: remove node %s: %v", p.key.cluster, p.key.pool, v, err)
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	f.reconcileAllLocked()
	f.mu.Unlock()
}

// poolOf returns the pool key a Ready node belongs to.
func (f *fleet) poolOf(cluster, node string) (fleetKey, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, p := range f.pools {
		if k.cluster == cluster && p.ready[node] {
			return k, true
		}
	}
	return fleetKey{}, false
}

// poolStatus is what the emulators report of a pool.
type poolStatus struct {
	desired, ready, booting int
	issue                   *launchIssue
	found                   bool
}

func (f *fleet) status(key fleetKey) poolStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pools[key]
	if p == nil {
		return poolStatus{}
	}
	var issue *launchIssue
	if p.issue != nil {
		c := *p.issue
		issue = &c
	}
	return poolStatus{desired: p.desired, ready: len(p.ready) - len(p.removing), booting: len(p.booting), issue: issue, found: true}
}

// setQuota sets the account's vCPU limit for a capacity type (0: unlimited).
func (f *fleet) setQuota(capacityType string, vcpus int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if vcpus <= 0 {
		delete(f.quota, capacityType)
	} else {
		f.quota[capacityType] = vcpus
	}
	f.reconcileAllLocked()
}

// setShort makes launches of an instance type fail for lack of capacity (or
// succeed again), as EC2's InsufficientInstanceCapacity.
func (f *fleet) setShort(instanceType string, short bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if short {
		f.short[instanceType] = true
	} else {
		delete(f.short, instanceType)
	}
	f.reconcileAllLocked()
}

// vcpusInUseLocked counts the vCPUs of every node of a capacity type that is
// running or booting, as EC2 counts them against the quota.
func (f *fleet) vcpusInUseLocked(capacityType string) int {
	n := 0
	for _, p := range f.pools {
		if p.capacityType == capacityType && !p.removed {
			n += p.vcpus * (len(p.ready) + len(p.booting))
		}
	}
	return n
}

// reconcileAllLocked reconciles every pool: freed quota or restored capacity
// lets waiting pools launch, as an Auto Scaling group retries its launches.
func (f *fleet) reconcileAllLocked() {
	keys := make([]fleetKey, 0, len(f.pools))
	for k := range f.pools {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].cluster != keys[j].cluster {
			return keys[i].cluster < keys[j].cluster
		}
		return keys[i].pool < keys[j].pool
	})
	for _, k := range keys {
		f.reconcileLocked(f.pools[k])
	}
}

func (f *fleet) reconcileLocked(p *fleetPool) {
	if p.removed || f.ctx.Err() != nil {
		return
	}
	have := len(p.ready) - len(p.removing) + len(p.booting)
	if have >= p.desired {
		p.issue = nil
	}
	for ; have < p.desired; have++ {
		if q, ok := f.quota[p.capacityType]; ok && f.vcpusInUseLocked(p.capacityType)+p.vcpus > q {
			p.issue = &launchIssue{kind: launchQuota, limit: q}
			return
		}
		if f.short[p.instanceType] {
			p.issue = &launchIssue{kind: launchNoCapacity}
			return
		}
		if p.issue != nil && p.issue.kind != launchFailed { // a failed join stays reported until a node joins
			p.issue = nil
		}
		name := fmt.Sprintf("%s-%s-%d", p.key.cluster, p.key.pool, p.next)
		p.next++
		f.wg.Add(1)
		p.booting[name] = time.AfterFunc(p.boot, func() { f.bootNode(p, name) })
	}
	excess := have - p.desired
	// Booting nodes go first, newest first: their instances do no work yet.
	// A node already joining is in the cluster and may run pods: it finishes
	// joining and is then weighed with the Ready nodes.
	var waiting []string
	for name := range p.booting {
		if !p.joining[name] {
			waiting = append(waiting, name)
		}
	}
	slices.SortFunc(waiting, func(a, b string) int { return compareNodeNames(b, a) })
	for _, name := range waiting[:min(excess, len(waiting))] {
		if p.booting[name].Stop() {
			f.wg.Done()
		}
		delete(p.booting, name) // a boot whose timer just fired sees this and adds no node
		excess--
	}
	if excess > 0 && len(p.joining) == 0 {
		f.wg.Add(1)
		go f.shrink(p, excess)
	}
	// With a node joining, the shrink waits: bootNode reconciles once it has
	// joined, and the shrink then chooses among all the nodes by their pods.
}

// bootNode runs when a node's boot delay is over: the node joins the cluster.
func (f *fleet) bootNode(p *fleetPool, name string) {
	defer f.wg.Done()
	f.mu.Lock()
	_, wanted := p.booting[name]
	shape := p.shape
	if p.providerID != nil {
		shape.ProviderID = p.providerID(name)
	}
	if wanted {
		p.joining[name] = true
	}
	f.mu.Unlock()
	if !wanted {
		return
	}
	ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
	defer cancel()
	err := f.clusters.AddNode(ctx, p.key.cluster, shape, name)

	f.mu.Lock()
	defer f.mu.Unlock()
	_, wanted = p.booting[name]
	delete(p.booting, name)
	delete(p.joining, name)
	switch {
	case err != nil:
		f.logf("node %s of pool %s/%s failed to join: %v", name, p.key.cluster, p.key.pool, err)
		p.issue = &launchIssue{kind: launchFailed, err: err.Error()}
		wanted = false
	case wanted && !p.removed:
		p.ready[name] = true
		if p.issue != nil && p.issue.kind == launchFailed {
			p.issue = nil
		}
	}
	if !wanted || p.removed {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			_ = f.clusters.DeleteNode(context.Background(), p.key.cluster, name)
		}()
	}
	if f.ctx.Err() == nil {
		f.reconcileAllLocked()
	}
}

// shrink removes n Ready nodes of a pool: nodes under a spot notice first, then
// the ones running the fewest pods, then the newest.
func (f *fleet) shrink(p *fleetPool, n int) {
	defer f.wg.Done()
	ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
	defer cancel()
	nodes, err := f.clusters.PoolNodes(ctx, p.key.cluster, p.key.pool)
	if err != nil {
		f.logf("pool %s/%s: list nodes to remove: %v", p.key.cluster, p.key.pool, err)
		return
	}
	pods := map[string]int{}
	for _, nd := range nodes {
		pods[nd.Name] = nd.Pods
	}
	f.mu.Lock()
	var cands []string
	for name := range p.ready {
		if !p.removing[name] {
			cands = append(cands, name)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if p.noticed[a] != p.noticed[b] {
			return p.noticed[a]
		}
		if pods[a] != pods[b] {
			return pods[a] < pods[b]
		}
		return compareNodeNames(a, b) > 0
	})
	// Recount under the lock: the desired size may have changed meanwhile.
	excess := len(p.ready) - len(p.removing) + len(p.booting) - p.desired
	victims := cands[:max(0, min(n, excess, len(cands)))]
	for _, v := range victims {
		p.removing[v] = true
	}
	f.mu.Unlock()
	f.deleteNodes(ctx, p, victims)
}

// remove deletes a pool and all its nodes.
func (f *fleet) remove(ctx context.Context, key fleetKey) error {
	f.mu.Lock()
	p := f.pools[key]
	if p != nil {
		p.removed = true
		f.stopBootsLocked(p)
	}
	f.mu.Unlock()
	if err := f.clusters.SetNodePool(ctx, key.cluster, lab.NodePool{Name: key.pool}); err != nil {
		return err
	}
	f.mu.Lock()
	if f.pools[key] == p {
		delete(f.pools, key)
	}
	f.reconcileAllLocked()
	f.mu.Unlock()
	return nil
}

// forget drops the pools of a lab cluster (the cluster is being deleted).
func (f *fleet) forget(cluster string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, p := range f.pools {
		if k.cluster == cluster {
			p.removed = true
			f.stopBootsLocked(p)
			delete(f.pools, k)
		}
	}
}

// waitSettled waits until a pool has its desired Ready nodes or cannot launch.
func (f *fleet) waitSettled(ctx context.Context, key fleetKey) (poolStatus, error) {
	for {
		st := f.status(key)
		if !st.found || st.ready >= st.desired || st.issue != nil {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// interruptError is a refusal of interrupt: the request names no spot node.
type interruptError struct{ msg string }

func (e interruptError) Error() string { return e.msg }

// interrupt gives a spot node its interruption notice: the node is tainted and
// cordoned now, deleted when the notice runs out, and its pool then launches a
// replacement (after the boot delay) as the Auto Scaling group does.
func (f *fleet) interrupt(ctx context.Context, cluster, node string) (time.Duration, error) {
	f.mu.Lock()
	var p *fleetPool
	for k, cand := range f.pools {
		if k.cluster == cluster && cand.ready[node] {
			p = cand
		}
	}
	switch {
	case p == nil:
		f.mu.Unlock()
		return 0, interruptError{fmt.Sprintf("node %q is not a Ready node of a node group of lab cluster %s", node, cluster)}
	case p.capacityType != "SPOT":
		f.mu.Unlock()
		return 0, interruptError{fmt.Sprintf("node %q belongs to an %s node group: only Spot nodes get interruption notices", node, p.capacityType)}
	case p.noticed[node]:
		f.mu.Unlock()
		return f.notice, nil
	}
	p.noticed[node] = true
	f.mu.Unlock()
	taint := lab.Taint{Key: SpotInterruptionTaint, Value: "spot-itn-" + time.Now().UTC().Format("20060102T150405Z"), Effect: "NoSchedule"}
	if err := f.clusters.TaintNode(ctx, cluster, node, taint, true); err != nil {
		f.mu.Lock()
		delete(p.noticed, node)
		f.mu.Unlock()
		return 0, err
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		select {
		case <-f.ctx.Done():
			return
		case <-time.After(f.notice):
		}
		f.mu.Lock()
		if !p.ready[node] || p.removing[node] {
			f.mu.Unlock()
			return // removed meanwhile
		}
		p.removing[node] = true
		f.mu.Unlock()
		err := f.clusters.DeleteNode(f.ctx, cluster, node)
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(p.removing, node)
		if err != nil {
			f.logf("spot interruption of node %s: delete: %v", node, err)
			return
		}
		delete(p.ready, node)
		delete(p.noticed, node)
		f.reconcileAllLocked()
	}()
	return f.notice, nil
}

// compareNodeNames orders "<prefix>-<index>" names by index (newer is greater).
func compareNodeNames(a, b string) int {
	ia, ib := nodeIndex(a), nodeIndex(b)
	if ia != ib {
		return ia - ib
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func nodeIndex(name string) int {
	n, mul := 0, 1
	for i := len(name) - 1; i >= 0 && name[i] >= '0' && name[i] <= '9'; i-- {
		n += int(name[i]-'0') * mul
		mul *= 10
	}
	return n
}
