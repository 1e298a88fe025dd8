# Identities and grants, one binding per resource and role (no authoritative policies, so grants
# made outside this configuration survive). No grant goes to a public principal: every caller of
# the service carries a Google-signed OIDC token of the push service account.

# --- Service accounts ---------------------------------------------------------------------------

resource "google_service_account" "service" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-run"
  display_name = "Pub/Sub to ClickHouse push service"
  description  = "Runs the Cloud Run service ${local.service_name}."

  depends_on = [google_project_service.enabled]
}

# Pub/Sub signs the push requests' OIDC tokens as this account; it can do nothing but invoke.
resource "google_service_account" "push" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-push"
  display_name = "Pub/Sub push identity for ${local.service_name}"
  description  = "Identity in the OIDC token of the push subscription; holds only run.invoker on the service."

  depends_on = [google_project_service.enabled]
}

resource "google_service_account" "backfill" {
  count = var.create_backfill_job ? 1 : 0

  project      = var.project_id
  account_id   = "${var.name_prefix}-backfill"
  display_name = "BigQuery to ClickHouse backfill job"
  description  = "Runs the Cloud Run Job ${local.job_name}."

  depends_on = [google_project_service.enabled]
}

# --- Push authentication ------------------------------------------------------------------------

# The only principal that may invoke the service.
resource "google_cloud_run_v2_service_iam_member" "push_invoker" {
  project  = google_cloud_run_v2_service.ingest.project
  location = google_cloud_run_v2_service.ingest.location
  name     = google_cloud_run_v2_service.ingest.name
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.push.email}"
}

# The Pub/Sub service agent mints the push account's OIDC tokens. Projects made since April 2021
# get this implicitly; granting it on this one account keeps older projects working without a
# project-wide token-creator grant.
resource "google_service_account_iam_member" "push_token_creator_pubsub_agent" {
  service_account_id = google_service_account.push.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_service_agent
}

# --- Pub/Sub service agent: native dead-lettering -------------------------------------------------

# Forward messages that exhausted max_delivery_attempts to the dead-letter topic...
resource "google_pubsub_topic_iam_member" "dead_letter_publisher_pubsub_agent" {
  topic  = google_pubsub_topic.dead_letter.id
  role   = "roles/pubsub.publisher"
  member = local.pubsub_service_agent
}

# ...and acknowledge them on the push subscription once forwarded. A new filter (or topic) replaces
# the subscription under the same id: the grant died with the old one, and Terraform would not see
# a change in its own arguments, so a change of either re-creates it too. Not the whole
# subscription: every in-place change of it would re-create the grant as well.
resource "google_pubsub_subscription_iam_member" "push_subscriber_pubsub_agent" {
  subscription = google_pubsub_subscription.push.id
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_service_agent

  lifecycle {
    replace_triggered_by = [google_pubsub_subscription.push.filter, google_pubsub_subscription.push.topic]
  }
}

# --- The service's own account --------------------------------------------------------------------

# The service publishes messages it cannot map (with errorMessage and failedAt attributes) to the
# dead-letter topic itself, instead of waiting for max_delivery_attempts.
resource "google_pubsub_topic_iam_member" "dead_letter_publisher_service" {
  count = var.service_dead_letter_publishing ? 1 : 0

  topic  = google_pubsub_topic.dead_letter.id
  role   = "roles/pubsub.publisher"
  member = "serviceAccount:${google_service_account.service.email}"
}

# Messages of a topic with a schema name its revision; the service fetches it to decode them.
resource "google_pubsub_schema_iam_member" "schema_viewer_service" {
  for_each = toset(var.topic_schemas)

  project = split("/", each.value)[1]
  schema  = each.value
  role    = "roles/pubsub.viewer"
  member  = "serviceAccount:${google_service_account.service.email}"
}

# No logWriter: Cloud Run itself sends the containers' stdout and stderr to Cloud Logging,
# whatever the runtime account may do. metricWriter only when the application's metrics are
# written as this account: pushed over OTLP by the service, or by the Prometheus sidecar.
resource "google_project_iam_member" "service_metric_writer" {
  count = var.export_metrics_otlp || var.enable_managed_prometheus ? 1 : 0

  project = var.project_id
  role    = "roles/monitoring.metricWriter"
  member  = "serviceAccount:${google_service_account.service.email}"
}

# The Telemetry API's own role, for the metrics the service pushes over OTLP.
resource "google_project_iam_member" "service_telemetry_writer" {
  count = var.export_metrics_otlp ? 1 : 0

  project = var.project_id
  role    = "roles/telemetry.metricsWriter"
  member  = "serviceAccount:${google_service_account.service.email}"
}

# --- The backfill job's account -------------------------------------------------------------------

# Storage Read API sessions (the job reads tables through the BigQuery Storage Read API) and query
# jobs run in this project; neither role has a dataset scope.
resource "google_project_iam_member" "backfill_read_session_user" {
  count = var.create_backfill_job ? 1 : 0

  project = var.project_id
  role    = "roles/bigquery.readSessionUser"
  member  = "serviceAccount:${google_service_account.backfill[0].email}"
}

resource "google_project_iam_member" "backfill_job_user" {
  count = var.create_backfill_job ? 1 : 0

  project = var.project_id
  role    = "roles/bigquery.jobUser"
  member  = "serviceAccount:${google_service_account.backfill[0].email}"
}

# Read access on the source datasets only, never on the project.
resource "google_bigquery_dataset_iam_member" "backfill_source_viewer" {
  for_each = var.create_backfill_job ? local.backfill_read_datasets : toset([])

  project    = split(":", each.value)[0]
  dataset_id = split(":", each.value)[1]
  role       = "roles/bigquery.dataViewer"
  member     = "serviceAccount:${google_service_account.backfill[0].email}"
}

# Write access on the dataset of an explicit outputDeadletterTable, where rejected rows are kept
# (the default one is in the job's own dataset, bigquery.tf).
resource "google_bigquery_dataset_iam_member" "backfill_deadletter_editor" {
  count = var.create_backfill_job && local.backfill_deadletter_dataset != null ? 1 : 0

  project    = split(":", local.backfill_deadletter_dataset)[0]
  dataset_id = split(":", local.backfill_deadletter_dataset)[1]
  role       = "roles/bigquery.dataEditor"
  member     = "serviceAccount:${google_service_account.backfill[0].email}"
}
