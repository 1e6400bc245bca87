# A HybridCluster is imported by its name. The connection arguments
# (kubeconfig, host, token, certificates) are secrets that cannot be read back:
# set them in the configuration; the next apply rewrites the credentials Secret
# only if its content differs.
terraform import hca_cluster.eks eks-eu-west-1
