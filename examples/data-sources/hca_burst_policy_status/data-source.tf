# The live phase and placement of the shop's web BurstPolicy.
variable "namespace" {
  type    = string
  default = "shop"
}

variable "policy_name" {
  type    = string
  default = "web"
}

data "hca_burst_policy_status" "web" {
  namespace = var.namespace
  name      = var.policy_name
}

output "web_phase" {
  value = data.hca_burst_policy_status.web.phase
}

# Ready pods per cluster, such as { "private" = 8, "eks-eu-west-1" = 12 }.
output "web_ready_per_cluster" {
  value = { for r in data.hca_burst_policy_status.web.replicas : r.cluster => r.ready }
}

output "web_burst_replicas" {
  value = data.hca_burst_policy_status.web.burst_replicas
}
