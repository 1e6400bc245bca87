package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/hca-project/terraform-provider-hca/internal/health"
)

// leaderElectionID names the runtime's leader election Lease.
const leaderElectionID = "hca-runtime.hca.dev"

// leaseName is the Lease of the runtimes of one class: runtimes of
// different classes act side by side, so each class elects its own leader.
func leaseName(class string) string {
	if class == "" {
		return leaderElectionID
	}
	return class + "." + leaderElectionID
}

// probeTimeout bounds each readiness call to the control apiserver.
const probeTimeout = 3 * time.Second

// leaderLock builds the leader election lock (nil without --leader-elect), so
// that the runtime knows its own identity and the readiness probe can read
// the lease. The identity is the host name (the pod's) and a random suffix,
// as controller-runtime's own.
func leaderLock(cfg *rest.Config, o runOptions) (resourcelock.Interface, error) {
	if !o.leaderElect {
		return nil, nil
	}
	ns := o.leaderElectionNS
	if ns == "" {
		b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
		if err != nil {
			return nil, usageError{"--leader-election-namespace is empty and the runtime is not in a cluster: name the namespace of the leader election Lease"}
		}
		ns = strings.TrimSpace(string(b))
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("leader election identity: %w", err)
	}
	lcfg := rest.CopyConfig(cfg)
	lcfg.Timeout = 10 * time.Second // the renew deadline: one slow answer must not cost the lease
	cs, err := kubernetes.NewForConfig(rest.AddUserAgent(lcfg, "hca-runtime-leader-election"))
	if err != nil {
		return nil, fmt.Errorf("leader election client: %w", err)
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, ns, leaseName(o.class), cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())})
}

// prober is the part of the manager addProbes needs.
type prober interface {
	AddHealthzCheck(name string, check healthz.Checker) error
	AddReadyzCheck(name string, check healthz.Checker) error
	Elected() <-chan struct{}
}

// addProbes registers the health checks. /healthz (liveness) is "ping": the
// process serves HTTP; restarting it cannot bring an apiserver back, so
// liveness does not depend on one. /readyz adds "apiserver" (the control
// apiserver answers its own /readyz within 3 s) and, with leader election,
// "leader" (health.Leader: standbys are ready, an elected replica only while
// the lease still names it). /readyz?verbose lists each check.
func addProbes(mgr prober, cfg *rest.Config, lock resourcelock.Interface) error {
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	pcfg := rest.CopyConfig(cfg)
	pcfg.Timeout = probeTimeout
	cs, err := kubernetes.NewForConfig(rest.AddUserAgent(pcfg, "hca-runtime-readiness"))
	if err != nil {
		return fmt.Errorf("readiness client: %w", err)
	}
	if err := mgr.AddReadyzCheck("apiserver", func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), probeTimeout)
		defer cancel()
		if _, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
			return fmt.Errorf("control apiserver %s not ready or unreachable: %w", cfg.Host, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if lock == nil {
		return nil
	}
	return mgr.AddReadyzCheck("leader", func(req *http.Request) error {
		select {
		case <-mgr.Elected():
		default:
			return health.Leader(false, lock.Identity(), health.Lease{}, time.Now())
		}
		// Read the Lease with the probe's own client: lock.Get would refresh
		// the elector's cached object, and its next optimistic renewal would
		// then silently take the lease back from whoever holds it.
		ctx, cancel := context.WithTimeout(req.Context(), probeTimeout)
		defer cancel()
		ns, name, _ := strings.Cut(lock.Describe(), "/")
		l, err := cs.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("read leader lease %s: %w", lock.Describe(), err)
		}
		return health.Leader(true, lock.Identity(), leaseOf(l), time.Now())
	})
}

// elected reports whether this replica acts (always, without leader election).
func elected(mgr ctrl.Manager, leaderElect bool) func() bool {
	if !leaderElect {
		return func() bool { return true }
	}
	return func() bool {
		select {
		case <-mgr.Elected():
			return true
		default:
			return false
		}
	}
}

// leaseOf is what health.Leader needs of a Lease.
func leaseOf(l *coordinationv1.Lease) health.Lease {
	var out health.Lease
	if l.Spec.HolderIdentity != nil {
		out.Holder = *l.Spec.HolderIdentity
	}
	if l.Spec.RenewTime != nil {
		out.Renewed = l.Spec.RenewTime.Time
	}
	if l.Spec.LeaseDurationSeconds != nil {
		out.Duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	return out
}
