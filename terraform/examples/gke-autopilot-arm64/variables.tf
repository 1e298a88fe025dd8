variable "project_id" {
  type        = string
  description = "ID of the Google Cloud project of the cluster, the topics and the secret."
}

variable "region" {
  type        = string
  description = "Region of the Autopilot cluster and of the secret's replica."
  default     = "us-central1"
}

variable "cluster_name" {
  type        = string
  description = "Name of the existing GKE Autopilot cluster (regional, in region) the workload runs in."
}

variable "name_prefix" {
  type        = string
  description = "Prefix of the topics, the subscription, the secret and the workload's names."
  default     = "pubsub-clickhouse"
}

variable "image" {
  type        = string
  description = "The multi-arch service image by digest (cloudbuild.yaml pushes it: REGION-docker.pkg.dev/PROJECT/pubsub-clickhouse/pubsub-clickhouse-function@sha256:...)."
}

variable "clickhouse_url" {
  type        = string
  description = "https://host:8443 of the ClickHouse HTTP interface."
}

variable "clickhouse_database" {
  type        = string
  description = "Database of the target table."
  default     = "realtime"
}

variable "clickhouse_table" {
  type        = string
  description = "Target table (sql/logs.sql creates realtime.logs)."
  default     = "logs"
}

variable "clickhouse_user" {
  type        = string
  description = "ClickHouse user the service logs in as."
  default     = "default"
}

variable "clickhouse_password" {
  type        = string
  description = "Password of clickhouse_user. Terraform writes it to Secret Manager as a write-only value: it is kept in neither the state nor the plan. Keep terraform.tfvars out of version control."
  sensitive   = true
}

variable "clickhouse_password_version" {
  type        = number
  description = "Raise it to write a changed clickhouse_password (a write-only value is sent only when this changes)."
  default     = 1
}

variable "scaler" {
  type        = string
  description = "hpa (the Custom Metrics Stackdriver Adapter, at least one pod) or keda (KEDA's gcp-pubsub scaler, down to zero pods); install it in the cluster first (the module's README)."
  default     = "hpa"
}

variable "min_replicas" {
  type        = number
  description = "Fewest pods (0 only with scaler = keda)."
  default     = 1
}

variable "max_replicas" {
  type        = number
  description = "Most pods."
  default     = 10
}
