# Provider, project facts, names and the environment both Cloud Run resources are built from.
# The resources themselves live in one file per concern: pubsub.tf, run.tf, job.tf, iam.tf,
# secrets.tf, registry.tf, monitoring.tf and clickhouse_vm.tf.

provider "google" {
  project = var.project_id
  region  = var.region
}

data "google_project" "this" {
  project_id = var.project_id
}

locals {
  topic_name         = coalesce(var.topic_name, "${var.name_prefix}-ingest")
  service_name       = coalesce(var.service_name, var.name_prefix)
  job_name           = coalesce(var.job_name, "${var.name_prefix}-backfill")
  password_secret_id = coalesce(var.clickhouse_password_secret_id, "${var.name_prefix}-clickhouse-password")

  # The Pub/Sub service agent: it forwards to the dead-letter topic, acknowledges what it
  # forwarded and mints the push OIDC tokens. Named here once.
  pubsub_service_agent = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"

  # Cloud Run's deterministic URL is known before the service exists, so the service can carry
  # its own audience (PUSH_AUDIENCE) without a dependency cycle. The subscription uses the same
  # string, and run.tf lists it in custom_audiences so Cloud Run's IAM check accepts it as well.
  deterministic_service_url = "https://${local.service_name}-${data.google_project.this.number}.${var.region}.run.app"
  push_audience             = coalesce(var.push_audience, local.deterministic_service_url)

  vpc_egress_enabled = var.vpc_network != null || var.vpc_subnetwork != null

  clickhouse_url = var.clickhouse_url != null ? var.clickhouse_url : try("http://${google_compute_instance.clickhouse[0].network_interface[0].network_ip}:8123", null)

  # Settings the service and the job share. Null values are dropped below, so an unset variable
  # leaves the application's own default in force.
  clickhouse_env = {
    CLICKHOUSE_URL               = local.clickhouse_url
    CLICKHOUSE_DATABASE          = var.clickhouse_database
    CLICKHOUSE_TABLE             = var.clickhouse_table
    CLICKHOUSE_USER              = var.clickhouse_user
    CLICKHOUSE_DEAD_LETTER_TABLE = var.clickhouse_dead_letter_table
  }

  service_env_all = merge(local.clickhouse_env, {
    CREATE_DEAD_LETTER_TABLE      = var.create_dead_letter_table == null ? null : tostring(var.create_dead_letter_table)
    DEAD_LETTER_TOPIC       = var.service_dead_letter_publishing ? google_pubsub_topic.dead_letter.id : null
    BATCH_MAX_ROWS          = var.batch_max_rows == null ? null : tostring(var.batch_max_rows)
    BATCH_MAX_BYTES         = var.batch_max_bytes == null ? null : tostring(var.batch_max_bytes)
    BATCH_MAX_WAIT_MS       = var.batch_max_wait_ms == null ? null : tostring(var.batch_max_wait_ms)
    MAX_INSERT_BLOCK_SIZE   = var.max_insert_block_size == null ? null : tostring(var.max_insert_block_size)
    MAX_RETRIES             = var.max_retries == null ? null : tostring(var.max_retries)
    INSERT_DEDUPLICATE      = var.insert_deduplicate == null ? null : tostring(var.insert_deduplicate)
    INSERT_QUORUM           = var.insert_quorum
    INSERT_DISTRIBUTED_SYNC = var.insert_distributed_sync == null ? null : tostring(var.insert_distributed_sync)
    ASYNC_INSERT            = var.async_insert == null ? null : tostring(var.async_insert)
    CLICKHOUSE_SETTINGS     = var.clickhouse_settings
    PUSH_UNWRAPPED          = var.push_unwrapped ? "true" : null
    PUSH_AUDIENCE           = var.verify_push_token ? local.push_audience : null
    PUSH_SERVICE_ACCOUNT    = var.verify_push_token ? google_service_account.push.email : null
  })
  # The CA certificate secret, when given, is a file in both containers (run.tf, job.tf).
  clickhouse_ca_directory = "/etc/clickhouse-ca"
  clickhouse_ca_env       = var.clickhouse_ca_certificate_secret == null ? {} : { CLICKHOUSE_CA_CERT = "${local.clickhouse_ca_directory}/ca.pem" }

  service_env = merge({ for name, value in local.service_env_all : name => value if value != null }, local.clickhouse_ca_env, var.service_env)

  backfill_env_all = merge(local.clickhouse_env, {
    CLICKHOUSE_TABLE        = coalesce(var.backfill_clickhouse_table, var.clickhouse_table)
    INPUT_TABLE_SPEC        = var.backfill_input_table_spec
    QUERY                   = var.backfill_query
    OUTPUT_DEADLETTER_TABLE = var.backfill_output_deadletter_table
    GOOGLE_CLOUD_PROJECT    = var.project_id
  })
  backfill_env = merge({ for name, value in local.backfill_env_all : name => value if value != null }, local.clickhouse_ca_env, var.backfill_env)

  # BigQuery datasets as "PROJECT:DATASET": the ones the job reads (dataViewer each) and the one
  # holding outputDeadletterTable (dataEditor). Nothing is granted project-wide but the two
  # BigQuery roles that have no dataset scope (readSessionUser, jobUser).
  backfill_read_datasets = toset(concat(
    [for d in var.backfill_source_datasets : join(":", regex("^([^:.]+)[:.]([^:.]+)$", d))],
    var.backfill_input_table_spec == null ? [] : [join(":", regex("^([^:.]+)[:.]([^.]+)\\.", var.backfill_input_table_spec))],
  ))
  backfill_deadletter_dataset = var.backfill_output_deadletter_table == null ? null : join(":", regex("^([^:.]+)[:.]([^.]+)\\.", var.backfill_output_deadletter_table))

  required_apis = concat(
    [
      "artifactregistry.googleapis.com",
      "bigquery.googleapis.com",
      "bigquerystorage.googleapis.com",
      "cloudbuild.googleapis.com",
      "cloudresourcemanager.googleapis.com",
      "iam.googleapis.com",
      "logging.googleapis.com",
      "monitoring.googleapis.com",
      "pubsub.googleapis.com",
      "run.googleapis.com",
      "secretmanager.googleapis.com",
    ],
    local.vpc_egress_enabled || var.create_clickhouse_vm ? ["compute.googleapis.com"] : [],
  )
}

resource "google_project_service" "enabled" {
  for_each = var.enable_apis ? toset(local.required_apis) : toset([])

  project = var.project_id
  service = each.value
  # Leave the APIs on at destroy: other workloads in the project may use them.
  disable_on_destroy = false
}
