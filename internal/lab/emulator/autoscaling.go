package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"time"
)

// Amazon EC2 Auto Scaling, the part HCA uses: TerminateInstanceInAutoScalingGroup
// on the Auto Scaling groups behind EKS managed node groups. It is the Query API
// (version 2011-01-01: a POST of a URL-encoded form to "/", XML answers), served
// on the AWS emulator's base URL beside STS; requests are told apart by Version
// and must be signed for the service "autoscaling".
//
// A node the emulator boots for a node group has the provider ID
// aws:///<region>a/<instance ID>, its instance ID derived from the lab cluster
// and node names (ec2InstanceID). Errors are Auto Scaling's: ValidationError
// (unknown instance, the minimum size, missing parameters), Throttling (the
// lab's throttling), InvalidAction.

const (
	asVersion = "2011-01-01"
	asXMLNS   = "http://autoscaling.amazonaws.com/doc/2011-01-01/"
)

// ec2InstanceID is the EC2 instance ID of a lab node ("i-" and 17 hex digits).
func ec2InstanceID(labCluster, node string) string {
	h := sha256.Sum256([]byte(labCluster + "/" + node))
	return "i-" + hex.EncodeToString(h[:])[:17]
}

type asActivity struct {
	ActivityID           string `xml:"ActivityId"`
	AutoScalingGroupName string `xml:"AutoScalingGroupName"`
	Description          string `xml:"Description"`
	Cause                string `xml:"Cause"`
	StartTime            string `xml:"StartTime"`
	StatusCode           string `xml:"StatusCode"`
	Progress             int    `xml:"Progress"`
	Details              string `xml:"Details"`
}

type asTerminateResponse struct {
	XMLName  xml.Name            `xml:"TerminateInstanceInAutoScalingGroupResponse"`
	XMLNS    string              `xml:"xmlns,attr"`
	Activity asActivity          `xml:"TerminateInstanceInAutoScalingGroupResult>Activity"`
	Metadata stsResponseMetadata `xml:"ResponseMetadata"`
}

type asErrorResponse struct {
	XMLName   xml.Name     `xml:"ErrorResponse"`
	XMLNS     string       `xml:"xmlns,attr"`
	Error     stsErrorBody `xml:"Error"`
	RequestID string       `xml:"RequestId"`
}

func asError(w http.ResponseWriter, reqID string, status int, code, msg string) {
	asErrorType(w, reqID, status, "Sender", code, msg)
}

// asErrorType is asError with the error's type: Sender (the caller's
// fault) or Receiver (the service's).
func asErrorType(w http.ResponseWriter, reqID string, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(asErrorResponse{XMLNS: asXMLNS, Error: stsErrorBody{Type: typ, Code: code, Message: msg}, RequestID: reqID})
}

// serveAutoScaling answers an Auto Scaling Query API call whose form is params.
func (a *AWS) serveAutoScaling(w http.ResponseWriter, r *http.Request, body []byte, params url.Values) {
	reqID := w.Header().Get("x-amzn-RequestId")
	if _, aerr := a.awsVerify(awsFromHTTP(r, a.base.Scheme, body), "autoscaling"); aerr != nil {
		code := map[awsAuthKind]string{
			awsAuthMissing:      "MissingAuthenticationToken",
			awsAuthIncomplete:   "IncompleteSignature",
			awsAuthUnknownKey:   "InvalidClientTokenId",
			awsAuthBadSignature: "SignatureDoesNotMatch",
			awsAuthExpired:      "ExpiredToken",
		}[aerr.kind]
		asError(w, reqID, http.StatusForbidden, code, aerr.msg)
		return
	}
	if !a.throttle.allow("") {
		asError(w, reqID, http.StatusBadRequest, "Throttling", "Rate exceeded")
		return
	}
	// Auto Scaling's calls name an instance, not a cluster: only an
	// account-wide setting reaches them.
	switch a.serverErrors.fail("") {
	case http.StatusInternalServerError:
		asErrorType(w, reqID, http.StatusInternalServerError, "Receiver", "InternalFailure", "The request processing has failed because of an unknown error, exception or failure.")
		return
	case http.StatusServiceUnavailable:
		asErrorType(w, reqID, http.StatusServiceUnavailable, "Receiver", "ServiceUnavailable", "The request has failed due to a temporary failure of the server.")
		return
	}
	switch action := params.Get("Action"); action {
	case "TerminateInstanceInAutoScalingGroup":
		a.asTerminate(w, reqID, params)
	default:
		asError(w, reqID, http.StatusBadRequest, "InvalidAction", fmt.Sprintf("Could not find operation %s for version %s (the lab emulates TerminateInstanceInAutoScalingGroup only)", action, asVersion))
	}
}

// asTerminate is TerminateInstanceInAutoScalingGroup: the instance's node leaves
// its node group; with ShouldDecrementDesiredCapacity the group's desired size
// (and its EKS node group's) drops by one, else the group launches a
// replacement.
func (a *AWS) asTerminate(w http.ResponseWriter, reqID string, params url.Values) {
	id, dec := params.Get("InstanceId"), params.Get("ShouldDecrementDesiredCapacity")
	switch {
	case id == "":
		asError(w, reqID, http.StatusBadRequest, "ValidationError", "1 validation error detected: Value null at 'instanceId' failed to satisfy constraint: Member must not be null")
		return
	case len(id) > 19:
		asError(w, reqID, http.StatusBadRequest, "ValidationError", fmt.Sprintf("1 validation error detected: Value '%s' at 'instanceId' failed to satisfy constraint: Member must have length less than or equal to 19", id))
		return
	case dec != "true" && dec != "false":
		asError(w, reqID, http.StatusBadRequest, "ValidationError", "1 validation error detected: Value null at 'shouldDecrementDesiredCapacity' failed to satisfy constraint: Member must not be null")
		return
	}
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.eks))
	for n := range a.eks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, cname := range names {
		cl := a.eks[cname]
		for _, ng := range cl.nodegroups {
			key := fleetKey{cl.labName, ng.pool.Name}
			for _, node := range a.fleet.readyNodes(key) {
				if ec2InstanceID(cl.labName, node) != id {
					continue
				}
				sc := &ng.view.ScalingConfig
				desired, minSize := *sc.DesiredSize, 0
				if sc.MinSize != nil {
					minSize = *sc.MinSize
				}
				if dec == "true" && desired <= minSize {
					asError(w, reqID, http.StatusBadRequest, "ValidationError", fmt.Sprintf("Currently, desiredSize equals minSize (%d). Terminating instance without replacement will violate group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min size.", minSize))
					return
				}
				if unknown := a.fleet.terminate(key, []string{node}, dec == "true"); len(unknown) > 0 {
					break
				}
				cause := fmt.Sprintf("At %s instance %s was taken out of service in response to a user request", now.UTC().Format(time.RFC3339), id)
				if dec == "true" {
					d := desired - 1
					sc.DesiredSize = &d
					ng.view.ModifiedAt = eksTime(now)
					cause += fmt.Sprintf(", shrinking the capacity from %d to %d", desired, d)
				}
				asg := ng.pool.Name
				if ng.view.Resources != nil && len(ng.view.Resources.AutoScalingGroups) > 0 {
					asg = ng.view.Resources.AutoScalingGroups[0].Name
				}
				w.Header().Set("Content-Type", "text/xml")
				_, _ = io.WriteString(w, xml.Header)
				_ = xml.NewEncoder(w).Encode(asTerminateResponse{XMLNS: asXMLNS, Metadata: stsResponseMetadata{RequestID: reqID}, Activity: asActivity{
					ActivityID: awsRequestID(), AutoScalingGroupName: asg, Description: "Terminating EC2 instance: " + id, Cause: cause + ".",
					StartTime: now.UTC().Format("2006-01-02T15:04:05.000Z"), StatusCode: "InProgress", Progress: 0,
					Details: fmt.Sprintf(`{"Subnet ID":"","Availability Zone":%q}`, ng.pool.Labels["topology.kubernetes.io/region"]+"a")}})
				return
			}
		}
	}
	asError(w, reqID, http.StatusBadRequest, "ValidationError", "Instance Id not found - No managed instance found for instance ID: "+id)
}
