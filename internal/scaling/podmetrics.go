package scaling

import "strings"

// podGroups is how the pods of an Input count for a decision, as Kubernetes'
// groupPods (pkg/controller/podautoscaler/replica_calculator.go) sorts them.
type podGroups struct {
	// sum is the sum of the counted pods' values; counted how many they are.
	sum     float64
	counted int
	// missing are pods that run but have no usable sample (Missing, or a
	// NaN, infinite or negative value), Ready or not.
	missing int
	// unready are pods whose sample does not count: Pending pods, and pods
	// that are not Ready when readiness counts.
	unready int
	// ready are the pods whose Ready condition is true (whatever their
	// sample).
	ready int
}

// groupPods sorts pods as upstream groupPods: a Pending pod is unready; a
// pod that runs without a usable sample is missing, Ready or not; a pod with
// a sample counts, unless it is not Ready and readiness counts (upstream
// checks readiness for the CPU resource only), in which case it is unready.
func groupPods(pods []PodSample, readiness bool) podGroups {
	var g podGroups
	for i := range pods {
		p := &pods[i]
		if p.Ready && !p.Pending {
			g.ready++
		}
		switch {
		case p.Pending:
			g.unready++
		case p.Missing || !usable(p.Value):
			g.missing++
		case readiness && !p.Ready:
			g.unready++
		default:
			g.sum += p.Value
			g.counted++
		}
	}
	return g
}

// writeNoMetrics says why there is nothing to decide on.
func (g podGroups) writeNoMetrics(b *strings.Builder, pods int) {
	b.WriteString("no metrics from ready pods (")
	writeInt(b, int32(pods))
	b.WriteString(" pods, ")
	writeInt(b, int32(g.unready))
	b.WriteString(" not ready, ")
	writeInt(b, int32(g.missing))
	b.WriteString(" without a sample)")
}

// unlessReversed returns n, or cur when n would move against the direction
// the usage ratio shows (more pods on a ratio below 1, fewer on one above
// 1, possible when pods are unready or missing), and says which in b; verb
// names the result in the reason ("recommend", "need").
func unlessReversed(b *strings.Builder, ratio float64, n, cur int32, verb string) int32 {
	b.WriteString(": ")
	if (ratio < 1 && n > cur) || (ratio > 1 && n < cur) {
		writeInt(b, n)
		b.WriteString(" would reverse the direction, ")
		b.WriteString(verb)
		b.WriteString(" ")
		writeInt(b, cur)
		return cur
	}
	b.WriteString(verb)
	b.WriteString(" ")
	writeInt(b, n)
	return n
}
