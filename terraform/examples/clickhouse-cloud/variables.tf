variable "project_id" {
  type        = string
  description = "ID of the Google Cloud project that holds every resource."
}

variable "region" {
  type        = string
  description = "Region of the Cloud Run service and job, the image repository and the secret."
  default     = "us-central1"
}

variable "clickhouse_url" {
  type        = string
  description = "https://host:8443 of the ClickHouse HTTP interface (ClickHouse Cloud: the service's HTTPS endpoint)."
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

variable "clickhouse_password" {
  type        = string
  description = "Password of clickhouse_user. Terraform writes it to Secret Manager as a write-only value: it is kept in neither the state nor a saved plan (the variable is ephemeral). Keep terraform.tfvars out of version control."
  sensitive   = true
  ephemeral   = true
}

variable "clickhouse_user" {
  type        = string
  description = "ClickHouse user the service and the job log in as."
  default     = "default"
}

variable "clickhouse_dead_letter_table" {
  type        = string
  description = "Dead-letter table for rows that do not map (sql/dead_letter_table.sql creates realtime.logs_dead_letter); null: none."
  default     = "realtime.logs_dead_letter"
}

variable "ack_deadline_seconds" {
  type        = number
  description = "Ack deadline of the push subscription; the service answers every push a little before it."
  default     = 60
}

variable "service_max_instances" {
  type        = number
  description = "Maximum number of service instances (bounds the INSERTs ClickHouse sees at once)."
  default     = 10
}

variable "notification_channels" {
  type        = list(string)
  description = "Notification channel ids (projects/P/notificationChannels/N) the alerts notify."
  default     = []
}

variable "backfill_source_datasets" {
  type        = list(string)
  description = "BigQuery datasets (PROJECT:DATASET) the backfill job may read: the job's account gets dataViewer on each, never on the project. A backfill of a table in a dataset not listed here fails with Access Denied."
  default     = []
}
