# Pub/Sub -> Cloud Run -> a ClickHouse server on an Axion (arm64) VM that the module creates in
# your subnetwork, in the zone you name: data on its own disk, daily BACKUP to a Cloud Storage
# bucket, HTTPS on 8443 only, with a certificate from Secret Manager. The service and the job reach
# it through Direct VPC egress from the same subnetwork. The apply builds the images, as in the
# ClickHouse Cloud example.

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

  # The VM applies sql/logs.sql and sql/dead_letter_table.sql at boot: realtime.logs and its dead-letter table.
  # A user of its own, with only the grants of sql/grants.sql; "default" is the VM's local
  # administrator.
  clickhouse_user              = "pipeline"
  clickhouse_database          = "realtime"
  clickhouse_table             = "logs"
  clickhouse_dead_letter_table = "realtime.logs_dead_letter"

  vpc_network    = var.vpc_network
  vpc_subnetwork = var.vpc_subnetwork

  create_clickhouse_vm                 = true
  clickhouse_vm_zone                   = var.clickhouse_vm_zone
  clickhouse_vm_internal_ip            = var.clickhouse_vm_internal_ip
  clickhouse_vm_tls_certificate_secret = var.clickhouse_vm_tls_certificate_secret
  clickhouse_vm_tls_private_key_secret = var.clickhouse_vm_tls_private_key_secret
  clickhouse_vm_external_ip            = var.clickhouse_vm_external_ip

  notification_channels = var.notification_channels
}
