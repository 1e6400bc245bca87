# The runtime is imported by its namespace. force_destroy, remove_crds and
# timeouts are not held by the cluster: when the configuration sets them, the
# first plan after import shows them as an in-place update, which installs the
# same objects.
terraform import hca_runtime.this hca-system
