package telemetry

import (
	consul "github.com/hashicorp/consul/api"

	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
)

// CountingCatalog wraps the Consul catalog API the publisher writes through
// and counts its calls and failures by operation (register, deregister,
// node) in hca_consul_requests_total and hca_consul_errors_total: failed
// syncs of burst replicas to Consul. Nil m returns c itself.
func (m *Metrics) CountingCatalog(c catalog.Catalog) catalog.Catalog {
	if m == nil || c == nil {
		return c
	}
	return countingCatalog{c: c, m: m}
}

type countingCatalog struct {
	c catalog.Catalog
	m *Metrics
}

func (cc countingCatalog) count(op string, err error) {
	cc.m.ConsulRequests.WithLabelValues(op).Inc()
	errs := cc.m.ConsulErrors.WithLabelValues(op) // exported at 0 until the first failure, so rates and ratios have a series
	if err != nil {
		errs.Inc()
	}
}

func (cc countingCatalog) Register(reg *consul.CatalogRegistration, q *consul.WriteOptions) (*consul.WriteMeta, error) {
	w, err := cc.c.Register(reg, q)
	cc.count("register", err)
	return w, err
}

func (cc countingCatalog) Deregister(dereg *consul.CatalogDeregistration, q *consul.WriteOptions) (*consul.WriteMeta, error) {
	w, err := cc.c.Deregister(dereg, q)
	cc.count("deregister", err)
	return w, err
}

func (cc countingCatalog) Node(node string, q *consul.QueryOptions) (*consul.CatalogNode, *consul.QueryMeta, error) {
	n, meta, err := cc.c.Node(node, q)
	cc.count("node", err)
	return n, meta, err
}
