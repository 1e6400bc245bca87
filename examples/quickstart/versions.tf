terraform {
  required_version = ">= 1.5"
  required_providers {
    hca = {
      source = "hca-project/hca"
    }
  }
}
