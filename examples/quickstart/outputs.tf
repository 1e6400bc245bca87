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
  description = "The SLO's ID and compliance at apply time (null until the runtime evaluates it; null without var.slo_drives_replicas)."
  value       = var.slo_drives_replicas ? { id = hca_slo.web_latency[0].id, compliance_percent = hca_slo.web_latency[0].compliance_percent } : null
}

# The runtime's node counts per burst node group, read at each plan/refresh
# (`terraform refresh && terraform output burst_nodes` to follow a burst).
data "hca_cluster" "burst" {
  for_each = { eks = hca_cluster.eks.name, ack = hca_cluster.ack.name }
  name     = each.value
}

output "burst_nodes" {
  description = "Per burst cluster and node group: the cloud's desired size, Ready and requested (booting) nodes, and why the group cannot grow (empty when it can)."
  value = {
    for k, c in data.hca_cluster.burst : k => {
      for g in c.node_groups : g.name => {
        desired   = g.desired_nodes
        ready     = g.ready_nodes
        requested = g.requested_nodes
        reason    = g.reason
      }
    }
  }
}
