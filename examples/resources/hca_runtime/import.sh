# The runtime is imported by its namespace.
terraform import hca_runtime.this hca-system
