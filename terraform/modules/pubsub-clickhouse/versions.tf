# A module: no provider block here. The caller configures google and google-beta (the Pub/Sub
# service agent comes from google_project_service_identity, which only google-beta has) and passes
# them in; see ../../examples.
terraform {
  # 1.11: write-only arguments (the password, secrets.tf).
  required_version = ">= 1.11"

  required_providers {
    google = {
      source = "hashicorp/google"
      # One major range; infra-tests checks every argument against a 7.x schema.
      version = ">= 7.0, < 8.0"
    }
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 7.0, < 8.0"
    }
  }
}
