# The tables, made by the apply itself: a one-shot Cloud Run job that sends each statement of
# clickhouse_ddl to ClickHouse's HTTP interface (one statement a request, which is what it takes),
# as the service's ClickHouse user with the password from the secret. run_execution_token makes the
# apply start an execution and wait until it succeeds, and a new token (the statements' hash) runs
# it again when they change; the service is created after it (run.tf), so its first revision
# finds the tables. The ClickHouse VM applies the same files itself at every boot instead.

locals {
  # Each file's statements, without their comments (whole lines or trailing ones, which may hold
  # semicolons), split at the semicolons that end them.
  module_ddl = flatten([
    for file in ["logs.sql", "dead_letter_table.sql"] : [
      for statement in split(";", replace(file("${path.module}/../../../sql/${file}"), "/--.*/", "")) :
      trimspace(statement) if trimspace(statement) != ""
    ]
  ])
  clickhouse_ddl = coalesce(var.clickhouse_ddl, local.module_ddl)
  create_tables  = var.create_tables && !var.create_clickhouse_vm
}

resource "google_cloud_run_v2_job" "create_tables" {
  count    = local.create_tables ? 1 : 0
  provider = google-beta

  project             = var.project_id
  name                = "${local.service_name}-tables"
  location            = var.region
  deletion_protection = false
  labels              = var.labels
  run_execution_token = substr(sha256(join(";", local.clickhouse_ddl)), 0, 16)

  template {
    task_count = 1

    template {
      service_account       = google_service_account.service.email
      max_retries           = 3
      timeout               = "300s"
      execution_environment = var.execution_environment
      encryption_key        = var.kms_key_name

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
        name    = "tables"
        image   = var.tables_job_image
        command = ["/bin/sh", "-c"]
        # templates/create-tables.sh: the login in a header on curl's standard input, never on a
        # command line; a failure to reach ClickHouse says what usually causes it.
        args = [file("${path.module}/templates/create-tables.sh")]

        env {
          name  = "CLICKHOUSE_URL"
          value = local.clickhouse_url
        }
        env {
          name  = "CLICKHOUSE_USER"
          value = var.clickhouse_user
        }
        dynamic "env" {
          for_each = local.clickhouse_ca_env
          content {
            name  = env.key
            value = env.value
          }
        }
        env {
          name  = "DDL_COUNT"
          value = tostring(length(local.clickhouse_ddl))
        }
        dynamic "env" {
          for_each = local.clickhouse_ddl
          content {
            name  = "DDL_${env.key}"
            value = env.value
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

        dynamic "volume_mounts" {
          for_each = local.clickhouse_ca_secret == null ? [] : [true]
          content {
            name       = "clickhouse-ca"
            mount_path = local.clickhouse_ca_directory
          }
        }
      }
    }
  }

  # After the apply's build (build.tf), whose minutes let the secret grants take effect.
  depends_on = [
    google_project_service.enabled,
    terraform_data.images,
    google_secret_manager_secret_iam_member.service_password_accessor,
    google_secret_manager_secret_iam_member.service_ca_accessor,
    google_secret_manager_secret_version.clickhouse_password,
  ]
}
