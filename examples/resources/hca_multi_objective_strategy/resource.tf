# Scale the shop's web Deployment with MOHA: replicas and the pods' CPU and
# memory limits together, from a performance model trained with
#
#   hca-runtime moha collect --out dataset.csv
#   hca-runtime moha train --dataset dataset.csv --out model.json
#
# The model goes into a ConfigMap next to the strategy; a new model file
# (another content) updates it in place.
variable "namespace" {
  description = "Namespace of the web Deployment."
  type        = string
  default     = "shop"
}

variable "model_file" {
  description = "Model file written by hca-runtime moha train."
  type        = string
  default     = "model.json"
}

resource "hca_multi_objective_strategy" "web" {
  name      = "web"
  namespace = var.namespace

  target     = { name = "web" }
  model_file = var.model_file

  # Eq. 1 aims at 100 ms, 80 % CPU and 80 % memory (of the limits).
  desired = {
    response_time_ms     = 100
    cpu_usage_percent    = 80
    memory_usage_percent = 80
  }

  ranges = {
    min_cpu      = "300m"
    max_cpu      = "500m"
    min_memory   = "400Mi"
    max_memory   = "600Mi"
    min_replicas = 1
    max_replicas = 10
  }

  # The paper's balanced weights, spelt out: response time 0.5, the five
  # resource criteria 0.1 each (or weight_preset = "Balanced").
  weights = {
    response_time = 0.5
    cpu_usage     = 0.1
    memory_usage  = 0.1
    cpu_limit     = 0.1
    memory_limit  = 0.1
    replicas      = 0.1
  }

  interval = "30s"
  cooldown = "2m"
}

output "web_configuration" {
  value = "${hca_multi_objective_strategy.web.replicas} x ${coalesce(hca_multi_objective_strategy.web.cpu, "-")}/${coalesce(hca_multi_objective_strategy.web.memory, "-")}"
}
