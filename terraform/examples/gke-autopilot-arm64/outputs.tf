output "ingest_topic" {
  description = "Full id of the ingest topic (projects/P/topics/T); publish here."
  value       = google_pubsub_topic.ingest.id
}

output "subscription" {
  description = "The pull subscription the pods read (PUBSUB_SUBSCRIPTION)."
  value       = google_pubsub_subscription.ingest.id
}

output "dead_letter_topic" {
  description = "Full id of the dead-letter topic."
  value       = google_pubsub_topic.dead_letter.id
}

output "service_account_email" {
  description = "Google service account the pods act as through Workload Identity."
  value       = module.pubsub_clickhouse_gke.service_account_email
}

output "deployment" {
  description = "NAMESPACE/NAME of the Deployment."
  value       = "${module.pubsub_clickhouse_gke.namespace}/${module.pubsub_clickhouse_gke.deployment_name}"
}
