# A module: no provider block here. The caller configures google and google-beta (the Pub/Sub
# service agent comes from google_project_service_identity, which only google-beta has) and passes
# them in; see ../../examples.
terraform {
  required_version = ">= 1.5"

  required_providers {
    google = {
      source = "hashicorp/google"
      # One major range. The 7.0 upgrade guide removes nothing used here; infra-tests checks every
      # argument against the 6.50 schema (the last one published as cdktf bindings).
      version = ">= 7.0, < 8.0"
    }
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 7.0, < 8.0"
    }
  }
}
