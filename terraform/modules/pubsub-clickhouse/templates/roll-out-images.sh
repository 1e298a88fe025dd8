# Run by terraform apply once it has created or updated the service and the backfill job
# (build.tf): puts the images of the apply's tag on them, by digest, unless they run them already.
# Terraform ignores the image once it has created them (builds deploy it), so an apply that built
# new images and also changed the service would otherwise leave it on the image read at plan time.
set -eu
if [ -n "$SERVICE_IMAGE" ]; then
  current=$(gcloud run services describe "$SERVICE" --project="$PROJECT" --region="$REGION" \
    --format='value(spec.template.spec.containers[0].image)')
  if [ "$current" != "$SERVICE_IMAGE" ]; then
    gcloud run services update "$SERVICE" --project="$PROJECT" --region="$REGION" \
      --container=ingest --image="$SERVICE_IMAGE"
  fi
fi
if [ -n "$JOB_IMAGE" ]; then
  current=$(gcloud run jobs describe "$JOB" --project="$PROJECT" --region="$REGION" \
    --format='value(spec.template.spec.template.spec.containers[0].image)')
  if [ "$current" != "$JOB_IMAGE" ]; then
    gcloud run jobs update "$JOB" --project="$PROJECT" --region="$REGION" --image="$JOB_IMAGE"
  fi
fi
