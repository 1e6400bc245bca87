# An ACK managed (Pro) cluster with two workers. The region defaults to the
# provider's alicloud.region.
resource "hca_ack_cluster" "burst" {
  name                  = "hca-burst-hangzhou"
  region                = "cn-hangzhou"
  cluster_spec          = "ack.pro.small"
  vswitch_ids           = ["vsw-bp1a2b3c4d5e6f7g8h9i0", "vsw-bp1a2b3c4d5e6f7g8h9i1"]
  worker_instance_types = ["ecs.g6.large", "ecs.c6.xlarge"]
  worker_count          = 2

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
