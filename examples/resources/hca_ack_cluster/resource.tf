# An ACK managed (Pro) cluster with two workers and two burst node pools. The region defaults to the
# provider's alicloud.region.
resource "hca_ack_cluster" "burst" {
  name                  = "hca-burst-hangzhou"
  region                = "cn-hangzhou"
  cluster_spec          = "ack.pro.small"
  vswitch_ids           = ["vsw-bp1a2b3c4d5e6f7g8h9i0", "vsw-bp1a2b3c4d5e6f7g8h9i1"]
  worker_instance_types = ["ecs.g6.large", "ecs.c6.xlarge"]
  worker_count          = 2

  # Node pools created with the cluster. Without desired_size a pool starts
  # at 0 nodes and its size is then the HCA runtime's (list it in
  # hca_cluster.node_groups); with it, Terraform sets the size in place.
  node_pools = [
    {
      name           = "burst"
      instance_types = ["ecs.g6.xlarge"]
    },
    {
      name           = "burst-spot"
      instance_types = ["ecs.g6.xlarge", "ecs.c6.xlarge"]
      capacity_type  = "SPOT"
    },
  ]

  timeouts = {
    create = "45m"
  }
}

output "burst_api_server" {
  value = hca_ack_cluster.burst.api_server_endpoint
}

output "burst_kubeconfig" {
  value     = hca_ack_cluster.burst.kubeconfig
  sensitive = true
}

# node_pools[i].ack is what hca_cluster.node_groups[i].ack takes.
output "burst_node_pool" {
  value = hca_ack_cluster.burst.node_pools[0].ack
}
