# An EKS burst cluster with a fixed system node group and two burst node
# groups (on-demand and spot) at 0 nodes whose sizes the HCA runtime sets.
# The IAM roles, subnets and security group usually come from other resources
# of the same configuration.
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

  # Several managed node groups. Without desired_size a group starts at
  # min_size and its size is then the HCA runtime's (list it in
  # hca_cluster.node_groups): Terraform never changes it and shows no drift.
  # Sizes, labels and taints change in place; a new role, instance types or
  # capacity type recreate that group (the cluster is kept).
  node_groups = [
    {
      name           = "system"
      node_role_arn  = "arn:aws:iam::123456789012:role/eks-node"
      instance_types = ["m5.large"]
      min_size       = 1
      max_size       = 3
      desired_size   = 2
    },
    {
      name           = "burst"
      node_role_arn  = "arn:aws:iam::123456789012:role/eks-node"
      instance_types = ["m5.xlarge"]
      min_size       = 0
      max_size       = 10
      labels         = { "hca.dev/burst" = "true" }
    },
    {
      name           = "burst-spot"
      node_role_arn  = "arn:aws:iam::123456789012:role/eks-node"
      instance_types = ["m5.xlarge", "m5a.xlarge"]
      capacity_type  = "SPOT"
      min_size       = 0
      max_size       = 20
      labels         = { "hca.dev/burst" = "true" }
      taints         = [{ key = "hca.dev/spot", value = "true", effect = "NO_SCHEDULE" }]
    },
  ]

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

# node_groups[i].eks is what hca_cluster.node_groups[i].eks takes.
output "burst_node_group" {
  value = hca_eks_cluster.burst.node_groups[1].eks
}
