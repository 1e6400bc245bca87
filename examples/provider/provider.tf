terraform {
  required_providers {
    hca = {
      source = "hca-project/hca"
    }
  }
}

# Connect to the control cluster through a kubeconfig file, burst to Amazon EKS
# with credentials from the AWS SDK's default chain (here: an assumed role), and
# to Alibaba Cloud ACK with an AccessKey pair taken from ALICLOUD_ACCESS_KEY and
# ALICLOUD_SECRET_KEY.
provider "hca" {
  kubeconfig_path    = "~/.kube/config"
  kubeconfig_context = "private"

  aws {
    region = "us-east-1"

    assume_role {
      role_arn     = "arn:aws:iam::123456789012:role/hca"
      session_name = "terraform"
    }
  }

  alicloud {
    region = "cn-hangzhou"
  }
}
