# Project facts, names, the APIs and the environment both Cloud Run resources are built from.
# The resources themselves live in one file per concern: pubsub.tf, run.tf, job.tf, iam.tf,
# secrets.tf, bigquery.tf, registry.tf, monitoring.tf and clickhouse_vm.tf.

data "google_project" "this" {
  project_id = var.project_id
}

locals {
  topic_name         = coalesce(var.topic_name, "${var.name_prefix}-ingest")
  service_name       = coalesce(var.service_name, var.name_prefix)
  job_name           = coalesce(var.job_name, "${var.name_prefix}-backfill")
  password_secret_id = coalesce(var.clickhouse_password_secret_id, "${var.name_prefix}-clickhouse-password")

  # The Pub/Sub service agent: it forwards to the dead-letter topic, acknowledges what it
  # forwarded and mints the push OIDC tokens. Named here once, from the identity resource below,
  # so every grant to it waits until the agent exists.
  pubsub_service_agent = "serviceAccount:${google_project_service_identity.pubsub.email}"

  # Cloud Run's deterministic URL is known before the service exists, so the service can carry
  # its own audience (PUSH_AUDIENCE) without a dependency cycle. The subscription uses the same
  # string, and run.tf lists it in custom_audiences so Cloud Run's IAM check accepts it as well.
  deterministic_service_url = "https://${local.service_name}-${data.google_project.this.number}.${var.region}.run.app"
  push_audience             = coalesce(var.push_audience, local.deterministic_service_url)

  vpc_egress_enabled = var.vpc_network != null || var.vpc_subnetwork != null

  # The ClickHouse VM (clickhouse_vm.tf) serves HTTPS on 8443 on its reserved internal address
  # (which exists only with the VM, so it is read only in that branch). A given URL loses a
  # trailing slash: the service and the tables job append paths to it.
  clickhouse_url = var.create_clickhouse_vm ? "https://${google_compute_address.clickhouse[0].address}:${local.clickhouse_vm_port}" : (var.clickhouse_url == null ? null : trimsuffix(var.clickhouse_url, "/"))

  # The service answers every push a little before Pub/Sub stops waiting for it (the ack deadline
  # is also the push request timeout): a 503 that arrives is a retry, an answer that arrives late
  # is a redelivery while the first delivery may still be written. 1 s margin at the 10 s minimum,
  # 5 s from a 50 s deadline up.
  answer_margin_ms  = min(5000, var.ack_deadline_seconds * 100)
  answer_timeout_ms = coalesce(var.answer_timeout_ms, var.ack_deadline_seconds * 1000 - local.answer_margin_ms)

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
    CREATE_DEAD_LETTER_TABLE   = var.create_dead_letter_table == null ? null : tostring(var.create_dead_letter_table)
    DEAD_LETTER_TOPIC          = var.service_dead_letter_publishing ? google_pubsub_topic.dead_letter.id : null
    BATCH_MAX_ROWS             = var.batch_max_rows == null ? null : tostring(var.batch_max_rows)
    BATCH_MAX_BYTES            = var.batch_max_bytes == null ? null : tostring(var.batch_max_bytes)
    BATCH_MAX_WAIT_MS          = var.batch_max_wait_ms == null ? null : tostring(var.batch_max_wait_ms)
    ANSWER_TIMEOUT_MS          = tostring(local.answer_timeout_ms)
    MAX_INSERT_BLOCK_SIZE      = var.max_insert_block_size == null ? null : tostring(var.max_insert_block_size)
    MAX_RETRIES                = var.max_retries == null ? null : tostring(var.max_retries)
    INSERT_DEDUPLICATE         = var.insert_deduplicate == null ? null : tostring(var.insert_deduplicate)
    INSERT_QUORUM              = var.insert_quorum == null ? null : tostring(var.insert_quorum)
    INSERT_DISTRIBUTED_SYNC    = var.insert_distributed_sync == null ? null : tostring(var.insert_distributed_sync)
    ASYNC_INSERT               = var.async_insert == null ? null : tostring(var.async_insert)
    CLICKHOUSE_SETTINGS        = var.clickhouse_settings
    CLICKHOUSE_TABLES          = length(var.clickhouse_tables) == 0 ? null : join(",", var.clickhouse_tables)
    CLICKHOUSE_TABLE_ATTRIBUTE = var.clickhouse_table_attribute
    SCHEMA_EVOLUTION           = var.schema_evolution
    UNKNOWN_FIELDS_COLUMN      = var.unknown_fields_column
    PUSH_UNWRAPPED             = var.push_unwrapped ? "true" : null
    PUSH_AUDIENCE              = var.verify_push_token ? local.push_audience : null
    # Without the in-app check Cloud Run's IAM (run.invoker, held by the push identity only) guards
    # the service, as intended here: this silences the start-up warning that says so.
    PUSH_AUTH            = var.verify_push_token ? null : "none"
    PUSH_SERVICE_ACCOUNT = var.verify_push_token ? google_service_account.push.email : null
    GOOGLE_CLOUD_PROJECT = var.project_id
    # Metrics pushed by the service itself (no sidecar); the Telemetry API takes OTLP/HTTP.
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = var.export_metrics_otlp ? "https://telemetry.googleapis.com/v1/metrics" : null
    # service.name becomes the series' job label (monitoring.tf selects on it); the sidecar labels
    # its series service_name instead.
    OTEL_RESOURCE_ATTRIBUTES = var.export_metrics_otlp ? "cloud.region=${var.region},service.name=${local.service_name}" : null
  })
  # The CA certificate secret, when there is one, is a file in both containers (run.tf, job.tf):
  # the one named, else the ClickHouse VM's own certificate (it signs nothing else, so trusting it
  # trusts exactly that server).
  clickhouse_ca_secret    = var.clickhouse_ca_certificate_secret != null ? var.clickhouse_ca_certificate_secret : (var.create_clickhouse_vm ? var.clickhouse_vm_tls_certificate_secret : null)
  clickhouse_ca_directory = "/etc/clickhouse-ca"
  clickhouse_ca_env       = local.clickhouse_ca_secret == null ? {} : { CLICKHOUSE_CA_CERT = "${local.clickhouse_ca_directory}/ca.pem" }

  service_env = merge({ for name, value in local.service_env_all : name => value if value != null }, local.clickhouse_ca_env, var.service_env)

  backfill_env_all = merge(local.clickhouse_env, {
    CLICKHOUSE_TABLE          = coalesce(var.backfill_clickhouse_table, var.clickhouse_table)
    INPUT_TABLE_SPEC          = var.backfill_input_table_spec
    QUERY                     = var.backfill_query
    OUTPUT_DEADLETTER_TABLE   = var.backfill_output_deadletter_table
    OUTPUT_DEADLETTER_DATASET = var.create_backfill_job ? "${var.project_id}:${google_bigquery_dataset.backfill_dead_letters[0].dataset_id}" : null
    GOOGLE_CLOUD_PROJECT      = var.project_id
  })
  backfill_env = merge({ for name, value in local.backfill_env_all : name => value if value != null }, local.clickhouse_ca_env, var.backfill_env)

  # BigQuery datasets as "PROJECT:DATASET": the ones the job reads (dataViewer each) and the one
  # holding an explicit outputDeadletterTable (dataEditor; the default dead-letter table is in
  # the job's own dataset, bigquery.tf). Nothing is granted project-wide but the two BigQuery
  # roles that have no dataset scope (readSessionUser, jobUser).
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
      "storage.googleapis.com",
    ],
    local.vpc_egress_enabled || var.create_clickhouse_vm ? ["compute.googleapis.com"] : [],
    var.export_metrics_otlp ? ["telemetry.googleapis.com"] : [],
  )
}

resource "google_project_service" "enabled" {
  for_each = var.enable_apis ? toset(local.required_apis) : toset([])

  project = var.project_id
  service = each.value
  # Leave the APIs on at destroy: other workloads in the project may use them.
  disable_on_destroy = false
}

# The Pub/Sub service agent of the project. On a new project it may not exist yet when the first
# grant to it runs; asking the Service Usage API for it creates it (and waits for it), after the
# Pub/Sub API is on.
resource "google_project_service_identity" "pubsub" {
  provider = google-beta

  project = var.project_id
  service = "pubsub.googleapis.com"

  depends_on = [google_project_service.enabled]
}
