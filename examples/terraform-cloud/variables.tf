# Terraform variables of the workspace. The three private_cluster_* values are
# secrets: mark them sensitive in the workspace.

variable "private_cluster_host" {
  description = "URL of the private cluster's API server as the runtime reaches it, such as \"https://kubernetes.default.svc\" (the runtime runs inside that cluster)."
  type        = string
}

variable "private_cluster_ca_certificate" {
  description = "PEM-encoded CA certificate of the private cluster's API server (the PEM text)."
  type        = string
}

variable "private_cluster_token" {
  description = "Bearer token the runtime uses for the private cluster, such as a service account token. A secret."
  type        = string
  sensitive   = true
}

variable "runtime_image" {
  description = "Container image of hca-runtime; null: the image released with the provider (ghcr.io/hca-project/hca-runtime:v<provider version>). Set it for a mirror or an air-gapped registry."
  type        = string
  default     = null
}

variable "prometheus_url" {
  description = "Prometheus the runtime reads metrics from; null turns PromQL metrics off."
  type        = string
  default     = null
}

variable "consul_address" {
  description = "Consul agent (host:port) the runtime registers burst endpoints with; null turns Consul off."
  type        = string
  default     = null
}

variable "eks_cluster_role_arn" {
  description = "IAM role EKS uses to manage the burst cluster."
  type        = string
}

variable "eks_node_role_arn" {
  description = "IAM role of the EKS burst cluster's nodes."
  type        = string
}

variable "eks_runtime_role_arn" {
  description = "IAM role the runtime assumes to mint EKS tokens; null: the runtime's own identity."
  type        = string
  default     = null
}

variable "eks_subnet_ids" {
  description = "Subnets of the EKS burst cluster, at least two in two Availability Zones."
  type        = set(string)
}

variable "ack_vswitch_ids" {
  description = "vSwitches of the ACK burst cluster, 1 to 5."
  type        = list(string)
}

variable "aws_region" {
  description = "AWS region of the EKS burst cluster; null: the AWS_REGION environment variable."
  type        = string
  default     = "us-east-1"
}

variable "alicloud_region" {
  description = "Alibaba Cloud region of the ACK burst cluster; null: the ALICLOUD_REGION environment variable."
  type        = string
  default     = "cn-hangzhou"
}
