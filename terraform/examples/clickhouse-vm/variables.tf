variable "project_id" {
  type        = string
  description = "ID of the Google Cloud project that holds every resource."
}

variable "region" {
  type        = string
  description = "Region of everything; the VM goes to clickhouse_vm_zone in it."
  default     = "us-central1"
}

variable "clickhouse_vm_zone" {
  type        = string
  description = "Zone of the ClickHouse VM and its data disk, in region, one that offers C4A (gcloud compute machine-types list --filter=name=c4a-standard-4 --format='value(zone)')."
}

variable "vpc_network" {
  type        = string
  description = "VPC network of the subnetwork."
  default     = "default"
}

variable "vpc_subnetwork" {
  type        = string
  description = "Subnetwork (in region) of the VM and of the service's and job's Direct VPC egress."
  default     = "default"
}

variable "clickhouse_vm_internal_ip" {
  type        = string
  description = "Address reserved for the VM in the subnetwork; the TLS certificate must name it (subjectAltName IP)."
}

variable "clickhouse_vm_tls_certificate_secret" {
  type        = string
  description = "Secret holding the VM's PEM certificate (the VM serves TLS only)."
}

variable "clickhouse_vm_tls_private_key_secret" {
  type        = string
  description = "Secret holding the certificate's PEM private key."
}

variable "clickhouse_vm_external_ip" {
  type        = bool
  description = "Give the VM an external address so it can install ClickHouse; false needs Cloud NAT on the subnetwork."
  default     = false
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

variable "clickhouse_password" {
  type        = string
  description = "Password of the service's ClickHouse user on the VM. Terraform writes it to Secret Manager as a write-only value (kept in neither the state nor a saved plan: the variable is ephemeral); the VM reads it from there. Keep terraform.tfvars out of version control."
  sensitive   = true
  ephemeral   = true
}
