terraform {
  # 1.11: write-only arguments (the password).
  required_version = ">= 1.11"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 7.0, < 8.0"
    }
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 7.0, < 8.0"
    }
  }

  # Keep the state in a Cloud Storage bucket, not on one machine: it is what Terraform knows of
  # every resource, and two people applying from two local states undo each other's work. Create
  # the bucket once (versioning on, so a bad apply can be rolled back), then uncomment and run
  # terraform init -migrate-state:
  #
  #   gcloud storage buckets create gs://PROJECT-tfstate --location=REGION \
  #     --uniform-bucket-level-access --public-access-prevention
  #   gcloud storage buckets update gs://PROJECT-tfstate --versioning
  #
  # backend "gcs" {
  #   bucket = "PROJECT-tfstate"
  #   prefix = "pubsub-clickhouse"
  # }
}
