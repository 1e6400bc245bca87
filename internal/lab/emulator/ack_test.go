package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdkerrors "github.com/aliyun/alibaba-cloud-sdk-go/sdk/errors"
	"github.com/aliyun/alibaba-cloud-sdk-go/sdk/requests"
	"github.com/aliyun/alibaba-cloud-sdk-go/services/cs"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// ackServe serves h on a loopback listener for the test and returns its base URL.
func ackServe(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns http.ErrServerClosed on Shutdown
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return "http://" + ln.Addr().String()
}

// ackClient is the unmodified SDK client, as the provider builds it.
func ackClient(t testing.TB, key, secret string) *cs.Client {
	t.Helper()
	c, err := cs.NewClientWithAccessKey("cn-hangzhou", key, secret)
	if err != nil {
		t.Fatalf("new cs client: %v", err)
	}
	return c
}

// ackTarget points one SDK request at endpoint: the SDK builds ROA URLs as
// scheme://Domain:Port/path, so the port goes in Port, not in the client's Domain.
func ackTarget(t testing.TB, req *requests.RoaRequest, endpoint string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatalf("parse endpoint %q: %v", endpoint, err)
	}
	req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
}

// ackTargetCommon is ackTarget for the SDK's common (hand-built) requests.
func ackTargetCommon(t testing.TB, req *requests.CommonRequest, endpoint string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatalf("parse endpoint %q: %v", endpoint, err)
	}
	req.Scheme, req.Domain, req.Port = u.Scheme, u.Hostname(), u.Port()
}

// ackErrCode returns the HTTP status and error code of an SDK error. Gateway errors
// carry the code in ErrorCode(); CS errors ({"code":...}) only in the JSON of Message().
func ackErrCode(t testing.TB, err error) (int, string, string) {
	t.Helper()
	var se *sdkerrors.ServerError
	if !errors.As(err, &se) {
		t.Fatalf("want *errors.ServerError, got %T: %v", err, err)
	}
	if se.ErrorCode() != "" {
		return se.HttpStatus(), se.ErrorCode(), se.Message()
	}
	var body struct{ Code, Message, RequestID string }
	if jerr := json.Unmarshal([]byte(se.Message()), &body); jerr != nil {
		t.Fatalf("CS error body is not JSON: %v: %s", jerr, se.Message())
	}
	if body.RequestID == "" {
		t.Errorf("CS error has no requestId: %s", se.Message())
	}
	return se.HttpStatus(), body.Code, body.Message
}

// ackNoClusters fails the test if the emulator starts or stops a lab cluster: the
// requests of these tests must be refused before that.
type ackNoClusters struct{ t testing.TB }

func (n ackNoClusters) CreateCluster(context.Context, lab.ClusterSpec) (*lab.ClusterInfo, error) {
	n.t.Errorf("CreateCluster called on a refused request")
	return nil, errors.New("not allowed in this test")
}

func (n ackNoClusters) DeleteCluster(context.Context, string) error {
	n.t.Errorf("DeleteCluster called on a refused request")
	return errors.New("not allowed in this test")
}

func (n ackNoClusters) SetNodePool(context.Context, string, lab.NodePool) error {
	n.t.Errorf("SetNodePool called")
	return errors.New("not allowed in this test")
}

func (n ackNoClusters) AddNode(context.Context, string, lab.NodePool, string) error {
	n.t.Errorf("AddNode called")
	return errors.New("not allowed in this test")
}

func (n ackNoClusters) DeleteNode(context.Context, string, string) error {
	n.t.Errorf("DeleteNode called")
	return errors.New("not allowed in this test")
}

func (n ackNoClusters) PoolNodes(context.Context, string, string) ([]lab.PoolNode, error) {
	n.t.Errorf("PoolNodes called")
	return nil, errors.New("not allowed in this test")
}

func (n ackNoClusters) TaintNode(context.Context, string, string, lab.Taint, bool) error {
	n.t.Errorf("TaintNode called")
	return errors.New("not allowed in this test")
}

func ackNewNoLab(t *testing.T) string {
	a := NewACK(ackNoClusters{t}, ACKOptions{})
	t.Cleanup(a.Close)
	return ackServe(t, a)
}

func ackCreate(t testing.TB, c *cs.Client, endpoint string, body any) (*cs.CreateClusterResponse, error) {
	t.Helper()
	req := cs.CreateCreateClusterRequest()
	ackTarget(t, req.RoaRequest, endpoint)
	var raw []byte
	switch b := body.(type) {
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			t.Fatalf("marshal body: %v", err)
		}
	}
	req.SetContent(raw)
	req.SetContentType("application/json")
	return c.CreateCluster(req)
}

func ackDetail(t testing.TB, c *cs.Client, endpoint, id string) (map[string]any, error) {
	t.Helper()
	req := cs.CreateDescribeClusterDetailRequest()
	ackTarget(t, req.RoaRequest, endpoint)
	req.ClusterId = id
	resp, err := c.DescribeClusterDetail(req)
	if err != nil {
		return nil, err
	}
	var d map[string]any
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &d); err != nil {
		t.Fatalf("DescribeClusterDetail body: %v: %s", err, resp.GetHttpContentString())
	}
	return d, nil
}

func ackListV1(t testing.TB, c *cs.Client, endpoint, name string) ackClustersV1 {
	t.Helper()
	req := cs.CreateDescribeClustersV1Request()
	ackTarget(t, req.RoaRequest, endpoint)
	req.Name = name
	resp, err := c.DescribeClustersV1(req)
	if err != nil {
		t.Fatalf("DescribeClustersV1: %v", err)
	}
	var l ackClustersV1
	if err := json.Unmarshal(resp.GetHttpContentBytes(), &l); err != nil {
		t.Fatalf("DescribeClustersV1 body: %v: %s", err, resp.GetHttpContentString())
	}
	return l
}

func TestACKAuthentication(t *testing.T) {
	endpoint := ackNewNoLab(t)

	t.Run("unsigned request", func(t *testing.T) {
		resp, err := http.Get(endpoint + "/clusters/cabc")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusForbidden || body["Code"] != ACKErrAccessKeyNotFound || body["RequestId"] == "" {
			t.Errorf("unsigned: got %d %v, want 403 %s with a RequestId", resp.StatusCode, body, ACKErrAccessKeyNotFound)
		}
	})

	tests := []struct {
		name, key, secret string
		wantStatus        int
		wantCode          string
		wantRecommend     string // substring of the SDK's Recommend, if any
	}{
		{"unknown access key", "LTAIsomeoneelse0001", AlicloudAccessSecret, 403, ACKErrAccessKeyNotFound, ""},
		// The SDK compares the server's string to sign with its own: equal strings mean
		// the emulator computes exactly what the SDK signs, and only the secret differs.
		{"wrong secret", AlicloudAccessKey, "not-the-lab-secret", 400, ACKErrSignatureMismatch, "InvalidAccessKeySecret"},
		{"lab credentials", AlicloudAccessKey, AlicloudAccessSecret, 404, ACKErrClusterNotFound, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ackDetail(t, ackClient(t, tc.key, tc.secret), endpoint, "c0123")
			status, code, _ := ackErrCode(t, err)
			if status != tc.wantStatus || code != tc.wantCode {
				t.Fatalf("got %d %s, want %d %s (%v)", status, code, tc.wantStatus, tc.wantCode, err)
			}
			var se *sdkerrors.ServerError
			errors.As(err, &se)
			if tc.wantRecommend != "" && !strings.Contains(se.Recommend(), tc.wantRecommend) {
				t.Errorf("Recommend = %q, want it to contain %q", se.Recommend(), tc.wantRecommend)
			}
			if strings.Contains(err.Error(), AlicloudAccessSecret) {
				t.Errorf("error reveals the secret: %v", err)
			}
		})
	}

	t.Run("query parameters are signed", func(t *testing.T) {
		// DescribeClustersV1 sends name/page_size in the query: the signature covers them.
		l := ackListV1(t, ackClient(t, AlicloudAccessKey, AlicloudAccessSecret), endpoint, "some name/with?odd&chars")
		if l.PageInfo.TotalCount != 0 || l.Clusters == nil {
			t.Errorf("empty emulator lists %+v, want no clusters and a [] list", l)
		}
	})
}

func TestACKCreateClusterValidation(t *testing.T) {
	endpoint := ackNewNoLab(t)
	c := ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)
	valid := func(mod func(m map[string]any)) map[string]any {
		m := map[string]any{
			"name": "ok", "region_id": "cn-hangzhou", "cluster_type": "ManagedKubernetes",
			"vswitch_ids": []string{"vsw-1"}, "num_of_nodes": 2, "worker_instance_types": []string{"ecs.g6.large"},
		}
		mod(m)
		return m
	}
	tests := []struct {
		name string
		body any
		want string // substring of the message
	}{
		{"empty body", "", "request body is empty"},
		{"not JSON", "{name:", "not a valid CreateCluster JSON object"},
		{"wrong field type", valid(func(m map[string]any) { m["num_of_nodes"] = "two" }), "num_of_nodes"},
		{"missing name", valid(func(m map[string]any) { delete(m, "name") }), "name is required"},
		{"bad name", valid(func(m map[string]any) { m["name"] = "-bad name" }), `name "-bad name" is invalid`},
		{"missing region", valid(func(m map[string]any) { delete(m, "region_id") }), "region_id is required"},
		{"missing cluster_type", valid(func(m map[string]any) { delete(m, "cluster_type") }), "cluster_type is required: set cluster_type to ManagedKubernetes"},
		{"unknown cluster_type", valid(func(m map[string]any) { m["cluster_type"] = "Kubernetes" }), `cluster_type "Kubernetes" is not supported`},
		{"bad cluster_spec", valid(func(m map[string]any) { m["cluster_spec"] = "ack.huge" }), `cluster_spec "ack.huge" is invalid`},
		{"other version", valid(func(m map[string]any) { m["kubernetes_version"] = "1.20.4-aliyun.1" }), `kubernetes_version "1.20.4-aliyun.1" is not offered: use 1.36.3-aliyun.1`},
		{"missing vswitch_ids", valid(func(m map[string]any) { delete(m, "vswitch_ids") }), "vswitch_ids is required"},
		{"empty vswitch_ids", valid(func(m map[string]any) { m["vswitch_ids"] = []string{} }), "vswitch_ids is required"},
		{"bad vswitch id", valid(func(m map[string]any) { m["vswitch_ids"] = []string{"vsw-1", "subnet-2"} }), `vswitch_ids[1] "subnet-2" is not a vSwitch ID`},
		{"negative workers", valid(func(m map[string]any) { m["num_of_nodes"] = -1 }), "num_of_nodes is -1: use 0 or more worker nodes"},
		{"too many workers", valid(func(m map[string]any) { m["num_of_nodes"] = 101 }), "at most 100 nodes"},
		{"workers without type", valid(func(m map[string]any) { delete(m, "worker_instance_types") }), "worker_instance_types is required when num_of_nodes is 2"},
		{"unknown instance type", valid(func(m map[string]any) { m["worker_instance_types"] = []string{"ecs.x99.huge"} }), `worker_instance_types[0] "ecs.x99.huge" is not offered by the ACK emulator: use one of ecs.c6.2xlarge`},
		{"nodepool without name", valid(func(m map[string]any) {
			m["nodepools"] = []any{map[string]any{"scaling_group": map[string]any{"desired_size": 1, "instance_types": []string{"ecs.g6.large"}}}}
		}), "nodepools[0].nodepool_info.name is required"},
		{"nodepool negative size", valid(func(m map[string]any) {
			m["nodepools"] = []any{map[string]any{"nodepool_info": map[string]any{"name": "np1"}, "scaling_group": map[string]any{"desired_size": -3}}}
		}), "nodepools[0].scaling_group.desired_size is -3"},
		{"nodepool unknown type", valid(func(m map[string]any) {
			m["nodepools"] = []any{map[string]any{"nodepool_info": map[string]any{"name": "np1"}, "scaling_group": map[string]any{"desired_size": 1, "instance_types": []string{"ecs.t5.nano"}}}}
		}), `nodepools[0].scaling_group.instance_types[0] "ecs.t5.nano" is not offered`},
		{"nodepool name clash", valid(func(m map[string]any) {
			m["nodepools"] = []any{map[string]any{"nodepool_info": map[string]any{"name": "default-nodepool"}}}
		}), `"default-nodepool" is used twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ackCreate(t, c, endpoint, tc.body)
			if err == nil {
				t.Fatal("CreateCluster succeeded, want 400")
			}
			status, code, msg := ackErrCode(t, err)
			if status != http.StatusBadRequest || code != ACKErrInvalidParameter || !strings.Contains(msg, tc.want) {
				t.Errorf("got %d %s %q, want 400 %s containing %q", status, code, msg, ACKErrInvalidParameter, tc.want)
			}
		})
	}
	if l := ackListV1(t, c, endpoint, ""); l.PageInfo.TotalCount != 0 {
		t.Errorf("refused creates left clusters: %+v", l)
	}
}

func TestACKNotFound(t *testing.T) {
	endpoint := ackNewNoLab(t)
	c := ackClient(t, AlicloudAccessKey, AlicloudAccessSecret)
	const id = "c00000000000000000000000000000000"
	tests := []struct {
		name     string
		call     func() error
		wantCode string
	}{
		{"DescribeClusterDetail", func() error { _, err := ackDetail(t, c, endpoint, id); return err }, ACKErrClusterNotFound},
		{"DeleteCluster", func() error {
			req := cs.CreateDeleteClusterRequest()
			ackTarget(t, req.RoaRequest, endpoint)
			req.ClusterId = id
			_, err := c.DeleteCluster(req)
			return err
		}, ACKErrClusterNotFound},
		{"DescribeClusterUserKubeconfig", func() error {
			req := cs.CreateDescribeClusterUserKubeconfigRequest()
			ackTarget(t, req.RoaRequest, endpoint)
			req.ClusterId = id
			_, err := c.DescribeClusterUserKubeconfig(req)
			return err
		}, ACKErrClusterNotFound},
		{"DescribeTaskInfo", func() error {
			req := cs.CreateDescribeTaskInfoRequest()
			ackTarget(t, req.RoaRequest, endpoint)
			req.TaskId = "T-000000000000000000000000"
			_, err := c.DescribeTaskInfo(req)
			return err
		}, ACKErrTaskNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil {
				t.Fatal("call succeeded, want 404")
			}
			status, code, msg := ackErrCode(t, err)
			if status != http.StatusNotFound || code != tc.wantCode {
				t.Errorf("got %d %s (%s), want 404 %s", status, code, msg, tc.wantCode)
			}
		})
	}

	t.Run("unknown operation", func(t *testing.T) {
		req := requests.NewCommonRequest()
		req.Method, req.Product, req.Version, req.PathPattern = "GET", "CS", "2015-12-15", "/no/such/api"
		ackTargetCommon(t, req, endpoint)
		_, err := c.ProcessCommonRequest(req)
		status, code, _ := ackErrCode(t, err)
		if status != http.StatusNotFound || code != ACKErrActionNotFound {
			t.Errorf("got %d %s, want 404 %s", status, code, ACKErrActionNotFound)
		}
	})
}
