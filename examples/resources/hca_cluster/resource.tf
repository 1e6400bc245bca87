variable "private_kubeconfig_path" {
  type    = string
  default = "~/.kube/private.yaml"
}

# The private cluster, reached with a kubeconfig file's content.
resource "hca_cluster" "private" {
  name          = "private"
  role          = "primary"
  provider_type = "private"
  kubeconfig    = file(pathexpand(var.private_kubeconfig_path))
  priority      = 100
  max_pods      = 500
}

# An Alibaba Cloud ACK cluster, reached with its API server URL, CA and a
# service account token (for example outputs of the resource that created it).
variable "ack_host" { type = string }
variable "ack_ca" { type = string }
variable "ack_token" {
  type      = string
  sensitive = true
}

resource "hca_cluster" "ack" {
  name                   = "ack-hangzhou"
  role                   = "burst"
  provider_type          = "ack"
  host                   = var.ack_host
  cluster_ca_certificate = var.ack_ca
  token                  = var.ack_token
  priority               = 10
  price_per_vcpu_hour    = "0.0390"
  price_per_gib_hour     = "0.0049"
  max_cpu                = "64"
}

# An Amazon EKS cluster: no stored credentials, the runtime mints short-lived
# tokens with its own AWS identity (assuming role_arn first).
resource "hca_cluster" "eks" {
  name                = "eks-eu-west-1"
  role                = "burst"
  provider_type       = "eks"
  eks_cluster_name    = "burst-1"
  region              = "eu-west-1"
  role_arn            = "arn:aws:iam::123456789012:role/hca-runtime"
  priority            = 5
  price_per_vcpu_hour = "0.0464"
  price_per_gib_hour  = "0.0058"

  # Node groups the runtime grows for bursts and releases afterwards. eks
  # usually references hca_eks_cluster.<label>.node_groups[i].eks; the
  # group's desired_size is left unset there.
  node_groups = [
    {
      name           = "burst"
      eks            = { cluster_name = "burst-1", region = "eu-west-1", nodegroup_name = "burst" }
      instance_type  = "m5.xlarge"
      allocatable    = { cpu = "3920m", memory = "15Gi", pods = 58 }
      price_per_hour = "0.214"
      max_nodes      = 10
    },
    {
      name           = "burst-spot"
      eks            = { cluster_name = "burst-1", region = "eu-west-1", nodegroup_name = "burst-spot" }
      instance_type  = "m5.xlarge"
      capacity_type  = "Spot" # used only by burst policies with capacity.allow_spot
      allocatable    = { cpu = "3920m", memory = "15Gi", pods = 58 }
      price_per_hour = "0.08"
      max_nodes      = 20
      labels         = { "hca.dev/burst" = "true" }
      taints         = [{ key = "hca.dev/spot", value = "true", effect = "NoSchedule" }]
    },
  ]
}

output "eks_reachable" {
  value = hca_cluster.eks.reachable
}
