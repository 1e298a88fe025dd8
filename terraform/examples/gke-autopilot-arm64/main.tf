# Pub/Sub -> a pull subscriber on Arm (Axion) pods of an existing GKE Autopilot cluster -> an
# existing ClickHouse. This root module makes the topics, the pull subscription with its
# dead-letter policy and the password secret, and calls the GKE module for the workload.

provider "google" {
  project = var.project_id
  region  = var.region
}

data "google_project" "this" {
  project_id = var.project_id
}

# The cluster, made beforehand (gcloud container clusters create-auto): the kubernetes provider
# needs its endpoint at plan time, which a cluster created in the same apply cannot give.
data "google_container_cluster" "autopilot" {
  project  = var.project_id
  name     = var.cluster_name
  location = var.region
}

data "google_client_config" "current" {}

provider "kubernetes" {
  host                   = "https://${data.google_container_cluster.autopilot.endpoint}"
  token                  = data.google_client_config.current.access_token
  cluster_ca_certificate = base64decode(data.google_container_cluster.autopilot.master_auth[0].cluster_ca_certificate)
}

locals {
  # Pub/Sub's service agent forwards to the dead-letter topic and acks what it forwarded.
  pubsub_service_agent = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"
}

resource "google_pubsub_topic" "ingest" {
  project = var.project_id
  name    = "${var.name_prefix}-ingest"
}

resource "google_pubsub_topic" "dead_letter" {
  project = var.project_id
  name    = "${var.name_prefix}-dead-letter"
}

# A pull subscription: the pods pull, nothing is pushed, no endpoint is public.
resource "google_pubsub_subscription" "ingest" {
  project              = var.project_id
  name                 = "${var.name_prefix}-pull"
  topic                = google_pubsub_topic.ingest.id
  ack_deadline_seconds = 60

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = 20
  }

  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }

  expiration_policy {
    ttl = ""
  }
}

resource "google_pubsub_topic_iam_member" "dead_letter_publisher_pubsub_agent" {
  topic  = google_pubsub_topic.dead_letter.id
  role   = "roles/pubsub.publisher"
  member = local.pubsub_service_agent
}

resource "google_pubsub_subscription_iam_member" "subscriber_pubsub_agent" {
  subscription = google_pubsub_subscription.ingest.id
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_service_agent
}

# The password: written to Secret Manager as a write-only value (kept in neither the state nor
# the plan); the service reads it at start through CLICKHOUSE_PASSWORD_SECRET.
resource "google_secret_manager_secret" "clickhouse_password" {
  project   = var.project_id
  secret_id = "${var.name_prefix}-clickhouse-password"

  replication {
    user_managed {
      replicas {
        location = var.region
      }
    }
  }
}

resource "google_secret_manager_secret_version" "clickhouse_password" {
  secret                 = google_secret_manager_secret.clickhouse_password.id
  secret_data_wo         = var.clickhouse_password
  secret_data_wo_version = var.clickhouse_password_version
}

module "pubsub_clickhouse_gke" {
  source = "../../modules/pubsub-clickhouse-gke"

  project_id  = var.project_id
  name_prefix = var.name_prefix
  image       = var.image

  subscription      = google_pubsub_subscription.ingest.id
  dead_letter_topic = google_pubsub_topic.dead_letter.id

  clickhouse_url             = var.clickhouse_url
  clickhouse_database        = var.clickhouse_database
  clickhouse_table           = var.clickhouse_table
  clickhouse_user            = var.clickhouse_user
  clickhouse_password_secret = "${google_secret_manager_secret.clickhouse_password.id}/versions/${google_secret_manager_secret_version.clickhouse_password.version}"

  scaler       = var.scaler
  min_replicas = var.min_replicas
  max_replicas = var.max_replicas
}
