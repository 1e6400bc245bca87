terraform {
  # 1.9: variable validations that refer to other variables (workloads'
  # burst_targets are checked against the burst_targets map).
  required_version = ">= 1.9.0"

  required_providers {
    hca = {
      source = "hca-project/hca"
    }
  }
}
