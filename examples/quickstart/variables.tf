variable "control_kubeconfig_path" {
  description = "Path of a kubeconfig for the private (control) cluster: the runtime is installed there, and the private cluster is registered with this kubeconfig's content."
  type        = string
}

variable "prometheus_url" {
  description = "Prometheus the runtime queries, an absolute http(s) URL."
  type        = string
}

variable "consul_address" {
  description = "Consul agent (host:port) the runtime publishes burst endpoints to."
  type        = string
}

variable "aws_region" {
  description = "AWS region of the EKS burst cluster."
  type        = string
  default     = "us-east-1"
}

variable "alicloud_region" {
  description = "Alibaba Cloud region of the ACK burst cluster."
  type        = string
  default     = "cn-hangzhou"
}

variable "eks_endpoint" {
  description = "EKS API endpoint override (the lab's emulator); null for AWS itself."
  type        = string
  default     = null
}

variable "sts_endpoint" {
  description = "STS endpoint override (the lab's emulator); null for AWS itself."
  type        = string
  default     = null
}

variable "ack_endpoint" {
  description = "ACK (CS) API endpoint override (the lab's emulator); null for Alibaba Cloud itself."
  type        = string
  default     = null
}

variable "runtime_alicloud_access_key_id" {
  description = "AccessKey ID the runtime uses to grow and release the ACK node pool (kept in a Kubernetes Secret); null: the runtime does not scale ACK node pools (NoCloudAccess)."
  type        = string
  default     = null
  sensitive   = true
}

variable "runtime_alicloud_access_key_secret" {
  description = "AccessKey secret matching runtime_alicloud_access_key_id."
  type        = string
  default     = null
  sensitive   = true
}

variable "runtime_image" {
  description = "Container image of hca-runtime; null: the image released with the provider (ghcr.io/hca-project/hca-runtime:v<provider version>). Set it for a mirror or an air-gapped registry."
  type        = string
  default     = null
}

variable "app_namespace" {
  description = "Namespace of the sample app's Deployment (it must exist with the Deployment)."
  type        = string
  default     = "shop"
}

variable "app_name" {
  description = "Name of the sample app's Deployment, whose pods carry the label app=<name>."
  type        = string
  default     = "web"
}

variable "requests_per_pod" {
  description = "Requests per second one replica should serve: the burst policy's target."
  type        = number
  default     = 15
  validation {
    condition     = var.requests_per_pod > 0
    error_message = "requests_per_pod must be greater than 0, such as 15."
  }
}

variable "rate_window" {
  description = "Window of the request rate the burst policy scales on (PromQL rate(...[window])): at least 4 x Prometheus' scrape interval, so that it always holds a few samples. A shorter window sees a surge sooner; 1m suits the usual 15 s scrape. make demo sets 15s (the lab scrapes every second)."
  type        = string
  default     = "1m"
  validation {
    condition     = can(regex("^[1-9][0-9]*(s|m)$", var.rate_window))
    error_message = "rate_window must be a whole number of seconds or minutes, such as 5s or 1m."
  }
}

variable "slo_drives_replicas" {
  description = "Whether to create the SLO hca_slo.web_latency (p90 under 250 ms), whose Burst strategy then decides the policy's replica total instead of the policy's own algorithm (adaptive, the default). false: the policy's algorithm scales on requests per replica."
  type        = bool
  default     = false
}
