# A BurstPolicy is imported by <namespace>/<name>. Durations are read back in
# their shortest spelling ("1m", "1h30m", "90s" reads as "1m30s"), and quantities as
# the API server prints them; arguments the API defaulted stay unset.
terraform import hca_burst_policy.web shop/web
