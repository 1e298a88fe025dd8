# The account Cloud Build runs as for every build after the first (gcloud builds submit
# --service-account, docs/deploy.md), with the roles cloudbuild.yaml needs and no more: push to the
# one repository (and attach provenance there), deploy the one service and job as their own
# runtime accounts, write its logs, and read the sources gcloud builds submit uploads.

resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "${var.name_prefix}-build"
  display_name = "Cloud Build: images and rollout of ${local.service_name}"
  description  = "Builds and pushes the images, records their provenance and deploys them by digest."

  depends_on = [google_project_service.enabled]
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

# gcloud builds submit uploads the sources to this bucket (it creates it on the first build).
resource "google_storage_bucket_iam_member" "build_source_reader" {
  bucket = coalesce(var.build_source_bucket, "${var.project_id}_cloudbuild")
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.build.email}"
}
