# A module: no provider block here. The caller configures google and kubernetes (the latter for
# the Autopilot cluster the workload runs in) and passes them in; see
# ../../examples/gke-autopilot-arm64.
terraform {
  # 1.9: a variable's validation may name other variables (termination grace, scaler bounds).
  required_version = ">= 1.9"

  required_providers {
    google = {
      source = "hashicorp/google"
      # One major range; infra-tests checks every argument against a 7.x schema.
      version = ">= 7.0, < 8.0"
    }
    kubernetes = {
      source = "hashicorp/kubernetes"
      # infra-tests checks every argument against the 2.38 schema.
      version = ">= 2.38, < 3.0"
    }
  }
}
