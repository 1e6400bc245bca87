package scaling

import (
	"fmt"
	"time"
)

// In-place pod resize (KEP-1287, GA in Kubernetes 1.35): a pod's CPU and
// memory change through the pods/resize subresource while it runs, without a
// new pod. A workload's pod template change always rolls its pods, so acting
// in place means resizing the running pods and leaving the template alone;
// the template gets the new size only when the strategy falls back to the
// rolling update.

// ResizeMode is how a strategy applies a new pod size.
type ResizeMode string

const (
	// ResizeInPlaceOrRecreate resizes the running pods in place where the
	// cluster supports it, and rolls them (a pod template patch) where it
	// does not or where the kubelet cannot (see DecideInPlace).
	ResizeInPlaceOrRecreate ResizeMode = "InPlaceOrRecreate"
	// ResizeRecreate always patches the pod template, which rolls the pods.
	ResizeRecreate ResizeMode = "Recreate"
)

// Bounds after which a resize the kubelet has not finished falls back to the
// rolling update: those of the Vertical Pod Autoscaler's InPlaceOrRecreate
// mode (AEP-4016: Deferred for more than 5 minutes, InProgress for more than
// an hour).
const (
	DefaultResizeDeferredBound   = 5 * time.Minute
	DefaultResizeInProgressBound = time.Hour
)

// Kubelet resize states of a pod (the pod conditions PodResizePending, with
// reason Deferred or Infeasible, and PodResizeInProgress).
const (
	ResizeStateNone       = ""
	ResizeStateDeferred   = "Deferred"
	ResizeStateInfeasible = "Infeasible"
	ResizeStateInProgress = "InProgress"
)

// PodResize is what DecideInPlace reads of one running pod of the workload.
type PodResize struct {
	Name string
	// SpecAtTarget: the pod's spec already asks the target size (a resize was
	// sent, or the pod was created with it).
	SpecAtTarget bool
	// StatusAtTarget: the kubelet reports the container running with it.
	StatusAtTarget bool
	// State is the kubelet's resize state (ResizeState*), Since when it began.
	State string
	Since time.Time
	// Refused is the apiserver's refusal of the last resize sent ("" : none),
	// e.g. the node's allocatable is too small or the node does not support
	// resize; it is as final as Infeasible.
	Refused string
}

// InPlaceInput is DecideInPlace's input.
type InPlaceInput struct {
	Mode ResizeMode
	// Supported: the cluster serves pods/resize (discovery).
	Supported bool
	Pods      []PodResize
	Now       time.Time
	// DeferredBound and InProgressBound (0: the defaults above).
	DeferredBound, InProgressBound time.Duration
}

// InPlaceDecision is what to do toward the target size.
type InPlaceDecision struct {
	// Resize names the pods to resize in place now (pods/resize).
	Resize []string
	// Fallback: give up in place and patch the pod template (a rolling
	// update); Reason says why.
	Fallback bool
	Reason   string
	// Done: every pod runs with the target size.
	Done bool
}

// DecideInPlace decides how to bring a workload's running pods to a target
// size: resize in place the pods whose spec does not ask it yet, wait for the
// kubelet on those that do, or fall back to the rolling update when the mode
// is Recreate, the cluster does not support resize, or any pod's resize is
// refused, Infeasible, Deferred longer than DeferredBound or InProgress longer
// than InProgressBound (one pod that cannot be resized makes the rolling
// update the only way to a uniform size). Pure.
func DecideInPlace(in InPlaceInput) InPlaceDecision {
	if in.Mode == ResizeRecreate {
		return InPlaceDecision{Fallback: true, Reason: "resizePolicy is Recreate"}
	}
	if !in.Supported {
		return InPlaceDecision{Fallback: true, Reason: "the cluster does not serve pods/resize (in-place pod resize needs Kubernetes 1.33 or later)"}
	}
	deferred, inProgress := in.DeferredBound, in.InProgressBound
	if deferred <= 0 {
		deferred = DefaultResizeDeferredBound
	}
	if inProgress <= 0 {
		inProgress = DefaultResizeInProgressBound
	}
	d := InPlaceDecision{Done: true}
	for _, p := range in.Pods {
		switch {
		case p.Refused != "":
			return InPlaceDecision{Fallback: true, Reason: fmt.Sprintf("pod %s: resize refused: %s", p.Name, p.Refused)}
		case !p.SpecAtTarget:
			d.Resize = append(d.Resize, p.Name)
			d.Done = false
			continue
		case p.State == ResizeStateInfeasible:
			return InPlaceDecision{Fallback: true, Reason: fmt.Sprintf("pod %s: resize Infeasible on its node", p.Name)}
		case p.State == ResizeStateDeferred && in.Now.Sub(p.Since) > deferred:
			return InPlaceDecision{Fallback: true, Reason: fmt.Sprintf("pod %s: resize Deferred for more than %s", p.Name, deferred)}
		case p.State == ResizeStateInProgress && in.Now.Sub(p.Since) > inProgress:
			return InPlaceDecision{Fallback: true, Reason: fmt.Sprintf("pod %s: resize in progress for more than %s", p.Name, inProgress)}
		}
		if !p.StatusAtTarget {
			d.Done = false
		}
	}
	return d
}
