package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// memClusters is an in-memory Clusters: clusters start at once and nodes are
// map entries, so the emulators' node bookkeeping is tested without a lab.
type memClusters struct {
	mu      sync.Mutex
	nodes   map[string]map[string]*memNode // cluster -> node name -> node
	failAdd error                          // AddNode's answer when set
	// joined, when set, receives each node AddNode has put in the cluster;
	// AddNode then waits for ready before it returns, as a lab cluster's
	// node is visible (and may run pods) before it is Ready.
	joined chan string
	ready  chan struct{}
}

type memNode struct {
	pool   lab.NodePool
	pods   int
	taints []lab.Taint
	cordon bool
}

func newMemClusters() *memClusters { return &memClusters{nodes: map[string]map[string]*memNode{}} }

func (m *memClusters) CreateCluster(_ context.Context, spec lab.ClusterSpec) (*lab.ClusterInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes[spec.Name] = map[string]*memNode{}
	for _, p := range spec.Pools {
		for i := range p.Count {
			m.nodes[spec.Name][fmt.Sprintf("%s-%s-%d", spec.Name, p.Name, i)] = &memNode{pool: p}
		}
	}
	return &lab.ClusterInfo{Name: spec.Name, Server: "https://127.0.0.1:1", CAData: []byte("-----BEGIN CERTIFICATE-----\n"), KubeconfigPath: "/dev/null"}, nil
}

func (m *memClusters) DeleteCluster(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.nodes, name)
	return nil
}

func (m *memClusters) SetNodePool(_ context.Context, cluster string, pool lab.NodePool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, n := range m.nodes[cluster] {
		if n.pool.Name == pool.Name {
			delete(m.nodes[cluster], name)
		}
	}
	for i := range pool.Count {
		m.nodes[cluster][fmt.Sprintf("%s-%s-%d", cluster, pool.Name, i)] = &memNode{pool: pool}
	}
	return nil
}

func (m *memClusters) AddNode(_ context.Context, cluster string, pool lab.NodePool, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.nodes[cluster] == nil {
		return fmt.Errorf("unknown lab cluster %q", cluster)
	}
	if m.failAdd != nil {
		return m.failAdd
	}
	m.nodes[cluster][name] = &memNode{pool: pool, taints: slices.Clone(pool.Taints)}
	if m.joined != nil {
		joined, ready := m.joined, m.ready
		m.mu.Unlock()
		joined <- name
		<-ready
		m.mu.Lock()
	}
	return nil
}

func (m *memClusters) DeleteNode(_ context.Context, cluster, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.nodes[cluster], name)
	return nil
}

func (m *memClusters) PoolNodes(_ context.Context, cluster, pool string) ([]lab.PoolNode, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []lab.PoolNode
	for name, n := range m.nodes[cluster] {
		if n.pool.Name == pool {
			out = append(out, lab.PoolNode{Name: name, Ready: true, Pods: n.pods})
		}
	}
	return out, nil
}

func (m *memClusters) TaintNode(_ context.Context, cluster, name string, taint lab.Taint, cordon bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[cluster][name]
	if n == nil {
		return fmt.Errorf("no node %s in cluster %s", name, cluster)
	}
	n.taints = append(n.taints, taint)
	n.cordon = n.cordon || cordon
	return nil
}

// poolNodes returns the sorted names of a pool's nodes.
func (m *memClusters) poolNodes(cluster, pool string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name, n := range m.nodes[cluster] {
		if n.pool.Name == pool {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, compareNodeNames)
	return out
}

func (m *memClusters) node(cluster, name string) (memNode, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.nodes[cluster][name]
	if !ok {
		return memNode{}, false
	}
	return *n, true
}

func (m *memClusters) setPods(cluster, name string, pods int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes[cluster][name].pods = pods
}

// waitFor polls cond every 10 ms until it holds or 10 s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// eksFleetEnv is an AWS emulator on memClusters with one ACTIVE cluster.
type eksFleetEnv struct {
	a    *AWS
	base string
	mem  *memClusters
	cli  *eks.Client
	name string // EKS cluster
	lab  string // its lab cluster
}

func newEKSFleetEnv(t testing.TB, opts AWSOptions) *eksFleetEnv {
	t.Helper()
	mem := newMemClusters()
	a, base := awsServeOpts(t, mem, opts)
	cli := eksClient(awsLabConfig(), base)
	e := &eksFleetEnv{a: a, base: base, mem: mem, cli: cli, name: "burst", lab: "eks-burst"}
	ctx := context.Background()
	if _, err := cli.CreateCluster(ctx, eksTestClusterInput(e.name)); err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	waitFor(t, "cluster ACTIVE", func() bool {
		out, err := cli.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(e.name)})
		return err == nil && out.Cluster.Status == types.ClusterStatusActive
	})
	return e
}

func (e *eksFleetEnv) createNodegroup(t testing.TB, ng, capacity string, maxS, desired int32) {
	t.Helper()
	in := eksTestNodegroupInput(e.name, ng, "m5.large", 0, maxS, desired)
	in.CapacityType = types.CapacityTypes(capacity)
	if _, err := e.cli.CreateNodegroup(context.Background(), in); err != nil {
		t.Fatalf("CreateNodegroup %s: %v", ng, err)
	}
}

func (e *eksFleetEnv) describe(t testing.TB, ng string) *types.Nodegroup {
	t.Helper()
	out, err := e.cli.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(e.name), NodegroupName: aws.String(ng)})
	if err != nil {
		t.Fatalf("DescribeNodegroup %s: %v", ng, err)
	}
	return out.Nodegroup
}

func (e *eksFleetEnv) scale(t testing.TB, ng string, desired int32) {
	t.Helper()
	if _, err := e.cli.UpdateNodegroupConfig(context.Background(), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(e.name), NodegroupName: aws.String(ng),
		ScalingConfig: &types.NodegroupScalingConfig{DesiredSize: aws.Int32(desired)}}); err != nil {
		t.Fatalf("UpdateNodegroupConfig %s desired %d: %v", ng, desired, err)
	}
}

func (e *eksFleetEnv) nodes(ng string) []string { return e.mem.poolNodes(e.lab, ng) }

func (e *eksFleetEnv) waitNodes(t testing.TB, ng string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d nodes in node group %s", n, ng), func() bool { return len(e.nodes(ng)) == n })
}

func (e *eksFleetEnv) waitActive(t testing.TB, ng string) {
	t.Helper()
	waitFor(t, "node group "+ng+" ACTIVE", func() bool { return e.describe(t, ng).Status == types.NodegroupStatusActive })
}

func issueCodes(ng *types.Nodegroup) []string {
	var out []string
	if ng.Health != nil {
		for _, i := range ng.Health.Issues {
			out = append(out, string(i.Code)+": "+aws.ToString(i.Message))
		}
	}
	return out
}

// TestEKSNodeBootDelay: a node group's new nodes are absent right after the
// update, while DescribeNodegroup already shows the new desiredSize and ACTIVE,
// and present once their boot delay has passed.
func TestEKSNodeBootDelay(t *testing.T) {
	const boot = time.Second
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: boot})
	e.createNodegroup(t, "spot", "SPOT", 5, 1)
	if got := e.describe(t, "spot").Status; got != types.NodegroupStatusCreating {
		t.Errorf("node group right after CreateNodegroup is %s, want CREATING until its node has booted", got)
	}
	if n := e.nodes("spot"); len(n) != 0 {
		t.Errorf("nodes right after CreateNodegroup: %v, want none before the boot delay", n)
	}
	e.waitActive(t, "spot")
	if n := e.nodes("spot"); len(n) != 1 {
		t.Fatalf("nodes once ACTIVE: %v, want 1", n)
	}

	e.scale(t, "spot", 3)
	ng := e.describe(t, "spot")
	if ng.Status != types.NodegroupStatusActive || aws.ToInt32(ng.ScalingConfig.DesiredSize) != 3 {
		t.Errorf("right after the update: %s desired %d, want ACTIVE 3", ng.Status, aws.ToInt32(ng.ScalingConfig.DesiredSize))
	}
	if n := e.nodes("spot"); len(n) != 1 {
		t.Errorf("nodes right after scaling to 3: %v, want still 1 while the others boot", n)
	}
	e.waitNodes(t, "spot", 3)

	node, _ := e.mem.node(e.lab, e.nodes("spot")[2])
	for k, want := range map[string]string{
		"eks.amazonaws.com/nodegroup":      "spot",
		"eks.amazonaws.com/capacityType":   "SPOT",
		"node.kubernetes.io/instance-type": "m5.large",
	} {
		if got := node.pool.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if node.pool.Name != "spot" {
		t.Errorf("lab pool %q, want spot", node.pool.Name)
	}

	// Scaling in removes the empty nodes first.
	names := e.nodes("spot")
	e.mem.setPods(e.lab, names[0], 2)
	e.mem.setPods(e.lab, names[2], 1)
	e.scale(t, "spot", 1)
	e.waitNodes(t, "spot", 1)
	if got := e.nodes("spot"); got[0] != names[0] {
		t.Errorf("after scaling 3 -> 1 the node left is %s, want %s (the busiest; empty ones go first)", got[0], names[0])
	}

	// A scale-out cancelled before its nodes booted launches nothing.
	e.scale(t, "spot", 3)
	e.scale(t, "spot", 1)
	time.Sleep(2 * boot)
	if n := e.nodes("spot"); len(n) != 1 {
		t.Errorf("nodes after 1 -> 3 -> 1 within the boot delay: %v, want 1", n)
	}
}

// TestEKSScaleInWhileJoining: a node whose boot delay is over is in the
// cluster while it joins and may already run pods; a scale-in in that moment
// must not cancel it as a node that never booted, but weigh it with the Ready
// ones once it has joined (the one with the pod stays).
func TestEKSScaleInWhileJoining(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: 20 * time.Millisecond})
	e.createNodegroup(t, "spot", "SPOT", 3, 1)
	e.waitActive(t, "spot")
	first := e.nodes("spot")
	e.mem.mu.Lock()
	e.mem.joined, e.mem.ready = make(chan string, 1), make(chan struct{})
	e.mem.mu.Unlock()
	e.scale(t, "spot", 2)
	var second string
	select {
	case second = <-e.mem.joined:
	case <-time.After(10 * time.Second):
		t.Fatal("the second node never joined")
	}
	e.mem.setPods(e.lab, second, 1)
	e.scale(t, "spot", 1)
	close(e.mem.ready)
	e.waitNodes(t, "spot", 1)
	time.Sleep(100 * time.Millisecond) // a wrong removal would still be under way
	if got := e.nodes("spot"); len(got) != 1 || got[0] != second {
		t.Errorf("after scaling 2 -> 1 while %s joined with a pod: nodes %v, want [%s] (%v was empty)", second, got, second, first)
	}
}

// TestEKSLaunchFailures: nodes beyond the vCPU quota or of an instance type
// without capacity never come, and DescribeNodegroup reports why, in EKS's words.
func TestEKSLaunchFailures(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: 50 * time.Millisecond, VCPUQuota: map[string]int{"ON_DEMAND": 4}})
	e.createNodegroup(t, "od", "ON_DEMAND", 10, 1)
	e.waitActive(t, "od")

	// m5.large has 2 vCPUs: a quota of 4 allows 2 nodes.
	e.scale(t, "od", 4)
	e.waitNodes(t, "od", 2)
	waitFor(t, "the quota issue", func() bool { return len(issueCodes(e.describe(t, "od"))) > 0 })
	ng := e.describe(t, "od")
	issues := issueCodes(ng)
	want := "AsgInstanceLaunchFailures: Could not launch On-Demand Instances. VcpuLimitExceeded - You have requested more vCPU capacity than your current vCPU limit of 4 allows"
	if len(issues) != 1 || !strings.HasPrefix(issues[0], want) {
		t.Errorf("health issues %q, want one starting %q", issues, want)
	}
	if ng.Status != types.NodegroupStatusActive || aws.ToInt32(ng.ScalingConfig.DesiredSize) != 4 {
		t.Errorf("node group %s desired %d, want ACTIVE 4: the update is accepted", ng.Status, aws.ToInt32(ng.ScalingConfig.DesiredSize))
	}

	// Spot capacity has its own quota: none set, so a spot group grows.
	e.createNodegroup(t, "sp", "SPOT", 10, 2)
	e.waitActive(t, "sp")

	// Raising the quota lets the waiting nodes launch, as the ASG retries.
	e.a.SetVCPUQuota("ON_DEMAND", 0)
	e.waitNodes(t, "od", 4)
	waitFor(t, "the issue to clear", func() bool { return len(issueCodes(e.describe(t, "od"))) == 0 })

	// No capacity for the instance type: through the lab endpoint.
	labPost(t, e.base+"/lab/v1/insufficient-capacity", CapacityFault{InstanceType: "m5.large", Insufficient: true})
	e.scale(t, "sp", 3)
	waitFor(t, "the capacity issue", func() bool { return len(issueCodes(e.describe(t, "sp"))) > 0 })
	if issues := issueCodes(e.describe(t, "sp")); !strings.Contains(issues[0], "Could not launch Spot Instances. InsufficientInstanceCapacity - We currently do not have sufficient m5.large capacity") {
		t.Errorf("health issues %q, want InsufficientInstanceCapacity for m5.large", issues)
	}
	if n := e.nodes("sp"); len(n) != 2 {
		t.Errorf("spot nodes while capacity is short: %v, want 2", n)
	}
	labPost(t, e.base+"/lab/v1/insufficient-capacity", CapacityFault{InstanceType: "m5.large", Insufficient: false})
	e.waitNodes(t, "sp", 3)

	// A node group created beyond the quota fails as EKS's does.
	e.a.SetVCPUQuota("ON_DEMAND", 2)
	e.createNodegroup(t, "late", "ON_DEMAND", 3, 2)
	waitFor(t, "CREATE_FAILED", func() bool { return e.describe(t, "late").Status == types.NodegroupStatusCreateFailed })
	if issues := issueCodes(e.describe(t, "late")); len(issues) == 0 || !strings.Contains(issues[0], "VcpuLimitExceeded") {
		t.Errorf("health issues of a node group created beyond the quota: %q, want VcpuLimitExceeded", issues)
	}
}

// TestEKSThrottling: injected throttling answers ThrottlingException, which the
// SDK's standard retryer treats as throttling and retries.
func TestEKSThrottling(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: -1})
	ctx := context.Background()
	noRetry := eks.NewFromConfig(awsLabConfig(), func(o *eks.Options) {
		o.BaseEndpoint = aws.String(e.base)
		o.Retryer = aws.NopRetryer{}
	})
	describe := func(c *eks.Client) error {
		_, err := c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(e.name)})
		return err
	}

	labPost(t, e.base+"/lab/v1/throttling", ThrottleConfig{Next: 2})
	err := describe(noRetry)
	if code := awsErrorCode(err); code != "ThrottlingException" {
		t.Fatalf("throttled call error %v (code %q), want ThrottlingException", err, code)
	}
	if !retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err).Bool() {
		t.Errorf("the SDK does not see %v as throttling", err)
	}
	// The default retryer retries the second throttled answer.
	if err := describe(e.cli); err != nil {
		t.Errorf("call with the SDK's retryer after one more throttled answer: %v", err)
	}

	// A token bucket: a burst of 2 at 0.01/s lets two calls through.
	e.a.SetThrottling(ThrottleConfig{RatePerSecond: 0.01, Burst: 2})
	var codes []string
	for range 3 {
		codes = append(codes, awsErrorCode(describe(noRetry)))
	}
	if want := []string{"", "", "ThrottlingException"}; !slices.Equal(codes, want) {
		t.Errorf("error codes of 3 calls with burst 2: %q, want %q", codes, want)
	}
	e.a.SetThrottling(ThrottleConfig{})
	if err := describe(noRetry); err != nil {
		t.Errorf("call after throttling is off: %v", err)
	}

	// Scoped to another cluster: this cluster's calls pass, the other's
	// (here a cluster that does not exist) are throttled, then not found.
	e.a.SetThrottling(ThrottleConfig{Next: 1, Cluster: "someone-elses"})
	if err := describe(noRetry); err != nil {
		t.Errorf("call about %s with throttling scoped to another cluster: %v", e.name, err)
	}
	other := func() string {
		_, err := noRetry.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("someone-elses")})
		return awsErrorCode(err)
	}
	if got := []string{other(), other()}; !slices.Equal(got, []string{"ThrottlingException", "ResourceNotFoundException"}) {
		t.Errorf("two calls about the throttled cluster: %q, want ThrottlingException then ResourceNotFoundException", got)
	}
	e.a.SetThrottling(ThrottleConfig{Next: 5, Cluster: e.name})
	e.a.SetThrottling(ThrottleConfig{Cluster: e.name})
	if err := describe(noRetry); err != nil {
		t.Errorf("call after the cluster's throttling is off: %v", err)
	}
}

// TestEKSServerErrors: injected server errors answer EKS's 500
// ServerException and 503 ServiceUnavailableException, which the unmodified
// SDK's standard retryer retries (3 attempts): a fault of 2 calls is retried
// away, one of 3 reaches the caller and spends exactly its 3 calls; an
// open-ended fault lasts until it is turned off; a scoped one reaches only
// its cluster's calls.
func TestEKSServerErrors(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: -1})
	ctx := context.Background()
	client := func(r aws.Retryer) *eks.Client {
		return eks.NewFromConfig(awsLabConfig(), func(o *eks.Options) {
			o.BaseEndpoint = aws.String(e.base)
			o.Retryer = r
		})
	}
	noRetry := client(aws.NopRetryer{})
	// The standard retryer (3 attempts, 5xx retryable) with short backoffs.
	standard := client(retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 10 * time.Millisecond }))
	describe := func(c *eks.Client, name string) error {
		_, err := c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
		return err
	}
	status := func(err error) int {
		var re *smithyhttp.ResponseError
		if errors.As(err, &re) {
			return re.HTTPStatusCode()
		}
		return 0
	}

	for _, tc := range []struct {
		status int
		code   string
	}{{http.StatusInternalServerError, "ServerException"}, {http.StatusServiceUnavailable, "ServiceUnavailableException"}} {
		t.Run(tc.code, func(t *testing.T) {
			labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{Status: tc.status, Next: 1})
			err := describe(noRetry, e.name)
			if code := awsErrorCode(err); code != tc.code || status(err) != tc.status {
				t.Fatalf("call during the fault: %v (code %q, HTTP %d), want %s (HTTP %d)", err, code, status(err), tc.code, tc.status)
			}
			if !retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err).Bool() {
				t.Errorf("the SDK's standard retryer does not retry %v", err)
			}
			if err := describe(noRetry, e.name); err != nil {
				t.Errorf("call after the fault's one call: %v", err)
			}

			// Two failing calls: the retryer's third attempt succeeds.
			labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{Status: tc.status, Next: 2})
			if err := describe(standard, e.name); err != nil {
				t.Errorf("call with the standard retryer through 2 failing calls: %v", err)
			}
			// Three: all the retryer's attempts fail, and they are all
			// spent (the next call passes).
			labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{Status: tc.status, Next: 3})
			if err := describe(standard, e.name); awsErrorCode(err) != tc.code {
				t.Errorf("call with the standard retryer through 3 failing calls: %v, want %s", err, tc.code)
			}
			if err := describe(noRetry, e.name); err != nil {
				t.Errorf("call after the 3 attempts: %v (the retryer made fewer than 3)", err)
			}
		})
	}

	// Open-ended: every call until it is turned off.
	labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{Status: http.StatusServiceUnavailable})
	var codes []string
	for range 5 {
		codes = append(codes, awsErrorCode(describe(noRetry, e.name)))
	}
	if want := slices.Repeat([]string{"ServiceUnavailableException"}, 5); !slices.Equal(codes, want) {
		t.Errorf("5 calls during an open-ended fault: %q, want %q", codes, want)
	}
	labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{})
	if err := describe(noRetry, e.name); err != nil {
		t.Errorf("call after the fault is off: %v", err)
	}

	// Scoped to another cluster: this cluster's calls pass; the other's
	// (one that does not exist) fail until the scope is turned off.
	labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{Status: http.StatusInternalServerError, Cluster: "someone-elses"})
	if err := describe(noRetry, e.name); err != nil {
		t.Errorf("call about %s with server errors scoped to another cluster: %v", e.name, err)
	}
	if code := awsErrorCode(describe(noRetry, "someone-elses")); code != "ServerException" {
		t.Errorf("call about the faulted cluster: %q, want ServerException", code)
	}
	labPost(t, e.base+"/lab/v1/server-errors", ServerErrorConfig{Cluster: "someone-elses"})
	if code := awsErrorCode(describe(noRetry, "someone-elses")); code != "ResourceNotFoundException" {
		t.Errorf("call about the cluster once its fault is off: %q, want ResourceNotFoundException", code)
	}

	for _, bad := range []struct {
		in   ServerErrorConfig
		want string
	}{
		{ServerErrorConfig{Status: 404}, "status 404 is not a server error the lab injects: use 500 or 503"},
		{ServerErrorConfig{Status: 500, Next: -1}, "next -1 is invalid"},
	} {
		if st, body := labPostStatus(t, e.base+"/lab/v1/server-errors", bad.in); st != http.StatusBadRequest || !strings.Contains(body, bad.want) {
			t.Errorf("POST %+v: %d %s, want 400 with %q", bad.in, st, body, bad.want)
		}
	}
	if err := describe(noRetry, e.name); err != nil {
		t.Errorf("call after refused settings: %v", err)
	}
}

// TestEKSSpotInterruption: a spot node gets the notice (tainted, cordoned), is
// deleted when it runs out, and its node group launches a replacement.
func TestEKSSpotInterruption(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: 100 * time.Millisecond, SpotNotice: 300 * time.Millisecond})
	e.createNodegroup(t, "sp", "SPOT", 3, 2)
	e.createNodegroup(t, "od", "ON_DEMAND", 3, 1)
	e.waitActive(t, "sp")
	e.waitActive(t, "od")
	victim := e.nodes("sp")[0]

	for _, tc := range []struct {
		name, cluster, node, want string
	}{
		{"on-demand node", e.name, e.nodes("od")[0], "only Spot nodes get interruption notices"},
		{"unknown node", e.name, "nope", "is not a Ready node"},
		{"unknown cluster", "nope", victim, "no EKS cluster named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := labPostStatus(t, e.base+"/lab/v1/spot-interruptions", SpotInterruption{Cluster: tc.cluster, Node: tc.node})
			if status != http.StatusBadRequest || !strings.Contains(body, tc.want) {
				t.Errorf("answer %d %s, want 400 saying %q", status, body, tc.want)
			}
		})
	}

	labPost(t, e.base+"/lab/v1/spot-interruptions", SpotInterruption{Cluster: e.name, Node: victim})
	n, ok := e.mem.node(e.lab, victim)
	if !ok || !n.cordon || !slices.ContainsFunc(n.taints, func(t lab.Taint) bool { return t.Key == SpotInterruptionTaint && t.Effect == "NoSchedule" }) {
		t.Fatalf("node under notice: %+v (present %v), want cordoned with the %s NoSchedule taint", n, ok, SpotInterruptionTaint)
	}
	waitFor(t, "the interrupted node to go", func() bool { _, ok := e.mem.node(e.lab, victim); return !ok })
	e.waitNodes(t, "sp", 2)
	if slices.Contains(e.nodes("sp"), victim) {
		t.Errorf("the replacement reuses the interrupted node's name %s", victim)
	}
}

func labPost(t *testing.T, url string, body any) {
	t.Helper()
	if status, out := labPostStatus(t, url, body); status != http.StatusOK {
		t.Fatalf("POST %s: %d %s", url, status, out)
	}
}

func labPostStatus(t *testing.T, url string, body any) (int, string) {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer of POST %s: %v", url, err)
	}
	return resp.StatusCode, string(out)
}

// TestEKSBootDelayTag: a node group tagged with LabBootDelayTag boots its nodes
// after the tag's delay, not the emulator's.
func TestEKSBootDelayTag(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: time.Hour})
	in := eksTestNodegroupInput(e.name, "fast", "m5.large", 0, 3, 2)
	in.Tags = map[string]string{LabBootDelayTag: "10ms"}
	if _, err := e.cli.CreateNodegroup(context.Background(), in); err != nil {
		t.Fatalf("CreateNodegroup: %v", err)
	}
	e.createNodegroup(t, "slow", "ON_DEMAND", 3, 1)
	e.waitActive(t, "fast")
	if n := e.nodes("fast"); len(n) != 2 {
		t.Errorf("nodes of the tagged node group: %v, want 2", n)
	}
	if got := e.describe(t, "slow").Status; got != types.NodegroupStatusCreating {
		t.Errorf("untagged node group with a 1 h boot delay is %s, want CREATING", got)
	}
}

// BenchmarkEKSScaleOut measures the time from UpdateNodegroupConfig to the new
// nodes being present, with a boot delay of 0 and of 50 ms: the difference to the
// boot delay is the emulator's own overhead (SDK call, fleet, node creation in
// memory), which must stay small next to the delays the lab imitates.
func BenchmarkEKSScaleOut(b *testing.B) {
	for _, boot := range []time.Duration{-1, 50 * time.Millisecond} {
		b.Run("boot="+max(boot, 0).String(), func(b *testing.B) {
			e := newEKSFleetEnv(b, AWSOptions{NodeBootDelay: boot})
			e.createNodegroup(b, "ng", "ON_DEMAND", 100, 0)
			e.waitActive(b, "ng")
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				want := int32(1 + i%2) // 1, 2, 1, 2, ...
				if _, err := e.cli.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(e.name), NodegroupName: aws.String("ng"),
					ScalingConfig: &types.NodegroupScalingConfig{DesiredSize: aws.Int32(want)}}); err != nil {
					b.Fatal(err)
				}
				for len(e.nodes("ng")) != int(want) {
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
}

// TestEKSNodesFailToJoin: nodes that cannot join make a new node group
// CREATE_FAILED with NodeCreationFailure, as EKS reports it.
func TestEKSNodesFailToJoin(t *testing.T) {
	e := newEKSFleetEnv(t, AWSOptions{NodeBootDelay: 10 * time.Millisecond})
	e.mem.mu.Lock()
	e.mem.failAdd = errors.New("kwok is not running")
	e.mem.mu.Unlock()
	e.createNodegroup(t, "broken", "ON_DEMAND", 3, 1)
	waitFor(t, "CREATE_FAILED", func() bool { return e.describe(t, "broken").Status == types.NodegroupStatusCreateFailed })
	issues := issueCodes(e.describe(t, "broken"))
	if len(issues) != 1 || !strings.HasPrefix(issues[0], "NodeCreationFailure: Instances failed to join the kubernetes cluster: kwok is not running") {
		t.Errorf("health issues %q, want NodeCreationFailure naming the cause", issues)
	}
}
