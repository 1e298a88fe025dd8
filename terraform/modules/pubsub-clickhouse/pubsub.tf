# The ingest topic, the push subscription that feeds the Cloud Run service, and the dead-letter
# topic with a pull subscription where failed messages wait for inspection and replay.

resource "google_pubsub_topic" "ingest" {
  project      = var.project_id
  name         = local.topic_name
  labels       = var.labels
  kms_key_name = var.kms_key_name

  depends_on = [google_project_service.enabled]
}

resource "google_pubsub_topic" "dead_letter" {
  project      = var.project_id
  name         = "${local.topic_name}-dead-letter"
  labels       = var.labels
  kms_key_name = var.kms_key_name

  depends_on = [google_project_service.enabled]
}

# Messages published to a topic without a subscription are lost, so the dead-letter topic always
# has this one. Nothing consumes it automatically: pull to inspect, republish to replay
# (docs/deploy.md, "Operate").
resource "google_pubsub_subscription" "dead_letter" {
  project = var.project_id
  name    = "${local.topic_name}-dead-letter-pull"
  topic   = google_pubsub_topic.dead_letter.id
  labels  = var.labels

  ack_deadline_seconds       = 60
  message_retention_duration = "${var.dead_letter_retention_seconds}s"
  retain_acked_messages      = false

  expiration_policy {
    ttl = ""
  }
}

locals {
  # How long a ClickHouse outage the push subscription rides out before Pub/Sub dead-letters a
  # message, approximately: while ClickHouse is down the service answers 503 at once, and Pub/Sub
  # waits before each redelivery, doubling from minimum_backoff up to maximum_backoff. This is the
  # sum of the waits between max_delivery_attempts attempts; Pub/Sub adds jitter and its own push
  # backoff, so the real time is about this or somewhat longer.
  outage_budget_seconds = sum(concat([0], [
    for attempt in range(var.max_delivery_attempts - 1) :
    min(var.minimum_backoff_seconds * pow(2, attempt), var.maximum_backoff_seconds)
  ]))
}

resource "google_pubsub_subscription" "push" {
  project = var.project_id
  name    = "${local.topic_name}-push"
  topic   = google_pubsub_topic.ingest.id
  labels  = var.labels

  ack_deadline_seconds       = var.ack_deadline_seconds
  message_retention_duration = "${var.message_retention_seconds}s"
  filter                     = var.subscription_filter

  push_config {
    push_endpoint = google_cloud_run_v2_service.ingest.uri

    oidc_token {
      service_account_email = google_service_account.push.email
      audience              = local.push_audience
    }

    dynamic "no_wrapper" {
      for_each = var.push_unwrapped ? [true] : []
      content {
        write_metadata = true
      }
    }
  }

  retry_policy {
    minimum_backoff = "${var.minimum_backoff_seconds}s"
    maximum_backoff = "${var.maximum_backoff_seconds}s"
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = var.max_delivery_attempts
  }

  # Never expire for inactivity: a quiet week must not delete the pipeline.
  expiration_policy {
    ttl = ""
  }

  lifecycle {
    precondition {
      condition     = var.maximum_backoff_seconds >= var.minimum_backoff_seconds
      error_message = "maximum_backoff_seconds must not be below minimum_backoff_seconds."
    }
  }

  # Dead-lettering and the push token need the service agent's grants in place first.
  depends_on = [
    google_pubsub_topic_iam_member.dead_letter_publisher_pubsub_agent,
    google_service_account_iam_member.push_token_creator_pubsub_agent,
    google_cloud_run_v2_service_iam_member.push_invoker,
  ]
}

# A new filter replaces the push subscription: the new one starts empty, and the messages the old
# one still held are gone. Terraform cannot compare with the stored filter in a precondition, so
# this reads the live subscription and says so in the plan (a warning; on the first apply the
# subscription does not exist yet and the read fails, also a warning). To keep the backlog, drain
# it first (oldest_unacked_age near zero) or create a second subscription and retire the first.
check "push_subscription_keeps_its_backlog" {
  data "google_pubsub_subscription" "live" {
    project = var.project_id
    name    = google_pubsub_subscription.push.name
  }

  assert {
    condition     = data.google_pubsub_subscription.live.filter == coalesce(var.subscription_filter, "")
    error_message = "subscription_filter differs from the live subscription's filter: this apply replaces the push subscription, and every message in its backlog is dropped. Drain it first, or create a new subscription beside it."
  }
}
