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
}

// Setup registers every controller with the manager.
func Setup(mgr ctrl.Manager, d Deps) error {
	if d.Clock == nil {
		d.Clock = clock.RealClock{}
	}
	prober := &HybridClusterReconciler{
		Client: mgr.GetClient(), Members: d.Members, Clock: d.Clock,
		Recorder: mgr.GetEventRecorder("hca-runtime"), Interval: d.ProbeInterval, Telemetry: d.Telemetry,
	}
	if err := prober.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up hybrid cluster prober: %w", err)
	}
	return nil
}
