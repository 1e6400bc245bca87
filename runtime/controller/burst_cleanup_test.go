package controller

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
)

func TestBurstCleanupPlan(t *testing.T) {
	web := []burstCleanupSource{{Name: "web", Annotated: true}}
	tests := []struct {
		name string
		in   burstCleanupInput
		want burstCleanupPlan
	}{
		{
			name: "a cluster with copies of live sources keeps them and syncs its propagated objects",
			in: burstCleanupInput{Sources: web, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, InStatus: true, Copies: map[string]int32{"web": 3}},
			}},
			want: burstCleanupPlan{Sync: []string{"eks"}},
		},
		{
			name: "a copy whose source is gone is deleted; the cluster, empty then, is cleaned",
			in: burstCleanupInput{Sources: web, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, InStatus: true, Copies: map[string]int32{"old": 2}},
			}},
			want: burstCleanupPlan{DeleteCopies: []burstCopyRef{{"eks", "old"}}, Clean: []string{"eks"}},
		},
		{
			name: "one source gone, one live: only the orphan copy goes, the cluster is synced",
			in: burstCleanupInput{Sources: web, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, Copies: map[string]int32{"old": 2, "web": 1}},
			}},
			want: burstCleanupPlan{DeleteCopies: []burstCopyRef{{"eks", "old"}}, Sync: []string{"eks"}},
		},
		{
			name: "an empty target neither in the status nor on the first sweep is left alone (nothing of HCA's can be there)",
			in: burstCleanupInput{Sources: web, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, Copies: map[string]int32{}},
			}},
			want: burstCleanupPlan{},
		},
		{
			name: "first sweep after a start: every empty reachable target is checked for leftovers",
			in: burstCleanupInput{FirstSweep: true, Sources: web, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, Copies: map[string]int32{}},
				{Name: "ack", Target: true, Reachable: false, Err: "connection refused"},
			}},
			want: burstCleanupPlan{Clean: []string{"eks"}},
		},
		{
			name: "a cluster no longer a target and empty is cleaned; an unreachable one is skipped",
			in: burstCleanupInput{Sources: web, Clusters: []burstCleanupCluster{
				{Name: "old", Target: false, Reachable: true, InStatus: true, Copies: map[string]int32{}},
				{Name: "ack", Target: true, Reachable: false, InStatus: true, Copies: map[string]int32{"orphan": 1}},
			}},
			want: burstCleanupPlan{Clean: []string{"old"}},
		},
		{
			name: "deleted policy: blocked while a cluster that still exists is unreachable, nothing else done",
			in: burstCleanupInput{Deleting: true, Sources: web, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, Copies: map[string]int32{"web": 2}},
				{Name: "ack", Target: true, Reachable: false, Err: "dial tcp: connection refused"},
			}},
			want: burstCleanupPlan{Blocked: []string{"ack: dial tcp: connection refused"}},
		},
		{
			// 2 replicas in eks and 3 in ack go back to web: 2 + 3 = 5; the
			// HybridCluster "gone" is deleted, so nothing is done there and it
			// does not block.
			name: "deleted policy: replicas restored first, every copy deleted, every cluster cleaned, finalized",
			in: burstCleanupInput{Deleting: true, Sources: []burstCleanupSource{{Name: "web", Annotated: true}, {Name: "api"}}, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, Copies: map[string]int32{"web": 2}},
				{Name: "ack", Target: true, Reachable: true, Copies: map[string]int32{"web": 3}},
				{Name: "gone", Gone: true, Err: "not found", Copies: map[string]int32{}},
			}},
			want: burstCleanupPlan{
				Restore:      []burstRestore{{Name: "web", Add: 5}},
				DeleteCopies: []burstCopyRef{{"ack", "web"}, {"eks", "web"}},
				Clean:        []string{"ack", "eks"},
				Finalize:     true,
			},
		},
		{
			name: "deleted policy whose source was never scaled by HCA (no annotations, no copies): nothing to restore",
			in: burstCleanupInput{Deleting: true, Sources: []burstCleanupSource{{Name: "web"}}, Clusters: []burstCleanupCluster{
				{Name: "eks", Target: true, Reachable: true, Copies: map[string]int32{}},
			}},
			want: burstCleanupPlan{Clean: []string{"eks"}, Finalize: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := burstCleanupPlanFor(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("plan\n got  %+v\n want %+v", got, tt.want)
			}
		})
	}
}

func FuzzBurstCleanupPlan(f *testing.F) {
	f.Add(true, false, true, false, true, int32(3), "web", "web")
	f.Add(false, true, false, true, false, int32(0), "web", "old")
	f.Fuzz(func(t *testing.T, deleting, firstSweep, reachable, gone, target bool, replicas int32, source, copyName string) {
		in := burstCleanupInput{Deleting: deleting, FirstSweep: firstSweep, Sources: []burstCleanupSource{{Name: source, Annotated: true}},
			Clusters: []burstCleanupCluster{{Name: "b", Target: target, Reachable: reachable, Gone: gone, Copies: map[string]int32{copyName: replicas}}}}
		p := burstCleanupPlanFor(in)
		if len(p.Blocked) > 0 && (len(p.DeleteCopies) > 0 || len(p.Clean) > 0 || p.Finalize || len(p.Restore) > 0) {
			t.Fatalf("a blocked plan acts: %+v", p)
		}
		for _, ref := range p.DeleteCopies {
			if !deleting && ref.Name == source {
				t.Fatalf("the copy of a live source is deleted: %+v", p)
			}
		}
		if p.Finalize != (deleting && len(p.Blocked) == 0) {
			t.Fatalf("finalize %v for deleting=%v blocked=%v", p.Finalize, deleting, p.Blocked)
		}
		if !reachable && !deleting && (len(p.DeleteCopies) > 0 || len(p.Clean) > 0 || len(p.Sync) > 0) {
			t.Fatalf("acts on an unreachable cluster: %+v", p)
		}
	})
}

// TestBurstCleanupInputStale: a policy deleted while a failed-over cluster
// still holds its stale copy gives back only the replicas of the healthy
// cluster (the stale ones were replaced already) and still deletes the stale
// copy.
func TestBurstCleanupInputStale(t *testing.T) {
	p := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	src := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{BurstTotalAnnotation: "6"}}}
	cp := func(n int32) map[string]*appsv1.Deployment {
		return map[string]*appsv1.Deployment{"web": {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: &n}}}
	}
	views := []*burstView{
		{name: "down", target: &hcav1.BurstTargetCluster{Cluster: "down"}, copies: cp(2), failover: scaling.FailoverDecision{Mode: scaling.FailoverStale}},
		{name: "eks", target: &hcav1.BurstTargetCluster{Cluster: "eks"}, copies: cp(2)},
	}
	r := &BurstReconciler{swept: map[types.UID]bool{}}
	plan := burstCleanupPlanFor(r.cleanupInput(p, []*appsv1.Deployment{src}, views, true))
	if want := []burstRestore{{Name: "web", Add: 2}}; !reflect.DeepEqual(plan.Restore, want) {
		t.Errorf("restore %+v, want %+v (eks's 2 only)", plan.Restore, want)
	}
	if want := []burstCopyRef{{Cluster: "down", Name: "web"}, {Cluster: "eks", Name: "web"}}; !reflect.DeepEqual(plan.DeleteCopies, want) {
		t.Errorf("delete copies %+v, want %+v", plan.DeleteCopies, want)
	}
}
