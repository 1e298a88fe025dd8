# Optional (create_clickhouse_vm = true): a ClickHouse server on an Axion (C4A, arm64) VM in the
# subnetwork the service and job use for Direct VPC egress. Its HTTP ports admit only that
# subnetwork's range, the addresses Cloud Run takes for its instances there.
#
# The startup script installs clickhouse-server from packages.clickhouse.com (arm64 packages),
# sets the default user's password from the same Secret Manager secret the service reads, and
# applies sql/logs.sql and sql/dead_letter_table.sql. It runs at every boot and is idempotent.

data "google_compute_subnetwork" "egress" {
  count = var.create_clickhouse_vm ? 1 : 0

  name   = var.vpc_subnetwork
  region = var.region

  lifecycle {
    precondition {
      condition     = var.vpc_subnetwork != null
      error_message = "create_clickhouse_vm needs vpc_subnetwork: the VM lives there and admits only its range."
    }
  }
}

resource "google_service_account" "clickhouse_vm" {
  count = var.create_clickhouse_vm ? 1 : 0

  account_id   = "${var.name_prefix}-chvm"
  display_name = "ClickHouse server VM"
  description  = "Runs the ClickHouse VM; reads the ClickHouse password secret and writes logs."

  depends_on = [google_project_service.enabled]
}

resource "google_secret_manager_secret_iam_member" "clickhouse_vm_password_accessor" {
  count = var.create_clickhouse_vm ? 1 : 0

  secret_id = google_secret_manager_secret.clickhouse_password.id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.clickhouse_vm[0].email}"
}

resource "google_project_iam_member" "clickhouse_vm_log_writer" {
  count = var.create_clickhouse_vm ? 1 : 0

  project = var.project_id
  role    = "roles/logging.logWriter"
  member  = "serviceAccount:${google_service_account.clickhouse_vm[0].email}"
}

resource "google_compute_instance" "clickhouse" {
  count = var.create_clickhouse_vm ? 1 : 0

  name         = "${var.name_prefix}-clickhouse"
  machine_type = var.clickhouse_vm_machine_type
  zone         = coalesce(var.clickhouse_vm_zone, "${var.region}-a")
  labels       = var.labels
  tags         = ["${var.name_prefix}-clickhouse"]

  boot_disk {
    initialize_params {
      image = var.clickhouse_vm_image
      size  = var.clickhouse_vm_disk_size_gb
      type  = var.clickhouse_vm_disk_type
    }
  }

  network_interface {
    subnetwork = data.google_compute_subnetwork.egress[0].self_link

    dynamic "access_config" {
      for_each = var.clickhouse_vm_external_ip ? [true] : []
      content {}
    }
  }

  service_account {
    email  = google_service_account.clickhouse_vm[0].email
    scopes = ["cloud-platform"]
  }

  metadata = {
    enable-oslogin = "TRUE"
    startup-script = templatefile("${path.module}/templates/clickhouse-startup.sh.tftpl", {
      project_id      = var.project_id
      password_secret = google_secret_manager_secret.clickhouse_password.secret_id
      clickhouse_user = var.clickhouse_user
    })
    # Read by the startup script and applied with clickhouse-client --multiquery.
    clickhouse-schema = join("\n", [
      file("${path.module}/../sql/logs.sql"),
      file("${path.module}/../sql/dead_letter_table.sql"),
    ])
  }

  depends_on = [google_secret_manager_secret_iam_member.clickhouse_vm_password_accessor]
}

# ClickHouse's HTTP (8123) and HTTPS (8443) ports, from the Cloud Run egress range only.
resource "google_compute_firewall" "clickhouse_http_from_run" {
  count = var.create_clickhouse_vm ? 1 : 0

  name        = "${var.name_prefix}-clickhouse-http"
  network     = data.google_compute_subnetwork.egress[0].network
  description = "ClickHouse HTTP(S) from the Cloud Run Direct VPC egress subnetwork only."
  direction   = "INGRESS"

  source_ranges = [data.google_compute_subnetwork.egress[0].ip_cidr_range]
  target_tags   = ["${var.name_prefix}-clickhouse"]

  allow {
    protocol = "tcp"
    ports    = ["8123", "8443"]
  }
}
