package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/requests"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// ackLabClusters is the real lab's cluster manager (the running lab's directory and
// binary cache).
func ackLabClusters(t testing.TB) *lab.Clusters {
	t.Helper()
	return labtest.Clusters(t)
}

// ackStart serves a new emulator backed by the real lab and returns its endpoint.
func ackStart(t testing.TB, opts ACKOptions) (string, *lab.Clusters) {
	t.Helper()
	clusters := ackLabClusters(t)
	a := NewACK(clusters, opts)
	t.Cleanup(a.Close)
	return ackServe(t, a), clusters
}

// ackWait polls cond every 250ms until it is true, failing the test after timeout.
func ackWait(t testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %s (last error: %v)", what, timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func ackTaskInfoOf(t testing.TB, c *cs.Client, endpoint, id string) (*cs.DescribeTaskInfoResponse, ackTaskInfo) {
	t.Helper()
	req := cs.CreateDescribeTaskInfoRequest()
	ackTarget(t, req.RoaRequest, endpoint)
	req.TaskId = id
	resp, err := c.DescribeTaskInfo(req)
	if err != nil {
		t.Fatalf("DescribeTaskInfo %s: %v", id, err)
	}
	var raw ackTaskInfo
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &raw); err != nil {
		t.Fatalf("DescribeTaskInfo body: %v", err)
	}
	return resp, raw
}

func ackKubeconfig(t testing.TB, c *cs.Client, endpoint, id string) (string, error) {
	t.Helper()
	req := cs.CreateDescribeClusterUserKubeconfigRequest()
	ackTarget(t, req.RoaRequest, endpoint)
	req.ClusterId = id
	resp, err := c.DescribeClusterUserKubeconfig(req)
	if err != nil {
		return "", err
	}
	return resp.Config, nil
}

func ackDelete(t testing.TB, c *cs.Client, endpoint, id string) string {
	t.Helper()
	req := cs.CreateDeleteClusterRequest()
	ackTarget(t, req.RoaRequest, endpoint)
	req.ClusterId = id
	resp, err := c.DeleteCluster(req)
	if err != nil {
		t.Fatalf("DeleteCluster %s: %v", id, err)
	}
	var body map[string]string
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &body); err != nil || body["task_id"] == "" || body["cluster_id"] != id {
		t.Fatalf("DeleteCluster body %q (%v): want cluster_id and task_id", resp.GetHttpContentString(), err)
	}
	return body["task_id"]
}

func ackManagedBody(name string, workers int, instanceType string) map[string]any {
	return map[string]any{
		"name": name, "region_id": "cn-hangzhou", "cluster_type": "ManagedKubernetes",
		"cluster_spec": "ack.pro.small", "vpcid": "vpc-hcalab", "vswitch_ids": []string{"vsw-hcalab1"},
		"num_of_nodes": workers, "worker_instance_types": []string{instanceType},
	}
}

// ackWaitGone waits for the cluster to be deleted (404 ErrorClusterNotFound).
func ackWaitGone(t testing.TB, c *cs.Client, endpoint, id string) {
	t.Helper()
	ackWait(t, 2*time.Minute, "cluster "+id+" deleted", func() (bool, error) {
		d, err := ackDetail(t, c, endpoint, id)
		if err == nil {
			if s := d["state"]; s != ACKStateDeleting {
				t.Fatalf("state while deleting is %v, want %s", s, ACKStateDeleting)
			}
			return false, nil
		}
		status, code, _ := ackErrCode(t, err)
		return status == http.StatusNotFound && code == ACKErrClusterNotFound, err
	})
}

func TestACKLabRoundTrip(t *testing.T) {
	endpoint, clusters := ackStart(t, ACKOptions{})
	c := ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)
	name := fmt.Sprintf("hca-rt-%d", time.Now().UnixNano()%1e6)

	start := time.Now()
	resp, err := ackCreate(t, c, endpoint, ackManagedBody(name, 2, "ecs.g6.large"))
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	id := resp.ClusterId
	if !strings.HasPrefix(id, "c") || len(id) != 33 || !strings.HasPrefix(resp.TaskId, "T-") || resp.RequestId == "" {
		t.Fatalf("CreateCluster answered cluster_id %q task_id %q request_id %q, want ACK-shaped IDs", id, resp.TaskId, resp.RequestId)
	}
	deleted := false
	t.Cleanup(func() {
		if !deleted { // leave no lab cluster behind when the test fails half way
			req := cs.CreateDeleteClusterRequest()
			ackTarget(t, req.RoaRequest, endpoint)
			req.ClusterId = id
			if _, err := c.DeleteCluster(req); err == nil {
				ackWaitGone(t, c, endpoint, id)
			}
		}
	})

	t.Run("starting", func(t *testing.T) {
		d, err := ackDetail(t, c, endpoint, id)
		if err != nil {
			t.Fatalf("DescribeClusterDetail: %v", err)
		}
		if s := d["state"]; s != ACKStateInitial && s != ACKStateRunning {
			t.Errorf("state right after CreateCluster = %v, want initial (or running)", s)
		}
		_, task := ackTaskInfoOf(t, c, endpoint, resp.TaskId)
		if task.ClusterID != id || task.TaskType != ACKTaskCreate || (task.State != ACKTaskRunning && task.State != ACKTaskSuccess) {
			t.Errorf("create task = %+v, want a running %s task of %s", task, ACKTaskCreate, id)
		}
	})

	t.Run("duplicate name", func(t *testing.T) {
		_, err := ackCreate(t, c, endpoint, ackManagedBody(name, 1, "ecs.g6.large"))
		if err == nil {
			t.Fatal("second CreateCluster with the same name succeeded")
		}
		status, code, msg := ackErrCode(t, err)
		if status != http.StatusBadRequest || code != ACKErrClusterNameExists || !strings.Contains(msg, name) {
			t.Errorf("got %d %s %q, want 400 %s naming %q", status, code, msg, ACKErrClusterNameExists, name)
		}
	})

	var sdkTask *cs.DescribeTaskInfoResponse
	ackWait(t, 5*time.Minute, "create task done", func() (bool, error) {
		r, task := ackTaskInfoOf(t, c, endpoint, resp.TaskId)
		if task.State == ACKTaskFail {
			t.Fatalf("create task failed: %+v", task.Error)
		}
		sdkTask = r
		return task.State == ACKTaskSuccess, nil
	})
	t.Logf("cluster %s running %s after CreateCluster", id, time.Since(start).Round(time.Millisecond))
	if sdkTask.State != ACKTaskSuccess || sdkTask.ClusterId != id || sdkTask.TaskType != ACKTaskCreate {
		t.Errorf("SDK DescribeTaskInfoResponse = state %q cluster %q type %q, want success %s %s", sdkTask.State, sdkTask.ClusterId, sdkTask.TaskType, id, ACKTaskCreate)
	}

	var server string
	t.Run("detail", func(t *testing.T) {
		d, err := ackDetail(t, c, endpoint, id)
		if err != nil {
			t.Fatalf("DescribeClusterDetail: %v", err)
		}
		var master ackMasterURL
		if err := json.Unmarshal([]byte(fmt.Sprint(d["master_url"])), &master); err != nil {
			t.Fatalf("master_url %v is not ACK's JSON document: %v", d["master_url"], err)
		}
		server = master.APIServerEndpoint
		want := map[string]any{
			"cluster_id": id, "name": name, "state": ACKStateRunning, "size": float64(2), "region_id": "cn-hangzhou",
			"cluster_type": "ManagedKubernetes", "current_version": "1.36.3-aliyun.1", "cluster_spec": "ack.pro.small",
			"vpc_id": "vpc-hcalab",
		}
		for k, v := range want {
			if d[k] != v {
				t.Errorf("%s = %v, want %v", k, d[k], v)
			}
		}
		if !strings.HasPrefix(server, "https://127.0.0.1:") {
			t.Errorf("master_url api_server_endpoint = %q, want the lab apiserver https://127.0.0.1:PORT", server)
		}
		if created, err := time.Parse(time.RFC3339, fmt.Sprint(d["created"])); err != nil || created.Before(start.Add(-time.Second).Truncate(time.Second)) {
			t.Errorf("created = %v (%v), want an RFC 3339 time of this test", d["created"], err)
		}
	})

	t.Run("lists", func(t *testing.T) {
		l := ackListV1(t, c, endpoint, name)
		if l.PageInfo.TotalCount != 1 || len(l.Clusters) != 1 || l.Clusters[0].ClusterID != id || l.Clusters[0].State != ACKStateRunning {
			t.Errorf("DescribeClustersV1 name=%s = %+v, want only %s running", name, l, id)
		}
		if other := ackListV1(t, c, endpoint, name+"-other"); other.PageInfo.TotalCount != 0 {
			t.Errorf("DescribeClustersV1 name=%s-other = %+v, want none", name, other)
		}
		// The legacy DescribeClusters (GET /clusters, a JSON array) through the SDK's
		// common request: the v1 SDK has no generated request for it.
		req := requests.NewCommonRequest()
		req.Method, req.Product, req.Version, req.PathPattern = "GET", "CS", "2015-12-15", "/clusters"
		ackTargetCommon(t, req, endpoint)
		r, err := c.ProcessCommonRequest(req)
		if err != nil {
			t.Fatalf("DescribeClusters: %v", err)
		}
		var arr []ackClusterDetail
		if err := json.Unmarshal(r.GetHttpContentBytes(), &arr); err != nil || len(arr) != 1 || arr[0].ClusterID != id {
			t.Errorf("DescribeClusters = %s (%v), want a JSON array holding %s", r.GetHttpContentString(), err, id)
		}
	})

	var labName string
	t.Run("kubeconfig reaches the lab cluster", func(t *testing.T) {
		kc, err := ackKubeconfig(t, c, endpoint, id)
		if err != nil {
			t.Fatalf("DescribeClusterUserKubeconfig: %v", err)
		}
		cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(kc))
		if err != nil {
			t.Fatalf("kubeconfig does not load: %v", err)
		}
		if cfg.Host != server {
			t.Errorf("kubeconfig server %s, master_url %s: want the same apiserver", cfg.Host, server)
		}
		kube, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "alibabacloud.com/cluster-id=" + id})
		if err != nil {
			t.Fatalf("list nodes: %v", err)
		}
		if len(nodes.Items) != 2 {
			t.Fatalf("cluster has %d worker nodes, want 2", len(nodes.Items))
		}
		for _, n := range nodes.Items {
			cpu, mem := n.Status.Allocatable[corev1.ResourceCPU], n.Status.Allocatable[corev1.ResourceMemory]
			if cpu.Cmp(resource.MustParse("2")) != 0 || mem.Cmp(resource.MustParse("8Gi")) != 0 {
				t.Errorf("node %s allocatable cpu %s memory %s, want 2 and 8Gi (ecs.g6.large)", n.Name, cpu.String(), mem.String())
			}
			if it := n.Labels["node.kubernetes.io/instance-type"]; it != "ecs.g6.large" {
				t.Errorf("node %s instance type label %q, want ecs.g6.large", n.Name, it)
			}
			labName = n.Labels["hca.dev/lab-cluster"]
		}
		if _, err := clusters.Get(labName); err != nil {
			t.Errorf("lab cluster %q of the nodes is not recorded by the lab: %v", labName, err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		task := ackDelete(t, c, endpoint, id)
		deleted = true
		ackWaitGone(t, c, endpoint, id)
		_, ti := ackTaskInfoOf(t, c, endpoint, task)
		if ti.State != ACKTaskSuccess || ti.TaskType != ACKTaskDelete || ti.ClusterID != id {
			t.Errorf("delete task = %+v, want a successful %s of %s", ti, ACKTaskDelete, id)
		}
		if _, err := ackKubeconfig(t, c, endpoint, id); err == nil {
			t.Error("kubeconfig of a deleted cluster was served")
		} else if status, code, _ := ackErrCode(t, err); status != http.StatusNotFound || code != ACKErrClusterNotFound {
			t.Errorf("kubeconfig of a deleted cluster: %d %s, want 404 %s", status, code, ACKErrClusterNotFound)
		}
		if l := ackListV1(t, c, endpoint, name); l.PageInfo.TotalCount != 0 {
			t.Errorf("deleted cluster still listed: %+v", l)
		}
		// The lab cluster is gone too: no recorded state, no apiserver.
		if labName != "" {
			if _, err := clusters.Get(labName); err == nil {
				t.Errorf("lab cluster %s still recorded after DeleteCluster", labName)
			}
		}
		hc := &http.Client{Timeout: 5 * time.Second}
		if r, err := hc.Get(server + "/readyz"); err == nil {
			r.Body.Close()
			t.Errorf("apiserver %s still answers (%s) after DeleteCluster", server, r.Status)
		}
	})
}

// TestACKLabCreateFails bounds the lab start to 1ms: the real lab gives up, and the
// cluster and its task must say so.
func TestACKLabCreateFails(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	endpoint, _ := ackStart(t, ACKOptions{CreateTimeout: time.Millisecond, Now: func() time.Time { return at }})
	c := ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)

	resp, err := ackCreate(t, c, endpoint, ackManagedBody("hca-fails", 1, "ecs.c6.xlarge"))
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	var task ackTaskInfo
	ackWait(t, time.Minute, "create task ends", func() (bool, error) {
		_, task = ackTaskInfoOf(t, c, endpoint, resp.TaskId)
		return task.State != ACKTaskRunning, nil
	})
	if task.State != ACKTaskFail || task.Error == nil || task.Error.Message == "" {
		t.Fatalf("create task = %+v, want fail with an error", task)
	}
	d, err := ackDetail(t, c, endpoint, resp.ClusterId)
	if err != nil {
		t.Fatal(err)
	}
	if d["state"] != ACKStateFailed || d["created"] != "2026-03-04T05:06:07Z" || d["master_url"] != "{}" {
		t.Errorf("detail state %v created %v master_url %v, want failed, the injected clock's time and no endpoint", d["state"], d["created"], d["master_url"])
	}
	_, err = ackKubeconfig(t, c, endpoint, resp.ClusterId)
	if status, code, _ := ackErrCode(t, err); status != http.StatusBadRequest || code != ACKErrClusterState {
		t.Errorf("kubeconfig of a failed cluster: %d %s, want 400 %s", status, code, ACKErrClusterState)
	}
	del := ackDelete(t, c, endpoint, resp.ClusterId)
	ackWaitGone(t, c, endpoint, resp.ClusterId)
	if _, ti := ackTaskInfoOf(t, c, endpoint, del); ti.State != ACKTaskSuccess {
		t.Errorf("delete task of a failed cluster = %+v, want success", ti)
	}
}

// BenchmarkACKDescribeClusterDetail measures one DescribeClusterDetail of a running
// cluster through the SDK (signing, HTTP on loopback, verification, JSON).
func BenchmarkACKDescribeClusterDetail(b *testing.B) {
	endpoint, _ := ackStart(b, ACKOptions{})
	c := ackClient(b, AlicloudAccessKey, AlicloudAccessSecret)
	resp, err := ackCreate(b, c, endpoint, ackManagedBody("hca-bench", 0, "ecs.g6.large"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ackDelete(b, c, endpoint, resp.ClusterId)
		ackWaitGone(b, c, endpoint, resp.ClusterId)
	})
	ackWait(b, 5*time.Minute, "running", func() (bool, error) {
		d, err := ackDetail(b, c, endpoint, resp.ClusterId)
		return err == nil && d["state"] == ACKStateRunning, err
	})
	req := cs.CreateDescribeClusterDetailRequest()
	ackTarget(b, req.RoaRequest, endpoint)
	req.ClusterId = resp.ClusterId
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.DescribeClusterDetail(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkACKCreateToRunning measures CreateCluster (2 ecs.g6.large workers) until
// DescribeClusterDetail reports running: the lab starting a real control plane and
// kwok nodes. Run it with -benchtime=1x or 3x: each op is a cluster.
func BenchmarkACKCreateToRunning(b *testing.B) {
	endpoint, _ := ackStart(b, ACKOptions{})
	c := ackClient(b, AlicloudAccessKey, AlicloudAccessSecret)
	for i := 0; i < b.N; i++ {
		resp, err := ackCreate(b, c, endpoint, ackManagedBody(fmt.Sprintf("hca-bench-%d", i), 2, "ecs.g6.large"))
		if err != nil {
			b.Fatal(err)
		}
		ackWait(b, 5*time.Minute, "running", func() (bool, error) {
			d, err := ackDetail(b, c, endpoint, resp.ClusterId)
			if err == nil && d["state"] == ACKStateFailed {
				b.Fatalf("cluster failed")
			}
			return err == nil && d["state"] == ACKStateRunning, err
		})
		b.StopTimer()
		ackDelete(b, c, endpoint, resp.ClusterId)
		ackWaitGone(b, c, endpoint, resp.ClusterId)
		b.StartTimer()
	}
}

// TestACKLabDeleteWhileStarting deletes a cluster still "initial": the start is
// cancelled, and neither the ACK cluster nor its lab cluster remains.
func TestACKLabDeleteWhileStarting(t *testing.T) {
	endpoint, clusters := ackStart(t, ACKOptions{})
	c := ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)
	resp, err := ackCreate(t, c, endpoint, ackManagedBody("hca-short-lived", 2, "ecs.g6.xlarge"))
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	del := ackDelete(t, c, endpoint, resp.ClusterId)
	if again := ackDelete(t, c, endpoint, resp.ClusterId); again != del {
		t.Errorf("second DeleteCluster while deleting gave task %s, want the running %s", again, del)
	}
	ackWaitGone(t, c, endpoint, resp.ClusterId)
	if _, ti := ackTaskInfoOf(t, c, endpoint, del); ti.State != ACKTaskSuccess {
		t.Errorf("delete task = %+v, want success", ti)
	}
	if _, ti := ackTaskInfoOf(t, c, endpoint, resp.TaskId); ti.State == ACKTaskRunning {
		t.Errorf("create task still running after the cluster was deleted: %+v", ti)
	}
	labName := ackLabClusterNamePrefix + resp.ClusterId[1:13]
	if st, err := clusters.Get(labName); err == nil {
		t.Errorf("lab cluster %s left behind (apiserver %s)", labName, st.Server)
	}
}

// TestACKLabEndpoint checks the emulator the running lab serves (HCA_LAB_ACK_ENDPOINT),
// the one the provider's tests use: signed requests pass, unsigned ones do not.
func TestACKLabEndpoint(t *testing.T) {
	endpoint := labtest.Require(t, "HCA_LAB_ACK_ENDPOINT")["HCA_LAB_ACK_ENDPOINT"]
	c := ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)
	l := ackListV1(t, c, endpoint, "")
	if l.PageInfo.PageNumber != 1 || l.PageInfo.TotalCount != len(l.Clusters) {
		t.Errorf("DescribeClustersV1 page_info %+v for %d clusters", l.PageInfo, len(l.Clusters))
	}
	_, err := ackDetail(t, c, endpoint, "c00000000000000000000000000000000")
	if status, code, _ := ackErrCode(t, err); status != http.StatusNotFound || code != ACKErrClusterNotFound {
		t.Errorf("unknown cluster: %d %s, want 404 %s", status, code, ACKErrClusterNotFound)
	}
	_, err = ackDetail(t, ackClient(t, AlicloudAccessKey, "wrong"), endpoint, "c00000000000000000000000000000000")
	if status, code, _ := ackErrCode(t, err); status != http.StatusBadRequest || code != ACKErrSignatureMismatch {
		t.Errorf("wrong secret: %d %s, want 400 %s", status, code, ACKErrSignatureMismatch)
	}
}
