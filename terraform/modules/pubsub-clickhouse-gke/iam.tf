# Identity and grants, one binding per resource and role (no authoritative policies). The pods
# hold no key: GKE's metadata server gives the Kubernetes service account the Google service
# account's tokens through Workload Identity (Autopilot has it on), so no key file exists to leak
# or rotate.

resource "google_service_account" "workload" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-gke"
  display_name = "Pub/Sub to ClickHouse pull workload on GKE"
  description  = "Acts for the Kubernetes service account ${var.namespace}/${local.kubernetes_sa_name} through Workload Identity."
}

# Only that one Kubernetes service account, in that namespace, may act as the account.
resource "google_service_account_iam_member" "workload_identity" {
  service_account_id = google_service_account.workload.name
  role               = "roles/iam.workloadIdentityUser"
  member             = local.kubernetes_sa_member
}

# Pull, ack, nack and extend deadlines on the one subscription.
resource "google_pubsub_subscription_iam_member" "workload_subscriber" {
  project      = local.subscription_project
  subscription = var.subscription
  role         = "roles/pubsub.subscriber"
  member       = google_service_account.workload.member
}

# The service publishes messages it cannot map to the dead-letter topic itself.
resource "google_pubsub_topic_iam_member" "workload_dead_letter_publisher" {
  count = var.dead_letter_topic == null ? 0 : 1

  project = split("/", var.dead_letter_topic)[1]
  topic   = var.dead_letter_topic
  role    = "roles/pubsub.publisher"
  member  = google_service_account.workload.member
}

# The service reads the password at start (CLICKHOUSE_PASSWORD_SECRET); nothing else can.
resource "google_secret_manager_secret_iam_member" "workload_password_accessor" {
  # The full name (projects/P/secrets/S) says the project.
  secret_id = local.password_secret
  role      = "roles/secretmanager.secretAccessor"
  member    = google_service_account.workload.member
}

# Metrics the service pushes over OTLP.
resource "google_project_iam_member" "workload_metric_writer" {
  count = var.export_metrics_otlp ? 1 : 0

  project = var.project_id
  role    = "roles/monitoring.metricWriter"
  member  = google_service_account.workload.member
}

resource "google_project_iam_member" "workload_telemetry_writer" {
  count = var.export_metrics_otlp ? 1 : 0

  project = var.project_id
  role    = "roles/telemetry.metricsWriter"
  member  = google_service_account.workload.member
}

# The scaler reads the subscription's backlog (pubsub.googleapis.com/subscription/
# num_undelivered_messages) from Cloud Monitoring in the subscription's project, as its own
# Kubernetes service account through Workload Identity: KEDA's operator, or the metrics adapter.
resource "google_project_iam_member" "scaler_monitoring_viewer" {
  project = local.subscription_project
  role    = "roles/monitoring.viewer"
  member  = local.scaler_member
}
