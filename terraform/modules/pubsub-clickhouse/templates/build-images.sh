# Run by terraform apply (build.tf) from the repository's root: builds and pushes both images with
# cloudbuild.yaml, as the build account the module made, tagged TAG (a hash of the sources that go
# into them), in REGION's repository. Tags are immutable, so images already pushed under TAG are
# not built again (an apply after a failed one, or after the state was lost).
set -eu
registry="$REGION-docker.pkg.dev/$PROJECT/$REPOSITORY"
if gcloud artifacts docker images describe "$registry/pubsub-clickhouse-function:$TAG" \
  --project="$PROJECT" >/dev/null 2>&1 &&
  gcloud artifacts docker images describe "$registry/pubsub-clickhouse-backfill:$TAG" \
    --project="$PROJECT" >/dev/null 2>&1; then
  echo "images: $TAG is already in $registry"
  exit 0
fi
gcloud builds submit . --project="$PROJECT" --config=cloudbuild.yaml \
  --service-account="projects/$PROJECT/serviceAccounts/$BUILD_ACCOUNT" \
  --gcs-source-staging-dir="gs://$SOURCE_BUCKET/source" \
  --substitutions="_REGION=$REGION,_REPOSITORY=$REPOSITORY,_SERVICE=$SERVICE,_JOB=$JOB,_TAG=$TAG"
