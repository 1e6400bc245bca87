# hybrid-burst: a private cluster that bursts its workloads into EKS and ACK
# clusters. The module reads the control cluster (to fail early when the
# provider cannot reach it), installs the runtime there, registers the private
# cluster, provisions and registers every burst target, and declares one
# BurstPolicy per workload.
#
# The provider "hca" is configured by the caller: its connection to the
# control cluster is the private cluster's, and its aws/alicloud settings are
# the accounts the burst clusters are created in.

locals {
  eks_targets = { for k, t in var.burst_targets : k => t if t.provider_type == "eks" }
  ack_targets = { for k, t in var.burst_targets : k => t if t.provider_type == "ack" }

  # Burst targets by priority, highest first, then by name: the default order
  # of preference of the workloads' burst targets.
  targets_by_priority = [
    for s in sort([for k, t in var.burst_targets : format("%07d/%s", 1000000 - t.priority, k)]) : split("/", s)[1]
  ]

  # What hca_cluster needs from each provisioned cluster. EKS clusters are
  # registered by name and region (taken from the cluster's ARN, so it is the
  # region the provider created it in); the runtime mints tokens for them. ACK
  # clusters are registered with the kubeconfig ACK issued.
  registrations = merge(
    { for k, c in hca_eks_cluster.this : k => {
      eks_cluster_name = c.name
      region           = split(":", c.arn)[3]
      kubeconfig       = null
    } },
    { for k, c in hca_ack_cluster.this : k => {
      eks_cluster_name = null
      region           = null
      kubeconfig       = c.kubeconfig
    } },
  )

  # The node groups each burst target hands to the runtime (those without
  # desired_size), as hca_cluster's node_groups: their identifiers come from
  # the cloud cluster resources, what the runtime plans with from the input.
  taint_effects = { NO_SCHEDULE = "NoSchedule", NO_EXECUTE = "NoExecute", PREFER_NO_SCHEDULE = "PreferNoSchedule" }
  runtime_node_groups = merge(
    { for k, c in hca_eks_cluster.this : k => [
      for i, g in var.burst_targets[k].eks.node_groups : {
        name           = g.name
        eks            = c.node_groups[i].eks
        ack            = null
        instance_type  = g.instance_types[0]
        capacity_type  = g.capacity_type == "SPOT" ? "Spot" : "OnDemand"
        allocatable    = g.allocatable
        price_per_hour = g.price_per_hour
        min_nodes      = g.min_size
        max_nodes      = g.max_size
        labels         = g.labels
        taints         = g.taints == null ? null : [for t in g.taints : { key = t.key, value = t.value, effect = local.taint_effects[t.effect] }]
      } if g.desired_size == null
    ] },
    { for k, c in hca_ack_cluster.this : k => [
      for i, p in var.burst_targets[k].ack.node_pools : {
        name           = p.name
        eks            = null
        ack            = c.node_pools[i].ack
        instance_type  = p.instance_types[0]
        capacity_type  = p.capacity_type == "SPOT" ? "Spot" : "OnDemand"
        allocatable    = p.allocatable
        price_per_hour = p.price_per_hour
        min_nodes      = 0
        max_nodes      = p.max_size
        labels         = null
        taints         = null
      } if p.desired_size == null
    ] },
  )
}

# Read before anything is planned: a wrong or unreachable control cluster
# stops the plan here, not after the cloud clusters were created.
data "hca_control_cluster" "this" {}

resource "hca_runtime" "this" {
  image          = var.runtime.image
  namespace      = var.runtime.namespace
  replicas       = var.runtime.replicas
  prometheus_url = var.runtime.prometheus_url
  consul_address = var.runtime.consul_address
  log_level      = var.runtime.log_level
  resources      = var.runtime.resources
  force_destroy  = var.runtime.force_destroy
}

# The private cluster: where the workloads run and are scaled first. Its
# credentials Secret goes into the runtime's namespace, which hca_runtime
# creates (hence the reference, which also orders the CRDs first).
resource "hca_cluster" "private" {
  name                   = var.private_cluster.name
  role                   = "primary"
  provider_type          = "private"
  credentials_namespace  = hca_runtime.this.namespace
  kubeconfig             = var.private_cluster_credentials.kubeconfig
  host                   = var.private_cluster_credentials.host
  cluster_ca_certificate = var.private_cluster_credentials.cluster_ca_certificate
  token                  = var.private_cluster_credentials.token
  priority               = var.private_cluster.priority
  price_per_vcpu_hour    = var.private_cluster.price_per_vcpu_hour
  price_per_gib_hour     = var.private_cluster.price_per_gib_hour
  max_cpu                = var.private_cluster.max_cpu
  max_pods               = var.private_cluster.max_pods
}

resource "hca_eks_cluster" "this" {
  for_each = local.eks_targets

  name                    = coalesce(each.value.eks.cluster_name, each.key)
  version                 = each.value.eks.version
  role_arn                = each.value.eks.role_arn
  subnet_ids              = each.value.eks.subnet_ids
  security_group_ids      = each.value.eks.security_group_ids
  endpoint_public_access  = each.value.eks.endpoint_public_access
  endpoint_private_access = each.value.eks.endpoint_private_access
  # Null rather than {}: EKS reads an untagged cluster back without tags.
  tags = length(each.value.eks.tags) > 0 ? each.value.eks.tags : null

  # A group without desired_size starts at min_size (0 by default) and its
  # size is the runtime's: it is listed in the target's hca_cluster.node_groups.
  node_groups = [for g in each.value.eks.node_groups : {
    name           = g.name
    node_role_arn  = g.node_role_arn
    instance_types = g.instance_types
    capacity_type  = g.capacity_type
    min_size       = g.min_size
    max_size       = g.max_size
    desired_size   = g.desired_size
    labels         = g.labels
    taints         = g.taints
  }]
}

resource "hca_ack_cluster" "this" {
  for_each = local.ack_targets

  name                  = coalesce(each.value.ack.cluster_name, each.key)
  region                = each.value.ack.region
  kubernetes_version    = each.value.ack.kubernetes_version
  cluster_spec          = each.value.ack.cluster_spec
  vswitch_ids           = each.value.ack.vswitch_ids
  worker_instance_types = each.value.ack.worker_instance_types
  worker_count          = each.value.ack.worker_count
  node_pools = length(each.value.ack.node_pools) == 0 ? null : [for p in each.value.ack.node_pools : {
    name           = p.name
    instance_types = p.instance_types
    capacity_type  = p.capacity_type
    desired_size   = p.desired_size
  }]
}

# Every burst target, registered with the outputs of the cluster created above.
resource "hca_cluster" "burst" {
  for_each = var.burst_targets

  name                  = each.key
  role                  = "burst"
  provider_type         = each.value.provider_type
  credentials_namespace = hca_runtime.this.namespace
  eks_cluster_name      = local.registrations[each.key].eks_cluster_name
  region                = local.registrations[each.key].region
  role_arn              = each.value.provider_type == "eks" ? each.value.eks.runtime_role_arn : null
  kubeconfig            = local.registrations[each.key].kubeconfig
  priority              = each.value.priority
  price_per_vcpu_hour   = each.value.price_per_vcpu_hour
  price_per_gib_hour    = each.value.price_per_gib_hour
  max_cpu               = each.value.max_cpu
  max_pods              = each.value.max_pods
  node_groups           = length(local.runtime_node_groups[each.key]) == 0 ? null : local.runtime_node_groups[each.key]
}

resource "hca_burst_policy" "this" {
  for_each = var.workloads

  name      = each.key
  namespace = each.value.namespace
  target = {
    deployment_name = each.value.match_labels == null ? coalesce(each.value.deployment_name, each.key) : null
    match_labels    = each.value.match_labels
  }
  primary_cluster = hca_cluster.private.name
  burst_targets = [
    for t in(each.value.burst_targets != null ? each.value.burst_targets : [
      for k in local.targets_by_priority : { cluster = k, weight = null, max_replicas = null }
      ]) : {
      cluster      = hca_cluster.burst[t.cluster].name
      weight       = t.weight
      max_replicas = t.max_replicas
    }
  ]
  placement         = each.value.placement
  min_replicas      = each.value.min_replicas
  max_replicas      = each.value.max_replicas
  pending_threshold = each.value.pending_threshold
  failover_after    = each.value.failover_after
  metrics           = each.value.metrics
  algorithm         = each.value.algorithm
  propagate         = each.value.propagate
  consul            = each.value.consul
  capacity          = each.value.capacity
}
