# Staging: one small EKS burst cluster, one workload, a single debug-logging
# runtime. Production (../production) uses the same module with larger sizes,
# an ACK cluster as well and more workloads.
terraform {
  required_version = ">= 1.9.0"

  required_providers {
    hca = {
      source = "hca-project/hca"
    }
  }
}

# Credentials come from the environment, never from this configuration:
# - control cluster: KUBE_CONFIG_PATH (and KUBE_CTX), or KUBE_HOST,
#   KUBE_CLUSTER_CA_CERT_DATA and KUBE_TOKEN;
# - AWS: the SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a
#   web identity, AWS_PROFILE, instance metadata).
provider "hca" {
  aws {
    region = var.aws_region
  }

  endpoints {
    eks = var.endpoints.eks
    sts = var.endpoints.sts
    ack = var.endpoints.ack
  }
}

module "hybrid_burst" {
  source = "../../modules/hybrid-burst"

  runtime = {
    image     = var.runtime_image
    replicas  = 1
    log_level = "debug"
  }

  private_cluster = {
    name     = "private"
    priority = 100
    max_pods = 200
  }
  private_cluster_credentials = {
    kubeconfig = var.private_kubeconfig
  }

  burst_targets = {
    "staging-eks" = {
      provider_type       = "eks"
      priority            = 10
      price_per_vcpu_hour = "0.0416"
      price_per_gib_hour  = "0.0052"
      max_cpu             = "8"
      eks = {
        version    = "1.34"
        role_arn   = var.eks_cluster_role_arn
        subnet_ids = var.eks_subnet_ids
        tags       = { environment = "staging" }
        # At 0 nodes outside bursts: the runtime grows the group (no
        # desired_size) and releases its nodes after the scale-down delay.
        node_groups = [{
          node_role_arn  = var.eks_node_role_arn
          instance_types = ["t3.large"]
          max_size       = 3
          allocatable    = { cpu = "1930m", memory = "7Gi", pods = 35 }
          price_per_hour = "0.0832"
        }]
      }
    }
  }

  workloads = {
    web = {
      namespace    = "shop"
      min_replicas = 1
      max_replicas = 10
      metrics = [
        { type = "Resource", resource = { name = "cpu", target_average_utilization = 70 } },
      ]
    }
  }
}

output "burst_clusters" {
  value = module.hybrid_burst.burst_clusters
}

output "burst_policies" {
  value = module.hybrid_burst.burst_policies
}
