variable "private_kubeconfig" {
  description = "Content (not path) of the kubeconfig the runtime uses to reach the private cluster, for example file(\"~/.kube/staging-private.yaml\") in a .tfvars file or TF_VAR_private_kubeconfig. A secret."
  type        = string
  sensitive   = true
}

variable "runtime_image" {
  description = "Container image of hca-runtime; null: the image released with the provider (ghcr.io/hca-project/hca-runtime:v<provider version>). Set it for a mirror or an air-gapped registry."
  type        = string
  default     = null
}

variable "aws_region" {
  description = "AWS region the EKS burst cluster is created in. Null: AWS_REGION (or the profile's region)."
  type        = string
  default     = "us-east-1"
}

variable "eks_cluster_role_arn" {
  description = "IAM role EKS uses to manage the burst cluster, such as \"arn:aws:iam::123456789012:role/eks-cluster\"."
  type        = string
}

variable "eks_node_role_arn" {
  description = "IAM role of the burst cluster's nodes, such as \"arn:aws:iam::123456789012:role/eks-node\"."
  type        = string
}

variable "eks_subnet_ids" {
  description = "Subnets (\"subnet-...\") of the EKS burst cluster, at least two in two Availability Zones."
  type        = set(string)
}

variable "endpoints" {
  description = "Custom service endpoints (eks, sts, ack), such as VPC endpoints or the lab's emulators. Unset: the public endpoints (eks and sts also follow AWS_ENDPOINT_URL_EKS and AWS_ENDPOINT_URL_STS)."
  type = object({
    eks = optional(string)
    sts = optional(string)
    ack = optional(string)
  })
  default = {}
}
