package controller

import (
	"fmt"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

// Deps are what the controllers share.
type Deps struct {
	Members *Members
	// Catalog publishes remote replicas to Consul (nil: Consul not configured).
	Catalog *catalog.Publisher
	// Metrics reads workload metrics (nil: Prometheus not configured).
	Metrics metrics.Source
	Clock   clock.Clock
	// Telemetry are the runtime's own metrics.
	Telemetry *telemetry.Metrics
	// ProbeInterval is how often hybrid clusters are probed.
	ProbeInterval time.Duration
	// BurstMetricsInterval is how often burst policies with metrics are
	// evaluated (0: the controller's default).
	BurstMetricsInterval time.Duration
	// Cloud scales burst clusters' node groups (nil: no cloud access; the
	// capacity controller says so in their status).
	Cloud NodeGroupCloud
	// CapacityInterval is how often node groups are looked at (0: 10s).
	CapacityInterval time.Duration
	// Class shards objects between runtimes sharing a control cluster: every
	// controller handles only the objects whose ClassLabel equals it (the
	// default "": those without the label).
	Class string
	// SLOStatusHeartbeat is the SLO controller's StatusHeartbeat (0: its
	// default).
	SLOStatusHeartbeat time.Duration
}

// Setup registers every controller with the manager.
func Setup(mgr ctrl.Manager, d Deps) error {
	if d.Clock == nil {
		d.Clock = clock.RealClock{}
	}
	prober := &HybridClusterReconciler{
		Client: mgr.GetClient(), Members: d.Members, Clock: d.Clock,
		Recorder: mgr.GetEventRecorder("hca-runtime"), Interval: d.ProbeInterval, Telemetry: d.Telemetry, Class: d.Class,
	}
	if err := prober.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up hybrid cluster prober: %w", err)
	}
	burst := NewBurstReconciler(mgr.GetClient(), BurstOptions{
		Members: d.Members, Consul: d.Catalog, Metrics: d.Metrics, Clock: d.Clock,
		MetricsInterval: d.BurstMetricsInterval, Telemetry: d.Telemetry, Class: d.Class,
		CapacityInterval: d.CapacityInterval,
	})
	if err := burst.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up burst controller: %w", err)
	}
	capacityCtl := &CapacityReconciler{Client: mgr.GetClient(), Members: d.Members, Cloud: d.Cloud, Clock: d.Clock, Interval: d.CapacityInterval, Class: d.Class}
	if d.Telemetry != nil {
		capacityCtl.Telemetry = d.Telemetry
	}
	if err := capacityCtl.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up capacity controller: %w", err)
	}
	rec := mgr.GetEventRecorder("hca-runtime")
	for name, r := range map[string]interface{ SetupWithManager(ctrl.Manager) error }{
		"slo controller":                      &SLOReconciler{Client: mgr.GetClient(), Source: d.Metrics, Clock: d.Clock, Recorder: rec, Telemetry: d.Telemetry, Class: d.Class, StatusHeartbeat: d.SLOStatusHeartbeat},
		"horizontal strategy controller":      &HorizontalStrategyReconciler{Client: mgr.GetClient(), Clock: d.Clock, Recorder: rec, Telemetry: d.Telemetry, Class: d.Class},
		"vertical strategy controller":        &VerticalStrategyReconciler{Client: mgr.GetClient(), Clock: d.Clock, Recorder: rec, Telemetry: d.Telemetry, Class: d.Class},
		"in-place resize controller":          &InPlaceResizeReconciler{Client: mgr.GetClient(), Clock: d.Clock, Recorder: rec},
		"multi-objective strategy controller": &MultiObjectiveStrategyReconciler{Client: mgr.GetClient(), Source: d.Metrics, Clock: d.Clock, Recorder: rec, Telemetry: d.Telemetry, Class: d.Class},
		"federated autoscaler controller":     &FederatedAutoscalerReconciler{Client: mgr.GetClient(), Members: d.Members, Clock: d.Clock, Recorder: rec, Class: d.Class},
	} {
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("set up %s: %w", name, err)
		}
	}
	return nil
}
