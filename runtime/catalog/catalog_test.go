package catalog_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	consul "github.com/hashicorp/consul/api"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
)

func TestValidate(t *testing.T) {
	ok := catalog.Service{Name: "web", Owner: "ns/web", Cluster: "eks-1", Weight: 1,
		Endpoints: []catalog.Endpoint{{ID: "web-1", Address: "10.0.0.1", Port: 80}}}
	tests := []struct {
		name string
		edit func(*catalog.Service)
		want string
	}{
		{"valid", func(*catalog.Service) {}, ""},
		{"bad name", func(s *catalog.Service) { s.Name = "web_app" }, `consul service name "web_app" is invalid`},
		{"no cluster", func(s *catalog.Service) { s.Cluster = "" }, "cluster is empty"},
		{"no owner", func(s *catalog.Service) { s.Owner = "" }, "owner is empty"},
		{"zero weight", func(s *catalog.Service) { s.Weight = 0 }, "weight 0 must be at least 1"},
		{"bad port", func(s *catalog.Service) { s.Endpoints[0].Port = 0 }, `endpoint "web-1" of cluster eks-1 needs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			s.Endpoints = append([]catalog.Endpoint(nil), ok.Endpoints...)
			tt.edit(&s)
			err := s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSyncAgainstConsulAndNginx drives the real lab Consul; consul-template then
// renders the nginx upstream from what Sync published.
func TestSyncAgainstConsulAndNginx(t *testing.T) {
	env := labtest.Require(t, "CONSUL_HTTP_ADDR", "HCA_LAB_NGINX_UPSTREAMS")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := consul.NewClient(&consul.Config{Address: env["CONSUL_HTTP_ADDR"]})
	if err != nil {
		t.Fatal(err)
	}
	pub := catalog.New(client.Catalog(), client.Health())
	id := rand.IntN(1e6)
	cluster := fmt.Sprintf("eks-cat-%d", id)
	svc := catalog.Service{Name: fmt.Sprintf("cat-web-%d", id), Owner: "shop/web", Cluster: cluster, Weight: 2, Tags: []string{"burst"},
		Endpoints: []catalog.Endpoint{
			{ID: "web-a", Address: "127.0.0.1", Port: 18001, Ready: true},
			{ID: "web-b", Address: "127.0.0.1", Port: 18002, Ready: true},
			{ID: "web-c", Address: "127.0.0.1", Port: 18003, Ready: false},
		}}
	t.Cleanup(func() {
		_, _ = client.Catalog().Deregister(&consul.CatalogDeregistration{Node: catalog.NodeName(cluster)}, nil)
	})

	steps := []struct {
		name       string
		edit       func(*catalog.Service)
		want       catalog.Result
		healthy    []int // ports consul reports passing
		upstream   []int // ports in the nginx upstream (nil: no upstream block)
		nodeExists bool
	}{
		{"first sync registers all", func(*catalog.Service) {}, catalog.Result{Registered: 3}, []int{18001, 18002}, []int{18001, 18002}, true},
		{"same input changes nothing", func(*catalog.Service) {}, catalog.Result{}, []int{18001, 18002}, []int{18001, 18002}, true},
		{"pod becomes ready", func(s *catalog.Service) { s.Endpoints[2].Ready = true }, catalog.Result{Registered: 1}, []int{18001, 18002, 18003}, []int{18001, 18002, 18003}, true},
		{"pod goes away", func(s *catalog.Service) { s.Endpoints = s.Endpoints[1:] }, catalog.Result{Deregistered: 1}, []int{18002, 18003}, []int{18002, 18003}, true},
		{"cluster emptied", func(s *catalog.Service) { s.Endpoints = nil }, catalog.Result{Deregistered: 2}, nil, nil, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.edit(&svc)
			got, err := pub.Sync(ctx, svc)
			if err != nil {
				t.Fatal(err)
			}
			if got != st.want {
				t.Fatalf("Sync = %+v, want %+v", got, st.want)
			}
			entries, _, err := client.Health().Service(svc.Name, "", true, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ports []int
			for _, e := range entries {
				ports = append(ports, e.Service.Port)
				if e.Service.Meta["weight"] != "2" || e.Service.Meta["cluster"] != cluster || e.Node.Meta["external-node"] != "true" {
					t.Errorf("instance %s has meta %v on node meta %v", e.Service.ID, e.Service.Meta, e.Node.Meta)
				}
			}
			if !sameInts(ports, st.healthy) {
				t.Fatalf("passing instances on ports %v, want %v", ports, st.healthy)
			}
			node, _, err := client.Catalog().Node(catalog.NodeName(cluster), nil)
			if err != nil {
				t.Fatal(err)
			}
			if (node != nil) != st.nodeExists {
				t.Fatalf("node exists = %v, want %v", node != nil, st.nodeExists)
			}
			waitUpstream(t, ctx, env["HCA_LAB_NGINX_UPSTREAMS"], svc.Name, st.upstream)
		})
	}
}

// TestSyncKeepsOtherOwners checks that two policies publishing into the same member
// cluster do not remove each other's instances or the shared node.
func TestSyncKeepsOtherOwners(t *testing.T) {
	env := labtest.Require(t, "CONSUL_HTTP_ADDR")
	ctx := context.Background()
	client, err := consul.NewClient(&consul.Config{Address: env["CONSUL_HTTP_ADDR"]})
	if err != nil {
		t.Fatal(err)
	}
	pub := catalog.New(client.Catalog(), client.Health())
	cluster := fmt.Sprintf("ack-cat-%d", rand.IntN(1e6))
	t.Cleanup(func() {
		_, _ = client.Catalog().Deregister(&consul.CatalogDeregistration{Node: catalog.NodeName(cluster)}, nil)
	})
	a := catalog.Service{Name: "cat-a", Owner: "ns/a", Cluster: cluster, Weight: 1, Endpoints: []catalog.Endpoint{{ID: "a-1", Address: "127.0.0.1", Port: 19001, Ready: true}}}
	b := catalog.Service{Name: "cat-b", Owner: "ns/b", Cluster: cluster, Weight: 1, Endpoints: []catalog.Endpoint{{ID: "b-1", Address: "127.0.0.1", Port: 19002, Ready: true}}}
	for _, s := range []catalog.Service{a, b} {
		if _, err := pub.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	res, err := pub.Remove(ctx, a.Name, a.Owner, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deregistered != 1 {
		t.Fatalf("Remove deregistered %d, want 1", res.Deregistered)
	}
	node, _, err := client.Catalog().Node(catalog.NodeName(cluster), nil)
	if err != nil || node == nil {
		t.Fatalf("shared node removed while cat-b still runs there (err %v)", err)
	}
	if _, ok := node.Services["cat-b:"+cluster+":b-1"]; !ok || len(node.Services) != 1 {
		t.Fatalf("node services = %v, want only cat-b's instance", node.Services)
	}
}

// TestMarkUnreachable checks, against the lab's Consul and nginx, that the
// instances of an unreachable cluster turn critical (nginx drops them, the
// catalog keeps them), that another owner's instances there are left alone,
// and that a Sync once the cluster answers makes them passing again.
func TestMarkUnreachable(t *testing.T) {
	env := labtest.Require(t, "CONSUL_HTTP_ADDR", "HCA_LAB_NGINX_UPSTREAMS")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := consul.NewClient(&consul.Config{Address: env["CONSUL_HTTP_ADDR"]})
	if err != nil {
		t.Fatal(err)
	}
	pub := catalog.New(client.Catalog(), client.Health())
	id := rand.IntN(1e6)
	cluster := fmt.Sprintf("eks-down-%d", id)
	t.Cleanup(func() {
		_, _ = client.Catalog().Deregister(&consul.CatalogDeregistration{Node: catalog.NodeName(cluster)}, nil)
	})
	svc := catalog.Service{Name: fmt.Sprintf("down-web-%d", id), Owner: "shop/web", Cluster: cluster, Weight: 2,
		Endpoints: []catalog.Endpoint{{ID: "web-a", Address: "127.0.0.1", Port: 18101, Ready: true}, {ID: "web-b", Address: "127.0.0.1", Port: 18102, Ready: true}}}
	other := catalog.Service{Name: svc.Name, Owner: "shop/other", Cluster: cluster, Weight: 2,
		Endpoints: []catalog.Endpoint{{ID: "other-a", Address: "127.0.0.1", Port: 18103, Ready: true}}}
	for _, s := range []catalog.Service{svc, other} {
		if _, err := pub.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	waitUpstream(t, ctx, env["HCA_LAB_NGINX_UPSTREAMS"], svc.Name, []int{18101, 18102, 18103})

	passing := func() []int {
		t.Helper()
		entries, _, err := client.Health().Service(svc.Name, "", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ports []int
		for _, e := range entries {
			ports = append(ports, e.Service.Port)
		}
		return ports
	}
	steps := []struct {
		name     string
		do       func() (catalog.Result, error)
		want     catalog.Result
		passing  []int
		listed   int
		upstream []int
	}{
		{"unreachable: its two instances turn critical, the other owner's stay",
			func() (catalog.Result, error) { return pub.MarkUnreachable(ctx, svc.Name, svc.Owner, cluster) },
			catalog.Result{Registered: 2}, []int{18103}, 3, []int{18103}},
		{"still unreachable: nothing to write",
			func() (catalog.Result, error) { return pub.MarkUnreachable(ctx, svc.Name, svc.Owner, cluster) },
			catalog.Result{}, []int{18103}, 3, []int{18103}},
		{"seen again: Sync sets health from readiness",
			func() (catalog.Result, error) { return pub.Sync(ctx, svc) },
			catalog.Result{Registered: 2}, []int{18101, 18102, 18103}, 3, []int{18101, 18102, 18103}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, err := st.do()
			if err != nil {
				t.Fatal(err)
			}
			if got != st.want {
				t.Fatalf("result %+v, want %+v", got, st.want)
			}
			if p := passing(); !sameInts(p, st.passing) {
				t.Fatalf("passing instances on ports %v, want %v", p, st.passing)
			}
			all, _, err := client.Catalog().Service(svc.Name, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != st.listed {
				t.Fatalf("catalog lists %d instances, want %d", len(all), st.listed)
			}
			waitUpstream(t, ctx, env["HCA_LAB_NGINX_UPSTREAMS"], svc.Name, st.upstream)
		})
	}
}

func waitUpstream(t *testing.T, ctx context.Context, path, name string, ports []int) {
	t.Helper()
	var last string
	for {
		raw, _ := os.ReadFile(path)
		last = string(raw)
		if upstreamPortsMatch(last, name, ports) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("upstream %s never had ports %v; file:\n%s", name, ports, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func upstreamPortsMatch(conf, name string, ports []int) bool {
	i := strings.Index(conf, "upstream "+name+" {")
	if ports == nil {
		return i < 0
	}
	if i < 0 {
		return false
	}
	block := conf[i:]
	block = block[:strings.Index(block, "}")]
	if strings.Count(block, "server ") != len(ports) {
		return false
	}
	for _, p := range ports {
		if !strings.Contains(block, fmt.Sprintf("server 127.0.0.1:%d weight=2;", p)) {
			return false
		}
	}
	return true
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[int]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, v := range seen {
		if v != 0 {
			return false
		}
	}
	return true
}
