package catalog

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	consul "github.com/hashicorp/consul/api"
)

// Meta keys and values the publisher writes; Sync only touches what carries them.
const (
	// ManagedByMeta marks nodes and services registered by HCA.
	ManagedByMeta = "hca-managed-by"
	managedBy     = "hca-runtime"
	// ClusterMeta names the member cluster of a node or service instance.
	ClusterMeta = "cluster"
	// WeightMeta is the nginx upstream weight of an instance.
	WeightMeta = "weight"
	// OwnerMeta identifies the burst policy ("namespace/name") that owns a service.
	OwnerMeta = "hca-owner"
)

// Endpoint is one replica (pod) of the workload in a member cluster.
type Endpoint struct {
	// ID is unique within the cluster (the pod name).
	ID      string
	Address string
	Port    int
	// Ready is the pod's readiness; it becomes the instance's health check.
	Ready bool
}

// Service is what one owner publishes for one member cluster.
type Service struct {
	// Name is the Consul service name (the nginx upstream name).
	Name string
	// Owner is "namespace/name" of the burst policy.
	Owner string
	// Cluster is the member cluster's name.
	Cluster string
	// Weight is the nginx weight of each instance (>= 1).
	Weight int
	// Tags are extra tags; "cluster=<Cluster>" is always added.
	Tags      []string
	Endpoints []Endpoint
}

// Catalog is the part of Consul's API the publisher uses.
type Catalog interface {
	Register(reg *consul.CatalogRegistration, q *consul.WriteOptions) (*consul.WriteMeta, error)
	Deregister(dereg *consul.CatalogDeregistration, q *consul.WriteOptions) (*consul.WriteMeta, error)
	Node(node string, q *consul.QueryOptions) (*consul.CatalogNode, *consul.QueryMeta, error)
}

// Health is the part of Consul's health API the publisher uses.
type Health interface {
	Node(node string, q *consul.QueryOptions) (consul.HealthChecks, *consul.QueryMeta, error)
}

// Publisher keeps Consul's catalog in line with the replicas of workloads.
type Publisher struct {
	catalog Catalog
	health  Health
}

// New returns a publisher (usually New(client.Catalog(), client.Health())).
func New(c Catalog, h Health) *Publisher { return &Publisher{catalog: c, health: h} }

var serviceNameRE = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)

// NodeName is the external node that stands for a member cluster.
func NodeName(cluster string) string { return "hca-" + cluster }

// Validate reports what is wrong with s, naming the field.
func (s Service) Validate() error {
	if !serviceNameRE.MatchString(s.Name) {
		return fmt.Errorf("consul service name %q is invalid: use letters, digits and '-' (at most 63), as nginx upstream names must", s.Name)
	}
	if s.Cluster == "" {
		return errors.New("cluster is empty: name the member cluster the endpoints run in")
	}
	if s.Owner == "" {
		return errors.New("owner is empty: pass the burst policy as namespace/name")
	}
	if s.Weight < 1 {
		return fmt.Errorf("weight %d must be at least 1", s.Weight)
	}
	for _, e := range s.Endpoints {
		if e.ID == "" || e.Address == "" || e.Port < 1 || e.Port > 65535 {
			return fmt.Errorf("endpoint %q of cluster %s needs an id, an address and a port in 1-65535 (got %q:%d)", e.ID, s.Cluster, e.Address, e.Port)
		}
	}
	return nil
}

// Result counts what a Sync changed.
type Result struct{ Registered, Deregistered int }

// Sync makes the catalog hold exactly s.Endpoints as instances of s.Name on the
// cluster's external node: it registers new or changed instances, deregisters
// instances of the same owner and service that are gone, and removes the node
// when nothing is left on it. Instances are read back from Consul, so calling Sync
// again with the same input changes nothing.
func (p *Publisher) Sync(ctx context.Context, s Service) (Result, error) {
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	var res Result
	node := NodeName(s.Cluster)
	q := (&consul.QueryOptions{}).WithContext(ctx)
	w := (&consul.WriteOptions{}).WithContext(ctx)
	current, _, err := p.catalog.Node(node, q)
	if err != nil {
		return res, fmt.Errorf("read consul node %s: %w", node, err)
	}
	health, err := p.nodeHealth(node, q)
	if err != nil {
		return res, err
	}
	existing := map[string]*consul.AgentService{}
	others := 0
	if current != nil {
		for id, svc := range current.Services {
			if svc.Service == s.Name && svc.Meta[OwnerMeta] == s.Owner {
				existing[id] = svc
			} else {
				others++
			}
		}
	}
	want := map[string]Endpoint{}
	for _, e := range s.Endpoints {
		want[instanceID(s, e)] = e
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	tags := append([]string{"cluster=" + s.Cluster}, s.Tags...)
	for _, id := range ids {
		e := want[id]
		if svc, ok := existing[id]; ok && upToDate(svc, s, e, tags) && health[id] == status(e.Ready) {
			continue
		}
		reg := &consul.CatalogRegistration{
			Node: node, Address: e.Address,
			NodeMeta: map[string]string{"external-node": "true", "external-probe": "false", ManagedByMeta: managedBy, ClusterMeta: s.Cluster},
			Service: &consul.AgentService{ID: id, Service: s.Name, Address: e.Address, Port: e.Port, Tags: tags,
				Meta: map[string]string{ManagedByMeta: managedBy, ClusterMeta: s.Cluster, OwnerMeta: s.Owner, WeightMeta: strconv.Itoa(s.Weight)}},
			Check: &consul.AgentCheck{Node: node, CheckID: "ready:" + id, Name: "pod readiness", Status: status(e.Ready), ServiceID: id,
				Notes: "mirrors the pod's Ready condition, set by hca-runtime"},
			SkipNodeUpdate: current != nil,
		}
		if _, err := p.catalog.Register(reg, w); err != nil {
			return res, fmt.Errorf("register %s in consul: %w", id, err)
		}
		res.Registered++
	}
	for id := range existing {
		if _, ok := want[id]; ok {
			continue
		}
		if _, err := p.catalog.Deregister(&consul.CatalogDeregistration{Node: node, ServiceID: id}, w); err != nil {
			return res, fmt.Errorf("deregister %s from consul: %w", id, err)
		}
		res.Deregistered++
	}
	if len(want) == 0 && others == 0 && current != nil && current.Node != nil && current.Node.Meta[ManagedByMeta] == managedBy {
		if _, err := p.catalog.Deregister(&consul.CatalogDeregistration{Node: node}, w); err != nil {
			return res, fmt.Errorf("deregister node %s from consul: %w", node, err)
		}
	}
	return res, nil
}

// nodeHealth reads the status of each instance's check on node, by service ID.
func (p *Publisher) nodeHealth(node string, q *consul.QueryOptions) (map[string]string, error) {
	checks, _, err := p.health.Node(node, q)
	if err != nil {
		return nil, fmt.Errorf("read consul checks of node %s: %w", node, err)
	}
	health := make(map[string]string, len(checks))
	for _, c := range checks {
		health[c.ServiceID] = c.Status
	}
	return health, nil
}

// MarkUnreachable marks every instance of owner's service name in cluster
// critical (a member cluster nobody can reach: the readiness of its pods is
// unknown, so nothing there should receive traffic), keeping the instances so
// that the next Sync, once the cluster answers, sets their health from pod
// readiness again. Instances already marked are left alone.
func (p *Publisher) MarkUnreachable(ctx context.Context, name, owner, cluster string) (Result, error) {
	var res Result
	node := NodeName(cluster)
	q := (&consul.QueryOptions{}).WithContext(ctx)
	w := (&consul.WriteOptions{}).WithContext(ctx)
	current, _, err := p.catalog.Node(node, q)
	if err != nil {
		return res, fmt.Errorf("read consul node %s: %w", node, err)
	}
	if current == nil {
		return res, nil
	}
	health, err := p.nodeHealth(node, q)
	if err != nil {
		return res, err
	}
	ids := make([]string, 0, len(current.Services))
	for id, svc := range current.Services {
		if svc.Service == name && svc.Meta[OwnerMeta] == owner && health[id] != consul.HealthCritical {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		svc := current.Services[id]
		reg := &consul.CatalogRegistration{
			Node: node, Address: svc.Address, SkipNodeUpdate: true,
			Service: svc,
			Check: &consul.AgentCheck{Node: node, CheckID: "ready:" + id, Name: "pod readiness", Status: consul.HealthCritical, ServiceID: id,
				Notes: "cluster " + cluster + " is unreachable: readiness unknown, set by hca-runtime"},
		}
		if _, err := p.catalog.Register(reg, w); err != nil {
			return res, fmt.Errorf("mark %s critical in consul: %w", id, err)
		}
		res.Registered++
	}
	return res, nil
}

// Remove deregisters every instance of owner's service in cluster (a burst cluster
// that was emptied).
func (p *Publisher) Remove(ctx context.Context, name, owner, cluster string) (Result, error) {
	return p.Sync(ctx, Service{Name: name, Owner: owner, Cluster: cluster, Weight: 1})
}

func instanceID(s Service, e Endpoint) string {
	return s.Name + ":" + s.Cluster + ":" + e.ID
}

func upToDate(svc *consul.AgentService, s Service, e Endpoint, tags []string) bool {
	if svc.Address != e.Address || svc.Port != e.Port || svc.Meta[WeightMeta] != strconv.Itoa(s.Weight) {
		return false
	}
	if len(svc.Tags) != len(tags) {
		return false
	}
	for i := range tags {
		if svc.Tags[i] != tags[i] {
			return false
		}
	}
	return true
}

func status(ready bool) string {
	if ready {
		return consul.HealthPassing
	}
	return consul.HealthCritical
}
