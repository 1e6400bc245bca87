# Terraform variables of the workspace. The three private_cluster_* values are
# secrets: mark them sensitive in the workspace. No variable holds a cloud key.

variable "tfc_kubernetes_dynamic_credentials" {
  description = "Set by HCP Terraform when the workspace sets TFC_KUBERNETES_PROVIDER_AUTH = true (and TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE): the path of each run phase's token file for the control cluster."
  type = object({
    default = object({
      token_path = string
    })
    aliases = map(object({
      token_path = string
    }))
  })
}

variable "control_cluster_host" {
  description = "URL of the control (private) cluster's API server as HCP Terraform reaches it, such as \"https://203.0.113.10:6443\"."
  type        = string
}

variable "control_cluster_ca_certificate" {
  description = "PEM of the CA that signed the control cluster's serving certificate (the text, not a path)."
  type        = string
}

variable "aws_run_role_arn" {
  description = "IAM role the runs assume with their workload identity token; its trust policy allows the HCP Terraform OIDC provider, the workspace's audience and its sub (organization:<org>:project:<project>:workspace:<workspace>:run_phase:*)."
  type        = string
}

variable "alicloud_run_role_arn" {
  description = "RAM role the runs assume with their workload identity token, such as \"acs:ram::1234567890123456:role/hca-terraform\"; its trust policy allows the RAM OIDC provider below (and a condition on oidc:sub)."
  type        = string
}

variable "alicloud_oidc_provider_arn" {
  description = "RAM OIDC identity provider of HCP Terraform (issuer https://app.terraform.io, client ID the workspace's TFC_WORKLOAD_IDENTITY_AUDIENCE), such as \"acs:ram::1234567890123456:oidc-provider/hcp-terraform\"."
  type        = string
}

variable "endpoints" {
  description = "Custom service endpoints (eks, sts, ack, alicloud_sts): VPC endpoints, or the lab's emulators in the provider's tests. Unset: the public endpoints."
  type = object({
    eks          = optional(string)
    sts          = optional(string)
    ack          = optional(string)
    alicloud_sts = optional(string)
  })
  default = {}
}

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
