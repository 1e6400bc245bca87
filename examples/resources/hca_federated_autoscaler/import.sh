# A FederatedAutoscaler is imported by <namespace>/<name> (the namespace in the
# control cluster, then the object's name). Durations are read back in their
# shortest spelling ("1m", "90s" reads as "1m30s"); metrics left to the API's
# default (CPU at 80 %) stay unset.
terraform import hca_federated_autoscaler.web shop/web
