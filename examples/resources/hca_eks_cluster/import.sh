# An EKS cluster is imported by its name: every node group goes into
# node_groups, their sizes left to the runtime (a configured desired_size is
# applied by the next apply). "<cluster>:<node group>" imports the deprecated
# node_group.
terraform import hca_eks_cluster.burst hca-burst-us-east-1
