package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// burstExpectTTL bounds how long a write waits to show in a burst cluster's
// informer before the informer is trusted again (a watch that far behind is
// re-listed by client-go anyway; the ReplicaSet controller's expectations
// wait 5 minutes for the same reason).
const burstExpectTTL = 30 * time.Second

// burstExpectations remembers the controller's own writes of Deployment
// copies in burst clusters until each cluster's informer shows them, the
// ReplicaSet controller's "expectations" for the burst view: a round that
// reads a store still showing a copy as it was before the controller's last
// write decides from a state that is gone, and no write of that round is
// sure to fail on it (a failed-over cluster's stale copy, scaled to 0 by
// one round, seen again at 2 by the next, was counted as healthy and the
// replicas moved back into it: TestBurstFailoverLab on a busy CI machine).
// While a write is not in the store, the view is read from the cluster
// (burstViewLoader.loadOne). Input: the writes (wrote, deleted); output: met.
type burstExpectations struct {
	now func() time.Time

	mu sync.Mutex
	m  map[string]map[types.NamespacedName]burstExpect // by cluster
}

// burstExpect is what a cluster's store must show of one object.
type burstExpect struct {
	uid types.UID
	// before is the object's resourceVersion before the write ("" a
	// create): the store must hold uid at another version.
	before string
	// gone: the object was deleted; the store must not hold uid.
	gone bool
	at   time.Time
}

func newBurstExpectations(now func() time.Time) *burstExpectations {
	return &burstExpectations{now: now, m: map[string]map[types.NamespacedName]burstExpect{}}
}

func (e *burstExpectations) put(cluster string, obj client.Object, x burstExpect) {
	if e == nil || obj.GetUID() == "" {
		return
	}
	x.uid, x.at = obj.GetUID(), e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m[cluster] == nil {
		e.m[cluster] = map[types.NamespacedName]burstExpect{}
	}
	e.m[cluster][types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}] = x
}

// wrote records that obj (its UID) was created (before "") or changed from
// resourceVersion before in cluster.
func (e *burstExpectations) wrote(cluster string, obj client.Object, before string) {
	e.put(cluster, obj, burstExpect{before: before})
}

// deleted records that obj was deleted from cluster.
func (e *burstExpectations) deleted(cluster string, obj client.Object) {
	e.put(cluster, obj, burstExpect{gone: true})
}

// met reports whether cluster's store, read through get (the UID and
// resourceVersion it holds for a namespace/name; ok false: none), shows
// every write recorded in namespace; the writes it shows, and those older
// than burstExpectTTL, are forgotten.
func (e *burstExpectations) met(cluster, namespace string, get func(types.NamespacedName) (uid types.UID, rv string, ok bool)) bool {
	if e == nil {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	all := true
	now := e.now()
	for key, x := range e.m[cluster] {
		if key.Namespace != namespace {
			continue
		}
		uid, rv, ok := get(key)
		held := ok && uid == x.uid
		shown := x.gone && !held || !x.gone && held && (x.before == "" || rv != x.before)
		if shown || now.Sub(x.at) >= burstExpectTTL {
			delete(e.m[cluster], key)
			continue
		}
		all = false
	}
	if len(e.m[cluster]) == 0 {
		delete(e.m, cluster)
	}
	return all
}
