terraform {
  required_version = ">= 1.5"

  required_providers {
    google = {
      source = "hashicorp/google"
      # One major range. 7.x has every argument used here: deletion_protection on the Cloud Run
      # v2 service and job, Direct VPC egress (vpc_access.network_interfaces) and
      # push_config.no_wrapper.
      version = ">= 7.0, < 8.0"
    }
  }
}
