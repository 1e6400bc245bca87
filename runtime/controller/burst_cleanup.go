package controller

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// This file is the burst controller's cleanup decision, beside burstDecide: a
// pure function of what a round observed, executed by
// BurstReconciler.executeCleanup.

// burstCleanupCluster is what cleanup knows of one burst cluster.
type burstCleanupCluster struct {
	Name string
	// Target: the cluster is still in spec.burstTargets.
	Target bool
	// Reachable: it answered this round; Gone: its HybridCluster is deleted
	// (nothing can be cleaned there). Err says why it is unreachable.
	Reachable, Gone bool
	Err             string
	// InStatus: the policy's status lists the cluster.
	InStatus bool
	// Copies are the policy's Deployment copies there: name -> replicas.
	Copies map[string]int32
}

// burstCleanupSource is one primary Deployment the policy targets.
type burstCleanupSource struct {
	Name string
	// Annotated: the controller's annotations are on it.
	Annotated bool
}

// burstCleanupInput is what the cleanup decision needs.
type burstCleanupInput struct {
	// Deleting: the policy is being deleted (finalizer path).
	Deleting bool
	// FirstSweep: the first round for the policy since the runtime started:
	// every reachable target is checked for leftovers (objects created just
	// before a crash, before the status recorded them).
	FirstSweep bool
	Sources    []burstCleanupSource
	Clusters   []burstCleanupCluster
}

// burstCopyRef names one Deployment copy in one cluster.
type burstCopyRef struct{ Cluster, Name string }

// burstRestore returns a deleted policy's burst replicas to one primary
// Deployment: replicas += Add, and the controller's annotations go.
type burstRestore struct {
	Name string
	Add  int32
}

// burstCleanupPlan is what to remove, in order: Restore (replicas back in the
// primary first, so that capacity never drops), DeleteCopies, then Sync or
// Clean per cluster, then the primary's Consul registration and the finalizer.
type burstCleanupPlan struct {
	// Blocked are the clusters a deleted policy must reach before it can be
	// finalised (unreachable, not deleted), with why. Nothing else is done
	// while any is blocked.
	Blocked []string
	// Restore, only when the policy is deleted.
	Restore []burstRestore
	// DeleteCopies: copies whose source is gone or no longer a target, or all
	// of them when the policy is deleted.
	DeleteCopies []burstCopyRef
	// Sync: clusters that keep copies; their propagated objects are synced.
	Sync []string
	// Clean: clusters left without copies: propagated objects, the namespace
	// HCA created and the Consul registration are removed. Only clusters that
	// may hold something are listed: no longer targets, listed in the
	// status, or on the first sweep.
	Clean []string
	// Finalize: remove the primary's Consul registration and the finalizer.
	Finalize bool
}

// burstCleanupPlanFor decides what a round removes.
func burstCleanupPlanFor(in burstCleanupInput) burstCleanupPlan {
	var plan burstCleanupPlan
	clusters := slices.Clone(in.Clusters)
	sort.SliceStable(clusters, func(i, j int) bool { return clusters[i].Name < clusters[j].Name })
	sources := map[string]bool{}
	for _, s := range in.Sources {
		sources[s.Name] = true
	}
	if in.Deleting {
		for _, c := range clusters {
			if !c.Reachable && !c.Gone {
				plan.Blocked = append(plan.Blocked, fmt.Sprintf("%s: %s", c.Name, c.Err))
			}
		}
		if len(plan.Blocked) > 0 {
			return plan
		}
		for _, s := range in.Sources {
			var back int32
			for _, c := range clusters {
				back += c.Copies[s.Name]
			}
			if s.Annotated || back > 0 {
				plan.Restore = append(plan.Restore, burstRestore{Name: s.Name, Add: back})
			}
		}
		for _, c := range clusters {
			if c.Gone {
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(c.Copies)) {
				plan.DeleteCopies = append(plan.DeleteCopies, burstCopyRef{Cluster: c.Name, Name: name})
			}
			plan.Clean = append(plan.Clean, c.Name)
		}
		plan.Finalize = true
		return plan
	}
	for _, c := range clusters {
		if !c.Reachable {
			continue
		}
		left := 0
		for _, name := range slices.Sorted(maps.Keys(c.Copies)) {
			if sources[name] {
				left++
				continue
			}
			plan.DeleteCopies = append(plan.DeleteCopies, burstCopyRef{Cluster: c.Name, Name: name})
		}
		switch {
		case left > 0:
			plan.Sync = append(plan.Sync, c.Name)
		case !c.Target || in.FirstSweep || c.InStatus:
			plan.Clean = append(plan.Clean, c.Name)
		}
	}
	return plan
}
