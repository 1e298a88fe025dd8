# The Docker repository cloudbuild.yaml pushes both multi-arch images to
# (${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/...). Cloud Run pulls from it with its
# service agent, which has read access to repositories of its own project.

resource "google_artifact_registry_repository" "images" {
  count = var.create_artifact_registry ? 1 : 0

  project       = var.project_id
  repository_id = var.artifact_registry_repository_id
  location      = var.region
  format        = "DOCKER"
  description   = "Multi-arch (linux/arm64, linux/amd64) images of the Pub/Sub to ClickHouse service and backfill job."
  labels        = var.labels

  depends_on = [google_project_service.enabled]
}
