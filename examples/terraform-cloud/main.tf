# The production hybrid cloud run by Terraform Cloud (or Terraform
# Enterprise): the state lives in the workspace, and every credential is an
# environment variable of the workspace (see README.md). Nothing here reads a
# local file or runs a CLI, so the run needs no agent of its own.
terraform {
  required_version = ">= 1.9.0"

  cloud {
    # Or leave these out and set TF_CLOUD_ORGANIZATION and TF_WORKSPACE.
    organization = "example-org"

    workspaces {
      name = "hca-production"
    }
  }

  required_providers {
    hca = {
      source = "hca-project/hca"
    }
  }
}

# Dynamic credentials only: the provider itself gets no stored key, password
# or long-lived token (the one stored secret, private_cluster_token, is not the
# provider's: it is what the runtime, a long-running controller with no
# workload identity of its own there, uses to reach the private cluster; it
# goes into a Kubernetes Secret). Each run's workload identity tokens (OIDC, signed by HCP
# Terraform, valid for the run phase) are exchanged for short-lived credentials:
# - the control cluster: the Kubernetes dynamic credentials' token file
#   (TFC_KUBERNETES_PROVIDER_AUTH, TFC_KUBERNETES_WORKLOAD_IDENTITY_AUDIENCE),
#   a JWT its API server accepts through its structured authentication
#   configuration as the user "tfc:<sub>", which RBAC binds (see README.md);
# - AWS: STS AssumeRoleWithWebIdentity with TFC_WORKLOAD_IDENTITY_TOKEN;
# - Alibaba Cloud: STS AssumeRoleWithOIDC with the same token (the RAM OIDC
#   provider lists the workspace's TFC_WORKLOAD_IDENTITY_AUDIENCE as a client ID,
#   as the IAM OIDC provider does).
provider "hca" {
  host                   = var.control_cluster_host
  cluster_ca_certificate = var.control_cluster_ca_certificate
  token                  = trimspace(file(var.tfc_kubernetes_dynamic_credentials.default.token_path))

  aws {
    region = var.aws_region

    assume_role_with_web_identity {
      role_arn = var.aws_run_role_arn
      # The token: TFC_WORKLOAD_IDENTITY_TOKEN.
    }
  }

  alicloud {
    region = var.alicloud_region

    assume_role_with_oidc {
      role_arn          = var.alicloud_run_role_arn
      oidc_provider_arn = var.alicloud_oidc_provider_arn
      # The token: TFC_WORKLOAD_IDENTITY_TOKEN.
    }
  }

  # Null in a real workspace (the public endpoints); set for VPC endpoints
  # or, in the provider's tests, the lab's emulators.
  endpoints {
    eks          = var.endpoints.eks
    sts          = var.endpoints.sts
    ack          = var.endpoints.ack
    alicloud_sts = var.endpoints.alicloud_sts
  }
}

module "hybrid_burst" {
  # In a VCS-driven workspace whose working directory is examples/terraform-cloud,
  # the whole repository is uploaded and this relative path resolves.
  source = "../modules/hybrid-burst"

  runtime = {
    image          = var.runtime_image
    replicas       = 2
    prometheus_url = var.prometheus_url
    consul_address = var.consul_address
  }

  # The runtime runs inside the private cluster; these are the credentials it
  # uses to reach that cluster's API server (Terraform variables, sensitive).
  private_cluster_credentials = {
    host                   = var.private_cluster_host
    cluster_ca_certificate = var.private_cluster_ca_certificate
    token                  = var.private_cluster_token
  }

  burst_targets = {
    "eks-burst" = {
      provider_type       = "eks"
      priority            = 20
      price_per_vcpu_hour = "0.0480"
      price_per_gib_hour  = "0.0060"
      eks = {
        role_arn         = var.eks_cluster_role_arn
        subnet_ids       = var.eks_subnet_ids
        runtime_role_arn = var.eks_runtime_role_arn
        node_groups = [{
          node_role_arn  = var.eks_node_role_arn
          instance_types = ["m5.xlarge"]
          min_size       = 1
          max_size       = 20
          allocatable    = { cpu = "3920m", memory = "15Gi", pods = 58 }
          price_per_hour = "0.192"
        }]
      }
    }
    "ack-burst" = {
      provider_type       = "ack"
      priority            = 10
      price_per_vcpu_hour = "0.0390"
      price_per_gib_hour  = "0.0049"
      ack = {
        vswitch_ids           = var.ack_vswitch_ids
        worker_instance_types = ["ecs.g6.xlarge"]
        worker_count          = 3
      }
    }
  }

  workloads = {
    web = {
      namespace    = "shop"
      min_replicas = 2
      max_replicas = 100
      placement    = "cheapest"
    }
  }
}

output "burst_clusters" {
  value = module.hybrid_burst.burst_clusters
}
