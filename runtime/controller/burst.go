package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/scaling"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// Defaults of BurstOptions and of BurstPolicy fields the API server did not
// default (objects created before the CRD had a default).
const (
	DefaultBurstPendingThreshold = 5 * time.Second
	DefaultBurstMetricsInterval  = 15 * time.Second
	DefaultBurstClusterTimeout   = 5 * time.Second
)

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
	// MetricsInterval is how often metrics are evaluated per target.
	MetricsInterval time.Duration
	// ClusterTimeout bounds each round of calls to one burst cluster.
	ClusterTimeout time.Duration
	// MaxConcurrentReconciles (default 4).
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
}

// mine reports whether this controller handles p.
func (r *BurstReconciler) mine(p client.Object) bool {
	return p.GetLabels()[ClassLabel] == r.opts.Class
}

// BurstReconciler runs BurstPolicies: it bursts the target's Unschedulable pods
// from the primary (control) cluster into burst clusters and brings them back
// when load falls or room returns. See burstDecide for the decision; the state
// lives in the clusters (labels on created objects, two annotations on the
// primary Deployment, the policy's status), never only in memory.
//
// Its permissions in the control cluster are in rbac.go; in burst clusters it
// needs, through the HybridCluster credentials: namespaces get/create/delete;
// deployments, configmaps, secrets and services get/list/create/update/delete;
// pods list/watch.
type BurstReconciler struct {
	client client.Client
	// reader reads what decisions depend on (the policy, the primary
	// Deployments) from the API server, never from a cache that may not yet
	// show the controller's own last write.
	reader client.Reader
	opts   BurstOptions
	clock  clock.PassiveClock

	// remote carries events from burst clusters' pod informers.
	remote chan event.GenericEvent

	mu      sync.Mutex
	baseCtx context.Context
	algos   map[string]*burstAlgoState
	// sloHistory holds, per policy and target, the recommendations of an
	// SLO's Burst strategy for its stabilisation windows (in memory, as the
	// HPA's: a restart starts afresh).
	sloHistory map[string][]slo.Recommendation
	watches    map[string]*burstMemberWatch
	swept      map[types.UID]bool
}

// NewBurstReconciler returns the burst controller. c must be the manager's
// client (cached reads) of the primary (control) cluster.
func NewBurstReconciler(c client.Client, opts BurstOptions) *BurstReconciler {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.MetricsInterval <= 0 {
		opts.MetricsInterval = DefaultBurstMetricsInterval
	}
	if opts.ClusterTimeout <= 0 {
		opts.ClusterTimeout = DefaultBurstClusterTimeout
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 4
	}
	return &BurstReconciler{
		client: c, reader: opts.APIReader, opts: opts, clock: opts.Clock,
		remote:     make(chan event.GenericEvent, 1024),
		algos:      map[string]*burstAlgoState{},
		sloHistory: map[string][]slo.Recommendation{},
		watches:    map[string]*burstMemberWatch{},
		swept:      map[types.UID]bool{},
	}
}

// SetupWithManager registers the controller: BurstPolicies, the Pods and
// Deployments of their targets, Nodes (room returning in the primary),
// HybridClusters, the propagated ConfigMaps, Secrets and Services, and the pods
// of the copies in burst clusters (through informers started per cluster).
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
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		r.mu.Lock()
		r.baseCtx = ctx
		r.mu.Unlock()
		<-ctx.Done()
		r.stopWatches()
		return nil
	})); err != nil {
		return fmt.Errorf("burst controller: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("burstpolicy").
		For(&hcav1.BurstPolicy{}, builder.WithPredicates(burstPolicyPredicate(), predicate.NewPredicateFuncs(r.mine))).
		Watches(&corev1.Pod{}, r.podHandler()).
		Watches(&appsv1.Deployment{}, handler.EnqueueRequestsFromMapFunc(r.deploymentToPolicies)).
		Watches(&corev1.Node{}, r.nodeHandler()).
		Watches(&hcav1.HybridCluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToPolicies)).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.propagatedToPolicies)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.propagatedToPolicies)).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.propagatedToPolicies)).
		WatchesRawSource(source.Channel(r.remote, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.MaxConcurrentReconciles}).
		Complete(r)
}

// Reconcile is one get -> decide -> patch round for one BurstPolicy.
func (r *BurstReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var p hcav1.BurstPolicy
	if err := r.reader.Get(ctx, req.NamespacedName, &p); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.Namespace + "/" + req.Name + "/")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get burst policy %s: %w", req.NamespacedName, err)
	}
	if !r.mine(&p) {
		return ctrl.Result{}, nil
	}
	if !p.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &p)
	}
	if !controllerutil.ContainsFinalizer(&p, BurstFinalizer) {
		patch := client.MergeFrom(p.DeepCopy())
		controllerutil.AddFinalizer(&p, BurstFinalizer)
		if err := r.client.Patch(ctx, &p, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("add finalizer to burst policy %s: %w", req.NamespacedName, err)
		}
	}
	return r.reconcile(ctx, &p)
}

// burstView is what the controller found in one burst cluster for a policy.
type burstView struct {
	name   string
	target *hcav1.BurstTargetCluster // nil: not (or no longer) a burst target
	// index is the position in spec.burstTargets (extra clusters come after).
	index  int
	hc     *hcav1.HybridCluster
	member *Member
	// err says why the cluster is unusable (unreachable, credentials).
	err error
	// gone: the HybridCluster no longer exists (nothing can be cleaned there).
	gone bool
	// copies are the policy's Deployment copies there, by name.
	copies map[string]*appsv1.Deployment
	// pods are the pods of those copies.
	pods []corev1.Pod
	// failed records clusters where a write failed in this round.
	failed bool
}

func (v *burstView) reachable() bool { return v.err == nil }

// burstTargetResult is the outcome of one target Deployment.
type burstTargetResult struct {
	dep      *appsv1.Deployment
	plan     burstPlan
	achieved map[string]int32 // replicas per burst cluster after the writes
	primary  int32
	pending  int32
	pods     []corev1.Pod // active primary pods
	metrics  *burstMetricOutcome
	// sloApplied is the SLO output this round applied ("" none).
	sloApplied string
	total      int32
	changed    bool
	err        error
	unplaced   int32
	threshold  time.Duration
}

func (r *BurstReconciler) reconcile(ctx context.Context, p *hcav1.BurstPolicy) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	now := r.clock.Now()
	deps, err := r.targets(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	views := r.loadViews(ctx, p, r.statusClusters(p))
	for _, v := range views {
		if v.reachable() {
			r.ensureWatch(v.name, v.member)
		}
	}

	var results []*burstTargetResult
	var errs []error
	for _, d := range deps {
		res := r.reconcileTarget(ctx, p, d, views, now)
		if res.err != nil {
			errs = append(errs, res.err)
		}
		results = append(results, res)
	}

	// Copies whose source is gone or no longer selected.
	names := map[string]bool{}
	for _, d := range deps {
		names[d.Name] = true
	}
	for _, v := range views {
		if !v.reachable() {
			continue
		}
		for name, c := range v.copies {
			if names[name] {
				continue
			}
			if err := r.deleteCopy(ctx, v, c); err != nil {
				errs = append(errs, err)
				continue
			}
			r.event(p, nil, corev1.EventTypeNormal, "CopyRemoved", "Cleanup", "deleted %s/%s in %s: its source is gone or no longer a target", c.Namespace, c.Name, v.name)
		}
	}

	// Propagated objects, namespaces and Consul in each burst cluster.
	sweep := r.firstSweep(p)
	for _, v := range views {
		if !v.reachable() {
			continue
		}
		if len(v.copies) > 0 {
			if err := r.syncPropagated(ctx, p, v); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if v.target == nil || sweep || r.statusHas(p, v.name) {
			if err := r.cleanupCluster(ctx, p, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	consulErr := r.syncConsul(ctx, p, views, results)
	if consulErr != nil {
		errs = append(errs, consulErr)
	}

	res := ctrl.Result{}
	for _, t := range results {
		if t.plan.RequeueAfter > 0 && (res.RequeueAfter == 0 || t.plan.RequeueAfter < res.RequeueAfter) {
			res.RequeueAfter = t.plan.RequeueAfter
		}
		if t.metrics != nil && t.metrics.next > 0 && (res.RequeueAfter == 0 || t.metrics.next < res.RequeueAfter) {
			res.RequeueAfter = t.metrics.next
		}
	}
	if err := r.patchStatus(ctx, p, deps, views, results, consulErr, now); err != nil {
		errs = append(errs, err)
	}
	if tm := r.opts.Telemetry; tm != nil {
		tm.Replicas.DeletePartialMatch(map[string]string{"policy": p.Namespace + "/" + p.Name})
		for _, c := range p.Status.Replicas {
			tm.Replicas.WithLabelValues(p.Namespace+"/"+p.Name, string(c.Cluster)).Set(float64(c.Desired))
		}
		if len(errs) > 0 {
			tm.Errors.WithLabelValues("burst", "reconcile").Inc()
		}
	}
	if err := errors.Join(errs...); err != nil {
		logger.Info("burst policy reconciled with errors", "policy", client.ObjectKeyFromObject(p), "error", err.Error())
		return res, err
	}
	return res, nil
}

// targets returns the primary Deployments the policy targets, sorted by name.
func (r *BurstReconciler) targets(ctx context.Context, p *hcav1.BurstPolicy) ([]*appsv1.Deployment, error) {
	if name := p.Spec.Target.DeploymentName; name != "" {
		var d appsv1.Deployment
		err := r.reader.Get(ctx, types.NamespacedName{Namespace: p.Namespace, Name: string(name)}, &d)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("get target deployment %s/%s: %w", p.Namespace, name, err)
		}
		if d.DeletionTimestamp != nil {
			return nil, nil
		}
		return []*appsv1.Deployment{&d}, nil
	}
	if len(p.Spec.Target.MatchLabels) == 0 {
		return nil, nil
	}
	var list appsv1.DeploymentList
	if err := r.reader.List(ctx, &list, client.InNamespace(p.Namespace), client.MatchingLabels(p.Spec.Target.MatchLabels)); err != nil {
		return nil, fmt.Errorf("list target deployments in %s: %w", p.Namespace, err)
	}
	var out []*appsv1.Deployment
	for i := range list.Items {
		d := &list.Items[i]
		if d.DeletionTimestamp != nil || d.Labels[BurstManagedByLabel] == BurstManagedBy {
			continue
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// statusClusters are the burst clusters the status lists (they may hold
// something even if no longer targets).
func (r *BurstReconciler) statusClusters(p *hcav1.BurstPolicy) []string {
	var out []string
	for _, c := range p.Status.Replicas {
		if c.Cluster != p.Spec.PrimaryCluster {
			out = append(out, string(c.Cluster))
		}
	}
	return out
}

func (r *BurstReconciler) statusHas(p *hcav1.BurstPolicy, cluster string) bool {
	for _, c := range p.Status.Replicas {
		if string(c.Cluster) == cluster {
			return true
		}
	}
	return false
}

// firstSweep reports whether this is the first round for p since the
// controller started: then every reachable target is checked for leftovers
// (objects created just before a crash, before the status recorded them).
func (r *BurstReconciler) firstSweep(p *hcav1.BurstPolicy) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.swept[p.UID] {
		return false
	}
	r.swept[p.UID] = true
	return true
}

// loadViews reads, in parallel, each burst target's and each extra cluster's
// copies and pods for p.
func (r *BurstReconciler) loadViews(ctx context.Context, p *hcav1.BurstPolicy, extra []string) []*burstView {
	var views []*burstView
	seen := map[string]bool{}
	for i := range p.Spec.BurstTargets {
		t := &p.Spec.BurstTargets[i]
		if seen[string(t.Cluster)] || t.Cluster == p.Spec.PrimaryCluster {
			continue
		}
		seen[string(t.Cluster)] = true
		views = append(views, &burstView{name: string(t.Cluster), target: t, index: min(i, 63)})
	}
	for _, name := range extra {
		if !seen[name] && name != string(p.Spec.PrimaryCluster) {
			seen[name] = true
			views = append(views, &burstView{name: name, index: 63})
		}
	}
	var wg sync.WaitGroup
	for _, v := range views {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loadView(ctx, p, v)
		}()
	}
	wg.Wait()
	return views
}

func (r *BurstReconciler) loadView(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) {
	m, err := r.opts.Members.Get(ctx, v.name)
	if err != nil {
		v.err = err
		var hc hcav1.HybridCluster
		if gerr := r.client.Get(ctx, types.NamespacedName{Name: v.name}, &hc); apierrors.IsNotFound(gerr) {
			v.gone = true
		}
		return
	}
	v.member, v.hc = m, m.Cluster
	cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
	defer cancel()
	sel := client.MatchingLabels{BurstPolicyLabel: burstLabelValue(p.Name)}
	var deps appsv1.DeploymentList
	if err := m.Client.List(cctx, &deps, client.InNamespace(p.Namespace), sel); err != nil {
		v.err = fmt.Errorf("list deployments in cluster %s: %w", v.name, err)
		return
	}
	v.copies = map[string]*appsv1.Deployment{}
	for i := range deps.Items {
		d := &deps.Items[i]
		if burstOwned(d, p.Name) && d.DeletionTimestamp == nil {
			v.copies[d.Name] = d
		}
	}
	var pods corev1.PodList
	if err := m.Client.List(cctx, &pods, client.InNamespace(p.Namespace), sel); err != nil {
		v.err = fmt.Errorf("list pods in cluster %s: %w", v.name, err)
		return
	}
	v.pods = pods.Items
}

// burstPlacementTarget converts a view into placement's view of a cluster.
func burstPlacementTarget(v *burstView, current int32, pod scaling.PodRequests) scaling.BurstTarget {
	t := scaling.BurstTarget{Name: v.name, Current: current, Reachable: v.reachable(), Weight: 1,
		FreeCPUMilli: math.MaxInt64 / 4, FreeMemoryBytes: math.MaxInt64 / 4}
	if v.target != nil {
		if v.target.Weight != nil {
			t.Weight = *v.target.Weight
		}
		if v.target.MaxReplicas != nil {
			t.MaxReplicas = *v.target.MaxReplicas
		}
	}
	if hc := v.hc; hc != nil {
		// Equal priorities keep the order of spec.burstTargets (at most 32).
		t.Priority = int(hc.Spec.Priority)*64 + 63 - v.index
		if pr := hc.Spec.Prices; pr != nil {
			t.PricePerVCPUHour, _ = pr.PerVCPUHour.Float64()
			t.PricePerGiBHour, _ = pr.PerGiBHour.Float64()
		}
		if hc.Status.Free != nil {
			// The prober's view; it counts the replicas already there as used.
			if q, ok := hc.Status.Free[corev1.ResourceCPU]; ok {
				t.FreeCPUMilli = q.MilliValue()
			}
			if q, ok := hc.Status.Free[corev1.ResourceMemory]; ok {
				t.FreeMemoryBytes = q.Value()
			}
		} else if l := hc.Spec.Limits; l != nil && l.MaxCPU != nil {
			t.FreeCPUMilli = max(0, l.MaxCPU.MilliValue()-int64(current)*pod.CPUMilli)
		}
		if l := hc.Spec.Limits; l != nil && l.MaxPods != nil && (t.MaxReplicas == 0 || *l.MaxPods < t.MaxReplicas) {
			t.MaxReplicas = *l.MaxPods
		}
	}
	return t
}

func burstInt32Annotation(d *appsv1.Deployment, key string) *int32 {
	s, ok := d.Annotations[key]
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return nil
	}
	v := int32(n)
	return &v
}

func (r *BurstReconciler) reconcileTarget(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, views []*burstView, now time.Time) *burstTargetResult {
	res := &burstTargetResult{dep: d}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		res.err = fmt.Errorf("deployment %s/%s has an invalid selector: %w", d.Namespace, d.Name, err)
		return res
	}
	var pods corev1.PodList
	if err := r.client.List(ctx, &pods, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		res.err = fmt.Errorf("list pods of %s/%s: %w", d.Namespace, d.Name, err)
		return res
	}
	threshold := DefaultBurstPendingThreshold
	if p.Spec.PendingThreshold != nil {
		threshold = p.Spec.PendingThreshold.Duration
	}
	res.threshold = threshold
	mode := scaling.PlacementMode(p.Spec.Placement)
	if mode == "" {
		mode = scaling.PlacementPriority
	}
	minR, maxR := max(p.Spec.MinReplicas, 1), p.Spec.MaxReplicas
	if maxR < minR {
		maxR = minR
	}
	req := burstPodRequests(&d.Spec.Template.Spec)
	in := burstInput{
		Now: now, Threshold: threshold, Min: minR, Max: maxR, Mode: mode, Pod: req,
		Primary:        string(p.Spec.PrimaryCluster),
		PrimarySpec:    burstPtrOr(d.Spec.Replicas, 1),
		PrimaryWritten: burstInt32Annotation(d, BurstPrimaryAnnotation),
		StoredTotal:    burstInt32Annotation(d, BurstTotalAnnotation),
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !burstPodActive(pod) {
			continue
		}
		res.pods = append(res.pods, *pod)
		scheduled, unsched, since := burstPodScheduling(pod)
		switch {
		case scheduled:
			in.Scheduled++
		case unsched:
			in.Unassigned++
			in.Unschedulable = append(in.Unschedulable, since)
		default:
			in.Unassigned++
		}
	}
	res.pending = int32(len(in.Unschedulable))

	var burstNow int32
	for _, v := range views {
		var cur int32
		if c := v.copies[d.Name]; c != nil {
			cur = burstPtrOr(c.Spec.Replicas, 1)
		} else if !v.reachable() {
			cur = r.statusReplicas(p, v.name) // best knowledge while unreachable
		}
		burstNow += cur
		t := burstPlacementTarget(v, cur, req)
		if v.target == nil || (v.target.MaxReplicas != nil && *v.target.MaxReplicas == 0) {
			in.Drain = append(in.Drain, t)
		} else {
			in.Targets = append(in.Targets, t)
		}
	}

	if len(in.Unschedulable) == 0 && in.Unassigned == 0 && burstNow > 0 {
		fit, err := r.primaryFit(ctx, &d.Spec.Template.Spec, req)
		if err != nil {
			res.err = err
			return res
		}
		in.PrimaryFit = fit
	}

	if mo, key := r.sloOutcome(p, d, in.PrimarySpec+burstNow, minR, maxR, now); mo != nil {
		// An SLO's Burst strategy drives the total (it wins over spec.metrics).
		res.metrics, res.sloApplied = mo, key
		in.TotalSource, in.AlgorithmTotal, in.AlgorithmReason = mo.source, mo.total, mo.reason
	} else if r.opts.Metrics != nil && len(p.Spec.Metrics) > 0 {
		mo := r.evaluateMetrics(ctx, p, d, res.pods, views, in.PrimarySpec, burstNow, now)
		res.metrics = mo
		in.TotalSource, in.AlgorithmTotal, in.AlgorithmReason, in.NoScaleDown = mo.source, mo.total, mo.reason, mo.noScaleDown
	}

	plan, err := burstDecide(in)
	if err != nil {
		res.err = fmt.Errorf("decide for %s/%s: %w", d.Namespace, d.Name, err)
		return res
	}
	res.plan = plan
	res.unplaced = plan.Unplaced
	r.apply(ctx, p, d, views, plan, res)
	return res
}

// statusReplicas is what the status last recorded for a cluster when the
// policy has a single target (with several, per-target counts are unknown).
func (r *BurstReconciler) statusReplicas(p *hcav1.BurstPolicy, cluster string) int32 {
	if p.Spec.Target.DeploymentName == "" {
		return 0
	}
	for _, c := range p.Status.Replicas {
		if string(c.Cluster) == cluster {
			return c.Desired
		}
	}
	return 0
}

func burstPtrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// primaryFit lists the primary's nodes and pods (from the cache) and estimates
// the room for more pods of spec.
func (r *BurstReconciler) primaryFit(ctx context.Context, spec *corev1.PodSpec, req scaling.PodRequests) (int32, error) {
	var nodes corev1.NodeList
	if err := r.client.List(ctx, &nodes); err != nil {
		return 0, fmt.Errorf("list nodes of the primary cluster: %w", err)
	}
	var pods corev1.PodList
	if err := r.client.List(ctx, &pods); err != nil {
		return 0, fmt.Errorf("list pods of the primary cluster: %w", err)
	}
	return burstPrimaryFit(spec, req, nodes.Items, pods.Items), nil
}

// apply writes a plan: first the burst clusters that grow (new capacity before
// the primary shrinks), then the primary Deployment (replicas and the two
// annotations, with optimistic locking), then the burst clusters that shrink.
// A crash between two writes leaves an excess or a deficit that the next
// decision repairs (burstDecide removes Unschedulable primary replicas first
// and burst replicas, most expensive first, next), never a duplicate. A burst
// cluster that fails to grow keeps its replicas in the primary.
func (r *BurstReconciler) apply(ctx context.Context, p *hcav1.BurstPolicy, d *appsv1.Deployment, views []*burstView, plan burstPlan, res *burstTargetResult) {
	res.achieved = map[string]int32{}
	primary := plan.Primary
	var errs []error
	current := func(v *burstView) int32 {
		if c := v.copies[d.Name]; c != nil {
			return burstPtrOr(c.Spec.Replicas, 1)
		}
		return 0
	}
	for _, v := range views {
		want, ok := plan.Burst[v.name]
		if !ok {
			continue
		}
		cur := current(v)
		res.achieved[v.name] = cur
		if !v.reachable() {
			res.achieved[v.name] = want // unknown; placement never adds to unreachable clusters
			continue
		}
		if want == 0 || want < cur {
			continue
		}
		desired := burstDeploymentCopy(d, p.Name, string(p.Spec.PrimaryCluster), want)
		if c := v.copies[d.Name]; c != nil && !burstDeploymentNeedsUpdate(desired, c) {
			continue
		}
		if err := r.ensureCopy(ctx, p, v, desired); err != nil {
			errs = append(errs, err)
			v.failed = true
			primary += want - cur // those replicas stay in the primary
			r.event(p, d, corev1.EventTypeWarning, "BurstFailed", "Burst", "could not place %d replicas of %s in %s: %v", want-cur, d.Name, v.name, err)
			continue
		}
		res.achieved[v.name] = want
		res.changed = res.changed || want != cur
	}

	total := primary
	for _, n := range res.achieved {
		total += n
	}
	res.total = plan.Total
	if err := r.patchPrimary(ctx, d, primary, plan.Total, res.sloApplied); err != nil {
		errs = append(errs, err)
		res.err = errors.Join(errs...)
		res.primary = burstPtrOr(d.Spec.Replicas, 1)
		return
	}
	res.primary = primary

	for _, v := range views {
		want, ok := plan.Burst[v.name]
		if !ok || !v.reachable() {
			continue
		}
		cur := current(v)
		if want >= cur {
			continue
		}
		c := v.copies[d.Name]
		if want == 0 {
			if err := r.deleteCopy(ctx, v, c); err != nil {
				errs = append(errs, err)
				v.failed = true
				continue
			}
			delete(v.copies, d.Name)
		} else {
			desired := burstDeploymentCopy(d, p.Name, string(p.Spec.PrimaryCluster), want)
			if err := r.ensureCopy(ctx, p, v, desired); err != nil {
				errs = append(errs, err)
				v.failed = true
				continue
			}
		}
		res.achieved[v.name] = want
		res.changed = true
	}
	if tm := r.opts.Telemetry; tm != nil {
		alg := "deployment"
		switch {
		case res.sloApplied != "":
			alg = "slo-burst"
		case res.metrics != nil:
			alg = string(p.Spec.Algorithm.Name)
		}
		for _, a := range plan.Actions {
			tm.Decisions.WithLabelValues(p.Namespace+"/"+p.Name, alg, a).Inc()
		}
	}
	if len(plan.Actions) > 0 {
		res.changed = true
		kind := corev1.EventTypeNormal
		if plan.Unplaced > 0 {
			kind = corev1.EventTypeWarning
		}
		r.event(p, d, kind, burstEventReason(plan.Actions), strings.Join(plan.Actions, ","), "%s/%s: %s (total %d: %s)", d.Namespace, d.Name, plan.Reason, plan.Total, burstDistribution(string(p.Spec.PrimaryCluster), primary, res.achieved))
	}
	res.err = errors.Join(errs...)
}

func burstEventReason(actions []string) string {
	switch {
	case slices.Contains(actions, "burst"):
		return "Burst"
	case slices.Contains(actions, "scale-down"):
		return "ScaleDown"
	case slices.Contains(actions, "move-back"):
		return "MoveBack"
	case slices.Contains(actions, "drain"):
		return "Drain"
	default:
		return "ScaleUp"
	}
}

// burstDistribution renders "private=6, b1=4".
func burstDistribution(primaryName string, primary int32, burst map[string]int32) string {
	parts := []string{fmt.Sprintf("%s=%d", primaryName, primary)}
	names := slices.Sorted(maps.Keys(burst))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s=%d", n, burst[n]))
	}
	return strings.Join(parts, ", ")
}

// patchPrimary sets the primary Deployment's replicas and the controller's
// annotations when they differ. The JSON patch tests that spec.replicas is
// still what the decision read, so a concurrent scale by someone else fails the
// patch and the round is retried (a resourceVersion precondition would also
// fail on every status update of the Deployment controller).
func (r *BurstReconciler) patchPrimary(ctx context.Context, d *appsv1.Deployment, replicas, total int32, sloApplied string) error {
	wantP, wantT := strconv.Itoa(int(replicas)), strconv.Itoa(int(total))
	_, annotated := d.Annotations[BurstTotalAnnotation]
	if sloApplied == "" && burstPtrOr(d.Spec.Replicas, 1) == replicas && (!annotated && replicas == total ||
		d.Annotations[BurstPrimaryAnnotation] == wantP && d.Annotations[BurstTotalAnnotation] == wantT) {
		return nil
	}
	ops := burstPrimaryPatch(d, replicas, total)
	if sloApplied != "" {
		if d.Annotations == nil {
			ops[len(ops)-1].Value.(map[string]string)[BurstSLOAppliedAnnotation] = sloApplied
		} else {
			ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/metadata/annotations/" + strings.ReplaceAll(BurstSLOAppliedAnnotation, "/", "~1"), Value: sloApplied})
		}
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encode patch of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	if err := r.client.Patch(ctx, d, client.RawPatch(types.JSONPatchType, raw)); err != nil {
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsConflict(err) {
			return fmt.Errorf("scale deployment %s/%s to %d: its replicas changed since they were read (retrying with the new value): %w", d.Namespace, d.Name, replicas, err)
		}
		return fmt.Errorf("scale deployment %s/%s to %d: %w", d.Namespace, d.Name, replicas, err)
	}
	return nil
}

// burstJSONPatchOp is one RFC 6902 operation.
type burstJSONPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// burstPrimaryPatch is the JSON patch that scales d from its current
// spec.replicas (tested) to replicas and records the controller's annotations.
func burstPrimaryPatch(d *appsv1.Deployment, replicas, total int32) []burstJSONPatchOp {
	esc := func(k string) string { return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") }
	ops := []burstJSONPatchOp{}
	if d.Spec.Replicas != nil {
		ops = append(ops, burstJSONPatchOp{Op: "test", Path: "/spec/replicas", Value: *d.Spec.Replicas})
	}
	ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/spec/replicas", Value: replicas})
	ann := map[string]string{BurstPrimaryAnnotation: strconv.Itoa(int(replicas)), BurstTotalAnnotation: strconv.Itoa(int(total))}
	if d.Annotations == nil {
		return append(ops, burstJSONPatchOp{Op: "add", Path: "/metadata/annotations", Value: ann})
	}
	for _, k := range []string{BurstPrimaryAnnotation, BurstTotalAnnotation} {
		ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/metadata/annotations/" + esc(k), Value: ann[k]})
	}
	return ops
}

// ensureNamespace creates the namespace in a burst cluster if it is missing,
// marked as created by HCA.
func (r *BurstReconciler) ensureNamespace(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) error {
	var ns corev1.Namespace
	err := v.member.Client.Get(ctx, types.NamespacedName{Name: p.Namespace}, &ns)
	if err == nil {
		if ns.DeletionTimestamp != nil {
			return fmt.Errorf("namespace %s in cluster %s is being deleted: retrying once it is gone", p.Namespace, v.name)
		}
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("get namespace %s in cluster %s: %w", p.Namespace, v.name, err)
	}
	ns = corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:        p.Namespace,
		Labels:      map[string]string{BurstManagedByLabel: BurstManagedBy, BurstCreatedNamespaceLabel: "true"},
		Annotations: map[string]string{BurstSourceAnnotation: string(p.Spec.PrimaryCluster) + "/" + p.Namespace},
	}}
	if err := v.member.Client.Create(ctx, &ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s in cluster %s: %w", p.Namespace, v.name, err)
	}
	return nil
}

// ensureCopy creates or updates the Deployment copy (namespace and propagated
// objects first, so the pods find them).
func (r *BurstReconciler) ensureCopy(ctx context.Context, p *hcav1.BurstPolicy, v *burstView, desired *appsv1.Deployment) error {
	cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
	defer cancel()
	actual := v.copies[desired.Name]
	if actual == nil {
		if err := r.ensureNamespace(cctx, p, v); err != nil {
			return err
		}
		if err := r.syncPropagated(cctx, p, v); err != nil {
			return err
		}
		obj := desired.DeepCopy()
		err := v.member.Client.Create(cctx, obj)
		if err == nil {
			v.copies[desired.Name] = obj
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create deployment %s/%s in cluster %s: %w", desired.Namespace, desired.Name, v.name, err)
		}
		var got appsv1.Deployment
		if err := v.member.Client.Get(cctx, client.ObjectKeyFromObject(desired), &got); err != nil {
			return fmt.Errorf("get deployment %s/%s in cluster %s: %w", desired.Namespace, desired.Name, v.name, err)
		}
		if !burstOwned(&got, p.Name) {
			return fmt.Errorf("cluster %s already has a deployment %s/%s that HCA did not create: rename one of them or remove the cluster from burstTargets", v.name, desired.Namespace, desired.Name)
		}
		actual = &got
	}
	upd := actual.DeepCopy()
	upd.Labels, upd.Annotations = desired.Labels, desired.Annotations
	upd.Spec = desired.Spec
	if err := v.member.Client.Update(cctx, upd); err != nil {
		return fmt.Errorf("update deployment %s/%s in cluster %s: %w", desired.Namespace, desired.Name, v.name, err)
	}
	v.copies[desired.Name] = upd
	return nil
}

func (r *BurstReconciler) deleteCopy(ctx context.Context, v *burstView, c *appsv1.Deployment) error {
	cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
	defer cancel()
	err := v.member.Client.Delete(cctx, c, client.PropagationPolicy(metav1.DeletePropagationBackground),
		client.Preconditions{UID: &c.UID})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete deployment %s/%s in cluster %s: %w", c.Namespace, c.Name, v.name, err)
	}
	delete(v.copies, c.Name)
	return nil
}

// burstPropagatedKinds are the list types of what spec.propagate copies.
func burstPropagatedLists() []client.ObjectList {
	return []client.ObjectList{&corev1.ConfigMapList{}, &corev1.SecretList{}, &corev1.ServiceList{}}
}

// desiredPropagated returns the copies of the objects spec.propagate selects in
// the primary.
func (r *BurstReconciler) desiredPropagated(ctx context.Context, p *hcav1.BurstPolicy) ([]client.Object, error) {
	pr := p.Spec.Propagate
	if pr == nil {
		return nil, nil
	}
	var out []client.Object
	add := func(sel *hcav1.ObjectSelector, list client.ObjectList) error {
		if sel == nil {
			return nil
		}
		if err := r.client.List(ctx, list, client.InNamespace(p.Namespace)); err != nil {
			return fmt.Errorf("list objects to propagate in %s: %w", p.Namespace, err)
		}
		return meta.EachListItem(list, func(o runtime.Object) error {
			obj := o.(client.Object)
			if obj.GetDeletionTimestamp() != nil || !burstSelected(sel, obj) {
				return nil
			}
			if c := burstPropagatedCopy(obj, p.Name); c != nil {
				out = append(out, c)
			}
			return nil
		})
	}
	if err := add(pr.ConfigMaps, &corev1.ConfigMapList{}); err != nil {
		return nil, err
	}
	if err := add(pr.Secrets, &corev1.SecretList{}); err != nil {
		return nil, err
	}
	if err := add(pr.Services, &corev1.ServiceList{}); err != nil {
		return nil, err
	}
	return out, nil
}

// actualPropagated lists what the controller propagated for p into v.
func (r *BurstReconciler) actualPropagated(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) ([]client.Object, error) {
	var out []client.Object
	for _, list := range burstPropagatedLists() {
		if err := v.member.Client.List(ctx, list, client.InNamespace(p.Namespace), client.MatchingLabels(burstOwnerLabels(p.Name))); err != nil {
			return nil, fmt.Errorf("list propagated objects in cluster %s: %w", v.name, err)
		}
		if err := meta.EachListItem(list, func(o runtime.Object) error {
			out = append(out, o.(client.Object))
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// syncPropagated makes v hold exactly the propagated copies spec.propagate
// selects: create, update and delete by diff. Objects of the same name that
// HCA did not create are left alone (and reported).
func (r *BurstReconciler) syncPropagated(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) error {
	desired, err := r.desiredPropagated(ctx, p)
	if err != nil {
		return err
	}
	actual, err := r.actualPropagated(ctx, p, v)
	if err != nil {
		return err
	}
	create, update, remove := burstObjectDiff(desired, actual)
	var errs []error
	for _, o := range create {
		err := v.member.Client.Create(ctx, o)
		if apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("cluster %s already has %T %s/%s that HCA did not create: it is not propagated", v.name, o, o.GetNamespace(), o.GetName()))
			continue
		}
		if apierrors.IsNotFound(err) { // namespace not there yet: ensureCopy creates it first
			if nerr := r.ensureNamespace(ctx, p, v); nerr != nil {
				errs = append(errs, nerr)
				continue
			}
			err = v.member.Client.Create(ctx, o)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("propagate %T %s/%s to cluster %s: %w", o, o.GetNamespace(), o.GetName(), v.name, err))
		}
	}
	for _, o := range update {
		cur := o.DeepCopyObject().(client.Object)
		if err := v.member.Client.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil {
			errs = append(errs, fmt.Errorf("get %T %s/%s in cluster %s: %w", o, o.GetNamespace(), o.GetName(), v.name, err))
			continue
		}
		o.SetResourceVersion(cur.GetResourceVersion())
		if svc, ok := o.(*corev1.Service); ok { // keep what the burst cluster allocated
			c := cur.(*corev1.Service)
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = c.Spec.ClusterIP, c.Spec.ClusterIPs
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = c.Spec.IPFamilies, c.Spec.IPFamilyPolicy
		}
		if err := v.member.Client.Update(ctx, o); err != nil {
			errs = append(errs, fmt.Errorf("update %T %s/%s in cluster %s: %w", o, o.GetNamespace(), o.GetName(), v.name, err))
		}
	}
	for _, o := range remove {
		if err := v.member.Client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %T %s/%s in cluster %s: %w", o, o.GetNamespace(), o.GetName(), v.name, err))
		}
	}
	return errors.Join(errs...)
}

// cleanupCluster removes what p created in a cluster that holds no copy of it
// any more: propagated objects, the namespace (only if HCA created it and no
// Deployment is left in it) and the Consul registration.
func (r *BurstReconciler) cleanupCluster(ctx context.Context, p *hcav1.BurstPolicy, v *burstView) error {
	cctx, cancel := context.WithTimeout(ctx, r.opts.ClusterTimeout)
	defer cancel()
	actual, err := r.actualPropagated(cctx, p, v)
	if err != nil {
		return err
	}
	removed := 0
	for _, o := range actual {
		if err := v.member.Client.Delete(cctx, o); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete %T %s/%s in cluster %s: %w", o, o.GetNamespace(), o.GetName(), v.name, err)
		}
		removed++
	}
	var ns corev1.Namespace
	err = v.member.Client.Get(cctx, types.NamespacedName{Name: p.Namespace}, &ns)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get namespace %s in cluster %s: %w", p.Namespace, v.name, err)
	case ns.Labels[BurstCreatedNamespaceLabel] == "true" && ns.DeletionTimestamp == nil:
		var left appsv1.DeploymentList
		if err := v.member.Client.List(cctx, &left, client.InNamespace(p.Namespace)); err != nil {
			return fmt.Errorf("list deployments in cluster %s: %w", v.name, err)
		}
		if len(left.Items) == 0 {
			if err := v.member.Client.Delete(cctx, &ns, client.Preconditions{UID: &ns.UID}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete namespace %s in cluster %s: %w", p.Namespace, v.name, err)
			}
			removed++
		}
	}
	if err := r.removeConsul(cctx, p, v.name); err != nil {
		return err
	}
	if removed > 0 {
		r.event(p, nil, corev1.EventTypeNormal, "ClusterCleaned", "Cleanup", "removed %d objects HCA created in %s (no replicas left there)", removed, v.name)
	}
	return nil
}

// finalize undoes a deleted policy: burst replicas go back to the primary, the
// annotations are removed, copies, propagated objects, created namespaces and
// Consul registrations are deleted; then the finalizer goes.
func (r *BurstReconciler) finalize(ctx context.Context, p *hcav1.BurstPolicy) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(p, BurstFinalizer) {
		return ctrl.Result{}, nil
	}
	deps, err := r.targets(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	views := r.loadViews(ctx, p, r.statusClusters(p))
	var errs []error
	for _, v := range views {
		if !v.reachable() && !v.gone {
			errs = append(errs, fmt.Errorf("cannot clean up cluster %s: %w (remove finalizer %s by hand to give up)", v.name, v.err, BurstFinalizer))
		}
	}
	if len(errs) > 0 {
		r.event(p, nil, corev1.EventTypeWarning, "CleanupBlocked", "Cleanup", "%v", errors.Join(errs...))
		return ctrl.Result{}, errors.Join(errs...)
	}
	for _, d := range deps {
		var back int32
		for _, v := range views {
			if c := v.copies[d.Name]; c != nil {
				back += burstPtrOr(c.Spec.Replicas, 1)
			}
		}
		if _, ok := d.Annotations[BurstTotalAnnotation]; ok || back > 0 {
			var ops []burstJSONPatchOp
			if d.Spec.Replicas != nil {
				ops = append(ops, burstJSONPatchOp{Op: "test", Path: "/spec/replicas", Value: *d.Spec.Replicas})
			}
			ops = append(ops, burstJSONPatchOp{Op: "add", Path: "/spec/replicas", Value: burstPtrOr(d.Spec.Replicas, 1) + back})
			for _, k := range []string{BurstPrimaryAnnotation, BurstTotalAnnotation, BurstSLOAppliedAnnotation} {
				if _, ok := d.Annotations[k]; ok {
					ops = append(ops, burstJSONPatchOp{Op: "remove", Path: "/metadata/annotations/" + strings.ReplaceAll(k, "/", "~1")})
				}
			}
			raw, err := json.Marshal(ops)
			if err == nil {
				err = r.client.Patch(ctx, d, client.RawPatch(types.JSONPatchType, raw))
			}
			if err != nil {
				return ctrl.Result{}, fmt.Errorf("restore deployment %s/%s: %w", d.Namespace, d.Name, err)
			}
		}
	}
	for _, v := range views {
		if v.gone {
			continue
		}
		for _, c := range v.copies {
			if err := r.deleteCopy(ctx, v, c); err != nil {
				errs = append(errs, err)
			}
		}
		if err := r.cleanupCluster(ctx, p, v); err != nil {
			errs = append(errs, err)
		}
	}
	if err := r.removeConsul(ctx, p, string(p.Spec.PrimaryCluster)); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	patch := client.MergeFrom(p.DeepCopy())
	controllerutil.RemoveFinalizer(p, BurstFinalizer)
	if err := r.client.Patch(ctx, p, patch); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("remove finalizer of burst policy %s/%s: %w", p.Namespace, p.Name, err)
	}
	r.forget(p.Namespace + "/" + p.Name + "/")
	if tm := r.opts.Telemetry; tm != nil {
		tm.Replicas.DeletePartialMatch(map[string]string{"policy": p.Namespace + "/" + p.Name})
	}
	return ctrl.Result{}, nil
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

// selectorOf returns a Deployment's pod selector (nothing on error).
func burstSelectorOf(d *appsv1.Deployment) labels.Selector {
	s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return labels.Nothing()
	}
	return s
}
