# Keep the shop's web p99 latency under 250 ms by driving the replica count of
# its BurstPolicy (the hca_burst_policy named "web"): what the private cluster
# cannot run bursts into the cloud clusters.
resource "hca_slo" "web_latency" {
  name      = "web-latency"
  namespace = "shop"
  target    = { name = "web" }

  slo = {
    type = "latency"
    latency = {
      percentile       = "99"
      threshold        = "250ms"
      histogram_metric = "http_request_duration_seconds"
    }
  }

  tolerance           = "0.1"
  evaluation_interval = "15s"
  stabilization       = { scale_up = "0s", scale_down = "5m" }

  elasticity_strategy = {
    kind  = "Burst"
    burst = { burst_policy_name = "web" }
    # Kept so that going back to in-cluster scaling is an edit of kind alone.
    horizontal = { min_replicas = 2, max_replicas = 20 }
  }
}

# Serve 99.9 % of the checkout API's requests without a server error, scaling
# its replicas within 3 to 30.
resource "hca_slo" "checkout_availability" {
  name      = "checkout-availability"
  namespace = "shop"
  target    = { name = "checkout" }

  slo = {
    type = "availability"
    availability = {
      target_percent  = "99.9"
      requests_metric = "http_requests_total"
      error_codes     = "5.."
    }
  }

  elasticity_strategy = {
    kind       = "Horizontal"
    horizontal = { min_replicas = 3, max_replicas = 30 }
  }
}

# Polaris' cost efficiency for the reports StatefulSet: at least 50 requests per
# second faster than 100 ms per unit of cost per hour, by resizing its pods.
resource "hca_slo" "reports_cost" {
  name      = "reports-cost"
  namespace = "analytics"
  target    = { kind = "StatefulSet", name = "reports" }

  slo = {
    type = "cost-efficiency"
    cost_efficiency = {
      response_time_threshold = "100ms"
      target_cost_efficiency  = "50"
      min_requests_percentile = 90
    }
  }

  evaluation_interval = "1m"

  elasticity_strategy = {
    kind = "Vertical"
    vertical = {
      container  = "reports"
      min_cpu    = "250m"
      max_cpu    = "4"
      min_memory = "256Mi"
      max_memory = "8Gi"
      cpu_step   = "250m"
    }
  }
}

# Keep the catalog's median response time under 120 ms with MOHA: replicas and
# the container's CPU and memory limits change together, chosen by a
# performance model. The runtime writes a MultiObjectiveElasticityStrategy
# named after the SLO whose desired average response time is the threshold.
# The model is the file of `hca-runtime moha train`, in a ConfigMap of the
# namespace (for example `kubectl -n shop create configmap catalog-model
# --from-file=model.json`, or a kubernetes_config_map resource); while it is
# missing the SLO is not Ready (reason StrategyInvalid) and nothing scales.
resource "hca_slo" "catalog_latency" {
  name      = "catalog-latency"
  namespace = "shop"
  target    = { name = "catalog" }

  slo = {
    type    = "latency"
    latency = { percentile = "50", threshold = "120ms" }
  }

  elasticity_strategy = {
    kind = "MultiObjective"
    multi_objective = {
      model         = { config_map_name = "catalog-model", key = "model.json" }
      ranges        = { min_cpu = "300m", max_cpu = "1", min_memory = "400Mi", max_memory = "1Gi", min_replicas = 1, max_replicas = 10 }
      weight_preset = "Balanced"
      desired       = { cpu_usage_percent = 80, memory_usage_percent = 80 }
      interval      = "30s"
      cooldown      = "2m"
      resize_policy = "InPlaceOrRecreate"
    }
  }
}

output "web_latency_compliance" {
  description = "100 = met exactly, above 100 violated (null until the runtime evaluates it)."
  value       = hca_slo.web_latency.compliance_percent
}
