// Package catalog publishes a workload's replicas in member clusters to Consul's
// catalog, one external node per member cluster, so that nginx (rendered by
// consul-template) balances across clouds. The published state is read back from
// Consul on every sync, so a restarted runtime neither duplicates nor orphans
// registrations.
package catalog
