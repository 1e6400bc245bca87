// Package member builds Kubernetes clients for the member clusters of the hybrid
// cloud from their credentials: a kubeconfig held in a Secret, or, for EKS, only
// the cluster name and region, in which case the runtime looks up the endpoint and
// CA with the EKS API and mints short-lived tokens itself (nothing long-lived is
// stored).
package member
