# The HCA quickstart: a private cluster that bursts into Amazon EKS and then
# Alibaba Cloud ACK. `make demo` applies it against the lab (the endpoints
# point at the lab's emulators); with the endpoint variables unset it talks to
# the real clouds, with credentials from the environment (AWS_* and
# ALICLOUD_ACCESS_KEY / ALICLOUD_SECRET_KEY).
provider "hca" {
  kubeconfig_path = var.control_kubeconfig_path

  aws {
    region = var.aws_region
  }
  alicloud {
    region = var.alicloud_region
  }
  endpoints {
    eks = var.eks_endpoint
    sts = var.sts_endpoint
    ack = var.ack_endpoint
  }
}

# The runtime, installed into the control cluster. It reaches EKS with its own
# AWS identity (IRSA in a real cluster) to mint short-lived tokens.
resource "hca_runtime" "this" {
  image          = var.runtime_image
  prometheus_url = var.prometheus_url
  consul_address = var.consul_address
  log_level      = "info"

  # Fast loops for a demo; the defaults are 30s and 15s.
  cluster_probe_interval = "5s"
  control_interval       = "3s"

  aws = {
    region       = var.aws_region
    eks_endpoint = var.eks_endpoint
    sts_endpoint = var.sts_endpoint
    # Releasing an emptied EKS node terminates that instance through EC2 Auto
    # Scaling, which the lab's AWS emulator serves beside EKS.
    autoscaling_endpoint = var.eks_endpoint
  }

  # The runtime grows and releases the ACK node pool with this AccessKey
  # (stored in the Secret hca-runtime-alicloud, never in the Deployment).
  alicloud = var.runtime_alicloud_access_key_id == null ? null : {
    access_key_id     = var.runtime_alicloud_access_key_id
    access_key_secret = var.runtime_alicloud_access_key_secret
    ack_endpoint      = var.ack_endpoint
  }
}

# The private cluster: the primary, cheapest, used first.
resource "hca_cluster" "private" {
  name                = "private"
  role                = "primary"
  provider_type       = "private"
  kubeconfig          = file(pathexpand(var.control_kubeconfig_path))
  priority            = 100
  price_per_vcpu_hour = "0.0300"
  price_per_gib_hour  = "0.0040"

  depends_on = [hca_runtime.this] # the credentials Secret lives in its namespace
}

# Burst target 1: an EKS cluster with two managed node groups at 0 nodes, an
# on-demand and a spot one. Without desired_size their sizes are the
# runtime's: it grows them when a burst needs nodes and releases them after
# the burst policy's scale_down_delay; Terraform never fights it (the next
# plan stays empty).
resource "hca_eks_cluster" "burst" {
  name       = "hca-quickstart-eks"
  version    = "1.34"
  role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
  subnet_ids = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]

  node_groups = [
    {
      name           = "burst"
      node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
      instance_types = ["m5.xlarge"]
      min_size       = 0
      max_size       = 4
    },
    {
      name           = "burst-spot"
      node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
      instance_types = ["m5.xlarge"]
      capacity_type  = "SPOT"
      min_size       = 0
      max_size       = 4
    },
  ]
}

# Registered by name: no stored credential, the runtime mints tokens. Its
# node_groups tell the runtime what it may buy: per node what pods get (the
# lab's m5.xlarge nodes offer 4 CPU, 16Gi, 58 pods; a real one about 3920m and
# 15Gi) and its price (us-east-1 list price; spot is an expected price).
resource "hca_cluster" "eks" {
  name                = "eks"
  role                = "burst"
  provider_type       = "eks"
  eks_cluster_name    = hca_eks_cluster.burst.name
  region              = var.aws_region
  priority            = 10
  price_per_vcpu_hour = "0.0464"
  price_per_gib_hour  = "0.0058"
  max_pods            = 8

  node_groups = [
    {
      name           = "burst"
      eks            = hca_eks_cluster.burst.node_groups[0].eks
      instance_type  = "m5.xlarge"
      capacity_type  = "OnDemand"
      allocatable    = { cpu = "4", memory = "16Gi", pods = 58 }
      price_per_hour = "0.192"
      min_nodes      = 0
      max_nodes      = 4
    },
    {
      name           = "burst-spot"
      eks            = hca_eks_cluster.burst.node_groups[1].eks
      instance_type  = "m5.xlarge"
      capacity_type  = "Spot"
      allocatable    = { cpu = "4", memory = "16Gi", pods = 58 }
      price_per_hour = "0.0735"
      min_nodes      = 0
      max_nodes      = 4
    },
  ]

  depends_on = [hca_runtime.this]
}

# Burst target 2: an ACK managed cluster with two workers and a node pool at
# 0 nodes whose size is the runtime's.
resource "hca_ack_cluster" "burst" {
  name                  = "hca-quickstart-ack"
  cluster_spec          = "ack.pro.small"
  vswitch_ids           = ["vsw-hcaquickstart1"]
  worker_instance_types = ["ecs.g6.xlarge"]
  worker_count          = 2

  node_pools = [{
    name           = "burst"
    instance_types = ["ecs.g6.xlarge"]
  }]
}

# Registered with the kubeconfig ACK issued (kept in a Secret, never in the CR).
resource "hca_cluster" "ack" {
  name                = "ack"
  role                = "burst"
  provider_type       = "ack"
  kubeconfig          = hca_ack_cluster.burst.kubeconfig
  priority            = 5
  price_per_vcpu_hour = "0.0390"
  price_per_gib_hour  = "0.0049"

  node_groups = [{
    name           = "burst"
    ack            = hca_ack_cluster.burst.node_pools[0].ack
    instance_type  = "ecs.g6.xlarge"
    allocatable    = { cpu = "4", memory = "16Gi", pods = 64 }
    price_per_hour = "0.21"
    max_nodes      = 4
  }]

  depends_on = [hca_runtime.this]
}

# The sample app's burst policy: replicas the private cluster cannot schedule
# burst to EKS (at most 8) and then ACK, are published to Consul for nginx, and
# come back when the load falls (the most expensive cluster first). No
# algorithm block: the default, adaptive, scales on requests per replica (steps
# followed at once, a forecast ahead of ramps, the HPA's scale-down
# stabilisation). With var.slo_drives_replicas the SLO below decides instead.
resource "hca_burst_policy" "web" {
  name            = var.app_name
  namespace       = var.app_namespace
  target          = { deployment_name = var.app_name }
  primary_cluster = hca_cluster.private.name
  burst_targets = [
    { cluster = hca_cluster.eks.name, max_replicas = 8 },
    { cluster = hca_cluster.ack.name },
  ]
  placement    = "priority"
  min_replicas = 2
  max_replicas = 32

  metrics = [{
    type = "PromQL"
    promql = {
      query        = "sum(rate(http_requests_total{namespace=\"${var.app_namespace}\",app=\"${var.app_name}\"}[${var.rate_window}]))"
      target_value = tostring(var.requests_per_pod)
    }
  }]

  pending_threshold = "3s"

  # Burst nodes: spot groups first, at about 40 % of the on-demand price, as a
  # user who accepts EC2's 2-minute interruption notice would write. The one
  # capacity setting that is not a default: empty nodes go back after the
  # default scale_down_delay of 2 minutes.
  capacity = {
    allow_spot = true
  }

  propagate = {
    config_maps = { names = ["${var.app_name}-config"] }
  }

  consul = {
    service_name = var.app_name
    port         = 8080
    tags         = ["quickstart"]
  }
}

# The SLO, decoupled from the elasticity strategy (Polaris), created with
# var.slo_drives_replicas: the 90th percentile of the app's response time stays
# under 250 ms. Its Burst strategy drives the policy above: the replica total
# follows the SLO's compliance (ceil(total x compliance / 100) outside the 10 %
# tolerance) instead of the policy's algorithm, and the policy places the
# replicas, bursting what the private cluster cannot schedule.
resource "hca_slo" "web_latency" {
  count = var.slo_drives_replicas ? 1 : 0

  name      = "${var.app_name}-latency"
  namespace = var.app_namespace
  target    = { name = var.app_name }

  slo = {
    type    = "latency"
    latency = { percentile = "90", threshold = "250ms" }
  }

  tolerance           = "0.1"
  evaluation_interval = "5s"
  stabilization       = { scale_up = "0s", scale_down = "30s" }

  elasticity_strategy = {
    kind  = "Burst"
    burst = { burst_policy_name = hca_burst_policy.web.name }
  }
}
