package controller

import (
	"context"
	"maps"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// burstPolicyPredicate lets through spec changes, deletions, label and
// annotation changes of BurstPolicies, not the controller's own status patches.
func burstPolicyPredicate() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetGeneration() != n.GetGeneration() ||
			!equality.Semantic.DeepEqual(o.GetDeletionTimestamp(), n.GetDeletionTimestamp()) ||
			!maps.Equal(o.GetAnnotations(), n.GetAnnotations()) || !maps.Equal(o.GetLabels(), n.GetLabels()) ||
			len(o.GetFinalizers()) != len(n.GetFinalizers())
	}}
}

// burstClusterPredicate lets through the HybridCluster changes a burst
// round reads: spec (generation), deletion, labels, reachability, the
// prober's free and allocatable capacity, its node groups and the status of
// its conditions. The prober's patch of lastProbeTime alone (every probe
// interval, on every cluster) does not wake every policy using the cluster:
// make bench-load saw 1,000 policies enqueued every 30 s for nothing.
func burstClusterPredicate() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*hcav1.HybridCluster)
		n, ok2 := e.ObjectNew.(*hcav1.HybridCluster)
		if !ok1 || !ok2 {
			return true
		}
		return burstClusterChanged(o, n)
	}}
}

// burstClusterChanged reports whether n differs from o in what a burst round
// reads of a HybridCluster (burstClusterPredicate).
func burstClusterChanged(o, n *hcav1.HybridCluster) bool {
	if o.Generation != n.Generation || !maps.Equal(o.Labels, n.Labels) ||
		!equality.Semantic.DeepEqual(o.DeletionTimestamp, n.DeletionTimestamp) {
		return true
	}
	os, ns := &o.Status, &n.Status
	if os.Reachable != ns.Reachable || !equality.Semantic.DeepEqual(os.Free, ns.Free) ||
		!equality.Semantic.DeepEqual(os.Allocatable, ns.Allocatable) || !equality.Semantic.DeepEqual(os.NodeGroups, ns.NodeGroups) ||
		len(os.Conditions) != len(ns.Conditions) {
		return true
	}
	for i := range ns.Conditions {
		c := meta.FindStatusCondition(os.Conditions, ns.Conditions[i].Type)
		if c == nil || c.Status != ns.Conditions[i].Status || c.Reason != ns.Conditions[i].Reason {
			return true
		}
	}
	return false
}

// burstPodChanged reports a change that matters to the controller: binding,
// the PodScheduled or Ready condition, phase, address, deletion.
func burstPodChanged(o, n *corev1.Pod) bool {
	if o.Spec.NodeName != n.Spec.NodeName || o.Status.Phase != n.Status.Phase || o.Status.PodIP != n.Status.PodIP ||
		(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) || burstPodReady(o) != burstPodReady(n) {
		return true
	}
	_, ou, os := burstPodScheduling(o)
	_, nu, ns := burstPodScheduling(n)
	return ou != nu || !os.Equal(ns)
}

type burstQueue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func burstEnqueue(q burstQueue, reqs []reconcile.Request) {
	for _, r := range reqs {
		q.Add(r)
	}
}

// podHandler maps primary pods to the policies targeting them; a pod that
// leaves a node (deleted or finished) may free room, so it also wakes the
// policies that have burst replicas to bring back.
func (r *BurstReconciler) podHandler() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q burstQueue) {
			burstEnqueue(q, r.podToPolicies(ctx, e.Object))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q burstQueue) {
			o, ok1 := e.ObjectOld.(*corev1.Pod)
			n, ok2 := e.ObjectNew.(*corev1.Pod)
			if !ok1 || !ok2 || !burstPodChanged(o, n) {
				return
			}
			burstEnqueue(q, r.podToPolicies(ctx, n))
			if o.Spec.NodeName != "" && burstPodActive(o) && !burstPodActive(n) {
				burstEnqueue(q, r.burstingPolicies(ctx))
			}
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q burstQueue) {
			burstEnqueue(q, r.podToPolicies(ctx, e.Object))
			if p, ok := e.Object.(*corev1.Pod); ok && p.Spec.NodeName != "" {
				burstEnqueue(q, r.burstingPolicies(ctx))
			}
		},
	}
}

// nodeHandler wakes the policies with burst replicas when primary capacity may
// have grown (a node added, made schedulable, resized, Ready again).
func (r *BurstReconciler) nodeHandler() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, _ event.CreateEvent, q burstQueue) {
			burstEnqueue(q, r.burstingPolicies(ctx))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q burstQueue) {
			o, ok1 := e.ObjectOld.(*corev1.Node)
			n, ok2 := e.ObjectNew.(*corev1.Node)
			if !ok1 || !ok2 {
				return
			}
			if o.Spec.Unschedulable != n.Spec.Unschedulable || !equality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints) ||
				!equality.Semantic.DeepEqual(o.Status.Allocatable, n.Status.Allocatable) || !maps.Equal(o.Labels, n.Labels) ||
				burstNodeReady(o) != burstNodeReady(n) {
				burstEnqueue(q, r.burstingPolicies(ctx))
			}
		},
	}
}

func burstNodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func burstRequest(p *hcav1.BurstPolicy) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}}
}

// policiesIn lists the BurstPolicies of a namespace from the cache.
func (r *BurstReconciler) policiesIn(ctx context.Context, ns string) []hcav1.BurstPolicy {
	var list hcav1.BurstPolicyList
	if err := r.client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil
	}
	return r.onlyMine(list.Items)
}

// onlyMine keeps the policies this controller handles.
func (r *BurstReconciler) onlyMine(items []hcav1.BurstPolicy) []hcav1.BurstPolicy {
	out := items[:0]
	for i := range items {
		if r.mine(&items[i]) {
			out = append(out, items[i])
		}
	}
	return out
}

// targetsDeployment reports whether p targets d.
func burstTargetsDeployment(p *hcav1.BurstPolicy, d metav1.Object) bool {
	if n := p.Spec.Target.DeploymentName; n != "" {
		return string(n) == d.GetName()
	}
	if len(p.Spec.Target.MatchLabels) == 0 {
		return false
	}
	return labels.SelectorFromSet(p.Spec.Target.MatchLabels).Matches(labels.Set(d.GetLabels()))
}

func (r *BurstReconciler) podToPolicies(ctx context.Context, obj client.Object) []reconcile.Request {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	policies := r.policiesIn(ctx, pod.Namespace)
	if len(policies) == 0 {
		return nil
	}
	var deps appsv1.DeploymentList
	if err := r.client.List(ctx, &deps, client.InNamespace(pod.Namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range policies {
		p := &policies[i]
		for j := range deps.Items {
			d := &deps.Items[j]
			if burstTargetsDeployment(p, d) && burstSelectorOf(d).Matches(labels.Set(pod.Labels)) {
				out = append(out, burstRequest(p))
				break
			}
		}
	}
	return out
}

func (r *BurstReconciler) deploymentToPolicies(ctx context.Context, obj client.Object) []reconcile.Request {
	if obj.GetLabels()[BurstManagedByLabel] == BurstManagedBy {
		return nil
	}
	var out []reconcile.Request
	for _, p := range r.policiesIn(ctx, obj.GetNamespace()) {
		if burstTargetsDeployment(&p, obj) {
			out = append(out, burstRequest(&p))
		}
	}
	return out
}

// burstingPolicies are the policies whose status records burst replicas.
func (r *BurstReconciler) burstingPolicies(ctx context.Context) []reconcile.Request {
	var list hcav1.BurstPolicyList
	if err := r.client.List(ctx, &list); err != nil {
		return nil
	}
	var out []reconcile.Request
	list.Items = r.onlyMine(list.Items)
	for i := range list.Items {
		p := &list.Items[i]
		for _, c := range p.Status.Replicas {
			if c.Cluster != p.Spec.PrimaryCluster && c.Desired > 0 {
				out = append(out, burstRequest(p))
				break
			}
		}
	}
	return out
}

func (r *BurstReconciler) clusterToPolicies(ctx context.Context, obj client.Object) []reconcile.Request {
	var list hcav1.BurstPolicyList
	if err := r.client.List(ctx, &list); err != nil {
		return nil
	}
	name := hcav1.ClusterName(obj.GetName())
	list.Items = r.onlyMine(list.Items)
	var out []reconcile.Request
	for i := range list.Items {
		p := &list.Items[i]
		hit := p.Spec.PrimaryCluster == name
		for _, t := range p.Spec.BurstTargets {
			hit = hit || t.Cluster == name
		}
		for _, c := range p.Status.Replicas {
			hit = hit || c.Cluster == name
		}
		if hit {
			out = append(out, burstRequest(p))
		}
	}
	return out
}

func (r *BurstReconciler) propagatedToPolicies(ctx context.Context, obj client.Object) []reconcile.Request {
	var out []reconcile.Request
	for _, p := range r.policiesIn(ctx, obj.GetNamespace()) {
		pr := p.Spec.Propagate
		if pr == nil {
			continue
		}
		var sel *hcav1.ObjectSelector
		switch obj.(type) {
		case *corev1.ConfigMap:
			sel = pr.ConfigMaps
		case *corev1.Secret:
			sel = pr.Secrets
		case *corev1.Service:
			sel = pr.Services
		}
		if burstSelected(sel, obj) {
			out = append(out, burstRequest(&p))
		}
	}
	return out
}

// strategyToPolicy maps a BurstElasticityStrategy to the policy it drives.
func (r *BurstReconciler) strategyToPolicy(_ context.Context, obj client.Object) []reconcile.Request {
	s, ok := obj.(*hcav1.BurstElasticityStrategy)
	if !ok || s.Spec.BurstPolicyName == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: string(s.Spec.BurstPolicyName)}}}
}

// memberWatches runs informers per burst cluster: pods and Deployments
// carrying BurstPolicyLabel, nodes and namespaces. Input: the members the
// controller reaches. Output: GenericEvents on events for the policy owning a
// changed pod (readiness for Consul and status, pods going away) or a pod on a
// node that just got a spot interruption notice, found with owners; and, once
// synced, the stores burstViewLoader reads a round's view from instead of
// three or four calls to the cluster (burstMemberWatch.load).
type memberWatches struct {
	events chan event.GenericEvent
	// owners lists the policies (by namespace and policy label value) that
	// own pods labelled so.
	owners func(ctx context.Context, namespace, label string) []types.NamespacedName

	// expect holds the controller's writes of copies until the informers
	// show them; until then a view is read from the cluster.
	expect *burstExpectations

	mu      sync.Mutex
	base    context.Context
	watches map[string]*burstMemberWatch
}

type burstMemberWatch struct {
	cfg  *rest.Config
	stop chan struct{}
	kube kubernetes.Interface

	// liveness: an informer's store outlives its API server, so a round
	// reading it first asks whether the cluster answers (answers), one
	// request a second per cluster shared by every round.
	liveMu    sync.Mutex
	checkedAt time.Time
	liveErr   error

	// pods and deployments carry BurstPolicyLabel; nodes and namespaces are
	// all of the cluster's.
	pods, deployments, nodes, namespaces toolscache.SharedIndexInformer
}

// burstLiveness is how long one answer of a burst cluster's API server
// stands for every round that reads its informers.
const burstLiveness = time.Second

// answers reports whether the cluster's API server answered a GET /version
// within timeout, less than burstLiveness ago (nil) or why not. Concurrent
// callers wait for one request.
func (mw *burstMemberWatch) answers(ctx context.Context, timeout time.Duration) error {
	mw.liveMu.Lock()
	defer mw.liveMu.Unlock()
	if !mw.checkedAt.IsZero() && time.Since(mw.checkedAt) < burstLiveness {
		return mw.liveErr
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := mw.kube.Discovery().RESTClient().Get().AbsPath("/version").Do(cctx).Error()
	if ctx.Err() != nil {
		return err // the round's context ended: no verdict on the cluster
	}
	mw.checkedAt, mw.liveErr = time.Now(), err
	return err
}

// synced reports whether every informer has its first list.
func (mw *burstMemberWatch) synced() bool {
	return mw.pods.HasSynced() && mw.deployments.HasSynced() && mw.nodes.HasSynced() && mw.namespaces.HasSynced()
}

// cached returns the synced informers of cluster name started for cfg (the
// member's current credentials); nil: the view is read from the cluster.
func (w *memberWatches) cached(name string, cfg *rest.Config) *burstMemberWatch {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	mw, ok := w.watches[name]
	w.mu.Unlock()
	if !ok || mw.cfg != cfg || !mw.synced() {
		return nil
	}
	return mw
}

// load fills v with p's copies, the state of its namespace, the copies' pods
// and the noticed nodes from the informers, as burstViewLoader.loadOne does
// from the cluster. The stores may be a moment behind the cluster; every
// write that depends on a copy read here carries its resourceVersion
// (scaleTo, writeSpot, ensureObject's update) and a missing copy is read
// from the cluster before one is created (ensureObject), so a stale view
// fails a write with a conflict and the round is retried.
func (mw *burstMemberWatch) load(p *hcav1.BurstPolicy, v *burstView) {
	label := burstLabelValue(p.Name)
	v.copies = map[string]*appsv1.Deployment{}
	deps, _ := mw.deployments.GetIndexer().ByIndex(toolscache.NamespaceIndex, p.Namespace)
	for _, o := range deps {
		if d, ok := o.(*appsv1.Deployment); ok && d.Labels[BurstPolicyLabel] == label && burstOwned(d, p.Name) && d.DeletionTimestamp == nil {
			v.copies[d.Name] = d.DeepCopy()
		}
	}
	if o, ok, _ := mw.namespaces.GetStore().GetByKey(p.Namespace); ok {
		if ns, ok := o.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil {
			v.nsDeleting = ns.DeletionTimestamp.Time
		}
	}
	pods, _ := mw.pods.GetIndexer().ByIndex(toolscache.NamespaceIndex, p.Namespace)
	v.pods = nil
	for _, o := range pods {
		if pod, ok := o.(*corev1.Pod); ok && pod.Labels[BurstPolicyLabel] == label {
			v.pods = append(v.pods, *pod.DeepCopy())
		}
	}
	// In the order a List returns them.
	sort.Slice(v.pods, func(i, j int) bool { return v.pods[i].Name < v.pods[j].Name })
	if len(v.pods) > 0 {
		v.noticed = map[string]time.Time{}
		for _, o := range mw.nodes.GetStore().List() {
			if n, ok := o.(*corev1.Node); ok {
				burstNoticeOf(n, v.noticed)
			}
		}
	}
}

func newMemberWatches(owners func(ctx context.Context, namespace, label string) []types.NamespacedName, now func() time.Time) *memberWatches {
	return &memberWatches{events: make(chan event.GenericEvent, 1024), owners: owners, watches: map[string]*burstMemberWatch{}, expect: newBurstExpectations(now)}
}

// shows reports whether mw's Deployment store shows every write of a copy
// the controller made in namespace of cluster (burstExpectations).
func (w *memberWatches) shows(mw *burstMemberWatch, cluster, namespace string) bool {
	return w.expect.met(cluster, namespace, func(key types.NamespacedName) (types.UID, string, bool) {
		o, ok, _ := mw.deployments.GetIndexer().GetByKey(key.String())
		d, isDep := o.(*appsv1.Deployment)
		if !ok || !isDep {
			return "", "", false
		}
		return d.UID, d.ResourceVersion, true
	})
}

// Start records the manager's context (informers live as long as it) and
// stops every informer when it ends; it is the manager Runnable.
func (w *memberWatches) Start(ctx context.Context) error {
	w.mu.Lock()
	w.base = ctx
	w.mu.Unlock()
	<-ctx.Done()
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, mw := range w.watches {
		close(mw.stop)
		delete(w.watches, name)
	}
	return nil
}

// ensure starts (or, after a credentials change, restarts) the pod informer
// of a burst cluster.
func (w *memberWatches) ensure(name string, m *Member) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.base == nil || w.base.Err() != nil || m == nil || m.Kube == nil {
		return
	}
	if mw, ok := w.watches[name]; ok {
		if mw.cfg == m.Config {
			return
		}
		close(mw.stop)
	}
	mw := &burstMemberWatch{cfg: m.Config, stop: make(chan struct{}), kube: m.Kube}
	w.watches[name] = mw
	factory := informers.NewSharedInformerFactoryWithOptions(m.Kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = BurstPolicyLabel }))
	inf := factory.Core().V1().Pods().Informer()
	mw.pods, mw.deployments = inf, factory.Apps().V1().Deployments().Informer()
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: w.changed,
		UpdateFunc: func(o, n any) {
			op, ok1 := o.(*corev1.Pod)
			np, ok2 := n.(*corev1.Pod)
			if ok1 && ok2 && burstPodChanged(op, np) {
				w.changed(n)
			}
		},
		DeleteFunc: func(o any) {
			if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			w.changed(o)
		},
	})
	// A spot interruption notice is a node taint: wake the owners of the
	// burst pods on the node at once (burst_spot.go replaces them).
	nodeFactory := informers.NewSharedInformerFactory(m.Kube, 0)
	nodes := nodeFactory.Core().V1().Nodes().Informer()
	mw.nodes, mw.namespaces = nodes, nodeFactory.Core().V1().Namespaces().Informer()
	noticed := func(n *corev1.Node) {
		for _, o := range inf.GetStore().List() {
			if pod, ok := o.(*corev1.Pod); ok && pod.Spec.NodeName == n.Name {
				w.changed(pod)
			}
		}
	}
	_, _ = nodes.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if n, ok := o.(*corev1.Node); ok && burstNodeNoticed(n) {
				noticed(n)
			}
		},
		UpdateFunc: func(o, n any) {
			on, ok1 := o.(*corev1.Node)
			nn, ok2 := n.(*corev1.Node)
			if ok1 && ok2 && !burstNodeNoticed(on) && burstNodeNoticed(nn) {
				noticed(nn)
			}
		},
	})
	factory.Start(mw.stop)
	nodeFactory.Start(mw.stop)
}

// changed wakes the policy owning a burst cluster's pod.
func (w *memberWatches) changed(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	label := pod.Labels[BurstPolicyLabel]
	w.mu.Lock()
	base := w.base
	w.mu.Unlock()
	if label == "" || base == nil {
		return
	}
	for _, key := range w.owners(base, pod.Namespace, label) {
		select {
		case w.events <- event.GenericEvent{Object: &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}}:
		case <-base.Done():
			return
		}
	}
}

// podOwners lists this controller's policies in namespace whose label value
// is label.
func (r *BurstReconciler) podOwners(ctx context.Context, namespace, label string) []types.NamespacedName {
	var out []types.NamespacedName
	for _, p := range r.policiesIn(ctx, namespace) {
		if burstLabelValue(p.Name) == label {
			out = append(out, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
		}
	}
	return out
}
