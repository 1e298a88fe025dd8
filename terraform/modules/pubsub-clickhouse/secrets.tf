# The ClickHouse password lives in Secret Manager, never in the Terraform state: Terraform writes
# var.clickhouse_password as a write-only value, or, with set_clickhouse_password = false, the
# version is added with
#   printf '%s' "$PASSWORD" | gcloud secrets versions add SECRET_ID --data-file=-

resource "google_secret_manager_secret" "clickhouse_password" {
  project   = var.project_id
  secret_id = local.password_secret_id
  labels    = var.labels

  replication {
    user_managed {
      replicas {
        location = var.region

        dynamic "customer_managed_encryption" {
          for_each = var.kms_key_name == null ? [] : [var.kms_key_name]
          content {
            kms_key_name = customer_managed_encryption.value
          }
        }
      }
    }
  }

  depends_on = [google_project_service.enabled]
}

# The password as a write-only value from an ephemeral variable: sent to Secret Manager, kept in
# neither the state nor the plan. With set_clickhouse_password = false the secret waits for a
# version added with gcloud.
resource "google_secret_manager_secret_version" "clickhouse_password" {
  count = var.set_clickhouse_password ? 1 : 0

  project                = var.project_id
  secret                 = google_secret_manager_secret.clickhouse_password.id
  secret_data_wo         = var.clickhouse_password
  secret_data_wo_version = var.clickhouse_password_version

  lifecycle {
    precondition {
      condition     = var.clickhouse_password != null
      error_message = "Set clickhouse_password, or set_clickhouse_password = false and add the secret's version yourself."
    }
  }
}

resource "google_secret_manager_secret_iam_member" "service_password_accessor" {
  secret_id = google_secret_manager_secret.clickhouse_password.id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.service.email}"
}

resource "google_secret_manager_secret_iam_member" "backfill_password_accessor" {
  count = var.create_backfill_job ? 1 : 0

  secret_id = google_secret_manager_secret.clickhouse_password.id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.backfill[0].email}"
}

# The optional CA certificate (clickhouse_ca_certificate_secret, or the ClickHouse VM's
# certificate): a secret you create and fill (a certificate is not a secret, but Secret Manager is
# how Cloud Run mounts a file).
resource "google_secret_manager_secret_iam_member" "service_ca_accessor" {
  count = local.clickhouse_ca_secret == null ? 0 : 1

  project   = var.project_id
  secret_id = local.clickhouse_ca_secret
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.service.email}"
}

resource "google_secret_manager_secret_iam_member" "backfill_ca_accessor" {
  count = local.clickhouse_ca_secret != null && var.create_backfill_job ? 1 : 0

  project   = var.project_id
  secret_id = local.clickhouse_ca_secret
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.backfill[0].email}"
}
