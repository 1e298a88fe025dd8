# The Docker repository cloudbuild.yaml pushes both multi-arch images to
# (${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/...), and the images the service and the
# job are created with. Cloud Run pulls with its service agent, which may read repositories of its
# own project.
#
# Terraform makes it before the apply's build (build.tf) pushes to it, tags immutable: a tag names
# one image for good. The apply tags with a hash of the sources, a build run by hand with its id.

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

# The images the service and the job are created with, by digest: the ones tagged local.image_tag
# (build.tf: the tag the apply's build pushed, or var.image_tag). An exact tag names the image's
# manifest list alone; the newest image of the package could as well be its provenance attachment
# or one platform's manifest. Later images are deployed by the build, by digest too; Terraform
# ignores the image after the first apply (run.tf, job.tf).
data "google_artifact_registry_docker_image" "function" {
  count = var.service_image == null ? 1 : 0

  project       = var.project_id
  location      = var.region
  repository_id = var.artifact_registry_repository_id
  image_name    = "pubsub-clickhouse-function:${local.image_tag}"

  lifecycle {
    precondition {
      condition     = local.build_images || var.image_tag != null
      error_message = "With build_images = false, set image_tag (the tag of images built by hand) or service_image."
    }
  }

  depends_on = [google_artifact_registry_repository.images, terraform_data.images]
}

data "google_artifact_registry_docker_image" "backfill" {
  count = var.create_backfill_job && var.backfill_image == null ? 1 : 0

  project       = var.project_id
  location      = var.region
  repository_id = var.artifact_registry_repository_id
  image_name    = "pubsub-clickhouse-backfill:${local.image_tag}"

  lifecycle {
    precondition {
      condition     = local.build_images || var.image_tag != null
      error_message = "With build_images = false, set image_tag (the tag of images built by hand) or backfill_image."
    }
  }

  depends_on = [google_artifact_registry_repository.images, terraform_data.images]
}

locals {
  # REGION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE@sha256:...
  service_image  = var.service_image != null ? var.service_image : data.google_artifact_registry_docker_image.function[0].self_link
  backfill_image = var.backfill_image != null ? var.backfill_image : (var.create_backfill_job ? data.google_artifact_registry_docker_image.backfill[0].self_link : null)
}
