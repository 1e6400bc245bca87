package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// Defaults of BurstOptions and of BurstPolicy fields the API server did not
// default (objects created before the CRD had a default).
const (
	DefaultBurstPendingThreshold = 5 * time.Second
	DefaultBurstClusterTimeout   = 5 * time.Second
	// burstUnreachableRecheck is how often a policy with an unreachable
	// burst cluster is reconciled at least (the grace period may end, the
	// cluster may answer again).
	burstUnreachableRecheck = 10 * time.Second
)

// DefaultBurstConcurrency is how many policies are reconciled at once. A
// round waits on API servers and Prometheus far more than it computes, so
// 1,000 policies of 15 s (67 rounds a second) need a few dozen in flight:
// with 4, make bench-load evaluated a tenth of them in time.
const DefaultBurstConcurrency = 32

// BurstOptions are what the burst controller needs besides the control cluster's
// client.
type BurstOptions struct {
	// Members reaches the burst clusters (required).
	Members *Members
	// Consul publishes replicas for policies with spec.consul; nil leaves them
	// unregistered (the Ready condition says so).
	Consul *catalog.Publisher
	// Metrics is the metric source for spec.metrics; nil: the total replica
	// count follows the primary Deployment's replicas (whoever scales it).
	Metrics metrics.Source
	// Clock is read for every decision (nil: the real clock).
	Clock clock.PassiveClock
	// Recorder emits Kubernetes Events (nil: the manager's, "hca-burst").
	Recorder events.EventRecorder
	// MetricsInterval is how often metrics are evaluated per target (0: the
	// algorithm's decision interval, policy.DecisionInterval).
	MetricsInterval time.Duration
	// ClusterTimeout bounds each round of calls to one burst cluster.
	ClusterTimeout time.Duration
	// MaxConcurrentReconciles (default DefaultBurstConcurrency).
	MaxConcurrentReconciles int
	// APIReader reads without a cache (nil: the manager's GetAPIReader()).
	APIReader client.Reader
	// Telemetry counts decisions and errors and exports replicas per cluster
	// (nil: none).
	Telemetry *telemetry.Metrics
	// Class shards policies between runtimes: this controller only handles
	// the BurstPolicies whose ClassLabel equals it (the default "": those
	// without the label), like the SLO controllers. Tests and canary runtimes
	// use it to run beside a deployed runtime.
	Class string
	// StatusHeartbeat bounds how long a round may leave the policy's status
	// unwritten when only the figures in its condition messages changed (a
	// utilisation read again, burstStatusDue); anything else is written at
	// once. 0: DefaultBurstStatusHeartbeat.
	StatusHeartbeat time.Duration
	// CapacityInterval is the capacity controller's round, part of the
	// derived node horizon (0: DefaultCapacityInterval).
	CapacityInterval time.Duration
}

// DefaultBurstStatusHeartbeat is the default StatusHeartbeat, the SLO
// controller's and the kubelet's node status heartbeat: make bench-load's
// 1,000 policies wrote their status 26 times a second, almost all for a new
// utilisation figure in the MetricsAvailable message.
const DefaultBurstStatusHeartbeat = DefaultSLOStatusHeartbeat

// BurstReconciler runs BurstPolicies: it bursts the target's Unschedulable pods
// from the primary (control) cluster into burst clusters and brings them back
// when load falls or room returns.
//
// Inputs: a BurstPolicy, its target Deployments and their pods in the primary,
// the primary's nodes, the HybridClusters of its burst targets, the SLO's
// BurstElasticityStrategy driving it (if any) and metrics. Outputs: the
// primary Deployments' replicas (and two annotations recording what it
// wrote), Deployment copies and the objects they need in burst clusters,
// Consul registrations, the policy's status and Events.
//
// A round is get -> decide -> patch, each part a helper of its own:
// burstViewLoader reads the burst clusters, burstTotals decides the total
// from metrics or the SLO, burstDecide (pure) plans the replicas per cluster,
// memberObjects ensures objects in burst clusters (one generic ensureObject),
// burstCleanupPlanFor (pure) decides what to remove and executeCleanup
// removes it, burstPublisher publishes to Consul, memberWatches wakes the
// policy on burst pods' changes. The state lives in the clusters (labels on
// created objects, annotations on the primary Deployment, the status), never
// only in memory.
//
// Its permissions in the control cluster are in rbac.go; in burst clusters it
// needs, through the HybridCluster credentials: namespaces
// get/list/watch/create/delete; deployments get/list/watch/create/update/delete;
// configmaps, secrets and services get/list/create/update/delete;
// deployments/scale patch; pods list/watch/patch; nodes list/watch. Without
// the watches a round reads the cluster instead of memberWatches' informers.
//
// Spot interruptions (burst_spot.go, decided by interruption.Decide): replicas
// on a burst cluster's node under a spot interruption notice are replaced
// first (the copy surges by their count, recorded in
// BurstSpotSurgeAnnotation) and removed once the replacements are Ready (their
// pod-deletion-cost makes the ReplicaSet take exactly those).
type BurstReconciler struct {
	client client.Client
	// reader reads what decisions depend on (the policy, the primary
	// Deployments) from the API server, never from a cache that may not yet
	// show the controller's own last write.
	reader client.Reader
	// fresh reads them from the cache when it shows the controller's last
	// write or read of them, through reader otherwise (burstFreshReader);
	// every write of them is noted. The writes are conditional besides: the
	// policy's status and finalizer patches carry its resourceVersion, the
	// primary patch tests spec.replicas and the controller's annotations as
	// read (burstPrimaryPatch).
	fresh *burstFreshReader
	opts  BurstOptions
	clock clock.PassiveClock

	views     burstViewLoader
	objects   memberObjects
	totals    *burstTotals
	publisher *burstPublisher // nil: no Consul client
	watches   *memberWatches

	mu    sync.Mutex
	swept map[types.UID]bool
	// stuck remembers, per policy, target and cluster, the replacements last
	// reported stuck, so that ReplacementsUnschedulable is emitted when the
	// count changes, not every round (Events only; no decision reads it).
	stuck map[string]int32
	// waiting holds, per policy UID and cluster, the not-ready clusters
	// already reported (one NamespaceTerminating Event per wait).
	waiting map[string]bool
	// exported holds, per policy (namespace/name), the clusters whose
	// replicas series it exports (exportReplicas).
	exported map[string]map[string]bool
	// statusAt holds, per policy UID, when its status was last written by
	// this process (burstStatusDue's heartbeat; empty after a restart, so
	// the first round writes whatever differs).
	statusAt map[types.UID]time.Time
}

// NewBurstReconciler returns the burst controller. c must be the manager's
// client (cached reads) of the primary (control) cluster.
func NewBurstReconciler(c client.Client, opts BurstOptions) *BurstReconciler {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.ClusterTimeout <= 0 {
		opts.ClusterTimeout = DefaultBurstClusterTimeout
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = DefaultBurstConcurrency
	}
	if opts.StatusHeartbeat <= 0 {
		opts.StatusHeartbeat = DefaultBurstStatusHeartbeat
	}
	r := &BurstReconciler{
		client: c, reader: opts.APIReader, opts: opts, clock: opts.Clock,
		views:   burstViewLoader{members: opts.Members, control: c, timeout: opts.ClusterTimeout},
		objects: memberObjects{primary: c, timeout: opts.ClusterTimeout},
		totals:  newBurstTotals(opts.Metrics, opts.MetricsInterval),
		swept:   map[types.UID]bool{},
		stuck:   map[string]int32{},
		waiting: map[string]bool{},

		exported: map[string]map[string]bool{},
		statusAt: map[types.UID]time.Time{},
	}
	r.totals.telemetry = opts.Telemetry
	if opts.Consul != nil {
		r.publisher = &burstPublisher{catalog: opts.Consul}
	}
	r.watches = newMemberWatches(r.podOwners, opts.Clock.Now)
	r.views.watches = r.watches
	r.objects.expect = r.watches.expect
	return r
}

// mine reports whether this controller handles p.
func (r *BurstReconciler) mine(p client.Object) bool {
	return p.GetLabels()[ClassLabel] == r.opts.Class
}

// SetupWithManager registers the controller: BurstPolicies, the Pods and
// Deployments of their targets, Nodes (room returning in the primary),
// HybridClusters, BurstElasticityStrategies, the propagated ConfigMaps, Secrets
// and Services, and the pods of the copies in burst clusters (memberWatches).
func (r *BurstReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.opts.Members == nil {
		return errors.New("burst controller: BurstOptions.Members is required")
	}
	if r.opts.Recorder == nil {
		r.opts.Recorder = mgr.GetEventRecorder("hca-burst")
	}
	if r.reader == nil {
		r.reader = mgr.GetAPIReader()
	}
	r.fresh = newBurstFreshReader(r.client, r.reader)
	if err := mgr.Add(r.watches); err != nil {
		return fmt.Errorf("burst controller: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("burstpolicy").
		For(&hcav1.BurstPolicy{}, builder.WithPredicates(burstPolicyPredicate(), predicate.NewPredicateFuncs(r.mine))).
		Watches(&corev1.Pod{}, r.podHandler()).
		Watches(&appsv1.Deployment{}, handler.EnqueueRequestsFromMapFunc(r.deploymentToPolicies)).
		Watches(&corev1.Node{}, r.nodeHandler()).
		Watches(&hcav1.HybridCluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToPolicies), builder.WithPredicates(burstClusterPredicate())).
		Watches(&hcav1.BurstElasticityStrategy{}, handler.EnqueueRequestsFromMapFunc(r.strategyToPolicy)).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.propagatedToPolicies)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.propagatedToPolicies)).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.propagatedToPolicies)).
		WatchesRawSource(source.Channel(r.watches.events, &handler.EnqueueRequestForObject{})).
		// A failed round retries with backoff capped at burstRetryMax, not
		// controller-runtime's 1000 s: after a 30 s Consul outage the policy
		// had failed often enough to wait minutes before publishing again,
		// with nothing else to wake it (probe-time updates do not).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.MaxConcurrentReconciles,
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, burstRetryMax)}).
		Complete(r)
}

// Reconcile is one get -> decide -> patch round for one BurstPolicy.
func (r *BurstReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var p hcav1.BurstPolicy
	if err := r.fresh.Get(ctx, req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			r.totals.forget(req.Namespace + "/" + req.Name + "/")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get burst policy %s: %w", req.NamespacedName, err)
	}
	if !r.mine(&p) {
		return ctrl.Result{}, nil
	}
	if !p.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &p)
	}
	if !controllerutil.ContainsFinalizer(&p, BurstFinalizer) {
		patch := client.MergeFromWithOptions(p.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(&p, BurstFinalizer)
		if err := r.client.Patch(ctx, &p, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("add finalizer to burst policy %s: %w", req.NamespacedName, err)
		}
		r.fresh.note(&p)
	}
	if _, ok := p.Annotations[LegacySLOOutputAnnotation]; ok {
		// Written by runtimes before the typed strategy; never read.
		raw := []byte(`{"metadata":{"annotations":{"` + LegacySLOOutputAnnotation + `":null}}}`)
		if err := r.client.Patch(ctx, &p, client.RawPatch(types.MergePatchType, raw)); err != nil {
			return ctrl.Result{}, fmt.Errorf("remove annotation %s from burst policy %s: %w", LegacySLOOutputAnnotation, req.NamespacedName, err)
		}
		r.fresh.note(&p)
		r.event(&p, nil, corev1.EventTypeNormal, "LegacyAnnotationRemoved", "Cleanup", "removed annotation %s: SLO outputs now come from BurstElasticityStrategy objects", LegacySLOOutputAnnotation)
	}
	return r.reconcile(ctx, &p)
}

func (r *BurstReconciler) reconcile(ctx context.Context, p *hcav1.BurstPolicy) (ctrl.Result, error) {
	now := r.clock.Now()
	deps, err := burstTargets(ctx, r.fresh, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	strategy, err := r.strategyFor(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	views := r.views.load(ctx, p, burstStatusClusters(p))
	for _, v := range views {
		if v.reachable() {
			r.watches.ensure(v.name, v.member)
		}
	}
	burstFailovers(p, views, now)
	for _, v := range views {
		if tm := r.opts.Telemetry; tm != nil && v.target != nil {
			// The series exists at 0 before the first failover, so that
			// increase() and rate() (and the dashboard's Failovers panel)
			// see that one too.
			tm.Failovers.WithLabelValues(p.Namespace+"/"+p.Name, v.name).Add(0)
		}
		if v.failover.Moved > 0 {
			r.event(p, nil, corev1.EventTypeWarning, "FailedOver", "Failover",
				"burst cluster %s unreachable since %s (longer than failoverAfter %v): %d replicas written off and placed again elsewhere; its stale replicas are removed when it answers",
				v.name, v.failover.State.UnreachableSince.UTC().Format(time.RFC3339), burstFailoverAfter(p), v.failover.Moved)
			log.FromContext(ctx).Info("burst failover", "policy", client.ObjectKeyFromObject(p), "cluster", v.name, "replicas", v.failover.Moved, "error", fmt.Sprint(v.err))
			if tm := r.opts.Telemetry; tm != nil {
				tm.Failovers.WithLabelValues(p.Namespace+"/"+p.Name, v.name).Inc()
			}
		}
	}

	var results []*burstTargetResult
	var errs []error
	var primaryPods []corev1.Pod
	for _, d := range deps {
		res := r.reconcileTarget(ctx, p, d, views, strategy, now)
		if res.err != nil {
			errs = append(errs, res.err)
		}
		results = append(results, res)
		primaryPods = append(primaryPods, res.pods...)
	}
	plan := burstCleanupPlanFor(r.cleanupInput(p, deps, views, false))
	if err := r.executeCleanup(ctx, p, deps, views, plan); err != nil {
		errs = append(errs, err)
	}
	r.reportNotReady(p, views, burstSkippedNotReady(results))
	consulErr := r.publisher.sync(ctx, p, primaryPods, views)
	if consulErr != nil {
		errs = append(errs, consulErr)
	}

	res := ctrl.Result{}
	for _, v := range views {
		// Unreachable clusters are looked at again soon: the grace period
		// ends, or they answer again (stale copies to remove).
		wait := v.failover.RequeueAfter
		if !v.reachable() && !v.gone && (wait == 0 || wait > burstUnreachableRecheck) {
			wait = burstUnreachableRecheck
		}
		if v.reachable() && !v.nsDeleting.IsZero() {
			wait = burstNotReadyRecheck(now.Sub(v.nsDeleting)) // not an error: no backoff storm
		}
		if wait > 0 && (res.RequeueAfter == 0 || wait < res.RequeueAfter) {
			res.RequeueAfter = wait
		}
	}
	for _, t := range results {
		if t.plan.RequeueAfter > 0 && (res.RequeueAfter == 0 || t.plan.RequeueAfter < res.RequeueAfter) {
			res.RequeueAfter = t.plan.RequeueAfter
		}
		if t.metrics != nil && t.metrics.next > 0 {
			if wait := metricsRequeue(t.metrics.next, r.clock.Since(now)); res.RequeueAfter == 0 || wait < res.RequeueAfter {
				res.RequeueAfter = wait
			}
		}
	}
	if err := r.patchStatus(ctx, p, deps, views, results, consulErr, now); err != nil {
		errs = append(errs, err)
	}
	if err := r.patchStrategyStatus(ctx, p, strategy, results); err != nil {
		errs = append(errs, err)
	}
	if tm := r.opts.Telemetry; tm != nil {
		r.exportReplicas(tm.Replicas, p)
		if len(errs) > 0 {
			tm.Errors.WithLabelValues("burst", "reconcile").Inc()
		}
	}
	if err := errors.Join(errs...); err != nil {
		log.FromContext(ctx).Info("burst policy reconciled with errors", "policy", client.ObjectKeyFromObject(p), "error", err.Error())
		// The error requeues with backoff, sooner than any RequeueAfter;
		// controller-runtime ignores (and warns about) a result beside it.
		return ctrl.Result{}, err
	}
	return res, nil
}

// burstRetryMax bounds the backoff of a policy whose round failed (a
// Consul, cluster or API error): it is retried at least this often.
const burstRetryMax = 10 * time.Second

// exportReplicas sets the policy's replicas per cluster (the status's) and
// deletes the series of the clusters it no longer lists, by their exact
// labels: a DeletePartialMatch per round scans every series of every policy
// (9 % of the runtime's CPU in make bench-load's profile).
func (r *BurstReconciler) exportReplicas(g *prometheus.GaugeVec, p *hcav1.BurstPolicy) {
	key := p.Namespace + "/" + p.Name
	now := map[string]bool{}
	for _, c := range p.Status.Replicas {
		now[string(c.Cluster)] = true
		g.WithLabelValues(key, string(c.Cluster)).Set(float64(c.Desired))
	}
	r.mu.Lock()
	before := r.exported[key]
	r.exported[key] = now
	r.mu.Unlock()
	for c := range before {
		if !now[c] {
			g.DeleteLabelValues(key, c)
		}
	}
}

// reportNotReady emits one Warning NamespaceTerminating Event when a burst
// cluster of p starts to wait for its namespace to be deleted while
// placement wants it (skipped, from burstSkippedNotReady; not one per
// round), and forgets the wait when it is over. A namespace the runtime
// deletes itself, after the last copy there went, is no wait.
func (r *BurstReconciler) reportNotReady(p *hcav1.BurstPolicy, views []*burstView, skipped map[string]bool) {
	for _, v := range views {
		key := string(p.UID) + "/" + v.name
		why := ""
		if v.reachable() && skipped[v.name] {
			why = v.notReady(p.Namespace)
		}
		r.mu.Lock()
		seen := r.waiting[key]
		if why == "" {
			delete(r.waiting, key)
		} else {
			r.waiting[key] = true
		}
		r.mu.Unlock()
		if why != "" && !seen {
			r.event(p, nil, corev1.EventTypeWarning, BurstReasonNamespaceTerminating, "Burst",
				"burst cluster %s is not ready: %s; no replicas are placed there until it is gone", v.name, why)
		}
	}
}

// metricsRequeue is when to reconcile again for the next metrics evaluation:
// next was counted from the round's start, and the round took elapsed (cluster
// reads, writes, the queue), so waiting next again would make every interval
// late by a round's duration and the lateness add up. An evaluation already
// due is requeued at once (1 ms: a zero RequeueAfter means no requeue). It is
// pure.
func metricsRequeue(next, elapsed time.Duration) time.Duration {
	return max(next-elapsed, time.Millisecond)
}

// burstSkippedNotReady names the burst clusters placement skipped this
// round because they were not ready.
func burstSkippedNotReady(results []*burstTargetResult) map[string]bool {
	out := map[string]bool{}
	for _, t := range results {
		for _, s := range t.plan.Skipped {
			if s.Reason == scaling.SkipNotReady {
				out[s.Target] = true
			}
		}
	}
	return out
}

// firstSweep reports whether this is the first round for p since the
// controller started (and marks it done).
func (r *BurstReconciler) firstSweep(p *hcav1.BurstPolicy) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.swept[p.UID] {
		return false
	}
	r.swept[p.UID] = true
	return true
}

// cleanupInput is what burstCleanupPlanFor needs of a round.
func (r *BurstReconciler) cleanupInput(p *hcav1.BurstPolicy, deps []*appsv1.Deployment, views []*burstView, deleting bool) burstCleanupInput {
	in := burstCleanupInput{Deleting: deleting}
	if !deleting {
		in.FirstSweep = r.firstSweep(p)
	}
	for _, d := range deps {
		_, annotated := d.Annotations[BurstTotalAnnotation]
		in.Sources = append(in.Sources, burstCleanupSource{Name: d.Name, Annotated: annotated})
	}
	for _, v := range views {
		c := burstCleanupCluster{Name: v.name, Target: v.target != nil, Reachable: v.reachable(), Gone: v.gone,
			InStatus: burstStatusHas(p, v.name), Copies: map[string]int32{}}
		if v.err != nil {
			c.Err = v.err.Error()
		}
		for name := range v.copies {
			c.Copies[name] = burstCopyNeed(v, name) // a spot surge is not given back
			if v.failover.Mode == scaling.FailoverStale {
				c.Copies[name] = 0 // written off and replaced: nothing to give back
			}
		}
		in.Clusters = append(in.Clusters, c)
	}
	return in
}

func (r *BurstReconciler) event(p *hcav1.BurstPolicy, related *appsv1.Deployment, kind, reason, action, format string, args ...any) {
	if r.opts.Recorder == nil {
		return
	}
	if related != nil {
		r.opts.Recorder.Eventf(p, related, kind, reason, action, format, args...)
		return
	}
	r.opts.Recorder.Eventf(p, nil, kind, reason, action, format, args...)
}

// burstSelectorOf returns a Deployment's pod selector (nothing on error).
func burstSelectorOf(d *appsv1.Deployment) labels.Selector {
	s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return labels.Nothing()
	}
	return s
}
