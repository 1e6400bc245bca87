# An EKS cluster is imported by its name when it has exactly one node group,
# or by "<cluster>:<node group>" otherwise.
terraform import hca_eks_cluster.burst hca-burst-us-east-1
terraform import hca_eks_cluster.burst hca-burst-us-east-1:workers
