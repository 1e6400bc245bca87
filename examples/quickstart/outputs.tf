output "clusters" {
  description = "Registered clusters and whether the runtime reaches them (known after the runtime's first probe)."
  value = {
    for c in [hca_cluster.private, hca_cluster.eks, hca_cluster.ack] : c.name => {
      role      = c.role
      reachable = c.reachable
    }
  }
}

output "eks_endpoint" {
  description = "API server of the EKS burst cluster."
  value       = hca_eks_cluster.burst.endpoint
}

output "ack_api_server" {
  description = "API server of the ACK burst cluster."
  value       = hca_ack_cluster.burst.api_server_endpoint
}

output "burst_policy" {
  description = "The burst policy's ID and phase at apply time."
  value       = { id = hca_burst_policy.web.id, phase = hca_burst_policy.web.phase }
}

output "slo" {
  description = "The SLO's ID and compliance at apply time (null until the runtime evaluates it)."
  value       = { id = hca_slo.web_latency.id, compliance_percent = hca_slo.web_latency.compliance_percent }
}
