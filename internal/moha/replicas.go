package moha

// Replicas is where a target's current total replica count comes from and
// where a new one goes, when a burst policy may share the target between the
// private cluster and burst clusters.
type Replicas struct {
	// Current is the total replica count across every cluster: eq. 1's
	// p_current for replicas and the base of the variations.
	Current int
	// Bursting: a burst policy distributes the replicas, so spec.replicas is
	// only the primary cluster's share; a new total is handed to the policy
	// as a request instead of being written to spec.replicas (which the
	// policy would read as a new total and then overwrite with a share).
	Bursting bool
}

// CurrentReplicas decides where the current total is read. spec is the
// Deployment's spec.replicas; burstTotal is the total a burst policy last
// decided for it (its hca.dev/burst-total annotation), nil when no policy
// distributes it; requested is a total asked for and not yet taken by the
// policy (hca.dev/burst-requested-total), nil when none.
//
//   - No burst total: the Deployment is not shared, its spec.replicas is the
//     total (a request left over is ignored: nobody takes it).
//   - A burst total: it is the current total, unless a request is pending,
//     which is the total the policy is about to apply.
func CurrentReplicas(spec int32, burstTotal, requested *int32) Replicas {
	switch {
	case burstTotal == nil:
		return Replicas{Current: int(spec)}
	case requested != nil:
		return Replicas{Current: int(*requested), Bursting: true}
	default:
		return Replicas{Current: int(*burstTotal), Bursting: true}
	}
}
