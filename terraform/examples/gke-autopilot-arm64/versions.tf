terraform {
  # 1.11: write-only arguments (the password).
  required_version = ">= 1.11"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 7.0, < 8.0"
    }
    kubernetes = {
      source  = "hashicorp/kubernetes"
      version = ">= 2.38, < 3.0"
    }
  }

  # Keep the state in a Cloud Storage bucket, not on one machine (see the clickhouse-cloud
  # example's versions.tf for the commands that make the bucket), then uncomment and run
  # terraform init -migrate-state:
  #
  # backend "gcs" {
  #   bucket = "PROJECT-tfstate"
  #   prefix = "pubsub-clickhouse-gke"
  # }
}
