package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/internal/slo"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// The evaluation loop. One goroutine (a manager Runnable, so it runs on the
// leader only) keeps every SLO's next due time and, when some are due,
// evaluates all of them in one batch: their queries go to the metric source
// together (metrics.InstantManyOf, which merges queries that differ only in the
// workload's name into one PromQL query). SLOs of equal interval are due at
// the same instants (a grid of the interval), so 1,000 SLOs of 20 s cost a
// handful of Prometheus queries every 20 s rather than 1,000 scattered ones.
//
// Neither RequeueAfter per SLO nor a ticker goroutine per SLO could batch:
// each reconcile or ticker would query on its own. The reconciler (watch loop)
// feeds this schedule and does all the writes: the evaluator only reads metrics
// and hands each result back through a channel source, so status and strategy
// writes keep the workqueue's per-object serialisation and retries.

// sloResult is one evaluation's outcome for one SLO.
type sloResult struct {
	generation int64
	at         time.Time
	typ        hcav1.SLOType
	value      string
	compliance int32
	err        error
}

type sloEntry struct {
	slo      *hcav1.ServiceLevelObjective // snapshot of the last reconciled object
	interval time.Duration
	next     time.Time
	// evaluated: next is on the schedule (not the first evaluation of this
	// generation, which is due at once), so lateness is measured against it.
	evaluated bool
	// sent is the last result handed to the reconciler, and statusAt the
	// lastEvaluationTime its status holds after the last reconcile (zero:
	// none): a result the reconciler would not write (sloResultDue) is
	// kept for it without waking it.
	sent     *sloResult
	statusAt time.Time
}

// sloResultDue reports whether the reconciler must be woken for r, given
// the result sent last and the lastEvaluationTime the status holds: when
// anything it writes besides currentValue and lastEvaluationTime may change
// (generation, type, compliance: the strategy object and the Ready message;
// the error: the conditions), or when the status heartbeat is due
// (sloStatusDue). A result that only moves currentValue between two
// heartbeats would reconcile for no write: make bench-load had 500 SLO
// reconciles a second for 36 status writes. It is pure.
func sloResultDue(sent, r *sloResult, statusAt time.Time, heartbeat, phase time.Duration) bool {
	if sent == nil || sent.generation != r.generation || sent.typ != r.typ || sent.compliance != r.compliance ||
		(sent.err == nil) != (r.err == nil) || (r.err != nil && sent.err.Error() != r.err.Error()) {
		return true
	}
	return statusAt.IsZero() || heartbeatDue(statusAt, r.at, heartbeat, phase)
}

// sloEvaluator schedules and evaluates SLOs.
type sloEvaluator struct {
	source    metrics.Source
	reader    client.Reader
	clock     clock.Clock
	queries   SLOQueries
	telemetry *telemetry.Metrics
	// heartbeat is the reconciler's StatusHeartbeat (sloResultDue; 0:
	// every result wakes the reconciler).
	heartbeat time.Duration
	// coalesce is how long the loop waits after a wake-up so that SLOs
	// registered together (a manager start) evaluate in one batch.
	coalesce time.Duration
	// timeout bounds one batch's metric reads.
	timeout time.Duration

	events chan event.GenericEvent

	mu      sync.Mutex
	entries map[types.NamespacedName]*sloEntry
	results map[types.NamespacedName]*sloResult
	wake    chan struct{}
}

func newSLOEvaluator(src metrics.Source, reader client.Reader, clk clock.Clock, q SLOQueries, tm *telemetry.Metrics) *sloEvaluator {
	return &sloEvaluator{
		source: src, reader: reader, clock: clk, queries: q.withDefaults(), telemetry: tm,
		coalesce: 100 * time.Millisecond, timeout: 30 * time.Second,
		events:  make(chan event.GenericEvent, 1024),
		entries: map[types.NamespacedName]*sloEntry{},
		results: map[types.NamespacedName]*sloResult{},
		wake:    make(chan struct{}, 1),
	}
}

func interval(s *hcav1.ServiceLevelObjective) time.Duration {
	if d := s.Spec.EvaluationInterval; d != nil && d.Duration >= time.Second {
		return d.Duration
	}
	return 20 * time.Second
}

// upsert registers (or refreshes) an SLO. A new SLO, or a new generation of
// its spec, is due at once.
func (e *sloEvaluator) upsert(s *hcav1.ServiceLevelObjective) {
	key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
	e.mu.Lock()
	old, ok := e.entries[key]
	if ok && old.slo.Generation == s.Generation && old.slo.UID == s.UID {
		old.slo = s
		e.mu.Unlock()
		return
	}
	e.entries[key] = &sloEntry{slo: s, interval: interval(s), next: e.clock.Now()}
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *sloEvaluator) remove(key types.NamespacedName) {
	e.mu.Lock()
	delete(e.entries, key)
	delete(e.results, key)
	e.mu.Unlock()
}

// result returns the SLO's latest result (nil if none). It stays after the
// reconciler applied it: a reconcile for another reason (its strategy object
// deleted or edited) writes it again, and applying a result twice writes
// nothing new.
func (e *sloEvaluator) result(key types.NamespacedName) *sloResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.results[key]
}

// written records the lastEvaluationTime the SLO's status holds after a
// reconcile (nil: none), for sloResultDue.
func (e *sloEvaluator) written(key types.NamespacedName, uid types.UID, at *metav1.Time) {
	e.mu.Lock()
	if en, ok := e.entries[key]; ok && en.slo.UID == uid {
		en.statusAt = time.Time{}
		if at != nil {
			en.statusAt = at.Time
		}
	}
	e.mu.Unlock()
}

// NeedLeaderElection: only the leader evaluates.
func (e *sloEvaluator) NeedLeaderElection() bool { return true }

// Start runs the loop until ctx ends.
func (e *sloEvaluator) Start(ctx context.Context) error {
	for {
		due, wait := e.due(e.clock.Now())
		if len(due) > 0 {
			e.evaluate(ctx, due)
			continue
		}
		var timer clock.Timer
		var fire <-chan time.Time
		if wait >= 0 {
			timer = e.clock.NewTimer(wait)
			fire = timer.C()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nil
		case <-e.wake:
			if timer != nil {
				timer.Stop()
			}
			// Let the SLOs registered together arrive, then batch them.
			select {
			case <-ctx.Done():
				return nil
			case <-e.clock.After(e.coalesce):
			}
		case <-fire:
		}
	}
}

// due returns the SLOs due at now, by namespace and name, scheduling their next evaluation on the
// interval's grid, and how long to wait for the next one (-1: none).
func (e *sloEvaluator) due(now time.Time) ([]*hcav1.ServiceLevelObjective, time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var due []*hcav1.ServiceLevelObjective
	wait := time.Duration(-1)
	for _, en := range e.entries {
		if !en.next.After(now) {
			due = append(due, en.slo)
			if en.evaluated {
				e.telemetry.Late(telemetry.LoopSLO, now.Sub(en.next))
			}
			en.evaluated = true
			en.next = nextOnGrid(now, en.interval)
		}
		if d := en.next.Sub(now); wait < 0 || d < wait {
			wait = d
		}
	}
	// In a fixed order, so that a cycle asks Prometheus the same list as
	// the last one and reuses its batch plan (metrics' plan cache).
	slices.SortFunc(due, func(a, b *hcav1.ServiceLevelObjective) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return due, wait
}

// nextOnGrid is the first multiple of interval at least half an interval after
// now: SLOs of one interval line up on the same instants and batch together.
func nextOnGrid(now time.Time, interval time.Duration) time.Time {
	return now.Add(interval / 2).Truncate(interval).Add(interval)
}

// evaluate evaluates a batch of SLOs and hands every result to the reconciler.
func (e *sloEvaluator) evaluate(ctx context.Context, batch []*hcav1.ServiceLevelObjective) {
	start := e.clock.Now()
	results := e.evaluateBatch(ctx, batch)
	took := e.clock.Since(start).Seconds()
	for i, s := range batch {
		r := results[i]
		r.at = start
		if e.telemetry != nil {
			e.telemetry.EvaluationSeconds.WithLabelValues(string(s.Spec.SLO.Type)).Observe(took)
			if r.err != nil {
				e.telemetry.Errors.WithLabelValues("slo", failureReason(r.err)).Inc()
			}
		}
		key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
		wake := true
		e.mu.Lock()
		if en, ok := e.entries[key]; ok && en.slo.UID == s.UID {
			e.results[key] = r
			if wake = e.heartbeat <= 0 || sloResultDue(en.sent, r, en.statusAt, e.heartbeat, heartbeatPhase(s.UID, e.heartbeat)); wake {
				en.sent = r
			}
		}
		e.mu.Unlock()
		if !wake {
			continue
		}
		select {
		case e.events <- event.GenericEvent{Object: &hcav1.ServiceLevelObjective{ObjectMeta: s.ObjectMeta}}:
		case <-ctx.Done():
			return
		}
	}
}

// evaluateBatch returns one result per SLO. A failing or panicking SLO gets an
// error result; the others are unaffected.
func (e *sloEvaluator) evaluateBatch(ctx context.Context, batch []*hcav1.ServiceLevelObjective) []*sloResult {
	out := make([]*sloResult, len(batch))
	plans := make([]sloPlan, len(batch))
	first := make([]int, len(batch)) // index of each SLO's first expression
	var exprs []metrics.Expr
	for i, s := range batch {
		out[i] = &sloResult{generation: s.Generation, typ: s.Spec.SLO.Type}
		first[i] = -1
		err := guard(func() error {
			p, err := planSLO(s, e.queries)
			plans[i] = p
			return err
		})
		if err != nil {
			out[i].err = err
			continue
		}
		first[i] = len(exprs)
		exprs = append(exprs, plans[i].exprs...)
	}
	var res []metrics.Result
	if len(exprs) > 0 {
		if e.source == nil {
			res = make([]metrics.Result, len(exprs))
			for i := range res {
				res[i].Err = errNoSource
			}
		} else {
			qctx, cancel := context.WithTimeout(ctx, e.timeout)
			err := guard(func() error {
				res = metrics.InstantManyOf(qctx, e.source, exprs, time.Time{})
				return nil
			})
			cancel()
			if err != nil || len(res) != len(exprs) {
				if err == nil {
					err = fmt.Errorf("metric source returned %d results for %d queries", len(res), len(exprs))
				}
				res = make([]metrics.Result, len(exprs))
				for i := range res {
					res[i].Err = err
				}
			}
		}
	}
	for i, s := range batch {
		if first[i] < 0 {
			continue
		}
		r := out[i]
		p := plans[i]
		r.err = guard(func() error {
			cost := 0.0
			if p.typ == hcav1.SLOCostEfficiency {
				c, err := e.costPerHour(ctx, s)
				if err != nil {
					return err
				}
				cost = c
			}
			m, err := measure(p, res[first[i]:first[i]+len(p.exprs)], cost)
			if err != nil {
				return err
			}
			ev, err := slo.Evaluate(p.objective, m)
			if err != nil {
				return err
			}
			r.value = formatValue(p.typ, ev)
			r.compliance = compliancePercent(ev.Compliance)
			return nil
		})
	}
	return out
}

// guard runs f, turning a panic into an error wrapping errPanic.
func guard(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			logf.Log.WithName("slo").Error(fmt.Errorf("%v", p), "SLO evaluation panicked", "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", errPanic, p)
		}
	}()
	return f()
}

// costPerHour is the target's cost per hour: its replicas x the pod template's
// requests x the prices of the primary HybridCluster (0 without prices, which
// makes cost efficiency infinite: only the fast-request share can violate).
func (e *sloEvaluator) costPerHour(ctx context.Context, s *hcav1.ServiceLevelObjective) (float64, error) {
	tmpl, replicas, err := readTemplate(ctx, e.reader, s.Namespace, targetOf(s))
	if err != nil {
		return 0, err
	}
	// Both reads are the cache's own objects, not copies (make bench-load:
	// a cost-efficiency SLO's evaluation copied its Deployment and every
	// cluster): only read them.
	var list hcav1.HybridClusterList
	if err := e.reader.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return 0, fmt.Errorf("list hybrid clusters for prices: %w", err)
	}
	var prices metrics.Prices
	for _, hc := range list.Items {
		if hc.Spec.Role != hcav1.RolePrimary || hc.Spec.Prices == nil {
			continue
		}
		cpu, err1 := hc.Spec.Prices.PerVCPUHour.Float64()
		mem, err2 := hc.Spec.Prices.PerGiBHour.Float64()
		if err := errors.Join(err1, err2); err != nil {
			return 0, fmt.Errorf("%w: hybrid cluster %s prices: %w", metrics.ErrBadInput, hc.Name, err)
		}
		prices = metrics.Prices{PerVCPUHour: cpu, PerGiBHour: mem}
		break
	}
	var req metrics.Requests
	for _, c := range tmpl.Spec.Containers {
		req.CPUCores += c.Resources.Requests.Cpu().AsApproximateFloat64()
		req.MemoryGiB += c.Resources.Requests.Memory().AsApproximateFloat64() / (1 << 30)
	}
	return metrics.Cost(prices, req, int(replicas))
}

// readTemplate reads the target's pod template and replica count. The
// template is the cache's own, not a copy: only read it.
func readTemplate(ctx context.Context, r client.Reader, ns string, t hcav1.TargetRef) (*corev1.PodTemplateSpec, int32, error) {
	key := types.NamespacedName{Namespace: ns, Name: string(t.Name)}
	if t.Kind == hcav1.WorkloadStatefulSet {
		var ss appsv1.StatefulSet
		if err := r.Get(ctx, key, &ss, client.UnsafeDisableDeepCopy); err != nil {
			return nil, 0, fmt.Errorf("get statefulset %s: %w", key, err)
		}
		return &ss.Spec.Template, ptrOr(ss.Spec.Replicas, 1), nil
	}
	var d appsv1.Deployment
	if err := r.Get(ctx, key, &d, client.UnsafeDisableDeepCopy); err != nil {
		return nil, 0, fmt.Errorf("get deployment %s: %w", key, err)
	}
	return &d.Spec.Template, ptrOr(d.Spec.Replicas, 1), nil
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}
