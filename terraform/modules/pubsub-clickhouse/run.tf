# The push endpoint: a Cloud Run service running the function image.
#
# Architecture: google_cloud_run_v2_service has no CPU-architecture argument (provider 7.x);
# Cloud Run runs the linux/amd64 entry of the image's manifest list. The linux/arm64 entry of the
# same image serves on Axion: the C4A VM of clickhouse_vm.tf, GKE Axion node pools, any arm64 VM.

resource "google_cloud_run_v2_service" "ingest" {
  project             = var.project_id
  name                = local.service_name
  location            = var.region
  ingress             = var.ingress
  deletion_protection = var.deletion_protection
  labels              = var.labels
  custom_audiences    = [local.push_audience]

  dynamic "binary_authorization" {
    for_each = var.binary_authorization_policy == null ? [] : [var.binary_authorization_policy]
    content {
      use_default = binary_authorization.value == "default" ? true : null
      policy      = binary_authorization.value == "default" ? null : binary_authorization.value
    }
  }

  template {
    encryption_key                   = var.kms_key_name
    service_account                  = google_service_account.service.email
    max_instance_request_concurrency = var.max_instance_request_concurrency
    timeout                          = "${var.request_timeout_seconds}s"
    execution_environment            = var.execution_environment
    labels                           = var.labels

    scaling {
      min_instance_count = var.service_min_instances
      max_instance_count = var.service_max_instances
    }

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
      name  = "ingest"
      image = local.service_image

      ports {
        container_port = 8080
      }

      resources {
        limits = {
          cpu    = var.service_cpu
          memory = var.service_memory
        }
        cpu_idle          = var.cpu_idle
        startup_cpu_boost = var.startup_cpu_boost
      }

      dynamic "env" {
        for_each = local.service_env
        content {
          name  = env.key
          value = env.value
        }
      }

      # Cloud Run resolves the secret and injects its value; the application reads it from
      # CLICKHOUSE_PASSWORD like a plain variable and never sees the secret's name.
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

      # By default /livez: the process serves. A revision then becomes ready on the first apply
      # even while ClickHouse (the optional VM is still installing) or the table is missing; until
      # they answer, /healthz says why and pushes get 503, which Pub/Sub retries. Up to 2 minutes
      # for the JVM.
      startup_probe {
        initial_delay_seconds = 0
        period_seconds        = 5
        timeout_seconds       = 3
        failure_threshold     = 24
        http_get {
          path = var.startup_probe_path
          port = 8080
        }
      }

      # /livez does not depend on ClickHouse: a restart does not bring ClickHouse back, and while
      # ClickHouse is away the service already answers 503 so Pub/Sub redelivers.
      dynamic "liveness_probe" {
        for_each = var.liveness_probe_path == null ? [] : [var.liveness_probe_path]
        content {
          initial_delay_seconds = 0
          period_seconds        = 30
          timeout_seconds       = 5
          failure_threshold     = 5
          http_get {
            path = liveness_probe.value
            port = 8080
          }
        }
      }
    }

    # Managed Service for Prometheus: its default configuration scrapes :8080/metrics every
    # 30 s and writes prometheus.googleapis.com/<metric>/<kind>.
    dynamic "containers" {
      for_each = var.enable_managed_prometheus ? [var.prometheus_sidecar_image] : []
      content {
        name       = "collector"
        image      = containers.value
        depends_on = ["ingest"]
        resources {
          limits = {
            cpu    = "1"
            memory = "512Mi"
          }
        }
      }
    }
  }

  lifecycle {
    # One owner of the image: Terraform creates the service with local.service_image (registry.tf),
    # and from then on Cloud Build deploys new images by digest (gcloud run deploy,
    # cloudbuild.yaml), which stamps client and client_version. A later apply keeps the deployed image and changes everything else.
    ignore_changes = [client, client_version, template[0].containers[0].image]

    precondition {
      condition     = local.clickhouse_url != null
      error_message = "Set clickhouse_url, or create_clickhouse_vm = true to get one."
    }
    precondition {
      condition     = !(var.export_metrics_otlp && var.enable_managed_prometheus)
      error_message = "Set at most one of export_metrics_otlp and enable_managed_prometheus: with both, every series is written twice."
    }
    precondition {
      condition     = !(var.verify_push_token && var.enable_managed_prometheus)
      error_message = "With verify_push_token the service serves no /metrics on its push port, where the sidecar scrapes: use export_metrics_otlp instead of enable_managed_prometheus."
    }
    precondition {
      condition     = var.request_timeout_seconds >= var.ack_deadline_seconds
      error_message = "request_timeout_seconds must be at least ack_deadline_seconds."
    }
    # The value the service gets, service_env overrides included: answered before the ack
    # deadline, and after the longest batch wait (1000 ms, the application's default, if unset).
    precondition {
      condition     = can(tonumber(local.service_env["ANSWER_TIMEOUT_MS"])) && try(tonumber(local.service_env["ANSWER_TIMEOUT_MS"]) < var.ack_deadline_seconds * 1000, false)
      error_message = "ANSWER_TIMEOUT_MS must be a number of milliseconds below ack_deadline_seconds * 1000, or Pub/Sub redelivers pushes the service still holds."
    }
    precondition {
      condition     = try(tonumber(local.service_env["ANSWER_TIMEOUT_MS"]) > tonumber(lookup(local.service_env, "BATCH_MAX_WAIT_MS", "1000")), false)
      error_message = "ANSWER_TIMEOUT_MS must be above BATCH_MAX_WAIT_MS, or a batched push times out before its batch is written."
    }
  }

  # The tables exist before the first revision takes a push (tables.tf).
  depends_on = [
    google_project_service.enabled,
    google_cloud_run_v2_job.create_tables,
    google_secret_manager_secret_iam_member.service_password_accessor,
    google_secret_manager_secret_iam_member.service_ca_accessor,
    google_secret_manager_secret_version.clickhouse_password,
  ]
}
