# Optional (create_clickhouse_vm = true): a ClickHouse server on an Axion (C4A, arm64) VM in the
# subnetwork the service and job use for Direct VPC egress. Secure by default: HTTPS on 8443 and
# the native protocol over TLS on 9440 only (no plaintext port), a firewall that admits 8443 from
# that subnetwork's range alone (the addresses Cloud Run takes there), a data disk that Terraform
# refuses to destroy and snapshots every day, a pinned ClickHouse release, and a service user
# holding only the grants of sql/grants.sql.
#
# The startup script (templates/clickhouse-startup.sh.tftpl) mounts the data disk at
# /var/lib/clickhouse, installs clickhouse-server clickhouse_vm_version from
# packages.clickhouse.com (arm64 packages) and holds it there, writes the user's password hash
# from the Secret Manager secret the service reads (files of mode 600; the password is on no
# command line), installs the certificate, applies sql/logs.sql and sql/dead_letter_table.sql as
# a local administrator, and schedules the backups. It runs at every boot and is idempotent.

locals {
  clickhouse_vm_zone = var.create_clickhouse_vm ? var.clickhouse_vm_zone : null
  clickhouse_vm_port = 8443
  # A resource policy cannot be changed, only replaced, and the attached one cannot be deleted
  # first: each schedule gets a name of its own (a hash of everything in the policy), so the new
  # one is made beside it (create_before_destroy) and the old one deleted once detached.
  clickhouse_vm_snapshot_policy_name = "${var.name_prefix}-ch-snapshots-${substr(sha256(jsonencode([
    var.clickhouse_vm_snapshot_start_time,
    var.clickhouse_vm_snapshot_retention_days,
    var.labels,
    var.region,
  ])), 0, 8)}"
  clickhouse_vm_bucket = coalesce(var.clickhouse_vm_backup_bucket, "${var.name_prefix}-ch-backups-${data.google_project.this.number}")
  clickhouse_vm_backup_databases = coalesce(var.clickhouse_vm_backup_databases, distinct(concat(
    [var.clickhouse_database],
    var.clickhouse_dead_letter_table != null && try(length(split(".", var.clickhouse_dead_letter_table)) == 2, false) ? [split(".", var.clickhouse_dead_letter_table)[0]] : [],
  )))
}

data "google_compute_subnetwork" "egress" {
  count = var.create_clickhouse_vm ? 1 : 0

  project = var.project_id
  name    = var.vpc_subnetwork
  region  = var.region

  lifecycle {
    precondition {
      condition     = var.vpc_subnetwork != null
      error_message = "create_clickhouse_vm needs vpc_subnetwork: the VM lives there and admits only its range."
    }
    # No default zone: the first zone that is up changes with the zones' status (which would
    # replace the VM and the disk Terraform refuses to destroy), and not every zone offers C4A.
    precondition {
      condition     = var.clickhouse_vm_zone != null
      error_message = "create_clickhouse_vm needs clickhouse_vm_zone: a zone of the region that offers the machine type (gcloud compute machine-types list --filter=name=c4a-standard-4 --format='value(zone)')."
    }
    precondition {
      condition     = var.clickhouse_url == null
      error_message = "create_clickhouse_vm supplies CLICKHOUSE_URL itself: leave clickhouse_url unset."
    }
    precondition {
      condition     = var.clickhouse_vm_tls_certificate_secret != null && var.clickhouse_vm_tls_private_key_secret != null
      error_message = "The ClickHouse VM serves TLS only: set clickhouse_vm_tls_certificate_secret and clickhouse_vm_tls_private_key_secret."
    }
    precondition {
      condition     = var.clickhouse_vm_internal_ip != null
      error_message = "The certificate must name the VM's address: set clickhouse_vm_internal_ip to the address in its subjectAltName."
    }
    precondition {
      condition     = var.clickhouse_user != "default"
      error_message = "On the ClickHouse VM the service logs in as a user of its own with only the grants of sql/grants.sql: set clickhouse_user (for example \"pipeline\"); \"default\" is the local administrator."
    }
  }
}

resource "google_service_account" "clickhouse_vm" {
  count = var.create_clickhouse_vm ? 1 : 0

  project      = var.project_id
  account_id   = "${var.name_prefix}-chvm"
  display_name = "ClickHouse server VM"
  description  = "Runs the ClickHouse VM; reads the ClickHouse password (and TLS) secrets, writes backups and logs."

  depends_on = [google_project_service.enabled]
}

resource "google_secret_manager_secret_iam_member" "clickhouse_vm_password_accessor" {
  count = var.create_clickhouse_vm ? 1 : 0

  secret_id = google_secret_manager_secret.clickhouse_password.id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.clickhouse_vm[0].email}"
}

resource "google_secret_manager_secret_iam_member" "clickhouse_vm_tls_accessor" {
  for_each = var.create_clickhouse_vm ? toset([var.clickhouse_vm_tls_certificate_secret, var.clickhouse_vm_tls_private_key_secret]) : toset([])

  project   = var.project_id
  secret_id = each.value
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.clickhouse_vm[0].email}"
}

# The startup script's output reaches Cloud Logging through the guest agent, as this account.
resource "google_project_iam_member" "clickhouse_vm_log_writer" {
  count = var.create_clickhouse_vm ? 1 : 0

  project = var.project_id
  role    = "roles/logging.logWriter"
  member  = "serviceAccount:${google_service_account.clickhouse_vm[0].email}"
}

# A fixed address: CLICKHOUSE_URL and a certificate's subjectAltName stay valid when the VM is
# recreated.
resource "google_compute_address" "clickhouse" {
  count = var.create_clickhouse_vm ? 1 : 0

  project      = var.project_id
  name         = "${var.name_prefix}-clickhouse"
  region       = var.region
  subnetwork   = data.google_compute_subnetwork.egress[0].self_link
  address_type = "INTERNAL"
  address      = var.clickhouse_vm_internal_ip
  labels       = var.labels
}

# ClickHouse's data, on a disk of its own: recreating the VM (a new image, a new machine type)
# keeps it.
resource "google_compute_disk" "clickhouse_data" {
  count = var.create_clickhouse_vm ? 1 : 0

  project = var.project_id
  name    = "${var.name_prefix}-clickhouse-data"
  zone    = local.clickhouse_vm_zone
  type    = var.clickhouse_vm_disk_type
  size    = var.clickhouse_vm_data_disk_size_gb
  labels  = var.labels

  dynamic "disk_encryption_key" {
    for_each = var.kms_key_name == null ? [] : [var.kms_key_name]
    content {
      kms_key_self_link = disk_encryption_key.value
    }
  }

  # The data outlives the VM, and a plan that would delete it fails: remove this disk from the
  # state (terraform state rm) or snapshot it before tearing the example down.
  lifecycle {
    prevent_destroy = true
  }

  depends_on = [google_project_service.enabled]
}

# A snapshot of the data disk every day, kept clickhouse_vm_snapshot_retention_days, and kept when
# the disk itself is deleted: a whole-disk restore point beside the per-database backups.
resource "google_compute_resource_policy" "clickhouse_data_snapshots" {
  count = var.create_clickhouse_vm ? 1 : 0

  project = var.project_id
  name    = local.clickhouse_vm_snapshot_policy_name
  region  = var.region

  snapshot_schedule_policy {
    schedule {
      daily_schedule {
        days_in_cycle = 1
        start_time    = var.clickhouse_vm_snapshot_start_time
      }
    }
    retention_policy {
      max_retention_days    = var.clickhouse_vm_snapshot_retention_days
      on_source_disk_delete = "KEEP_AUTO_SNAPSHOTS"
    }
    snapshot_properties {
      labels            = var.labels
      storage_locations = [var.region]
    }
  }

  # The attachment keeps the default order: a disk takes one snapshot schedule, so the old
  # attachment goes before the new one is made, and the old policy after that.
  lifecycle {
    create_before_destroy = true
  }

  depends_on = [google_project_service.enabled]
}

resource "google_compute_disk_resource_policy_attachment" "clickhouse_data_snapshots" {
  count = var.create_clickhouse_vm ? 1 : 0

  project = var.project_id
  name    = google_compute_resource_policy.clickhouse_data_snapshots[0].name
  disk    = google_compute_disk.clickhouse_data[0].name
  zone    = local.clickhouse_vm_zone
}

resource "google_storage_bucket" "clickhouse_backups" {
  count = var.create_clickhouse_vm ? 1 : 0

  project                     = var.project_id
  name                        = local.clickhouse_vm_bucket
  location                    = var.region
  labels                      = var.labels
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  dynamic "encryption" {
    for_each = var.kms_key_name == null ? [] : [var.kms_key_name]
    content {
      default_kms_key_name = encryption.value
    }
  }

  lifecycle_rule {
    condition {
      age = var.clickhouse_vm_backup_retention_days
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.enabled]
}

# The VM adds backups and reads them back for a restore; it cannot delete or overwrite one (the
# bucket's lifecycle rule does the deleting).
resource "google_storage_bucket_iam_member" "clickhouse_vm_backup_writer" {
  for_each = var.create_clickhouse_vm ? toset(["roles/storage.objectCreator", "roles/storage.objectViewer"]) : toset([])

  bucket = google_storage_bucket.clickhouse_backups[0].name
  role   = each.value
  member = "serviceAccount:${google_service_account.clickhouse_vm[0].email}"
}

resource "google_compute_instance" "clickhouse" {
  count = var.create_clickhouse_vm ? 1 : 0

  project      = var.project_id
  name         = "${var.name_prefix}-clickhouse"
  machine_type = var.clickhouse_vm_machine_type
  zone         = local.clickhouse_vm_zone
  labels       = var.labels
  tags         = ["${var.name_prefix}-clickhouse"]

  allow_stopping_for_update = true

  boot_disk {
    initialize_params {
      image = var.clickhouse_vm_image
      size  = var.clickhouse_vm_boot_disk_size_gb
      type  = var.clickhouse_vm_disk_type
    }
  }

  # /dev/disk/by-id/google-clickhouse-data on the VM.
  attached_disk {
    source      = google_compute_disk.clickhouse_data[0].id
    device_name = "clickhouse-data"
  }

  network_interface {
    subnetwork = data.google_compute_subnetwork.egress[0].self_link
    network_ip = google_compute_address.clickhouse[0].address

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
      project_id         = var.project_id
      password_secret    = google_secret_manager_secret.clickhouse_password.secret_id
      clickhouse_user    = var.clickhouse_user
      clickhouse_version = var.clickhouse_vm_version
      client_cidr        = data.google_compute_subnetwork.egress[0].ip_cidr_range
      tls_cert_secret    = var.clickhouse_vm_tls_certificate_secret
      tls_key_secret     = var.clickhouse_vm_tls_private_key_secret
      backup_bucket      = google_storage_bucket.clickhouse_backups[0].name
      backup_schedule    = var.clickhouse_vm_backup_schedule
      backup_databases   = join(" ", local.clickhouse_vm_backup_databases)
    })
    # Read by the startup script and applied with clickhouse-client --multiquery.
    clickhouse-schema = join("\n", [
      file("${path.module}/../../../sql/logs.sql"),
      file("${path.module}/../../../sql/dead_letter_table.sql"),
    ])
    # The service user's grants, one <query> each in its users.d file.
    clickhouse-grants = file("${path.module}/../../../sql/grants.sql")
  }

  depends_on = [
    google_secret_manager_secret_iam_member.clickhouse_vm_password_accessor,
    google_secret_manager_secret_iam_member.clickhouse_vm_tls_accessor,
    google_storage_bucket_iam_member.clickhouse_vm_backup_writer,
  ]
}

# ClickHouse's HTTPS port, from the Cloud Run egress range only. Nothing else reaches the VM: the
# native TLS port serves the machine itself, and the VPC's implied rule denies other ingress.
resource "google_compute_firewall" "clickhouse_http_from_run" {
  count = var.create_clickhouse_vm ? 1 : 0

  project     = var.project_id
  name        = "${var.name_prefix}-clickhouse-http"
  network     = data.google_compute_subnetwork.egress[0].network
  description = "ClickHouse HTTPS from the Cloud Run Direct VPC egress subnetwork only."
  direction   = "INGRESS"

  source_ranges = [data.google_compute_subnetwork.egress[0].ip_cidr_range]
  target_tags   = ["${var.name_prefix}-clickhouse"]

  allow {
    protocol = "tcp"
    ports    = [tostring(local.clickhouse_vm_port)]
  }
}
