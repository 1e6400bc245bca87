package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// EKS node group capacity: the boot delay, the account's vCPU quotas, injected
// capacity shortages and throttling, and spot interruptions (the lab's
// /lab/v1/... endpoints, which are no part of the EKS API and need no signature).

// eksFleetSet hands a node group's desired size and node shape to the fleet.
func (a *AWS) eksFleetSet(key fleetKey, ng *eksNodegroupState) {
	it := ng.view.InstanceTypes[0]
	vcpus, _ := strconv.Atoi(eksInstanceTypes[it].CPU)
	zone := ng.pool.Labels["topology.kubernetes.io/region"] + "a"
	a.fleet.set(key, poolSpec{shape: ng.pool, capacityType: ng.view.CapacityType, instanceType: it, vcpus: vcpus,
		desired: *ng.view.ScalingConfig.DesiredSize, boot: bootFromTag(ng.view.Tags),
		providerID: func(node string) string { return "aws:///" + zone + "/" + ec2InstanceID(key.cluster, node) }})
}

// eksLaunchError is a node group creation that failed because its instances
// could not launch.
type eksLaunchError struct{ issue eksIssue }

func (e eksLaunchError) Error() string { return e.issue.Code + ": " + e.issue.Message }

// eksIssueOf is the health issue EKS reports when the node group's Auto Scaling
// group cannot launch instances: AsgInstanceLaunchFailures, with the EC2 error
// in the message as the Auto Scaling activity records it.
func eksIssueOf(li *launchIssue, ng eksNodegroup) eksIssue {
	market := "On-Demand"
	if ng.CapacityType == "SPOT" {
		market = "Spot"
	}
	asg := ng.NodegroupName
	if ng.Resources != nil && len(ng.Resources.AutoScalingGroups) > 0 {
		asg = ng.Resources.AutoScalingGroups[0].Name
	}
	var msg string
	switch li.kind {
	case launchQuota:
		msg = fmt.Sprintf("Could not launch %s Instances. VcpuLimitExceeded - You have requested more vCPU capacity than your current vCPU limit of %d allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. Launching EC2 instance failed.", market, li.limit)
	case launchNoCapacity:
		msg = fmt.Sprintf("Could not launch %s Instances. InsufficientInstanceCapacity - We currently do not have sufficient %s capacity in the Availability Zone you requested. Our system will be working on provisioning additional capacity. You can currently get %s capacity by not specifying an Availability Zone in your request or choosing a different Availability Zone. Launching EC2 instance failed.", market, ng.InstanceTypes[0], ng.InstanceTypes[0])
	default:
		return eksIssue{Code: "NodeCreationFailure", Message: "Instances failed to join the kubernetes cluster: " + li.err, ResourceIDs: []string{asg}}
	}
	return eksIssue{Code: "AsgInstanceLaunchFailures", Message: msg, ResourceIDs: []string{asg}}
}

// InterruptSpot gives a Ready node of a SPOT node group of the EKS cluster the
// interruption notice and returns the notice's length (see
// SpotInterruptionTaint).
func (a *AWS) InterruptSpot(ctx context.Context, cluster, node string) (time.Duration, error) {
	a.mu.Lock()
	cl, ok := a.eks[cluster]
	var labName string
	if ok {
		labName = cl.labName
	}
	a.mu.Unlock()
	if !ok {
		return 0, interruptError{fmt.Sprintf("no EKS cluster named %q", cluster)}
	}
	return a.fleet.interrupt(ctx, labName, node)
}

// eksThrottled answers a throttled call as EKS does (HTTP 429,
// ThrottlingException), which the AWS SDK's retryer treats as throttling.
func eksThrottled(w http.ResponseWriter) {
	eksError(w, http.StatusTooManyRequests, "ThrottlingException", "Rate exceeded")
}

// labHandler is the shape of the lab's control endpoints: decode the JSON body
// into in, act, answer JSON or a 400 with the error.
func labHandler[T any](act func(ctx context.Context, in T) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in T
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
			labReply(w, http.StatusBadRequest, map[string]string{"error": "cannot parse the request body as JSON: " + err.Error()})
			return
		}
		out, err := act(r.Context(), in)
		if err != nil {
			status := http.StatusInternalServerError
			var ie interruptError
			if errors.As(err, &ie) {
				status = http.StatusBadRequest
			}
			labReply(w, status, map[string]string{"error": err.Error()})
			return
		}
		labReply(w, http.StatusOK, out)
	}
}

func labReply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// SpotInterruption is the body of POST /lab/v1/spot-interruptions.
type SpotInterruption struct {
	// Cluster is the EKS cluster name (the ACK cluster ID on the ACK emulator).
	Cluster string `json:"cluster"`
	// Node is the Kubernetes node name.
	Node string `json:"node"`
}

// CapacityFault is the body of POST /lab/v1/insufficient-capacity.
type CapacityFault struct {
	InstanceType string `json:"instanceType"`
	Insufficient bool   `json:"insufficient"`
}

// QuotaSetting is the body of POST /lab/v1/vcpu-quota.
type QuotaSetting struct {
	// CapacityType is ON_DEMAND or SPOT.
	CapacityType string `json:"capacityType"`
	// VCPUs is the limit; 0 removes it.
	VCPUs int `json:"vcpus"`
}

// labRoutes adds the lab's control endpoints to mux.
func labRoutes(mux *http.ServeMux, l labFaults, interrupt func(ctx context.Context, cluster, node string) (time.Duration, error)) {
	f, t := l.fleet, l.throttle
	mux.HandleFunc("POST /lab/v1/spot-interruptions", labHandler(func(ctx context.Context, in SpotInterruption) (any, error) {
		d, err := interrupt(ctx, in.Cluster, in.Node)
		if err != nil {
			return nil, err
		}
		return map[string]any{"cluster": in.Cluster, "node": in.Node, "noticeSeconds": d.Seconds(), "taint": SpotInterruptionTaint}, nil
	}))
	mux.HandleFunc("POST /lab/v1/throttling", labHandler(func(_ context.Context, in ThrottleConfig) (any, error) {
		t.set(in)
		return in, nil
	}))
	mux.HandleFunc("POST /lab/v1/server-errors", labHandler(func(_ context.Context, in ServerErrorConfig) (any, error) {
		if err := l.serverErrors.set(in); err != nil {
			return nil, err
		}
		return in, nil
	}))
	mux.HandleFunc("POST /lab/v1/insufficient-capacity", labHandler(func(_ context.Context, in CapacityFault) (any, error) {
		if in.InstanceType == "" {
			return nil, interruptError{"instanceType is required"}
		}
		f.setShort(in.InstanceType, in.Insufficient)
		return in, nil
	}))
	mux.HandleFunc("POST /lab/v1/vcpu-quota", labHandler(func(_ context.Context, in QuotaSetting) (any, error) {
		if in.CapacityType != "ON_DEMAND" && in.CapacityType != "SPOT" {
			return nil, interruptError{fmt.Sprintf("capacityType %q is invalid: use ON_DEMAND or SPOT", in.CapacityType)}
		}
		f.setQuota(in.CapacityType, in.VCPUs)
		return in, nil
	}))
}
