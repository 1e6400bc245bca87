# What the runtime last observed of a registered burst cluster: whether it is
# reachable, how much capacity is free there and its node groups' nodes.
variable "cluster_name" {
  type    = string
  default = "eks-eu-west-1"
}

data "hca_cluster" "burst" {
  name = var.cluster_name
}

output "burst_free_cpu" {
  value = lookup(data.hca_cluster.burst.free, "cpu", "0")
}

# The runtime's node counts per node group: the cloud's desired size, Ready
# and requested (booting) nodes, and why a group cannot grow (empty if it can).
output "burst_nodes" {
  value = {
    for g in data.hca_cluster.burst.node_groups : g.name => {
      desired   = g.desired_nodes
      ready     = g.ready_nodes
      requested = g.requested_nodes
      reason    = g.reason
    }
  }
}

output "burst_conditions" {
  value = { for c in data.hca_cluster.burst.conditions : c.type => c.status }
}

# Warns at each plan while the runtime cannot reach the cluster.
check "burst_cluster_reachable" {
  assert {
    condition     = data.hca_cluster.burst.reachable
    error_message = "The runtime cannot reach ${var.cluster_name} (last probe: ${coalesce(data.hca_cluster.burst.last_probe_time, "never")}): bursts skip it."
  }
}
