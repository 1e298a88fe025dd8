# Inputs, grouped as the README's inputs table is. Every variable has a type and a description;
# ranges and enums are checked here so a bad value fails at plan time, not half-way through apply.

# ---------------------------------------------------------------------------------------------
# Project
# ---------------------------------------------------------------------------------------------

variable "project_id" {
  type        = string
  description = "ID of the Google Cloud project of the cluster, the service account and the grants."
}

variable "name_prefix" {
  type        = string
  description = "Prefix of the names this module gives: the Google service account (<name_prefix>-gke), the Kubernetes service account, Deployment, PodDisruptionBudget and scaler."
  default     = "pubsub-clickhouse"

  validation {
    # Service account ids are at most 30 characters and the suffix used is "-gke" (4).
    condition     = can(regex("^[a-z][a-z0-9-]{0,24}[a-z0-9]$", var.name_prefix))
    error_message = "name_prefix must be 2-26 characters: lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen."
  }
}

variable "labels" {
  type        = map(string)
  description = "Labels added to the Kubernetes objects (beside app.kubernetes.io/name and app.kubernetes.io/instance, which select the pods)."
  default     = {}
}

# ---------------------------------------------------------------------------------------------
# Workload (GKE Autopilot, Arm)
# ---------------------------------------------------------------------------------------------

variable "namespace" {
  type        = string
  description = "Kubernetes namespace of the workload. The Workload Identity binding names it, so it must be the namespace the pods run in."
  default     = "pubsub-clickhouse"

  validation {
    condition     = can(regex("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", var.namespace))
    error_message = "namespace must be a DNS label: at most 63 lowercase letters, digits and hyphens."
  }
}

variable "create_namespace" {
  type        = bool
  description = "Create the namespace. Off when it exists already (created by a platform team or another configuration)."
  default     = true
}

variable "image" {
  type        = string
  description = "The service image, by digest (REGION-docker.pkg.dev/PROJECT/REPOSITORY/pubsub-clickhouse-function@sha256:...): the multi-arch image cloudbuild.yaml builds; Arm nodes pull its linux/arm64 entry."

  validation {
    condition     = can(regex("@sha256:[0-9a-f]{64}$", var.image))
    error_message = "image must name a digest (...@sha256:<64 hex digits>): a tag can move under running pods."
  }
}

variable "arm_machine_family" {
  type        = string
  description = "Arm machine series the pods run on (node selector cloud.google.com/machine-family): c4a is Google Axion; t2a is Ampere Altra. Null: kubernetes.io/arch=arm64 alone, which Autopilot places on C4A from GKE 1.31.3-gke.1056000."
  default     = "c4a"

  validation {
    condition     = var.arm_machine_family == null || contains(["c4a", "t2a"], coalesce(var.arm_machine_family, "-"))
    error_message = "arm_machine_family must be c4a, t2a or null."
  }
}

variable "compute_class" {
  type        = string
  description = "Autopilot compute class (node selector cloud.google.com/compute-class). Null: Autopilot packs the pods on shared Arm nodes. \"Performance\": one dedicated node per pod, billed by the node. \"Scale-Out\": T2A nodes, so only with arm_machine_family t2a or null."
  default     = null

  validation {
    condition     = var.compute_class == null || contains(["Performance", "Scale-Out"], coalesce(var.compute_class, "-"))
    error_message = "compute_class must be Performance, Scale-Out or null."
  }

  # Autopilot's Scale-Out class has T2A as its only Arm series: with C4A asked for as well, no
  # node fits the selector and the pods stay Pending.
  validation {
    condition     = var.compute_class != "Scale-Out" || var.arm_machine_family == null || var.arm_machine_family == "t2a"
    error_message = "compute_class Scale-Out places Arm pods on T2A only: set arm_machine_family to t2a or null."
  }
}

variable "cpu" {
  type        = string
  description = "CPU each pod requests (and is limited to: Autopilot sets limits to the requests). Autopilot bills the requests."
  default     = "1"

  validation {
    condition     = can(regex("^([0-9]+|[0-9]+m|[0-9]*\\.[0-9]+)$", var.cpu))
    error_message = "cpu must be a Kubernetes CPU quantity such as 1, 500m or 0.5."
  }
}

variable "memory" {
  type        = string
  description = "Memory each pod requests and is limited to. The JVM takes half of it for the heap (-XX:MaxRAMPercentage=50 in the image). Autopilot wants 1 to 6.5 GiB per vCPU."
  default     = "2Gi"

  validation {
    condition     = can(regex("^[0-9]+(Mi|Gi)$", var.memory))
    error_message = "memory must be a quantity in Mi or Gi, such as 2Gi."
  }
}

# ---------------------------------------------------------------------------------------------
# Pub/Sub
# ---------------------------------------------------------------------------------------------

variable "subscription" {
  type        = string
  description = "The pull subscription the pods read, projects/PROJECT/subscriptions/NAME (PUBSUB_SUBSCRIPTION). Give it a retry policy (a minimum backoff of a few seconds, so a nack is not delivered again at once) and a dead-letter policy: a message the service keeps nacking then leaves after max_delivery_attempts."

  validation {
    condition     = can(regex("^projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/subscriptions/[A-Za-z][A-Za-z0-9._~+%-]{2,254}$", var.subscription))
    error_message = "subscription must be projects/PROJECT/subscriptions/NAME."
  }
}

variable "dead_letter_topic" {
  type        = string
  description = "Topic the service publishes messages it cannot map to (DEAD_LETTER_TOPIC, projects/P/topics/T); the workload's account gets roles/pubsub.publisher on it. Null: none."
  default     = null

  validation {
    condition     = var.dead_letter_topic == null || can(regex("^projects/[^/]+/topics/[^/]+$", coalesce(var.dead_letter_topic, "-")))
    error_message = "dead_letter_topic must be projects/PROJECT/topics/NAME or null."
  }
}

# ---------------------------------------------------------------------------------------------
# ClickHouse
# ---------------------------------------------------------------------------------------------

variable "clickhouse_url" {
  type        = string
  description = "https://host:8443 (or http://host:8123 inside a private network) of the ClickHouse HTTP interface."

  validation {
    condition     = can(regex("^https?://", var.clickhouse_url))
    error_message = "clickhouse_url must start with https:// or http://."
  }
}

variable "clickhouse_database" {
  type        = string
  description = "Database of the target table."
  default     = "realtime"
}

variable "clickhouse_table" {
  type        = string
  description = "Target table."
}

variable "clickhouse_user" {
  type        = string
  description = "ClickHouse user the service logs in as."
  default     = "default"
}

variable "clickhouse_password_secret" {
  type        = string
  description = "Secret Manager version that holds the password, projects/P/secrets/S/versions/V (CLICKHOUSE_PASSWORD_SECRET): the service reads it at start as its Google service account; the secret gets one accessor grant. The Cloud Run module's output clickhouse_password_secret names such a secret."

  validation {
    condition     = can(regex("^projects/[^/]+/secrets/[^/]+/versions/[^/]+$", var.clickhouse_password_secret))
    error_message = "clickhouse_password_secret must be projects/P/secrets/S/versions/V."
  }
}

variable "clickhouse_dead_letter_table" {
  type        = string
  description = "Dead-letter table for rows that do not map (CLICKHOUSE_DEAD_LETTER_TABLE). Null: none."
  default     = null
}

# ---------------------------------------------------------------------------------------------
# Application
# ---------------------------------------------------------------------------------------------

variable "service_env" {
  type        = map(string)
  description = "More environment variables of the service (docs/configuration.md), such as BATCH_MAX_ROWS or MAX_PENDING_MESSAGES; they override the ones this module sets."
  default     = {}
}

variable "export_metrics_otlp" {
  type        = bool
  description = "The service pushes its metrics to Cloud Monitoring over OTLP (the Telemetry API) as its Google service account, which then holds roles/monitoring.metricWriter and roles/telemetry.metricsWriter."
  default     = false
}

variable "metrics_region" {
  type        = string
  description = "With export_metrics_otlp: the region the metrics say they come from (OTEL_RESOURCE_ATTRIBUTES cloud.region), their location in Cloud Monitoring; usually the cluster's region."
  default     = null

  validation {
    condition     = !var.export_metrics_otlp || var.metrics_region != null
    error_message = "metrics_region is required with export_metrics_otlp: Cloud Monitoring takes the metrics' location from it."
  }
}

variable "shutdown_grace_seconds" {
  type        = number
  description = "SHUTDOWN_GRACE_SECONDS: on SIGTERM the service stops pulling, finishes its batches, acks or nacks, and exits within this many seconds (at least 5)."
  default     = 25

  validation {
    condition     = var.shutdown_grace_seconds >= 5 && var.shutdown_grace_seconds <= 3600 && floor(var.shutdown_grace_seconds) == var.shutdown_grace_seconds
    error_message = "shutdown_grace_seconds must be a whole number from 5 to 3600 (what the service accepts)."
  }
}

variable "termination_margin_seconds" {
  type        = number
  description = "Seconds Kubernetes waits after the service's own grace before it kills the pod: terminationGracePeriodSeconds = shutdown_grace_seconds + this."
  default     = 10

  validation {
    condition     = var.termination_margin_seconds >= 5 && var.termination_margin_seconds <= 120
    error_message = "termination_margin_seconds must be between 5 and 120."
  }
}

# ---------------------------------------------------------------------------------------------
# Scaling on the subscription's backlog
# ---------------------------------------------------------------------------------------------

variable "scaler" {
  type        = string
  description = "Engine that scales the Deployment on the subscription's undelivered messages: \"hpa\" (a HorizontalPodAutoscaler on the external metric pubsub.googleapis.com|subscription|num_undelivered_messages, served by the Custom Metrics Stackdriver Adapter; at least one replica) or \"keda\" (KEDA's gcp-pubsub scaler, which KEDA announced deprecated on 2025-09-15 but still ships; scales to zero). Either engine is installed in the cluster once, before the first apply: see the README."
  default     = "hpa"

  validation {
    condition     = contains(["keda", "hpa"], var.scaler)
    error_message = "scaler must be keda or hpa."
  }
}

variable "min_replicas" {
  type        = number
  description = "Fewest pods. 0 (keda only): no pod while the subscription is empty; the first message then waits for a pod to start (an Arm node may have to be provisioned first: a minute or more)."
  default     = 1

  validation {
    condition     = var.min_replicas >= 0 && var.min_replicas <= 100 && (var.min_replicas >= 1 || var.scaler == "keda")
    error_message = "min_replicas must be between 0 and 100, and at least 1 with scaler = \"hpa\" (a HorizontalPodAutoscaler does not scale to zero)."
  }
}

variable "max_replicas" {
  type        = number
  description = "Most pods."
  default     = 10

  validation {
    condition     = var.max_replicas >= 1 && var.max_replicas <= 1000 && var.max_replicas >= var.min_replicas
    error_message = "max_replicas must be between 1 and 1000 and at least min_replicas."
  }
}

variable "backlog_per_replica" {
  type        = number
  description = "Undelivered messages per pod the scaler aims at: replicas = ceil(num_undelivered_messages / this)."
  default     = 5000

  validation {
    condition     = var.backlog_per_replica >= 1
    error_message = "backlog_per_replica must be at least 1."
  }
}

variable "keda_operator_principal" {
  type        = string
  description = "With scaler = \"keda\": the Kubernetes service account of KEDA's operator, NAMESPACE/NAME, which reads the backlog from Cloud Monitoring through Workload Identity (roles/monitoring.viewer on the project). The Helm chart's default is keda/keda-operator."
  default     = "keda/keda-operator"

  validation {
    condition     = can(regex("^[a-z0-9-]+/[a-z0-9-]+$", var.keda_operator_principal))
    error_message = "keda_operator_principal must be NAMESPACE/NAME."
  }
}

variable "metrics_adapter_principal" {
  type        = string
  description = "With scaler = \"hpa\": the Kubernetes service account of the Custom Metrics Stackdriver Adapter, NAMESPACE/NAME, which gets roles/monitoring.viewer on the project. Its manifest's default is custom-metrics/custom-metrics-stackdriver-adapter."
  default     = "custom-metrics/custom-metrics-stackdriver-adapter"

  validation {
    condition     = can(regex("^[a-z0-9-]+/[a-z0-9-]+$", var.metrics_adapter_principal))
    error_message = "metrics_adapter_principal must be NAMESPACE/NAME."
  }
}
