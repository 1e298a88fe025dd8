# The backfill: a Cloud Run Job that reads BigQuery (a table or a query) and inserts into the same
# ClickHouse table through the same encoder as the push service. Each execution can override the
# arguments: gcloud run jobs execute JOB --args=--inputTableSpec=project:dataset.table
#
# Like the service, the job runs the linux/amd64 entry of the multi-arch image.

resource "google_cloud_run_v2_job" "backfill" {
  count = var.create_backfill_job ? 1 : 0

  project             = var.project_id
  name                = local.job_name
  location            = var.region
  deletion_protection = var.deletion_protection
  labels              = var.labels

  dynamic "binary_authorization" {
    for_each = var.binary_authorization_policy == null ? [] : [var.binary_authorization_policy]
    content {
      use_default = binary_authorization.value == "default" ? true : null
      policy      = binary_authorization.value == "default" ? null : binary_authorization.value
    }
  }

  template {
    task_count = var.backfill_task_count
    # Null leaves it unset, which Cloud Run reads as "as many as possible": every task of an
    # execution at once, also when gcloud run jobs execute --tasks=N changes the count.
    parallelism = var.backfill_parallelism
    labels      = var.labels

    template {
      encryption_key        = var.kms_key_name
      service_account       = google_service_account.backfill[0].email
      max_retries           = var.backfill_max_retries
      timeout               = "${var.backfill_timeout_seconds}s"
      execution_environment = var.execution_environment

      dynamic "vpc_access" {
        for_each = local.vpc_egress_enabled ? [true] : []
        content {
          egress = var.vpc_egress
          network_interfaces {
            network    = var.vpc_network
            subnetwork = var.vpc_subnetwork
            tags       = var.vpc_network_tags
          }
        }
      }

      dynamic "volumes" {
        for_each = local.clickhouse_ca_secret == null ? [] : [local.clickhouse_ca_secret]
        content {
          name = "clickhouse-ca"
          secret {
            secret = volumes.value
            items {
              version = "latest"
              path    = "ca.pem"
            }
          }
        }
      }

      containers {
        name  = "backfill"
        image = local.backfill_image
        args  = var.backfill_args

        resources {
          limits = {
            cpu    = var.backfill_cpu
            memory = var.backfill_memory
          }
        }

        dynamic "env" {
          for_each = local.backfill_env
          content {
            name  = env.key
            value = env.value
          }
        }

        dynamic "volume_mounts" {
          for_each = local.clickhouse_ca_secret == null ? [] : [true]
          content {
            name       = "clickhouse-ca"
            mount_path = local.clickhouse_ca_directory
          }
        }

        env {
          name = "CLICKHOUSE_PASSWORD"
          value_source {
            secret_key_ref {
              secret  = google_secret_manager_secret.clickhouse_password.secret_id
              version = var.clickhouse_password_secret_version
            }
          }
        }
      }
    }
  }

  lifecycle {
    # One owner of the image, as for the service (run.tf): created with local.backfill_image, then
    # Cloud Build's (gcloud run jobs update, cloudbuild.yaml), which also stamps client and
    # client_version.
    ignore_changes = [client, client_version, template[0].template[0].containers[0].image]

    precondition {
      condition     = local.clickhouse_url != null
      error_message = "Set clickhouse_url, or create_clickhouse_vm = true to get one."
    }
  }

  depends_on = [
    google_project_service.enabled,
    google_secret_manager_secret_iam_member.backfill_password_accessor,
    google_secret_manager_secret_iam_member.backfill_ca_accessor,
    google_secret_manager_secret_version.clickhouse_password,
  ]
}
