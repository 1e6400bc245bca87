// Package controller holds hca-runtime's reconcilers. Each does get -> decide ->
// patch: it reads the objects it needs, hands the deciding to a pure function of
// internal/scaling or internal/slo, and patches the result (status, Deployments in
// member clusters, Consul). Member clusters are reached through Members.
package controller
