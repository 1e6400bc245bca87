package controller

import (
	"context"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// burstFreshReader reads what a burst round's decisions depend on (the
// policy, its target Deployments) from the manager's cache when the cache is
// known to show the controller's own last write, and from the API server
// otherwise. It remembers, per object, the resourceVersion the controller last
// wrote (note, after every patch) or read from the API server; a cached copy
// at that version is what an API read would have returned the moment the
// controller wrote it, anything else (the cache behind a write, or a write by
// someone else) is read again from the API server. A calm round of a policy
// nobody else writes reads nothing from the API server (make bench-load: two
// GETs a round, 134 a second with 1,000 policies); a round right after the
// controller's own write never decides from the version before it (a failover
// counted twice, TestBurstFailoverLab).
type burstFreshReader struct {
	cache client.Reader
	api   client.Reader

	mu sync.Mutex
	rv map[types.UID]string
}

func newBurstFreshReader(cache, api client.Reader) *burstFreshReader {
	return &burstFreshReader{cache: cache, api: api, rv: map[types.UID]string{}}
}

// fresh reports whether obj, read from the cache, is at the version last
// noted for it.
func (f *burstFreshReader) fresh(obj client.Object) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	rv, ok := f.rv[obj.GetUID()]
	return ok && rv == obj.GetResourceVersion()
}

// note records obj's resourceVersion as the latest the controller knows
// (after it wrote obj or read it from the API server).
func (f *burstFreshReader) note(obj client.Object) {
	if f == nil || obj.GetUID() == "" || obj.GetResourceVersion() == "" {
		return
	}
	f.mu.Lock()
	f.rv[obj.GetUID()] = obj.GetResourceVersion()
	f.mu.Unlock()
}

// forget drops what is known of an object (deleted).
func (f *burstFreshReader) forget(uid types.UID) {
	if f == nil {
		return
	}
	f.mu.Lock()
	delete(f.rv, uid)
	f.mu.Unlock()
}

// Get reads obj from the cache if it is fresh there, else from the API
// server.
func (f *burstFreshReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if f.cache != nil {
		if err := f.cache.Get(ctx, key, obj, opts...); err == nil && f.fresh(obj) {
			return nil
		}
		zero(obj) // decoding into a filled object would keep what the API server's version lacks
	}
	if err := f.api.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	f.note(obj)
	return nil
}

// List lists from the cache if it finds items and every one is fresh there,
// else from the API server.
func (f *burstFreshReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if f.cache != nil {
		if err := f.cache.List(ctx, list, opts...); err == nil && meta.LenList(list) > 0 {
			all := true
			_ = meta.EachListItem(list, func(o runtime.Object) error {
				if co, ok := o.(client.Object); !ok || !f.fresh(co) {
					all = false
				}
				return nil
			})
			if all {
				return nil
			}
		}
		zero(list)
	}
	if err := f.api.List(ctx, list, opts...); err != nil {
		return err
	}
	return meta.EachListItem(list, func(o runtime.Object) error {
		if co, ok := o.(client.Object); ok {
			f.note(co)
		}
		return nil
	})
}

// zero resets what p points to.
func zero(p any) {
	v := reflect.ValueOf(p).Elem()
	v.Set(reflect.Zero(v.Type()))
}
