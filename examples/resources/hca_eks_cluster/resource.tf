# An EKS burst cluster with one managed node group. The IAM roles, subnets and
# security group usually come from other resources of the same configuration.
resource "hca_eks_cluster" "burst" {
  name     = "hca-burst-us-east-1"
  version  = "1.34"
  role_arn = "arn:aws:iam::123456789012:role/eks-cluster"

  # At least two subnets, in two Availability Zones.
  subnet_ids              = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]
  security_group_ids      = ["sg-0a1b2c3d4e5f60001"]
  endpoint_public_access  = true
  endpoint_private_access = true

  tags = {
    team = "platform"
    hca  = "burst"
  }

  node_group = {
    name           = "workers"
    node_role_arn  = "arn:aws:iam::123456789012:role/eks-node"
    instance_types = ["m5.large"]
    # min_size, max_size and desired_size change in place; the rest replaces
    # the cluster.
    min_size     = 0
    max_size     = 10
    desired_size = 2
  }

  timeouts = {
    create = "40m"
    delete = "20m"
  }
}

output "burst_endpoint" {
  value = hca_eks_cluster.burst.endpoint
}

output "burst_ca_pem" {
  value = base64decode(hca_eks_cluster.burst.certificate_authority)
}
