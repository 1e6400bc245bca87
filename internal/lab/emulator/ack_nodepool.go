package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// ACK node pools: DescribeClusterNodePools, DescribeClusterNodePoolDetail,
// ScaleClusterNodePool, ModifyClusterNodePool (desired size) and
// DeleteClusterNodes, on the fleet that boots each node after the boot delay.

// ackLabPool is the lab node pool (shape and labels) of an ACK node pool.
func ackLabPool(c *ackCluster, p ackPool) lab.NodePool {
	return lab.NodePool{
		Name:   p.name,
		Count:  p.count,
		CPU:    p.cpu,
		Memory: p.memory,
		Labels: map[string]string{
			"node.kubernetes.io/instance-type": p.instanceType,
			"topology.kubernetes.io/region":    c.region,
			"alibabacloud.com/nodepool-name":   p.name,
			"alibabacloud.com/nodepool-id":     p.id,
			"alibabacloud.com/cluster-id":      c.id,
		},
	}
}

func (p ackPool) capacityType() string {
	if p.spotStrategy != "" && p.spotStrategy != ackNoSpot {
		return "SPOT"
	}
	return "ON_DEMAND"
}

// fleetSet hands a node pool's desired size to the fleet (under a.mu).
func (a *ACK) fleetSet(c *ackCluster, p ackPool, existing ...string) {
	if p.instanceType == "" {
		return // a pool of 0 nodes with no instance type: nothing to boot
	}
	vcpus, _ := strconv.Atoi(p.cpu)
	a.fleet.set(fleetKey{c.labName, p.name}, poolSpec{shape: ackLabPool(c, p), capacityType: p.capacityType(), instanceType: p.instanceType,
		vcpus: vcpus, desired: p.count, boot: bootFromTag(c.tags), existing: existing})
}

// InterruptSpot gives a Ready node of a spot node pool of the ACK cluster (by
// ID) the interruption notice and returns its length.
func (a *ACK) InterruptSpot(ctx context.Context, clusterID, node string) (time.Duration, error) {
	a.mu.Lock()
	c, ok := a.byID[clusterID]
	var labName string
	if ok {
		labName = c.labName
	}
	a.mu.Unlock()
	if !ok {
		return 0, interruptError{fmt.Sprintf("no ACK cluster with ID %q", clusterID)}
	}
	return a.fleet.interrupt(ctx, labName, node)
}

type ackNodePoolInfo struct {
	NodepoolID      string `json:"nodepool_id"`
	Name            string `json:"name"`
	Type            string `json:"type"`
	IsDefault       bool   `json:"is_default"`
	RegionID        string `json:"region_id"`
	ResourceGroupID string `json:"resource_group_id"`
	Created         string `json:"created"`
	Updated         string `json:"updated"`
}

type ackScalingGroup struct {
	ScalingGroupID     string   `json:"scaling_group_id"`
	InstanceTypes      []string `json:"instance_types"`
	DesiredSize        int      `json:"desired_size"`
	VSwitchIDs         []string `json:"vswitch_ids"`
	SpotStrategy       string   `json:"spot_strategy"`
	InstanceChargeType string   `json:"instance_charge_type"`
}

type ackNodePoolStatus struct {
	State         string `json:"state"`
	TotalNodes    int    `json:"total_nodes"`
	HealthyNodes  int    `json:"healthy_nodes"`
	ServingNodes  int    `json:"serving_nodes"`
	InitialNodes  int    `json:"initial_nodes"`
	FailedNodes   int    `json:"failed_nodes"`
	OfflineNodes  int    `json:"offline_nodes"`
	RemovingNodes int    `json:"removing_nodes"`
}

type ackAutoScaling struct {
	Enable       bool `json:"enable"`
	MaxInstances int  `json:"max_instances"`
	MinInstances int  `json:"min_instances"`
}

// ackNodePool is one element of DescribeClusterNodePools' "nodepools", and the
// body of DescribeClusterNodePoolDetail.
type ackNodePool struct {
	NodepoolInfo ackNodePoolInfo   `json:"nodepool_info"`
	ScalingGroup ackScalingGroup   `json:"scaling_group"`
	Status       ackNodePoolStatus `json:"status"`
	AutoScaling  ackAutoScaling    `json:"auto_scaling"`
}

func (a *ACK) nodePoolViewLocked(c *ackCluster, p ackPool) ackNodePool {
	st := a.fleet.status(fleetKey{c.labName, p.name})
	state := "active"
	switch {
	case st.booting > 0:
		state = "scaling"
	case st.ready > p.count:
		state = "removing"
	}
	// Nodes the pool cannot create (ECS quota, no stock) count as failed
	// until they can be.
	failed := 0
	if st.issue != nil {
		failed = max(0, p.count-st.ready-st.booting)
	}
	types := []string{}
	if p.instanceType != "" {
		types = []string{p.instanceType}
	}
	return ackNodePool{
		NodepoolInfo: ackNodePoolInfo{NodepoolID: p.id, Name: p.name, Type: "ess", IsDefault: p.name == ackDefaultNodePoolName,
			RegionID: c.region, Created: ackTime(p.created), Updated: ackTime(p.updated)},
		ScalingGroup: ackScalingGroup{ScalingGroupID: "asg-" + p.id[2:22], InstanceTypes: types, DesiredSize: p.count,
			VSwitchIDs: append([]string{}, c.vswitchIDs...), SpotStrategy: p.spotStrategy, InstanceChargeType: "PostPaid"},
		Status: ackNodePoolStatus{State: state, TotalNodes: st.ready + st.booting, HealthyNodes: st.ready, ServingNodes: st.ready,
			InitialNodes: st.booting, FailedNodes: failed, RemovingNodes: max(0, st.ready-p.count)},
	}
}

// ackFindPool looks a running cluster's node pool up under a.mu, writing ACK's
// error when there is none.
func (a *ACK) ackFindPool(w http.ResponseWriter, reqID, clusterID, poolID string) (*ackCluster, int, bool) {
	c, ok := a.byID[clusterID]
	if !ok {
		ackClusterNotFound(w, reqID, clusterID)
		return nil, 0, false
	}
	for i, p := range c.pools {
		if p.id == poolID {
			return c, i, true
		}
	}
	ackServiceError(w, reqID, http.StatusNotFound, ACKErrNodePoolNotFound, fmt.Sprintf("node pool %s not found in cluster %s", poolID, clusterID))
	return nil, 0, false
}

func (a *ACK) describeNodePools(w http.ResponseWriter, reqID, clusterID string) {
	a.mu.Lock()
	c, ok := a.byID[clusterID]
	out := []ackNodePool{}
	if ok {
		for _, p := range c.pools {
			out = append(out, a.nodePoolViewLocked(c, p))
		}
	}
	a.mu.Unlock()
	if !ok {
		ackClusterNotFound(w, reqID, clusterID)
		return
	}
	ackJSON(w, http.StatusOK, map[string]any{"nodepools": out})
}

func (a *ACK) describeNodePoolDetail(w http.ResponseWriter, reqID, clusterID, poolID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, i, ok := a.ackFindPool(w, reqID, clusterID, poolID)
	if !ok {
		return
	}
	ackJSON(w, http.StatusOK, a.nodePoolViewLocked(c, c.pools[i]))
}

// scaleNodePool is ScaleClusterNodePool: {"count": n} adds n nodes.
func (a *ACK) scaleNodePool(w http.ResponseWriter, reqID, clusterID, poolID string, body []byte) {
	var in struct {
		Count *int `json:"count"`
	}
	if err := ackDecode(body, &in); err != nil {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, err.Error())
		return
	}
	if in.Count == nil || *in.Count < 1 {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, "count is required and must be 1 or more: ScaleClusterNodePool adds count nodes (use ModifyClusterNodePool's scaling_group.desired_size to set the size)")
		return
	}
	a.resizePool(w, reqID, clusterID, poolID, func(cur int) int { return cur + *in.Count }, "count")
}

// modifyNodePool is ModifyClusterNodePool; the emulator acts on
// scaling_group.desired_size and accepts (ignores) the other members.
func (a *ACK) modifyNodePool(w http.ResponseWriter, reqID, clusterID, poolID string, body []byte) {
	var in struct {
		ScalingGroup *struct {
			DesiredSize *int `json:"desired_size"`
		} `json:"scaling_group"`
	}
	if err := ackDecode(body, &in); err != nil {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, err.Error())
		return
	}
	if in.ScalingGroup == nil || in.ScalingGroup.DesiredSize == nil {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, "scaling_group.desired_size is required: the ACK emulator modifies a node pool's desired size only")
		return
	}
	desired := *in.ScalingGroup.DesiredSize
	if desired < 0 {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, fmt.Sprintf("scaling_group.desired_size %d is invalid: use 0 or more", desired))
		return
	}
	a.resizePool(w, reqID, clusterID, poolID, func(int) int { return desired }, "scaling_group.desired_size")
}

func (a *ACK) resizePool(w http.ResponseWriter, reqID, clusterID, poolID string, next func(cur int) int, field string) {
	now := a.opts.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	c, i, ok := a.ackFindPool(w, reqID, clusterID, poolID)
	if !ok {
		return
	}
	p := &c.pools[i]
	desired := next(p.count)
	switch {
	case c.state != ACKStateRunning:
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrClusterState, fmt.Sprintf("cluster %s is %s: node pools can be scaled once it is running", c.id, c.state))
		return
	case p.instanceType == "":
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, fmt.Sprintf("node pool %s has no instance type: create it with scaling_group.instance_types", p.id))
		return
	case desired > ackMaxPoolNodes:
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, fmt.Sprintf("%s would make node pool %s %d nodes: a node pool holds at most %d", field, p.id, desired, ackMaxPoolNodes))
		return
	}
	p.count, p.updated, c.updated = desired, now, now
	a.fleetSet(c, *p)
	task := a.newTaskLocked(c.id, ACKTaskScale, now)
	a.wg.Add(1)
	go a.runPoolTask(task, fleetKey{c.labName, p.name})
	ackJSON(w, http.StatusOK, map[string]string{"nodepool_id": p.id, "task_id": task, "request_id": reqID})
}

// runPoolTask ends a scaling task when the pool has its nodes ("success") or
// cannot create them ("fail", with ECS's error).
func (a *ACK) runPoolTask(taskID string, key fleetKey) {
	defer a.wg.Done()
	st, err := a.fleet.waitSettled(a.ctx, key)
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tasks[taskID]
	t.updated = a.opts.Now()
	switch {
	case err != nil:
		t.state, t.errCode, t.errMessage = ACKTaskFail, ACKErrInternal, err.Error()
	case st.issue == nil:
		t.state = ACKTaskSuccess
	default:
		t.state = ACKTaskFail
		t.errCode, t.errMessage = ackLaunchError(st.issue)
	}
}

// ackLaunchError is the ECS error a scaling activity records when it cannot
// create an instance.
func ackLaunchError(li *launchIssue) (code, msg string) {
	switch li.kind {
	case launchQuota:
		return ACKErrQuotaExceeded, fmt.Sprintf("The vCPU quota of %d for the instances of this billing method is exceeded. Submit a quota increase in Quota Center.", li.limit)
	case launchNoCapacity:
		return ACKErrNoStock, "The requested resource is sold out in the specified zone; try other types of resources or other regions and zones."
	}
	return "ErrorScaleNodePool", "nodes failed to join the cluster: " + li.err
}

// deleteClusterNodes is DeleteClusterNodes: the named nodes leave their node
// pools, whose desired sizes drop by as many.
func (a *ACK) deleteClusterNodes(w http.ResponseWriter, reqID, clusterID string, body []byte) {
	var in struct {
		Nodes []string `json:"nodes"`
	}
	if err := ackDecode(body, &in); err != nil {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, err.Error())
		return
	}
	if len(in.Nodes) == 0 {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, "nodes is required: list the names of the nodes to remove")
		return
	}
	now := a.opts.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.byID[clusterID]
	if !ok {
		ackClusterNotFound(w, reqID, clusterID)
		return
	}
	byPool := map[string][]string{}
	for _, n := range in.Nodes {
		key, ok := a.fleet.poolOf(c.labName, n)
		if !ok {
			ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, fmt.Sprintf("node %s is not a running node of cluster %s", n, clusterID))
			return
		}
		byPool[key.pool] = append(byPool[key.pool], n)
	}
	for i := range c.pools {
		p := &c.pools[i]
		names := byPool[p.name]
		if len(names) == 0 {
			continue
		}
		if unknown := a.fleet.removeNodes(fleetKey{c.labName, p.name}, names); len(unknown) > 0 {
			ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, fmt.Sprintf("nodes %s are being removed already", strings.Join(unknown, ", ")))
			return
		}
		p.count -= len(names)
		p.updated = now
	}
	task := a.newTaskLocked(c.id, ACKTaskRemove, now)
	a.tasks[task].state = ACKTaskSuccess
	ackJSON(w, http.StatusOK, map[string]string{"cluster_id": c.id, "task_id": task, "request_id": reqID})
}

func ackDecode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("request body is empty: send a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("request body is not valid JSON: %w", err)
	}
	return nil
}
