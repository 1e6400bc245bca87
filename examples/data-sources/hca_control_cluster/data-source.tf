# Check the connection to the control cluster and expose its version.
data "hca_control_cluster" "this" {}

output "control_cluster_version" {
  value = data.hca_control_cluster.this.kubernetes_version
}
