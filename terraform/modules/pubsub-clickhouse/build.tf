# The images, built during the apply: the repository (registry.tf), the build account with its
# grants and the bucket for the build's sources are made first, then terraform_data.images runs
# cloudbuild.yaml as that account (templates/build-images.sh), and only then are the service and
# the jobs created with the images, read by the tag the apply chose. No build runs before
# Terraform, and none as a default account: on a new project the Compute Engine default account
# may not exist yet or hold no roles, and the legacy Cloud Build account may not create a
# repository. Later roll-outs run the same build as the same account (docs/deploy.md).

locals {
  repository_root = abspath("${path.module}/../../..")

  # The files both images are made of: the build, the parent pom, the scripts that train and check
  # the function image's AOT cache, and the main sources and pom of each module the image modules
  # are built from (cloudbuild.yaml: -pl function,backfill-job -am).
  image_source_files = sort(concat(
    ["cloudbuild.yaml", "pom.xml", "scripts/aot-cache", "scripts/aot-cache-inputs",
    "scripts/benchsuite/aotcache.py"],
    flatten([
      for m in ["core", "messages", "function", "backfill-job"] :
      concat(["${m}/pom.xml"], tolist(fileset(local.repository_root, "${m}/src/main/**")))
    ]),
  ))
  # The tag of images built from these very files: a change to any of them builds anew, and an
  # apply with none builds nothing. Computed only when the apply builds, so a caller of images
  # built elsewhere (image_tag) needs no sources beside the module.
  source_image_tag = var.build_images && var.image_tag == null ? substr(sha256(join("\n", [
    for f in local.image_source_files : "${f} ${filesha256("${local.repository_root}/${f}")}"
  ])), 0, 16) : null
  image_tag = var.image_tag != null ? var.image_tag : local.source_image_tag

  build_images = var.build_images && var.image_tag == null && (
    var.service_image == null || (var.create_backfill_job && var.backfill_image == null)
  )
}

resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-build"
  display_name = "Cloud Build: images and rollout of ${local.service_name}"
  description  = "Builds and pushes the images, records their provenance and deploys them by digest."

  depends_on = [google_project_service.enabled]
}

# gcloud builds submit uploads the sources here (--gcs-source-staging-dir); the build reads them.
# The module's own bucket, so the grant below never waits for a bucket gcloud makes on first use.
resource "google_storage_bucket" "build_sources" {
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name_prefix}-build"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true
  labels                      = var.labels

  lifecycle_rule {
    condition {
      age = 7
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.enabled]
}

resource "google_storage_bucket_iam_member" "build_source_reader" {
  bucket = google_storage_bucket.build_sources.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.build.email}"
}

resource "google_artifact_registry_repository_iam_member" "build_writer" {
  count = var.create_artifact_registry ? 1 : 0

  project    = var.project_id
  location   = google_artifact_registry_repository.images[0].location
  repository = google_artifact_registry_repository.images[0].name
  role       = "roles/artifactregistry.writer"
  member     = "serviceAccount:${google_service_account.build.email}"
}

resource "google_cloud_run_v2_service_iam_member" "build_developer" {
  project  = google_cloud_run_v2_service.ingest.project
  location = google_cloud_run_v2_service.ingest.location
  name     = google_cloud_run_v2_service.ingest.name
  role     = "roles/run.developer"
  member   = "serviceAccount:${google_service_account.build.email}"
}

resource "google_cloud_run_v2_job_iam_member" "build_developer" {
  count = var.create_backfill_job ? 1 : 0

  project  = google_cloud_run_v2_job.backfill[0].project
  location = google_cloud_run_v2_job.backfill[0].location
  name     = google_cloud_run_v2_job.backfill[0].name
  role     = "roles/run.developer"
  member   = "serviceAccount:${google_service_account.build.email}"
}

# A revision runs as the service's (or job's) own account: deploying one needs actAs on it.
resource "google_service_account_iam_member" "build_acts_as_runtime" {
  for_each = merge(
    { service = google_service_account.service.name },
    var.create_backfill_job ? { backfill = google_service_account.backfill[0].name } : {},
  )

  service_account_id = each.value
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.build.email}"
}

# cloudbuild.yaml logs to Cloud Logging only, which a user-chosen build account needs.
resource "google_project_iam_member" "build_log_writer" {
  project = var.project_id
  role    = "roles/logging.logWriter"
  member  = "serviceAccount:${google_service_account.build.email}"
}

# The build, run by the apply from the repository's root with the region, repository, names and
# tag of this module, so nothing is typed twice. It runs again when the sources change (a new
# tag), and then also rolls the new images out to the service and the job that exist by then.
# It runs after the runtime accounts' secret grants too: its minutes let those take effect
# before Cloud Run checks them when it creates the service and the jobs.
resource "terraform_data" "images" {
  count = local.build_images ? 1 : 0

  triggers_replace = [local.image_tag, var.region, var.artifact_registry_repository_id]
  input            = local.image_tag

  provisioner "local-exec" {
    working_dir = local.repository_root
    interpreter = ["/bin/sh", "-c"]
    command     = file("${path.module}/templates/build-images.sh")
    environment = {
      PROJECT       = var.project_id
      REGION        = var.region
      REPOSITORY    = var.artifact_registry_repository_id
      SERVICE       = local.service_name
      JOB           = local.job_name
      TAG           = local.image_tag
      BUILD_ACCOUNT = google_service_account.build.email
      SOURCE_BUCKET = google_storage_bucket.build_sources.name
    }
  }

  depends_on = [
    google_project_service.enabled,
    google_artifact_registry_repository_iam_member.build_writer,
    google_storage_bucket_iam_member.build_source_reader,
    google_project_iam_member.build_log_writer,
    google_service_account_iam_member.build_acts_as_runtime,
    google_secret_manager_secret_iam_member.service_password_accessor,
    google_secret_manager_secret_iam_member.backfill_password_accessor,
    google_secret_manager_secret_iam_member.service_ca_accessor,
    google_secret_manager_secret_iam_member.backfill_ca_accessor,
  ]
}

# After the service and the job exist in their new form: the images of the apply's tag on them.
# The build deploys new images itself, but an update of the service by the same apply (planned
# with the image read before the build) would put the old one back.
resource "terraform_data" "rollout" {
  count = local.build_images ? 1 : 0

  triggers_replace = [local.image_tag]

  provisioner "local-exec" {
    interpreter = ["/bin/sh", "-c"]
    command     = file("${path.module}/templates/roll-out-images.sh")
    environment = {
      PROJECT       = var.project_id
      REGION        = var.region
      SERVICE       = google_cloud_run_v2_service.ingest.name
      SERVICE_IMAGE = local.service_image
      JOB           = local.job_name
      JOB_IMAGE     = var.create_backfill_job ? local.backfill_image : ""
    }
  }

  depends_on = [
    terraform_data.images,
    google_cloud_run_v2_service.ingest,
    google_cloud_run_v2_job.backfill,
  ]
}
