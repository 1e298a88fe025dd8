# Inputs, grouped as the README's inputs table is. Every variable has a type and a description;
# ranges and enums are checked here so a bad value fails at plan time, not half-way through apply.

# ---------------------------------------------------------------------------------------------
# Project
# ---------------------------------------------------------------------------------------------

variable "project_id" {
  type        = string
  description = "ID of the Google Cloud project that holds every resource."
}

variable "region" {
  type        = string
  description = "Region of the Cloud Run service and job, the Artifact Registry repository and the secret's replica."
  default     = "us-central1"
}

variable "name_prefix" {
  type        = string
  description = "Prefix of every resource name (topics, subscriptions, service, job, service accounts)."
  default     = "pubsub-clickhouse"

  validation {
    # Service account ids are at most 30 characters and the longest suffix used is "-backfill" (9).
    condition     = can(regex("^[a-z][a-z0-9-]{0,19}[a-z0-9]$", var.name_prefix))
    error_message = "name_prefix must be 2-21 characters: lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen."
  }
}

variable "labels" {
  type        = map(string)
  description = "Labels added to every resource that takes labels."
  default     = {}
}

variable "enable_apis" {
  type        = bool
  description = "Enable the Google APIs this configuration needs (google_project_service). Turn off when the project's APIs are managed elsewhere."
  default     = true
}

# ---------------------------------------------------------------------------------------------
# Pub/Sub
# ---------------------------------------------------------------------------------------------

variable "topic_name" {
  type        = string
  description = "Name of the ingest topic. Null: \"<name_prefix>-ingest\"."
  default     = null
}

variable "ack_deadline_seconds" {
  type        = number
  description = "Ack deadline of the push subscription, which is also the push request timeout. The service answers every push before it (ANSWER_TIMEOUT_MS, see answer_timeout_ms), so Pub/Sub never redelivers a message the service still holds."
  default     = 60

  validation {
    condition     = var.ack_deadline_seconds >= 10 && var.ack_deadline_seconds <= 600
    error_message = "ack_deadline_seconds must be between 10 and 600."
  }
}

variable "max_delivery_attempts" {
  type        = number
  description = "Delivery attempts before Pub/Sub forwards a message to the dead-letter topic."
  default     = 20

  validation {
    condition     = var.max_delivery_attempts >= 5 && var.max_delivery_attempts <= 100
    error_message = "max_delivery_attempts must be between 5 and 100."
  }
}

variable "minimum_backoff_seconds" {
  type        = number
  description = "Retry policy: shortest delay before a nacked message is redelivered."
  default     = 10

  validation {
    condition     = var.minimum_backoff_seconds >= 0 && var.minimum_backoff_seconds <= 600
    error_message = "minimum_backoff_seconds must be between 0 and 600."
  }
}

variable "maximum_backoff_seconds" {
  type        = number
  description = "Retry policy: longest delay before a nacked message is redelivered. Must not be below minimum_backoff_seconds."
  default     = 600

  validation {
    condition     = var.maximum_backoff_seconds >= 0 && var.maximum_backoff_seconds <= 600
    error_message = "maximum_backoff_seconds must be between 0 and 600."
  }
}

variable "answer_timeout_ms" {
  type        = number
  description = "ANSWER_TIMEOUT_MS: a push not answered by then gets 503 (Pub/Sub retries it). Must be below ack_deadline_seconds * 1000 and above the batch wait. Null: the ack deadline less a margin (1 s at 10 s, 5 s from 50 s up)."
  default     = null

  validation {
    condition     = var.answer_timeout_ms == null || try(var.answer_timeout_ms >= 100 && var.answer_timeout_ms <= 600000, false)
    error_message = "answer_timeout_ms must be between 100 and 600000."
  }
}

variable "message_retention_seconds" {
  type        = number
  description = "How long the push subscription keeps unacknowledged messages."
  default     = 604800

  validation {
    condition     = var.message_retention_seconds >= 600 && var.message_retention_seconds <= 2678400
    error_message = "message_retention_seconds must be between 600 (10 minutes) and 2678400 (31 days)."
  }
}

variable "dead_letter_retention_seconds" {
  type        = number
  description = "How long the dead-letter pull subscription keeps messages for inspection and replay."
  default     = 604800

  validation {
    condition     = var.dead_letter_retention_seconds >= 600 && var.dead_letter_retention_seconds <= 2678400
    error_message = "dead_letter_retention_seconds must be between 600 (10 minutes) and 2678400 (31 days)."
  }
}

variable "subscription_filter" {
  type        = string
  description = "Optional Pub/Sub filter on message attributes (for example attributes.type = \"log\"). Pub/Sub acknowledges non-matching messages itself. Changing it replaces the subscription: its backlog is dropped (the plan warns, check push_subscription_keeps_its_backlog) and its grants are re-created with it."
  default     = null

  validation {
    condition     = var.subscription_filter == null || try(length(var.subscription_filter) <= 256, false)
    error_message = "subscription_filter must be at most 256 bytes."
  }
}

variable "push_unwrapped" {
  type        = bool
  description = "Push without the JSON envelope (push_config.no_wrapper with write_metadata = true): the body is the message data and metadata arrives in x-goog-pubsub-* headers. Also sets PUSH_UNWRAPPED=true on the service."
  default     = false
}

# ---------------------------------------------------------------------------------------------
# Cloud Run service (the push endpoint)
# ---------------------------------------------------------------------------------------------

variable "service_name" {
  type        = string
  description = "Name of the Cloud Run service. Null: name_prefix."
  default     = null
}

variable "service_image" {
  type        = string
  description = "Image the push service is created with, by digest or tag (its manifest list must include linux/amd64). Null: pubsub-clickhouse-function from the module's repository, by digest, the one the apply's build pushed (or image_tag names). Later images are Cloud Build's (deployed by digest): Terraform ignores changes of the image after the first apply."
  default     = null
}

variable "image_tag" {
  type        = string
  description = "Tag of images already pushed (a build run by hand tags with its build id) that the service and the job are created with, when service_image and backfill_image are null; the apply then builds nothing. Null: the tag of the apply's own build (build_images)."
  default     = null
}

variable "service_min_instances" {
  type        = number
  description = "Minimum number of instances. 0 lets the service scale to zero, and the first push after a quiet spell waits for a JVM to start (several seconds, shortened by startup_cpu_boost), which Pub/Sub sees as a slow answer or a retry. 1 keeps one instance warm (billed while idle) and suits a steady stream or a latency target."
  default     = 0

  validation {
    condition     = var.service_min_instances >= 0
    error_message = "service_min_instances must be 0 or more."
  }
}

variable "service_max_instances" {
  type        = number
  description = "Maximum number of instances. Bounds the number of concurrent INSERTs ClickHouse sees."
  default     = 10

  validation {
    condition     = var.service_max_instances >= 1
    error_message = "service_max_instances must be at least 1."
  }
}

variable "max_instance_request_concurrency" {
  type        = number
  description = "Push requests one instance serves at once. High values let the group-commit batcher fill batches."
  default     = 250

  validation {
    condition     = var.max_instance_request_concurrency >= 1 && var.max_instance_request_concurrency <= 1000
    error_message = "max_instance_request_concurrency must be between 1 and 1000."
  }
}

variable "service_cpu" {
  type        = string
  description = "CPU limit of the service container (Cloud Run syntax: \"1\", \"2\", \"4\", ...)."
  default     = "1"
}

variable "service_memory" {
  type        = string
  description = "Memory limit of the service container (for example \"512Mi\", \"1Gi\")."
  default     = "512Mi"

  validation {
    condition     = can(regex("^[0-9]+(Mi|Gi)$", var.service_memory))
    error_message = "service_memory must look like 512Mi or 2Gi."
  }
}

variable "cpu_idle" {
  type        = bool
  description = "Throttle CPU outside requests (request-based billing). Metrics are pushed (OTLP) or scraped (sidecar) on a timer outside requests, so a throttled instance may send them late or miss a scrape; set false (instance-based billing) when the metrics must arrive on time."
  default     = true
}

variable "startup_cpu_boost" {
  type        = bool
  description = "Give instances extra CPU while they start (shortens JVM start-up)."
  default     = true
}

variable "request_timeout_seconds" {
  type        = number
  description = "Cloud Run request timeout. Keep it at or above ack_deadline_seconds so Pub/Sub, not Cloud Run, ends a slow push."
  default     = 120

  validation {
    condition     = var.request_timeout_seconds >= 1 && var.request_timeout_seconds <= 3600
    error_message = "request_timeout_seconds must be between 1 and 3600."
  }
}

variable "execution_environment" {
  type        = string
  description = "Cloud Run execution environment."
  default     = "EXECUTION_ENVIRONMENT_GEN2"

  validation {
    condition     = contains(["EXECUTION_ENVIRONMENT_GEN1", "EXECUTION_ENVIRONMENT_GEN2"], var.execution_environment)
    error_message = "execution_environment must be EXECUTION_ENVIRONMENT_GEN1 or EXECUTION_ENVIRONMENT_GEN2."
  }
}

variable "ingress" {
  type        = string
  description = "Ingress of the service. INGRESS_TRAFFIC_INTERNAL_ONLY (the default) admits Pub/Sub push from a subscription in the same project or VPC Service Controls perimeter, which Cloud Run counts as internal (https://cloud.google.com/run/docs/securing/ingress), and nothing from the internet. INGRESS_TRAFFIC_ALL for a topic in another project; every caller still needs an OIDC token of the push account (run.invoker)."
  default     = "INGRESS_TRAFFIC_INTERNAL_ONLY"

  validation {
    condition     = contains(["INGRESS_TRAFFIC_ALL", "INGRESS_TRAFFIC_INTERNAL_ONLY", "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER"], var.ingress)
    error_message = "ingress must be INGRESS_TRAFFIC_ALL, INGRESS_TRAFFIC_INTERNAL_ONLY or INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER."
  }
}

variable "kms_key_name" {
  type        = string
  description = "Customer-managed encryption key (projects/P/locations/REGION/keyRings/R/cryptoKeys/K, in var.region) for the topics, the secret, the image repository, the Cloud Run service and job, the dead-letter dataset and the ClickHouse VM's disk and backup bucket. Each service's agent needs roles/cloudkms.cryptoKeyEncrypterDecrypter on it before the apply. Null: Google-managed keys."
  default     = null
}

variable "binary_authorization_policy" {
  type        = string
  description = "Binary Authorization for the service and the job: \"default\" enforces the project's policy, a name (projects/P/platforms/cloudRun/policies/NAME) that platform policy. Null: no Binary Authorization."
  default     = null
}

variable "deletion_protection" {
  type        = bool
  description = "Refuse to destroy the Cloud Run service and job (set false, apply, then destroy)."
  default     = true
}

variable "startup_probe_path" {
  type        = string
  description = "HTTP path of the startup probe on port 8080. /livez answers once the process serves, so a revision becomes ready while ClickHouse or the table is still missing (it answers pushes 503 until they are there). /healthz answers 200 only once ClickHouse and the table answer, and then must do so within the probe's 2 minutes."
  default     = "/livez"
}

variable "liveness_probe_path" {
  type        = string
  description = "HTTP path of the liveness probe on port 8080. /livez answers 200 while the process serves, whatever ClickHouse does. Null disables the liveness probe."
  default     = "/livez"
}

variable "vpc_network" {
  type        = string
  description = "VPC network for Direct VPC egress (name or self link). Null with vpc_subnetwork null: no VPC egress."
  default     = null
}

variable "vpc_subnetwork" {
  type        = string
  description = "Subnetwork (name, in var.region) for Direct VPC egress of the service and the job; Cloud Run takes its addresses from this range. Needed for a private ClickHouse and for create_clickhouse_vm."
  default     = null
}

variable "vpc_egress" {
  type        = string
  description = "Which traffic leaves through the VPC when Direct VPC egress is on."
  default     = "PRIVATE_RANGES_ONLY"

  validation {
    condition     = contains(["PRIVATE_RANGES_ONLY", "ALL_TRAFFIC"], var.vpc_egress)
    error_message = "vpc_egress must be PRIVATE_RANGES_ONLY or ALL_TRAFFIC."
  }
}

variable "vpc_network_tags" {
  type        = list(string)
  description = "Network tags on the Cloud Run service's and job's VPC interface (usable in firewall rules)."
  default     = []
}

variable "export_metrics_otlp" {
  type        = bool
  description = "Have the service push its metrics over OTLP to Google's Telemetry API (telemetry.googleapis.com), without a sidecar: sets OTEL_EXPORTER_OTLP_METRICS_ENDPOINT and OTEL_RESOURCE_ATTRIBUTES, enables the API and grants the service's account telemetry.metricsWriter and monitoring.metricWriter. The metrics keep their /metrics names under prometheus.googleapis.com/*."
  default     = true
}

variable "enable_managed_prometheus" {
  type        = bool
  description = "Add the Managed Service for Prometheus sidecar, which scrapes :8080/metrics every 30 s into prometheus.googleapis.com/*, and grant the service's account monitoring.metricWriter. An alternative to export_metrics_otlp (set export_metrics_otlp = false with it; the plan refuses both): it costs the sidecar's CPU."
  default     = false
}

variable "prometheus_sidecar_image" {
  type        = string
  description = "Image of the Managed Service for Prometheus sidecar for Cloud Run."
  default     = "us-docker.pkg.dev/cloud-ops-agents-artifacts/cloud-run-gmp-sidecar/cloud-run-gmp-sidecar:1.2.0"
}

# ---------------------------------------------------------------------------------------------
# Application configuration (environment of the service; the job shares the ClickHouse part)
# ---------------------------------------------------------------------------------------------

variable "clickhouse_url" {
  type        = string
  description = "CLICKHOUSE_URL: http(s)://host:port of ClickHouse's HTTP interface. Null with create_clickhouse_vm, which then supplies https://<vm address>:8443."
  default     = null

  validation {
    condition     = var.clickhouse_url == null || can(regex("^https?://[^/]+(:[0-9]+)?/?$", var.clickhouse_url))
    error_message = "clickhouse_url must be http(s)://host[:port]."
  }
}

variable "clickhouse_database" {
  type        = string
  description = "CLICKHOUSE_DATABASE: database of the target table."
  default     = "default"
}

variable "clickhouse_table" {
  type        = string
  description = "CLICKHOUSE_TABLE: the target table rows are inserted into."
}

variable "clickhouse_user" {
  type        = string
  description = "CLICKHOUSE_USER: ClickHouse user the service and job log in as."
  default     = "default"
}

variable "clickhouse_dead_letter_table" {
  type        = string
  description = "CLICKHOUSE_DEAD_LETTER_TABLE: dead-letter table (\"table\" or \"db.table\") for rows that do not map or coerce. Null: not set."
  default     = null
}

variable "clickhouse_tables" {
  type        = list(string)
  description = "CLICKHOUSE_TABLES: further tables (\"table\" or \"db.table\") a message may name in its clickhouse_table_attribute, so that one service writes several tables (one INSERT per table per batch). Empty: every message goes to clickhouse_table."
  default     = []

  validation {
    condition     = alltrue([for table in var.clickhouse_tables : can(regex("^[A-Za-z0-9_$-]+([.][A-Za-z0-9_$-]+)?$", table))])
    error_message = "clickhouse_tables holds table names: \"table\" or \"db.table\"."
  }
}

variable "clickhouse_table_attribute" {
  type        = string
  description = "CLICKHOUSE_TABLE_ATTRIBUTE: message attribute that names a message's table, one of clickhouse_tables; a message without it goes to clickhouse_table, one naming another table to the dead letters. Required with clickhouse_tables."
  default     = null
}

variable "schema_evolution" {
  type        = string
  description = "SCHEMA_EVOLUTION: \"off\", or \"add_columns\" to give a field no column takes a Nullable column typed from its value (the ClickHouse user needs the ALTER ADD COLUMN grant). Null: the application's default (off)."
  default     = null

  validation {
    condition     = var.schema_evolution == null || contains(["off", "add_columns"], coalesce(var.schema_evolution, "off"))
    error_message = "schema_evolution must be \"off\" or \"add_columns\"."
  }
}

variable "unknown_fields_column" {
  type        = string
  description = "UNKNOWN_FIELDS_COLUMN: column (String, JSON or Map(String, String)) that receives the fields no other column takes. Null: unknown fields are ignored."
  default     = null
}

variable "topic_schemas" {
  type        = list(string)
  description = "Pub/Sub schemas (projects/P/schemas/S) of the ingest topic's messages: the service's account may read them (roles/pubsub.viewer on each schema), to decode Avro and Protocol Buffers messages."
  default     = []
}

variable "create_dead_letter_table" {
  type        = bool
  description = "CREATE_DEAD_LETTER_TABLE: let the service create the dead-letter table at start. Null: not set (the application's default)."
  default     = null
}

variable "service_dead_letter_publishing" {
  type        = bool
  description = "Set DEAD_LETTER_TOPIC on the service to the dead-letter topic and let the service's account publish there, so rejected messages are forwarded at once (attributes errorMessage, failedAt) instead of after max_delivery_attempts."
  default     = true
}

variable "batch_max_rows" {
  type        = number
  description = "BATCH_MAX_ROWS: flush a batch at this many rows. Null: the application's default."
  default     = null

  validation {
    condition     = var.batch_max_rows == null || try(var.batch_max_rows >= 1, false)
    error_message = "batch_max_rows must be at least 1."
  }
}

variable "batch_max_bytes" {
  type        = number
  description = "BATCH_MAX_BYTES: flush a batch at this many encoded bytes. Null: the application's default."
  default     = null

  validation {
    condition     = var.batch_max_bytes == null || try(var.batch_max_bytes >= 1, false)
    error_message = "batch_max_bytes must be at least 1."
  }
}

variable "batch_max_wait_ms" {
  type        = number
  description = "BATCH_MAX_WAIT_MS: flush when the oldest waiting request has waited this long. Must stay well under ack_deadline_seconds. Null: the application's default."
  default     = null

  validation {
    condition     = var.batch_max_wait_ms == null || try(var.batch_max_wait_ms >= 0, false)
    error_message = "batch_max_wait_ms must be 0 or more."
  }
}

variable "max_insert_block_size" {
  type        = number
  description = "MAX_INSERT_BLOCK_SIZE: ClickHouse max_insert_block_size for the INSERTs. Null: not set."
  default     = null
}

variable "max_retries" {
  type        = number
  description = "MAX_RETRIES: bounded retries of a failed INSERT inside one request. Null: the application's default."
  default     = null

  validation {
    condition     = var.max_retries == null || try(var.max_retries >= 0, false)
    error_message = "max_retries must be 0 or more."
  }
}

variable "insert_deduplicate" {
  type        = bool
  description = "INSERT_DEDUPLICATE: ClickHouse insert_deduplicate. Null: not set."
  default     = null
}

variable "insert_quorum" {
  type        = number
  description = "INSERT_QUORUM: ClickHouse insert_quorum, the replicas that must have each INSERT before it is answered (0-100). Null: not set."
  default     = null

  validation {
    condition     = var.insert_quorum == null || (try(var.insert_quorum >= 0 && var.insert_quorum <= 100 && floor(var.insert_quorum) == var.insert_quorum, false))
    error_message = "insert_quorum is a whole number from 0 to 100 (the service reads no \"auto\")."
  }
}

variable "insert_distributed_sync" {
  type        = bool
  description = "INSERT_DISTRIBUTED_SYNC: ClickHouse insert_distributed_sync for Distributed tables. Null: not set."
  default     = null
}

variable "async_insert" {
  type        = bool
  description = "ASYNC_INSERT: ClickHouse async_insert. Null: not set."
  default     = null
}

variable "clickhouse_settings" {
  type        = string
  description = "CLICKHOUSE_SETTINGS: extra ClickHouse settings for every INSERT, \"key=value,key=value\". Null: not set."
  default     = null

  validation {
    condition     = var.clickhouse_settings == null || can(regex("^[A-Za-z0-9_]+=[^,]*(,[A-Za-z0-9_]+=[^,]*)*$", var.clickhouse_settings))
    error_message = "clickhouse_settings must be key=value pairs separated by commas."
  }
}

variable "verify_push_token" {
  type        = bool
  description = "Also verify the push OIDC token inside the application: sets PUSH_AUDIENCE and PUSH_SERVICE_ACCOUNT (off: PUSH_AUTH=none). Cloud Run's IAM check (run.invoker) applies either way. Its probes then tell no reason to callers without a token, and /metrics is not on the push port: not with enable_managed_prometheus."
  default     = false
}

variable "push_audience" {
  type        = string
  description = "Audience of the push OIDC token (and PUSH_AUDIENCE). Null: the service's deterministic URL https://<service>-<project number>.<region>.run.app, known before the service exists; it is also added to the service's custom audiences."
  default     = null
}

variable "service_env" {
  type        = map(string)
  description = "Extra environment variables of the service; they override the ones built from the variables above."
  default     = {}
}

# ---------------------------------------------------------------------------------------------
# ClickHouse password (Secret Manager)
# ---------------------------------------------------------------------------------------------

variable "clickhouse_password_secret_id" {
  type        = string
  description = "Secret Manager secret id of the ClickHouse password. Null: \"<name_prefix>-clickhouse-password\"."
  default     = null
}

variable "clickhouse_password_secret_version" {
  type        = string
  description = "Secret version injected as CLICKHOUSE_PASSWORD. \"latest\" is resolved when a revision (service) or execution (job) starts."
  default     = "latest"
}

variable "clickhouse_ca_certificate_secret" {
  type        = string
  description = "For an https:// clickhouse_url whose certificate a private CA signed (or a self-signed one): the ID of a Secret Manager secret in this project holding that PEM certificate. It is mounted at /etc/clickhouse-ca/ca.pem in the service and the job and named by CLICKHOUSE_CA_CERT. null: the JVM's trust store."
  default     = null

  validation {
    condition     = var.clickhouse_ca_certificate_secret == null || can(regex("^[A-Za-z0-9_-]{1,255}$", var.clickhouse_ca_certificate_secret))
    error_message = "clickhouse_ca_certificate_secret is a secret ID (letters, digits, _ and -), not a resource name."
  }
}

variable "clickhouse_password" {
  type        = string
  description = "ClickHouse password. Terraform adds it to the secret as a write-only value (Terraform 1.11+), and the variable is ephemeral: the password is sent to Secret Manager and kept in neither the state nor a saved plan (so terraform apply of a saved plan needs it again). Keep the tfvars file that holds it out of version control."
  default     = null
  sensitive   = true
  ephemeral   = true
}

variable "set_clickhouse_password" {
  type        = bool
  description = "Write clickhouse_password to the secret. False: add the version yourself (gcloud secrets versions add) before the service starts. A boolean of its own because an ephemeral value cannot decide what exists."
  default     = true
}

variable "clickhouse_password_version" {
  type        = number
  description = "Raise it to write a changed clickhouse_password as a new secret version (a write-only value cannot be compared with the stored one)."
  default     = 1
}

# ---------------------------------------------------------------------------------------------
# Artifact Registry
# ---------------------------------------------------------------------------------------------

variable "create_artifact_registry" {
  type        = bool
  description = "Create the Docker repository in Artifact Registry that Cloud Build pushes the images to."
  default     = true
}

variable "artifact_registry_repository_id" {
  type        = string
  description = "Id of the Artifact Registry Docker repository (cloudbuild.yaml's _REPOSITORY)."
  default     = "pubsub-clickhouse"
}

variable "build_images" {
  type        = bool
  description = "Build and push both images during the apply (cloudbuild.yaml, run by gcloud from the repository's root as the module's build account; needs gcloud where Terraform runs), before the service and the jobs are created, and again whenever their sources change. False: set image_tag, or service_image and backfill_image."
  default     = true
}

# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

variable "create_tables" {
  type        = bool
  description = "Run a one-shot Cloud Run job during the apply that sends clickhouse_ddl to ClickHouse, before the service is created; it runs again whenever the statements change. Not with create_clickhouse_vm, which applies them itself at every boot."
  default     = true
}

variable "clickhouse_ddl" {
  type        = list(string)
  description = "Statements the tables job sends, one per request, in order; each should be idempotent (IF NOT EXISTS). Null: those of sql/logs.sql and sql/dead_letter_table.sql (realtime.logs and realtime.logs_dead_letter)."
  default     = null
}

variable "tables_job_image" {
  type        = string
  description = "Image of the tables job: any image with sh and curl."
  default     = "docker.io/curlimages/curl:8.11.1"
}

# ---------------------------------------------------------------------------------------------
# Backfill job (BigQuery -> ClickHouse)
# ---------------------------------------------------------------------------------------------

variable "create_backfill_job" {
  type        = bool
  description = "Create the backfill Cloud Run Job and its service account."
  default     = true
}

variable "job_name" {
  type        = string
  description = "Name of the backfill Cloud Run Job. Null: \"<name_prefix>-backfill\"."
  default     = null
}

variable "backfill_image" {
  type        = string
  description = "Image the backfill job is created with. Null: pubsub-clickhouse-backfill from the module's repository, chosen as for service_image. Later images are Cloud Build's (gcloud run jobs update, by digest): Terraform ignores changes of the image after the first apply."
  default     = null
}

variable "backfill_task_count" {
  type        = number
  description = "Tasks per execution (CLOUD_RUN_TASK_COUNT); the job splits the BigQuery read across them."
  default     = 1

  validation {
    condition     = var.backfill_task_count >= 1 && var.backfill_task_count <= 10000
    error_message = "backfill_task_count must be between 1 and 10000."
  }
}

variable "backfill_parallelism" {
  type        = number
  description = "Tasks that run at once. Null: every task of an execution at once (Cloud Run's maximum, also for gcloud run jobs execute --tasks=N), within the project's quota."
  default     = null

  validation {
    condition     = var.backfill_parallelism == null || try(var.backfill_parallelism >= 1, false)
    error_message = "backfill_parallelism must be at least 1 (null: all tasks at once)."
  }
}

variable "backfill_max_retries" {
  type        = number
  description = "Retries of a failed task."
  default     = 3

  validation {
    condition     = var.backfill_max_retries >= 0 && var.backfill_max_retries <= 10
    error_message = "backfill_max_retries must be between 0 and 10."
  }
}

variable "backfill_timeout_seconds" {
  type        = number
  description = "Time limit of one task attempt."
  default     = 3600

  validation {
    condition     = var.backfill_timeout_seconds >= 1 && var.backfill_timeout_seconds <= 604800
    error_message = "backfill_timeout_seconds must be between 1 and 604800 (7 days)."
  }
}

variable "backfill_cpu" {
  type        = string
  description = "CPU limit of a backfill task."
  default     = "2"
}

variable "backfill_memory" {
  type        = string
  description = "Memory limit of a backfill task."
  default     = "2Gi"

  validation {
    condition     = can(regex("^[0-9]+(Mi|Gi)$", var.backfill_memory))
    error_message = "backfill_memory must look like 512Mi or 2Gi."
  }
}

variable "backfill_clickhouse_table" {
  type        = string
  description = "CLICKHOUSE_TABLE of the job. Null: clickhouse_table."
  default     = null
}

variable "backfill_input_table_spec" {
  type        = string
  description = "INPUT_TABLE_SPEC: BigQuery source table, PROJECT:DATASET.TABLE. The job's account gets dataViewer on that dataset. Null: not set (pass --inputTableSpec per execution)."
  default     = null

  validation {
    condition     = var.backfill_input_table_spec == null || can(regex("^[^:.]+[:.][^.]+\\.[^.]+$", var.backfill_input_table_spec))
    error_message = "backfill_input_table_spec must be PROJECT:DATASET.TABLE."
  }
}

variable "backfill_query" {
  type        = string
  description = "QUERY: BigQuery SQL to read instead of a whole table. List the datasets it reads in backfill_source_datasets. Null: not set."
  default     = null
}

variable "backfill_output_deadletter_table" {
  type        = string
  description = "OUTPUT_DEADLETTER_TABLE: BigQuery table (PROJECT:DATASET.TABLE) for rows ClickHouse rejects. The job's account gets dataEditor on that dataset. Null: the job's default, <input table>_error_records in its own dead-letter dataset (backfill_dead_letter_dataset_id)."
  default     = null

  validation {
    condition     = var.backfill_output_deadletter_table == null || can(regex("^[^:.]+[:.][^.]+\\.[^.]+$", var.backfill_output_deadletter_table))
    error_message = "backfill_output_deadletter_table must be PROJECT:DATASET.TABLE."
  }
}

variable "backfill_dead_letter_dataset_id" {
  type        = string
  description = "BigQuery dataset created for the job's dead letters (OUTPUT_DEADLETTER_DATASET; the job's account gets dataEditor on it). Null: \"<name_prefix with _>_backfill_dead_letters\"."
  default     = null

  validation {
    condition     = var.backfill_dead_letter_dataset_id == null || can(regex("^[A-Za-z0-9_]{1,1024}$", var.backfill_dead_letter_dataset_id))
    error_message = "backfill_dead_letter_dataset_id must be letters, digits and underscores."
  }
}

variable "backfill_dead_letter_dataset_location" {
  type        = string
  description = "Location of the dead-letter dataset (for example US, EU or a region). Null: region."
  default     = null
}

variable "backfill_source_datasets" {
  type        = list(string)
  description = "More BigQuery datasets (PROJECT:DATASET) the job may read, for QUERY or per-execution --inputTableSpec. dataViewer is granted on each dataset, never on the project."
  default     = []

  validation {
    condition     = alltrue([for d in var.backfill_source_datasets : can(regex("^[^:.]+[:.][^:.]+$", d))])
    error_message = "Each entry of backfill_source_datasets must be PROJECT:DATASET."
  }
}

variable "backfill_args" {
  type        = list(string)
  description = "Default container arguments of the job (Dataflow-template-style flags such as --inputTableSpec=...); gcloud run jobs execute --args overrides them per execution."
  default     = []
}

variable "backfill_env" {
  type        = map(string)
  description = "Extra environment variables of the job; they override the ones built from the variables above."
  default     = {}
}

# ---------------------------------------------------------------------------------------------
# Monitoring
# ---------------------------------------------------------------------------------------------

variable "create_monitoring" {
  type        = bool
  description = "Create the alert policies and the dashboard."
  default     = true
}

variable "notification_channels" {
  type        = list(string)
  description = "Notification channel ids (projects/P/notificationChannels/N) the alert policies notify."
  default     = []
}

variable "alert_oldest_unacked_age_seconds" {
  type        = number
  description = "Alert when the push subscription's oldest unacknowledged message is older than this, or than alert_outage_budget_fraction of the outage budget (output outage_budget_seconds) when that is sooner."
  default     = 600

  validation {
    condition     = var.alert_oldest_unacked_age_seconds >= 1
    error_message = "alert_oldest_unacked_age_seconds must be at least 1."
  }
}

variable "alert_outage_budget_fraction" {
  type        = number
  description = "The backlog alert fires at the latest when the oldest unacknowledged message has waited this fraction of the outage budget (how long the retry policy rides out before Pub/Sub dead-letters; output outage_budget_seconds)."
  default     = 0.25

  validation {
    condition     = var.alert_outage_budget_fraction > 0 && var.alert_outage_budget_fraction < 1
    error_message = "alert_outage_budget_fraction must be above 0 and below 1."
  }
}

variable "alert_dead_letter_messages" {
  type        = number
  description = "Alert when more than this many messages reach the dead-letter topic within 5 minutes."
  default     = 0

  validation {
    condition     = var.alert_dead_letter_messages >= 0
    error_message = "alert_dead_letter_messages must be 0 or more."
  }
}

variable "alert_dead_letter_backlog" {
  type        = number
  description = "Alert when more than this many messages wait in the dead-letter pull subscription (nobody inspected or replayed them)."
  default     = 1000

  validation {
    condition     = var.alert_dead_letter_backlog >= 0
    error_message = "alert_dead_letter_backlog must be 0 or more."
  }
}

variable "alert_dead_letter_age_seconds" {
  type        = number
  description = "Alert when the oldest message in the dead-letter pull subscription is older than this: it is lost once dead_letter_retention_seconds pass. Must be below dead_letter_retention_seconds."
  default     = 259200

  validation {
    condition     = var.alert_dead_letter_age_seconds >= 60
    error_message = "alert_dead_letter_age_seconds must be at least 60."
  }
}

variable "alert_429_ratio" {
  type        = number
  description = "Alert when this fraction of the service's requests answer 429 (overload: the service's memory or queue bound is full; Pub/Sub retries them) over 10 minutes: raise service_max_instances, or look at ClickHouse's insert latency."
  default     = 0.1

  validation {
    condition     = var.alert_429_ratio > 0 && var.alert_429_ratio <= 1
    error_message = "alert_429_ratio must be in (0, 1]."
  }
}

variable "alert_5xx_ratio" {
  type        = number
  description = "Alert when this fraction of the service's requests answer 5xx over 5 minutes (503 means ClickHouse refused or was unreachable)."
  default     = 0.05

  validation {
    condition     = var.alert_5xx_ratio > 0 && var.alert_5xx_ratio <= 1
    error_message = "alert_5xx_ratio must be in (0, 1]."
  }
}

variable "app_metric_prefix" {
  type        = string
  description = "Prefix of the application's Prometheus metric names on /metrics (the dashboard queries <prefix>_inserted_rows_total, <prefix>_inserts_total, <prefix>_insert_failures_total and the <prefix>_insert_latency_ms histogram)."
  default     = "pubsub_clickhouse"
}

# ---------------------------------------------------------------------------------------------
# Optional ClickHouse server on an Axion (arm64) VM
# ---------------------------------------------------------------------------------------------

variable "create_clickhouse_vm" {
  type        = bool
  description = "Create a ClickHouse server on an Axion (arm64) VM in vpc_subnetwork: data on its own persistent disk (never destroyed by Terraform, snapshotted daily), scheduled BACKUP to a Cloud Storage bucket, HTTPS on 8443 from that subnetwork's range only (needs the two clickhouse_vm_tls_* secrets and clickhouse_vm_internal_ip), and a service user (clickhouse_user, not \"default\") with the grants of sql/grants.sql."
  default     = false
}

variable "clickhouse_vm_machine_type" {
  type        = string
  description = "Machine type of the ClickHouse VM (C4A is Google's Axion arm64 series)."
  default     = "c4a-standard-4"
}

variable "clickhouse_vm_zone" {
  type        = string
  description = "Zone of the ClickHouse VM and its data disk, in region; it must offer the machine type (C4A is not in every zone). Required with create_clickhouse_vm: a zone chosen for you could change later and replace the disk."
  default     = null
}

variable "clickhouse_vm_image" {
  type        = string
  description = "Boot image of the ClickHouse VM: an arm64 image to match the C4A machine type."
  default     = "debian-cloud/debian-12-arm64"
}

variable "clickhouse_vm_internal_ip" {
  type        = string
  description = "Internal address reserved for the ClickHouse VM in vpc_subnetwork (a TLS certificate names it). Null: one the subnetwork assigns."
  default     = null
}

variable "clickhouse_vm_boot_disk_size_gb" {
  type        = number
  description = "Boot disk size of the ClickHouse VM (the system only; the data has its own disk)."
  default     = 20

  validation {
    condition     = var.clickhouse_vm_boot_disk_size_gb >= 10
    error_message = "clickhouse_vm_boot_disk_size_gb must be at least 10."
  }
}

variable "clickhouse_vm_data_disk_size_gb" {
  type        = number
  description = "Size of the persistent disk mounted at /var/lib/clickhouse. It outlives the VM: recreating the VM keeps the data."
  default     = 100

  validation {
    condition     = var.clickhouse_vm_data_disk_size_gb >= 10
    error_message = "clickhouse_vm_data_disk_size_gb must be at least 10."
  }
}

variable "clickhouse_vm_disk_type" {
  type        = string
  description = "Type of the ClickHouse VM's boot and data disks (C4A takes Hyperdisk only)."
  default     = "hyperdisk-balanced"
}

variable "clickhouse_vm_external_ip" {
  type        = bool
  description = "Give the ClickHouse VM an external address so its startup script can reach packages.clickhouse.com. Without one the subnetwork needs Cloud NAT."
  default     = false
}

variable "clickhouse_vm_tls_certificate_secret" {
  type        = string
  description = "ID of a Secret Manager secret holding the ClickHouse VM's PEM certificate (self-signed or CA-signed, naming clickhouse_vm_internal_ip). Required with create_clickhouse_vm: the VM serves HTTPS on 8443 and native TLS on 9440, and no plaintext port. The service and job trust that certificate (unless clickhouse_ca_certificate_secret names another)."
  default     = null

  validation {
    condition     = var.clickhouse_vm_tls_certificate_secret == null || can(regex("^[A-Za-z0-9_-]{1,255}$", var.clickhouse_vm_tls_certificate_secret))
    error_message = "clickhouse_vm_tls_certificate_secret is a secret ID (letters, digits, _ and -)."
  }
}

variable "clickhouse_vm_tls_private_key_secret" {
  type        = string
  description = "ID of the Secret Manager secret holding the private key (PEM) of clickhouse_vm_tls_certificate_secret. Only the VM's account may read it."
  default     = null

  validation {
    condition     = var.clickhouse_vm_tls_private_key_secret == null || can(regex("^[A-Za-z0-9_-]{1,255}$", var.clickhouse_vm_tls_private_key_secret))
    error_message = "clickhouse_vm_tls_private_key_secret is a secret ID (letters, digits, _ and -)."
  }
}

variable "clickhouse_vm_backup_schedule" {
  type        = string
  description = "When the VM backs up (systemd OnCalendar syntax, in UTC): BACKUP DATABASE of each of clickhouse_vm_backup_databases, uploaded to the backup bucket."
  default     = "*-*-* 03:00:00"

  validation {
    condition     = can(regex("^[A-Za-z0-9*:,./ ~-]+$", var.clickhouse_vm_backup_schedule))
    error_message = "clickhouse_vm_backup_schedule must be a systemd calendar expression such as \"*-*-* 03:00:00\" or \"daily\"."
  }
}

variable "clickhouse_vm_backup_databases" {
  type        = list(string)
  description = "Databases the scheduled backup covers. Null: clickhouse_database and the database of clickhouse_dead_letter_table."
  default     = null

  validation {
    condition     = var.clickhouse_vm_backup_databases == null || try(alltrue([for d in var.clickhouse_vm_backup_databases : can(regex("^[A-Za-z_][A-Za-z0-9_]*$", d))]), false)
    error_message = "clickhouse_vm_backup_databases must be plain database names."
  }
}

variable "clickhouse_vm_backup_bucket" {
  type        = string
  description = "Name of the Cloud Storage bucket created for the backups (the VM's account may add and read objects, not delete them). Null: \"<name_prefix>-ch-backups-<project number>\"."
  default     = null
}

variable "clickhouse_vm_backup_retention_days" {
  type        = number
  description = "Days a backup is kept in the bucket before its lifecycle rule deletes it."
  default     = 30

  validation {
    condition     = var.clickhouse_vm_backup_retention_days >= 1
    error_message = "clickhouse_vm_backup_retention_days must be at least 1."
  }
}

variable "clickhouse_vm_version" {
  type        = string
  description = "ClickHouse release the VM installs from the LTS channel and holds (apt-mark hold): an exact version (25.8.13.73) or a line (25.8.*, the 25.8 LTS). A change takes effect at the next boot (gcloud compute instances reset)."
  default     = "25.8.*"

  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+\\.([0-9]+\\.[0-9]+|\\*)$", var.clickhouse_vm_version))
    error_message = "clickhouse_vm_version must be a version such as 25.8.13.73 or a line such as 25.8.*."
  }
}

variable "clickhouse_vm_snapshot_start_time" {
  type        = string
  description = "When the daily snapshot of the data disk starts (HH:00, UTC)."
  default     = "04:00"

  validation {
    condition     = can(regex("^([01][0-9]|2[0-3]):00$", var.clickhouse_vm_snapshot_start_time))
    error_message = "clickhouse_vm_snapshot_start_time must be a whole hour such as 04:00."
  }
}

variable "clickhouse_vm_snapshot_retention_days" {
  type        = number
  description = "Days a daily snapshot of the data disk is kept (also after the disk is deleted)."
  default     = 14

  validation {
    condition     = var.clickhouse_vm_snapshot_retention_days >= 1
    error_message = "clickhouse_vm_snapshot_retention_days must be at least 1."
  }
}
