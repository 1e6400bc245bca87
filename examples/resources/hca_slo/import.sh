# A ServiceLevelObjective is imported by <namespace>/<name>. Durations are read
# back in their shortest spelling ("1m", "1h30m"; "90s" reads as "1m30s"),
# decimals as plain decimals ("99.9"), CPU and memory quantities as the API
# server prints them ("100m", "64Mi"); nested arguments the API defaulted stay
# unset.
terraform import hca_slo.web_latency shop/web-latency
