# A HybridCluster is imported by its name. The connection arguments
# (kubeconfig, host, token, certificates) are secrets that are not read back
# into the state: set them in the configuration. The first plan after import
# shows them as an in-place update; its apply rewrites the credentials Secret
# only if its content differs.
terraform import hca_cluster.eks eks-eu-west-1
