# A control cluster that runs on EKS: the provider authenticates with a token
# minted at each run, which is never stored in the plan or the state.
variable "control_cluster_name" {
  type    = string
  default = "hca-control"
}

variable "control_cluster_endpoint" {
  type = string
}

# Base64-encoded PEM, as EKS reports it (certificateAuthority.data).
variable "control_cluster_ca" {
  type = string
}

# A provider cannot use its own ephemeral resources in its configuration: a
# second, aliased hca provider (only AWS credentials, no control cluster) mints
# the token.
provider "hca" {
  alias = "aws"
}

ephemeral "hca_eks_token" "control" {
  provider     = hca.aws
  cluster_name = var.control_cluster_name
  region       = "us-east-1"
}

provider "hca" {
  host                   = var.control_cluster_endpoint
  cluster_ca_certificate = base64decode(var.control_cluster_ca)
  token                  = ephemeral.hca_eks_token.control.token
}

data "hca_control_cluster" "this" {}

output "control_cluster_version" {
  value = data.hca_control_cluster.this.kubernetes_version
}
