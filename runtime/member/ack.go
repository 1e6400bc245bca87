package member

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/auth/credentials/provider"
	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/requests"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
)

// ACKNodePoolLabel is the label ACK puts on a node pool's nodes (the pool's ID).
const ACKNodePoolLabel = "alibabacloud.com/nodepool-id"

// ACKAPI scales ACK node pools with the unmodified Alibaba Cloud CS SDK
// client (the "2015-12-15" ROA API): DescribeClusterNodePoolDetail,
// ModifyClusterNodePool (scaling_group.desired_size) and DeleteClusterNodes
// (the v1 SDK's call for RemoveNodePoolNodes: exact nodes, released).
//
// The v1 SDK retries timeouts only, so the adapter retries throttling
// (Throttling.*, HTTP 429/503) itself, with exponential backoff and jitter.
type ACKAPI struct {
	// Credentials: nil for the SDK's default chain (the environment's
	// ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET, then
	// the profile file, then the ECS instance's RAM role).
	Credentials provider.Provider
	// Endpoint is the CS API's base URL (http://127.0.0.1:PORT in the lab);
	// "" for the region's public endpoint.
	Endpoint string
	// Attempts and Backoff bound the throttling retries (default 5 attempts,
	// 200ms doubling to at most 5s).
	Attempts int
	Backoff  time.Duration
	// Recorder, when set, is told of every CS call (nil: none).
	Recorder CloudCallRecorder

	mu      sync.Mutex
	clients map[string]*cs.Client
}

func (a *ACKAPI) client(region string) (*cs.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.clients[region]; c != nil {
		return c, nil
	}
	var c *cs.Client
	var err error
	if a.Credentials != nil {
		c, err = cs.NewClientWithProvider(region, a.Credentials)
	} else {
		c, err = cs.NewClientWithProvider(region)
	}
	if err != nil {
		// The chain's error names what it looked for, never a key.
		return nil, fmt.Errorf("alibaba cloud credentials for %s: %w", region, err)
	}
	if a.clients == nil {
		a.clients = map[string]*cs.Client{}
	}
	a.clients[region] = c
	return c, nil
}

// ACKService is the service label of the CS (ACK) API's calls, Alibaba
// Cloud's product code.
const ACKService = "CS"

// CloudCallRecorder records one cloud API call once it is over, retries
// included: throttled is the number of its attempts refused by throttling,
// code is "" when it succeeded, else the API's error code ("Throttling.User",
// "ErrorNodePoolNotFound") or "canceled", "timeout" or "other" when it ended
// without an answer. runtime/telemetry's Metrics implements it.
type CloudCallRecorder interface {
	RecordCloudCall(service, operation string, throttled int, code string)
}

// ackCallCode is the code a recorder gets for a call's final error.
func ackCallCode(err error) string {
	if _, code, _, _, ok := ackErrorParts(err); ok && code != "" {
		return code
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "other"
}

// target points a request at Endpoint: the SDK builds ROA URLs as
// scheme://Domain:Port/path, so the port cannot go in the domain.
func (a *ACKAPI) target(req *requests.RoaRequest) error {
	if a.Endpoint == "" {
		return nil
	}
	u, err := url.Parse(a.Endpoint)
	if err != nil || u.Host == "" {
		return fmt.Errorf("ack endpoint %q is not an absolute URL", a.Endpoint)
	}
	req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
	return nil
}

// call runs one CS call, operation op (do, on the region's client, with
// Endpoint set on the request by target), retrying throttling with backoff,
// and tells Recorder how it went.
func (a *ACKAPI) call(ctx context.Context, region, op, what string, do func(c *cs.Client) error) (err error) {
	c, err := a.client(region)
	if err != nil {
		return err
	}
	throttled := 0
	if a.Recorder != nil {
		defer func() {
			code := ""
			if err != nil {
				code = ackCallCode(err)
			}
			a.Recorder.RecordCloudCall(ACKService, op, throttled, code)
		}()
	}
	attempts, backoff := a.Attempts, a.Backoff
	if attempts <= 0 {
		attempts = 5
	}
	if backoff <= 0 {
		backoff = 200 * time.Millisecond
	}
	for i := 0; ; i++ {
		err = do(c)
		if err == nil {
			return nil
		}
		if !ackThrottled(err) {
			return ackFailure(what, err)
		}
		throttled++
		if i+1 >= attempts {
			return fmt.Errorf("%s: %w after %d attempts: %w", what, ErrThrottled, attempts, ackError{err})
		}
		// Jittered exponential backoff, as aws-sdk-go-v2's standard retryer.
		d := min(backoff<<i, 5*time.Second)
		d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(d):
		}
	}
}

// ackFailure wraps a CS error that is not retried: ErrNodegroupNotFound for
// an unknown pool or cluster, ErrCloudUnavailable for a server error (5xx;
// 503 is retried as throttling).
func ackFailure(what string, err error) error {
	if ackNotFound(err) {
		return fmt.Errorf("%s: %w: %w", what, ErrNodegroupNotFound, ackError{err})
	}
	if status, _, _, _, ok := ackErrorParts(err); ok && status >= 500 {
		return fmt.Errorf("%s: %w: %w", what, ErrCloudUnavailable, ackError{err})
	}
	return fmt.Errorf("%s: %w", what, ackError{err})
}

// ackError renders a CS error as "code: message (HTTP n, request ID r)":
// CS service errors put their JSON body in the SDK's Message().
type ackError struct{ err error }

func (e ackError) Error() string {
	status, code, msg, reqID, ok := ackErrorParts(e.err)
	if !ok {
		return e.err.Error()
	}
	s := fmt.Sprintf("%s: %s (HTTP %d", code, msg, status)
	if reqID != "" {
		s += ", request ID " + reqID
	}
	return s + ")"
}

func (e ackError) Unwrap() error { return e.err }

func ackErrorParts(err error) (status int, code, msg, requestID string, ok bool) {
	var se *sdkerrors.ServerError
	if !errors.As(err, &se) {
		return 0, "", "", "", false
	}
	if se.ErrorCode() != "" {
		return se.HttpStatus(), se.ErrorCode(), se.Message(), se.RequestId(), true
	}
	var body struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"requestId"`
	}
	if json.Unmarshal([]byte(se.Message()), &body) != nil || body.Code == "" {
		return se.HttpStatus(), "", se.Message(), se.RequestId(), true
	}
	return se.HttpStatus(), body.Code, body.Message, body.RequestID, true
}

func ackThrottled(err error) bool {
	status, code, _, _, ok := ackErrorParts(err)
	return ok && (strings.HasPrefix(code, "Throttling") || status == 429 || status == 503)
}

func ackNotFound(err error) bool {
	status, code, _, _, ok := ackErrorParts(err)
	return ok && (code == "ErrorNodePoolNotFound" || code == "ErrorClusterNotFound" || (code == "" && status == 404))
}

// ackPoolDetail is the part of DescribeClusterNodePoolDetail's answer the
// adapter reads (the v1 SDK declares the response without fields).
type ackPoolDetail struct {
	ScalingGroup struct {
		DesiredSize *int32 `json:"desired_size"`
	} `json:"scaling_group"`
	AutoScaling struct {
		Enable       bool  `json:"enable"`
		MinInstances int32 `json:"min_instances"`
		MaxInstances int32 `json:"max_instances"`
	} `json:"auto_scaling"`
	Status struct {
		State       string `json:"state"`
		TotalNodes  int32  `json:"total_nodes"`
		FailedNodes int32  `json:"failed_nodes"`
	} `json:"status"`
}

// DescribeNodePool reads an ACK node pool's desired size, bounds (those of
// its auto scaling when enabled; else none), state and failed nodes.
func (a *ACKAPI) DescribeNodePool(ctx context.Context, clusterID, region, poolID string) (GroupState, error) {
	var body []byte
	what := fmt.Sprintf("describe ack node pool %s/%s in %s", clusterID, poolID, region)
	err := a.call(ctx, region, "DescribeClusterNodePoolDetail", what, func(c *cs.Client) error {
		req := cs.CreateDescribeClusterNodePoolDetailRequest()
		req.ClusterId, req.NodepoolId = clusterID, poolID
		if err := a.target(req.RoaRequest); err != nil {
			return err
		}
		resp, err := c.DescribeClusterNodePoolDetail(req)
		if err == nil {
			body = resp.GetHttpContentBytes()
		}
		return err
	})
	if err != nil {
		return GroupState{}, err
	}
	return ackState(body)
}

// ackState maps DescribeClusterNodePoolDetail's answer to a GroupState. ACK
// scales a pool while it is active, scaling or removing; failed_nodes are
// nodes the pool could not create (ECS quota, no stock).
func ackState(body []byte) (GroupState, error) {
	var d ackPoolDetail
	if err := json.Unmarshal(body, &d); err != nil {
		return GroupState{}, fmt.Errorf("decode DescribeClusterNodePoolDetail answer: %w", err)
	}
	if d.ScalingGroup.DesiredSize == nil {
		return GroupState{}, errors.New("DescribeClusterNodePoolDetail answer has no scaling_group.desired_size")
	}
	st := GroupState{Desired: *d.ScalingGroup.DesiredSize, Status: d.Status.State}
	switch d.Status.State {
	case "active", "scaling", "removing":
		st.Status = "ACTIVE"
	}
	if d.AutoScaling.Enable {
		st.Min, st.Max = d.AutoScaling.MinInstances, d.AutoScaling.MaxInstances
	}
	if d.Status.FailedNodes > 0 {
		st.Issues = append(st.Issues, fmt.Sprintf("FailedNodes: %d nodes of the pool could not be created (ECS quota or stock: see the pool's scaling activities)", d.Status.FailedNodes))
	}
	return st, nil
}

// SetNodePoolDesired sets an ACK node pool's desired size
// (ModifyClusterNodePool scaling_group.desired_size).
func (a *ACKAPI) SetNodePoolDesired(ctx context.Context, clusterID, region, poolID string, desired int32) error {
	body, err := json.Marshal(map[string]any{"scaling_group": map[string]any{"desired_size": desired}})
	if err != nil {
		return err
	}
	what := fmt.Sprintf("set the desired size of ack node pool %s/%s in %s to %d", clusterID, poolID, region, desired)
	return a.call(ctx, region, "ModifyClusterNodePool", what, func(c *cs.Client) error {
		req := cs.CreateModifyClusterNodePoolRequest()
		req.ClusterId, req.NodepoolId = clusterID, poolID
		req.SetContent(body)
		req.SetContentType("application/json")
		if err := a.target(req.RoaRequest); err != nil {
			return err
		}
		_, err := c.ModifyClusterNodePool(req)
		return err
	})
}

// RemoveNodePoolNodes removes the given nodes of an ACK node pool and
// releases their ECS instances (DeleteClusterNodes with release_node; the
// nodes are cordoned and empty already, so no drain). The pool's desired size
// drops by as many.
func (a *ACKAPI) RemoveNodePoolNodes(ctx context.Context, clusterID, region, poolID string, nodes []GroupNode) error {
	if len(nodes) == 0 {
		return nil
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	body, err := json.Marshal(map[string]any{"nodes": names, "release_node": true, "drain_node": false})
	if err != nil {
		return err
	}
	what := fmt.Sprintf("remove nodes %s of ack node pool %s/%s in %s", strings.Join(names, ", "), clusterID, poolID, region)
	return a.call(ctx, region, "DeleteClusterNodes", what, func(c *cs.Client) error {
		req := cs.CreateDeleteClusterNodesRequest()
		req.ClusterId = clusterID
		req.SetContent(body)
		req.SetContentType("application/json")
		if err := a.target(req.RoaRequest); err != nil {
			return err
		}
		_, err := c.DeleteClusterNodes(req)
		return err
	})
}
