# The Docker repository cloudbuild.yaml pushes both multi-arch images to
# (${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/...), and the images the service and the
# job are created with. Cloud Run pulls with its service agent, which may read repositories of its
# own project.
#
# The first build creates the repository when it is missing (it runs before Terraform, which needs
# an image to create the service with); the examples adopt it with an import block, so from then
# on Terraform owns it, tags immutable: a tag names one image for good, and the build tags each
# image with its build id.

resource "google_artifact_registry_repository" "images" {
  count = var.create_artifact_registry ? 1 : 0

  project       = var.project_id
  repository_id = var.artifact_registry_repository_id
  location      = var.region
  format        = "DOCKER"
  description   = "Multi-arch (linux/arm64, linux/amd64) images of the Pub/Sub to ClickHouse service and backfill job."
  labels        = var.labels
  kms_key_name  = var.kms_key_name

  docker_config {
    immutable_tags = true
  }

  depends_on = [google_project_service.enabled]
}

# The image the service and the job are created with, by digest: the one the tag names
# (var.image_tag), or the newest pushed when no tag is given. Later images are deployed by the
# build, by digest too; Terraform ignores the image after the first apply (run.tf, job.tf).
data "google_artifact_registry_docker_image" "function" {
  count = var.service_image == null ? 1 : 0

  project       = var.project_id
  location      = var.region
  repository_id = var.artifact_registry_repository_id
  image_name    = var.image_tag == null ? "pubsub-clickhouse-function" : "pubsub-clickhouse-function:${var.image_tag}"

  depends_on = [google_artifact_registry_repository.images]
}

data "google_artifact_registry_docker_image" "backfill" {
  count = var.create_backfill_job && var.backfill_image == null ? 1 : 0

  project       = var.project_id
  location      = var.region
  repository_id = var.artifact_registry_repository_id
  image_name    = var.image_tag == null ? "pubsub-clickhouse-backfill" : "pubsub-clickhouse-backfill:${var.image_tag}"

  depends_on = [google_artifact_registry_repository.images]
}

locals {
  # REGION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE@sha256:...
  service_image  = var.service_image != null ? var.service_image : data.google_artifact_registry_docker_image.function[0].self_link
  backfill_image = var.backfill_image != null ? var.backfill_image : (var.create_backfill_job ? data.google_artifact_registry_docker_image.backfill[0].self_link : null)
}
