# Replicas follow the subscription's backlog, num_undelivered_messages in Cloud Monitoring, through
# an engine installed once per cluster (README: who installs what): a HorizontalPodAutoscaler on
# the external metric the Custom Metrics Stackdriver Adapter serves, or KEDA's gcp-pubsub scaler.
# Either way replicas = ceil(backlog / backlog_per_replica), between min_replicas and max_replicas.
# Scaling in sends SIGTERM to a pod: it stops pulling, finishes its batches, acks or nacks, and
# exits within terminationGracePeriodSeconds (workload.tf).

locals {
  # Scale out at once; scale in by at most one pod a minute after five quiet minutes, so a
  # backlog that drains in waves (Pub/Sub redelivers nacked messages later) keeps its readers.
  scale_down_stabilization_seconds = 300
}

resource "kubernetes_horizontal_pod_autoscaler_v2" "ingest" {
  count = var.scaler == "hpa" ? 1 : 0

  metadata {
    name      = local.app_name
    namespace = var.namespace
    labels    = local.labels
  }

  spec {
    min_replicas = var.min_replicas
    max_replicas = var.max_replicas

    scale_target_ref {
      api_version = "apps/v1"
      kind        = "Deployment"
      name        = kubernetes_deployment_v1.ingest.metadata[0].name
    }

    metric {
      type = "External"
      external {
        metric {
          name = "pubsub.googleapis.com|subscription|num_undelivered_messages"
          # The adapter reads the cluster's project unless the selector names the one the
          # subscription (and so its metric) lives in.
          selector {
            match_labels = {
              "resource.labels.project_id"      = local.subscription_project
              "resource.labels.subscription_id" = local.subscription_name
            }
          }
        }
        target {
          type          = "AverageValue"
          average_value = tostring(var.backlog_per_replica)
        }
      }
    }

    behavior {
      scale_down {
        stabilization_window_seconds = local.scale_down_stabilization_seconds
        select_policy                = "Max"
        policy {
          type           = "Pods"
          value          = 1
          period_seconds = 60
        }
      }
    }
  }
}

# KEDA reads Cloud Monitoring as its operator's own Kubernetes service account (podIdentity gcp:
# Workload Identity, iam.tf grants it monitoring.viewer); no key is stored in the cluster.
resource "kubernetes_manifest" "keda_trigger_authentication" {
  count = var.scaler == "keda" ? 1 : 0

  manifest = {
    apiVersion = "keda.sh/v1alpha1"
    kind       = "TriggerAuthentication"
    metadata = {
      name      = "${local.app_name}-gcp"
      namespace = var.namespace
      labels    = local.labels
    }
    spec = {
      podIdentity = {
        provider = "gcp"
      }
    }
  }
}

resource "kubernetes_manifest" "keda_scaled_object" {
  count = var.scaler == "keda" ? 1 : 0

  manifest = {
    apiVersion = "keda.sh/v1alpha1"
    kind       = "ScaledObject"
    metadata = {
      name      = local.app_name
      namespace = var.namespace
      labels    = local.labels
    }
    spec = {
      scaleTargetRef = {
        apiVersion = "apps/v1"
        kind       = "Deployment"
        name       = kubernetes_deployment_v1.ingest.metadata[0].name
      }
      minReplicaCount = var.min_replicas
      maxReplicaCount = var.max_replicas
      pollingInterval = 30
      # With min_replicas = 0: the last pod goes this long after the backlog reached zero.
      cooldownPeriod = local.scale_down_stabilization_seconds
      advanced = {
        horizontalPodAutoscalerConfig = {
          behavior = {
            scaleDown = {
              stabilizationWindowSeconds = local.scale_down_stabilization_seconds
              policies = [{
                type          = "Pods"
                value         = 1
                periodSeconds = 60
              }]
            }
          }
        }
      }
      triggers = [{
        type = "gcp-pubsub"
        metadata = {
          subscriptionName = var.subscription
          mode             = "SubscriptionSize"
          value            = tostring(var.backlog_per_replica)
          activationValue  = "0"
        }
        authenticationRef = {
          name = kubernetes_manifest.keda_trigger_authentication[0].manifest.metadata.name
        }
      }]
    }
  }
}
