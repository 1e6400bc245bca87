# A ServiceLevelObjective is imported by <namespace>/<name>. Durations are equal
# whatever their spelling ("90s" and "1m30s"), decimals are read as plain
# decimals ("99.9"), CPU and memory quantities as the API server prints them
# ("100m", "64Mi"); nested arguments the API defaulted stay unset.
terraform import hca_slo.web_latency shop/web-latency
