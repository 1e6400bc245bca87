# Inputs of the hybrid-burst module. The checks below catch, at plan time and
# naming the offending key, what the module itself decides (names, which cloud
# block goes with which provider_type, which burst targets a workload may use);
# the provider checks the rest (formats, ranges, the BurstPolicy's rules) when
# the resources are planned.

variable "runtime" {
  description = <<-EOT
    The HCA runtime installed into the control cluster (hca_runtime).
    - image: container image of hca-runtime, such as "registry.internal:5000/hca/hca-runtime:v0.1.0" (a mirror); no white space. Default (null): the image released with the provider, ghcr.io/hca-project/hca-runtime:v<provider version>.
    - namespace: namespace of the runtime, created when missing, a DNS label; also where the clusters' credentials Secrets are written. Default "hca-system".
    - replicas: 1 to 10; more than 1 turns leader election on. Default 1.
    - prometheus_url: Prometheus the runtime reads metrics from (PromQL metrics, SLOs); null turns PromQL metrics off.
    - consul_address: host:port of the Consul agent burst endpoints are registered with; null turns Consul off.
    - log_level: debug, info, warn or error. Default "info".
    - resources: cpu_request, memory_request, cpu_limit, memory_limit (Kubernetes quantities); null: the provider's defaults.
    - force_destroy: destroy the runtime even while hca objects of other configurations exist in the control cluster. Default false.
  EOT
  type = object({
    image          = optional(string)
    namespace      = optional(string, "hca-system")
    replicas       = optional(number, 1)
    prometheus_url = optional(string)
    consul_address = optional(string)
    log_level      = optional(string, "info")
    resources = optional(object({
      cpu_request    = optional(string)
      memory_request = optional(string)
      cpu_limit      = optional(string)
      memory_limit   = optional(string)
    }))
    force_destroy = optional(bool, false)
  })

  validation {
    condition     = var.runtime.image == null ? true : can(regex("^\\S+$", var.runtime.image))
    error_message = "runtime.image must be a container image reference such as \"ghcr.io/hca-project/hca-runtime:v0.1.0\", not empty and without white space."
  }
  validation {
    condition     = var.runtime.namespace == null ? false : length(var.runtime.namespace) <= 63 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", var.runtime.namespace))
    error_message = "runtime.namespace must be a DNS label: 1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit (default \"hca-system\")."
  }
  validation {
    condition     = var.runtime.replicas == null ? false : var.runtime.replicas >= 1 && var.runtime.replicas <= 10 && floor(var.runtime.replicas) == var.runtime.replicas
    error_message = "runtime.replicas must be a whole number from 1 to 10."
  }
  validation {
    condition     = contains(["debug", "info", "warn", "error"], coalesce(var.runtime.log_level, "unset"))
    error_message = "runtime.log_level must be one of \"debug\", \"info\", \"warn\" or \"error\"."
  }
}

variable "private_cluster" {
  description = <<-EOT
    How the private cluster (the control cluster, where workloads run first) is registered (hca_cluster, role "primary", provider_type "private").
    - name: name of its HybridCluster, a DNS subdomain of at most 241 characters. Default "private".
    - priority: placement rank, 0 to 1000000. Default 100.
    - price_per_vcpu_hour, price_per_gib_hour: its cost, decimals such as "0.0300"; both or neither (neither: free).
    - max_cpu: most CPU HCA may place there, a Kubernetes quantity such as "64"; null: no limit.
    - max_pods: most pods HCA may place there; null: no limit.
  EOT
  type = object({
    name                = optional(string, "private")
    priority            = optional(number, 100)
    price_per_vcpu_hour = optional(string)
    price_per_gib_hour  = optional(string)
    max_cpu             = optional(string)
    max_pods            = optional(number)
  })
  default = {}

  validation {
    condition     = var.private_cluster.name == null ? false : length(var.private_cluster.name) <= 241 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", var.private_cluster.name))
    error_message = "private_cluster.name must be a DNS subdomain of 1 to 241 characters: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit."
  }
  validation {
    condition     = (var.private_cluster.price_per_vcpu_hour == null) == (var.private_cluster.price_per_gib_hour == null)
    error_message = "private_cluster: set both price_per_vcpu_hour and price_per_gib_hour, or neither (the cluster's capacity is then free)."
  }
}

variable "private_cluster_credentials" {
  description = <<-EOT
    How the runtime reaches the private cluster's API server; stored in the credentials Secret hca-cluster-<name> in runtime.namespace. Either:
    - kubeconfig: the content (not the path) of a kubeconfig, for example file("~/.kube/private.yaml"); or
    - host (an https:// URL), cluster_ca_certificate (PEM; null: the system's trusted CAs) and token (a bearer token, such as a service account token).
    A secret: never printed by Terraform.
  EOT
  type = object({
    kubeconfig             = optional(string)
    host                   = optional(string)
    cluster_ca_certificate = optional(string)
    token                  = optional(string)
  })
  sensitive = true

  # The conditions refer to the variable as a whole, never to one of its
  # attributes: Terraform prints the values of the attributes a failed
  # condition refers to, sensitive or not.
  validation {
    condition     = length(setintersection(["kubeconfig", "host"], [for k, v in var.private_cluster_credentials : k if v != null])) == 1
    error_message = "private_cluster_credentials: set either kubeconfig (the file's content) or host with token (and cluster_ca_certificate), not both and not neither."
  }
  validation {
    condition     = !contains([for k, v in var.private_cluster_credentials : k if v != null], "host") || contains([for k, v in var.private_cluster_credentials : k if v != null], "token")
    error_message = "private_cluster_credentials: host is set without token; set token to a bearer token of the private cluster."
  }
  validation {
    condition     = !contains([for k, v in var.private_cluster_credentials : k if v != null], "kubeconfig") || length(setintersection(["cluster_ca_certificate", "token"], [for k, v in var.private_cluster_credentials : k if v != null])) == 0
    error_message = "private_cluster_credentials: cluster_ca_certificate and token are only used with host; remove them or set host instead of kubeconfig."
  }
}

variable "burst_targets" {
  description = <<-EOT
    The burst clusters to provision and register, by name. Each key is the name of the HybridCluster (role "burst") and, unless eks.cluster_name or ack.cluster_name is set, of the cloud cluster: a DNS label of 1 to 63 characters, different from private_cluster.name.
    - provider_type: "eks" (set the eks block: an hca_eks_cluster with one managed node group, registered by name and region so that the runtime mints EKS tokens) or "ack" (set the ack block: an hca_ack_cluster, registered with its kubeconfig).
    - priority: placement rank, 0 to 1000000 (higher first); also the default order of the workloads' burst targets. Default 0.
    - price_per_vcpu_hour, price_per_gib_hour: the cluster's cost, decimals such as "0.0464"; both or neither. Used by placement "cheapest" and to scale back the most expensive replicas first.
    - max_cpu, max_pods: most CPU (a quantity) and pods HCA may place there; null: no limit.
    - eks: cluster_name, version ("1.34"), role_arn, subnet_ids (at least 2), security_group_ids, endpoint_public_access, endpoint_private_access, tags, runtime_role_arn (the IAM role the runtime assumes to mint tokens) and node_groups, a list of managed node groups (name, default "burst"; node_role_arn; instance_types; capacity_type "ON_DEMAND" (default) or "SPOT"; min_size, default 0; max_size; desired_size; labels; taints with EKS effects such as "NO_SCHEDULE"). A group without desired_size is handed to the runtime: it starts at min_size, the runtime grows and releases it, and it needs allocatable (cpu, memory, pods: what one node offers pods) and price_per_hour (one node's price, such as "0.192"); its name must then be a DNS label.
    - ack: cluster_name, region (null: the provider's alicloud region), kubernetes_version, cluster_spec ("ack.pro.small" or "ack.standard"), vswitch_ids, worker_instance_types, worker_count, and node_pools (name, instance_types, capacity_type, desired_size; a pool without desired_size starts at 0 nodes, is handed to the runtime and needs max_size, allocatable and price_per_hour).
  EOT
  type = map(object({
    provider_type       = string
    priority            = optional(number, 0)
    price_per_vcpu_hour = optional(string)
    price_per_gib_hour  = optional(string)
    max_cpu             = optional(string)
    max_pods            = optional(number)
    eks = optional(object({
      cluster_name            = optional(string)
      version                 = optional(string)
      role_arn                = string
      subnet_ids              = set(string)
      security_group_ids      = optional(set(string))
      endpoint_public_access  = optional(bool)
      endpoint_private_access = optional(bool)
      tags                    = optional(map(string), {})
      runtime_role_arn        = optional(string)
      node_groups = list(object({
        name           = optional(string, "burst")
        node_role_arn  = string
        instance_types = list(string)
        capacity_type  = optional(string, "ON_DEMAND")
        min_size       = optional(number, 0)
        max_size       = number
        desired_size   = optional(number)
        labels         = optional(map(string))
        taints = optional(list(object({
          key    = string
          value  = optional(string)
          effect = string
        })))
        allocatable = optional(object({
          cpu    = string
          memory = string
          pods   = optional(number)
        }))
        price_per_hour = optional(string)
      }))
    }))
    ack = optional(object({
      cluster_name          = optional(string)
      region                = optional(string)
      kubernetes_version    = optional(string)
      cluster_spec          = optional(string)
      vswitch_ids           = list(string)
      worker_instance_types = list(string)
      worker_count          = number
      node_pools = optional(list(object({
        name           = string
        instance_types = list(string)
        capacity_type  = optional(string, "ON_DEMAND")
        desired_size   = optional(number)
        max_size       = optional(number)
        allocatable = optional(object({
          cpu    = string
          memory = string
          pods   = optional(number)
        }))
        price_per_hour = optional(string)
      })), [])
    }))
  }))
  default = {}

  validation {
    condition     = alltrue([for k in keys(var.burst_targets) : length(k) <= 63 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", k))])
    error_message = "burst_targets keys name the HybridClusters (and the cloud clusters): each must be a DNS label of 1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit. Invalid: ${join(", ", [for k in keys(var.burst_targets) : format("%q", k) if !(length(k) <= 63 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", k)))])}."
  }
  validation {
    condition     = !contains(keys(var.burst_targets), var.private_cluster.name)
    error_message = "burst_targets must not have a key equal to private_cluster.name (\"${var.private_cluster.name}\"): HybridCluster names are unique in the control cluster; rename the burst target."
  }
  validation {
    condition     = alltrue([for t in values(var.burst_targets) : contains(["eks", "ack"], t.provider_type)])
    error_message = "burst_targets: provider_type must be \"eks\" or \"ack\". Invalid: ${join(", ", [for k, t in var.burst_targets : format("%q (%q)", k, t.provider_type) if !contains(["eks", "ack"], t.provider_type)])}."
  }
  validation {
    condition     = alltrue([for t in values(var.burst_targets) : (t.provider_type == "eks") == (t.eks != null) && (t.provider_type == "ack") == (t.ack != null)])
    error_message = "burst_targets: a target of provider_type \"eks\" needs an eks block and no ack block, one of provider_type \"ack\" an ack block and no eks block. Invalid: ${join(", ", [for k, t in var.burst_targets : format("%q", k) if !((t.provider_type == "eks") == (t.eks != null) && (t.provider_type == "ack") == (t.ack != null))])}."
  }
  validation {
    condition     = alltrue([for t in values(var.burst_targets) : (t.price_per_vcpu_hour == null) == (t.price_per_gib_hour == null)])
    error_message = "burst_targets: set both price_per_vcpu_hour and price_per_gib_hour, or neither. Invalid: ${join(", ", [for k, t in var.burst_targets : format("%q", k) if(t.price_per_vcpu_hour == null) != (t.price_per_gib_hour == null)])}."
  }
  validation {
    condition     = alltrue([for t in values(var.burst_targets) : t.priority == null ? false : t.priority >= 0 && t.priority <= 1000000 && floor(t.priority) == t.priority])
    error_message = "burst_targets: priority must be a whole number from 0 to 1000000. Invalid: ${join(", ", [for k, t in var.burst_targets : format("%q", k) if !(t.priority == null ? false : t.priority >= 0 && t.priority <= 1000000 && floor(t.priority) == t.priority)])}."
  }
  validation {
    condition = alltrue(flatten([for t in values(var.burst_targets) : t.eks == null ? [] : [for g in t.eks.node_groups :
      g.min_size <= g.max_size && (g.desired_size == null ? true : g.desired_size >= g.min_size && g.desired_size <= g.max_size)
    ]]))
    error_message = "burst_targets: every eks.node_groups element must satisfy min_size <= max_size, and min_size <= desired_size <= max_size when desired_size is set. Invalid: ${join(", ", flatten([for k, t in var.burst_targets : t.eks == null ? [] : [for g in t.eks.node_groups : format("%q (%s)", k, g.name) if !(g.min_size <= g.max_size && (g.desired_size == null ? true : g.desired_size >= g.min_size && g.desired_size <= g.max_size))]]))}."
  }
  validation {
    condition = alltrue(flatten([for t in values(var.burst_targets) : concat(
      t.eks == null ? [] : [for g in t.eks.node_groups : g.allocatable != null && g.price_per_hour != null && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", g.name)) if g.desired_size == null],
      t.ack == null ? [] : [for p in t.ack.node_pools : p.allocatable != null && p.price_per_hour != null && p.max_size != null if p.desired_size == null],
    )]))
    error_message = "burst_targets: a node group or pool without desired_size is handed to the runtime, which needs its allocatable and price_per_hour (and a pool's max_size), and a DNS label as name: set them, or set desired_size to keep the size in Terraform. Invalid: ${join(", ", flatten([for k, t in var.burst_targets : concat(t.eks == null ? [] : [for g in t.eks.node_groups : format("%q (%s)", k, g.name) if g.desired_size == null && !(g.allocatable != null && g.price_per_hour != null && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", g.name)))], t.ack == null ? [] : [for p in t.ack.node_pools : format("%q (%s)", k, p.name) if p.desired_size == null && !(p.allocatable != null && p.price_per_hour != null && p.max_size != null)])]))}."
  }
}

variable "workloads" {
  description = <<-EOT
    One BurstPolicy (hca_burst_policy) per workload, by name: each key is the policy's name, a DNS subdomain. The workload runs in the private cluster and bursts into burst_targets.
    - namespace: namespace of the policy and of its Deployment (it must exist), a DNS label.
    - deployment_name: the Deployment; default: the key. Or match_labels: the Deployments carrying these labels (then deployment_name must be null).
    - burst_targets: keys of var.burst_targets to burst into, in order of preference, each with optional weight (0 to 1000) and max_replicas; default: every burst target, highest priority first (then by name).
    - min_replicas (default 1), max_replicas: replicas of the workload over all clusters.
    - placement: "priority" (default), "cheapest", "weighted" or "capacity".
    - pending_threshold: how long a pod must stay Unschedulable before bursting, a Go duration (default "5s").
    - failover_after: how long a burst cluster may stay unreachable before its replicas are placed again elsewhere, a Go duration in [0s, 1h] ("0s": never; default "90s").
    - capacity: allow_spot (the runtime may buy spot nodes, first) and scale_down_delay (how long a burst node stays empty before it is released, default "2m"); null: on-demand only.
    - metrics, algorithm, propagate, consul: as the hca_burst_policy arguments of the same names (null: the API's defaults: CPU at 80 %, algorithm "adaptive", nothing propagated, no Consul registration).
  EOT
  type = map(object({
    namespace       = string
    deployment_name = optional(string)
    match_labels    = optional(map(string))
    burst_targets = optional(list(object({
      cluster      = string
      weight       = optional(number)
      max_replicas = optional(number)
    })))
    min_replicas      = optional(number)
    max_replicas      = number
    placement         = optional(string)
    pending_threshold = optional(string)
    failover_after    = optional(string)
    capacity = optional(object({
      allow_spot       = optional(bool)
      scale_down_delay = optional(string)
    }))
    metrics = optional(list(object({
      type = string
      resource = optional(object({
        name                       = string
        target_average_utilization = number
      }))
      promql = optional(object({
        query        = string
        target_value = string
        target_type  = optional(string)
      }))
    })))
    algorithm = optional(object({
      name = optional(string)
      kubernetes = optional(object({
        tolerance = optional(string)
        scale_up = optional(object({
          stabilization_window = optional(string)
          tolerance            = optional(string)
          select_policy        = optional(string)
          policies = optional(list(object({
            type   = string
            value  = number
            period = string
          })))
        }))
        scale_down = optional(object({
          stabilization_window = optional(string)
          tolerance            = optional(string)
          select_policy        = optional(string)
          policies = optional(list(object({
            type   = string
            value  = number
            period = string
          })))
        }))
      }))
      frss = optional(object({
        tolerance     = optional(string)
        scale_up_rate = optional(number)
        up_window     = optional(string)
        down_window   = optional(string)
        shrink_step   = optional(number)
      }))
      panic = optional(object({
        stable_window           = optional(string)
        panic_window            = optional(string)
        panic_threshold_percent = optional(number)
        max_scale_up_rate       = optional(string)
        max_scale_down_rate     = optional(string)
      }))
    }))
    propagate = optional(object({
      config_maps = optional(object({
        names        = optional(set(string))
        match_labels = optional(map(string))
      }))
      secrets = optional(object({
        names        = optional(set(string))
        match_labels = optional(map(string))
      }))
      services = optional(object({
        names        = optional(set(string))
        match_labels = optional(map(string))
      }))
    }))
    consul = optional(object({
      service_name = string
      port         = number
      tags         = optional(set(string))
    }))
  }))
  default = {}

  validation {
    condition     = alltrue([for k in keys(var.workloads) : length(k) <= 253 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", k))])
    error_message = "workloads keys name the BurstPolicies: each must be a DNS subdomain of 1 to 253 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit. Invalid: ${join(", ", [for k in keys(var.workloads) : format("%q", k) if !(length(k) <= 253 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", k)))])}."
  }
  validation {
    condition     = alltrue([for w in values(var.workloads) : length(w.namespace) <= 63 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", w.namespace))])
    error_message = "workloads: namespace must be a DNS label of 1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit. Invalid: ${join(", ", [for k, w in var.workloads : format("%q (%q)", k, w.namespace) if !(length(w.namespace) <= 63 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", w.namespace)))])}."
  }
  validation {
    condition     = alltrue([for w in values(var.workloads) : w.deployment_name == null || w.match_labels == null])
    error_message = "workloads: set deployment_name or match_labels, not both (neither: the Deployment named like the key). Invalid: ${join(", ", [for k, w in var.workloads : format("%q", k) if w.deployment_name != null && w.match_labels != null])}."
  }
  validation {
    condition     = alltrue([for w in values(var.workloads) : w.max_replicas >= coalesce(w.min_replicas, 1)])
    error_message = "workloads: max_replicas must be at least min_replicas (default 1). Invalid: ${join(", ", [for k, w in var.workloads : format("%q (min %d, max %d)", k, coalesce(w.min_replicas, 1), w.max_replicas) if w.max_replicas < coalesce(w.min_replicas, 1)])}."
  }
  validation {
    condition     = length(var.workloads) == 0 || length(var.burst_targets) > 0
    error_message = "workloads need at least one burst target: add a cluster to burst_targets, or remove the workloads."
  }
  validation {
    condition     = alltrue(flatten([for w in values(var.workloads) : [for t in(w.burst_targets == null ? [] : w.burst_targets) : contains(keys(var.burst_targets), t.cluster)]]))
    error_message = "workloads: every burst_targets[*].cluster must be a key of var.burst_targets (${join(", ", [for k in keys(var.burst_targets) : format("%q", k)])}). Unknown: ${join(", ", flatten([for k, w in var.workloads : [for t in(w.burst_targets == null ? [] : w.burst_targets) : format("%q in %q", t.cluster, k) if !contains(keys(var.burst_targets), t.cluster)]]))}."
  }
  validation {
    condition     = alltrue([for w in values(var.workloads) : w.burst_targets == null ? true : length(w.burst_targets) > 0])
    error_message = "workloads: burst_targets must list at least one cluster, or be null for every burst target. Invalid: ${join(", ", [for k, w in var.workloads : format("%q", k) if w.burst_targets == null ? false : length(w.burst_targets) == 0])}."
  }
}
