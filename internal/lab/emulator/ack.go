package emulator

// ACK emulator: the part of Alibaba Cloud Container Service for Kubernetes (the CS
// "2015-12-15" ROA API) that HCA uses, served on one base URL for the unmodified
// github.com/aliyun/alibaba-cloud-sdk-go/services/cs client.
//
// Operations (paths and methods as the SDK's generated requests build them):
//
//	CreateCluster                  POST   /clusters
//	DescribeClusters               GET    /clusters           (legacy: JSON array)
//	DescribeClustersV1             GET    /api/v1/clusters    ({"clusters":[...],"page_info":{...}})
//	DescribeClusterDetail          GET    /clusters/{ClusterId}
//	DeleteCluster                  DELETE /clusters/{ClusterId}
//	DescribeClusterUserKubeconfig  GET    /k8s/{ClusterId}/user_config
//	DescribeTaskInfo               GET    /tasks/{task_id}
//	DescribeClusterNodePools       GET    /clusters/{ClusterId}/nodepools
//	DescribeClusterNodePoolDetail  GET    /clusters/{ClusterId}/nodepools/{NodepoolId}
//	ScaleClusterNodePool           POST   /clusters/{ClusterId}/nodepools/{NodepoolId}  ({"count": n}: n more nodes)
//	ModifyClusterNodePool          PUT    /clusters/{ClusterId}/nodepools/{NodepoolId}  ({"scaling_group":{"desired_size": n}})
//	DeleteClusterNodes             POST   /clusters/{ClusterId}/nodes  ({"nodes": [names], "release_node": true})
//
// (RemoveNodePoolNodes, DELETE /clusters/{id}/nodepools/{np}/nodes, is not in the
// v1 SDK, v1.63: DeleteClusterNodes is its equivalent there.) Node pool scaling
// follows the nodes' boot delay (see fleet): a scale-out returns a task that is
// "running" until the new nodes are Ready and "fail" with ECS's error code
// (QuotaExceed.ElasticQuota, OperationDenied.NoStock) when they cannot be created.
//
// Pointing the SDK at the emulator. The SDK builds every ROA URL as
// scheme + "://" + Domain + ":" + Port + path (requests.RoaRequest.BuildUrl), so the
// endpoint's port cannot go into client.Domain ("127.0.0.1:8080" gives the invalid
// "http://127.0.0.1:8080:/clusters"). Set the three fields on each request instead,
// from the endpoint URL (HCA_LAB_ACK_ENDPOINT, e.g. http://127.0.0.1:PORT):
//
//	u, _ := url.Parse(endpoint)
//	client, _ := cs.NewClientWithAccessKey(regionID, accessKeyID, accessKeySecret)
//	req := cs.CreateDescribeClusterDetailRequest()
//	req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
//
// With an endpoint without a port (a real region, https://cs.cn-hangzhou.aliyuncs.com)
// the same code gives Port "" and the URL "https://cs.cn-hangzhou.aliyuncs.com:/...",
// which Go accepts, so one code path serves both. CreateCluster's body is JSON in
// req.Content (req.SetContent, with req.SetContentType("application/json")); the
// Describe* responses that the SDK declares without fields are read from
// resp.GetHttpContentString().
//
// Errors come in the two shapes Alibaba Cloud uses:
//
//   - gateway errors (authentication, unknown operation), as the POP gateway writes
//     them: {"RequestId","HostId","Code","Message","Recommend"}. The SDK's
//     *errors.ServerError carries Code in ErrorCode(). Unsigned or unknown key: 403
//     InvalidAccessKeyId.NotFound; wrong signature: 400 SignatureDoesNotMatch with the
//     server's string to sign, which the SDK compares with its own.
//   - CS service errors, as ACK writes them: {"code","message","requestId"} with the
//     HTTP status (404 ErrorClusterNotFound, 400 ErrorClusterNameAlreadyExist, 400
//     InvalidParameter, ...). The v1 SDK looks up the capitalised "Code" only, so for
//     these ErrorCode() is "" (exactly as against real ACK): callers match the code in
//     Message(), which holds the whole JSON body, or decode Message() as JSON.
//
// Every ACK cluster is a real lab cluster named "ack-" + the first 12 hex digits of its
// cluster ID (the lab caps names at 40 characters), started through
// Clusters.CreateCluster in the background (state "initial" until it returns, then
// "running", or "failed"); its workers are one kwok node pool per ACK node pool, sized
// from the ECS instance type. DeleteCluster moves the cluster to "deleting" and removes
// it once Clusters.DeleteCluster returns; DescribeClusterDetail then answers 404.

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// ACK cluster states, as ACK reports them in DescribeClusterDetail's "state".
const (
	ACKStateInitial      = "initial"
	ACKStateRunning      = "running"
	ACKStateFailed       = "failed"
	ACKStateDeleting     = "deleting"
	ACKStateDeleteFailed = "delete_failed"
)

// ACK task states and types, as DescribeTaskInfo reports them.
const (
	ACKTaskRunning = "running"
	ACKTaskSuccess = "success"
	ACKTaskFail    = "fail"

	ACKTaskCreate = "cluster_create"
	ACKTaskDelete = "cluster_delete"
	ACKTaskScale  = "nodepool_scale"
	ACKTaskRemove = "nodepool_remove_nodes"
)

// ACK error codes the emulator answers with.
const (
	ACKErrClusterNotFound   = "ErrorClusterNotFound"
	ACKErrClusterNameExists = "ErrorClusterNameAlreadyExist"
	ACKErrInvalidParameter  = "InvalidParameter"
	ACKErrClusterState      = "ErrorClusterState"
	ACKErrTaskNotFound      = "ErrorTaskNotFound"
	ACKErrAccessKeyNotFound = "InvalidAccessKeyId.NotFound"
	ACKErrSignatureMismatch = "SignatureDoesNotMatch"
	ACKErrActionNotFound    = "InvalidAction.NotFound"
	ACKErrInternal          = "InternalError"
	ACKErrNodePoolNotFound  = "ErrorNodePoolNotFound"
	ACKErrThrottling        = "Throttling.User"
	// ECS's errors when a scaling group cannot create instances, reported as
	// the node pool scaling task's error.
	ACKErrQuotaExceeded = "QuotaExceed.ElasticQuota"
	ACKErrNoStock       = "OperationDenied.NoStock"
)

const (
	ackDefaultKubeVersion    = "1.36.3-aliyun.1"
	ackDefaultCreateTimeout  = 10 * time.Minute
	ackDefaultDeleteTimeout  = 5 * time.Minute
	ackLabClusterNamePrefix  = "ack-"
	ackDefaultNodePoolName   = "default-nodepool"
	ackManagedKubernetesType = "ManagedKubernetes"
)

// ACKOptions tune the emulator. The zero value is usable.
type ACKOptions struct {
	// Now is the clock for created/updated timestamps (default time.Now).
	Now func() time.Time
	// KubernetesVersion is the only version offered, reported as current_version
	// (default "1.36.3-aliyun.1", the lab's Kubernetes with ACK's suffix).
	KubernetesVersion string
	// CreateTimeout bounds one lab cluster start (default 10 minutes); past it the
	// cluster is "failed".
	CreateTimeout time.Duration
	// DeleteTimeout bounds one lab cluster stop (default 5 minutes); past it the
	// cluster is "delete_failed".
	DeleteTimeout time.Duration
	// Logf, when set, receives one line per state change (never secrets).
	Logf func(format string, args ...any)
	// NodeBootDelay is how long each node a node pool scales out by takes to
	// become a Ready node: DefaultNodeBootDelay when zero, none when negative.
	NodeBootDelay time.Duration
	// SpotNotice is the interruption notice of a spot node
	// (DefaultACKSpotNotice when zero, none when negative).
	SpotNotice time.Duration
	// VCPUQuota is the account's vCPU limit per capacity type ("ON_DEMAND" for
	// pay-as-you-go, "SPOT" for preemptible instances); absent or 0: unlimited.
	VCPUQuota map[string]int
	// PodStartupDelay keeps the pods of the clusters it creates Pending for
	// this long once bound (none when zero); see lab.ClusterSpec.
	PodStartupDelay time.Duration
	// OIDCProviders are the account's RAM OIDC identity providers, trusted
	// by STSHandler's AssumeRoleWithOIDC.
	OIDCProviders []RAMOIDCProvider
	// OIDCRootCAs are the CAs trusted when fetching the OIDC providers'
	// discovery documents and JWKS over HTTPS (nil: the system's roots).
	OIDCRootCAs *x509.CertPool
}

// ACK serves the emulated CS API. Create it with NewACK; it is an http.Handler.
type ACK struct {
	clusters Clusters
	opts     ACKOptions

	ctx    context.Context // cancelled by Close: stops background work
	cancel context.CancelFunc
	wg     sync.WaitGroup

	labFaults
	lab *http.ServeMux // the lab's control endpoints (/lab/v1/...)

	jwks jwksCache // the OIDC providers' keys, for AssumeRoleWithOIDC

	mu       sync.Mutex
	byID     map[string]*ackCluster
	tasks    map[string]*ackTask
	sessions map[string]*aliSession // STS AccessKey ID -> temporary credentials
	closed   bool
}

type ackCluster struct {
	id, name, region, clusterType, clusterSpec string
	labName                                    string
	vpcID                                      string
	vswitchIDs                                 []string
	pools                                      []ackPool
	tags                                       map[string]string
	created, updated                           time.Time
	state                                      string
	failure                                    string // why it failed (no secrets)

	server     string // apiserver URL once running
	kubeconfig []byte // admin kubeconfig once running

	cancelCreate context.CancelFunc
	createDone   chan struct{} // closed when the create goroutine has returned
	deleteTask   string
}

type ackPool struct {
	id           string // "np" and 32 hex digits
	name         string
	instanceType string
	count        int // the desired size
	cpu, memory  string
	spotStrategy string // NoSpot, SpotWithPriceLimit, SpotAsPriceGo
	created      time.Time
	updated      time.Time
}

const ackNoSpot = "NoSpot"

type ackTask struct {
	id, clusterID, taskType string
	state                   string
	created, updated        time.Time
	errCode, errMessage     string
}

// NewACK returns the ACK emulator; every cluster it creates is started with clusters.
func NewACK(clusters Clusters, opts ACKOptions) *ACK {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.KubernetesVersion == "" {
		opts.KubernetesVersion = ackDefaultKubeVersion
	}
	if opts.CreateTimeout <= 0 {
		opts.CreateTimeout = ackDefaultCreateTimeout
	}
	if opts.DeleteTimeout <= 0 {
		opts.DeleteTimeout = ackDefaultDeleteTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &ACK{
		clusters:  clusters,
		opts:      opts,
		ctx:       ctx,
		cancel:    cancel,
		byID:      map[string]*ackCluster{},
		tasks:     map[string]*ackTask{},
		labFaults: newLabFaults(),
		lab:       http.NewServeMux(),
		jwks:      newJWKSCache(opts.OIDCRootCAs),
	}
	a.fleet = newFleet(clusters, delayOr(opts.NodeBootDelay, DefaultNodeBootDelay), delayOr(opts.SpotNotice, DefaultACKSpotNotice), a.logf)
	for ct, n := range opts.VCPUQuota {
		a.fleet.setQuota(ct, n)
	}
	labRoutes(a.lab, a.labFaults, a.InterruptSpot)
	return a
}

// Close cancels cluster starts still in progress and waits for all background work
// to end. It does not stop running lab clusters: delete them through the API (or let
// the lab tear them down). Requests after Close are refused.
func (a *ACK) Close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cancel()
	a.wg.Wait()
	a.fleet.close()
}

func (a *ACK) logf(format string, args ...any) {
	if a.opts.Logf != nil {
		a.opts.Logf(format, args...)
	}
}

// ServeHTTP authenticates the request (ROA signature with the lab key) and routes it.
func (a *ACK) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/lab/v1/") {
		a.lab.ServeHTTP(w, r)
		return
	}
	reqID := ackRequestID()
	w.Header().Set("x-acs-request-id", reqID)
	body, ok := ackAuthenticate(w, r, reqID, a.stsSecret)
	if !ok {
		return
	}
	if !a.throttle.allow(ackPathCluster(r.URL.Path)) {
		// The POP gateway's answer to a call over the API's rate limit. The v1
		// SDK does not retry it (it retries network errors and 5xx only): the
		// caller backs off.
		ackGatewayError(w, r, reqID, http.StatusBadRequest, ACKErrThrottling, "Request was denied due to user flow control.")
		return
	}
	switch a.serverErrors.fail(ackPathCluster(r.URL.Path)) {
	case http.StatusInternalServerError:
		ackServiceError(w, reqID, http.StatusInternalServerError, ACKErrInternal, "The request processing has failed due to some unknown error.")
		return
	case http.StatusServiceUnavailable:
		ackServiceError(w, reqID, http.StatusServiceUnavailable, "ServiceUnavailable", "The request has failed due to a temporary failure of the server.")
		return
	}
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		ackServiceError(w, reqID, http.StatusServiceUnavailable, "ServiceUnavailable", "the ACK emulator is shutting down")
		return
	}

	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 1 && parts[0] == "clusters" && r.Method == http.MethodPost:
		a.createCluster(w, r, reqID, body)
	case len(parts) == 1 && parts[0] == "clusters" && r.Method == http.MethodGet:
		a.describeClusters(w, r)
	case len(parts) == 3 && parts[0] == "api" && parts[1] == "v1" && parts[2] == "clusters" && r.Method == http.MethodGet:
		a.describeClustersV1(w, r, reqID)
	case len(parts) == 2 && parts[0] == "clusters" && parts[1] != "" && r.Method == http.MethodGet:
		a.describeClusterDetail(w, reqID, parts[1])
	case len(parts) == 2 && parts[0] == "clusters" && parts[1] != "" && r.Method == http.MethodDelete:
		a.deleteCluster(w, reqID, parts[1])
	case len(parts) == 3 && parts[0] == "k8s" && parts[2] == "user_config" && r.Method == http.MethodGet:
		a.describeUserKubeconfig(w, reqID, parts[1])
	case len(parts) == 2 && parts[0] == "tasks" && parts[1] != "" && r.Method == http.MethodGet:
		a.describeTaskInfo(w, reqID, parts[1])
	case len(parts) == 3 && parts[0] == "clusters" && parts[2] == "nodepools" && r.Method == http.MethodGet:
		a.describeNodePools(w, reqID, parts[1])
	case len(parts) == 4 && parts[0] == "clusters" && parts[2] == "nodepools" && r.Method == http.MethodGet:
		a.describeNodePoolDetail(w, reqID, parts[1], parts[3])
	case len(parts) == 4 && parts[0] == "clusters" && parts[2] == "nodepools" && r.Method == http.MethodPost:
		a.scaleNodePool(w, reqID, parts[1], parts[3], body)
	case len(parts) == 4 && parts[0] == "clusters" && parts[2] == "nodepools" && r.Method == http.MethodPut:
		a.modifyNodePool(w, reqID, parts[1], parts[3], body)
	case len(parts) == 3 && parts[0] == "clusters" && parts[2] == "nodes" && r.Method == http.MethodPost:
		a.deleteClusterNodes(w, reqID, parts[1], body)
	default:
		ackGatewayError(w, r, reqID, http.StatusNotFound, ACKErrActionNotFound,
			fmt.Sprintf("the ACK emulator has no operation %s %s; it serves CreateCluster (POST /clusters), DescribeClusters (GET /clusters), DescribeClustersV1 (GET /api/v1/clusters), DescribeClusterDetail (GET /clusters/{id}), DeleteCluster (DELETE /clusters/{id}), DescribeClusterUserKubeconfig (GET /k8s/{id}/user_config), DescribeTaskInfo (GET /tasks/{id}), DescribeClusterNodePools (GET /clusters/{id}/nodepools), DescribeClusterNodePoolDetail (GET /clusters/{id}/nodepools/{np}), ScaleClusterNodePool (POST /clusters/{id}/nodepools/{np}), ModifyClusterNodePool (PUT /clusters/{id}/nodepools/{np}) and DeleteClusterNodes (POST /clusters/{id}/nodes)", r.Method, r.URL.Path))
	}
}

func (a *ACK) createCluster(w http.ResponseWriter, r *http.Request, reqID string, body []byte) {
	spec, err := ackParseCreate(body, a.opts.KubernetesVersion)
	if err != nil {
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, err.Error())
		return
	}
	now := a.opts.Now()

	a.mu.Lock()
	for _, c := range a.byID {
		if c.name == spec.name {
			a.mu.Unlock()
			ackServiceError(w, reqID, http.StatusBadRequest, ACKErrClusterNameExists,
				fmt.Sprintf("cluster name %q already exists (cluster %s): choose another name or delete that cluster", spec.name, c.id))
			return
		}
	}
	id, labName := a.newClusterIDLocked()
	ctx, cancel := context.WithTimeout(a.ctx, a.opts.CreateTimeout)
	c := &ackCluster{
		id:           id,
		name:         spec.name,
		region:       spec.region,
		clusterType:  spec.clusterType,
		clusterSpec:  spec.clusterSpec,
		labName:      labName,
		vpcID:        spec.vpcID,
		vswitchIDs:   spec.vswitchIDs,
		pools:        spec.pools,
		tags:         spec.tags,
		created:      now,
		updated:      now,
		state:        ACKStateInitial,
		cancelCreate: cancel,
		createDone:   make(chan struct{}),
	}
	task := a.newTaskLocked(id, ACKTaskCreate, now)
	a.byID[id] = c
	labSpec := lab.ClusterSpec{Name: c.labName, PodStartupDelay: a.opts.PodStartupDelay}
	for i := range c.pools {
		p := &c.pools[i]
		p.id, p.created, p.updated = "np"+ackRandHex(16), now, now
		if p.count > 0 {
			// Nodes asked for with the cluster start with it: their boot is
			// part of the cluster's creation time.
			labSpec.Pools = append(labSpec.Pools, ackLabPool(c, *p))
		}
	}
	a.wg.Add(1)
	a.mu.Unlock()

	a.logf("cluster %s (%q) initial: starting lab cluster %s", id, spec.name, c.labName)
	go a.runCreate(ctx, c, task, labSpec)

	ackJSON(w, http.StatusOK, map[string]string{"cluster_id": id, "request_id": reqID, "task_id": task})
}

func (a *ACK) runCreate(ctx context.Context, c *ackCluster, taskID string, spec lab.ClusterSpec) {
	defer a.wg.Done()
	defer close(c.createDone)
	defer c.cancelCreate()

	info, err := a.clusters.CreateCluster(ctx, spec)
	var kubeconfig []byte
	if err == nil {
		if info == nil || info.Server == "" || info.KubeconfigPath == "" {
			err = fmt.Errorf("lab returned no apiserver address or kubeconfig for %s", spec.Name)
		} else if kubeconfig, err = os.ReadFile(info.KubeconfigPath); err != nil {
			err = fmt.Errorf("read kubeconfig of lab cluster %s: %w", spec.Name, err)
		}
	}

	now := a.opts.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tasks[taskID]
	t.updated = now
	if err != nil {
		t.state, t.errCode, t.errMessage = ACKTaskFail, "ErrorCreateCluster", err.Error()
		if c.state == ACKStateInitial { // not being deleted meanwhile
			c.state, c.failure, c.updated = ACKStateFailed, err.Error(), now
		}
		a.logf("cluster %s failed: %v", c.id, err)
		return
	}
	t.state = ACKTaskSuccess
	c.server, c.kubeconfig = info.Server, kubeconfig
	for _, p := range c.pools {
		var existing []string
		for i := range p.count {
			existing = append(existing, fmt.Sprintf("%s-%s-%d", c.labName, p.name, i))
		}
		a.fleetSet(c, p, existing...)
	}
	if c.state == ACKStateInitial {
		c.state, c.updated = ACKStateRunning, now
		a.logf("cluster %s running at %s", c.id, info.Server)
	}
}

func (a *ACK) deleteCluster(w http.ResponseWriter, reqID, id string) {
	now := a.opts.Now()
	a.mu.Lock()
	c, ok := a.byID[id]
	if !ok {
		a.mu.Unlock()
		ackClusterNotFound(w, reqID, id)
		return
	}
	if c.state == ACKStateDeleting {
		task := c.deleteTask
		a.mu.Unlock()
		ackJSON(w, http.StatusAccepted, map[string]string{"cluster_id": id, "request_id": reqID, "task_id": task})
		return
	}
	c.state, c.updated = ACKStateDeleting, now
	a.fleet.forget(c.labName)
	task := a.newTaskLocked(id, ACKTaskDelete, now)
	c.deleteTask = task
	a.wg.Add(1)
	a.mu.Unlock()

	a.logf("cluster %s deleting lab cluster %s", id, c.labName)
	go a.runDelete(c, task)
	ackJSON(w, http.StatusAccepted, map[string]string{"cluster_id": id, "request_id": reqID, "task_id": task})
}

func (a *ACK) runDelete(c *ackCluster, taskID string) {
	defer a.wg.Done()
	// A cluster still starting is stopped first; the lab cluster may exist in part.
	c.cancelCreate()
	<-c.createDone

	// Not a child of a.ctx: a delete that was accepted finishes even during Close.
	ctx, cancel := context.WithTimeout(context.Background(), a.opts.DeleteTimeout)
	defer cancel()
	err := a.clusters.DeleteCluster(ctx, c.labName)

	now := a.opts.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tasks[taskID]
	t.updated = now
	if err != nil {
		t.state, t.errCode, t.errMessage = ACKTaskFail, "ErrorDeleteCluster", err.Error()
		c.state, c.failure, c.updated = ACKStateDeleteFailed, err.Error(), now
		a.logf("cluster %s delete failed: %v", c.id, err)
		return
	}
	t.state = ACKTaskSuccess
	delete(a.byID, c.id)
	a.logf("cluster %s deleted", c.id)
}

// newClusterIDLocked returns a new cluster ID shaped as ACK's ("c" and 32 hex digits)
// and its lab cluster name, "ack-" and the ID's first 12 hex digits: short, because
// the lab names nodes "<cluster>-<pool>-<index>" and a node's name is also its
// kubernetes.io/hostname label value, at most 63 characters.
func (a *ACK) newClusterIDLocked() (id, labName string) {
	for {
		id = "c" + ackRandHex(16)
		labName = ackLabClusterNamePrefix + id[1:13]
		taken := false
		for _, c := range a.byID {
			taken = taken || c.labName == labName
		}
		if !taken {
			return id, labName
		}
	}
}

func (a *ACK) newTaskLocked(clusterID, taskType string, now time.Time) string {
	id := "T-" + ackRandHex(12)
	a.tasks[id] = &ackTask{id: id, clusterID: clusterID, taskType: taskType, state: ACKTaskRunning, created: now, updated: now}
	return id
}

func (a *ACK) describeClusterDetail(w http.ResponseWriter, reqID, id string) {
	a.mu.Lock()
	c, ok := a.byID[id]
	var d ackClusterDetail
	if ok {
		d = a.detailLocked(c)
	}
	a.mu.Unlock()
	if !ok {
		ackClusterNotFound(w, reqID, id)
		return
	}
	ackJSON(w, http.StatusOK, d)
}

// describeClusters is the legacy DescribeClusters: a JSON array of cluster details,
// filtered by the name (substring) and cluster_type query parameters.
func (a *ACK) describeClusters(w http.ResponseWriter, r *http.Request) {
	ackJSON(w, http.StatusOK, a.list(r))
}

func (a *ACK) describeClustersV1(w http.ResponseWriter, r *http.Request, reqID string) {
	q := r.URL.Query()
	pageSize, err := ackPageParam(q.Get("page_size"), 10, 100, "page_size")
	if err == nil {
		var pageNumber int
		pageNumber, err = ackPageParam(q.Get("page_number"), 1, 1<<30, "page_number")
		if err == nil {
			all := a.list(r)
			from := min((pageNumber-1)*pageSize, len(all))
			to := min(from+pageSize, len(all))
			ackJSON(w, http.StatusOK, ackClustersV1{
				Clusters: all[from:to],
				PageInfo: ackPageInfo{PageNumber: pageNumber, PageSize: pageSize, TotalCount: len(all)},
			})
			return
		}
	}
	ackServiceError(w, reqID, http.StatusBadRequest, ACKErrInvalidParameter, err.Error())
}

func ackPageParam(v string, def, maxV int, name string) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxV {
		return 0, fmt.Errorf("%s %q is invalid: use an integer from 1 to %d", name, v, maxV)
	}
	return n, nil
}

func (a *ACK) list(r *http.Request) []ackClusterDetail {
	q := r.URL.Query()
	name, ctype, cid, region := q.Get("name"), q.Get("cluster_type"), q.Get("cluster_id"), q.Get("region_id")
	a.mu.Lock()
	out := make([]ackClusterDetail, 0, len(a.byID))
	for _, c := range a.byID {
		if (name != "" && !strings.Contains(c.name, name)) ||
			(ctype != "" && !strings.EqualFold(ctype, c.clusterType)) ||
			(cid != "" && cid != c.id) ||
			(region != "" && region != c.region) {
			continue
		}
		out = append(out, a.detailLocked(c))
	}
	a.mu.Unlock()
	// Newest first, as ACK lists them; ID breaks ties for a stable order.
	sort.Slice(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created > out[j].Created
		}
		return out[i].ClusterID < out[j].ClusterID
	})
	return out
}

func (a *ACK) describeUserKubeconfig(w http.ResponseWriter, reqID, id string) {
	a.mu.Lock()
	c, ok := a.byID[id]
	var state string
	var kc []byte
	if ok {
		state, kc = c.state, c.kubeconfig
	}
	a.mu.Unlock()
	switch {
	case !ok:
		ackClusterNotFound(w, reqID, id)
	case state != ACKStateRunning || len(kc) == 0:
		ackServiceError(w, reqID, http.StatusBadRequest, ACKErrClusterState,
			fmt.Sprintf("cluster %s is %s: its kubeconfig is available once it is running (poll DescribeClusterDetail)", id, state))
	default:
		ackJSON(w, http.StatusOK, map[string]string{"config": string(kc)})
	}
}

func (a *ACK) describeTaskInfo(w http.ResponseWriter, reqID, id string) {
	a.mu.Lock()
	t, ok := a.tasks[id]
	var resp ackTaskInfo
	if ok {
		resp = ackTaskInfo{
			ClusterID: t.clusterID,
			TaskID:    t.id,
			TaskType:  t.taskType,
			State:     t.state,
			Created:   ackTime(t.created),
			Updated:   ackTime(t.updated),
			Target:    &ackTaskTarget{ID: t.clusterID, Type: "cluster"},
		}
		if t.errCode != "" {
			resp.Error = &ackTaskError{Code: t.errCode, Message: t.errMessage}
		}
	}
	a.mu.Unlock()
	if !ok {
		ackServiceError(w, reqID, http.StatusNotFound, ACKErrTaskNotFound,
			fmt.Sprintf("task %s not found: use the task_id returned by CreateCluster or DeleteCluster", id))
		return
	}
	ackJSON(w, http.StatusOK, resp)
}

func ackClusterNotFound(w http.ResponseWriter, reqID, id string) {
	ackServiceError(w, reqID, http.StatusNotFound, ACKErrClusterNotFound, fmt.Sprintf("cluster %s not found", id))
}

func ackRandHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// ackRequestID returns an ID shaped as Alibaba Cloud's request IDs (an upper-case UUID).
func ackRequestID() string {
	h := strings.ToUpper(ackRandHex(16))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func ackTime(t time.Time) string { return t.Format(time.RFC3339) }

// ackPathCluster is the cluster ID a CS API path names (/clusters/{id}/...
// or /api/v1/clusters/{id}/...), or "".
func ackPathCluster(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "clusters" {
			return parts[i+1]
		}
	}
	return ""
}
