# What docs/deploy.md's commands read with terraform output -raw.

output "service_name" {
  description = "Name of the Cloud Run service (cloudbuild.yaml's _SERVICE)."
  value       = module.pubsub_clickhouse.service_name
}

output "service_url" {
  description = "URL of the Cloud Run service (the push endpoint)."
  value       = module.pubsub_clickhouse.service_url
}

output "ingest_topic_name" {
  description = "Short name of the ingest topic, for gcloud pubsub topics publish."
  value       = module.pubsub_clickhouse.ingest_topic_name
}

output "dead_letter_subscription" {
  description = "Pull subscription on the dead-letter topic: pull to inspect, republish to replay."
  value       = module.pubsub_clickhouse.dead_letter_subscription
}

output "backfill_job_name" {
  description = "Name of the backfill Cloud Run Job (cloudbuild.yaml's _JOB)."
  value       = module.pubsub_clickhouse.backfill_job_name
}

output "backfill_dead_letter_dataset" {
  description = "The backfill job's dead-letter dataset (PROJECT:DATASET)."
  value       = module.pubsub_clickhouse.backfill_dead_letter_dataset
}

output "clickhouse_password_secret" {
  description = "Secret Manager secret id of the ClickHouse password; add versions with gcloud secrets versions add."
  value       = module.pubsub_clickhouse.clickhouse_password_secret
}

output "artifact_registry_repository" {
  description = "Docker repository for the images (REGION-docker.pkg.dev/PROJECT/REPOSITORY)."
  value       = module.pubsub_clickhouse.artifact_registry_repository
}

output "service_account_email" {
  description = "Service account the Cloud Run service runs as."
  value       = module.pubsub_clickhouse.service_account_email
}

output "backfill_service_account_email" {
  description = "Service account the backfill job runs as."
  value       = module.pubsub_clickhouse.backfill_service_account_email
}

output "clickhouse_url" {
  description = "CLICKHOUSE_URL of the VM that the service and the job use."
  value       = module.pubsub_clickhouse.clickhouse_url
}

output "clickhouse_vm_backup_bucket" {
  description = "Cloud Storage bucket of the VM's scheduled backups."
  value       = module.pubsub_clickhouse.clickhouse_vm_backup_bucket
}

output "answer_timeout_ms" {
  description = "ANSWER_TIMEOUT_MS the service gets (below the ack deadline)."
  value       = module.pubsub_clickhouse.answer_timeout_ms
}

output "build_service_account_email" {
  description = "Service account the builds run as (gcloud builds submit --service-account)."
  value       = module.pubsub_clickhouse.build_service_account_email
}

output "build_source_bucket" {
  description = "Bucket the builds' sources are uploaded to (gcloud builds submit --gcs-source-staging-dir=gs://BUCKET/source)."
  value       = module.pubsub_clickhouse.build_source_bucket
}
