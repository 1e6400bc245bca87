# Scale the shop's web Deployment in the private cluster with the adaptive
# algorithm (20 % spare replicas, at least 10 replicas on weekday mornings)
# and burst the replicas it cannot schedule there into EKS first, then ACK.
resource "hca_burst_policy" "web" {
  name            = "web"
  namespace       = "shop"
  target          = { deployment_name = "web" }
  primary_cluster = "private"
  burst_targets = [
    { cluster = "eks-eu-west-1", max_replicas = 40 },
    { cluster = "ack-hangzhou" },
  ]
  placement    = "priority"
  min_replicas = 2
  max_replicas = 60

  metrics = [
    { type = "Resource", resource = { name = "cpu", target_average_utilization = 70 } },
    {
      type   = "PromQL"
      promql = { query = "sum(rate(http_requests_total{app=\"web\"}[1m]))", target_value = "100" }
    },
  ]

  algorithm = {
    name = "adaptive"
    adaptive = {
      # Pod start-up plus node boot in the burst clusters: the forecast
      # looks this far ahead, and schedules start this early.
      forecast_horizon = "2m"
      headroom_percent = 20
    }
  }

  # The Monday-to-Friday morning rush in Berlin: at least 10 replicas from
  # 07:45 (2 minutes earlier, the forecast horizon) for 3 hours, whatever
  # the daylight-saving offset.
  schedules = [
    {
      name         = "morning-rush"
      start        = "45 7 * * MON-FRI"
      duration     = "3h"
      time_zone    = "Europe/Berlin"
      min_replicas = 10
    },
  ]

  # Copied into each burst cluster with the Deployment.
  propagate = {
    config_maps = { names = ["web-config"] }
    secrets     = { match_labels = { "app.kubernetes.io/name" = "web" } }
  }

  consul = {
    service_name = "web"
    port         = 8080
  }

  pending_threshold = "5s"

  # A burst cluster that has not answered for 2 minutes: its replicas are
  # placed again (the primary first, then the other target) and its Consul
  # instances marked critical; its stale copies go when it answers again.
  failover_after = "2m"

  # Burst nodes (hca_cluster.node_groups): spot groups may be bought, and
  # first; a node empty for 5 minutes is released.
  capacity = {
    allow_spot       = true
    scale_down_delay = "5m"
  }
}

output "web_phase" {
  value = hca_burst_policy.web.phase
}
