# An ACK cluster is imported by its cluster ID. worker_instance_types cannot be
# read back from ACK: it is taken from the configuration.
terraform import hca_ack_cluster.burst c0123456789abcdef0123456789abcdef
