# Install the HCA runtime into the control cluster. Without `image`, the
# runtime is the image released with this provider,
# ghcr.io/hca-project/hca-runtime:v<provider version>; set it to install from a
# mirror or an air-gapped registry, e.g.
#   image = "registry.internal:5000/hca/hca-runtime:v0.1.0"
resource "hca_runtime" "this" {
  namespace      = "hca-system"
  replicas       = 2 # leader election on
  prometheus_url = "http://prometheus.monitoring:9090"
  consul_address = "consul.consul:8500"
  log_level      = "info"

  resources = {
    cpu_request    = "100m"
    memory_request = "128Mi"
    memory_limit   = "256Mi"
  }

  # A ServiceMonitor (with the labels your Prometheus selects) when the
  # Prometheus Operator's CRDs exist, prometheus.io/* scrape annotations
  # otherwise; service_monitor = true requires the Operator, false never uses it.
  monitoring = {
    labels   = { release = "kube-prometheus-stack" }
    interval = "30s"
  }

  # Destroy refuses while hca objects exist unless force_destroy is true; the
  # CRDs stay unless remove_crds is true (deleting them deletes every hca object).
  force_destroy = false
  remove_crds   = false

  timeouts = {
    create = "10m"
    update = "10m"
    delete = "10m"
  }
}
