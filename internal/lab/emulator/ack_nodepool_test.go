package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
)

// ackPoolEnv is an ACK emulator on memClusters with one running cluster that
// has an on-demand pool of 1 node and a spot pool of 0.
type ackPoolEnv struct {
	a        *ACK
	endpoint string
	mem      *memClusters
	cli      *cs.Client
	id, lab  string
	od, spot string // node pool IDs
}

func newACKPoolEnv(t *testing.T, opts ACKOptions) *ackPoolEnv {
	t.Helper()
	mem := newMemClusters()
	a := NewACK(mem, opts)
	t.Cleanup(a.Close)
	e := &ackPoolEnv{a: a, endpoint: ackServe(t, a), mem: mem, cli: ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)}
	body := map[string]any{
		"name": "burst", "region_id": "cn-hangzhou", "cluster_type": "ManagedKubernetes", "vswitch_ids": []string{"vsw-1"},
		"nodepools": []map[string]any{
			{"nodepool_info": map[string]any{"name": "od"}, "scaling_group": map[string]any{"instance_types": []string{"ecs.g6.large"}, "desired_size": 1}},
			{"nodepool_info": map[string]any{"name": "spot"}, "scaling_group": map[string]any{"instance_types": []string{"ecs.c6.large"}, "desired_size": 0, "spot_strategy": "SpotAsPriceGo"}},
		},
	}
	resp, err := ackCreate(t, e.cli, e.endpoint, body)
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	e.id = resp.ClusterId
	e.lab = "ack-" + e.id[1:13]
	waitFor(t, "cluster running", func() bool {
		d, err := ackDetail(t, e.cli, e.endpoint, e.id)
		return err == nil && d["state"] == ACKStateRunning
	})
	for _, p := range e.pools(t) {
		switch p.NodepoolInfo.Name {
		case "od":
			e.od = p.NodepoolInfo.NodepoolID
		case "spot":
			e.spot = p.NodepoolInfo.NodepoolID
		}
	}
	if e.od == "" || e.spot == "" {
		t.Fatalf("DescribeClusterNodePools lacks the pools: %+v", e.pools(t))
	}
	return e
}

func (e *ackPoolEnv) pools(t *testing.T) []ackNodePool {
	t.Helper()
	req := cs.CreateDescribeClusterNodePoolsRequest()
	ackTarget(t, req.RoaRequest, e.endpoint)
	req.ClusterId = e.id
	resp, err := e.cli.DescribeClusterNodePools(req)
	if err != nil {
		t.Fatalf("DescribeClusterNodePools: %v", err)
	}
	var out struct {
		Nodepools []ackNodePool `json:"nodepools"`
	}
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &out); err != nil {
		t.Fatalf("DescribeClusterNodePools body: %v", err)
	}
	return out.Nodepools
}

func (e *ackPoolEnv) detail(t *testing.T, pool string) ackNodePool {
	t.Helper()
	req := cs.CreateDescribeClusterNodePoolDetailRequest()
	ackTarget(t, req.RoaRequest, e.endpoint)
	req.ClusterId, req.NodepoolId = e.id, pool
	resp, err := e.cli.DescribeClusterNodePoolDetail(req)
	if err != nil {
		t.Fatalf("DescribeClusterNodePoolDetail: %v", err)
	}
	var out ackNodePool
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &out); err != nil {
		t.Fatalf("DescribeClusterNodePoolDetail body: %v", err)
	}
	return out
}

func (e *ackPoolEnv) scale(t *testing.T, pool string, count int) (string, error) {
	t.Helper()
	req := cs.CreateScaleClusterNodePoolRequest()
	ackTarget(t, req.RoaRequest, e.endpoint)
	req.ClusterId, req.NodepoolId = e.id, pool
	req.SetContent([]byte(`{"count":` + itoa(count) + `}`))
	req.SetContentType("application/json")
	resp, err := e.cli.ScaleClusterNodePool(req)
	if err != nil {
		return "", err
	}
	return resp.TaskId, nil
}

func (e *ackPoolEnv) setDesired(t *testing.T, pool string, desired int) (string, error) {
	t.Helper()
	req := cs.CreateModifyClusterNodePoolRequest()
	ackTarget(t, req.RoaRequest, e.endpoint)
	req.ClusterId, req.NodepoolId = e.id, pool
	req.SetContent([]byte(`{"scaling_group":{"desired_size":` + itoa(desired) + `}}`))
	req.SetContentType("application/json")
	resp, err := e.cli.ModifyClusterNodePool(req)
	if err != nil {
		return "", err
	}
	return resp.TaskId, nil
}

func (e *ackPoolEnv) task(t *testing.T, id string) ackTaskInfo {
	t.Helper()
	_, info := ackTaskInfoOf(t, e.cli, e.endpoint, id)
	return info
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestACKNodePoolScaling drives the node pool calls through the unmodified cs
// client: new nodes come after the boot delay, the task says when, and the
// failures come with ECS's codes.
func TestACKNodePoolScaling(t *testing.T) {
	e := newACKPoolEnv(t, ACKOptions{NodeBootDelay: time.Second, VCPUQuota: map[string]int{"SPOT": 4}})
	if n := e.mem.poolNodes(e.lab, "od"); len(n) != 1 {
		t.Fatalf("nodes of pool od after creation: %v, want the 1 created with the cluster", n)
	}

	task, err := e.scale(t, e.od, 2)
	if err != nil {
		t.Fatalf("ScaleClusterNodePool: %v", err)
	}
	d := e.detail(t, e.od)
	if d.ScalingGroup.DesiredSize != 3 || d.Status.State != "scaling" || d.Status.HealthyNodes != 1 || d.Status.InitialNodes != 2 {
		t.Errorf("right after scaling by 2: desired %d state %s healthy %d initial %d, want 3 scaling 1 2", d.ScalingGroup.DesiredSize, d.Status.State, d.Status.HealthyNodes, d.Status.InitialNodes)
	}
	if n := e.mem.poolNodes(e.lab, "od"); len(n) != 1 {
		t.Errorf("nodes right after scaling: %v, want still 1", n)
	}
	if st := e.task(t, task).State; st != ACKTaskRunning {
		t.Errorf("scaling task right after the call: %s, want running", st)
	}
	waitFor(t, "the scaling task to succeed", func() bool { return e.task(t, task).State == ACKTaskSuccess })
	names := e.mem.poolNodes(e.lab, "od")
	if len(names) != 3 {
		t.Fatalf("nodes after the task: %v, want 3", names)
	}
	node, _ := e.mem.node(e.lab, names[2])
	if node.pool.Labels["alibabacloud.com/nodepool-id"] != e.od || node.pool.Labels["node.kubernetes.io/instance-type"] != "ecs.g6.large" {
		t.Errorf("labels of a new node: %v, want nodepool-id %s and instance type ecs.g6.large", node.pool.Labels, e.od)
	}

	// Setting the desired size lower removes nodes, empty ones first.
	e.mem.setPods(e.lab, names[1], 3)
	if _, err := e.setDesired(t, e.od, 1); err != nil {
		t.Fatalf("ModifyClusterNodePool: %v", err)
	}
	waitFor(t, "pool od at 1 node", func() bool { return len(e.mem.poolNodes(e.lab, "od")) == 1 })
	if got := e.mem.poolNodes(e.lab, "od"); got[0] != names[1] {
		t.Errorf("node left: %s, want the busy %s", got[0], names[1])
	}

	// DeleteClusterNodes removes a named node and lowers the desired size.
	req := cs.CreateDeleteClusterNodesRequest()
	ackTarget(t, req.RoaRequest, e.endpoint)
	req.ClusterId = e.id
	req.SetContent([]byte(`{"nodes":["` + names[1] + `"],"release_node":true}`))
	req.SetContentType("application/json")
	if _, err := e.cli.DeleteClusterNodes(req); err != nil {
		t.Fatalf("DeleteClusterNodes: %v", err)
	}
	waitFor(t, "pool od empty", func() bool { return len(e.mem.poolNodes(e.lab, "od")) == 0 })
	if d := e.detail(t, e.od); d.ScalingGroup.DesiredSize != 0 {
		t.Errorf("desired size after removing its last node: %d, want 0", d.ScalingGroup.DesiredSize)
	}

	// Spot quota: 4 vCPUs hold 2 ecs.c6.large; the task fails with ECS's code.
	task, err = e.scale(t, e.spot, 3)
	if err != nil {
		t.Fatalf("ScaleClusterNodePool spot: %v", err)
	}
	waitFor(t, "the spot task to end", func() bool { return e.task(t, task).State != ACKTaskRunning })
	info := e.task(t, task)
	if info.State != ACKTaskFail || info.Error == nil || info.Error.Code != ACKErrQuotaExceeded {
		t.Errorf("spot task beyond the quota: %+v, want fail %s", info, ACKErrQuotaExceeded)
	}
	waitFor(t, "2 spot nodes", func() bool { return len(e.mem.poolNodes(e.lab, "spot")) == 2 })
	if st := e.detail(t, e.spot).Status; st.FailedNodes != 1 || st.HealthyNodes != 2 {
		t.Errorf("spot pool status beyond the quota: %+v, want 1 failed node (desired 3, 2 healthy)", st)
	}

	e.a.SetVCPUQuota("SPOT", 0)
	e.a.SetInsufficientCapacity("ecs.c6.large", true)
	task, _ = e.scale(t, e.spot, 1)
	waitFor(t, "the no-stock task to end", func() bool { return e.task(t, task).State != ACKTaskRunning })
	if info := e.task(t, task); info.Error == nil || info.Error.Code != ACKErrNoStock {
		t.Errorf("task without stock: %+v, want %s", info, ACKErrNoStock)
	}
	// The quota's lifting started a third node before the stock ran out:
	// the fourth is the one that cannot come.
	if st := e.detail(t, e.spot).Status; st.FailedNodes < 1 || st.FailedNodes != 4-st.HealthyNodes-st.InitialNodes {
		t.Errorf("spot pool status without stock: %+v, want the nodes neither healthy nor booting of 4 failed", st)
	}
	e.a.SetInsufficientCapacity("ecs.c6.large", false)
	waitFor(t, "4 spot nodes and none failed once the stock is back", func() bool {
		return len(e.mem.poolNodes(e.lab, "spot")) == 4 && e.detail(t, e.spot).Status.FailedNodes == 0
	})
}

func TestACKNodePoolRefusals(t *testing.T) {
	e := newACKPoolEnv(t, ACKOptions{NodeBootDelay: -1})
	tests := []struct {
		name       string
		call       func() error
		wantStatus int
		wantCode   string
		wantMsg    string
	}{
		{"unknown pool", func() error { _, err := e.scale(t, "np0", 1); return err }, http.StatusNotFound, ACKErrNodePoolNotFound, "node pool np0 not found"},
		{"count 0", func() error { _, err := e.scale(t, e.od, 0); return err }, http.StatusBadRequest, ACKErrInvalidParameter, "count is required and must be 1 or more"},
		{"above the pool limit", func() error { _, err := e.setDesired(t, e.od, 101); return err }, http.StatusBadRequest, ACKErrInvalidParameter, "at most 100"},
		{"negative desired", func() error { _, err := e.setDesired(t, e.od, -1); return err }, http.StatusBadRequest, ACKErrInvalidParameter, "desired_size -1 is invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil {
				t.Fatal("call succeeded, want an error")
			}
			status, code, msg := ackErrCode(t, err)
			if status != tc.wantStatus || code != tc.wantCode || !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("error %d %s %q, want %d %s containing %q", status, code, msg, tc.wantStatus, tc.wantCode, tc.wantMsg)
			}
		})
	}

	t.Run("throttling", func(t *testing.T) {
		labPost(t, e.endpoint+"/lab/v1/throttling", ThrottleConfig{Next: 1})
		_, err := e.scale(t, e.od, 1)
		if err == nil {
			t.Fatal("throttled call succeeded")
		}
		status, code, msg := ackErrCode(t, err)
		if status != http.StatusBadRequest || code != ACKErrThrottling || msg != "Request was denied due to user flow control." {
			t.Errorf("throttled call: %d %s %q, want 400 %s", status, code, msg, ACKErrThrottling)
		}
		if _, err := e.scale(t, e.od, 1); err != nil {
			t.Errorf("call after the throttled one: %v", err)
		}
	})

	// Server errors reach the caller (the v1 SDK does not retry without
	// AutoRetry): the CS service's 500 InternalError and 503
	// ServiceUnavailable, account-wide or scoped to one cluster's calls.
	t.Run("server errors", func(t *testing.T) {
		for _, tc := range []struct {
			cfg        ServerErrorConfig
			calls      int
			wantStatus int
			wantCode   string
			wantMsg    string
		}{
			{ServerErrorConfig{Status: 500, Next: 1}, 1, http.StatusInternalServerError, ACKErrInternal, "The request processing has failed due to some unknown error."},
			{ServerErrorConfig{Status: 503, Cluster: e.id}, 3, http.StatusServiceUnavailable, "ServiceUnavailable", "The request has failed due to a temporary failure of the server."},
		} {
			labPost(t, e.endpoint+"/lab/v1/server-errors", tc.cfg)
			for i := range tc.calls {
				_, err := e.scale(t, e.od, 1)
				if err == nil {
					t.Fatalf("%+v: call %d succeeded", tc.cfg, i+1)
				}
				if status, code, msg := ackErrCode(t, err); status != tc.wantStatus || code != tc.wantCode || msg != tc.wantMsg {
					t.Errorf("%+v: call %d: %d %s %q, want %d %s %q", tc.cfg, i+1, status, code, msg, tc.wantStatus, tc.wantCode, tc.wantMsg)
				}
			}
			if tc.cfg.Cluster != "" {
				labPost(t, e.endpoint+"/lab/v1/server-errors", ServerErrorConfig{Status: 500, Cluster: "c-someone-elses"})
				labPost(t, e.endpoint+"/lab/v1/server-errors", ServerErrorConfig{Cluster: tc.cfg.Cluster})
			}
			if _, err := e.scale(t, e.od, 1); err != nil {
				t.Errorf("call after %+v ended: %v", tc.cfg, err)
			}
		}
		labPost(t, e.endpoint+"/lab/v1/server-errors", ServerErrorConfig{Cluster: "c-someone-elses"})
	})
}

// TestACKSpotInterruption: the ACK emulator's spot endpoint takes the cluster
// ID; a node of a NoSpot pool is refused, a spot node is noticed, removed and
// replaced.
func TestACKSpotInterruption(t *testing.T) {
	e := newACKPoolEnv(t, ACKOptions{NodeBootDelay: 50 * time.Millisecond, SpotNotice: 200 * time.Millisecond})
	task, err := e.scale(t, e.spot, 1)
	if err != nil {
		t.Fatalf("ScaleClusterNodePool: %v", err)
	}
	waitFor(t, "the spot node", func() bool { return e.task(t, task).State == ACKTaskSuccess })
	victim := e.mem.poolNodes(e.lab, "spot")[0]
	if status, body := labPostStatus(t, e.endpoint+"/lab/v1/spot-interruptions", SpotInterruption{Cluster: e.id, Node: e.mem.poolNodes(e.lab, "od")[0]}); status != http.StatusBadRequest || !strings.Contains(body, "only Spot nodes") {
		t.Errorf("interrupting an on-demand node: %d %s, want 400", status, body)
	}
	labPost(t, e.endpoint+"/lab/v1/spot-interruptions", SpotInterruption{Cluster: e.id, Node: victim})
	if n, _ := e.mem.node(e.lab, victim); !n.cordon {
		t.Errorf("spot node under notice is not cordoned")
	}
	waitFor(t, "the interrupted node to go", func() bool { _, ok := e.mem.node(e.lab, victim); return !ok })
	waitFor(t, "a replacement", func() bool { return len(e.mem.poolNodes(e.lab, "spot")) == 1 })
}
