# Production: an EKS and an ACK burst cluster sized for peaks, two workloads
# with their own algorithms, two runtime replicas (leader election), Prometheus
# metrics and Consul registration for the load balancers.
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
#   web identity, AWS_PROFILE, instance metadata);
# - Alibaba Cloud: ALICLOUD_ACCESS_KEY and ALICLOUD_SECRET_KEY.
provider "hca" {
  aws {
    region = var.aws_region
  }

  alicloud {
    region = var.alicloud_region
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
    image          = var.runtime_image
    replicas       = 2
    prometheus_url = var.prometheus_url
    consul_address = var.consul_address
    log_level      = "info"
    resources = {
      cpu_request    = "200m"
      memory_request = "256Mi"
      memory_limit   = "512Mi"
    }
  }

  private_cluster = {
    name                = "private"
    priority            = 100
    price_per_vcpu_hour = "0.0200"
    price_per_gib_hour  = "0.0025"
    max_pods            = 2000
  }
  private_cluster_credentials = {
    kubeconfig = var.private_kubeconfig
  }

  burst_targets = {
    "prod-eks" = {
      provider_type       = "eks"
      priority            = 20
      price_per_vcpu_hour = "0.0480"
      price_per_gib_hour  = "0.0060"
      max_cpu             = "160"
      eks = {
        version                 = "1.34"
        role_arn                = var.eks_cluster_role_arn
        subnet_ids              = var.eks_subnet_ids
        endpoint_private_access = true
        runtime_role_arn        = var.eks_runtime_role_arn
        tags                    = { environment = "production" }
        # An on-demand and a spot group, sized by the runtime from 0 (the
        # spot one only for workloads whose capacity allows spot); the spot
        # nodes are tainted so that only bursting replicas land there.
        node_groups = [
          {
            name           = "burst"
            node_role_arn  = var.eks_node_role_arn
            instance_types = ["m5.xlarge", "m5a.xlarge"]
            max_size       = 40
            allocatable    = { cpu = "3920m", memory = "15Gi", pods = 58 }
            price_per_hour = "0.214"
          },
          {
            name           = "burst-spot"
            node_role_arn  = var.eks_node_role_arn
            instance_types = ["m5.xlarge", "m5a.xlarge"]
            capacity_type  = "SPOT"
            max_size       = 40
            allocatable    = { cpu = "3920m", memory = "15Gi", pods = 58 }
            price_per_hour = "0.085"
          },
        ]
      }
    }
    "prod-ack" = {
      provider_type       = "ack"
      priority            = 10
      price_per_vcpu_hour = "0.0390"
      price_per_gib_hour  = "0.0049"
      max_cpu             = "96"
      ack = {
        cluster_spec          = "ack.pro.small"
        vswitch_ids           = var.ack_vswitch_ids
        worker_instance_types = ["ecs.g6.xlarge", "ecs.c6.xlarge"]
        worker_count          = 6
        # A pool at 0 nodes that the runtime grows for bursts.
        node_pools = [{
          name           = "burst"
          instance_types = ["ecs.g6.xlarge"]
          max_size       = 20
          allocatable    = { cpu = "3900m", memory = "14Gi", pods = 64 }
          price_per_hour = "0.19"
        }]
      }
    }
  }

  workloads = {
    # The storefront: FRSS (grow fast, shrink one pod per 9 minutes), burst to
    # the cheapest cluster first, registered in Consul for the load balancers.
    web = {
      namespace    = "shop"
      min_replicas = 4
      max_replicas = 200
      placement    = "cheapest"
      # Spot burst nodes first; a node empty for 5 minutes is released.
      capacity = { allow_spot = true, scale_down_delay = "5m" }
      metrics = [
        { type = "Resource", resource = { name = "cpu", target_average_utilization = 70 } },
        {
          type   = "PromQL"
          promql = { query = "sum(rate(http_requests_total{app=\"web\"}[1m]))", target_value = "100" }
        },
      ]
      algorithm = {
        name = "frss"
        frss = { scale_up_rate = 9, down_window = "9m", shrink_step = 1 }
      }
      propagate = {
        config_maps = { names = ["web-config"] }
      }
      consul = {
        service_name = "web"
        port         = 8080
      }
    }
    # The API: Knative-style panic mode for sudden spikes, EKS only.
    api = {
      namespace    = "shop"
      min_replicas = 2
      max_replicas = 80
      burst_targets = [
        { cluster = "prod-eks", max_replicas = 60 },
      ]
      algorithm = {
        name  = "panic"
        panic = { stable_window = "60s", panic_window = "6s", panic_threshold_percent = 200 }
      }
      pending_threshold = "2s"
      # One EKS target only: its replicas come back to the primary (or wait
      # there) a minute after EKS stops answering.
      failover_after = "1m"
    }
  }
}

output "burst_clusters" {
  value = module.hybrid_burst.burst_clusters
}

output "burst_policies" {
  value = module.hybrid_burst.burst_policies
}
