# Keep the shop's web Deployment between 3 and 60 replicas over the private
# cluster and two burst clusters. The runtime splits the range into one
# autoscaling/v2 HPA per member, so each member keeps scaling on its own
# share while the runtime is down, and moves max replicas from members that
# cannot use them to members that are saturated.
resource "hca_federated_autoscaler" "web" {
  name      = "web"
  namespace = "shop"

  target = {
    kind = "Deployment"
    name = "web"
  }

  members = [
    { cluster = "private" },
    { cluster = "eks-eu-west-1" },
    { cluster = "ack-hangzhou" },
  ]

  min_replicas = 3
  max_replicas = 60

  # Only type Resource: the member HPAs read their own cluster's metrics.
  metrics = [
    { type = "Resource", resource = { name = "cpu", target_average_utilization = 70 } },
    { type = "Resource", resource = { name = "memory", target_average_utilization = 80 } },
  ]

  # A member that just scaled keeps its share this long before rebalancing.
  scale_forbidden_window = "2m"

  # Black Friday sale in New York: at least 30 replicas over the members
  # for the 12 hours from 08:00 local time on 27 November.
  schedules = [
    {
      name         = "black-friday"
      start        = "0 8 27 11 *"
      duration     = "12h"
      time_zone    = "America/New_York"
      min_replicas = 30
    },
  ]

  timeouts = {
    delete = "10m"
  }
}

output "web_replicas_per_cluster" {
  value = {
    for c in hca_federated_autoscaler.web.clusters : c.cluster => c.current_replicas
  }
}

output "web_ready" {
  value = hca_federated_autoscaler.web.ready
}
