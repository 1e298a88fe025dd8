output "service_url" {
  description = "URL of the Cloud Run service (the push endpoint)."
  value       = google_cloud_run_v2_service.ingest.uri
}

output "service_name" {
  description = "Name of the Cloud Run service (cloudbuild.yaml's _SERVICE)."
  value       = google_cloud_run_v2_service.ingest.name
}

output "push_audience" {
  description = "Audience of the push OIDC token (PUSH_AUDIENCE when verify_push_token is on)."
  value       = local.push_audience
}

output "ingest_topic" {
  description = "Full id of the ingest topic (projects/P/topics/T); publish here."
  value       = google_pubsub_topic.ingest.id
}

output "ingest_topic_name" {
  description = "Short name of the ingest topic, for gcloud pubsub topics publish."
  value       = google_pubsub_topic.ingest.name
}

output "push_subscription" {
  description = "Name of the push subscription that feeds the service."
  value       = google_pubsub_subscription.push.name
}

output "dead_letter_topic" {
  description = "Full id of the dead-letter topic (also the service's DEAD_LETTER_TOPIC)."
  value       = google_pubsub_topic.dead_letter.id
}

output "dead_letter_subscription" {
  description = "Name of the pull subscription on the dead-letter topic: pull to inspect, republish to replay."
  value       = google_pubsub_subscription.dead_letter.name
}

output "backfill_job_name" {
  description = "Name of the backfill Cloud Run Job (cloudbuild.yaml's _JOB); null when create_backfill_job is false."
  value       = one(google_cloud_run_v2_job.backfill[*].name)
}

output "service_account_email" {
  description = "Service account the Cloud Run service runs as."
  value       = google_service_account.service.email
}

output "push_service_account_email" {
  description = "Service account in the push OIDC token; the only holder of run.invoker on the service."
  value       = google_service_account.push.email
}

output "backfill_dead_letter_dataset" {
  description = "The backfill job's dead-letter dataset (PROJECT:DATASET, OUTPUT_DEADLETTER_DATASET); null when create_backfill_job is false."
  value       = var.create_backfill_job ? "${var.project_id}:${google_bigquery_dataset.backfill_dead_letters[0].dataset_id}" : null
}

output "answer_timeout_ms" {
  description = "ANSWER_TIMEOUT_MS the service gets: every push is answered this long after it arrives at the latest, before the subscription's ack deadline."
  value       = tonumber(local.service_env["ANSWER_TIMEOUT_MS"])
}

output "outage_budget_seconds" {
  description = "About how long a ClickHouse outage the push subscription rides out before Pub/Sub dead-letters a message: the retry policy's waits between max_delivery_attempts attempts, doubling from minimum_backoff_seconds up to maximum_backoff_seconds (approximate: Pub/Sub adds jitter). Replay what was dead-lettered with replay.jar subscription."
  value       = local.outage_budget_seconds
}

output "oldest_unacked_alert_seconds" {
  description = "Age of the push subscription's oldest unacknowledged message at which the backlog alert fires; null when create_monitoring is false."
  value       = var.create_monitoring ? local.oldest_unacked_alert_seconds : null
}

output "backfill_service_account_email" {
  description = "Service account the backfill job runs as; null when create_backfill_job is false."
  value       = one(google_service_account.backfill[*].email)
}

output "clickhouse_password_secret" {
  description = "Secret Manager secret id of the ClickHouse password; add versions to it with gcloud secrets versions add."
  value       = google_secret_manager_secret.clickhouse_password.secret_id
}

output "artifact_registry_repository" {
  description = "Docker repository path for the images (REGION-docker.pkg.dev/PROJECT/REPOSITORY); null when create_artifact_registry is false."
  value       = var.create_artifact_registry ? "${var.region}-docker.pkg.dev/${var.project_id}/${google_artifact_registry_repository.images[0].repository_id}" : null
}

output "clickhouse_url" {
  description = "CLICKHOUSE_URL the service and job use."
  value       = local.clickhouse_url
}

output "clickhouse_vm_internal_ip" {
  description = "Internal address of the ClickHouse VM; null when create_clickhouse_vm is false."
  value       = one(google_compute_address.clickhouse[*].address)
}

output "clickhouse_vm_backup_bucket" {
  description = "Cloud Storage bucket the ClickHouse VM's scheduled backups go to (gs://BUCKET/<time>/<database>/); null when create_clickhouse_vm is false."
  value       = one(google_storage_bucket.clickhouse_backups[*].name)
}

output "dashboard_id" {
  description = "Id of the Cloud Monitoring dashboard; null when create_monitoring is false."
  value       = one(google_monitoring_dashboard.pipeline[*].id)
}

output "build_service_account_email" {
  description = "Service account the builds run as, the apply's and every roll-out (gcloud builds submit --service-account=projects/PROJECT/serviceAccounts/EMAIL)."
  value       = google_service_account.build.email
}

output "build_source_bucket" {
  description = "Bucket the builds' sources are uploaded to, which the build account may read (gcloud builds submit --gcs-source-staging-dir=gs://BUCKET/source)."
  value       = google_storage_bucket.build_sources.name
}

output "service_image" {
  description = "Image, by digest, the service was created with (later images are the build's)."
  value       = local.service_image
}
