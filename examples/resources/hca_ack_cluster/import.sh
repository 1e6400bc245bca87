# An ACK cluster is imported by its cluster ID. worker_instance_types is not read
# back (the CS operations this provider uses do not return it): the first plan
# after import shows it as an in-place update from null to the configured list,
# which calls no API and replaces nothing.
terraform import hca_ack_cluster.burst c0123456789abcdef0123456789abcdef
