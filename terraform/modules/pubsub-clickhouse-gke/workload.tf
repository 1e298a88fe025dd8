# The pull-mode service on Arm pods: a namespace, the Kubernetes service account Workload Identity
# maps to the Google one, the Deployment and its PodDisruptionBudget.

resource "kubernetes_namespace_v1" "workload" {
  count = var.create_namespace ? 1 : 0

  metadata {
    name   = var.namespace
    labels = var.labels
  }
}

resource "kubernetes_service_account_v1" "workload" {
  metadata {
    name      = local.kubernetes_sa_name
    namespace = var.namespace
    labels    = local.labels
    annotations = {
      # Workload Identity: tokens of this Kubernetes service account are the Google account's.
      "iam.gke.io/gcp-service-account" = google_service_account.workload.email
    }
  }

  # The namespace exists first when this configuration makes it.
  depends_on = [kubernetes_namespace_v1.workload]
}

resource "kubernetes_deployment_v1" "ingest" {
  metadata {
    name      = local.app_name
    namespace = var.namespace
    labels    = local.labels
  }

  # The scaler owns the number of replicas from the first apply on; Terraform only starts it.
  wait_for_rollout = var.min_replicas > 0

  spec {
    replicas = var.min_replicas

    selector {
      match_labels = local.selector_labels
    }

    # One new pod at a time, none stopped before its successor pulls: a rollout never leaves the
    # subscription without a reader.
    strategy {
      type = "RollingUpdate"
      rolling_update {
        max_surge       = "1"
        max_unavailable = "0"
      }
    }

    template {
      metadata {
        labels = local.labels
      }

      spec {
        service_account_name             = kubernetes_service_account_v1.workload.metadata[0].name
        node_selector                    = local.node_selector
        termination_grace_period_seconds = local.termination_grace_period_seconds

        security_context {
          run_as_non_root = true
          run_as_user     = 65532
          run_as_group    = 65532
          seccomp_profile {
            type = "RuntimeDefault"
          }
        }

        container {
          name  = "ingest"
          image = var.image

          port {
            name           = "http"
            container_port = local.port
          }

          dynamic "env" {
            for_each = local.service_env
            content {
              name  = env.key
              value = env.value
            }
          }

          resources {
            requests = {
              cpu    = var.cpu
              memory = var.memory
            }
            limits = {
              cpu    = var.cpu
              memory = var.memory
            }
          }

          security_context {
            allow_privilege_escalation = false
            capabilities {
              drop = ["ALL"]
            }
          }

          # /livez: the process serves. Up to 2 minutes for the JVM to start.
          startup_probe {
            period_seconds    = 5
            timeout_seconds   = 3
            failure_threshold = 24
            http_get {
              path = "/livez"
              port = local.port
            }
          }

          # /livez does not depend on ClickHouse: a restart does not bring ClickHouse back, and
          # while ClickHouse is away the service nacks, so Pub/Sub redelivers.
          liveness_probe {
            period_seconds    = 30
            timeout_seconds   = 5
            failure_threshold = 5
            http_get {
              path = "/livez"
              port = local.port
            }
          }

          # /healthz: ClickHouse answers and the table is there. A pod that is not ready stops a
          # rollout (max_unavailable = 0) instead of replacing working pods with failing ones.
          readiness_probe {
            period_seconds    = 10
            timeout_seconds   = 5
            failure_threshold = 3
            http_get {
              path = "/healthz"
              port = local.port
            }
          }
        }
      }
    }
  }

  lifecycle {
    # The scaler's replica count, not Terraform's.
    ignore_changes = [spec[0].replicas]

    precondition {
      condition     = local.termination_grace_period_seconds > var.shutdown_grace_seconds
      error_message = "terminationGracePeriodSeconds must exceed SHUTDOWN_GRACE_SECONDS, or Kubernetes kills a pod that is still finishing its batches."
    }
  }

  depends_on = [
    google_service_account_iam_member.workload_identity,
    google_pubsub_subscription_iam_member.workload_subscriber,
    google_secret_manager_secret_iam_member.workload_password_accessor,
  ]
}

# Voluntary disruptions (node upgrades, Autopilot's bin-packing) take one pod at a time; each
# goes through the same graceful shutdown as a scale-in.
resource "kubernetes_pod_disruption_budget_v1" "ingest" {
  metadata {
    name      = local.app_name
    namespace = var.namespace
    labels    = local.labels
  }

  spec {
    max_unavailable = "1"
    selector {
      match_labels = local.selector_labels
    }
  }

  depends_on = [kubernetes_namespace_v1.workload]
}
