# A FederatedAutoscaler is imported by <namespace>/<name> (the namespace in the
# control cluster, then the object's name). Durations are equal whatever their
# spelling ("90s" and "1m30s"); metrics left to the API's default (CPU at 80 %)
# stay unset. timeouts is not held by the API: when the configuration sets it,
# the first plan after import shows it as an in-place update, which writes the
# same spec.
terraform import hca_federated_autoscaler.web shop/web
