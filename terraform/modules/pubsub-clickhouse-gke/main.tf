# Names, the pods' environment and scheduling, computed once. The resources live in one file per
# concern: iam.tf (identity and grants), workload.tf (namespace, service account, Deployment,
# PodDisruptionBudget) and scaling.tf (KEDA or a HorizontalPodAutoscaler).

data "google_project" "this" {
  project_id = var.project_id
}

locals {
  app_name = var.name_prefix

  # The labels that select the pods: the Deployment, the PodDisruptionBudget and nothing else.
  selector_labels = {
    "app.kubernetes.io/name"     = "pubsub-clickhouse"
    "app.kubernetes.io/instance" = local.app_name
  }
  labels = merge(var.labels, local.selector_labels)

  # Workload Identity: the pods' Kubernetes service account acts as the Google service account.
  workload_identity_pool = "${var.project_id}.svc.id.goog"
  kubernetes_sa_name     = local.app_name
  kubernetes_sa_member   = "serviceAccount:${local.workload_identity_pool}[${var.namespace}/${local.kubernetes_sa_name}]"

  # A principal of the pool (a scaler's own Kubernetes service account), for a project-level grant.
  pool_subject_prefix = "principal://iam.googleapis.com/projects/${data.google_project.this.number}/locations/global/workloadIdentityPools/${local.workload_identity_pool}/subject"
  scaler_principal    = var.scaler == "keda" ? var.keda_operator_principal : var.metrics_adapter_principal
  scaler_member       = "${local.pool_subject_prefix}/ns/${split("/", local.scaler_principal)[0]}/sa/${split("/", local.scaler_principal)[1]}"

  subscription_project = split("/", var.subscription)[1]
  subscription_name    = split("/", var.subscription)[3]
  # projects/P/secrets/S of projects/P/secrets/S/versions/V: what the accessor grant is on.
  password_secret = join("/", slice(split("/", var.clickhouse_password_secret), 0, 4))

  # Arm nodes: kubernetes.io/arch=arm64 is what Autopilot needs to place a pod on Arm (and to add
  # the toleration of the Arm nodes' taint); the machine family pins the series (C4A: Axion), the
  # compute class asks for a node per pod.
  node_selector = merge(
    { "kubernetes.io/arch" = "arm64" },
    var.arm_machine_family == null ? {} : { "cloud.google.com/machine-family" = var.arm_machine_family },
    var.compute_class == null ? {} : { "cloud.google.com/compute-class" = var.compute_class },
  )

  # Kubernetes sends SIGTERM, then SIGKILL this many seconds later: after the service's own grace
  # (stop pulling, finish the batches, ack or nack, exit), so the kill never cuts a batch short.
  termination_grace_period_seconds = var.shutdown_grace_seconds + var.termination_margin_seconds

  port = 8080

  # Null values are dropped below, so an unset variable leaves the application's default.
  service_env_all = {
    PUBSUB_SUBSCRIPTION          = var.subscription
    PORT                         = tostring(local.port)
    SHUTDOWN_GRACE_SECONDS       = tostring(var.shutdown_grace_seconds)
    CLICKHOUSE_URL               = var.clickhouse_url
    CLICKHOUSE_DATABASE          = var.clickhouse_database
    CLICKHOUSE_TABLE             = var.clickhouse_table
    CLICKHOUSE_USER              = var.clickhouse_user
    CLICKHOUSE_PASSWORD_SECRET   = var.clickhouse_password_secret
    CLICKHOUSE_DEAD_LETTER_TABLE = var.clickhouse_dead_letter_table
    DEAD_LETTER_TOPIC            = var.dead_letter_topic
    GOOGLE_CLOUD_PROJECT         = var.project_id
    # Metrics pushed by the service itself; cloud.region is their location in Cloud Monitoring,
    # service.name becomes the series' job label.
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = var.export_metrics_otlp ? "https://telemetry.googleapis.com/v1/metrics" : null
    OTEL_RESOURCE_ATTRIBUTES            = var.export_metrics_otlp ? "cloud.region=${var.metrics_region},service.name=${local.app_name}" : null
  }
  service_env = merge({ for name, value in local.service_env_all : name => value if value != null }, var.service_env)
}
