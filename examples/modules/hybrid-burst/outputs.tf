output "control_cluster" {
  description = "The control cluster the provider is connected to: its API server URL (host) and Kubernetes version (kubernetes_version)."
  value = {
    host               = data.hca_control_cluster.this.host
    kubernetes_version = data.hca_control_cluster.this.kubernetes_version
  }
}

output "runtime_namespace" {
  description = "Namespace of the HCA runtime, which also holds the clusters' credentials Secrets."
  value       = hca_runtime.this.namespace
}

output "private_cluster" {
  description = "Name of the private cluster's HybridCluster (the primary_cluster of every policy)."
  value       = hca_cluster.private.name
}

output "burst_clusters" {
  description = "Every burst target by key: the HybridCluster (name, provider_type, priority), the cloud cluster (cloud_cluster: the EKS cluster name or the ACK cluster ID) and its API server URL (endpoint)."
  value = {
    for k, c in hca_cluster.burst : k => {
      name          = c.name
      provider_type = c.provider_type
      priority      = c.priority
      cloud_cluster = c.provider_type == "eks" ? hca_eks_cluster.this[k].name : hca_ack_cluster.this[k].cluster_id
      endpoint      = c.provider_type == "eks" ? hca_eks_cluster.this[k].endpoint : hca_ack_cluster.this[k].api_server_endpoint
    }
  }
}

output "burst_order" {
  description = "Keys of the burst targets in their default order of preference (highest priority first, then by name)."
  value       = local.targets_by_priority
}

output "burst_policies" {
  description = "Every BurstPolicy by workload key: its ID (<namespace>/<name>), and the phase and replicas per cluster the runtime last reported (refreshed by terraform refresh or the next plan)."
  value = {
    for k, p in hca_burst_policy.this : k => {
      id       = p.id
      phase    = p.phase
      replicas = p.replicas
    }
  }
}
