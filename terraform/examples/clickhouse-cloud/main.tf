# Pub/Sub -> Cloud Run -> an existing ClickHouse reachable over HTTPS, such as ClickHouse Cloud.
# The module creates everything else: the image repository and the images (the apply runs the
# build), topics, the push subscription, the service, the tables and backfill jobs, identities and
# grants, the password secret with its value from terraform.tfvars, alerts and a dashboard.

provider "google" {
  project = var.project_id
  region  = var.region
}

provider "google-beta" {
  project = var.project_id
  region  = var.region
}

module "pubsub_clickhouse" {
  source = "../../modules/pubsub-clickhouse"

  project_id = var.project_id
  region     = var.region

  clickhouse_password = var.clickhouse_password

  # The backfill reads only the datasets listed here.
  backfill_source_datasets = var.backfill_source_datasets

  clickhouse_url               = var.clickhouse_url
  clickhouse_database          = var.clickhouse_database
  clickhouse_table             = var.clickhouse_table
  clickhouse_user              = var.clickhouse_user
  clickhouse_dead_letter_table = var.clickhouse_dead_letter_table

  ack_deadline_seconds  = var.ack_deadline_seconds
  service_max_instances = var.service_max_instances
  notification_channels = var.notification_channels
}
