package controller

// NodeRecorder receives the capacity controller's orders to the cloud, for
// the runtime's metrics (telemetry.Metrics implements it).
type NodeRecorder interface {
	// NodeRequest records an order to grow group of cluster by nodes (err: it failed).
	NodeRequest(cluster, group string, nodes int32, err error)
	// NodeRelease records an order to shrink group of cluster (err: it failed).
	NodeRelease(cluster, group string, err error)
}

// recordRequest and recordRelease are the capacity controller's one-line
// hooks; they do nothing without a recorder.
func (r *CapacityReconciler) recordRequest(cluster, group string, nodes int32, err error) {
	if r.Telemetry != nil {
		r.Telemetry.NodeRequest(cluster, group, nodes, err)
	}
}

func (r *CapacityReconciler) recordRelease(cluster, group string, err error) {
	if r.Telemetry != nil {
		r.Telemetry.NodeRelease(cluster, group, err)
	}
}
